"""The searches' greedy rollout (leads from a memo, replies to a unit off the masks) and the
ISMCTS root worked out once a call, against their definitions.

The greedy policy's move is `greedy_choice` (the Python agent) on the legal list; the rollout
the searches run must play it at every step, and draw exactly as the rollout that lists
every step's moves (`ddzlab.search.policies.choose`), so a seeded search plays the same games.
tests/compiled_check.py compares whole rollouts with the Python `GreedyRollout` on 100,000
positions a rule set; here, the parts one at a time.
"""
from __future__ import annotations

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.agents import mcts_compiled
from ddzlab.agents.greedy import greedy_choice
from ddzlab.analysis.greedy import q_value
from ddzlab.cards import Hand, format_bits
from ddzlab.agents.mcts import split_filter
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves import legal_moves
from ddzlab.moves.compiled import MAX_MOVES, _NATURAL, core_table, encode
from ddzlab.rules import HOMEWORK, MINI, STANDARD, WILDCARD, Kind
from ddzlab.search.policies import (LEAD_MEMO_SLOTS, POLICIES, _greedy_chain_reply, _greedy_lead, _greedy_unit_reply,
                                    new_lead_memo, rollout)
from ddzlab.search.state import from_game
from ddzlab.search.tree import seed as seed_core
from ddzlab.search.weights import stand_in

from conftest import clumpy_hand, random_hand, random_position

UNITS = {Kind.SOLO, Kind.PAIR, Kind.TRIO, Kind.BOMB}
#: the moves to beat whose replies the rollout walks besides the units: chains, one kicker
WALKED_CHAINS = {Kind.SOLO_CHAIN, Kind.PAIR_CHAIN, Kind.TRIO_CHAIN, Kind.GAP_SOLO_CHAIN, Kind.GAP_PAIR_CHAIN,
                 Kind.GAP_TRIO_CHAIN, Kind.QUAD_CHAIN}
ONE_KICKER = {Kind.TRIO_SOLO, Kind.TRIO_PAIR}


def _facts(game: Game) -> tuple[bool, bool]:
    """(partner, threat) of the seat to act, as the rollout's greedy policy reads them: the
    move to beat is its partner's (two farmers), its player has at most 4 cards left."""
    s, last, lord = game.to_act, game.last_seat, game.landlord
    partner = lord is not None and s != lord and last != lord
    return partner, game.sizes[last] <= 4


@pytest.mark.parametrize("rules", [STANDARD, MINI, HOMEWORK, WILDCARD], ids=lambda r: r.name)
def test_a_walked_reply_is_greedys_choice(rules):
    """At every reply of random games by a hand without F, `_greedy_unit_reply` gives
    `greedy_choice`'s move on the game's legal list to a unit and says to list the replies
    (-1, -1) to any other move; `_greedy_chain_reply` gives it to a chain or a trio or quad
    with one kicker and says to list the rest (planes, two kickers, bombs). All of these
    occur, with partners and threats."""
    t = core_table(rules)
    rng = np.random.default_rng(5)
    seen = {"unit": 0, "chain": 0, "kicker": 0, "listed": 0, "partner": 0, "threat": 0}
    for deal in generate_deals(60, seed=9, rules=rules):
        game = Game(deal, rules=rules, landlord=0)
        while not game.is_over:
            legal = game.legal_moves()
            hand = game.hands[game.to_act]
            if game.last_move is not None and hand & _NATURAL == hand:        # F: the rollout lists
                st, meta = from_game(game), encode(game.last_move)[1]
                unit = tuple(int(x) for x in _greedy_unit_reply(t, st, hand, meta))
                walked = tuple(int(x) for x in _greedy_chain_reply(t, st, hand, meta))
                kind = game.last_move.kind
                if kind in UNITS:
                    got = unit
                    assert walked == (-1, -1)
                    seen["unit"] += 1
                else:
                    assert unit == (-1, -1)
                    got = walked
                    if kind in WALKED_CHAINS:
                        seen["chain"] += 1
                    elif kind in ONE_KICKER:
                        seen["kicker"] += 1
                    else:
                        assert got == (-1, -1), kind
                        seen["listed"] += 1
                        got = None
                if got is not None:
                    partner, threat = _facts(game)
                    want = greedy_choice(hand, legal, True, partner, threat)
                    assert got == encode(want), (game.actions, want)
                    seen["partner"] += partner
                    seen["threat"] += threat
            game.push(legal[int(rng.integers(len(legal)))])
    assert seen["unit"] > 300 and seen["chain"] > 20 and seen["listed"] > 5, seen
    assert seen["partner"] > 20 and seen["threat"] > 20, seen
    assert rules is MINI or seen["kicker"] > 20, seen         # mini: no trio with a kicker


@pytest.mark.parametrize("rules", [STANDARD, MINI, HOMEWORK, WILDCARD], ids=lambda r: r.name)
def test_a_lead_is_greedys_choice(rules):
    """For the leading hands of random games (and of random and clumpy hands, which hold
    planes and quads more often) without F, `_greedy_lead` gives `greedy_choice`'s move on the
    Python generator's legal list, or says to list the leads (-1, -1) when the hand holds a plane's main part or
    a quad with two kickers; both occur, as do leads that empty the hand and leads whose best
    Q is tied by a later move."""
    t = core_table(rules)
    rng = np.random.default_rng(6)
    hands = []
    for deal in generate_deals(40, seed=10, rules=rules):
        game = Game(deal, rules=rules, landlord=0)
        while not game.is_over:
            legal = game.legal_moves()
            if game.last_move is None:
                hands.append(game.hands[game.to_act])
            game.push(legal[int(rng.integers(len(legal)))])
    for k in range(400):
        size = int(rng.integers(1, 21))
        hands.append((clumpy_hand(rng, rules, size) if k % 2 else random_hand(rng, rules, size)).bits)
    seen = {"walked": 0, "listed": 0, "empties": 0, "tied": 0}
    for hand in hands:
        if hand & _NATURAL != hand:
            continue
        legal = legal_moves(hand, rules, None)
        got = tuple(int(x) for x in _greedy_lead(t, hand))
        if got == (-1, -1):         # a plane's main part (two trios or more) or a quad: listed
            counts = Hand.from_bits(hand).counts
            assert max(counts) == 4 or sum(c >= 3 for c in counts) >= 2, format_bits(hand)
            seen["listed"] += 1
            continue
        want = greedy_choice(hand, legal, False, False, False)
        assert got == encode(want), (format_bits(hand), want)
        seen["walked"] += 1
        seen["empties"] += want.cards == hand
        qs = [q_value(hand, m) for m in legal if m.cards != hand]
        seen["tied"] += qs.count(max(qs, default=-1)) > 1
    assert seen["walked"] > 300 and seen["listed"] > 20 and seen["empties"] > 10 and seen["tied"] > 100, seen


@pytest.mark.parametrize("rules", [STANDARD, HOMEWORK, WILDCARD], ids=lambda r: r.name)
@pytest.mark.parametrize("epsilon", [0.0, 0.3])
def test_the_searches_greedy_rollout_plays_and_draws_as_the_listing_one(rules, epsilon):
    """From the same states and seeds, the rollout with a lead memo ends in the same state
    after the same number of moves as the one that lists every step (its exploring steps
    draw the same numbers); one memo serves every rollout, so later ones read leads stored by
    earlier ones."""
    t = core_table(rules)
    pt, w = stand_in(rules)
    memo = new_lead_memo()
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    for i in range(60):
        start = from_game(random_position(rules, i, i % 25))
        ends = []
        for leads in (None, memo):
            st = start.copy()
            seed_core(i)
            steps = rollout(t, st, POLICIES["greedy"], epsilon, oc, om, pt, w, leads)
            ends.append((steps, st.tolist()))
        assert ends[0] == ends[1], i
    assert memo[LEAD_MEMO_SLOTS, 0] > 0


def test_a_full_lead_memo_starts_again_and_stays_right():
    """Past half its slots the memo is emptied and filled anew; rollouts across the restart
    still play the listing rollout's games, and the count never passes half."""
    rules = STANDARD
    t = core_table(rules)
    pt, w = stand_in(rules)
    memo = new_lead_memo()
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    counts = []
    for i, deal in enumerate(generate_deals(900, seed=21)):
        start = from_game(Game(deal, landlord=i % 3))
        a, b = start.copy(), start.copy()
        seed_core(i)
        rollout(t, a, POLICIES["greedy"], 0.1, oc, om, pt, w)
        seed_core(i)
        rollout(t, b, POLICIES["greedy"], 0.1, oc, om, pt, w, memo)
        assert a.tolist() == b.tolist(), i
        counts.append(int(memo[LEAD_MEMO_SLOTS, 0]))
    assert max(counts) <= LEAD_MEMO_SLOTS // 2
    assert any(later < earlier for earlier, later in zip(counts, counts[1:]))       # it restarted
    kept = memo[:LEAD_MEMO_SLOTS]
    assert int((kept[:, 0] >= 0).sum()) == counts[-1]                                 # the count is true


@pytest.mark.parametrize("widen", [0.0, 0.5])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_ismcts_root_has_one_child_per_move_of_its_filter(widen, seed):
    """Every ISMCTS iteration passes through one child of the root, and the root's moves are
    the same in every world (the searcher's hand and the public facts): the children's
    visits add up to the iterations, and the children are the split filter's moves (each
    once), plus with widening the first floor((N - 1) ** widen) moves it left out, in legal
    order, N the iterations (the root has N - 1 visits at the last one)."""
    game = Game(generate_deals(1, seed=seed)[0], landlord=0)
    obs = game.observation(0)
    n = 300
    agent = make_agent(f"ismcts:iterations={n},widen={widen}", seed=seed, backend="numba")
    stats = mcts_compiled.search(agent, obs, None, n)
    assert sum(v for v, _ in stats.values()) == n
    legal = list(obs.legal_moves)
    kept = split_filter(game, legal, agent.width)
    left_out = [m for m in legal if m not in kept]
    extra = int((n - 1) ** widen) if widen else 0
    assert len(kept) < n and len(left_out) > extra
    assert set(stats) == set(kept) | set(left_out[:extra])


@pytest.mark.parametrize("widen", [0.0, 0.5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_node_has_each_move_once_and_passes_on_all_but_its_first_visit(widen, seed):
    """ISMCTS expands a node's untried moves only, one per iteration, and every later visit
    passes through a child: in the whole tree no node has two children of the same move, and
    a node with children has one visit more than they have together. The moves of the
    searcher's own nodes below the root are kept for the call: a child it forgets would be
    expanded twice."""
    from ddzlab.search.tree import N_CARDS, N_FIRST, N_META, N_NEXT, N_VISITS
    game = random_position(STANDARD, seed, 3 * seed)
    obs = game.observation(game.to_act)
    n = 1500
    agent = make_agent(f"ismcts:iterations={n},widen={widen}", seed=seed, backend="numba")
    mcts_compiled.search(agent, obs, None, n)
    tree = agent.core_tree
    ints = tree.ints[:int(tree.used[0])]
    deep = 0
    for node in range(len(ints)):
        moves, visits = [], 0
        ch = ints[node, N_FIRST]
        while ch >= 0:
            moves.append((int(ints[ch, N_CARDS]), int(ints[ch, N_META])))
            visits += int(ints[ch, N_VISITS])
            ch = ints[ch, N_NEXT]
        assert len(moves) == len(set(moves)), node
        if moves:
            assert visits == ints[node, N_VISITS] - (node != 0), node
            deep += ints[node, N_VISITS] >= 20
    assert ints[0, N_VISITS] == n and deep > 10


def test_a_stored_lead_is_found_again_also_after_the_memo_starts_again():
    """The memo's own law: a hand stored is found with its move, before and right after the
    memo empties itself at half full (its count then starts again at 1)."""
    from ddzlab.search.policies import _memo_find, _memo_store
    rng = np.random.default_rng(3)
    memo = new_lead_memo()
    hands = [int(h) for h in rng.integers(1, 1 << 60, size=200)]
    for k, hand in enumerate(hands):
        cards, meta, slot = _memo_find(memo, hand)
        assert (cards, meta) == (-1, -1) and slot >= 0
        _memo_store(memo, slot, hand, k, k + 1)
    for k, hand in enumerate(hands):
        assert tuple(int(x) for x in _memo_find(memo, hand)) == (k, k + 1, -1)
    memo[LEAD_MEMO_SLOTS, 0] = LEAD_MEMO_SLOTS // 2            # as if half full
    late = hands[0] ^ 12345
    _, _, slot = _memo_find(memo, late)
    _memo_store(memo, slot, late, 7, 8)
    assert int(memo[LEAD_MEMO_SLOTS, 0]) == 1                    # emptied, then this one stored
    assert tuple(int(x) for x in _memo_find(memo, late)) == (7, 8, -1)
    assert tuple(int(x) for x in _memo_find(memo, hands[1]))[:2] == (-1, -1)   # the rest forgotten


def test_halfsolo_draws_are_its_definition_draw_by_draw():
    """`halfsolo_index` against `HalfSoloRollout`'s law replayed with the same generator
    (numba's is numpy's Mersenne Twister, seeded alike): u uniform on [0, n - k // 2); below
    n - k, the int(u)-th non-solo in legal order; else a second draw picks a solo uniformly."""
    from ddzlab.moves.compiled import SCRATCH, compiled_moves
    from ddzlab.search.policies import halfsolo_index
    from ddzlab.search.state import legal
    game = Game(generate_deals(1, seed=2)[0], landlord=0)
    t = core_table(STANDARD)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    n = legal(t, from_game(game), oc, om, np.empty(SCRATCH, dtype=np.int64))
    solos = [i for i, m in enumerate(compiled_moves(game.hands[0], STANDARD)) if m.kind is Kind.SOLO]
    others = [i for i in range(n) if i not in solos]
    k = len(solos)
    assert n > 10 and k >= 2
    seed_core(5)
    got = [int(halfsolo_index(om, n, 10)) for _ in range(3000)]
    r = np.random.RandomState(5)
    want = []
    for _ in range(3000):
        u = r.random_sample() * (n - k // 2)
        want.append(others[int(u)] if u < n - k else solos[int(r.random_sample() * k)])
    assert got == want
    assert others[0] in got and others[-1] in got and solos[0] in got and solos[-1] in got
