"""The compiled search core (ddzlab.moves.compiled, ddzlab.search) against the Python path.

Move lists, greedy choices, split filters, whole games and the compiled weights play (with its
hand power) are compared position by position
by tests/compiled_check.py (here at a CI size; the script runs 100,000 positions per rule
set). The rest: the backend option of the MCTS agents, the sampling kernel, and the search
loops' values against the Python loops' on the same positions.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from compiled_check import check
from ddzlab.agents import make_agent
from ddzlab.agents import mcts as mcts_module
from ddzlab.agents.mcts import COMPILED_ITERATIONS, DEFAULT_ITERATIONS, MCTSConfigError
from ddzlab.deals import Deal, generate_deals
from ddzlab.determinize import UniformGuesser
from ddzlab.game import Game
from ddzlab.moves import Move, detect, legal_moves
from ddzlab.errors import OutOfTurnError, RulesError
from ddzlab.moves.compiled import MAX_MOVES, SCRATCH, compiled_moves, core_table, decode, encode, supports
from ddzlab.rules import HOMEWORK, MINI, STANDARD, WILDCARD, Kind
from ddzlab.search import view_of
from ddzlab.search.policies import greedy_index
from ddzlab.search.sample import sample_world
from ddzlab.search.state import S_HAND, S_SIZE, from_game, legal
from ddzlab.search.tree import seed as seed_core
from ddzlab.cards import Hand

from conftest import mean_root_value


@pytest.mark.parametrize("rules", [STANDARD, MINI, HOMEWORK], ids=lambda r: r.name)
def test_core_equals_python_on_random_positions(rules):
    report = check(rules, positions=1500, seed=3)
    assert report.failures == []
    assert report.positions >= 1500 and report.games > 10 and report.splits > 50 and report.hands >= 150
    assert report.weights >= 1500 and report.powers >= 500      # the compiled weights play and hand power
    assert report.priors > 50                                   # the split+policy filter, greedy and weights


def test_core_equals_python_on_random_wildcard_positions():
    """The wildcard rules: move lists as sets with the natural moves in order (docs/core.md),
    the Python policies on the core's order, and hands with F against the rule-text oracle."""
    report = check(WILDCARD, positions=1500, seed=3, weights=600, oracle_hands=20)
    assert report.failures == []
    assert report.positions >= 1500 and report.games > 10 and report.splits > 50 and report.hands >= 150
    assert report.flower >= 200 and report.greedy >= 1500 and report.rollouts >= 50 and report.priors > 50
    assert report.oracle == 40 and report.two_player >= 10
    # the weights play and hand power with F (on the core's order: docs/core.md)
    assert report.weights >= 600 and report.weights_flower >= 50 and report.powers >= 200


def test_docstring_examples_of_the_generator():
    assert [str(m) for m in compiled_moves(Hand("3334").bits, STANDARD)] == ['3', '4', '33', '333', '3334']
    m = detect("33344458")
    assert [str(x) for x in compiled_moves(Hand("4445558BR").bits, STANDARD, m)] == \
        ['4445558B', '4445558R', '444555BR', 'BR', 'pass']


def test_big_planes_and_their_kicker_conventions():
    # four trios with four solos (ranks at most twice), three-trio planes without the trio
    # that reads as a longer chain, pair planes
    for text in ("333444555666789TJQ", "3334445556667788", "333444555777888", "33344455566677889",
                 "33334444555566BR", "TTTJJJQQQKKKAAA22"):
        for to_beat in (None, *legal_moves(Hand(text))[-3:]):
            assert compiled_moves(Hand(text).bits, STANDARD, to_beat) == legal_moves(Hand(text), STANDARD, to_beat)


def test_encode_decode_round_trip():
    for m in legal_moves(Hand("333444555666789TJQ"))[::37] + legal_moves(Hand("99TTJJ"), MINI):
        assert decode(*encode(m)) == m


def test_rule_sets_without_a_core_are_named():
    from dataclasses import replace
    assert supports(STANDARD) and supports(MINI) and supports(HOMEWORK)
    odd = replace(STANDARD, name="odd bombs", bomb_order=(Kind.ROCKET, Kind.BOMB))
    assert not supports(odd)
    with pytest.raises(RulesError, match="odd bombs"):
        core_table(odd)


def test_the_table_reads_the_flower_card_and_the_bomb_tiers():
    from ddzlab.kernels import TABLE
    d, s = TABLE.describe(core_table(WILDCARD)), TABLE.describe(core_table(STANDARD))
    assert d["deck"][15] == 1 and s["deck"][15] == 0 and d["deck"][:15] == s["deck"][:15]
    assert d["wild"] == sum(1 << (4 * x) for x in WILDCARD.wild_ranks) and s["wild"] == 0
    assert [d["tiers"][int(k)] for k in (Kind.SOFT_BOMB, Kind.BOMB, Kind.ROCKET, Kind.PAIR)] == [1, 2, 3, 0]
    assert [s["tiers"][int(k)] for k in (Kind.SOFT_BOMB, Kind.BOMB, Kind.ROCKET)] == [0, 1, 2]


def _wild_hand(rng, size):
    """A random hand of the wildcard deck holding F (``size`` cards with it)."""
    deck = [r for r in range(13) for _ in range(4)] + [13, 14]
    rng.shuffle(deck)
    return Hand.from_bits(sum(1 << (4 * r) for r in deck[:size - 1]) + (1 << 60))


def _same_moves(got, want):
    """The compiled list holds the Python list's moves, each once, with the same readings;
    the natural moves (no F) in the same order; pass last when following (docs/core.md)."""
    natural = [m for m in want if m.reading is None]
    return (len(got) == len(set(got)) == len(want) and set(got) == set(want)
            and [m for m in got if m.reading is None] == natural
            and (want[-1].kind != Kind.PASS or got[-1] == want[-1]))


def test_flower_moves_equal_the_python_generator_on_random_hands():
    rng = np.random.default_rng(38)
    kinds = set()
    for i in range(300):
        hand = _wild_hand(rng, int(rng.integers(1, 22)))
        other = _wild_hand(rng, int(rng.integers(2, 21)))
        leads = legal_moves(other, WILDCARD)
        fours = [m for m in leads if m.is_bomb]
        for to_beat in (None, leads[int(rng.integers(len(leads)))], *fours[:1]):
            want = legal_moves(hand, WILDCARD, to_beat)
            got = compiled_moves(hand.bits, WILDCARD, to_beat)
            assert _same_moves(got, want), (hand, to_beat)
            kinds |= {m.kind for m in got if m.reading is not None}
    assert {Kind.SOFT_BOMB, Kind.PLANE_SOLO, Kind.SOLO_CHAIN, Kind.FOUR_TWO_SOLO, Kind.TRIO_PAIR} <= kinds


def test_flower_moves_equal_the_rule_text_oracle():
    """Brute force from the rule text (small hands): the compiled leads and replies of a hand
    with F are the oracle's (cards paid, kind, rank, length), each once, F read as the lowest
    rank that makes the move."""
    import oracle
    rng = np.random.default_rng(7)
    rt = oracle.text_of(WILDCARD)
    for i in range(25):
        hand = _wild_hand(rng, int(rng.integers(2, 10)))
        got = compiled_moves(hand.bits, WILDCARD)
        as_tuples = {(m.cards, m.kind, m.rank, m.length) for m in got}
        assert len(as_tuples) == len(got) and as_tuples == oracle.wild_leading(hand, WILDCARD), hand
        for m in got:
            if m.reading is not None:
                assert m.reading == oracle.lowest_reading(m.cards, (m.kind, m.rank, m.length), rt), m
        opener = _wild_hand(rng, int(rng.integers(2, 10)))
        cards, kind, rank, length = sorted(oracle.wild_leading(opener, WILDCARD))[int(rng.integers(5))]
        x = oracle.lowest_reading(cards, (kind, rank, length), rt) if cards >> 60 else None
        replies = compiled_moves(hand.bits, WILDCARD, Move(kind, rank, length, cards, x))
        assert replies[-1].is_pass
        assert ({(m.cards, m.kind, m.rank, m.length) for m in replies}
                == oracle.wild_replies(hand, WILDCARD, (kind, rank, length))), (hand, cards)


def test_encode_decode_carry_the_reading():
    hand = Hand("33345566F")
    moves = legal_moves(hand, WILDCARD)
    assert any(m.reading is not None for m in moves)
    for m in moves:
        cards, meta = encode(m)
        assert decode(cards, meta) == m and (meta >= 1 << 14) == (m.reading is not None)


def test_the_core_state_refuses_a_game_still_bidding():
    with pytest.raises(OutOfTurnError, match="bidding"):
        from_game(Game(generate_deals(1, seed=0)[0]))


@pytest.mark.parametrize("last_cards, bombs", [(4, True), (5, False), (1, True)])
def test_greedy_rollout_bombs_only_a_player_down_to_four_cards(last_cards, bombs):
    # The rollout's greedy rule: a bomb may answer the last player only when that player
    # holds 4 cards or fewer. Hand 4444KK against a solo 3, Q = size + d(rest) (+ -1 for a
    # play that breaks a four; d: the most cards one play takes, kickers not counted): the
    # bomb 4 + d(KK) = 6, solo K 1 + d(4444K) = 5, solo 4 1 + d(444KK) - 1 = 3. So the bomb
    # when bombs are allowed, else solo K.
    game = next(g for g in (Game(d, landlord=0) for d in generate_deals(20, seed=1)) if g.hands[0] & 15)
    game.play(Hand("3"))                # the landlord leads a solo 3; seat 1's hand is then set
    st = from_game(game)
    st[S_HAND + 1], st[S_SIZE + 1] = Hand("4444KK").bits, 6
    st[S_SIZE + 0] = last_cards
    oc, om, sc = (np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64),
                  np.empty(SCRATCH, dtype=np.int64))
    n = legal(core_table(STANDARD), st, oc, om, sc)
    chosen = decode(oc[greedy_index(st, oc, om, n)], om[greedy_index(st, oc, om, n)])
    assert chosen == detect("4444" if bombs else "K")


def test_split_filter_ranks_the_play_that_empties_the_hand_first():
    # Q(S, a) = MAX_Q + |a| for a play that empties S, above every split (|a| + d(rest) is at
    # most |S|): so the kernel's ``width`` best already hold it and it keeps exactly ``width``
    # plays. The 9-pair chain 3..J leads with 61 plays, many of Q = 18 = |S| ahead of it in
    # legal order; ranked as a split, the whole chain would fall outside the best 8 and a 9th
    # play would be kept beside it.
    from ddzlab.search.policies import split_filter as core_split
    hand = Hand("33445566778899TTJJ")
    game = Game(generate_deals(1, seed=2)[0], landlord=0)
    st = from_game(game)
    st[S_HAND + 0], st[S_SIZE + 0] = hand.bits, 18
    oc, om, sc = (np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64),
                  np.empty(SCRATCH, dtype=np.int64))
    n = legal(core_table(STANDARD), st, oc, om, sc)
    assert n == len(legal_moves(hand, STANDARD)) == 61
    fc, fm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    k = core_split(st, oc, om, n, 8, fc, fm)
    assert k == 8 and hand.bits in fc[:k].tolist()


def test_the_core_numbers_every_move_filter_of_the_agents():
    from ddzlab.agents.mcts import MOVE_FILTERS
    from ddzlab.search.tree import FILTERS
    assert tuple(FILTERS) == MOVE_FILTERS and sorted(FILTERS.values()) == list(range(len(MOVE_FILTERS)))


def test_split_policy_filter_of_the_core_equals_the_python_search_where_it_adds_a_move():
    """Weights self-play on 40 deals: at every position with more than 8 moves, the core's
    ``split+policy`` filter with the weights prior == the Python search's ``_legal`` (the split
    filter alike with and without the scratch the tree lends it). The
    random positions of compiled_check rarely reach the case of a follow whose weights reply
    the split filter dropped (the prior goes before the pass): these games reach it."""
    from ddzlab.agents.mcts import ISMCTSAgent
    from ddzlab.agents.weights_compiled import WeightsCore
    from ddzlab.search.policies import POLICIES, keep_prior, split_filter as core_split
    t, (_, pt, w) = core_table(STANDARD), WeightsCore().tables(STANDARD)
    search = ISMCTSAgent(moves="split+policy", rollout="weights", backend="python")
    oc, om, fc, fm, fc2, fm2 = (np.empty(MAX_MOVES, dtype=np.int64) for _ in range(6))
    sc = np.empty(SCRATCH, dtype=np.int64)
    added = {"leading": 0, "following": 0}
    for deal in generate_deals(40, seed=5):
        game = Game(deal, landlord=0)
        while not game.is_over:
            st = from_game(game)
            n = legal(t, st, oc, om, sc)
            if n > 8:
                k = core_split(st, oc, om, n, 8, fc, fm)
                k_sc = core_split(st, oc, om, n, 8, fc2, fm2, sc)      # in the generator's scratch, as the tree
                assert k_sc == k and fc2[:k].tolist() == fc[:k].tolist() and fm2[:k].tolist() == fm[:k].tolist()
                k2 = keep_prior(t, st, oc, om, n, k, POLICIES["weights"], pt, w, fc, fm) if k < n else k
                assert [decode(int(fc[i]), int(fm[i])) for i in range(k2)] == search._legal(game)
                added["following" if game.last_move is not None else "leading"] += k2 > k
            game.play(search.rollout.prior(game, game.legal_moves()))
    assert added["following"] >= 1 and added["leading"] >= 20


def _observation(seed: int, moves: int):
    game = Game(generate_deals(1, seed=seed)[0], landlord=0)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = game.legal_moves()
        game.push(legal[int(rng.integers(len(legal)))])
    return game, game.observation(game.to_act)


def test_sampled_worlds_deal_exactly_the_unseen_cards():
    seed_core(5)
    for s in range(6):
        game, obs = _observation(s, 4 + 3 * s)
        view = view_of(obs)
        st = np.empty_like(view.template)
        for _ in range(20):
            sample_world(*view, 0.0, st)
            hands = [int(st[i]) for i in range(3)]
            assert hands[obs.seat] == obs.hand.bits
            assert sum(hands) == sum(game.hands)                      # the same cards, redealt
            assert [len(Hand.from_bits(h)) for h in hands] == list(obs.cards_left)


def test_bomb_guesser_gives_a_bomb_to_the_opponent_that_did_not_play_from_it():
    # seat 1 plays one 3 of a bomb the landlord (seat 0) never held, seat 2 holds the rest:
    # with p = 1 every world gives seat 2 the three unseen 3s, with p = 0 not always
    hands = [Hand("44445555666677778"), Hand("38889999TTTTJJJJQ"), Hand("333QQQKKKKAAAA222")]
    game = Game(Deal(tuple(h.bits for h in hands), Hand("2BR").bits), landlord=0)
    for seat, move in ((0, "4"), (1, "Q"), (2, "pass"), (0, "pass"), (1, "3"), (2, "pass")):
        game.play(move, seat)
    obs = game.observation(0)
    view = view_of(obs, bombs=True)
    # the 3s, and the Qs (seat 1 played one, seat 2 holds three)
    assert view.bomb_ranks.tolist() == [0, 9] and view.bomb_left.tolist() == [3, 3]
    assert view.bomb_other.tolist() == [2, 2]
    assert view_of(obs).bomb_ranks.size == 0
    seed_core(0)
    st = np.empty_like(view.template)
    held = []
    for p in (1.0, 0.0):
        for _ in range(30):
            sample_world(*view, p, st)
            held.append(Hand.from_bits(int(st[2])).count("3"))
    assert held[:30] == [3] * 30 and min(held[30:]) < 3


def test_agents_pick_the_backend_and_say_which_ran(recwarn):
    game, obs = _observation(2, 5)
    a = make_agent("ismcts", seed=1, iterations=50)
    assert a.backend == "numba"
    move = a.play(obs)
    assert move in obs.legal_moves and a.last_backend == "numba" and a.last_iterations == 50
    assert make_agent("ismcts", seed=1, iterations=50).play(obs) == move          # same seed, same move
    p = make_agent("ismcts:backend=python", seed=1, iterations=50)
    p.play(obs)
    assert p.backend == p.last_backend == "python"
    with pytest.raises(MCTSConfigError, match="backend"):
        make_agent("mcts:backend=cuda")


def test_default_budget_follows_the_backend():
    _, obs = _observation(2, 5)
    for spec, backend, iterations in (("mcts_cheat", "numba", COMPILED_ITERATIONS),
                                      ("ismcts:backend=python", "python", DEFAULT_ITERATIONS)):
        a = make_agent(spec, seed=0)
        if backend == "numba":
            game, obs = _observation(2, 5)
            a.see_all_hands(game)
        a.play(obs)
        assert a.last_backend == backend and a.last_iterations == iterations
    wild = Game(generate_deals(1, seed=0, rules=WILDCARD)[0], rules=WILDCARD, landlord=0)
    a = make_agent("mcts:exact=12", seed=0, worlds=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a.play(wild.observation(0))
    assert a.last_backend == "python" and a.last_iterations == DEFAULT_ITERATIONS


def test_unsupported_searches_fall_back_or_refuse():
    wild = Game(generate_deals(1, seed=0, rules=WILDCARD)[0], rules=WILDCARD, landlord=0)
    obs = wild.observation(0)
    a = make_agent("ismcts:exact=12", seed=0, iterations=20)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mcts_module._NOTED.clear()
        a.play(obs)
    assert a.last_backend == "python" and any("wildcard" in str(x.message) for x in w)
    with pytest.raises(MCTSConfigError, match="exact endgame"):
        make_agent("ismcts:backend=numba,exact=12", seed=0, iterations=20).play(obs)
    _, std = _observation(2, 5)

    class Custom:                                   # a guesser with neither a compiled twin nor a pool
        name = "custom"

        def guess(self, obs, rng):
            return UniformGuesser().guess(obs, rng)
    custom = make_agent("ismcts", seed=0, iterations=20, guesser=Custom())
    mcts_module._NOTED.clear()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        custom.play(std)
    assert custom.last_backend == "python" and any("custom" in str(x.message) for x in w)


def test_without_numba_the_python_backend_runs_and_says_so(monkeypatch):
    monkeypatch.setattr(mcts_module, "numba_error", lambda: "numba does not import (test)")
    mcts_module._NOTED.clear()
    with pytest.warns(UserWarning, match="Python backend"):
        a = make_agent("mcts", seed=0, iterations=10)
    assert a.backend == "python"
    with pytest.raises(MCTSConfigError, match="pip install numba"):
        make_agent("mcts:backend=numba")


@pytest.mark.parametrize("spec", ["mcts_cheat", "mcts_cheat:rollout=random,moves=all",
                                  "mcts_cheat:rollout=halfsolo"])
def test_compiled_uct_values_match_the_python_loop(spec):
    # the same fixed world and budget: the root's mean reward, averaged over six seeds (one
    # search's value varies by about 0.04 from seed to seed: the mean's difference has a
    # standard error near 0.02), agrees within 0.05
    for s in (0, 4):
        game, obs = _observation(10 + s, s)
        make = lambda sd, backend: make_agent(spec, seed=sd, iterations=600, backend=backend)  # noqa: E731
        values = [mean_root_value(make, obs, backend, 600, game=game) for backend in ("numba", "python")]
        assert abs(values[0] - values[1]) < 0.05, values


def test_the_core_runs_with_numba_s_jit_off():
    """``NUMBA_DISABLE_JIT=1`` runs the kernels as plain Python (how tests/MUTATION.md mutates
    them): the core's moves of a hand, decoded, are still the engine's."""
    import os
    import subprocess
    import sys
    code = ("from ddzlab.moves import legal_moves\nfrom ddzlab.moves.compiled import compiled_moves\n"
            "from ddzlab.rules import STANDARD\nfrom ddzlab.cards import Hand\n"
            "h = Hand('3334445566JQKA2')\nassert compiled_moves(h.bits, STANDARD) == legal_moves(h, STANDARD)\n"
            "print(len(legal_moves(h, STANDARD)))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.split()[-1]) > 20


@pytest.mark.parametrize("rules, seed", [(STANDARD, 2), (WILDCARD, 11)], ids=["standard", "wildcard"])
@pytest.mark.parametrize("policy", ["halfsolo", "random"])
def test_rollout_steps_draw_as_their_definition(policy, rules, seed):
    """The compiled ``halfsolo`` and ``random`` steps (through ``choose``, as a rollout calls
    them) against the laws their Python twins state: ``random`` picks each legal move with
    1 / n; ``halfsolo`` (`HalfSoloRollout`, more than 10 legal moves here) gives each
    non-solo 1 / (n - k // 2) and the k solos the rest equally. A chi-square test on 40,000
    seeded draws (a fixed seed: the statistic is one number; a wrong law gives thousands).
    Under wildcard the landlord's hand holds F (its solos include F read as each rank)."""
    from ddzlab.search.policies import POLICIES, choose
    from ddzlab.search.weights import stand_in
    game = Game(generate_deals(1, seed=seed, rules=rules)[0], rules=rules, landlord=0)
    assert bool(game.hands[0] >> 60) == (rules is WILDCARD)
    st = from_game(game)
    t = core_table(rules)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    n = legal(t, st, oc, om, np.empty(SCRATCH, dtype=np.int64))
    solo = np.array([m.kind.name == "SOLO" for m in compiled_moves(game.hands[0], rules)])
    k = int(solo.sum())
    assert n > 10 and k >= 2 and n - k >= 2
    if policy == "halfsolo":
        p = np.where(solo, (1 - (n - k) / (n - k // 2)) / k, 1 / (n - k // 2))
    else:
        p = np.full(n, 1 / n)
    pt, w = stand_in(rules)
    seed_core(11)
    draws = 40_000
    picks = [choose(t, st, oc, om, n, POLICIES[policy], 0.0, pt, w) for _ in range(draws)]
    counts = np.bincount(picks, minlength=n)
    assert counts.size == n
    chi2 = float((((counts - draws * p) ** 2) / (draws * p)).sum())
    assert chi2 < 2 * n + 30, (chi2, n, k)        # df = n - 1: mean n - 1, sd about sqrt(2n)


def test_gapped_chains_of_the_homework_rules_against_the_rule_text():
    """The core's leads and replies of hands rich in gapped chains (ranks two apart) hold the
    moves the rule-text oracle finds by brute force, each card set once, in one of its readings."""
    import oracle
    from ddzlab.moves import PASS, Move
    for text in ("3579JK", "33557799TT", "333555777", "3456789TJQ", "3344556677", "35579JJKA2"):
        hand = Hand(text)
        want = oracle.leading_moves(hand, HOMEWORK)
        moves = compiled_moves(hand.bits, HOMEWORK)
        got = {m.cards: m for m in moves}
        assert len(got) == len(moves) and set(got) == set(want), text
        assert all((m.kind, m.rank, m.length) in want[b] for b, m in got.items()), text
    gap = Move(Kind.GAP_SOLO_CHAIN, 0, 5, Hand("3579J").bits)         # 3 5 7 9 J
    for text in ("4680Q2", "468TQKA", "5579JKA"):
        hand = Hand(text.replace("0", "T"))
        replies = compiled_moves(hand.bits, HOMEWORK, gap)
        assert replies[-1] == PASS
        assert {m.cards for m in replies} == oracle.replies(hand, HOMEWORK, (Kind.GAP_SOLO_CHAIN, 0, 5)), text


@pytest.mark.parametrize("rollout", ["greedy", "random", "halfsolo", "weights"])
def test_ismcts_runs_compiled_under_the_wildcard_rules(rollout):
    """Whole wildcard games: seat 0 searches on the core at every decision (F in a hand, in
    the kitty, played), the others play random moves; every move is legal."""
    rng = np.random.default_rng(5)
    held_f = 0
    for deal in generate_deals(2, seed=11, rules=WILDCARD):     # F: in seat 0's hand, in seat 2's
        game = Game(deal, rules=WILDCARD, landlord=0)
        agent = make_agent(f"ismcts:rollout={rollout},backend=numba", seed=1, iterations=60)
        while not game.is_over:
            obs = game.observation(game.to_act)
            move = agent.play(obs) if game.to_act == 0 else obs.legal_moves[int(rng.integers(len(obs.legal_moves)))]
            assert move in obs.legal_moves
            if game.to_act == 0:
                assert agent.last_backend == "numba"
                held_f += bool(obs.hand.bits >> 60)
            game.push(move)
    assert held_f >= 1


def test_sampled_wildcard_worlds_deal_the_flower_card_like_any_card():
    """F hidden in an opponent's hand (the landlord's, a farmer's): every world deals exactly
    the unseen cards, F among them, to either other seat."""
    seed_core(3)
    deals = generate_deals(2, seed=11, rules=WILDCARD)
    where = []
    for deal, f_seat in zip(deals, (0, 2)):
        game = Game(deal, rules=WILDCARD, landlord=0)
        for _ in range(3):
            game.push(game.legal_moves()[0])
        obs = game.observation(1)
        view = view_of(obs)
        st = np.empty_like(view.template)
        for _ in range(40):
            sample_world(*view, 0.0, st)
            hands = [int(st[i]) for i in range(3)]
            assert hands[1] == obs.hand.bits and sum(hands) == sum(game.hands)
            assert [len(Hand.from_bits(h)) for h in hands] == list(obs.cards_left)
            where.append([h >> 60 for h in hands].index(1))
    assert set(where[40:]) == {0, 2} and set(where[:40]) == {0, 2}
