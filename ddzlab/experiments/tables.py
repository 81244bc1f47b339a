"""Rows of the tables the studies print, from stored game rows (`ddzlab.experiments.load_games`).

Every study reports the same three things: a configuration's WP against an opponent with its
95% t interval over deals (`wp_row`), a paired WP difference of two configurations against
the same opponent on the same deals (`paired_wp`), and Holm's correction over a family of
such differences with the verdict at α (`holm_flags`). Written once here, so that the
notebooks' tables name their columns alike and `ddzlab.stats.row_verdict` can read any of
them. The statistics themselves are `ddzlab.stats`.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from .. import stats as S


def wp_row(games: pd.DataFrame, config: str, opponent: str) -> dict:
    """``config``'s WP against ``opponent``, both roles, the deal the unit: ``WP``, its 95% t
    interval ``WP_lo`` .. ``WP_hi`` over deals, and ``deals``."""
    x = S.per_deal(games, config, opponent).to_numpy(float)
    m, lo, hi = S.t_interval(x)
    return {"WP": m, "WP_lo": lo, "WP_hi": hi, "deals": len(x)}


def paired_wp(games: pd.DataFrame, a: str, b: str, opponent: str, key: str = "ΔWP",
              deals: bool = True) -> dict:
    """``a`` minus ``b`` in WP, paired by deal against ``opponent`` (`ddzlab.stats.paired_diff`):
    the mean difference under ``key``, its 95% t interval ``lo`` .. ``hi``, the SD of the
    per-deal differences ``SD``, the two-sided ``p`` (uncorrected), the ``MDE`` (80% power)
    and, with ``deals``, the number of deals compared."""
    d = S.paired_diff(games, a, b, opponent=opponent).loc["WP"]
    row = {key: d.estimate, "lo": d.lo, "hi": d.hi, "SD": d.sd, "p": d.p, "MDE": d.mde}
    if deals:
        row["deals"] = int(d.n)
    return row


def holm_flags(table: pd.DataFrame, alpha: float = 0.05, tests: Optional[pd.Index] = None) -> pd.DataFrame:
    """``table`` (changed in place and returned) with Holm's adjusted p over its family in
    ``p (Holm)`` (only the rows ``tests`` when given; the others get NaN) and
    ``significant``: adjusted p below ``alpha`` (False where there is none)."""
    rows = table.index if tests is None else tests
    if tests is None:
        table["p (Holm)"] = S.holm(table["p"])
    else:
        table.loc[rows, "p (Holm)"] = S.holm(table.loc[rows, "p"])
    table["significant"] = table["p (Holm)"] < alpha
    return table


__all__ = ["wp_row", "paired_wp", "holm_flags"]
