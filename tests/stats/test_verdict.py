"""The one wording of a paired difference's result (`ddzlab.stats.verdict`, `row_verdict`) and
of a WP against its target (`target_verdict`): the strings are written here by hand from their
definitions (significant: Holm p below α; higher or lower by the estimate's sign; a null names
what it could have detected; a target is met when the interval's lower end clears it)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from ddzlab import stats as S


def test_a_significant_difference_names_its_direction() -> None:
    assert S.verdict(0.052, 0.020, 0.084, 0.0012) == "+0.052 [+0.020, +0.084], Holm p = 0.0012: significantly higher"
    assert S.verdict(-0.04, -0.07, -0.01, 0.03) == "-0.040 [-0.070, -0.010], Holm p = 0.03: significantly lower"


def test_a_null_says_no_significant_difference_and_what_it_could_detect() -> None:
    assert S.verdict(0.012, -0.010, 0.034, 0.31) == "+0.012 [-0.010, +0.034], Holm p = 0.31: no significant difference"
    assert (S.verdict(0.012, -0.010, 0.034, 0.31, mde=0.0449)
            == "+0.012 [-0.010, +0.034], Holm p = 0.31: no significant difference (it could detect ±0.045)")
    # the MDE is said of a null only: a significant result needs no power statement
    assert "detect" not in S.verdict(0.05, 0.02, 0.08, 0.001, mde=0.03)


def test_significance_is_strictly_below_alpha() -> None:
    assert S.verdict(0.05, 0.0, 0.1, 0.05).endswith("no significant difference")
    assert S.verdict(0.05, 0.0, 0.1, 0.0499).endswith("significantly higher")
    assert S.verdict(0.05, 0.0, 0.1, 0.05, alpha=0.1).endswith("significantly higher")
    assert S.verdict(0.05, 0.0, 0.1, 0.02, alpha=0.01).endswith("no significant difference")


def test_bad_input_raises_a_stats_error_naming_the_problem() -> None:
    with pytest.raises(S.StatsError, match="outside its interval"):
        S.verdict(0.2, 0.0, 0.1, 0.5)
    with pytest.raises(S.StatsError, match="p-value"):
        S.verdict(0.05, 0.0, 0.1, 1.5)
    with pytest.raises(S.StatsError, match="finite"):
        S.verdict(0.05, 0.0, 0.1, math.nan)
    with pytest.raises(S.StatsError, match="alpha"):
        S.verdict(0.05, 0.0, 0.1, 0.5, alpha=1.0)
    with pytest.raises(S.StatsError, match="mde"):
        S.verdict(0.05, 0.0, 0.1, 0.5, mde=-0.1)
    with pytest.raises(S.StatsError, match="estimate of 0"):
        S.verdict(0.0, 0.0, 0.0, 0.0)
    assert issubclass(S.StatsError, ValueError)


def test_row_verdict_reads_a_table_row_by_its_column_names() -> None:
    row = pd.Series({"gap": -0.03, "lo": -0.05, "hi": -0.01, "p": 0.004, "p (Holm)": 0.012, "MDE": 0.02})
    assert S.row_verdict(row, "gap") == "-0.030 [-0.050, -0.010], Holm p = 0.012: significantly lower"
    null = {"ΔWP": 0.01, "lo": -0.02, "hi": 0.04, "p (Holm)": 0.6, "MDE": 0.041}
    assert S.row_verdict(null) == "+0.010 [-0.020, +0.040], Holm p = 0.6: no significant difference (it could detect ±0.041)"
    without_mde = {k: v for k, v in null.items() if k != "MDE"}
    assert S.row_verdict(without_mde).endswith("no significant difference")
    with pytest.raises(S.StatsError, match="p \\(Holm\\)"):
        S.row_verdict({"ΔWP": 0.01, "lo": -0.02, "hi": 0.04})


def test_interval_text_is_signed_to_three_decimals() -> None:
    assert S.interval_text(0.0, -0.0123, 0.0456) == "+0.000 [-0.012, +0.046]"


@pytest.mark.parametrize("wp, lo, target, word", [
    (0.62, 0.60, 0.60, "met"),                               # the lower end on the target counts
    (0.65, 0.61, 0.60, "met"),
    (0.60, 0.55, 0.60, "met on the point estimate only"),    # the estimate on the target counts
    (0.61, 0.59, 0.60, "met on the point estimate only"),
    (0.59, 0.55, 0.60, "missed"),
])
def test_target_verdict(wp: float, lo: float, target: float, word: str) -> None:
    assert S.target_verdict(wp, lo, target) == word


def test_target_verdict_refuses_an_interval_above_its_estimate() -> None:
    with pytest.raises(S.StatsError, match="lower end"):
        S.target_verdict(0.5, 0.6, 0.6)
    with pytest.raises(S.StatsError, match="finite"):
        S.target_verdict(math.nan, 0.5, 0.6)
