"""ddzlab.stats against the libraries it builds on (scipy, statsmodels) and hand-worked cases."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower
from statsmodels.stats.proportion import proportion_confint

from ddzlab import stats as S
from ddzlab.errors import DdzError


# -- intervals -------------------------------------------------------------------------------
@given(st.integers(0, 400), st.integers(1, 400), st.sampled_from([0.01, 0.05, 0.1]))
@settings(max_examples=150, deadline=None)
def test_wilson_matches_statsmodels(k, n, alpha):
    k = min(k, n)
    lo, hi = S.wilson(k, n, alpha)
    ref = proportion_confint(k, n, alpha=alpha, method="wilson")
    assert lo == pytest.approx(ref[0], abs=1e-12) and hi == pytest.approx(ref[1], abs=1e-12)


def test_wilson_by_hand_and_bad_input():
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416, half 1.96 sqrt(0.016 + 0.0096040) / 1.38416
    z = sps.norm.ppf(0.975)
    centre = (0.8 + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(0.8 * 0.2 / 10 + z * z / 400) / (1 + z * z / 10)
    assert S.wilson(8, 10) == pytest.approx((centre - half, centre + half))
    assert S.wilson(8, 10)[0] == pytest.approx(0.4902, abs=1e-4)
    assert S.wilson(0, 5)[0] == 0.0 and S.wilson(5, 5)[1] == 1.0
    assert all(math.isnan(v) for v in S.wilson(0, 0))
    with pytest.raises(S.StatsError):
        S.wilson(6, 5)
    assert issubclass(S.StatsError, DdzError)


def test_t_interval_matches_scipy():
    x = np.array([0.61, 0.58, 0.64, 0.55, 0.60])
    m, lo, hi = S.t_interval(x)
    ref = sps.ttest_1samp(x, 0).confidence_interval(0.95)
    assert m == pytest.approx(x.mean())
    assert (lo, hi) == pytest.approx((ref.low, ref.high))
    # five runs: t(0.975, 4) = 2.776, not z = 1.96
    assert (hi - lo) / 2 == pytest.approx(2.7764451 * x.std(ddof=1) / math.sqrt(5), rel=1e-6)


def test_t_interval_adds_game_noise():
    x = np.array([0.5, 0.52, 0.48])
    extra = 0.5 * 0.5 / 1000                   # the runs share 1,000 evaluation games
    m, lo, hi = S.t_interval(x, extra_var=extra)
    half = sps.t.ppf(0.975, 2) * math.sqrt(x.var(ddof=1) / 3 + extra)
    assert (lo, hi) == pytest.approx((m - half, m + half))
    assert hi - lo > S.t_interval(x)[2] - S.t_interval(x)[1]
    with pytest.raises(S.StatsError):
        S.t_interval([0.5])
    with pytest.raises(S.StatsError):
        S.t_interval(x, extra_var=-1)


# -- power -----------------------------------------------------------------------------------
def test_mde_and_n_needed_match_statsmodels_and_invert_each_other():
    sd = 0.45
    for n in (100, 1000, 3800):
        d = TTestPower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8)
        assert S.mde(sd, n) == pytest.approx(d * sd)
        # the MDE of n deals needs n deals (up to rounding up)
        assert S.n_needed(sd, S.mde(sd, n)) in (n, n + 1)
    # normal approximation by hand: ((z_.975 + z_.8) sd / effect)^2 = (2.8016 * 0.45 / 0.03)^2 = 1766
    approx = ((sps.norm.ppf(0.975) + sps.norm.ppf(0.8)) * sd / 0.03) ** 2
    assert S.n_needed(sd, 0.03) == pytest.approx(approx, abs=3)
    assert S.n_needed(sd, -0.03) == S.n_needed(sd, 0.03)
    assert S.mde(0.0, 50) == 0.0
    power = TTestPower().power(effect_size=0.03 / sd, nobs=S.n_needed(sd, 0.03), alpha=0.05)
    assert 0.8 <= power < 0.801


def test_power_bad_input():
    with pytest.raises(S.StatsError):
        S.mde(0.4, 1)
    with pytest.raises(S.StatsError):
        S.n_needed(0.4, 0)
    with pytest.raises(S.StatsError):
        S.n_needed(0, 0.03)


# -- Holm ------------------------------------------------------------------------------------
def test_holm_by_hand_and_against_statsmodels():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04 -> monotone 0.06
    assert S.holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    rng = np.random.default_rng(3)
    q = rng.random(17) ** 3
    assert S.holm(q) == pytest.approx(multipletests(q, method="holm")[1])
    assert len(S.holm([])) == 0
    with pytest.raises(S.StatsError):
        S.holm([0.5, 1.5])


# -- paired differences ----------------------------------------------------------------------
def _rows(config, opponent, results):
    """Game rows: ``results[deal] = (won as landlord, won as farmers, points ll, points f)``."""
    out = []
    for deal, (wl, wf, pl, pf) in enumerate(results):
        out.append((config, opponent, deal, "landlord", wl, pl))
        out.append((config, opponent, deal, "farmers", wf, pf))
    return pd.DataFrame(out, columns=["config", "opponent", "deal", "role", "won", "points"])


def test_paired_diff_on_a_known_design():
    # a wins both games of deals 0-1, one of deal 2-3; b wins one of deals 0-2 and none of deal 3
    a = _rows("a", "o", [(1, 1, 1, 2), (1, 1, 2, 1), (1, 0, 1, -1), (0, 1, -1, 1)])
    b = _rows("b", "o", [(1, 0, 1, -1), (0, 1, -1, 1), (1, 0, 4, -1), (0, 0, -1, -2)])
    res = S.paired_diff(pd.concat([a, b]), "a", "b", "o")
    # per-deal WP: a = 1, 1, .5, .5; b = .5, .5, .5, 0 -> d = .5, .5, 0, .5
    d = np.array([0.5, 0.5, 0.0, 0.5])
    wp = res.loc["WP"]
    assert wp.estimate == pytest.approx(0.375) and wp.n == 4
    assert wp.sd == pytest.approx(d.std(ddof=1)) == pytest.approx(0.25)
    ref = sps.ttest_1samp(d, 0)
    assert wp.t == pytest.approx(ref.statistic) and wp.p == pytest.approx(ref.pvalue)
    ci = ref.confidence_interval(0.95)
    assert (wp.lo, wp.hi) == pytest.approx((ci.low, ci.high))
    # ADP per deal: a = 1.5, 1.5, 0, 0; b = 0, 0, 1.5, -1.5 -> d = 1.5, 1.5, -1.5, 1.5
    adp = res.loc["ADP"]
    assert adp.estimate == pytest.approx(0.75)
    assert adp.sd == pytest.approx(np.std([1.5, 1.5, -1.5, 1.5], ddof=1))
    assert wp.mde == pytest.approx(S.mde(0.25, 4))


def test_paired_diff_reads_either_orientation_and_averages_opponents_per_deal():
    # round-robin storage: o played as config against a; mirrored it must equal the direct rows
    direct = _rows("a", "o", [(1, 0, 1, -1), (1, 1, 2, 1), (0, 0, -1, -1)])
    mirrored = direct.assign(config="o", opponent="a", won=1 - direct.won, points=-direct.points,
                             role=direct.role.map({"landlord": "farmers", "farmers": "landlord"}))
    b = _rows("b", "o", [(0, 0, -1, -1), (1, 0, 1, -1), (0, 0, -1, -1)])
    r1 = S.paired_diff(pd.concat([direct, b]), "a", "b", "o")
    r2 = S.paired_diff(pd.concat([mirrored, b]), "a", "b", "o")
    pd.testing.assert_frame_equal(r1, r2)
    # two opponents: each deal's difference is the mean over opponents (the deal stays the unit)
    a2 = _rows("a", "p", [(1, 1, 1, 1), (0, 0, -1, -1), (1, 0, 1, -1)])
    b2 = _rows("b", "p", [(1, 1, 1, 1), (1, 1, 1, 1), (1, 0, 1, -1)])
    res = S.paired_diff(pd.concat([direct, b, a2, b2]), "a", "b")
    d = (np.array([0.5, 1, 0]) - np.array([0, 0.5, 0]) + np.array([1, 0, 0.5]) - np.array([1, 1, 0.5])) / 2
    assert res.loc["WP"].n == 3
    assert res.loc["WP"].estimate == pytest.approx(d.mean())
    assert res.loc["WP"].sd == pytest.approx(d.std(ddof=1))


def test_paired_diff_needs_common_deals():
    a = _rows("a", "o", [(1, 0, 1, -1)])
    b = _rows("b", "o", [(1, 0, 1, -1)])
    with pytest.raises(S.StatsError, match="two"):
        S.paired_diff(pd.concat([a, b]), "a", "b", "o")
    with pytest.raises(S.StatsError, match="no games"):
        S.paired_diff(a, "a", "zzz", "o")


# -- Bradley-Terry ---------------------------------------------------------------------------
def test_bt_two_agents_is_the_log_odds():
    # 30 wins, 10 losses: r_a - r_b = log(30 / 10)
    r = S.bt_fit(np.array([[0, 30], [10, 0]]))
    assert r[0] - r[1] == pytest.approx(math.log(3)) and r.sum() == pytest.approx(0)


def test_bt_fit_solves_the_likelihood_equations_and_matches_a_logistic_fit():
    import statsmodels.api as sm
    w = np.array([[0, 14, 9, 18], [6, 0, 11, 15], [11, 9, 0, 12], [2, 5, 8, 0]], dtype=float)
    r = S.bt_fit(w)
    n = w + w.T
    p = 1 / (1 + np.exp(r[None, :] - r[:, None]))
    # Zermelo's equations: each agent's expected wins equal its observed wins
    assert (n * p).sum(axis=1) == pytest.approx(w.sum(axis=1), abs=1e-8)
    # the same model as a logistic regression on x = e_i - e_j, one game per row, agent 0 fixed at 0
    X, y = [], []
    for i in range(4):
        for j in range(4):
            for _ in range(int(w[i, j])):
                x = np.zeros(4)
                x[i], x[j] = 1, -1
                X.append(x[1:])
                y.append(1)
                X.append(-x[1:])
                y.append(0)
    fit = sm.Logit(np.array(y), np.array(X)).fit(disp=0)
    assert r[1:] - r[0] == pytest.approx(fit.params, abs=1e-6)


def test_bt_refuses_an_undefeated_agent():
    with pytest.raises(S.StatsError, match="never"):
        S.bt_fit(np.array([[0, 5, 5], [0, 0, 3], [0, 4, 0]]))


def _tournament(strength, n_deals, seed):
    """Game rows of a round robin where P(i beats j) follows BT with ``strength``."""
    rng = np.random.default_rng(seed)
    names = list(strength)
    rows = []
    for d in range(n_deals):
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                p = 1 / (1 + math.exp(strength[b] - strength[a]))
                for role in ("landlord", "farmers"):
                    won = int(rng.random() < p)
                    rows.append((a, b, d, role, won, 1 if won else -1))
    return pd.DataFrame(rows, columns=["config", "opponent", "deal", "role", "won", "points"])


def test_bradley_terry_recovers_ratings_with_intervals_and_rank_probabilities():
    truth = {"strong": 1.0, "mid": 0.0, "mid2": -0.05, "weak": -1.0}
    games = _tournament(truth, 400, seed=1)
    bt = S.bradley_terry(games, n_boot=300, seed=2)
    assert list(bt.index[[0, 3]]) == ["strong", "weak"]
    centred = {k: v - np.mean(list(truth.values())) for k, v in truth.items()}
    for name, row in bt.iterrows():
        assert row.lo <= row.rating <= row.hi
        assert row.lo - 0.05 < centred[name] < row.hi + 0.05
    probs = bt.filter(like="P(rank=")
    assert probs.sum(axis=1).to_numpy() == pytest.approx(1.0)
    assert probs.sum(axis=0).to_numpy() == pytest.approx(1.0)
    assert bt.loc["strong", "P(rank=1)"] > 0.99 and bt.loc["weak", "P(rank=4)"] > 0.99
    # the two middle agents are close: both ranks 2 and 3 are likely for each
    assert 0.1 < bt.loc["mid", "P(rank=2)"] < 0.95
    # reproducible from the seed; another seed moves the bootstrap, not the fit
    again = S.bradley_terry(games, n_boot=300, seed=2)
    pd.testing.assert_frame_equal(bt, again)
    other = S.bradley_terry(games, n_boot=300, seed=3)
    assert other.rating.equals(bt.rating) and not other.lo.equals(bt.lo)
    # the point fit equals bt_fit on the summed win matrix
    agents, W = S.win_counts(games)
    r = S.bt_fit(W.sum(axis=0))
    assert bt.loc[agents, "rating"].to_numpy() == pytest.approx(r)
    assert bt.loc["strong", "elo"] == pytest.approx(bt.loc["strong", "rating"] * 400 / math.log(10))


def test_win_counts_reads_both_orientations():
    g = pd.DataFrame([("a", "b", 0, "landlord", 1, 1), ("a", "b", 0, "farmers", 0, -1),
                      ("b", "c", 1, "landlord", 1, 2), ("b", "c", 1, "farmers", 1, 1)],
                     columns=["config", "opponent", "deal", "role", "won", "points"])
    agents, W = S.win_counts(g)
    assert agents == ["a", "b", "c"]
    assert W[0, 0, 1] == 1 and W[0, 1, 0] == 1 and W[1, 1, 2] == 2 and W[1, 2, 1] == 0
    assert W.sum() == 4


def test_bradley_terry_prior_makes_an_undefeated_agent_finite():
    games = _tournament({"a": 0.0, "b": 0.0}, 5, seed=0)
    games = pd.concat([games, pd.DataFrame([("a", "c", d, r, 1, 1) for d in range(5) for r in ("landlord", "farmers")],
                                           columns=games.columns)])
    with pytest.raises(S.StatsError):
        S.bradley_terry(games, n_boot=10)
    bt = S.bradley_terry(games, n_boot=20, prior=0.5)
    assert bt.index[-1] == "c" and np.isfinite(bt.rating).all() and bt.attrs["prior"] == 0.5
    # the prior is half a win each way per pair that met: c's 0 + 0.5 of 10.5 against a
    agents, W = S.win_counts(games)
    met = (W.sum(0) + W.sum(0).T) > 0
    assert bt.loc[agents, "rating"].to_numpy() == pytest.approx(S.bt_fit(W.sum(0) + 0.5 * met))


def test_head_to_head_tests_per_deal_wp_against_a_half():
    g = _rows("a", "b", [(1, 1, 1, 2), (1, 0, 1, -1), (1, 1, 4, 1), (0, 1, -1, 1), (1, 1, 1, 1)])
    res = S.head_to_head(g, "a", "b")
    x = np.array([1, 0.5, 1, 0.5, 1])
    ref = sps.ttest_1samp(x, 0.5)
    assert res.loc["WP"].estimate == pytest.approx(0.8) and res.loc["WP"].p == pytest.approx(ref.pvalue)
    ci = ref.confidence_interval()
    assert (res.loc["WP"].lo, res.loc["WP"].hi) == pytest.approx((ci.low, ci.high))
    # from b's side: the mirror image
    back = S.head_to_head(g, "b", "a")
    assert back.loc["WP"].estimate == pytest.approx(0.2) and back.loc["WP"].p == pytest.approx(ref.pvalue)
    assert back.loc["ADP"].estimate == pytest.approx(-res.loc["ADP"].estimate)


# -- hand-computed paired comparisons (the survivors of the mutation run) -----------
T975_1 = 12.706204736174698          # t(0.975) with 1 degree of freedom


def _hand_games() -> pd.DataFrame:
    """Two deals. A and B both met R; only A met S, only B met T; A met B. Per deal, both
    roles (landlord +-2, farmers +-1):
    A-R: deal 0 won, lost (WP 0.5, ADP 0.5); deal 1 won, won (1, 1.5).
    B-R: deal 0 lost, lost (0, -1.5);       deal 1 won, won (1, 1.5).
    A-B: deal 0 won, won (1, 1.5);          deal 1 lost, won (0.5, -0.5).
    A-S, B-T and S-T: every game lost (S and T meet each other, not A and B both)."""
    rows = [("A", "R", 0, "landlord", 1, 2), ("A", "R", 0, "farmers", 0, -1),
            ("A", "R", 1, "landlord", 1, 2), ("A", "R", 1, "farmers", 1, 1),
            ("B", "R", 0, "landlord", 0, -2), ("B", "R", 0, "farmers", 0, -1),
            ("B", "R", 1, "landlord", 1, 2), ("B", "R", 1, "farmers", 1, 1),
            ("A", "B", 0, "landlord", 1, 2), ("A", "B", 0, "farmers", 1, 1),
            ("A", "B", 1, "landlord", 0, -2), ("A", "B", 1, "farmers", 1, 1)]
    rows += [(c, o, d, r, 0, -2 if r == "landlord" else -1) for c, o in (("A", "S"), ("B", "T"), ("S", "T"))
             for d in (0, 1) for r in ("landlord", "farmers")]
    return pd.DataFrame(rows, columns=["config", "opponent", "deal", "role", "won", "points"])


def test_paired_diff_by_hand():
    """A - B against their one common opponent R, per deal. WP: d = (0.5, 0), mean 0.25,
    sd sqrt(1/8), se 0.25, t = 1, p = 0.5 (Cauchy: P(|T| > 1) = 1/2). ADP: d = (2, 0), mean
    1, sd sqrt 2, se 1, t = 1, p = 0.5. Halves t(0.975, 1) x se."""
    out = S.paired_diff(_hand_games(), "A", "B", power=0.9)
    assert out.attrs == {"a": "A", "b": "B", "opponent": ["R"]}
    wp, adp = out.loc["WP"], out.loc["ADP"]
    assert wp["n"] == adp["n"] == 2
    for row, mean, sd, se in ((wp, 0.25, math.sqrt(1 / 8), 0.25), (adp, 1.0, math.sqrt(2), 1.0)):
        assert row["estimate"] == pytest.approx(mean) and row["sd"] == pytest.approx(sd)
        assert row["se"] == pytest.approx(se)
        assert (row["lo"], row["hi"]) == pytest.approx((mean - T975_1 * se, mean + T975_1 * se))
        assert row["t"] == pytest.approx(1.0) and row["p"] == pytest.approx(0.5)
        assert row["mde"] == pytest.approx(S.mde(sd, 2, 0.05, 0.9)) and row["mde"] != S.mde(sd, 2, 0.05, 0.8)


def test_head_to_head_by_hand():
    """A against B directly. WP: x = (1, 0.5) against 0.5: mean 0.75, se 0.25, t = 1, p = 0.5.
    ADP: x = (1.5, -0.5) against 0: mean 0.5, se 1, t = 0.5, p = 1 - 2 atan(0.5) / pi."""
    out = S.head_to_head(_hand_games(), "A", "B")
    assert out.attrs == {"a": "A", "b": "B"}
    wp, adp = out.loc["WP"], out.loc["ADP"]
    assert (wp["estimate"], wp["se"], wp["t"], wp["p"]) == pytest.approx((0.75, 0.25, 1.0, 0.5))
    assert (adp["estimate"], adp["se"], adp["t"]) == pytest.approx((0.5, 1.0, 0.5))
    assert adp["p"] == pytest.approx(1 - 2 * math.atan(0.5) / math.pi)
    assert wp["n"] == 2 and wp["mde"] == pytest.approx(S.mde(math.sqrt(1 / 8), 2))    # power 0.8


def test_two_values_are_enough_and_errors_name_the_problem():
    assert S.t_interval([1.0, 3.0]) == pytest.approx((2.0, 2.0 - T975_1, 2.0 + T975_1))
    with pytest.raises(S.StatsError, match="at least two values, got 1"):
        S.t_interval([1.0])
    with pytest.raises(S.StatsError, match="extra_var is a variance, got -1"):
        S.t_interval([1.0, 2.0], extra_var=-1)
    with pytest.raises(S.StatsError, match="non-zero number, got 0"):
        S.n_needed(1.0, 0)
    with pytest.raises(S.StatsError, match="finite positive number, got -1"):
        S.n_needed(-1, 0.1)


def test_a_constant_paired_difference_has_no_spread():
    """se = 0: the mean differs from the null for sure (t infinite, p 0), or is the null."""
    row = S._paired_row("WP", np.array([0.5, 0.5]), 0.05, 0.8)
    assert row[4] == 0.0 and row[7] == math.inf and row[8] == 0.0
    row = S._paired_row("WP", np.array([0.5, 0.5]), 0.05, 0.8, null=0.5)
    assert row[7] == 0.0 and row[8] == 1.0


def test_both_sides_mirrors_every_paired_column_and_renumbers():
    """A mirrored row exchanges config/opponent, the roles, won -> 1 - won, points -> -points,
    seconds <-> opp_seconds and plays <-> opp_plays; the frame is numbered 0..2n-1. A column
    without its partner is copied as it is."""
    g = pd.DataFrame([("A", "R", 0, "landlord", 1, 2, 0.5, 0.25, 10, 7)],
                     columns=["config", "opponent", "deal", "role", "won", "points", "seconds",
                              "opp_seconds", "plays", "opp_plays"], index=[7])
    both = S.both_sides(g)
    assert list(both.index) == [0, 1]
    assert both.iloc[1].tolist() == ["R", "A", 0, "farmers", 0, -2, 0.25, 0.5, 7, 10]
    alone = S.both_sides(g.drop(columns=["opp_seconds", "plays"]))
    assert alone["seconds"].tolist() == [0.5, 0.5] and alone["opp_plays"].tolist() == [7, 7]


def test_per_deal_reads_wp_by_default():
    assert S.per_deal(_hand_games(), "A", "R").tolist() == [0.5, 1.0]          # the WP column
    assert S.per_deal(_hand_games(), "A", "R", "ADP").tolist() == [0.5, 1.5]


def test_the_input_checks_at_their_boundaries():
    """alpha must lie strictly between 0 and 1; wilson needs 0 <= k <= n; holm takes
    p-values in [0, 1] (both ends included) as a flat finite array."""
    for alpha in (0.0, 1.0, 1.5):
        with pytest.raises(S.StatsError):
            S.wilson(1, 2, alpha)
    with pytest.raises(S.StatsError, match=r"wilson needs 0 <= k <= n, got k=-1, n=5"):
        S.wilson(-1, 5)
    assert S.holm([0.0, 1.0]).tolist() == [0.0, 1.0]
    for bad in ([np.nan, 0.5], [[0.1, 0.2]], [-0.01], [1.01]):
        with pytest.raises(S.StatsError, match=r"holm needs a list of p-values in \[0, 1\], got"):
            S.holm(bad)


def test_wilson_ends_are_exact():
    """With k = 0 the lower end is 0 exactly and with k = n the upper end 1 exactly (the
    formula gives 5.6e-17 for 0 of 3 in floating point)."""
    for n in (3, 6, 7, 50):
        assert S.wilson(0, n)[0] == 0.0 and S.wilson(n, n)[1] == 1.0


# -- unpaired_diff: Welch's test, against scipy ---------------------------------------
@given(st.lists(st.floats(0, 1), min_size=2, max_size=40), st.lists(st.floats(0, 1), min_size=2, max_size=40))
@settings(max_examples=60, deadline=None)
def test_unpaired_diff_is_welchs_t_test(x, y):
    """Estimate, interval, p and degrees of freedom are scipy's Welch test (``equal_var=False``)."""
    x, y = np.array(x), np.array(y)
    row = S.unpaired_diff(x, y)
    assert row.estimate == pytest.approx(x.mean() - y.mean(), abs=1e-12)
    if x.var(ddof=1) + y.var(ddof=1) > 1e-12:
        ref = sps.ttest_ind(x, y, equal_var=False)
        lo, hi = ref.confidence_interval(0.95)
        assert (row.lo, row.hi) == (pytest.approx(lo, abs=1e-9), pytest.approx(hi, abs=1e-9))
        assert row.p == pytest.approx(ref.pvalue, abs=1e-9)
        assert row.df == pytest.approx(ref.df, rel=1e-9)
        assert row.t == pytest.approx(ref.statistic, rel=1e-9)


def test_unpaired_diff_worked_by_hand():
    """x = (0, 1, 1, 1) and y = (0, 0, 1): means 0.75 and 1/3; variances of the means
    (0.25/4, 1/3/3) = (0.0625, 0.1111...); se = sqrt(0.17361) = 0.41667; the detectable
    difference (1.95996 + 0.84162) · se = 1.16733."""
    row = S.unpaired_diff([0, 1, 1, 1], [0, 0, 1])
    assert row.estimate == pytest.approx(0.75 - 1 / 3)
    assert row.se == pytest.approx(math.sqrt(0.0625 + 1 / 9))
    assert row.mde == pytest.approx((1.959964 + 0.841621) * math.sqrt(0.0625 + 1 / 9), rel=1e-5)
    assert row.n == 7
    assert row.lo < row.estimate < row.hi


def test_unpaired_diff_refuses_too_few_or_bad_values():
    for x, y in (([1.0], [0.0, 1.0]), ([0.0, 1.0], []), ([0.0, float("nan")], [0.0, 1.0])):
        with pytest.raises(S.StatsError, match="two or more finite values"):
            S.unpaired_diff(x, y)
