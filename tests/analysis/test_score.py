"""Homework score function and best_score (DFS) against the brute-force oracle."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ddzlab.cards import Hand
from ddzlab.errors import RulesError
from ddzlab.moves import detect, parse_move
from ddzlab.rules import HOMEWORK, MINI, STANDARD, Kind, Rules
from ddzlab.analysis import best_score, homework_score, min_plays, reward, split_score
from ddzlab.analysis.bruteforce import brute_best_score, brute_min_plays

from conftest import random_hand


def test_reward_table() -> None:
    assert [reward(k) for k in (Kind.ROCKET, Kind.SOLO, Kind.PAIR)] == [0, 0, 0]
    assert [reward(k) for k in (Kind.TRIO, Kind.TRIO_SOLO, Kind.TRIO_PAIR, Kind.BOMB)] == [3] * 4
    assert reward(Kind.FOUR_TWO_SOLO) == reward(Kind.FOUR_TWO_PAIR) == 4
    assert reward(Kind.SOLO_CHAIN) == reward(Kind.GAP_SOLO_CHAIN) == 5
    assert reward(Kind.PAIR_CHAIN) == reward(Kind.GAP_PAIR_CHAIN) == 6
    assert reward(Kind.TRIO_CHAIN) == reward(Kind.GAP_TRIO_CHAIN) == 7


def test_score_edge_cases() -> None:
    assert homework_score(0, 1) == -math.inf          # a lone solo / pair / rocket
    assert homework_score(0, 7) == -math.inf
    assert homework_score(3, 1) == math.inf           # the whole hand in one rewarding play
    assert homework_score(16, 3) == pytest.approx(math.log(16) / math.log(3))
    assert homework_score(3, 2) == pytest.approx(math.log2(3))
    with pytest.raises(ValueError):
        homework_score(5, 0)
    with pytest.raises(ValueError):
        homework_score(-1, 3)
    moves = [parse_move(t, HOMEWORK) for t in ("3579J", "444", "BR")]
    assert split_score(moves) == pytest.approx(math.log(8) / math.log(3))


@pytest.mark.parametrize("rules", [HOMEWORK, STANDARD, MINI], ids=lambda r: r.name)
def test_best_score_matches_oracle(rules: Rules) -> None:
    rng = np.random.default_rng(99)
    for i in range(500):
        hand = random_hand(rng, rules, int(rng.integers(1, 12)))
        got = best_score(hand, rules)
        want = brute_best_score(hand, rules)
        assert got.score == pytest.approx(want), hand     # approx also equates +-inf
        assert sum(m.cards for m in got.moves) == hand.bits
        assert all(detect(m.cards, rules) is not None for m in got.moves)
        assert len(got.moves) == got.steps
        assert split_score(got.moves) == pytest.approx(got.score)


def test_ablations_agree() -> None:
    rng = np.random.default_rng(3)
    for _ in range(25):
        hand = random_hand(rng, HOMEWORK, int(rng.integers(6, 11)))
        full = best_score(hand).score
        assert best_score(hand, prune=False).score == pytest.approx(full)
        assert best_score(hand, memo=False).score == pytest.approx(full)


def test_examples() -> None:
    assert best_score("3579J").score == math.inf       # one gapped chain: +inf
    r = best_score("34")                                # two solos: value 0
    assert r.score == -math.inf and r.steps >= 1
    deck = Hand.from_bits(HOMEWORK.deck)
    r = best_score(deck)
    assert r.steps == 3 and r.value == 16               # trio chain 3..A, chain 3..A, 2222BR
    assert r.score == pytest.approx(math.log(16) / math.log(3))
    # the best-score split may use more plays than the fewest: 3579JK 6 8 TTTQ scores
    # ln 8 / ln 4 = 1.5, more than any 3-play split (at best ln 5 / ln 3)
    hand = Hand("356789TTTJQK")
    r = best_score(hand)
    assert brute_min_plays(hand, HOMEWORK) == min_plays(hand, HOMEWORK).plays == 3
    assert r.steps == 4 and r.score == pytest.approx(1.5)
    assert brute_best_score(hand, HOMEWORK) == pytest.approx(1.5)


def test_bad_input() -> None:
    with pytest.raises(RulesError):
        best_score("3334", MINI)
    assert best_score("").steps == 0
