"""The random rollout's step without a list (ddzlab.search.draw) against the listed moves.

The oracle is ``ddzlab.legal_moves`` (the Python generator): where `lead_count` /
`reply_count` count a position's moves, the count is the list's length and `lead_pick` /
`reply_pick` give its moves in its order. A seeded rollout by `random_step` plays the same
game as one drawing ``int(random() * n)`` from the listed moves (a loop written here on the
kernels `legal` and `play`).
"""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from ddzlab.cards import Hand
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves import detect, legal_moves
from ddzlab.moves.compiled import MAX_MOVES, SCRATCH, core_table, encode
from ddzlab.rules import HOMEWORK, MINI, STANDARD, WILDCARD
from ddzlab.search import from_game
from ddzlab.search.draw import lead_count, lead_pick, reply_count, reply_pick
from ddzlab.search.policies import POLICIES, rollout
from ddzlab.search.state import N_STATE, S_WINNER, legal, play
from ddzlab.search.tree import seed as seed_core
from ddzlab.search.weights import stand_in

RULES = [STANDARD, MINI, HOMEWORK, WILDCARD]


def _positions(rules, games: int, seed: int):
    """(hand to act, move to beat or None) at every position of random games."""
    rng = np.random.default_rng(seed)
    for deal in generate_deals(games, seed=seed, rules=rules):
        game = Game(deal, rules=rules, landlord=int(rng.integers(3)))
        while not game.is_over:
            yield game.hands[game.to_act], game.last_move
            legal_list = game.legal_moves()
            game.push(legal_list[int(rng.integers(len(legal_list)))])


def _check(t, rules, bits, to_beat) -> bool:
    """Whether the position was counted (asserting the count and every pick)."""
    want = [encode(m) for m in legal_moves(bits, rules, to_beat)]
    if to_beat is None or to_beat.is_pass:
        n = lead_count(t, bits)
        pick = [lead_pick(t, bits, i) for i in range(n)]
    else:
        cards, meta = encode(to_beat)
        n = reply_count(t, bits, meta)
        pick = [reply_pick(t, bits, meta, i) for i in range(n)]
    if n == 0:
        return False
    assert [(int(c), int(m)) for c, m in pick] == want, (Hand.from_bits(bits), to_beat)
    return True


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_counts_and_picks_equal_the_legal_list(rules):
    t = core_table(rules)
    counted = listed = 0
    for bits, to_beat in _positions(rules, 40, seed=11):
        if bits >> 60:                           # a hand holding F is always listed
            continue
        if _check(t, rules, bits, to_beat):
            counted += 1
        else:
            listed += 1
    assert counted > 1000 and listed > 20        # both paths met


def test_kicker_hands_are_counted_or_left_to_the_list():
    """Trios with solos and pairs, bombs, rockets, chains; quads with two kickers and planes
    (left to the list: the count says 0)."""
    t = core_table(STANDARD)
    for text in ("333444555", "3334445556", "33334", "3333BR", "34567789TJQQQ", "3344556677", "BR",
                 "2222", "333", "33344", "3333444455"):
        bits = Hand(text).bits
        counted = _check(t, STANDARD, bits, None)
        assert counted == (text not in ("333444555", "3334445556", "33334", "3333BR", "2222", "3333444455"))
    for text, beat in (("3456789TJQKA2BR", "3"), ("33445566778899", "44"), ("22223333", "4444"),
                       ("BR3", "2"), ("TTTJJJ2", "999")):
        assert _check(t, STANDARD, Hand(text).bits, detect(beat))
    assert not _check(t, STANDARD, Hand("34567").bits, detect("45678"))      # a chain: listed


@njit
def _listed_rollout(t, st, oc, om, sc):
    """The reference: list the moves, draw int(random() * n), play it."""
    steps = 0
    while st[S_WINNER] < 0:
        n = legal(t, st, oc, om, sc)
        i = int(np.random.random() * n)
        play(st, oc[i], om[i])
        steps += 1
    return steps


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_a_seeded_rollout_plays_the_listed_draws(rules):
    t = core_table(rules)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    for i, deal in enumerate(generate_deals(60, seed=5, rules=rules)):
        start = from_game(Game(deal, rules=rules, landlord=i % 3))
        a, b = start.copy(), start.copy()
        seed_core(i)
        steps_a = rollout(t, a, POLICIES["random"], 0.0, oc, om, *stand_in(rules))
        seed_core(i)
        steps_b = _listed_rollout(t, b, oc, om, sc)
        assert steps_a == steps_b and (a == b).all()
        assert a.shape == (N_STATE,)
