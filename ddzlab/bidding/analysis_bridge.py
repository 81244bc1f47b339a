"""Rows of search-based features, computed with `ddzlab.analysis` (one hand at a time).

Kept apart from `features` so the names of the analysis functions live in one place: if
`ddzlab.analysis` renames something, only this module changes. Functions are looked up on
the package first and then in its submodules (``power``, ``greedy``), so the features work
whether or not the package re-exports them.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

from ..cards import RA, Hand
from ..rules import STANDARD, Kind

#: du-guai's MAX_Q: Q of a play that empties the hand (REFERENCE §4)
MAX_Q = 10_000


def _find(analysis: Any, name: str, module: str, feature: str) -> Callable:
    fn = getattr(analysis, name, None)
    if fn is None:
        try:
            fn = getattr(importlib.import_module(f"{analysis.__name__}.{module}"), name)
        except (ImportError, AttributeError):
            raise ImportError(f"ddzlab.analysis has no {name} (needed by the {feature} "
                              "feature)") from None
    return fn


def fewest_plays_row(analysis: Any, hand: Hand) -> tuple[float, ...]:
    """(fewest plays, small solo plays, small pair plays) from one optimal A* sequence."""
    res = _find(analysis, "min_plays", "astar", "FewestPlays")(hand, STANDARD)
    solos = sum(1 for m in res.moves if m.kind == Kind.SOLO and m.rank < RA)
    pairs = sum(1 for m in res.moves if m.kind == Kind.PAIR and m.rank < RA)
    return float(res.plays), float(solos), float(pairs)


def hand_power_row(analysis: Any, hand: Hand) -> tuple[float, ...]:
    """(hand power, plays of the power split) from the weight-based evaluator (seed 003)."""
    res = _find(analysis, "hand_power", "power", "HandPower")(hand, STANDARD)
    return float(res.power), float(len(res.moves))


def greedy_split_row(analysis: Any, hand: Hand) -> tuple[float, ...]:
    """(plays of du-guai's greedy split, best first-lead Q(S,a); MAX_Q removed if it empties)."""
    moves = _find(analysis, "greedy_split", "greedy", "GreedySplitValue")(hand, STANDARD)
    q = _find(analysis, "greedy_q", "greedy", "GreedySplitValue")(hand, STANDARD).max_q
    return float(len(moves)), float(q - MAX_Q if q >= MAX_Q else q)
