"""The analyses on wildcard hands: best score, hand power and hints with the
flower card F, against brute force over every split of small hands into the moves
`legal_moves` lists (itself checked against the 12-reading oracle in tests/engine/test_wildcard.py)."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from conftest import clumpy_hand, random_hand
from ddzlab.analysis import best_score, hand_power, hints, min_plays, solve_report
from ddzlab.analysis.bruteforce import brute_min_plays
from ddzlab.analysis.astar import read_rules
from ddzlab.analysis.power import move_power
from ddzlab.analysis.score import homework_score, reward
from ddzlab.cards import F_BIT, Hand
from ddzlab.moves import legal_moves
from ddzlab.rules import STANDARD, WILDCARD

W = WILDCARD


@lru_cache(maxsize=None)
def plays_holding_lowest(bits: int) -> tuple:
    low = ((bits & -bits).bit_length() - 1) >> 2
    return tuple(m for m in legal_moves(Hand.from_bits(bits), W) if m.cards >> (4 * low) & 15)


@lru_cache(maxsize=None)
def splits(bits: int) -> frozenset:
    """{(plays, value)} of every split of ``bits`` into wildcard moves."""
    if not bits:
        return frozenset({(0, 0)})
    return frozenset((s + 1, v + reward(m.kind)) for m in plays_holding_lowest(bits)
                     for s, v in splits(bits - m.cards))


@lru_cache(maxsize=None)
def power(bits: int) -> float:
    if not bits:
        return 0.0
    return max(move_power(m) + power(bits - m.cards) for m in plays_holding_lowest(bits))


def small_hands(seed: int, n: int) -> list[Hand]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        size = int(rng.integers(2, 11))
        h = (clumpy_hand if i % 2 else random_hand)(rng, STANDARD, size - 1)
        out.append(h + Hand("F") if i % 4 else random_hand(rng, W, size))
    return out + [Hand("3333F"), Hand("33334444F"), Hand("345678F"), Hand("AAAAKF"), Hand("34567AAAAF"), Hand("TTTTJJJQQQF")]


def check_split(hand: Hand, moves) -> None:
    assert sum(m.cards for m in moves) == hand.bits, (hand, moves)
    for m in moves:
        assert m in legal_moves(Hand.from_bits(m.cards), W), (hand, m)


def test_best_score_with_the_flower_card_is_the_brute_force_best() -> None:
    for hand in small_hands(11, 150):
        got = best_score(hand, W)
        want = max(homework_score(v, s) for s, v in splits(hand.bits))
        assert got.score == want, (hand, got)
        check_split(hand, got.moves)
        assert got.steps == len(got.moves) and got.value == sum(reward(m.kind) for m in got.moves)
        assert homework_score(got.value, got.steps) == got.score
    assert best_score("333F", W).moves[0].kind.name in ("SOFT_BOMB", "TRIO_SOLO")  # one play: +inf
    assert best_score("333F", W).score == math.inf


def test_hand_power_and_hints_with_the_flower_card_are_the_brute_force_best() -> None:
    for hand in small_hands(12, 150):
        hp = hand_power(hand, W)
        assert math.isclose(hp.power, power(hand.bits)), hand
        check_split(hand, hp.moves)
        assert math.isclose(sum(move_power(m) for m in hp.moves), hp.power)
        hs = hints(hand, None, W)
        assert [m for m, _ in hs] and {m for m, _ in hs} == set(legal_moves(hand, W))
        for m, p in hs:
            assert math.isclose(p, power(hand.bits - m.cards))
        assert all(a[1] >= b[1] for a, b in zip(hs, hs[1:]))


def test_solve_report_on_a_wildcard_hand_says_what_applies() -> None:
    text = solve_report("3455667788F", W)
    mp = min_plays("3455667788F", W)
    assert f"fewest plays (A*): {mp.plays}" in text and "greedy Q" in text
    assert "best score (DFS)" in text and "power split" in text and "hints: " in text
    assert "F=" in text and (Hand("3455667788F").bits & F_BIT)


def flower_hands(seed: int, sizes: range, n: int) -> list[Hand]:
    """``n`` hands holding F, half of them clumpy (quads: F read as a rank held four times)."""
    rng = np.random.default_rng(seed)
    return [(clumpy_hand if i % 2 else random_hand)(rng, STANDARD, int(rng.integers(sizes.start, sizes.stop)) - 1)
            + Hand("F") for i in range(n)]


def test_min_plays_with_the_flower_card_is_one_plus_the_rest_after_the_best_play_of_f() -> None:
    """Every split has one play holding F, and the rest is natural cards: the fewest plays
    is 1 + the fewest of the rest (natural search) for the best play of F. Independent of
    how `min_plays` shares its bound and its states between the readings of F, on hands
    of up to 21 cards (the oracle test in tests/engine/test_wildcard.py stops at 10)."""
    read = read_rules(W)
    crafted = [Hand(t) for t in ("345555677AF", "33334444QQQQF", "333444499992F")]  # F as a fifth copy
    for hand in crafted + flower_hands(21, range(12, 22), 40):
        got = min_plays(hand, W)
        want = min(1 + min_plays(Hand.from_bits(hand.bits - m.cards), read).plays
                   for m in legal_moves(hand, W) if m.cards & F_BIT)
        assert got.plays == want, (hand, got)
        check_split(hand, got.moves)
        assert len(got.moves) == want


def test_best_score_with_the_flower_card_is_the_best_over_the_plays_of_f() -> None:
    """The same decomposition for the score: for each play of F, the rest's largest value
    for every number of plays (unpruned natural search), scored together with that play."""
    read = read_rules(W)
    crafted = [Hand(t) for t in ("QQQQKKKF", "3334444TTTF", "88889999TTF")]  # F as a fifth copy
    for hand in crafted + flower_hands(22, range(11, 18), 20):
        got = best_score(hand, W)
        want = -math.inf
        for m in legal_moves(hand, W):
            if not m.cards & F_BIT:
                continue
            w, rest = reward(m.kind), hand.bits - m.cards
            values = best_score(Hand.from_bits(rest), read, prune=False).values if rest else {0: 0}
            want = max([want] + [homework_score(v + w, s + 1) for s, v in values.items() if v >= 0])
        assert got.score == want, (hand, got, want)
        check_split(hand, got.moves)
        assert homework_score(sum(reward(m.kind) for m in got.moves), len(got.moves)) == got.score


def test_the_flower_card_is_a_natural_card_of_the_holders_choice() -> None:
    """min_plays(hand + F) is the best over ranks r in 3..A of min_plays(hand + r), both
    under the wildcard rules, on every hand without four of a rank of 3..A (with four, F may
    also be a fifth copy, which no natural card can be, and may do strictly better). The
    natural side is searched rank by rank, and against brute force on small hands, apart
    from the wildcard search's shared multi-reading A* (notebook 07 shows the same check)."""
    rng = np.random.default_rng(19)
    strictly_better = 0
    hands = [random_hand(rng, STANDARD, int(rng.integers(3, 21))) for _ in range(60)]
    hands += [clumpy_hand(rng, STANDARD, int(rng.integers(3, 21))) for _ in range(60)]
    hands += [Hand("44448888TTTT"), Hand("3456789TJQKA"), Hand("33344455")]
    for hand in hands:
        with_f = min_plays(hand + Hand("F"), W).plays
        natural = {r: min_plays(hand + Hand.from_ranks([r]), W).plays for r in range(12) if hand.count(r) < 4}
        if len(hand) <= 9:
            for r, plays in natural.items():
                assert plays == brute_min_plays(hand + Hand.from_ranks([r]), W), (hand, r)
        quad = any(hand.count(r) == 4 for r in range(12))
        if quad:
            assert with_f <= min(natural.values()), hand
            strictly_better += with_f < min(natural.values())
        else:
            assert with_f == min(natural.values()), (hand, with_f, natural)
    assert strictly_better >= 1          # 44448888TTTT + F: 2 plays, with any natural card 3
    assert min_plays("44448888TTTTF", W).plays == 2
