"""The homework's own A* and DFS (ddzlab.analysis.homework) against brute force on small hands."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ddzlab.analysis import min_plays
from ddzlab.analysis.bruteforce import brute_best_score, brute_min_plays
from ddzlab.analysis.homework import ceil_heuristic, homework_astar, homework_dfs
from ddzlab.analysis.score import split_score
from ddzlab.cards import Hand
from ddzlab.rules import HOMEWORK, STANDARD
from conftest import random_hand


@pytest.mark.parametrize("rules", [HOMEWORK, STANDARD], ids=lambda r: r.name)
def test_astar_is_exact_and_its_heuristic_admissible(rules):
    rng = np.random.default_rng(13)
    for _ in range(40):
        hand = random_hand(rng, rules, int(rng.integers(1, 12)))
        truth = brute_min_plays(hand, rules)
        for heuristic in ("zero", "ceil"):
            r = homework_astar(hand, rules, heuristic)
            assert r.plays == truth == len(r.moves)
            assert sum(m.size for m in r.moves) == len(hand)
            assert Hand.from_bits(sum(m.cards for m in r.moves)) == hand
        assert ceil_heuristic(hand.bits, rules) <= truth
        assert homework_astar(hand, rules, "ceil").expanded <= homework_astar(hand, rules, "zero").expanded


def test_astar_every_order_agrees():
    rng = np.random.default_rng(5)
    for _ in range(10):
        hand = random_hand(rng, HOMEWORK, 8)
        assert homework_astar(hand, HOMEWORK, every_order=True).plays == min_plays(hand, HOMEWORK).plays


def test_dfs_is_exact_without_the_partial_bound_and_never_better_with_it():
    rng = np.random.default_rng(4)
    for _ in range(60):
        hand = random_hand(rng, HOMEWORK, int(rng.integers(1, 11)))
        exact = homework_dfs(hand)
        assert exact.score == brute_best_score(hand, HOMEWORK)
        if exact.moves:
            assert split_score(exact.moves) == exact.score or math.isinf(exact.score)
        cut = homework_dfs(hand, partial_bound=True)
        assert cut.score <= exact.score and cut.nodes <= exact.nodes


def test_the_partial_bound_can_lose_the_optimum():
    """The homework author's unproven cut is invalid: some hand's best split is lost."""
    rng = np.random.default_rng(0)
    lost = [h for h in (random_hand(rng, HOMEWORK, 10) for _ in range(150))
            if homework_dfs(h, partial_bound=True).score < homework_dfs(h).score]
    assert lost


def test_bad_heuristic():
    with pytest.raises(ValueError, match="heuristic"):
        homework_astar("345", HOMEWORK, "strong")
