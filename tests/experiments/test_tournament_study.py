"""Notebook 06's tables (`ddzlab.experiments.tournament_study`) on tiny game tables made by hand:
each expected number is worked out from the definitions (a deal's WP is the share of its two
games won, ADP the mean of their points; a paired difference is the mean of the per-deal
differences; a head-to-head WP is tested against 0.5; Holm multiplies the i-th smallest of m
p-values by m - i + 1 and makes them monotone)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from ddzlab import stats as S
from ddzlab.experiments import tournament_study as TS

T2 = 4.302652729911275                       # t(0.975) with 2 degrees of freedom
P_T2 = 2 * (0.5 - 2 / (2 * math.sqrt(6)))    # two-sided p of t = 2 with 2 df: F(t) = 1/2 + t / (2 sqrt(2 + t²))


def games(results: dict) -> pd.DataFrame:
    """Game rows from {(config, opponent): [(won as landlord, won as farmers) per deal]}."""
    return pd.DataFrame([{"config": c, "opponent": o, "deal": deal, "role": role, "won": won, "points": 2 * won - 1}
                         for (c, o), deals in results.items() for deal, pair in enumerate(deals)
                         for role, won in zip(("landlord", "farmers"), pair)])


def test_head_to_head_table_tests_each_pair_against_a_half_with_holm() -> None:
    g = games({("a", "b"): [(1, 1), (1, 0), (1, 1)],     # a's WP per deal 1, .5, 1: minus .5 = .5, 0, .5 (t = 2)
               ("a", "c"): [(1, 1), (1, 1), (1, 1)],     # always 1: no spread, p = 0
               ("b", "c"): [(1, 0), (1, 0), (0, 1)]})    # always .5: p = 1
    h2h = TS.head_to_head_table(g, ["a", "b", "c"])
    assert list(zip(h2h.A, h2h.B)) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert h2h["WP of A"].tolist() == pytest.approx([5 / 6, 1.0, 0.5])
    assert h2h.p.tolist() == pytest.approx([P_T2, 0.0, 1.0])
    # Holm: sorted 0, P_T2, 1 -> x3, x2, x1 = 0, 2 P_T2, 1
    assert h2h["p (Holm)"].tolist() == pytest.approx([2 * P_T2, 0.0, 1.0])
    assert h2h.decided.tolist() == [False, True, False]


def test_places_settle_at_95_percent_and_an_open_place_is_compared_directly() -> None:
    bt = pd.DataFrame({"P(rank=1)": [0.97, 0.03, 0.0], "P(rank=2)": [0.03, 0.60, 0.37],
                       "P(rank=3)": [0.0, 0.37, 0.63]}, index=["a", "b", "c"])
    g = games({("b", "a"): [(1, 0), (0, 0), (1, 1)],     # .5, 0, 1
               ("c", "a"): [(0, 0), (0, 0), (1, 0)]})    # 0, 0, .5: b - c = .5, 0, .5 (t = 2)
    places = TS.places_table(bt, g, ["a", "b", "c"])
    assert places["most likely"].tolist() == ["a", "b", "c"]
    assert places.settled.tolist() == [True, False, False]
    assert isinstance(places.direct.iloc[0], float) and math.isnan(places.direct.iloc[0])
    text = f"b − c: +0.333 [{1 / 3 - T2 / 6:+.3f}, {1 / 3 + T2 / 6:+.3f}], p = {P_T2:.2g}, not significant"
    assert places.direct.iloc[1] == places.direct.iloc[2] == text
    assert TS.place_text(places.iloc[0]) == "1: `a` (settled, P = 0.97)"
    assert TS.place_text(places.iloc[1]) == f"2: `b` (not settled, P = 0.60; directly, {text})"


def test_primary_table_pairs_against_the_other_entrants_and_skips_absent_agents() -> None:
    g = games({("a", "o"): [(1, 1), (1, 0), (0, 0)],     # WP 1, .5, 0; ADP 1, 0, -1
               ("b", "o"): [(1, 0), (0, 1), (0, 0)]})    # WP .5, .5, 0; ADP 0, 0, -1
    prim = TS.primary_table(g, ["a", "b", "o"], [("a", "b"), ("a", "zzz")])
    assert prim.comparison.tolist() == ["a − b"]
    r = prim.iloc[0]
    assert r["ΔWP"] == pytest.approx(1 / 6) and r["ΔADP"] == pytest.approx(1 / 3)
    assert r.SD == pytest.approx(math.sqrt(1 / 12)) and r.deals == 3
    assert r["p (Holm)"] == pytest.approx(r.p)                   # a family of one
    assert r["deals for 0.03"] == S.n_needed(math.sqrt(1 / 12), 0.03)
    assert not r.significant


def test_ablation_table_is_rule_off_minus_the_full_agent() -> None:
    g = games({("weights", "greedy"): [(1, 1), (1, 0), (0, 0)],            # 1, .5, 0: full WP .5
               ("weights:off=keep_lead", "greedy"): [(1, 0), (0, 1), (0, 0)],  # .5, .5, 0
               ("weights:off=bomb", "greedy"): [(1, 1), (1, 1), (1, 0)]})      # 1, 1, .5
    abl = TS.ablation_table(g, ["weights:off=keep_lead", "weights:off=bomb"], ["greedy"])
    assert abl["rule off"].tolist() == ["keep_lead", "bomb"]
    assert abl["full WP"].tolist() == pytest.approx([0.5, 0.5])
    assert abl["ΔWP"].tolist() == pytest.approx([-1 / 6, 1 / 3])
    assert abl["p (Holm)"].to_numpy() == pytest.approx(S.holm(abl.p))


def test_matchup_reads_the_combined_row() -> None:
    table = pd.DataFrame({"a": ["w", "w", "w"], "b": ["r", "r", "g"], "role": ["landlord", "combined", "combined"],
                          "WP": [0.7, 0.65, 0.8]})
    assert TS.matchup(table, "w", "r").WP == 0.65
    assert TS.matchup(table, "r", "w") is None
