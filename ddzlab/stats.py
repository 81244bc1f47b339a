"""The statistics every study uses: intervals, paired comparisons, power, Holm, Bradley–Terry.

Built on scipy.stats (t and normal quantiles, t-tests) and statsmodels (power of the
t-test, multiple-comparison corrections); ``tests/stats/test_stats.py`` checks every function
against those libraries and against cases worked by hand.

* `wilson` — Wilson score interval of a proportion (a single WP over independent games).
* `t_interval` — mean and t interval; ``extra_var`` adds a variance the spread of the
  values does not contain (game noise when several runs were scored on the same games).
* `paired_diff` — configurations ``a`` and ``b`` played against the same opponent on the
  same deals (sides swapped): per-deal differences of WP and ADP, their mean, t interval,
  p-value, SD and the deal count. The deal is the unit: its two games share the cards.
* `head_to_head` — ``a`` against ``b`` directly: per-deal WP tested against 0.5.
* `unpaired_diff` — the difference of two means measured on different deals (one agent under
  two rule sets, each on its own deal set): Welch's t interval and test.
* `mde` / `n_needed` — the smallest difference a paired test of ``n`` deals detects with
  80% power, and the deals needed for a given difference, from the SD of the per-deal
  differences (statsmodels' power of the one-sample t-test).
* `holm` — Holm's step-down adjusted p-values for a family of tests.
* `verdict` / `row_verdict` — the one wording of a paired difference's result in every
  notebook (estimate, interval, Holm p, and what a null could have detected);
  `target_verdict` — whether a WP clears a target (met, on the point estimate only, missed).
* `bradley_terry` — ratings from a tournament, ``P(i beats j) = 1 / (1 + exp(r_j - r_i))``,
  with percentile intervals and each agent's probability of each rank from a bootstrap over
  deals (a whole deal, every pair's games on it, is resampled together).

Game rows are those of a stored experiment (`ddzlab.experiments`): columns ``config``,
``opponent``, ``deal``, ``role`` (``landlord``/``farmers``: the side ``config`` played),
``won`` (0/1 for ``config``'s side) and ``points`` (±2^bombs for ``config``'s side).

>>> round(wilson(50, 100)[0], 4), round(wilson(50, 100)[1], 4)
(0.4038, 0.5962)
>>> round(n_needed(0.5, 0.03))          # deals for 0.03 WP when per-deal differences have SD 0.5
2183
"""
from __future__ import annotations

import math
import numbers
from typing import Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .errors import DdzError

#: the effect that matters unless a study argues otherwise: 0.03 WP
EFFECT_WP = 0.03
METRICS = {"WP": "won", "ADP": "points"}
PAIRED_COLUMNS = ["metric", "estimate", "lo", "hi", "se", "sd", "n", "t", "p", "mde"]


class StatsError(DdzError):
    """Data a statistic cannot be computed from: too few values, no common deals, an agent
    that never won or never lost (its Bradley–Terry rating is infinite)."""


# -- intervals ---------------------------------------------------------------------------
def _z(alpha: float) -> float:
    from scipy.stats import norm
    if not 0 < alpha < 1:
        raise StatsError(f"alpha must be between 0 and 1, got {alpha}")
    return float(norm.ppf(1 - alpha / 2))


def wilson(k: float, n: float, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n`` trials, (lo, hi). Exact 0 and 1
    at the ends; ``n = 0`` gives (nan, nan)."""
    if n < 0 or k < 0 or k > n:
        raise StatsError(f"wilson needs 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (math.nan, math.nan)
    z = _z(alpha)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return (lo, hi)


def t_interval(values: Union[Sequence[float], np.ndarray], alpha: float = 0.05,
               extra_var: float = 0.0) -> tuple[float, float, float]:
    """(mean, lo, hi): the t interval ``mean ± t(1-α/2, n-1) · sqrt(s²/n + extra_var)``.

    For a few runs (training seeds) measured on the same evaluation games, the runs' spread
    does not contain the noise of those games: pass its variance as ``extra_var`` (e.g.
    ``p(1-p)/games`` for a win rate) so the interval covers both. Needs two values."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or len(x) < 2:
        raise StatsError(f"a t interval needs at least two values, got {x.size}")
    if extra_var < 0:
        raise StatsError(f"extra_var is a variance, got {extra_var}")
    from scipy.stats import t
    m = float(x.mean())
    se = math.sqrt(float(x.var(ddof=1)) / len(x) + extra_var)
    half = float(t.ppf(1 - alpha / 2, len(x) - 1)) * se
    return (m, m - half, m + half)


# -- power -------------------------------------------------------------------------------
def mde(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest mean difference a two-sided paired t-test over ``n`` units (deals)
    detects with probability ``power``, when the per-unit differences have SD ``sd``."""
    if n < 2:
        raise StatsError(f"a paired test needs at least two deals, got {n}")
    if sd < 0 or not math.isfinite(sd):
        raise StatsError(f"sd must be a finite non-negative number, got {sd}")
    if sd == 0:
        return 0.0
    from statsmodels.stats.power import TTestPower
    d = TTestPower().solve_power(effect_size=None, nobs=n, alpha=alpha, power=power,
                                 alternative="two-sided")
    return float(d) * sd


def n_needed(sd: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Units (deals) a two-sided paired t-test needs to detect a mean difference of
    ``effect`` with probability ``power`` when the per-unit differences have SD ``sd``
    (each deal is two games per configuration)."""
    if effect == 0 or not math.isfinite(effect):
        raise StatsError(f"the effect to detect must be a non-zero number, got {effect}")
    if sd <= 0 or not math.isfinite(sd):
        raise StatsError(f"sd must be a finite positive number, got {sd}")
    from statsmodels.stats.power import TTestPower
    n = TTestPower().solve_power(effect_size=abs(effect) / sd, nobs=None, alpha=alpha,
                                 power=power, alternative="two-sided")
    return int(math.ceil(float(np.atleast_1d(n)[0])))


# -- multiple comparisons ----------------------------------------------------------------
def holm(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (reject hypothesis i at level α when
    ``holm(p)[i] <= α``): the i-th smallest p times (m - i + 1), made monotone, capped at 1."""
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1 or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise StatsError(f"holm needs a list of p-values in [0, 1], got {pvalues!r}")
    if not len(p):
        return p.copy()
    from statsmodels.stats.multitest import multipletests
    return multipletests(p, method="holm")[1]


# -- paired comparisons ------------------------------------------------------------------
def both_sides(games: pd.DataFrame) -> pd.DataFrame:
    """Every game seen from both sides: the rows as stored plus each row mirrored (config and
    opponent exchanged, the other role, ``won`` → 1 − won, ``points`` → −points), so the
    games of a round robin can be read from any agent's side."""
    need = {"config", "opponent", "deal", "role", "won", "points"}
    if need - set(games.columns):
        raise StatsError(f"game rows need the columns {sorted(need)}, missing {sorted(need - set(games.columns))}")
    m = games.copy()
    m["config"], m["opponent"] = games["opponent"], games["config"]
    m["role"] = games["role"].map({"landlord": "farmers", "farmers": "landlord"})
    m["won"], m["points"] = 1 - games["won"], -games["points"]
    for a, b in (("seconds", "opp_seconds"), ("plays", "opp_plays")):
        if a in games.columns and b in games.columns:
            m[a], m[b] = games[b], games[a]
    return pd.concat([games, m], ignore_index=True)


def per_deal(games: pd.DataFrame, config: str, opponent: Union[str, Sequence[str], None] = None,
             metric: str = "WP") -> pd.Series:
    """``config``'s mean result per deal (WP: share of the deal's games won; ADP: mean
    points), both roles, against ``opponent`` (one, several — averaged per deal — or every
    opponent it met). Rows of either orientation are used (`both_sides`)."""
    col = METRICS.get(metric)
    if col is None:
        raise StatsError(f"metric must be one of {list(METRICS)}, got {metric!r}")
    seen = both_sides(games)
    part = seen[seen["config"] == config]
    if opponent is not None:
        opps = [opponent] if isinstance(opponent, str) else list(opponent)
        part = part[part["opponent"].isin(opps)]
    if part.empty:
        raise StatsError(f"no games of {config!r} against {opponent!r}")
    by_opp = part.groupby(["deal", "opponent"])[col].mean().unstack("opponent")
    return by_opp.dropna().mean(axis=1).rename(f"{config} {metric}")


def paired_diff(games: pd.DataFrame, a: str, b: str, opponent: Union[str, Sequence[str], None] = None,
                alpha: float = 0.05, power: float = 0.8) -> pd.DataFrame:
    """``a`` minus ``b`` deal by deal, against the same opponent(s) on the same deals.

    One row per metric (WP, ADP) with `PAIRED_COLUMNS`: the mean per-deal difference, its t
    interval, standard error, the SD of the per-deal differences, ``n`` deals (those on
    which both played every listed opponent), the paired t statistic and two-sided p-value,
    and ``mde``: the difference this many deals detect with ``power``. With several
    opponents each deal's difference is averaged over them first (the deal stays the unit).
    ``opponent=None`` takes the opponents both configurations met."""
    seen = both_sides(games)
    if opponent is None:
        met = [set(seen.loc[seen["config"] == c, "opponent"]) - {a, b} for c in (a, b)]
        opponent = sorted(met[0] & met[1])
        if not opponent:
            raise StatsError(f"{a!r} and {b!r} have no opponent in common")
    rows = []
    for metric in METRICS:
        da = per_deal(games, a, opponent, metric)
        db = per_deal(games, b, opponent, metric)
        d = (da - db).dropna().to_numpy(dtype=float)
        if len(d) < 2:
            raise StatsError(f"{a!r} and {b!r} share {len(d)} deal(s) against {opponent!r}; "
                             "a paired comparison needs two")
        rows.append(_paired_row(metric, d, alpha, power))
    out = pd.DataFrame(rows, columns=PAIRED_COLUMNS).set_index("metric")
    out.attrs.update({"a": a, "b": b, "opponent": opponent})
    return out


def head_to_head(games: pd.DataFrame, a: str, b: str, alpha: float = 0.05,
                 power: float = 0.8) -> pd.DataFrame:
    """``a`` against ``b`` directly, the deal as the unit: ``a``'s per-deal WP (tested
    against 0.5) and ADP (tested against 0), with `PAIRED_COLUMNS` as in `paired_diff`
    (``mde``: the distance from 0.5 or 0 that this many deals detect with ``power``)."""
    rows = []
    for metric, null in (("WP", 0.5), ("ADP", 0.0)):
        x = per_deal(games, a, b, metric).to_numpy(dtype=float)
        if len(x) < 2:
            raise StatsError(f"{a!r} and {b!r} met on {len(x)} deal(s); a test needs two")
        rows.append(_paired_row(metric, x, alpha, power, null))
    out = pd.DataFrame(rows, columns=PAIRED_COLUMNS).set_index("metric")
    out.attrs.update({"a": a, "b": b})
    return out


def unpaired_diff(x: Union[Sequence[float], np.ndarray], y: Union[Sequence[float], np.ndarray],
                  alpha: float = 0.05, power: float = 0.8) -> pd.Series:
    """Mean of ``x`` minus mean of ``y`` for values of different units (per-deal WPs of two
    deal sets, which cannot be paired): Welch's t interval and two-sided test (unequal
    variances, Welch–Satterthwaite degrees of freedom ``df``): ``estimate``, ``lo``, ``hi``,
    ``se``, ``df``, ``n`` (both sizes), ``t``, ``p`` and ``mde``, ``(z(1-α/2) + z(power)) · se``:
    the difference these sizes detect with ``power``."""
    from scipy.stats import norm
    from scipy.stats import t as tdist
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) < 2 or len(b) < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise StatsError(f"unpaired_diff needs two or more finite values on each side, got {len(a)} and {len(b)}")
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    se = math.sqrt(va + vb)
    d = float(a.mean() - b.mean())
    if se > 0:
        df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
        half = float(tdist.ppf(1 - alpha / 2, df)) * se
        tstat = d / se
        p = float(2 * tdist.sf(abs(tstat), df))
    else:
        df = float(len(a) + len(b) - 2)
        half, (tstat, p) = 0.0, ((0.0, 1.0) if d == 0 else (math.copysign(math.inf, d), 0.0))
    detect = (_z(alpha) + float(norm.ppf(power))) * se
    return pd.Series({"estimate": d, "lo": d - half, "hi": d + half, "se": se, "df": float(df),
                      "n": len(a) + len(b), "t": tstat, "p": p, "mde": detect})


def _paired_row(metric: str, d: np.ndarray, alpha: float, power: float, null: float = 0.0) -> tuple:
    """Mean of ``d`` with its t interval and the t-test of mean = ``null``."""
    from scipy.stats import t as tdist
    n = len(d)
    m, sd = float(d.mean()), float(d.std(ddof=1))
    se = sd / math.sqrt(n)
    half = float(tdist.ppf(1 - alpha / 2, n - 1)) * se
    if se > 0:
        tstat = (m - null) / se
        p = float(2 * tdist.sf(abs(tstat), n - 1))
    else:
        tstat, p = (0.0, 1.0) if m == null else (math.copysign(math.inf, m - null), 0.0)
    return (metric, m, m - half, m + half, se, sd, n, tstat, p, mde(sd, n, alpha, power))


# -- wording -----------------------------------------------------------------------------
def interval_text(estimate: float, lo: float, hi: float) -> str:
    """``+0.012 [-0.010, +0.034]``: a difference and its interval, signed, three decimals."""
    return f"{estimate:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def verdict(estimate: float, lo: float, hi: float, p_holm: float, alpha: float = 0.05,
            mde: Optional[float] = None) -> str:
    """The one wording of a paired difference's result, for every notebook.

    ``+0.052 [+0.020, +0.084], Holm p = 0.0012: significantly higher`` when the Holm-adjusted
    p is below ``alpha`` (``lower`` for a negative estimate), else ``+0.012 [-0.010, +0.034],
    Holm p = 0.31: no significant difference``, followed, when ``mde`` is given, by what the
    test could have detected (``(it could detect ±0.045)``): a null is never read as "equal".
    For a family of one test the Holm p is the p-value itself.

    Raises `StatsError` on an estimate outside its interval, a p outside [0, 1], an ``alpha``
    outside (0, 1), a negative ``mde``, or a significant result with an estimate of zero."""
    values = {"estimate": estimate, "lo": lo, "hi": hi, "p_holm": p_holm}
    bad = [k for k, v in values.items() if not isinstance(v, numbers.Real) or not math.isfinite(v)]
    if bad:
        raise StatsError(f"verdict needs finite numbers, got {', '.join(f'{k}={values[k]!r}' for k in bad)}")
    if not lo <= estimate <= hi:
        raise StatsError(f"the estimate {estimate} lies outside its interval [{lo}, {hi}]")
    if not 0 <= p_holm <= 1:
        raise StatsError(f"p_holm is a p-value in [0, 1], got {p_holm}")
    if not 0 < alpha < 1:
        raise StatsError(f"alpha must be between 0 and 1, got {alpha}")
    if mde is not None and (not isinstance(mde, numbers.Real) or not mde >= 0):
        raise StatsError(f"mde is a non-negative difference, got {mde!r}")
    head = f"{interval_text(estimate, lo, hi)}, Holm p = {p_holm:.2g}"
    if p_holm < alpha:
        if estimate == 0:
            raise StatsError(f"a significant difference (Holm p = {p_holm}) with an estimate of 0")
        return f"{head}: significantly {'higher' if estimate > 0 else 'lower'}"
    power = "" if mde is None else f" (it could detect ±{mde:.3f})"
    return f"{head}: no significant difference{power}"


def row_verdict(row: Mapping, estimate: str = "ΔWP", alpha: float = 0.05) -> str:
    """`verdict` of a row of a study's table: the difference in column ``estimate``, its
    interval in ``lo`` and ``hi``, the Holm-adjusted p in ``p (Holm)`` and, when the row has
    it, the detectable effect in ``MDE``. Raises `StatsError` naming a missing column."""
    need = [estimate, "lo", "hi", "p (Holm)"]
    missing = [c for c in need if c not in row]
    if missing:
        raise StatsError(f"a verdict needs the columns {need}; the row has no {missing}")
    mde_value = row["MDE"] if "MDE" in row else None
    return verdict(float(row[estimate]), float(row["lo"]), float(row["hi"]), float(row["p (Holm)"]), alpha,
                   None if mde_value is None else float(mde_value))


#: what `target_verdict` says of a WP against a target
TARGET_WORDS = ("met", "met on the point estimate only", "missed")


def target_verdict(wp: float, lo: float, target: float) -> str:
    """Whether a WP reaches a target: ``met`` when the lower end ``lo`` of its interval does,
    ``met on the point estimate only`` when only ``wp`` does, else ``missed``."""
    if not all(isinstance(v, numbers.Real) and math.isfinite(v) for v in (wp, lo, target)):
        raise StatsError(f"target_verdict needs finite numbers, got wp={wp!r}, lo={lo!r}, target={target!r}")
    if lo > wp:
        raise StatsError(f"the lower end {lo} of the interval lies above the WP {wp}")
    return TARGET_WORDS[0] if lo >= target else TARGET_WORDS[1] if wp >= target else TARGET_WORDS[2]


# -- Bradley–Terry -----------------------------------------------------------------------
def win_counts(games: pd.DataFrame, agents: Optional[Sequence[str]] = None) -> tuple[list[str], np.ndarray]:
    """(agents, W) with ``W[d, i, j]`` = games agent i won against agent j on deal index d
    (deals in sorted order), from game rows of either orientation."""
    if agents is None:
        agents = list(dict.fromkeys([*games["config"], *games["opponent"]]))
    agents = list(agents)
    pos = {a: i for i, a in enumerate(agents)}
    keep = games["config"].isin(pos) & games["opponent"].isin(pos)
    g = games[keep]
    deals = np.sort(g["deal"].unique())
    d_idx = np.searchsorted(deals, g["deal"].to_numpy())
    i = g["config"].map(pos).to_numpy()
    j = g["opponent"].map(pos).to_numpy()
    won = g["won"].to_numpy(dtype=float)
    W = np.zeros((len(deals), len(agents), len(agents)))
    np.add.at(W, (d_idx, i, j), won)
    np.add.at(W, (d_idx, j, i), 1 - won)
    return agents, W


def bt_fit(wins: np.ndarray, tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Maximum-likelihood Bradley–Terry ratings (natural-log scale, mean 0) from a matrix of
    wins ``wins[i, j]`` of i over j, by Newton's method on the log-likelihood
    ``Σ w_ij (r_i - r_j) - n_ij log(1 + exp(r_i - r_j))`` (pairs i < j). Raises
    `StatsError` when the maximum does not exist (an agent, or a group of agents, never lost
    or never won against the rest)."""
    w = np.asarray(wins, dtype=float)
    k = len(w)
    n = w + w.T
    _check_connected(w)
    r = np.zeros(k)
    for _ in range(max_iter):
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))        # P(i beats j)
        grad = (w - n * p).sum(axis=1)
        h = n * p * (1 - p)
        hess = np.diag(h.sum(axis=1)) - h                    # minus the Hessian (PSD)
        step = np.linalg.solve(hess + np.ones((k, k)) / k, grad)   # mean-zero gauge fixed
        r += step
        r -= r.mean()
        if np.max(np.abs(step)) < tol:
            return r
    raise StatsError(f"Bradley-Terry fit did not converge in {max_iter} Newton steps")


def _check_connected(w: np.ndarray) -> None:
    """The MLE exists iff every agent can reach every other through wins (Zermelo/Ford):
    the directed graph i → j when i beat j at least once is strongly connected."""
    k = len(w)
    beat = (w > 0)
    for graph in (beat, beat.T):
        seen = {0}
        todo = [0]
        while todo:
            i = todo.pop()
            for j in np.flatnonzero(graph[i]):
                if j not in seen:
                    seen.add(int(j))
                    todo.append(int(j))
        if len(seen) < k:
            raise StatsError("no finite Bradley-Terry ratings: some agents never beat (or never lost "
                             "to) the others; play more games or drop them")


def bradley_terry(games: pd.DataFrame, n_boot: int = 1000, seed: int = 0, alpha: float = 0.05,
                  agents: Optional[Sequence[str]] = None, prior: float = 0.0) -> pd.DataFrame:
    """Bradley–Terry ratings of a tournament's agents with a bootstrap over deals.

    Returns one row per agent (sorted by rating): ``rating`` (log-odds scale, mean 0;
    ``elo`` = 400/ln 10 × rating), percentile interval ``lo``/``hi`` (1 − ``alpha``: the
    resampled ratings at or just outside the α/2 and 1 − α/2 points, not interpolated),
    ``rank`` (1 = best) and ``P(rank=k)`` for every rank k: the share of ``n_boot``
    resamples of whole deals (every pair's games on a deal move together, so the pairing of
    the seat-swapped games is kept) in which the agent placed k-th (ties to the earlier
    agent). A resample without a finite fit ranks the agents by their share of the games
    they played in it: the best share counts as +inf, the worst as −inf, the others as 0
    (the scale's mean), in the rank probabilities and the intervals; the number of such
    resamples is ``attrs["boot_infinite"]``.

    ``prior`` > 0 adds that many virtual wins each way to every pair that met (shrinking
    the ratings toward 0; a tiny test-scale grid where an agent never won needs it); the
    default 0 is the plain maximum-likelihood fit."""
    names, W = win_counts(games, agents)
    if len(names) < 2:
        raise StatsError(f"Bradley-Terry needs at least two agents, got {names}")
    if prior < 0:
        raise StatsError(f"prior is a number of virtual games, got {prior}")
    met = (W.sum(axis=0) + W.sum(axis=0).T) > 0
    pseudo = prior * met
    r = bt_fit(W.sum(axis=0) + pseudo)
    rng = np.random.default_rng(seed)
    n_deals, k = W.shape[0], len(names)
    boot = np.empty((n_boot, k))
    infinite = 0
    flat = W.reshape(n_deals, -1)
    for b in range(n_boot):
        counts = np.bincount(rng.integers(0, n_deals, n_deals), minlength=n_deals)
        wb = (counts @ flat).reshape(k, k) + pseudo
        try:
            boot[b] = bt_fit(wb)
        except StatsError:
            infinite += 1
            share = wb.sum(axis=1) / np.maximum((wb + wb.T).sum(axis=1), 1)
            boot[b] = np.where(share == share.max(), np.inf, np.where(share == share.min(), -np.inf, 0.0))
    order = np.argsort(-boot, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(n_boot)[:, None], order] = np.arange(1, k + 1)
    # order statistics, not interpolated: between two infinite ratings an interpolation is NaN
    q: tuple[np.ndarray, np.ndarray] = (np.full(k, np.nan), np.full(k, np.nan))
    if n_boot:
        q = (np.quantile(boot, alpha / 2, axis=0, method="lower"),
             np.quantile(boot, 1 - alpha / 2, axis=0, method="higher"))
    out = pd.DataFrame({"rating": r, "lo": q[0], "hi": q[1]}, index=pd.Index(names, name="agent"))
    out["elo"] = out["rating"] * 400 / math.log(10)
    out["rank"] = out["rating"].rank(ascending=False, method="min").astype(int)
    for place in range(1, k + 1):
        out[f"P(rank={place})"] = (ranks == place).mean(axis=0) if n_boot else np.nan
    out = out.sort_values("rating", ascending=False)
    out.attrs.update({"n_boot": n_boot, "seed": seed, "deals": n_deals, "boot_infinite": infinite,
                      "alpha": alpha, "prior": prior})
    return out


__all__ = ["wilson", "t_interval", "mde", "n_needed", "holm", "both_sides", "per_deal", "paired_diff", "head_to_head",
           "unpaired_diff",
           "win_counts", "bt_fit", "bradley_terry", "StatsError", "interval_text", "verdict", "row_verdict",
           "target_verdict", "TARGET_WORDS", "EFFECT_WP", "METRICS", "PAIRED_COLUMNS"]
