"""Analysis calls finish or refuse: every exact search has a documented
limit, a too-large input is refused with `SearchLimitError` (a ValueError) before the
search starts (shown by replacing the search with one that fails if called), every
search stops at its state budget with its memory held to that budget, and an input at
the limit still gets its answer."""
from __future__ import annotations

import numpy as np
import pytest

from ddzlab.analysis import astar, bruteforce, dfs, endgame, homework, power
from ddzlab.analysis import best_score, hand_power, hints, min_plays, solve_endgame
from ddzlab.analysis.report import solve_report
from ddzlab.cards import Hand
from ddzlab.errors import SearchLimitError
from ddzlab.rules import HOMEWORK, STANDARD, WILDCARD


def _never(*args, **kwargs):
    raise AssertionError("the search ran: the input should have been refused up front")


#: a 34-card hand (the power limit) whose search needs 43,142 sub-hands, under the budget
POWER_AT_LIMIT = "3344555667777888999TTJJJQQQKKAA22B"


def test_the_error_is_a_value_error() -> None:
    assert issubclass(SearchLimitError, ValueError)
    assert issubclass(homework.BudgetExceeded, SearchLimitError)


@pytest.mark.parametrize("call", [lambda h: hand_power(h), lambda h: hints(h)], ids=["hand_power", "hints"])
def test_power_refuses_a_hand_over_its_limit_up_front(monkeypatch, call) -> None:
    monkeypatch.setattr(power, "PowerSolver", _never)
    big = Hand.from_bits(STANDARD.deck)                       # 54 cards: no result in 60 s before
    with pytest.raises(SearchLimitError, match="54 cards.*limit of 34"):
        call(big)
    with pytest.raises(SearchLimitError, match="35 cards"):
        call(Hand(POWER_AT_LIMIT + "R"))


def test_power_at_its_card_limit_still_answers() -> None:
    hand = Hand(POWER_AT_LIMIT)
    assert len(hand) == power.MAX_POWER_CARDS
    res = hand_power(hand)
    assert sum(m.size for m in res.moves) == 34 and res.states <= power.MAX_POWER_STATES


def test_power_search_stops_at_its_state_budget() -> None:
    """Exactly the sub-hands the search needs is enough; one fewer is refused, and the memo
    (its memory) never holds more than the budget."""
    bits = Hand("33445566778899TTJJQQ").bits
    need = power.PowerSolver(bits, STANDARD)
    want = need.power(bits)
    n = len(need.memo)
    assert n > 30
    assert power.PowerSolver(bits, STANDARD, max_states=n).power(bits) == want
    short = power.PowerSolver(bits, STANDARD, max_states=n - 1)
    with pytest.raises(SearchLimitError, match="sub-hands"):
        short.power(bits)
    assert len(short.memo) == n - 1


def test_endgame_refuses_too_many_cards_up_front(monkeypatch) -> None:
    monkeypatch.setattr(endgame._Solver, "wins", _never)
    deck = Hand.from_bits(STANDARD.deck).ranks()
    hands = [Hand.from_ranks(deck[i::3]) for i in range(3)]          # three 18-card hands
    with pytest.raises(SearchLimitError, match="54 cards.*limit of 30"):
        solve_endgame(hands)
    with pytest.raises(SearchLimitError, match="31 cards"):
        solve_endgame(["3456789TJQKA", "333444555", "6667778889"])


def test_endgame_at_its_card_limit_still_answers() -> None:
    """30 cards in all, the landlord to lead a straight that empties the hand."""
    res = solve_endgame(["3456789TJQKA", "333444555", "666777888"])
    assert res.winner == 0 and [str(m) for _, m in res.line] == ["3456789TJQKA"]


def test_endgame_stops_at_its_node_budget() -> None:
    rng = np.random.default_rng(2)
    deck = Hand.from_bits(STANDARD.deck).ranks()
    for _ in range(50):                                 # a position needing over 50 nodes
        cards = rng.choice(deck, 15, replace=False).tolist()
        hands = [Hand.from_ranks(cards[i::3]) for i in range(3)]
        full = solve_endgame(hands)
        if full.nodes > 50:
            break
    assert full.nodes > 50
    assert solve_endgame(hands, max_nodes=full.nodes).winner == full.winner
    with pytest.raises(SearchLimitError, match=f"{full.nodes - 1:,} positions"):
        solve_endgame(hands, max_nodes=full.nodes - 1)


def test_fewest_plays_with_the_flower_card_over_its_limit_is_refused_up_front(monkeypatch) -> None:
    monkeypatch.setattr(astar, "_astar", _never)
    with pytest.raises(SearchLimitError, match="55 cards with the flower card F.*limit of 50"):
        min_plays(Hand.from_bits(WILDCARD.deck), WILDCARD)       # 198 s and 2.2 GB before
    with pytest.raises(SearchLimitError, match="55 cards with the flower card F"):
        best_score(Hand.from_bits(WILDCARD.deck), WILDCARD)


def test_the_flower_limits_let_a_hand_at_the_limit_through(monkeypatch) -> None:
    """51 cards with F are refused, 50 are searched (the search replaced by a marker here:
    a real 50-card search takes seconds), and natural cards have no card limit."""
    deck = Hand.from_bits(WILDCARD.deck)
    at_limit = deck - Hand("33334")                             # 50 cards, F among them
    assert len(at_limit) == astar.MAX_FLOWER_PLAYS_CARDS == dfs.MAX_FLOWER_SCORE_CARDS
    searched = []

    def marker(tab, roots, *args, **kwargs):
        searched.append(len(roots))
        raise SearchLimitError("marker")
    monkeypatch.setattr(astar, "_astar", marker)
    with pytest.raises(SearchLimitError, match="marker"):
        min_plays(at_limit, WILDCARD)
    assert searched
    with pytest.raises(SearchLimitError, match="51 cards"):
        min_plays(deck - Hand("3333"), WILDCARD)


def test_fewest_plays_stops_at_its_expansion_budget() -> None:
    hand = Hand("33445566778899TTJJQQKKA")
    full = min_plays(hand, STANDARD, "zero")
    assert full.expanded > 3
    res = astar._astar(astar.tables(STANDARD), [(0, hand.bits)], "zero", max_expanded=full.expanded)
    assert res.plays == full.plays
    with pytest.raises(SearchLimitError, match="expanded"):
        astar._astar(astar.tables(STANDARD), [(0, hand.bits)], "zero", max_expanded=full.expanded - 1)


def test_best_score_stops_at_its_node_budget(monkeypatch) -> None:
    hand = Hand("3334445556667778889TJQ")
    full = best_score(hand, HOMEWORK, prune=False)
    monkeypatch.setattr(dfs, "MAX_SCORE_NODES", full.nodes)
    assert best_score(hand, HOMEWORK, prune=False).score == full.score
    monkeypatch.setattr(dfs, "MAX_SCORE_NODES", full.nodes - 1)
    with pytest.raises(SearchLimitError, match="nodes"):
        best_score(hand, HOMEWORK, prune=False)


def test_brute_force_refuses_hands_of_too_many_sub_hands(monkeypatch) -> None:
    monkeypatch.setattr(bruteforce, "_splits_moves", _never)
    deck = Hand.from_bits(STANDARD.deck)                  # 5**13 * 2 * 2 sub-hands
    with pytest.raises(SearchLimitError, match="4,882,812,500 sub-hands"):
        bruteforce.brute_min_plays(deck)
    with pytest.raises(SearchLimitError, match="sub-hands"):
        bruteforce.brute_best_score(deck, STANDARD)
    with pytest.raises(SearchLimitError, match="17 cards"):
        bruteforce.brute_endgame(("33334444", "555566667"))
    monkeypatch.undo()
    assert bruteforce.brute_endgame(("333344445555666", "7")) == 0    # 16 cards: seat 0 wins
    # at the limit: 3334445 has 4 * 4 * 2 = 32 sub-hands
    monkeypatch.setattr(bruteforce, "BRUTE_MAX_SUBHANDS", 32)
    assert bruteforce.brute_min_plays("3334445") == 2
    monkeypatch.setattr(bruteforce, "BRUTE_MAX_SUBHANDS", 31)
    with pytest.raises(SearchLimitError, match="32 sub-hands"):
        bruteforce.brute_min_plays("3334445")


def test_brute_force_stops_at_its_state_budget(monkeypatch) -> None:
    """The sub-hands of 3456789TJQ left after plays holding the lowest rank are its ten
    suffixes and the empty hand: eleven states."""
    monkeypatch.setattr(bruteforce, "BRUTE_MAX_STATES", 10)
    with pytest.raises(SearchLimitError, match="limit of 10 states"):
        bruteforce.brute_min_plays("3456789TJQ")
    monkeypatch.setattr(bruteforce, "BRUTE_MAX_STATES", 11)
    assert bruteforce.brute_min_plays("3456789TJQ") == 1


def test_homework_searches_stop_at_their_budgets() -> None:
    with pytest.raises(homework.BudgetExceeded, match="within 50 nodes"):
        homework.homework_dfs("3334445556667778", max_nodes=50)
    full = homework.homework_dfs("33344455")
    assert homework.homework_dfs("33344455", max_nodes=full.nodes).score == full.score
    assert homework.homework_astar.__defaults__[-1] == homework.HOMEWORK_MAX_EXPANDED


def test_solve_report_on_the_whole_wildcard_deck_reports_what_it_refused() -> None:
    """``ddzlab solve`` on the 55-card deck ran over 90 s before; now each refused part says
    why and the rest is answered."""
    text = solve_report(Hand.from_bits(WILDCARD.deck), WILDCARD)
    assert "fewest plays (A*): refused: the fewest plays of 55 cards" in text
    assert "best score (DFS): refused: the best score of 55 cards" in text
    assert "greedy Q(S,a) best:" in text


def test_compiled_power_refuses_a_hand_over_its_limit_up_front(monkeypatch) -> None:
    """The compiled hand power (`ddzlab.search.power.solver`) refuses as `hand_power` does."""
    from ddzlab.search import power as compiled
    run = compiled.solver(STANDARD)
    monkeypatch.setattr(compiled, "hand_plays", _never)
    monkeypatch.setattr(compiled, "power", _never)
    with pytest.raises(SearchLimitError, match="54 cards.*limit of 34"):
        run(STANDARD.deck)
    with pytest.raises(SearchLimitError, match="35 cards"):
        run(Hand(POWER_AT_LIMIT + "R").bits)


def test_compiled_power_stops_at_the_python_searchs_budget() -> None:
    """A cold compiled search memoises the sub-hands `PowerSolver` does: with the Python
    solver's memo size as ``max_states`` it answers, with one fewer it raises
    `SearchLimitError` exactly where `PowerSolver(max_states=n - 1)` does, and the refused
    call changes nothing: the same call is refused again, and other hands are answered as
    by a fresh solver."""
    from ddzlab.search import power as compiled

    def memo_size(bits: int) -> int:
        ref = power.PowerSolver(bits, STANDARD)
        ref.power(bits)
        return len(ref.memo)

    bits = Hand("33445566778899TTJJQQ").bits
    n = memo_size(bits)
    assert n > 30
    want = compiled.solver(STANDARD)(bits)
    assert compiled.solver(STANDARD, max_states=n)(bits) == want
    short = compiled.solver(STANDARD, max_states=n - 1)
    for _ in range(2):
        with pytest.raises(SearchLimitError, match="compiled hand power search.*limit of sub-hands"):
            short(bits)
    small = Hand("3345567789TTJQKA2").bits        # fewer sub-hands than the budget
    assert memo_size(small) < n - 1
    assert short(small) == compiled.solver(STANDARD)(small)
