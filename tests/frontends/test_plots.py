"""ddzlab.plots: what the tournament figures hold (cells, intervals, colour bar, empty cells)."""
from __future__ import annotations

import io

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ddzlab import plots
from ddzlab.arena import seconds_per_move, tournament
from ddzlab.errors import DdzError

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

AGENTS = ["random", "smallest", "greedy"]


@pytest.fixture(scope="module")
def table():
    return tournament(AGENTS, 4, progress=False, seed=1)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def cells(ax):
    return [t for t in ax.texts if t.get_gid() == "cell-value"]


def empty(ax):
    return [p for p in ax.patches if p.get_gid() == "empty-cell"]


def colorbars(fig):
    return [a for a in fig.axes if a.get_label() == "<colorbar>"]


@pytest.mark.parametrize("metric", ["WP", "ADP"])
def test_heatmap_annotates_every_pair_and_hatches_the_rest(table, metric):
    ax = plots.heatmap(table, metric)
    assert len(cells(ax)) == 3 * 2 and len(empty(ax)) == 3          # the diagonal is empty
    assert all(p.get_hatch() for p in empty(ax))
    assert {(round(p.get_x() + 0.5), round(p.get_y() + 0.5)) for p in empty(ax)} == {(0, 0), (1, 1), (2, 2)}
    row = table[(table.a == "greedy") & (table.b == "random") & (table.role == "combined")].iloc[0]
    text = {(t.get_position()): t.get_text() for t in cells(ax)}[(0, 2)]   # column random, row greedy
    fmt = "{:.2f}" if metric == "WP" else "{:+.2f}"
    assert text == f"{fmt.format(row[metric])}\n[{fmt.format(row[metric + '_lo'])}, {fmt.format(row[metric + '_hi'])}]"
    (bar,) = colorbars(ax.figure)
    assert metric in bar.get_ylabel()
    norm = ax.images[0].norm
    assert norm.vcenter == (0.5 if metric == "WP" else 0.0)
    assert norm.vmin == -norm.vmax if metric == "ADP" else (norm.vmin, norm.vmax) == (0.0, 1.0)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [plots.EMPTY_LABEL]
    assert [t.get_text() for t in ax.get_yticklabels()] == AGENTS


def test_a_missing_pair_is_an_empty_cell_not_a_value(table):
    partial = table[~((table.a == "smallest") & (table.b == "greedy"))]
    ax = plots.heatmap(partial, "WP", "landlord")
    assert len(cells(ax)) == 5 and len(empty(ax)) == 4
    assert np.ma.is_masked(ax.images[0].get_array()[1, 2])
    assert not np.ma.is_masked(ax.images[0].get_array()[2, 1])


def test_one_deal_has_no_adp_interval_to_show():
    ax = plots.heatmap(tournament(["random", "smallest"], 1, progress=False), "ADP")
    texts = [t.get_text() for t in cells(ax)]
    assert len(texts) == 2 and all("\n" not in t and "nan" not in t for t in texts)


def test_tournament_and_role_figures(table):
    fig = plots.tournament_heatmaps(table)
    wp, adp = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    assert len(cells(wp)) == len(cells(adp)) == 6 and len(colorbars(fig)) == 2
    fig = plots.role_heatmaps(table, "ADP")
    panels = [a for a in fig.axes if a.get_label() != "<colorbar>"]
    assert [a.get_title() for a in panels] == [plots.ROLE_TITLES[r] for r in ("landlord", "farmers", "combined")]
    assert len(colorbars(fig)) == 1 and all(len(cells(a)) == 6 for a in panels)
    assert len({id(a.images[0].norm) for a in panels}) == 1                   # one colour scale


def test_role_bars_start_at_zero_with_intervals(table):
    fig = plots.role_bars(table, "greedy", "ADP")
    (ax,) = fig.axes
    assert len(ax.patches) == 3 * 2                                           # 3 roles x 2 opponents
    low, high = ax.get_ylim()
    assert low <= 0 <= high
    assert all(b.get_y() == 0 for b in ax.patches)                            # bars start at 0
    assert len(ax.containers) == 3 * 2 and [t.get_text() for t in ax.get_legend().get_texts()] == \
        ["landlord", "farmers", "combined"]
    rows = table[(table.a == "greedy") & (table.role == "farmers")].set_index("b")
    errorbars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    segment = errorbars[1].lines[2][0].get_segments()[0]       # farmers' interval against random
    assert [y for _, y in segment] == pytest.approx([rows.loc["random", "ADP_lo"], rows.loc["random", "ADP_hi"]])
    with pytest.raises(DdzError, match="no rows for agent 'nobody'"):
        plots.role_bars(table, "nobody")


def test_bar_ci_includes_zero_even_for_values_far_from_it():
    with plots.style():
        fig, ax = plt.subplots()
        plots.bar_ci(ax, ["a", "b"], [0.9, 0.95], [0.88, 0.9], [0.92, 0.99], reference=0.5)
    assert ax.get_ylim()[0] <= 0 and ax.get_ylim()[1] >= 0.99
    assert [line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == "--"] == [0.5]
    before = plt.rcParams["axes.spines.top"]
    with plots.style():
        assert plt.rcParams["axes.spines.top"] is False
    assert plt.rcParams["axes.spines.top"] == before                 # undone after the block


def test_time_per_move_bars(table):
    ax = plots.time_per_move(table)
    spm = seconds_per_move(table)
    assert [t.get_text() for t in ax.get_yticklabels()] == AGENTS
    assert [p.get_width() for p in ax.patches] == pytest.approx(list(spm * 1e3))
    assert all(p.get_x() == 0 for p in ax.patches) and ax.get_xlim()[0] == 0
    assert [t.get_text() for t in ax.texts] == [f" {v * 1e3:.3g} ms" for v in spm]


def test_figures_are_deterministic(table):
    """A re-run tournament with the same seed draws the same bytes; another seed does not
    (so the comparison sees the data, not just the layout)."""
    def png(fig):
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=40, metadata={"Software": None})
        return buf.getvalue()
    again = tournament(AGENTS, 4, progress=False, seed=1)
    other = tournament(AGENTS, 4, progress=False, seed=2)
    assert png(plots.tournament_heatmaps(table)) == png(plots.tournament_heatmaps(again))
    assert png(plots.tournament_heatmaps(table)) != png(plots.tournament_heatmaps(other))


def test_bad_arguments(table):
    with pytest.raises(DdzError, match="metric must be one of"):
        plots.heatmap(table, "XP")
    with pytest.raises(DdzError, match="role must be one of"):
        plots.heatmap(table, "WP", "dealer")


@pytest.mark.parametrize("horizontal", [False, True])
def test_bar_ci_later_taller_groups_are_not_clipped(horizontal):
    """Grouped bars: the second group is ten times taller than the first; every bar and its
    interval must lie inside the axis (the limits must not freeze at the first group's)."""
    with plots.style():
        fig, ax = plt.subplots()
        plots.bar_ci(ax, ["a", "b"], [10, 12], [9, 11], [11, 13], offset=-0.2, width=0.4, horizontal=horizontal)
        plots.bar_ci(ax, ["a", "b"], [100, 1178], [90, 1100], [110, 1250], offset=0.2, width=0.4,
                     horizontal=horizontal)
    low, high = ax.get_xlim() if horizontal else ax.get_ylim()
    assert low <= 0 and high >= 1250
    plt.close(fig)


def test_wp_lines_ticks_are_the_values_run_and_accuracy_axis_follows_the_data():
    df = pd.DataFrame({"iterations": [25, 50, 100, 400], "WP": [0.5, 0.6, 0.7, 0.75],
                       "WP_lo": [0.4, 0.5, 0.6, 0.7], "WP_hi": [0.6, 0.7, 0.8, 0.8]})
    ax = plots.wp_lines(df, "iterations")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["25", "50", "100", "400"]
    acc = pd.DataFrame({"guesser": ["u", "u"], "progress": [0.1, 0.9], "mean": [0.66, 0.8],
                        "lo": [0.65, 0.78], "hi": [0.67, 0.82]})
    ax = plots.accuracy_curves(acc)
    low, high = ax.get_ylim()
    assert 0.5 < low < 0.65 and 0.82 < high < 0.9
    plt.close("all")


def _png_size(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    data = buf.getvalue()
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_tournament_figures_fit_the_page_with_eight_agents():
    import pandas as pd
    names = [f"agent_{i}" for i in range(8)]
    rng = np.random.default_rng(0)
    rows = []
    for a in names:
        for b in names:
            if a != b:
                for role in ("landlord", "farmers", "combined"):
                    wp = rng.random()
                    rows.append(dict(a=a, b=b, role=role, WP=wp, WP_lo=wp - 0.03, WP_hi=wp + 0.03,
                                     ADP=wp - 0.5, ADP_lo=wp - 0.6, ADP_hi=wp - 0.4))
    table = pd.DataFrame(rows)
    for fig in (plots.tournament_heatmaps(table, agents=names), plots.role_heatmaps(table, agents=names)):
        width, _ = _png_size(fig)
        assert width <= 110 * (plots.PAGE_WIDTH + 0.3), width


def _bt_frame():
    import pandas as pd
    bt = pd.DataFrame({"rating": [0.5, 0.0, -0.5], "lo": [0.3, -0.2, -0.8], "hi": [0.7, 0.2, -0.3],
                       "P(rank=1)": [0.9, 0.1, 0.0], "P(rank=2)": [0.1, 0.8, 0.1], "P(rank=3)": [0.0, 0.1, 0.9]},
                      index=pd.Index(["a", "b", "c"], name="agent"))
    bt.attrs["alpha"] = 0.05
    return bt


def test_ratings_and_rank_probabilities():
    bt = _bt_frame()
    ax = plots.ratings(bt)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    scale = 400 / np.log(10)
    (errors,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    seg = errors.lines[2][0].get_segments()[0]
    assert [x for x, _ in seg] == pytest.approx([0.3 * scale, 0.7 * scale])
    ax = plots.rank_probabilities(bt)
    texts = {t.get_position(): t.get_text() for t in cells(ax)}
    assert texts[(0, 0)] == "0.90" and texts[(2, 2)] == "0.90" and (2, 0) not in texts    # 0.00 left blank
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]


def test_forest_marks_the_flagged_rows():
    with plots.style():
        fig, ax = plt.subplots()
        plots.forest(ax, ["x", "y"], [0.1, -0.02], [0.05, -0.06], [0.15, 0.02], marks=[True, False])
    filled = [line for line in ax.lines if line.get_label() == "significant after Holm"]
    assert len(filled) == 1 and list(filled[0].get_xdata()) == [0.1]
    assert ax.get_ylim() == (1.5, -0.5)


def test_runs_strip_uses_t_and_adds_the_noise_of_shared_games():
    import pandas as pd
    from scipy import stats as sps
    v = [0.6, 0.62, 0.58, 0.61, 0.59]
    df = pd.DataFrame({"variant": ["x"] * 5, "total_win_rate": v})

    def half_width(**kw):
        ax = plots.runs_strip(df, **kw)
        (err,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        (x0, _), (x1, _) = err.lines[2][0].get_segments()[0]
        return (x1 - x0) / 2

    assert half_width() == pytest.approx(sps.t.ppf(0.975, 4) * np.std(v, ddof=1) / np.sqrt(5))
    m = np.mean(v)
    assert half_width(games=1000) == pytest.approx(
        sps.t.ppf(0.975, 4) * np.sqrt(np.var(v, ddof=1) / 5 + m * (1 - m) / 1000))


def _png(draw, decision) -> bytes:
    """The PNG of one axes drawn by ``draw(ax, x, y, decision)``, as `ddzlab.config.savefig` saves."""
    x, y = np.meshgrid(np.linspace(-0.5, 3.5, 200), np.linspace(-0.5, 4.5, 200))
    fig, ax = plt.subplots(figsize=(3.5, 3.5))
    draw(ax, x, y, decision(x, y))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def test_decision_regions_draw_the_same_pixels_when_the_decision_differs_in_its_last_bits():
    """01_decision_boundary.png changed from machine to machine. A linear decision
    computed through another BLAS differs in its last bits (here: relative 1e-12), never in
    its sign at a grid point (|d| >= 3e-4 there in notebook 01): the figure must not change."""
    coef = np.array([0.68, 0.435])
    here = lambda x, y: coef[0] * x + coef[1] * y - 1.2
    there = lambda x, y: here(x, y) * (1 + 1e-12)
    draw = lambda ax, x, y, d: plots.decision_regions(ax, x, y, d, colors=("#4393c3", "#d6604d"))
    assert _png(draw, here) == _png(draw, there)
    assert _png(draw, here) != _png(draw, lambda x, y: -here(x, y))       # the regions are drawn
    # the notebook's former drawing, a contour of the decision itself, does change
    former = lambda ax, x, y, d: ax.contour(x, y, d, levels=[0], colors="k", linewidths=1)
    assert _png(former, here) != _png(former, there)


def test_label_points_keeps_clustered_labels_apart():
    """Labels of points that nearly coincide (05_oracle's guessers at one accuracy) neither
    overlap each other nor cover a point, and stay inside the axes."""
    fig, ax = plt.subplots(figsize=(5, 3.5))
    x = [0.680, 0.683, 0.686, 0.689, 0.691, 0.692, 0.99, 1.0]
    y = [0.793, 0.805, 0.800, 0.813, 0.825, 0.806, 0.882, 0.875]
    labels = ["policy", "policy64", "policy16", "mcmc", "policy256", "bomb", "q=0.95", "q=1.0"]
    ax.plot(x, y, "o")
    ax.set_xlim(0.6, 1.05)
    ax.set_ylim(0.7, 0.95)
    anns = plots.label_points(ax, x, y, labels)
    assert [a.get_text() for a in sorted(anns, key=lambda a: labels.index(a.get_text()))] == labels
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    boxes = [a.get_window_extent(r) for a in anns]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), "two labels overlap"
    frame = ax.get_window_extent(r)
    assert all(frame.x0 <= b.x0 and b.x1 <= frame.x1 and frame.y0 <= b.y0 and b.y1 <= frame.y1 for b in boxes)
    points = ax.transData.transform(np.column_stack([x, y]))
    for b in boxes:
        assert not any(b.contains(px, py) for px, py in points), "a label covers a point"
    # deterministic: the same call places the labels in the same places
    fig2, ax2 = plt.subplots(figsize=(5, 3.5))
    ax2.plot(x, y, "o")
    ax2.set_xlim(0.6, 1.05)
    ax2.set_ylim(0.7, 0.95)
    again = plots.label_points(ax2, x, y, labels)
    assert [a.xyann for a in again] == [a.xyann for a in anns]


def test_adp_colour_scale_covers_every_interval_end():
    """ADP's colour scale is symmetric around 0 and reaches the largest |value| among the
    values and both interval ends: here the lower end -3.1 (the values alone reach 0.5)."""
    import numpy as np

    from ddzlab import plots
    value, lo, hi = np.array([[np.nan, 0.5], [-0.5, np.nan]]), np.array([[np.nan, -3.1], [-1.2, np.nan]]), \
        np.array([[np.nan, 2.3], [0.2, np.nan]])
    norm = plots._norm("ADP", (value, lo, hi))
    assert (norm.vmin, norm.vcenter, norm.vmax) == (-3.1, 0.0, 3.1)
    norm = plots._norm("ADP", (value, lo * 0.1, hi))
    assert (norm.vmin, norm.vmax) == (-2.3, 2.3)
