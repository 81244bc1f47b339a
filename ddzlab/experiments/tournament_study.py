"""Notebook 06's tables of the tournament (``06_tournament``) and the rule ablation (``06_ablation``).

The notebook ranks the cheap agents in a round robin on the held-out deals (Bradley–Terry,
`ddzlab.stats.bradley_terry`), tests every pair head to head, compares three pairs of agents
paired by deal against the opponents both met (the primary family), and switches each of the
``weights`` agent's role-aware rules off alone. This module computes those tables; the
notebook holds the calls, the figures and the prose. Each test table carries ``p (Holm)``
over its family and ``significant`` (or ``decided``), read by `ddzlab.stats.row_verdict`.
"""
from __future__ import annotations

from typing import Optional, Sequence

import pandas as pd

from .. import stats as S
from .tables import holm_flags

#: a place of the ranking is settled when one agent holds it in at least this share of the resamples
SETTLED = 0.95


def head_to_head_table(games: pd.DataFrame, names: Sequence[str], alpha: float = 0.05) -> pd.DataFrame:
    """Every pair of ``names`` (in their order) directly: A's per-deal WP against B tested
    against 0.5 (`ddzlab.stats.head_to_head`), Holm over the pairs; ``decided``: adjusted p
    below ``alpha``."""
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            r = S.head_to_head(games, a, b).loc["WP"]
            rows.append({"A": a, "B": b, "WP of A": r.estimate, "lo": r.lo, "hi": r.hi, "SD": r.sd,
                         "p": r.p, "MDE": r.mde})
    out = holm_flags(pd.DataFrame(rows), alpha)
    return out.rename(columns={"significant": "decided"})


def places_table(bt: pd.DataFrame, games: pd.DataFrame, names: Sequence[str], settled: float = SETTLED,
                 alpha: float = 0.05) -> pd.DataFrame:
    """Each place of a Bradley–Terry fit ``bt``: its most likely holder, that probability
    ``P`` and whether the place is ``settled`` (P ≥ ``settled``). An unsettled place also
    gets ``direct``: its two likeliest holders (in the fit's order) compared paired by deal
    against the entrants of ``names`` both met, one test on its own (p uncorrected)."""
    rows = []
    for place in range(1, len(bt) + 1):
        col = bt[f"P(rank={place})"]
        rows.append({"place": place, "most likely": col.idxmax(), "P": col.max(), "settled": col.max() >= settled})
    places = pd.DataFrame(rows)
    direct: dict = {}
    for place in places[~places.settled].place:
        a, b = sorted(bt[f"P(rank={place})"].sort_values(ascending=False).index[:2], key=list(bt.index).index)
        if (a, b) not in direct:
            d = S.paired_diff(games, a, b, opponent=[o for o in names if o not in (a, b)]).loc["WP"]
            direct[(a, b)] = (f"{a} − {b}: {S.interval_text(d.estimate, d.lo, d.hi)}, p = {d.p:.2g}, "
                              + ("not significant" if d.p >= alpha else "significant at 5%"))
        places.loc[places.place == place, "direct"] = direct[(a, b)]
    return places


def place_text(r: pd.Series) -> str:
    """One place of `places_table` in words: ``1: `weights` (settled, P = 1.00)``."""
    state = "settled" if r.settled else "not settled"
    return (f"{r.place}: `{r['most likely']}` ({state}, P = {r.P:.2f}"
            + (f"; directly, {r.direct}" if isinstance(r.get("direct"), str) else "") + ")")


def matchup(table: pd.DataFrame, a: str, b: str) -> Optional[pd.Series]:
    """The row of a tournament table (`ddzlab.arena.tournament_table`) of ``a`` against ``b``,
    both roles together; None when they did not meet."""
    r = table[(table.a == a) & (table.b == b) & (table.role == "combined")]
    return None if r.empty else r.iloc[0]


def primary_table(games: pd.DataFrame, names: Sequence[str], pairs: Sequence[tuple[str, str]],
                  alpha: float = 0.05, effect: float = S.EFFECT_WP) -> pd.DataFrame:
    """The primary family: for each pair (a, b) of ``pairs`` whose agents are both entrants,
    a minus b in WP and ADP, paired by deal against every other entrant of ``names`` (each
    deal's difference averaged over them first), the deals ``effect`` needs; Holm over the
    family."""
    rows = []
    for a, b in pairs:
        if a not in names or b not in names:
            continue
        res = S.paired_diff(games, a, b, opponent=[o for o in names if o not in (a, b)])
        wp, adp = res.loc["WP"], res.loc["ADP"]
        rows.append({"comparison": f"{a} − {b}", "a": a, "b": b, "ΔWP": wp.estimate, "lo": wp.lo, "hi": wp.hi,
                     "SD": wp.sd, "deals": int(wp.n), "p": wp.p, "MDE": wp.mde,
                     "deals for 0.03": S.n_needed(wp.sd, effect) if wp.sd > 0 else 0,
                     "ΔADP": adp.estimate, "ΔADP lo": adp.lo, "ΔADP hi": adp.hi})
    return holm_flags(pd.DataFrame(rows), alpha)


def ablation_table(games: pd.DataFrame, configs: Sequence[str], opponents: Sequence[str], full: str = "weights",
                   alpha: float = 0.05) -> pd.DataFrame:
    """Each config ``full:off=RULE`` minus ``full``, paired by deal against each opponent,
    with the full agent's WP there; Holm over every (opponent, rule) test."""
    rows = []
    for opp in opponents:
        full_wp = S.per_deal(games, full, opp).mean()
        for cfg in configs:
            r = S.paired_diff(games, cfg, full, opponent=opp).loc["WP"]
            rows.append({"opponent": opp, "rule off": cfg.split("=", 1)[1], "full WP": full_wp, "ΔWP": r.estimate,
                         "lo": r.lo, "hi": r.hi, "SD": r.sd, "p": r.p, "MDE": r.mde, "deals": int(r.n)})
    return holm_flags(pd.DataFrame(rows), alpha)


__all__ = ["SETTLED", "head_to_head_table", "places_table", "place_text", "matchup", "primary_table",
           "ablation_table"]
