"""Rows of search-based features, computed with `ddzlab.analysis` (one hand at a time).

Kept apart from `features` so the names of the analysis functions live in one place: if
`ddzlab.analysis` renames something, only this module changes.
"""
from __future__ import annotations

from typing import Any

from ..cards import RA, Hand
from ..rules import STANDARD, Kind


def fewest_plays_row(analysis: Any, hand: Hand) -> tuple[float, ...]:
    """(fewest plays, small solo plays, small pair plays) from one optimal A* sequence."""
    res = analysis.min_plays(hand, STANDARD)
    solos = sum(1 for m in res.moves if m.kind == Kind.SOLO and m.rank < RA)
    pairs = sum(1 for m in res.moves if m.kind == Kind.PAIR and m.rank < RA)
    return float(res.plays), float(solos), float(pairs)


def hand_power_row(analysis: Any, hand: Hand) -> tuple[float, ...]:
    """(hand power, plays of the power split) from the weight-based evaluator (seed 003)."""
    fn = getattr(analysis, "hand_power", None)
    if fn is None:
        raise ImportError("ddzlab.analysis has no hand_power yet (HandPower feature)")
    res = fn(hand, STANDARD)
    power = getattr(res, "power", res)
    plays = getattr(res, "plays", None)
    if plays is None:
        plays = len(getattr(res, "moves", ()) or ())
    return float(power), float(plays)


def greedy_split_row(analysis: Any, hand: Hand) -> tuple[float, ...]:
    """(plays of du-guai's greedy split, best first-move Q(S,a) of the hand)."""
    fn = getattr(analysis, "greedy_split", None)
    if fn is None:
        raise ImportError("ddzlab.analysis has no greedy_split yet (GreedySplitValue feature)")
    res = fn(hand, STANDARD)
    moves = getattr(res, "moves", res)
    q = getattr(res, "best_q", None)
    return float(len(moves)), float(q if q is not None else 0.0)
