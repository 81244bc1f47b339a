"""Differential test: ddzlab's standard legal moves equal DouZero's (docs/definitions.md#standard-move-set).

The oracle is DouZero 1.1.0's `MovesGener` filtered by its own `move_detector`; the test
needs `pip install --no-deps douzero==1.1.0` (``make setup`` and environment.yml install it).
Without it the tests fail in CI and are skipped elsewhere (`peers.require_peer`).
"""
import numpy as np
import pytest

from conftest import random_hand
from ddzlab.cards import Hand
from ddzlab.moves import legal_moves
from ddzlab.rules import STANDARD, Kind
from peers import DOUZERO_INSTALL, douzero_following, douzero_leading, require_peer, to_douzero


@pytest.fixture(autouse=True, scope="module")
def _douzero():
    require_peer("douzero.env.move_generator", DOUZERO_INSTALL)

CRAFTED = [
    "33344455566678BR22",      # planes, B+R kickers
    "3334445556669999",        # plane whose kickers would hold a bomb
    "3334445556667779",        # plane whose kickers would hold a trio next to the chain
    "333444555999BR",          # three solo kickers of one rank
    "333444555666777888",      # long trio chains, planes of every length
    "3456789TJQKA2222BR",      # 12-chain, bomb of 2s with B+R kickers
    "33445566778899TTJJQQ",    # long pair chains
    "33334444555566667777",    # five bombs: four+two pairs never from one bomb
    "333444555666BR2222",
    "3333444455556666BR",
]


def ours(hand: Hand) -> set[tuple[int, ...]]:
    moves = legal_moves(hand, STANDARD)
    out = {tuple(to_douzero(m.cards)) for m in moves}
    assert len(out) == len(moves)
    return out


def diff_message(hand, a, b):
    return (f"{hand}: only DouZero {sorted(a - b)[:5]}, only ddzlab {sorted(b - a)[:5]}")


@pytest.mark.parametrize("text", CRAFTED)
def test_crafted_hands(text):
    hand = Hand(text)
    a, b = douzero_leading(hand), ours(hand)
    assert a == b, diff_message(hand, a, b)


@pytest.mark.parametrize("size", [17, 20])
def test_random_hands_leading(size):
    rng = np.random.default_rng(size)
    bad = []
    for _ in range(10_000):
        hand = random_hand(rng, STANDARD, size)
        a, b = douzero_leading(hand), ours(hand)
        if a != b:
            bad.append(diff_message(hand, a, b))
    assert not bad, f"{len(bad)} hands differ, e.g. {bad[:3]}"


def test_random_hands_following():
    """Replies equal DouZero's, except to three-trio planes: DouZero ranks a plane by its
    highest trio, so it lets 333444555+999 beat 444555666+7; ddzlab ranks the chain."""
    rng = np.random.default_rng(7)
    bad, compared, kinds = [], 0, set()
    while compared < 4_000:
        opener = random_hand(rng, STANDARD, 20)
        moves = legal_moves(opener, STANDARD)
        rival = moves[rng.integers(len(moves))]
        if rival.kind == Kind.PLANE_SOLO and rival.length == 3:
            continue
        rest = Hand.from_bits(STANDARD.deck) - opener
        hand = Hand.from_ranks(rng.permutation(rest.ranks())[:17].tolist())
        a = douzero_following(hand, to_douzero(rival.cards))
        b = {tuple(to_douzero(m.cards)) for m in legal_moves(hand, STANDARD, rival)}
        compared += 1
        kinds.add(rival.kind)
        if a != b:
            bad.append(f"{hand} vs {rival}: " + diff_message(hand, a, b))
    assert not bad, f"{len(bad)} differ, e.g. {bad[:3]}"
    assert len(kinds) >= 12, f"too few kinds of move to beat were drawn: {sorted(kinds)}"
