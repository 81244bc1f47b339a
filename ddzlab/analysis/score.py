"""The homework's reward table and score (docs/rules.md#other-rule-sets), in one place.

Score = log_step(Value) = ln(Value) / ln(step), where step is the number of plays and
Value the sum of their rewards. The statement leaves two cases open; ddzlab decides:

* Value = 0 (only solos, pairs, rockets): score = -inf, the worst possible;
* step = 1 and Value > 0 (the whole hand in one rewarding play): score = +inf, the best.

>>> homework_score(16, 3) > homework_score(21, 4)
True
>>> homework_score(0, 5), homework_score(7, 1)
(-inf, inf)
"""
from __future__ import annotations

import math
from typing import Iterable

from ..moves import Move
from ..rules import Kind

#: reward per play, by kind (the homework's table; planes and quad chains, which the
#: homework rules do not have, are scored like trio chains and four + two, and the wildcard's
#: soft bomb like a bomb: ddzlab's choice)
REWARD: dict[Kind, int] = {
    Kind.ROCKET: 0, Kind.SOLO: 0, Kind.PAIR: 0,
    Kind.TRIO: 3, Kind.TRIO_SOLO: 3, Kind.TRIO_PAIR: 3, Kind.BOMB: 3, Kind.SOFT_BOMB: 3,
    Kind.FOUR_TWO_SOLO: 4, Kind.FOUR_TWO_PAIR: 4,
    Kind.SOLO_CHAIN: 5, Kind.GAP_SOLO_CHAIN: 5,
    Kind.PAIR_CHAIN: 6, Kind.GAP_PAIR_CHAIN: 6,
    Kind.TRIO_CHAIN: 7, Kind.GAP_TRIO_CHAIN: 7,
    Kind.PLANE_SOLO: 7, Kind.PLANE_PAIR: 7,
    Kind.QUAD_CHAIN: 4, Kind.QUAD_CHAIN_SOLO: 4, Kind.QUAD_CHAIN_PAIR: 4,
}
#: no play earns more than 7, nor more than 7/6 per card (a trio chain of two)
MAX_REWARD = 7


def reward(kind: Kind) -> int:
    """Reward of one play of this kind (pass: 0)."""
    return REWARD.get(kind, 0)


def homework_score(value: int, steps: int) -> float:
    """ln(value) / ln(steps), with the edge cases above. Raises ValueError on steps < 1
    or a negative value."""
    if steps < 1:
        raise ValueError(f"a split has at least one play, not {steps}")
    if value < 0:
        raise ValueError(f"rewards are never negative (value {value})")
    if value == 0:
        return -math.inf
    if steps == 1:
        return math.inf
    return math.log(value) / math.log(steps)


def split_value(moves: Iterable[Move]) -> int:
    """Sum of the rewards of a sequence of plays."""
    return sum(reward(m.kind) for m in moves)


def split_score(moves: Iterable[Move]) -> float:
    """The homework score of a whole split (a list of plays)."""
    moves = list(moves)
    return homework_score(split_value(moves), len(moves))


def score_bound(steps: int, cards: int) -> float:
    """An upper bound on the score of any split of ``cards`` cards into ``steps`` plays:
    the value is at most 7 per play and 7/6 per card. Decreasing in ``steps``."""
    value = min(MAX_REWARD * steps, MAX_REWARD * cards // 6)
    return homework_score(value, steps)


__all__ = ["REWARD", "reward", "homework_score", "split_value", "split_score", "score_bound"]
