"""Figures the notebooks share: one style, tournament heatmaps with intervals, bars with CIs.

A front end: it reads the frames `ddzlab.arena` returns (nothing below imports it).

* `style` (a context manager) and `use_style` (for a whole notebook): one font, size and
  palette everywhere.
* `bar_ci`: bars that start at 0 with their 95% intervals as error bars.
* `heatmap`: WP or ADP of every row agent against every column agent, each cell annotated
  with its value and interval, on a diverging colour map centred at 0.5 (WP) or 0 (ADP),
  with a colour bar; cells without games (an agent against itself, a pair not played) are
  hatched grey, which no value can look like.
* `tournament_heatmaps` (WP above ADP), `role_heatmaps` (landlord, farmers, combined on
  one scale), `role_bars` (one agent against each opponent, by role) and `time_per_move`;
  every figure fits the report's page width (`PAGE_WIDTH`) at any number of agents.
* `forest` (estimates with intervals, e.g. paired differences), `ratings` and
  `rank_probabilities` (a Bradley–Terry fit of `ddzlab.stats`).
* `decision_regions`: a two-class model's regions and boundary on a grid, the same pixels
  on every machine.

Every function is deterministic given its data; save figures with `ddzlab.config.savefig`.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional, Sequence, TypedDict

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

from .errors import DdzError

#: the colour map of both heatmaps (red: the row agent loses, blue: it wins)
CMAP = "RdBu"


class _Hatched(TypedDict):
    """The look of a cell without observations (keyword arguments of a matplotlib patch)."""
    facecolor: str
    edgecolor: str
    hatch: str
    linewidth: float


EMPTY: _Hatched = {"facecolor": "0.88", "edgecolor": "0.6", "hatch": "///", "linewidth": 0}
EMPTY_LABEL = "no games (an agent against itself, or not played)"
ROLE_TITLES = {"landlord": "row agent as landlord", "farmers": "row agent as farmers",
               "combined": "combined (deals as pairs)"}
METRIC_TITLES = {"WP": "WP (share of games won)", "ADP": "ADP (average points per game)"}
#: the widest figure (inches) the report shows without scaling it down: 990 px at 110 dpi
PAGE_WIDTH = 9.0


def _cell_inches(k: int) -> float:
    """Width of one heatmap cell so that ``k`` columns, labels and colour bar fit the page."""
    return min(1.4, (PAGE_WIDTH - 2.6) / max(k, 1))


def _rc() -> dict:
    import seaborn as sns
    rc = {**sns.axes_style("whitegrid"), **sns.plotting_context("notebook")}
    rc.update({
        "font.family": "DejaVu Sans",
        "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "xtick.labelsize": 9,
        "ytick.labelsize": 9, "legend.fontsize": 9, "legend.title_fontsize": 9,
        "figure.dpi": 110, "savefig.dpi": 110,
        "axes.spines.top": False, "axes.spines.right": False,
        "axes.prop_cycle": cycler(color=sns.color_palette("colorblind")),
        "errorbar.capsize": 3,
        "svg.hashsalt": "ddzlab",
    })
    return rc


@contextmanager
def style() -> Iterator[None]:
    """The figures' style for a ``with`` block: seaborn's white grid, one font and sizes,
    the colour-blind palette, capped error bars."""
    with plt.rc_context(_rc()):
        yield


def use_style() -> None:
    """Apply `style` to the rest of the session (call once at the top of a notebook)."""
    plt.rcParams.update(_rc())


def bar_ci(ax: Axes, labels: Sequence[str], values: Sequence[float], lo: Optional[Sequence[float]] = None,
           hi: Optional[Sequence[float]] = None, *, reference: Optional[float] = None, offset: float = 0.0,
           width: float = 0.8, horizontal: bool = False, **bar_kw) -> Axes:
    """Bars from 0 to ``values`` with the intervals ``[lo, hi]`` as error bars (none when
    not given); the value axis always includes 0 and every bar of every group (no truncated
    bars: the limits stay automatic, so a later, taller group widens them). ``reference``
    draws a dashed line (e.g. WP 0.5); ``offset`` and ``width`` place one group of grouped bars."""
    v = np.asarray(values, dtype=float)
    err = None
    if lo is not None and hi is not None:
        err = np.vstack([v - np.asarray(lo, dtype=float), np.asarray(hi, dtype=float) - v])
    ticks = np.arange(len(v))
    if horizontal:
        ax.barh(ticks + offset, v, width, xerr=err, **bar_kw)
        ax.set_yticks(ticks, labels)
        if reference is not None:
            ax.axvline(reference, color="0.3", linestyle="--", linewidth=1, zorder=0)
    else:
        ax.bar(ticks + offset, v, width, yerr=err, **bar_kw)
        ax.set_xticks(ticks, labels)
        if reference is not None:
            ax.axhline(reference, color="0.3", linestyle="--", linewidth=1, zorder=0)
    ax.autoscale_view()      # bars start at 0; fixed limits would clip a later, taller group
    return ax


def median_range(ax: Axes, frame: pd.DataFrame, x: str, y: str, hue: Optional[str] = None, *,
                 log: bool = False, points: bool = True, dodge: float = 0.0) -> Axes:
    """The median of ``y`` at each (numeric) ``x`` as a line with markers, the range
    (min to max) as error bars and, with ``points``, every observation as a faint dot; one
    line per ``hue`` level, with a legend. ``log`` puts ``y`` on a log axis (lines and dots
    only, never bars). ``dodge`` shifts the levels sideways by that much of x's step."""
    groups = [(None, frame)] if hue is None else list(frame.groupby(hue, sort=False))
    xs = np.sort(frame[x].unique())
    step = float(np.min(np.diff(xs))) if len(xs) > 1 else 1.0
    for i, (level, part) in enumerate(groups):
        shift = (i - (len(groups) - 1) / 2) * dodge * step
        stats = part.groupby(x)[y].agg(["median", "min", "max"]).sort_index()
        px = stats.index.to_numpy(dtype=float) + shift
        color = f"C{i}"
        if points:
            ax.scatter(part[x].to_numpy(dtype=float) + shift, part[y], s=9, alpha=0.25, color=color, lw=0)
        ax.errorbar(px, stats["median"], yerr=[stats["median"] - stats["min"], stats["max"] - stats["median"]],
                    marker="o", color=color, label=None if level is None else str(level))
    if log:
        ax.set_yscale("log")
    if hue is not None:
        ax.legend(title=hue, frameon=False)
    return ax


def box_groups(ax: Axes, groups: dict, *, log: bool = False, ylabel: str = "") -> Axes:
    """Box plots (median, quartiles, whiskers at 1.5 IQR, outliers shown) of several
    samples side by side, each box labelled with its name and sample size."""
    names = list(groups)
    data = [np.asarray(groups[n], dtype=float) for n in names]
    ax.boxplot(data, widths=0.6, showfliers=True, flierprops={"markersize": 3, "alpha": 0.5})
    ax.set_xticks(range(1, len(names) + 1), [f"{n}\n(n={len(d)})" for n, d in zip(names, data)])
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    return ax


def share_heatmap(ax: Axes, share: pd.DataFrame, counts: pd.DataFrame, *, label: str = "share",
                  cmap: str = "RdBu_r") -> Axes:
    """A grid of shares (0..1) with each cell's count written in it; cells with no
    observations are hatched grey (no share can look like them) and named in a legend."""
    values = share.to_numpy(dtype=float)
    n = counts.reindex(index=share.index, columns=share.columns).fillna(0).to_numpy(dtype=int)
    image = ax.imshow(np.ma.masked_invalid(values), origin="lower", cmap=cmap, vmin=0, vmax=1, aspect="auto")
    ax.grid(False)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if n[i, j] == 0 or not np.isfinite(values[i, j]):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, gid="empty-cell", **EMPTY))
                continue
            ink = "white" if abs(values[i, j] - 0.5) > 0.3 else "black"
            ax.text(j, i, f"{values[i, j]:.0%}\nn={n[i, j]}", ha="center", va="center", fontsize=8, color=ink)
    tick = lambda v: f"{v:g}" if isinstance(v, (int, float, np.number)) else str(v)   # 2.0 -> "2"
    ax.set_xticks(range(values.shape[1]), [tick(c) for c in share.columns])
    ax.set_yticks(range(values.shape[0]), [tick(r) for r in share.index])
    bar = ax.figure.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
    bar.set_label(label)
    if (n == 0).any():
        ax.legend(handles=[Patch(label="no hands", **EMPTY)], loc="upper center", bbox_to_anchor=(0.5, -0.15),
                  frameon=False)
    return ax


def decision_regions(ax: Axes, x: np.ndarray, y: np.ndarray, decision: np.ndarray, *,
                     colors: Sequence[str] = ("#4393c3", "#d6604d"), alpha: float = 0.18,
                     line_color: str = "k", linewidth: float = 1.0, decimals: int = 6) -> Axes:
    """A two-class model's decision regions on a grid (``x``, ``y`` from `numpy.meshgrid`;
    ``decision`` its values there, > 0 for the second class) and the boundary between them.

    The same pixels on every machine: a decision computed through another BLAS differs in
    its last bits, and a contour drawn through such values moves with every bit, which
    anti-aliasing shows (``01_decision_boundary.png`` changed from machine to machine). So the regions are filled
    from the sign of ``decision`` at the grid points (``colors[0]`` where it is <= 0,
    ``colors[1]`` where > 0), and the boundary is the zero contour of ``decision`` rounded to
    ``decimals`` places: bit-identical input, hence identical vertices and pixels, unless a
    value lies within its last bits of a rounding step."""
    value = np.asarray(decision, dtype=float)
    side = (value > 0).astype(float)
    ax.contourf(x, y, side, levels=[-0.5, 0.5, 1.5], colors=list(colors), alpha=alpha)
    if 0 < side.sum() < side.size:
        ax.contour(x, y, np.round(value, decimals), levels=[0], colors=line_color, linewidths=linewidth)
    return ax


def against_truth(ax: Axes, truth: Sequence[float], value: Sequence[float], label: str, *,
                  jitter: float = 0.12, seed: int = 0, color: str = "C0") -> Axes:
    """A lower bound against the true value it bounds, one dot per case (seeded jitter),
    with the line value = truth: admissible means no dot above the line."""
    t, v = np.asarray(truth, dtype=float), np.asarray(value, dtype=float)
    rng = np.random.default_rng(seed)
    ax.scatter(t + rng.uniform(-jitter, jitter, len(t)), v + rng.uniform(-jitter, jitter, len(v)),
               s=10, alpha=0.5, color=color, label=label)
    top = float(max(t.max(), v.max())) + 0.5 if len(t) else 1.0
    ax.plot([0, top], [0, top], color="0.3", ls="--", lw=1, label="bound = true value")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    return ax


def _agents(table: pd.DataFrame, agents: Optional[Sequence[str]]) -> list[str]:
    if agents is not None:
        return list(agents)
    if table.attrs.get("agents"):
        return list(table.attrs["agents"])
    return list(dict.fromkeys([*table.a, *table.b]))


def _grids(table: pd.DataFrame, metric: str, role: str, agents: list[str]) -> tuple[np.ndarray, ...]:
    part = table[table.role == role]
    if part.duplicated(["a", "b"]).any():
        raise DdzError(f"the table has several {role!r} rows for one pair (a, b)")
    return tuple(part.pivot(index="a", columns="b", values=col).reindex(index=agents, columns=agents)
                 .to_numpy(dtype=float) for col in (metric, f"{metric}_lo", f"{metric}_hi"))


def _norm(metric: str, grids: Sequence[np.ndarray]) -> Normalize:
    """WP: 0..1 centred at 0.5. ADP: symmetric around 0, wide enough for every interval."""
    if metric == "WP":
        return TwoSlopeNorm(vcenter=0.5, vmin=0.0, vmax=1.0)
    finite = np.concatenate([g[np.isfinite(g)] for g in grids])
    lim = float(np.max(np.abs(finite))) if finite.size else 1.0
    lim = lim if lim > 0 else 1.0
    return TwoSlopeNorm(vcenter=0.0, vmin=-lim, vmax=lim)


def _fmt(metric: str, x: float) -> str:
    return f"{x:.2f}" if metric == "WP" else f"{x:+.2f}"


def heatmap(table: pd.DataFrame, metric: str = "WP", role: str = "combined", *, ax: Optional[Axes] = None,
            agents: Optional[Sequence[str]] = None, norm: Optional[Normalize] = None,
            colorbar: bool = True, legend: bool = True, title: Optional[str] = None) -> Axes:
    """``metric`` (WP or ADP) of each row agent against each column agent in ``role``, from a
    `ddzlab.arena.tournament` frame. Cells show the value and its 95% interval; cells without
    games are hatched grey (and named in a legend)."""
    if metric not in METRIC_TITLES:
        raise DdzError(f"metric must be one of {list(METRIC_TITLES)}, got {metric!r}")
    if role not in ROLE_TITLES:
        raise DdzError(f"role must be one of {list(ROLE_TITLES)}, got {role!r}")
    agents = _agents(table, agents)
    value, lo, hi = _grids(table, metric, role, agents)
    norm = norm or _norm(metric, (value, lo, hi))
    k = len(agents)
    if ax is None:
        cell = _cell_inches(k)
        _, ax = plt.subplots(figsize=(cell * k + 2.6, 0.75 * cell * k + 1.6))
    cmap = mpl.colormaps[CMAP]
    fontsize = 8.5 if k <= 6 else 7.0
    image = ax.imshow(np.ma.masked_invalid(value), cmap=cmap, norm=norm, aspect="auto")
    ax.grid(False)
    for i in range(len(agents)):
        for j in range(len(agents)):
            if not np.isfinite(value[i, j]):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, gid="empty-cell", **EMPTY))
                continue
            shade = norm(value[i, j])
            ink = "white" if abs(shade - 0.5) > 0.3 else "black"
            text = _fmt(metric, value[i, j])
            if np.isfinite(lo[i, j]) and np.isfinite(hi[i, j]):      # (no interval from one deal)
                text += f"\n[{_fmt(metric, lo[i, j])}, {_fmt(metric, hi[i, j])}]"
            ax.text(j, i, text, ha="center", va="center", color=ink, fontsize=fontsize, gid="cell-value")
    ax.set_xticks(range(len(agents)), agents, rotation=30, ha="right")
    ax.set_yticks(range(len(agents)), agents)
    ax.set_xlabel("opponent (B)")
    ax.set_ylabel("agent (A)")
    ax.set_xlim(-0.5, len(agents) - 0.5)
    ax.set_ylim(len(agents) - 0.5, -0.5)
    ax.set_title(title or f"{metric} of A against B, {ROLE_TITLES[role]}")
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
        bar.set_label(METRIC_TITLES[metric] + " of A")
    if legend and not np.isfinite(value).all():
        ax.legend(handles=[Patch(label=EMPTY_LABEL, **EMPTY)], loc="upper center",
                  bbox_to_anchor=(0.5, -0.22), frameon=False)
    return ax


def tournament_heatmaps(table: pd.DataFrame, role: str = "combined",
                        agents: Optional[Sequence[str]] = None) -> Figure:
    """WP and ADP heatmaps of a tournament, one above the other (`heatmap`), at most
    `PAGE_WIDTH` wide."""
    agents = _agents(table, agents)
    k = len(agents)
    cell = _cell_inches(k)
    with style():
        fig, axes = plt.subplots(2, 1, figsize=(cell * k + 2.6, 2 * (0.75 * cell * k + 1.7)), layout="constrained")
        for ax, metric in zip(axes, ("WP", "ADP")):
            heatmap(table, metric, role, ax=ax, agents=agents, legend=metric == "WP")
    return fig


def role_heatmaps(table: pd.DataFrame, metric: str = "WP", agents: Optional[Sequence[str]] = None) -> Figure:
    """One `heatmap` per role (A as landlord, as farmers, combined) on one colour scale,
    one above the other, at most `PAGE_WIDTH` wide."""
    agents = _agents(table, agents)
    k = len(agents)
    grids = [g for role in ROLE_TITLES for g in _grids(table, metric, role, agents)]
    norm = _norm(metric, grids)
    cell = _cell_inches(k)
    with style():
        fig, axes = plt.subplots(3, 1, figsize=(cell * k + 2.6, 3 * (0.75 * cell * k + 1.5)), layout="constrained")
        for i, (ax, role) in enumerate(zip(axes, ROLE_TITLES)):
            heatmap(table, metric, role, ax=ax, agents=agents, norm=norm, colorbar=False,
                    legend=i == 2, title=ROLE_TITLES[role])
            if i < 2:
                ax.set_xlabel("")
        bar = fig.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=CMAP), ax=list(axes), fraction=0.03)
        bar.set_label(METRIC_TITLES[metric] + " of A")
        fig.suptitle(f"{metric} of A (rows) against B (columns) by A's role")
    return fig


def role_bars(table: pd.DataFrame, agent: str, metric: str = "WP",
              opponents: Optional[Sequence[str]] = None) -> Figure:
    """``agent``'s WP or ADP against each opponent, one bar per role, with 95% intervals."""
    rows = table[table.a == agent]
    if not len(rows):
        raise DdzError(f"no rows for agent {agent!r} in the table")
    opponents = [o for o in (opponents or _agents(table, None)) if o != agent and (rows.b == o).any()]
    roles = list(ROLE_TITLES)
    width = 0.8 / len(roles)
    with style():
        fig, ax = plt.subplots(figsize=(1.6 * len(opponents) + 2.5, 3.6), layout="constrained")
        for r, role in enumerate(roles):
            part = rows[rows.role == role].set_index("b").reindex(opponents)
            bar_ci(ax, opponents, *(part[c] for c in (metric, f"{metric}_lo", f"{metric}_hi")),
                   offset=(r - (len(roles) - 1) / 2) * width, width=width, label=role,
                   reference=(0.5 if metric == "WP" else None) if r == 0 else None)
        if metric == "WP":
            ax.set_ylim(0.0, max(1.0, ax.get_ylim()[1]))
        ax.set_xlabel("opponent")
        ax.set_ylabel(METRIC_TITLES[metric])
        ax.set_title(f"{agent}: {metric} by role (95% CI)")
        ax.legend(title=f"{agent} as", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def time_per_move(table: pd.DataFrame, ax: Optional[Axes] = None) -> Axes:
    """Each agent's milliseconds per move in a tournament (`ddzlab.arena.seconds_per_move`),
    horizontal bars from 0 labelled with their values (wall clock: compare agents measured
    in the same run, not across machines)."""
    from .arena import seconds_per_move
    ms = seconds_per_move(table) * 1e3
    with style():
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.45 * len(ms) + 1.4), layout="constrained")
        bar_ci(ax, list(ms.index), ms.to_numpy(), horizontal=True, color="C0")
        for i, v in enumerate(ms):
            ax.text(v, i, f" {v:.3g} ms", va="center", ha="left", fontsize=9, gid="bar-value")
        ax.invert_yaxis()
        ax.set_xlim(0, 1.25 * float(np.nanmax(ms.to_numpy())) if np.isfinite(ms).any() else 1.0)
        ax.set_xlabel("milliseconds per move (time inside the agent's play call)")
        ax.set_title("Time per move")
    return ax



# -- MCTS study (notebook 05) -----------------------------------------------------------------
def wp_points(df, label: str = "config", group: Optional[str] = None, ax=None, title: str = ""):
    """WP with its 95% interval per row of ``df`` (columns ``label``, WP, WP_lo, WP_hi and
    optionally ``group``), as points with error bars on a 0..1 axis with the 0.5 line."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 0.35 * len(df) + 1.2))
    groups = [None] if group is None else list(dict.fromkeys(df[group]))
    n = len(df)
    y = 0
    ticks, labels = [], []
    for gi, g in enumerate(groups):
        part = df if g is None else df[df[group] == g]
        ys = [n - 1 - (y + i) for i in range(len(part))]
        ax.errorbar(part.WP, ys, xerr=[part.WP - part.WP_lo, part.WP_hi - part.WP], fmt="o",
                    capsize=3, color=f"C{gi}", label=None if g is None else str(g))
        ticks += ys
        labels += [str(v) for v in part[label]]
        y += len(part)
    ax.axvline(0.5, color="0.5", lw=1, ls="--")
    ax.set_xlim(0, 1)
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels)
    ax.set_xlabel("WP against the fixed opponent (95% CI)")
    if title:
        ax.set_title(title)
    if group is not None:
        ax.legend(loc="lower right")
    return ax


def wp_lines(df, x: str, hue: Optional[str] = None, ax=None, title: str = "",
             logx: bool = True, ylim: tuple = (0, 1)):
    """WP against ``x`` (one line per ``hue``) with its 95% interval as a band."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.6))
    for i, (name, part) in enumerate([(None, df)] if hue is None else df.groupby(hue, sort=False)):
        part = part.sort_values(x)
        ax.plot(part[x], part.WP, "o-", color=f"C{i}", label=None if name is None else str(name))
        ax.fill_between(part[x], part.WP_lo, part.WP_hi, color=f"C{i}", alpha=0.2, lw=0)
    if logx:
        ax.set_xscale("log", base=2)
        xs = np.sort(pd.unique(df[x]))
        ax.set_xticks(xs, [f"{v:g}" for v in xs])        # the values run, not powers of 2
        ax.minorticks_off()
    ax.axhline(0.5, color="0.5", lw=1, ls="--")
    ax.set_ylim(*ylim)
    ax.set_xlabel(x)
    ax.set_ylabel("WP (95% CI)")
    if title:
        ax.set_title(title)
    if hue is not None:
        ax.legend()
    return ax


def accuracy_curves(df, ax=None, title: str = ""):
    """Guess accuracy (share of hidden cards placed right) against the share of the game
    played, one line per guesser, with 95% intervals (columns guesser, progress, mean, lo, hi)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.6))
    for i, (name, part) in enumerate(df.groupby("guesser", sort=False)):
        part = part.sort_values("progress")
        ax.plot(part.progress, part["mean"], "o-", color=f"C{i}", label=str(name))
        ax.fill_between(part.progress, part.lo, part.hi, color=f"C{i}", alpha=0.2, lw=0)
    ax.set_xlim(0, 1)                # the y axis follows the data: lines, not bars, so no need for 0
    ax.set_xlabel("share of the cards played so far")
    ax.set_ylabel("hidden cards placed right")
    if title:
        ax.set_title(title)
    ax.legend()
    return ax


# -- Q-learning training (notebook 04) -------------------------------------------------
def training_curves(history: pd.DataFrame, label: str = "") -> Figure:
    """WP and ADP against games trained, by role, with their 95% bands: the rows of
    `ddzlab.qtraining.train`'s history (``wp_landlord``, ``wp_landlord_lo`` ...)."""
    with style():
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
        x = history["games"].to_numpy()
        for ax, metric in zip(axes, ("wp", "adp")):
            for i, role in enumerate(("landlord", "farmers", "combined")):
                col = f"{metric}_{role}"
                ax.plot(x, history[col], marker="o", ms=3, color=f"C{i}", label=role)
                ax.fill_between(x, history[f"{col}_lo"], history[f"{col}_hi"], color=f"C{i}",
                                alpha=0.18, linewidth=0)
            ax.set_xlabel("games trained")
            if metric == "wp":
                ax.set_ylim(0, 1)
                ax.axhline(0.5, color="0.3", linestyle="--", linewidth=1, zorder=0)
                ax.set_ylabel("WP (share of games won)")
            else:
                ax.axhline(0.0, color="0.3", linestyle="--", linewidth=1, zorder=0)
                ax.set_ylabel("ADP (points per game)")
            ax.set_title(f"{metric.upper()} by role{f' — {label}' if label else ''} (95% band)")
        axes[0].legend(title="table as", loc="lower right")
    return fig


def coverage_curves(history: pd.DataFrame) -> Axes:
    """Share of the lead and follow tables' states visited against games trained."""
    with style():
        fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
        for i, name in enumerate(("lead", "follow")):
            ax.plot(history["games"], history[f"coverage_{name}"], marker="o", ms=3,
                    color=f"C{i}", label=f"{name} table")
        ax.set_ylim(0, max(0.05, float(history[["coverage_lead", "coverage_follow"]].max().max()) * 1.1))
        ax.set_xlabel("games trained")
        ax.set_ylabel("share of states visited")
        ax.set_title("Table coverage")
        ax.legend()
    return ax


def runs_strip(df: pd.DataFrame, value: str = "total_win_rate", group: str = "variant",
               reference: Optional[float] = None, ax: Optional[Axes] = None,
               games: Optional[int] = None) -> Axes:
    """One dot per training run and the mean with its 95% t interval per variant
    (`ddzlab.stats.t_interval`: a few runs need t, not z), on a 0–1 axis. ``games``: the
    number of evaluation games every run was scored on (the same games for each run): their
    noise, ``p(1-p)/games``, is added to the interval, which the runs' spread lacks."""
    from .stats import t_interval
    with style():
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 0.5 * df[group].nunique() + 1.6), layout="constrained")
        names = list(dict.fromkeys(df[group]))
        for i, name in enumerate(names):
            v = df.loc[df[group] == name, value].to_numpy(float)
            ax.plot(v, np.full(len(v), i), "o", color="C0", alpha=0.6, ms=5)
            m = v.mean()
            if len(v) > 1:
                extra = m * (1 - m) / games if games else 0.0
                _, lo, hi = t_interval(v, extra_var=extra)
                err = [[m - lo], [hi - m]]
            else:
                err = [[0.0], [0.0]]
            ax.errorbar([m], [i], xerr=err, fmt="D", color="C3", ms=6, capsize=4)
        if reference is not None:
            ax.axvline(reference, color="0.3", linestyle="--", linewidth=1, zorder=0)
        ax.set_yticks(range(len(names)), names)
        ax.set_xlim(0, 1)
        ax.invert_yaxis()
        ax.set_xlabel(value.replace("_", " "))
    return ax


def delta_panels(deltas: pd.DataFrame, opponents: Sequence[str], effect: float = 0.03,
                 value: str = "delta", series: str = "train_opponent") -> Figure:
    """Paired differences against training games, one panel per evaluation opponent
    (`ddzlab.qstudy.checkpoint_deltas`): a line per training setup with its intervals, the
    untrained prior at 0 games (the difference is 0 by definition), and a band of ±``effect``
    around 0 (the effect that matters). Training games are equally spaced categories."""
    games = sorted({0, *deltas["games"].astype(int)})
    pos = {g: i for i, g in enumerate(games)}
    names = list(dict.fromkeys(deltas[series]))
    with style():
        ncols = len(opponents) if len(opponents) <= 2 else 2
        nrows = -(-len(opponents) // ncols)
        fig, axes = plt.subplots(nrows, ncols, figsize=(PAGE_WIDTH, 3.1 * nrows + 0.5),
                                 layout="constrained", sharey=True, squeeze=False)
        flat = axes.ravel()
        for ax in flat[len(opponents):]:
            ax.set_visible(False)
        for ax, opp in zip(flat, opponents):
            part = deltas[deltas["opponent"] == opp]
            ax.axhspan(-effect, effect, color="0.9", zorder=0,
                       label=f"±{effect:g} (the effect that matters)")
            ax.axhline(0, color="0.3", linewidth=1, zorder=1)
            for k, name in enumerate(names):
                d = part[part[series] == name].sort_values("games")
                if d.empty:
                    continue
                shift = (k - (len(names) - 1) / 2) * 0.08
                x = [pos[0] + shift] + [pos[int(g)] + shift for g in d["games"]]
                y = [0.0] + list(d[value])
                ax.plot(x, y, marker="o", ms=4, color=f"C{k}", label=name)
                ax.errorbar(x[1:], y[1:], yerr=[d[value] - d["lo"], d["hi"] - d[value]],
                            fmt="none", ecolor=f"C{k}", capsize=3, linewidth=1)
            ax.set_xticks(range(len(games)), ["prior" if g == 0 else f"{g / 1000:g}k" for g in games])
            ax.set_title(f"against {opp}")
            ax.set_xlabel("training games")
        for row in axes:
            row[0].set_ylabel("ΔWP, checkpoint − prior")
        flat[0].legend(loc="best", fontsize="x-small", title="trained against",
                       title_fontsize="x-small")
    return fig


def protocol_pairs(runs: pd.DataFrame, players: Sequence[str], labels: Sequence[str],
                   ax: Optional[Axes] = None,
                   intervals: Optional[dict[str, tuple[float, float, float]]] = None) -> Axes:
    """The players' total win rates in du-guai's protocol, one column per run (its own
    protocol seed), the players of a run joined (they met the same games), with a legend.
    ``intervals`` (player -> (mean, lo, hi), e.g. t intervals over the runs) adds a last
    column, "mean", with each player's mean over the runs and its interval."""
    with style():
        if ax is None:
            _, ax = plt.subplots(figsize=(min(7, PAGE_WIDTH), 3.6), layout="constrained")
        x = np.arange(len(runs))
        for k, (p, label) in enumerate(zip(players, labels)):
            ax.plot(x, runs[p], marker="os^D"[k % 4], linestyle="none", color=f"C{k}", label=label)
        for i, (_, row) in enumerate(runs.iterrows()):
            vals = [row[p] for p in players]
            ax.plot([i] * len(vals), vals, color="0.75", linewidth=1, zorder=0)
        for k, p in enumerate(players):
            ax.axhline(float(runs[p].mean()), color=f"C{k}", linestyle=":", linewidth=1)
        ticks, names = [float(i) for i in x], [str(s) for s in runs["protocol_seed"]]
        if intervals:
            where = len(runs) + 0.5
            for k, p in enumerate(players):
                if p not in intervals:
                    continue
                m, lo, hi = intervals[p]
                xk = where + (k - (len(players) - 1) / 2) * 0.22
                ax.errorbar([xk], [m], yerr=[[m - lo], [hi - m]], fmt="os^D"[k % 4], color=f"C{k}",
                            capsize=4, linewidth=1.5)
            ax.axvline(len(runs) - 0.25, color="0.6", linewidth=1)
            ticks.append(where)
            names.append("mean")
        ax.set_xticks(ticks, names)
        ax.set_xlabel("protocol seed (one training run each)")
        ax.set_ylabel("total win rate (du-guai's count)")
        ax.legend(loc="best", fontsize="small")
    return ax


def coverage_loglog(summary: pd.DataFrame, ax: Optional[Axes] = None) -> Axes:
    """States of the lead and follow tables visited at least once against training games,
    both axes logarithmic (the lead table's share stays below 1%, a flat line on a linear
    axis), one line per training opponent (mean over runs, the runs as dots)."""
    with style():
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 3.8), layout="constrained")
        for k, (opp, part) in enumerate(summary.groupby("train_opponent", sort=False)):
            for table, ls in (("lead", "-"), ("follow", "--")):
                col = f"{table}_states"
                ax.plot(part["games"], part[col], "o", color=f"C{k}", ms=3, alpha=0.4)
                mean = part.groupby("games")[col].mean()
                ax.plot(mean.index, mean.to_numpy(), ls, color=f"C{k}",
                        label=f"{table} table, trained against {opp}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("training games")
        ax.set_ylabel("states visited at least once")
        ax.legend(fontsize="x-small", loc="best")
    return ax


#: where `label_points` tries a label, in points from its point: near first, then further out
_LABEL_OFFSETS = [(dx * r, dy * r) for r in (1, 2, 3, 4.5) for dx, dy in
                  ((5, 4), (5, -5), (-5, 4), (-5, -5), (0, 8), (0, -9), (8, 0), (-8, 0))]


def label_points(ax: Axes, x: Sequence[float], y: Sequence[float], labels: Sequence[str], *,
                 colors: Optional[Sequence[str]] = None, fontsize: float = 7,
                 obstacles: Sequence[tuple[float, float, float, float]] = (), pad: float = 1.5) -> list[Annotation]:
    """Label each point (x, y) with its text so that no two labels overlap, and no label
    covers a point, one of the ``obstacles`` (data rectangles (x0, y0, x1, y1), e.g. error
    bars, widened by 3.5 points each side for their caps) or leaves the axes. Each label takes the first free place of a fixed list of
    offsets (near first; above-right, below-right, above-left, ...); a label that finds none
    takes the place that overlaps least, with a thin line to its point. Deterministic; call
    it after the axes' limits are final (it draws the figure once to measure the texts).
    Returns the annotations."""
    fig = ax.figure
    fig.canvas.draw()
    frame = ax.get_window_extent()          # (measured with the figure's own renderer, that draw's)
    px = fig.dpi / 72.0
    blocked: list[Bbox] = []
    for xi, yi in zip(x, y):
        cx, cy = ax.transData.transform((xi, yi))
        blocked.append(Bbox.from_extents(cx - 4 * px, cy - 4 * px, cx + 4 * px, cy + 4 * px))
    for x0, y0, x1, y1 in obstacles:
        (ax0, ay0), (ax1, ay1) = ax.transData.transform([(x0, y0), (x1, y1)])
        blocked.append(Bbox.from_extents(min(ax0, ax1) - 3.5 * px, min(ay0, ay1) - 1.5 * px,
                                         max(ax0, ax1) + 3.5 * px, max(ay0, ay1) + 1.5 * px))

    def overlap(a: Bbox, b: Bbox) -> float:
        w = min(a.x1, b.x1) - max(a.x0, b.x0)
        h = min(a.y1, b.y1) - max(a.y0, b.y0)
        return w * h if w > 0 and h > 0 else 0.0

    placed: list[Bbox] = []
    out: list[Annotation] = []
    order = sorted(range(len(labels)), key=lambda i: (x[i], y[i]))
    for i in order:
        color = None if colors is None else colors[i]
        best: Optional[tuple[float, Annotation, Bbox, tuple[float, float]]] = None
        for dx, dy in _LABEL_OFFSETS:
            ha = "left" if dx > 0 else "right" if dx < 0 else "center"
            va = "bottom" if dy > 0 else "top" if dy < 0 else "center"
            ann = ax.annotate(labels[i], (x[i], y[i]), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va,
                              fontsize=fontsize, color=color)
            box = ann.get_window_extent().padded(pad * px)
            inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1)
            cost = sum(overlap(box, b) for b in placed + blocked) + (0.0 if inside else 1e9)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, ann, box, (dx, dy))
            else:
                ann.remove()
            if cost == 0:
                break
        assert best is not None                 # (the list of offsets is not empty)
        cost, ann, box, (dx, dy) = best
        if cost > 0 or abs(dx) + abs(dy) > 20:
            ann.remove()
            ann = ax.annotate(labels[i], (x[i], y[i]), xytext=(dx, dy), textcoords="offset points",
                              ha=ann.get_horizontalalignment(), va=ann.get_verticalalignment(), fontsize=fontsize, color=color,
                              arrowprops={"arrowstyle": "-", "color": color or "0.4", "lw": 0.5,
                                          "shrinkA": 0, "shrinkB": 3})
        placed.append(box)
        out.append(ann)
    return out


def forest(ax: Axes, labels: Sequence[str], estimate: Sequence[float], lo: Sequence[float],
           hi: Sequence[float], *, reference: Optional[float] = 0.0, marks: Optional[Sequence[bool]] = None,
           mark_label: str = "significant after Holm") -> Axes:
    """Estimates with their intervals, one row each, top to bottom (a forest plot), a dashed
    ``reference`` line; ``marks`` fills the markers of the rows it flags (e.g. significant
    after a multiple-comparison correction) and says so in a legend."""
    est, lo_, hi_ = (np.asarray(v, dtype=float) for v in (estimate, lo, hi))
    y = np.arange(len(est))
    flags = np.zeros(len(est), bool) if marks is None else np.asarray(marks, bool)
    ax.errorbar(est, y, xerr=np.vstack([est - lo_, hi_ - est]), fmt="none", ecolor="C0", capsize=3)
    ax.plot(est[~flags], y[~flags], "o", mfc="white", mec="C0", ms=6, label=None if marks is None else "not significant")
    ax.plot(est[flags], y[flags], "o", color="C0", ms=6, label=mark_label if marks is not None else None)
    if reference is not None:
        ax.axvline(reference, color="0.3", linestyle="--", linewidth=1, zorder=0)
    ax.set_yticks(y, labels)
    ax.set_ylim(len(est) - 0.5, -0.5)
    if marks is not None:
        ax.legend(loc="lower right", frameon=True, fontsize=8)
    return ax


def ratings(bt: pd.DataFrame, ax: Optional[Axes] = None) -> Axes:
    """Bradley–Terry ratings (`ddzlab.stats.bradley_terry`, Elo scale) with their bootstrap
    intervals, best on top."""
    scale = 400 / np.log(10)
    with style():
        if ax is None:
            _, ax = plt.subplots(figsize=(7, 0.42 * len(bt) + 1.2), layout="constrained")
        forest(ax, list(bt.index), bt["rating"] * scale, bt["lo"] * scale, bt["hi"] * scale, reference=0.0)
        level = 100 * (1 - bt.attrs.get("alpha", 0.05))
        ax.set_xlabel(f"Bradley–Terry rating (Elo points, mean 0; {level:.0f}% bootstrap interval over deals)")
    return ax


def rank_probabilities(bt: pd.DataFrame, ax: Optional[Axes] = None) -> Axes:
    """Each agent's probability of each place (rows: agents by rating; columns: places),
    from the bootstrap of `ddzlab.stats.bradley_terry`, annotated where at least 0.01."""
    cols = [c for c in bt.columns if c.startswith("P(rank=")]
    p = bt[cols].to_numpy(dtype=float)
    k = len(bt)
    with style():
        if ax is None:
            cell = min(0.8, (PAGE_WIDTH - 2.6) / max(k, 1))
            _, ax = plt.subplots(figsize=(cell * k + 2.6, 0.6 * cell * k + 1.4), layout="constrained")
        image = ax.imshow(p, cmap="Blues", vmin=0, vmax=1, aspect="auto")
        ax.grid(False)
        for i in range(k):
            for j in range(len(cols)):
                if p[i, j] >= 0.005:
                    ax.text(j, i, f"{p[i, j]:.2f}", ha="center", va="center", fontsize=8,
                            color="white" if p[i, j] > 0.6 else "black", gid="cell-value")
        ax.set_xticks(range(len(cols)), [str(j + 1) for j in range(len(cols))])
        ax.set_yticks(range(k), list(bt.index))
        ax.set_xlabel("place in the ranking")
        bar = ax.figure.colorbar(image, ax=ax, fraction=0.05, pad=0.03)
        bar.set_label("probability (bootstrap)")
    return ax


__all__ = ["style", "use_style", "bar_ci", "median_range", "box_groups", "against_truth", "share_heatmap", "heatmap", "tournament_heatmaps", "role_heatmaps", "role_bars",
           "time_per_move", "CMAP", "wp_points", "wp_lines", "accuracy_curves", "training_curves",
           "coverage_curves", "runs_strip", "forest", "ratings", "rank_probabilities", "PAGE_WIDTH",
           "delta_panels", "protocol_pairs", "coverage_loglog", "label_points"]
