"""min_plays (A*) against the brute-force oracle, heuristic admissibility, bad input."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from ddzlab.cards import Hand
from ddzlab.errors import CardError, RulesError
from ddzlab.moves import detect, legal_moves
from ddzlab.rules import HOMEWORK, MINI, STANDARD, Rules
from ddzlab.analysis import min_plays
from ddzlab.analysis._core import tables
from ddzlab.analysis.astar import heuristic_value
from ddzlab.analysis.bruteforce import brute_min_plays

from conftest import random_hand

RULESETS = [STANDARD, MINI, HOMEWORK]


def clumpy_hand(rng: np.random.Generator, rules: Rules, size: int) -> Hand:
    """A hand drawn in clumps of 1-4 copies: many trios and chains (planes, quads)."""
    deck = Hand.from_bits(rules.deck).counts
    ranks = [r for r in range(15) if deck[r]]
    c = [0] * 15
    while sum(c) < size:
        r = int(rng.choice(ranks))
        c[r] = min(deck[r], c[r] + int(rng.integers(1, 5)), c[r] + size - sum(c))
    return Hand(c)


def check_sequence(hand: Hand, rules: Rules, moves) -> None:
    """The returned plays are legal combinations that use exactly the hand's cards."""
    assert sum(m.cards for m in moves) == hand.bits
    for m in moves:
        found = detect(m.cards, rules)
        assert found is not None, m


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_min_plays_matches_oracle_random(rules: Rules) -> None:
    rng = np.random.default_rng(20240 + len(rules.name))
    for i in range(2000):
        size = int(rng.integers(1, 13))
        hand = random_hand(rng, rules, size) if i % 2 else clumpy_hand(rng, rules, size)
        got = min_plays(hand, rules)
        assert got.plays == brute_min_plays(hand, rules), hand
        assert len(got.moves) == got.plays
        check_sequence(hand, rules, got.moves)


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_every_heuristic_is_exact(rules: Rules) -> None:
    rng = np.random.default_rng(7)
    for i in range(200):
        hand = clumpy_hand(rng, rules, int(rng.integers(6, 13)))
        want = brute_min_plays(hand, rules)
        for h in ("zero", "ceil", "strong"):
            got = min_plays(hand, rules, heuristic=h)
            assert got.plays == want, (hand, h)
            check_sequence(hand, rules, got.moves)


CRAFTED = [
    # (hand, rules, fewest plays)
    ("33334444", STANDARD, 2),            # four+two pairs may not take both pairs of a bomb
    ("333344", STANDARD, 1),              # a pair as the two solos of four+two
    ("3333BR", STANDARD, 1),              # B+R as two kickers
    ("33BR", STANDARD, 2),                # B+R is never a pair kicker... nor a pair
    ("3334445556669999", STANDARD, 2),    # DouZero's detector rejects the 16-card plane
    ("3334445556667779", STANDARD, 2),
    ("333444555666777888", STANDARD, 1),  # a trio chain of six
    ("33344455667788", STANDARD, 2),
    ("3456789TJQKA2BR", STANDARD, 3),
    ("3579JK", HOMEWORK, 1),              # gapped solo chain
    ("335577", HOMEWORK, 1),              # gapped pair chain
    ("333555", HOMEWORK, 1),              # gapped trio chain
    ("33344458", HOMEWORK, 2),            # no planes with wings: 3335 + 4448
    ("33344458", STANDARD, 1),
    ("99TTJJQQKKAA", MINI, 1),            # pair chain of six
    ("9999TTTT", MINI, 1),                # two consecutive quads (航天飞机)
    ("9999TTTTJQ", MINI, 1),              # ... with two solos
    ("345678910JQKAA", STANDARD, 2),      # a chain of 12 (10 = T) and one more A
    ("33445566778899TTJJQQKKAA", STANDARD, 1),
]


@pytest.mark.parametrize("text,rules,want", CRAFTED, ids=[c[0] + "-" + c[1].name for c in CRAFTED])
def test_crafted_hands(text: str, rules: Rules, want: int) -> None:
    hand = Hand(text)
    assert brute_min_plays(hand, rules) == want
    for h in ("zero", "ceil", "strong"):
        got = min_plays(hand, rules, heuristic=h)
        assert got.plays == want
        check_sequence(hand, rules, got.moves)


def test_whole_deck() -> None:
    deck = Hand.from_bits(STANDARD.deck)
    got = min_plays(deck, STANDARD)
    assert got.plays == 3
    check_sequence(deck, STANDARD, got.moves)
    assert min_plays(deck, HOMEWORK).plays == 3


def restricted_oracle(bits: int, r: int, rules: Rules) -> int:
    """Fewest plays when chains (and planes) may only start at rank ``r`` or above."""
    tab = tables(rules)
    chainy = tab.chain_kinds | {p.spec.kind for p in tab.pending_specs}

    @lru_cache(maxsize=None)
    def solve(b: int) -> int:
        if not b:
            return 0
        low = next(x for x in range(15) if (b >> (4 * x)) & 15)
        best = 99
        for m in legal_moves(Hand.from_bits(b), rules):
            if (m.cards >> (4 * low)) & 15 and (m.kind not in chainy or m.rank >= r):
                best = min(best, 1 + solve(b - m.cards))
        return best

    return solve(bits)


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_heuristics_admissible(rules: Rules) -> None:
    """h <= true remaining plays, at the root and at sweep states past some ranks."""
    rng = np.random.default_rng(11)
    tab = tables(rules)
    for i in range(300):
        hand = clumpy_hand(rng, rules, int(rng.integers(4, 12)))
        r = int(rng.choice(tab.chain_ranks)) if i % 3 else tab.chain_ranks[0]
        true = restricted_oracle(hand.bits, r, rules)
        for h in ("zero", "ceil", "strong"):
            assert heuristic_value(tab, hand.bits, r, (), h) <= true, (hand, r, h)
        if r == tab.chain_ranks[0]:
            assert heuristic_value(tab, hand.bits, r, (), "strong") <= brute_min_plays(hand, rules)


def test_strong_heuristic_expands_fewer_states_than_zero() -> None:
    rng = np.random.default_rng(5)
    zero = strong = 0
    for _ in range(40):
        hand = random_hand(rng, STANDARD, 17)
        zero += min_plays(hand, STANDARD, "zero").expanded
        strong += min_plays(hand, STANDARD, "strong").expanded
    assert strong < zero


def test_bad_input() -> None:
    with pytest.raises(RulesError):
        min_plays("3334", MINI)                 # no 3s in the mini deck
    with pytest.raises(CardError):
        min_plays("33333", STANDARD)            # five 3s
    with pytest.raises(ValueError):
        min_plays("345", STANDARD, heuristic="best-first")
    with pytest.raises(RulesError):
        min_plays("345", "no-such-rules")
    assert min_plays("", STANDARD).plays == 0


@pytest.mark.parametrize("rules", [STANDARD, MINI], ids=lambda r: r.name)
def test_flat_table_capped_shapes_match_direct_generation(rules: Rules) -> None:
    """The flat table reads play shapes off capped histograms; check it against move
    generation on the full representative for large histograms (beyond 12 cards)."""
    from ddzlab.analysis._core import NIB, Tables
    tab = Tables(rules)

    @lru_cache(maxsize=None)
    def direct(key: int) -> int:
        if key == 0:
            return 0
        rep = tab.representative(key)
        first = next(r for r in range(15) if (rep >> (4 * r)) & NIB)
        return 1 + min(direct(tab.hist_key(rep - m.cards)) for m in tab.flat_moves(rep, first))

    rng = np.random.default_rng(0)
    for _ in range(60):
        left, key = len(tab.plain_ranks), 0
        for c in range(4):
            k = int(rng.integers(0, left + 1))
            key += k << (5 * c)
            left -= k
        key += int(rng.integers(0, 3)) << 20
        assert tab.flat_plays(key) == direct(key)


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_bounded_and_multi_root_search(rules: Rules) -> None:
    """`_astar`'s contract (what the wildcard searches rely on): with a bound it finds the
    fewest plays when they are below it and nothing otherwise; from several roots, the
    fewest over them (plays already made included), from the root it names."""
    from ddzlab.analysis.astar import _astar, _rebuild
    tab = tables(rules)
    rng = np.random.default_rng(44)
    hands = [(clumpy_hand if i % 2 else random_hand)(rng, rules, int(rng.integers(3, 15))) for i in range(30)]
    want = [min_plays(h, rules).plays for h in hands]
    for h, w in zip(hands, want):
        for heuristic in ("zero", "strong"):
            assert _astar(tab, [(0, h.bits)], heuristic, w + 1).plays == w
            assert _astar(tab, [(0, h.bits)], heuristic, w).plays is None
    for i in range(0, 30, 3):
        roots = [(g0, h.bits) for g0, h in zip((2, 0, 1), hands[i:i + 3])]
        res = _astar(tab, roots, "strong")
        costs = [g0 + w for (g0, _), w in zip(roots, want[i:i + 3])]
        k = res.root
        assert res.plays == min(costs) and costs[k] == res.plays
        moves = _rebuild(tab, res)
        assert sum(m.cards for m in moves) == roots[k][1] and len(moves) + roots[k][0] == res.plays
