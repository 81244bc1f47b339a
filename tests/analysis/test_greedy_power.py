"""du-guai greedy Q(S,a), seed-003 hand power and hints, solve_report, bad input."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from ddzlab.cards import Hand
from ddzlab.errors import RulesError
from ddzlab.moves import legal_moves, parse_move
from ddzlab.rules import HOMEWORK, MINI, STANDARD
from ddzlab.analysis import (MAX_Q, greedy_q, greedy_split, hand_power, hints, move_power,
                             next_play_size, solve_report)

from conftest import random_hand


def test_next_play_size() -> None:
    assert next_play_size(Hand("3457").bits) == 1
    assert next_play_size(Hand("34567").bits) == 5
    assert next_play_size(Hand("334455").bits) == 6          # 2 x three pairs
    assert next_play_size(Hand("3344").bits) == 2            # two pairs are no chain
    assert next_play_size(Hand("2222BR").bits) == 0          # only cards below the 2 count
    assert next_play_size(Hand("QQQQKA2").bits) == 4


def test_greedy_hand_checked() -> None:
    res = greedy_q("345667")
    assert res.q_of("66") == 2 + 1                           # d(3457) = 1
    assert res.q_of("34567") == 5 + 1
    assert res.q_of("6") == 1 + 5                            # leaves 34567
    assert res.max_q == 6 and str(res.best) == "6"           # ties: first in move order
    res = greedy_q("44445")
    assert res.q_of("4") == 1 + 3 - 1                        # breaks the bomb
    assert res.q_of("44") == 2 + 2 - 1
    assert res.q_of("4444") == 4 + 1                         # four cards: no penalty
    assert res.q_of("5") == 1 + 4
    res = greedy_q("66677")
    assert res.q_of("66677") == MAX_Q + 5 and str(res.best) == "66677"
    assert res.delta_q(parse_move("66")) == MAX_Q + 5 - (2 + 2)     # d(677) = 2
    # following: only plays that beat, pass excluded
    res = greedy_q("3456789", to_beat=parse_move("5"))
    assert {str(m) for m, _ in res.q} == {"6", "7", "8", "9"}
    assert greedy_q("345", to_beat=parse_move("BR")).best is None


def test_greedy_split_empties_hand() -> None:
    rng = np.random.default_rng(0)
    for _ in range(20):
        hand = random_hand(rng, STANDARD, 17)
        moves = greedy_split(hand)
        assert sum(m.cards for m in moves) == hand.bits


def test_move_power_orders_as_seed() -> None:
    p = {t: move_power(parse_move(t)) for t in ("3", "2", "33", "AA", "BR", "3333", "2222",
                                                 "34567")}
    assert p["3"] < p["2"] and p["33"] < p["AA"]
    assert p["BR"] > p["2222"] > 0 and p["3333"] > 0          # bombs have positive power
    assert p["34567"] > 5 * p["3"]                          # one play instead of five


def test_hand_power_matches_exhaustive() -> None:
    """The lowest-rank recursion equals the max over every split in any order."""
    rng = np.random.default_rng(1)
    for _ in range(60):
        hand = random_hand(rng, STANDARD, int(rng.integers(1, 10)))

        @lru_cache(maxsize=None)
        def full(b: int) -> float:
            if not b:
                return 0.0
            return max(move_power(m) + full(b - m.cards)
                       for m in legal_moves(Hand.from_bits(b), STANDARD))

        res = hand_power(hand)
        assert res.power == pytest.approx(full(hand.bits))
        assert sum(m.cards for m in res.moves) == hand.bits
        assert sum(move_power(m) for m in res.moves) == pytest.approx(res.power)


def test_hints_order() -> None:
    order = [str(m) for m, _ in hints("433335")]
    assert order[:3] == ["4", "5", "333345"]                 # the seed's example
    assert order.index("3") > order.index("3333")
    hs = hints("433335")
    rest = [p for _, p in hs]
    assert rest == sorted(rest, reverse=True)
    assert all(p == pytest.approx(hand_power(Hand("433335") - m).power) for m, p in hs)
    follow = [str(m) for m, _ in hints("3456TT", parse_move("9"))]
    assert follow == ["T"]


def test_bad_input() -> None:
    with pytest.raises(RulesError):
        hints("345", parse_move("3579J", HOMEWORK), STANDARD)    # a homework-only kind
    with pytest.raises(RulesError):
        greedy_q("99TT", MINI, to_beat=parse_move("34567"))      # cards outside the mini deck
    with pytest.raises(RulesError):
        hand_power("3", MINI)
    with pytest.raises(RulesError):
        solve_report("33", MINI)


def test_solve_report() -> None:
    text = solve_report("33445566789TJQKA2BR")
    assert "fewest plays (A*): 4" in text and "best score" in text and "hints:" in text
    assert "homework rules" in solve_report("3579JK", "homework")


def test_move_power_counts_kicker_groups_not_cards() -> None:
    """The seed's subNum counts kicker *groups*: a pair kicker is one group, like a solo
    (seed 003: bad -= 0.01 per group of a trio, 0.002 per group of a quad). Hand-computed:
    a trio of 3s: top = 3.5, bad = 0.433 + 0.02 (15 - 3.5) - 0.01 = 0.653, power -215.3."""
    assert move_power(parse_move("3334")) == pytest.approx(-150 - 100 * 0.653)
    assert move_power(parse_move("33344")) == pytest.approx(-150 - 100 * 0.653)
    # a plane of two trios (top 4): 0.433 + 0.02 * 11 + 2 * 0.02 - 2 * 0.01 = 0.673
    assert move_power(parse_move("33344456")) == pytest.approx(-150 - 100 * 0.673)
    assert move_power(parse_move("3334445566")) == pytest.approx(-150 - 100 * 0.673)
    # four + two (top 3.5): -4.5 + 0.003 * 11.5 - 2 * 0.002 = -4.4695
    assert move_power(parse_move("333345")) == pytest.approx(-150 + 100 * 4.4695)
    assert move_power(parse_move("33334455")) == pytest.approx(-150 + 100 * 4.4695)


def _q_by_definition(bits: int, move) -> int:
    """Q(S, a) read straight from docs/definitions.md#greedy-split on rank counts (the oracle of the
    bit-parallel `q_value`)."""
    from ddzlab.cards import R2, unpack
    c, mc = unpack(bits), unpack(move.cards)
    r = -1 if move.size < 4 and any(mc[x] and c[x] == 4 for x in range(15)) else 0
    rest = unpack(bits - move.cards)
    if not any(rest):
        return MAX_Q + move.size + r
    below = rest[:R2]
    d = max(below)
    for width, least in ((1, 5), (2, 3)):
        run = longest = 0
        for x in below:
            run = run + 1 if x >= width else 0
            longest = max(longest, run)
        if longest >= least:
            d = max(d, width * longest)
    return move.size + d + r


def test_q_value_matches_its_definition_on_random_hands() -> None:
    from ddzlab.analysis.greedy import q_value
    rng = np.random.default_rng(8)
    for rules in (STANDARD, MINI):
        for size in (1, 5, 12, 20, 33):
            for _ in range(30):
                hand = random_hand(rng, rules, min(size, rules.deck_size))
                for m in legal_moves(hand, rules):
                    assert q_value(hand.bits, m) == _q_by_definition(hand.bits, m), (str(hand), str(m))
