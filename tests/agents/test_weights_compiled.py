"""The compiled `weights` play (ddzlab.search.power, ddzlab.search.weights, WeightsCore)
against `WeightsAgent` and `PowerSolver`.

Move-for-move equality on mixed-agent games runs in tests/search/test_compiled.py (through
tests/compiled_check.py, which runs 100,000 positions per rule set as a script). Here: the
refused rule sets, the state's `unseen` against `Observation.unseen`, hand power on hard
hands, whole self-play games and the simulation labels against the Python path, and the
``weights`` rollout of the MCTS agents on both backends. Under the wildcard rules: the power
of a hand with F against the best of its natural readings, and whole games against
`WeightsAgent` run on the core's order (tests/compiled_check.py's `CoreOrderWeights`).
"""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from compiled_check import CoreOrderWeights, _core_order
from conftest import clumpy_hand
from ddzlab.agents import make_agent
from ddzlab.agents.base import play_game
from ddzlab.agents.weights import RuleWeights, WeightsAgent, WeightsError
from ddzlab.agents.weights_compiled import WeightsCore, params
from ddzlab.analysis.power import PowerConstants, PowerSolver
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.labels import play_as_landlord, random_deal, simulate_hand, weights_as_landlord
from ddzlab.moves import generator
from ddzlab.moves.compiled import MAX_MOVES, SCRATCH, core_table, decode, encode
from ddzlab.rules import MINI, STANDARD, WILDCARD, Kind
from ddzlab.search import from_game
from ddzlab.search.power import STARTS, context, hand_plays, solver
from ddzlab.search.state import unseen
from ddzlab.cards import F_BIT, Hand


def test_rule_sets_without_a_core_are_refused_by_name():
    rules = replace(STANDARD, name="odd bombs", bomb_order=(Kind.ROCKET, Kind.BOMB))
    game = Game(rules=rules, seed=1, first_bidder=0)
    game.make_bid(3)
    with pytest.raises(WeightsError, match=rules.name):
        WeightsCore().play(game.observation(game.to_act))


def test_unknown_rule_names_are_refused():
    with pytest.raises(WeightsError, match="unknown rule"):
        WeightsCore(off="bombs")


def test_parameters_follow_the_weights_and_the_ablation():
    w = RuleWeights(follow_threshold=-7.5, gate_ranks=(8, 10), bomb_rest_plays=3)
    p = params(w, frozenset({"finish", "bomb"}))
    assert p[0] == -7.5 and list(p[6:8]) == [8, 10] and p[11] == 3
    assert int(p[-1]) == 1 | 1 << 8


@pytest.mark.parametrize("rules", [STANDARD, MINI], ids=lambda r: r.name)
def test_unseen_of_the_state_is_the_observations(rules):
    rng = np.random.default_rng(4)
    t = core_table(rules)
    for _ in range(8):
        game = Game(rules=rules, seed=rng, first_bidder=0) if rules.bidding else Game(rules=rules, seed=rng)
        if rules.bidding:
            game.make_bid(int(rng.integers(1, 4)))
            while game.landlord is None:
                game.make_bid(0)
        while not game.is_over:
            st = from_game(game)
            for seat in range(game.players):
                assert unseen(t, st, seat) == game.observation(seat).unseen.bits
            legal = game.legal_moves()
            game.push(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("rules", [STANDARD, MINI], ids=lambda r: r.name)
def test_power_and_split_of_clumpy_hands(rules):
    rng = np.random.default_rng(8)
    run = solver(rules)
    for _ in range(60):
        hand = clumpy_hand(rng, rules, int(rng.integers(1, 21 if rules.hand_size > 10 else 13))).bits
        ref = PowerSolver(hand, rules)
        assert run(hand) == (ref.power(hand), [encode(m) for m in ref.split(hand)])


def test_self_play_equals_the_python_games():
    core = WeightsCore()
    for deal in generate_deals(6, seed=12):
        ref = play_game(Game(deal, landlord=0), [WeightsAgent() for _ in range(3)])
        fast = core.play_out(Game(deal, landlord=0))
        assert fast.actions == ref.actions
        assert core.result(Game(deal, landlord=0)) == (ref.winner, ref.scores)


def test_simulation_labels_take_the_compiled_path_with_the_same_results():
    hand = Hand("33445566778899TTJ")
    rng = np.random.default_rng(0)
    for _ in range(4):
        deal = random_deal(hand, rng)
        assert weights_as_landlord(deal) == play_as_landlord(deal, WeightsAgent)
    fast = simulate_hand(hand, n_deals=5, agent="weights", seed=2)
    slow = simulate_hand(hand, n_deals=5, agent=WeightsAgent, seed=2)
    assert (fast["wins"], fast["mean_points"], fast["agent"]) == (slow["wins"], slow["mean_points"], "weights")


def test_simulation_labels_fall_back_to_python_games_without_numba(monkeypatch):
    """Where numba cannot run, ``agent="weights"`` labels are the Python games (the same
    results), not an ImportError, as the MCTS agents fall back to their Python backend."""
    import ddzlab.agents.mcts as mcts
    from ddzlab.labels import default_play
    assert default_play("weights") is not play_as_landlord          # the compiled core here
    monkeypatch.setattr(mcts, "numba_error", lambda: "numba does not import (simulated)")
    assert default_play("weights") is play_as_landlord
    assert default_play("greedy") is play_as_landlord
    hand = Hand("33445566778899TTJ")
    got = simulate_hand(hand, n_deals=3, agent="weights", seed=2)
    slow = simulate_hand(hand, n_deals=3, agent=WeightsAgent, seed=2)
    assert (got["wins"], got["mean_points"]) == (slow["wins"], slow["mean_points"])


@pytest.mark.parametrize("backend", ["numba", "python"])
def test_weights_rollout_runs_on_both_backends(backend):
    deal = generate_deals(1, seed=21)[0]
    agent = make_agent(f"ismcts:rollout=weights,iterations=30,backend={backend}", seed=3)
    game = play_game(Game(deal, landlord=0), [agent, make_agent("greedy"), make_agent("greedy")])
    assert game.is_over and agent.last_backend == backend
    assert agent.rollout.name == "weights"


def test_weights_rollout_is_reproducible_compiled():
    deal = generate_deals(1, seed=22)[0]
    moves = []
    for _ in range(2):
        game = Game(deal, landlord=0)
        agent = make_agent("ismcts:rollout=weights,iterations=60", seed=9)
        moves.append(agent.play(game.observation(0)))
        assert agent.last_simulations > 60      # whole games were rolled out
    assert moves[0] == moves[1]


@pytest.mark.parametrize("partner, lord, beatable", [("8", "567AAA", True), ("A", "567AA", False)])
def test_beatable_at_the_edge_of_the_unseen_count(partner, lord, beatable):
    """`_beatable`'s rule for a play with kickers: judged by its main part, kickers assumed
    found among the unseen cards, so a play of more cards than are unseen is not beatable.
    At the edge: the farmer of seat 1 leads 3334 (4 cards) while the landlord (seat 0) still
    holds the revealed kitty 567, so the unseen cards are the landlord's other cards and the
    partner's. Four unseen cards holding AAA: beatable; three (AAA): not. The Python rule and
    the kernel, on the same position (built directly: such a position is rare in play)."""
    from types import SimpleNamespace

    from ddzlab.agents.weights import _Ctx
    from ddzlab.moves import detect
    from ddzlab.moves.compiled import MAX_MOVES, SCRATCH
    from ddzlab.search.state import N_STATE, S_HAND, S_KITTY, S_LORD, S_PLAYED, S_PLAYERS, S_SIZE, S_TO_ACT
    from ddzlab.search.weights import _beatable
    hands = [Hand(lord), Hand("3334"), Hand(partner)]
    rest = Hand.from_bits(STANDARD.deck).bits - sum(h.bits for h in hands)
    st = np.zeros(N_STATE, dtype=np.int64)
    for s, h in enumerate(hands):
        st[S_HAND + s], st[S_SIZE + s] = h.bits, len(h)
    st[S_PLAYED + 1] = rest                   # every other card was played (none by the landlord)
    st[S_LORD], st[S_TO_ACT], st[S_PLAYERS], st[S_KITTY] = 0, 1, 3, Hand("567").bits
    t = core_table(STANDARD)
    hidden = Hand.from_bits(int(unseen(t, st, 1)))
    assert hidden == Hand(lord[3:] + partner)            # the kitty cards are known, not unseen
    move = detect("3334")
    fc, fm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    cards, meta = encode(move)
    most = len(lord)
    assert bool(_beatable(t, st, cards, meta, most, fc, fm, np.empty(SCRATCH, dtype=np.int64))) is beatable
    obs = SimpleNamespace(cards_left=[len(h) for h in hands], unseen=hidden, rules=STANDARD)
    assert WeightsAgent()._beatable(_Ctx(obs, None, [0], 2, 0.0), move) is beatable


def test_self_play_with_other_weights_ablation_and_power_equals_the_python_games(tmp_path):
    """Every option reaches the kernel: a weights file (not the shipped one), rules switched
    off and other power constants give the Python agent's games, move for move, and differ
    from the defaults' on these deals."""
    from dataclasses import replace
    path = tmp_path / "w.json"
    path.write_text(RuleWeights(follow_threshold=-3.0, high_cost=0.3, partner_max_rank=5).to_json())
    power = replace(PowerConstants(), unit=1.5, kicker=0.4)
    core = WeightsCore(str(path), off="spare_partner,urgent_block,bomb", power=power)
    assert core.weights == RuleWeights.from_dict(json.loads(path.read_text()))
    assert WeightsCore(core.weights).weights is core.weights          # weights given as such
    differ = ablated = 0
    for deal in generate_deals(6, seed=12):
        ref = play_game(Game(deal, landlord=0), [WeightsAgent(str(path), off="spare_partner,urgent_block,bomb", power=power)
                                                 for _ in range(3)])
        assert core.play_out(Game(deal, landlord=0)).actions == ref.actions
        differ += ref.actions != WeightsCore().play_out(Game(deal, landlord=0)).actions
        ablated += ref.actions != WeightsCore(str(path), power=power).play_out(Game(deal, landlord=0)).actions
    assert differ >= 3 and ablated >= 1


def test_play_out_finds_a_move_whose_cards_need_all_64_bits():
    """The landlord leads holding 333R after two chains that nobody answered: the weights play
    finishes with the trio and the red joker, a move whose packed cards (the joker's bit far
    above the 3s') a 64-bit float cannot hold exactly; `play_out` returns it found among the
    legal moves, and `result` agrees."""
    from ddzlab.cards import format_bits
    from ddzlab.deals import Deal
    from ddzlab.moves import detect
    lord, kitty = Hand("333R456789TJQKA56789"), Hand("789")
    rest = format_bits(STANDARD.deck - lord.bits)
    deal = Deal((lord.bits - kitty.bits, Hand(rest[:17]).bits, Hand(rest[17:]).bits), kitty.bits)
    passes = [(1, detect("")), (2, detect(""))]
    history = [(0, detect("456789TJQKA")), *passes, (0, detect("56789")), *passes]
    finish = detect("333R")
    assert float(finish.cards) != finish.cards
    game = WeightsCore().play_out(Game.resume(deal, history, landlord=0))
    assert game.history[-1] == (0, finish) and game.is_over and game.winner == 0
    assert WeightsCore().result(Game.resume(deal, history, landlord=0)) == (0, game.scores)


def _natural(rules):
    """The rule set without its flower card (the natural cards' moves, the same kickers)."""
    return replace(rules, name=f"{rules.name} natural", deck=rules.deck & ~F_BIT, wildcard=None, wild_ranks=())


def test_power_with_the_flower_card_is_the_best_of_its_readings():
    """A hand with F is worth the best of the natural hands it may stand for (the natural cards
    plus one x, for each rank x that F may read; hands of at most three of a rank, so every
    reading is a hand of the deck): the hand power definition applied to F's readings, checked
    on the compiled solver with the natural rules' Python solver as the oracle."""
    rng = np.random.default_rng(21)
    run, natural = solver(WILDCARD), _natural(WILDCARD)
    deck = [r for r in range(15) for _ in range(min(3, (WILDCARD.deck >> (4 * r)) & 15))]
    for _ in range(40):
        nat = sum(1 << (4 * int(r)) for r in rng.permutation(deck)[:int(rng.integers(1, 11))])
        want = max(PowerSolver(nat + (1 << (4 * x)), natural).power(nat + (1 << (4 * x)))
                   for x in WILDCARD.wild_ranks)
        got, split = run(nat + F_BIT)
        assert got == pytest.approx(want, abs=1e-9)
        assert sum(c for c, _ in split) == nat + F_BIT         # the split pays every card, F once


def test_wildcard_games_equal_the_python_agent_on_the_cores_order():
    """Whole wildcard games between three weights players (F dealt to a hand or the kitty): at
    every move the compiled play is `WeightsAgent`'s on the core's order of the legal list and
    of the hand power's plays, with soft bombs among the legal moves at some of them."""
    core, ref = WeightsCore(), CoreOrderWeights()
    moves = flower = soft = 0
    for deal in generate_deals(6, seed=31, rules=WILDCARD):
        game = Game(deal, rules=WILDCARD, landlord=0)
        while not game.is_over:
            _core_order(game)
            obs = game.observation(game.to_act)
            want = ref.play(obs)
            assert core.play(obs) == want, (obs.hand, obs.last_move)
            moves += 1
            flower += bool(obs.hand.bits & F_BIT)
            soft += any(m.kind == Kind.SOFT_BOMB for m in obs.legal_moves)
            game.push(want)
    assert moves > 100 and flower >= 10 and soft >= 1


def test_wildcard_self_play_is_a_whole_legal_game():
    """`play_out` under the wildcard rules ends the game with every move found among the legal
    moves where it was played (`Game.push` of a legal move), and `result` agrees with it."""
    core = WeightsCore()
    for deal in generate_deals(3, seed=32, rules=WILDCARD):
        game = core.play_out(Game(deal, rules=WILDCARD, landlord=0))
        assert game.is_over
        assert core.result(Game(deal, rules=WILDCARD, landlord=0)) == (game.winner, game.scores)


@pytest.mark.parametrize("rules", [STANDARD, MINI], ids=lambda r: r.name)
def test_hand_plays_group_by_lowest_rank_in_the_generators_order(rules):
    """`hand_plays` against the definition it states: every play of the hand (the Python
    generator's `collect`), grouped by the lowest rank it holds, each group in `collect`'s
    order of kind, main rank and chain length (the order `split` breaks ties by), with
    ``start`` bounding the groups. Hands with chains of several lengths from one rank
    (34567 and 345678 both start at 3) and clumpy ones."""
    t, pt = core_table(rules), context(rules, memo_bits=10)
    pc, pm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    pp, start = np.empty(MAX_MOVES, dtype=np.float64), np.empty(STARTS, dtype=np.int64)
    rng = np.random.default_rng(21)
    fixed = [Hand("3456789TJ"), Hand("334455667788"), Hand("333444555667")] if rules is STANDARD else []
    for hand in fixed + [clumpy_hand(rng, rules, int(rng.integers(1, 13))) for _ in range(40)]:
        n = hand_plays(t, pt, hand.bits, pc, pm, pp, start, np.empty(SCRATCH, dtype=np.int64))
        want = generator(rules).collect(hand.counts)
        assert n == len(want)
        for low in range(15):
            group = [m for m in want if (m.cards & -m.cards).bit_length() - 1 >> 2 == low]
            got = [decode(int(pc[j]), int(pm[j])) for j in range(start[low], start[low + 1])]
            assert [(m.kind, m.rank, m.length) for m in got] == [(m.kind, m.rank, m.length) for m in group]
            assert sorted(m.cards for m in got) == sorted(m.cards for m in group)
    assert any(start[low + 1] - start[low] > 1 for low in range(15))


def test_one_card_guard_follows_with_the_highest_solo_when_it_is_listed_first():
    """`one_card_guard` (docs: "following a solo, beat with the highest"): the landlord (seat 0)
    follows a farmer's solo 5, that farmer down to one card. Under the wildcard rules its hand
    3342F has one natural reply, the 2, listed first, then F read as each rank 6..A (the core
    lists the replies paying F after the natural ones): the highest solo is the 2, though
    every later reply of the kind is a solo too. Position built directly (the state array)."""
    from ddzlab.moves import detect
    from ddzlab.search.state import (N_STATE, S_HAND, S_LAST_CARDS, S_LAST_META, S_LAST_SEAT, S_LORD, S_PASSES,
                                     S_PLAYED, S_PLAYERS, S_SIZE, S_TO_ACT, legal)
    from ddzlab.search.weights import choose_weights
    hands = [Hand("3342F"), Hand("6"), Hand("789TJ")]
    st = np.zeros(N_STATE, dtype=np.int64)
    for s, h in enumerate(hands):
        st[S_HAND + s], st[S_SIZE + s] = h.bits, len(h)
    st[S_PLAYED + 1] = Hand("5").bits
    st[S_LAST_CARDS], st[S_LAST_META] = encode(detect("5"))
    st[S_LORD], st[S_TO_ACT], st[S_LAST_SEAT], st[S_PASSES], st[S_PLAYERS] = 0, 0, 1, 1, 3
    t, pt, w = WeightsCore().tables(WILDCARD)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    n = legal(t, st, oc, om, np.empty(SCRATCH, dtype=np.int64))
    moves = [decode(int(oc[i]), int(om[i])) for i in range(n)]
    assert moves[0] == detect("2") and all(m.kind == Kind.SOLO for m in moves[:-1]) and len(moves) > 2
    assert moves[choose_weights(t, pt, w, st, oc, om, n)] == detect("2")
