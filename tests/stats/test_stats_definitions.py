"""`ddzlab.stats` against its definitions, worked out independently of the code (the
survivors of `make mutation MODULE=stats`).

The Bradley-Terry fit is checked against Zermelo's iteration (Hunter's MM algorithm), a
different route to the same maximum; the bootstrap on a two-deal design whose resamples take
three values with known probabilities (1/4, 1/2, 1/4), so its percentiles and place
probabilities are known exactly; the power formulas against the noncentral t distribution.
"""
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as sps

from ddzlab import stats as S

COLUMNS = ["config", "opponent", "deal", "role", "won", "points"]


def _games(results: dict[tuple[str, str, int], tuple[int, int]]) -> pd.DataFrame:
    """Game rows: ``results[(a, b, deal)] = (games a won, games a lost)`` against b."""
    rows = []
    for (a, b, deal), (won, lost) in results.items():
        rows += [(a, b, deal, "landlord", 1, 1)] * won + [(a, b, deal, "landlord", 0, -1)] * lost
    return pd.DataFrame(rows, columns=COLUMNS)


def _zermelo(w: np.ndarray, steps: int = 20000) -> np.ndarray:
    """Bradley-Terry strengths by Zermelo's fixed point p_i = W_i / sum_j n_ij / (p_i + p_j),
    returned as mean-zero log strengths."""
    n = w + w.T
    p = np.ones(len(w))
    for _ in range(steps):
        p = w.sum(axis=1) / (n / (p[:, None] + p[None, :])).sum(axis=1)
        p /= np.exp(np.log(p).mean())
    r = np.log(p)
    return r - r.mean()


# -- Bradley-Terry -------------------------------------------------------------------------
def test_bt_fit_equals_zermelos_iteration_on_random_tournaments():
    rng = np.random.default_rng(4)
    for k in (2, 3, 5):
        for _ in range(4):
            w = rng.integers(1, 20, size=(k, k)).astype(int)       # every pair both ways: connected
            np.fill_diagonal(w, 0)
            assert S.bt_fit(w) == pytest.approx(_zermelo(w.astype(float)), abs=1e-7)


def test_bt_refusal_names_the_problem():
    with pytest.raises(S.StatsError, match=r"^no finite Bradley-Terry ratings: some agents never beat"):
        S.bt_fit(np.array([[0, 3], [0, 0]]))


#: A against B: deal 0 won 3 lost 1, deal 1 won 1 lost 2. A resample of the two deals holds
#: deal 0 twice (probability 1/4: A 6-2), each once (1/2: A 4-3) or deal 1 twice (1/4: A 2-4);
#: with two agents A's rating is half the log-odds of its wins.
TWO_DEALS = {("A", "B", 0): (3, 1), ("A", "B", 1): (1, 2)}
R_00, R_01, R_11 = math.log(3) / 2, math.log(4 / 3) / 2, math.log(1 / 2) / 2


def test_bradley_terry_bootstrap_on_two_deals_by_hand():
    bt = S.bradley_terry(_games(TWO_DEALS), n_boot=4000, seed=5)
    assert list(bt.index) == ["A", "B"] and bt.index.name == "agent"
    assert bt.loc["A", "rating"] == pytest.approx(R_01) and bt.loc["B", "rating"] == pytest.approx(-R_01)
    assert bt["rank"].tolist() == [1, 2] and bt["rank"].dtype.kind == "i"
    # the 2.5 % and 97.5 % points of the resampled rating: the lowest and highest values
    assert (bt.loc["A", "lo"], bt.loc["A", "hi"]) == pytest.approx((R_11, R_00))
    assert (bt.loc["B", "lo"], bt.loc["B", "hi"]) == pytest.approx((-R_00, -R_11))
    # A is first unless both resampled deals are deal 1
    assert bt.loc["A", "P(rank=1)"] == pytest.approx(0.75, abs=0.03)
    assert bt.loc["A", "P(rank=2)"] == pytest.approx(0.25, abs=0.03)
    assert bt.attrs == {"n_boot": 4000, "seed": 5, "deals": 2, "boot_infinite": 0, "alpha": 0.05, "prior": 0.0}
    # alpha = 0.6: the 30 % and 70 % points both fall in the middle block (probability 1/2)
    wide = S.bradley_terry(_games(TWO_DEALS), n_boot=4000, seed=5, alpha=0.6)
    assert (wide.loc["A", "lo"], wide.loc["A", "hi"]) == pytest.approx((R_01, R_01))


def test_bradley_terry_defaults_and_two_agents():
    bt = S.bradley_terry(_games(TWO_DEALS))
    assert bt.attrs["n_boot"] == 1000 and bt.attrs["seed"] == 0 and bt.attrs["alpha"] == 0.05
    assert bt.attrs["prior"] == 0.0


def test_bradley_terry_counts_resamples_without_a_finite_fit():
    """Deal 0 is A's only win: a resample without it (probability (2/3)^3 = 0.30 with three
    deals) leaves A undefeated by B, which has no finite fit."""
    games = _games({("A", "B", 0): (1, 1), ("A", "B", 1): (0, 1), ("A", "B", 2): (0, 1)})
    bt = S.bradley_terry(games, n_boot=2000, seed=1)
    assert bt.attrs["boot_infinite"] / 2000 == pytest.approx((2 / 3) ** 3, abs=0.04)
    assert bt.loc["A", "lo"] == -math.inf and bt.loc["B", "hi"] == math.inf


def test_bradley_terry_without_a_bootstrap():
    games = _games(TWO_DEALS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bt = S.bradley_terry(games, n_boot=0)
    assert bt.lo.dtype == float and bt.lo.isna().all() and bt.hi.isna().all()
    assert bt.filter(like="P(rank=").isna().all().all()
    assert np.isfinite(bt.rating).all() and bt.attrs["n_boot"] == 0


def test_bradley_terry_of_named_agents_only():
    games = _games({("a", "b", 0): (2, 1), ("b", "c", 0): (5, 0), ("a", "c", 1): (1, 1)})
    agents, W = S.win_counts(games, ["b", "a"])
    assert agents == ["b", "a"] and W.shape == (1, 2, 2)        # only deal 0 has a game of a and b
    assert W[0].tolist() == [[0, 1], [2, 0]]
    bt = S.bradley_terry(games, n_boot=10, agents=["a", "b"])
    assert sorted(bt.index) == ["a", "b"] and bt.loc["a", "rating"] == pytest.approx(math.log(2) / 2)


def test_the_prior_goes_to_every_pair_that_met_even_once():
    """prior = 0.5 adds half a win each way to A-B (met 4 times) and to A-C (met once)."""
    games = _games({("A", "B", 0): (2, 1), ("A", "B", 1): (0, 1), ("A", "C", 0): (1, 0), ("B", "C", 1): (1, 1)})
    bt = S.bradley_terry(games, n_boot=0, prior=0.5)
    w = np.array([[0, 2, 1], [2, 0, 1], [0, 1, 0]], dtype=float) + 0.5 * np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    assert bt.loc[["A", "B", "C"], "rating"].to_numpy() == pytest.approx(_zermelo(w), abs=1e-7)


def test_the_prior_is_in_every_resample_too():
    """Every deal the same: each resample is the whole data again, so with the prior every
    bootstrap fit equals the point fit and the interval shrinks to it."""
    games = _games({("A", "B", d): (2, 1) for d in range(4)})
    bt = S.bradley_terry(games, n_boot=50, prior=0.5)
    assert bt.lo.to_numpy() == pytest.approx(bt.rating.to_numpy()) and bt.hi.to_numpy() == pytest.approx(bt.rating.to_numpy())
    assert bt.loc["A", "rating"] == pytest.approx(math.log(8.5 / 4.5) / 2)


# -- intervals and power -------------------------------------------------------------------
def test_alpha_outside_0_1_is_refused_by_name():
    with pytest.raises(S.StatsError, match=r"^alpha must be between 0 and 1, got 1.5"):
        S.wilson(1, 2, 1.5)


def test_wilson_upper_end_is_one_where_the_formula_rounds_below():
    """At 10 of 10 (alpha 0.05) the formula's upper end is 0.9999999999999999 in floating
    point; the interval's end is 1 exactly."""
    assert S.wilson(10, 10)[1] == 1.0


def _power(d: float, n: int, alpha: float = 0.05) -> float:
    """Power of the two-sided one-sample t-test over n units at standardised effect d."""
    crit = sps.t.ppf(1 - alpha / 2, n - 1)
    nc = d * math.sqrt(n)
    return float(sps.nct.sf(crit, n - 1, nc) + sps.nct.cdf(-crit, n - 1, nc))


def test_mde_from_the_noncentral_t():
    for sd, n in ((1.0, 50), (0.4, 1000), (2.5, 12)):
        d = optimize.brentq(lambda x: _power(x, n) - 0.8, 1e-6, 6 / math.sqrt(n))
        assert S.mde(sd, n) == pytest.approx(d * sd, rel=1e-4)
    assert S.mde(0.0, 10) == 0.0
    with pytest.raises(S.StatsError, match=r"^sd must be a finite non-negative number, got -0.1"):
        S.mde(-0.1, 10)
    with pytest.raises(S.StatsError, match=r"^a paired test needs at least two deals, got 1"):
        S.mde(0.5, 1)


# -- per-deal results ----------------------------------------------------------------------
def test_both_sides_mirrors_a_farmers_row_as_landlord():
    g = pd.DataFrame([("A", "R", 0, "farmers", 0, -2)], columns=COLUMNS)
    assert S.both_sides(g).role.tolist() == ["farmers", "landlord"]


def test_per_deal_against_one_opponent_named_by_a_string():
    g = pd.DataFrame([("A", "rulev1", 0, "landlord", 1, 2), ("A", "rulev1", 0, "farmers", 0, -1),
                      ("A", "greedy", 0, "landlord", 0, -2)], columns=COLUMNS)
    s = S.per_deal(g, "A", "rulev1")
    assert s.tolist() == [0.5] and s.name == "A WP"


def test_an_agent_that_loses_every_game_is_below_one_half_for_sure():
    """Per-deal WP 0 on every deal: no spread, mean below the null 0.5: t = -inf, p = 0."""
    g = pd.DataFrame([("A", "B", d, role, 0, -1) for d in range(3) for role in ("landlord", "farmers")],
                     columns=COLUMNS)
    wp = S.head_to_head(g, "A", "B").loc["WP"]
    assert wp.estimate == 0.0 and wp.t == -math.inf and wp.p == 0.0


def test_resamples_without_a_finite_fit_are_ordered_by_share_of_games_won():
    """Deals 1-3: C beats B 2-0, A beats B 3-1 (A and C do not meet); deal 0: every pair one
    win each way. A resample without deal 0 (probability (3/4)^4) has no finite fit (nobody
    beats C): it is ranked by share of games won, C 1 (+inf), A 3/4 (0), B 1/6 (-inf). A
    ranking by games won (A's 3 per deal over C's 2) or by wins minus losses would put A first."""
    results = {("A", "B", 0): (1, 1), ("A", "C", 0): (1, 1), ("B", "C", 0): (1, 1)}
    for d in (1, 2, 3):
        results.update({("C", "B", d): (2, 0), ("A", "B", d): (3, 1)})
    bt = S.bradley_terry(_games(results), n_boot=3000, seed=2)
    share = bt.attrs["boot_infinite"] / 3000
    assert share == pytest.approx(0.75 ** 4, abs=0.04)
    # the finite resamples (deal 0 and some of the others) order them the same way, bar ties
    assert min(bt.loc["C", "P(rank=1)"], bt.loc["A", "P(rank=2)"], bt.loc["B", "P(rank=3)"]) > 0.95
    assert bt.loc["C", "hi"] == math.inf and bt.loc["B", "lo"] == -math.inf
    # A, between the best and the worst share there, counts as 0: its finite ratings are all
    # above 0, so 0 is the lower end of its interval
    assert bt.loc["A", "lo"] == 0.0 and 0.0 < bt.loc["A", "hi"] < bt.loc["C", "rating"]


def test_a_share_of_games_won_counts_a_single_game_whole():
    """Deal 0: C beats B in their one game; deal 1: B beats C; deal 2: A and B one win each.
    Of the 27 equally likely resamples of the three deals, 6 (each deal once) have a finite
    fit, all ratings 0 (ties to the order A, B, C); the others are ranked by share of games
    won. In the 3 resamples (deal 0 once, deal 2 twice) C's share is 1/1, above A's 2/4, so C
    is first; a share counted over at least two games (1/2) would tie C with A, and A, earlier,
    would take first place. Enumerated by hand, P(rank = 1, 2, 3) in 27ths: A 7, 14, 6;
    B 10, 10, 7; C 10, 3, 14."""
    results = {("C", "B", 0): (1, 0), ("B", "C", 1): (1, 0), ("A", "B", 2): (1, 1)}
    bt = S.bradley_terry(_games(results), n_boot=20000, seed=4, agents=["A", "B", "C"])
    assert bt.attrs["boot_infinite"] / 20000 == pytest.approx(21 / 27, abs=0.015)
    expected = {"A": (7, 14, 6), "B": (10, 10, 7), "C": (10, 3, 14)}
    for agent, counts in expected.items():
        got = [bt.loc[agent, f"P(rank={k})"] for k in (1, 2, 3)]
        assert got == pytest.approx([c / 27 for c in counts], abs=0.015), agent


def test_tied_agents_share_the_best_rank():
    """Three agents, every pair one win each way on every deal: equal ratings, rank 1 each."""
    games = _games({(a, b, d): (1, 1) for a, b in (("A", "B"), ("A", "C"), ("B", "C")) for d in range(3)})
    bt = S.bradley_terry(games, n_boot=20)
    assert bt.rating.to_numpy() == pytest.approx([0, 0, 0]) and bt["rank"].tolist() == [1, 1, 1]
