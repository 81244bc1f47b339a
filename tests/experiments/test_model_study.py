"""Notebook 10's helpers (`ddzlab.experiments.model_study`) and its experiments in the catalog.

Oracles: game rows written by hand (WPs counted on paper, a paired difference worked out
deal by deal), the arena's duel on the same deals and seeds (the duplicate run's two arena
seatings), the agent spec grammar (a spec the catalog stores must build the agent it names)
and the trainer's own command line (the regeneration command parses and names the run's
settings).
"""
from __future__ import annotations

import pandas as pd
import pytest

from ddzlab.experiments import CATALOG, Experiment, load_games, run_experiment
from ddzlab.experiments.catalog import ARENA_DEALS, CHEAP_AGENTS, CURVE_OPPONENTS, DMC_RUN
from ddzlab.experiments.model_study import (ModelRun, crossplay_matrix, curve_gains, curve_table, find_models,
                                            sides_in_duplicate)
from ddzlab.experiments.runner import ExperimentError
from ddzlab.experiments.store import COLUMNS

RUN = ModelRun("somewhere", seed=3, unroll=4, batch=5, digests={0: "sha256-00", 40: "sha256-40", 80: "sha256-80"})


def _rows(spec):
    """Game rows of the sides layout from (config, opponent, deal, role, won)."""
    return pd.DataFrame([(c, o, d, r, w, 2 if w else -2, 30, 0.1, 10, 0.1, 10) for c, o, d, r, w in spec],
                        columns=COLUMNS)


def test_a_run_names_its_checkpoints_and_the_command_that_trains_them_again():
    assert RUN.checkpoints == (0, 40, 80) and RUN.final == 80
    assert RUN.label(40) == "dmc-40" and RUN.frames_of("dmc-40") == 40
    assert RUN.spec(80) == "douzero:somewhere,frames=80,digest=sha256-80"
    assert list(RUN.specs([0, 80])) == ["dmc-0", "dmc-80"]
    assert RUN.command() == ("ddzlab train dmc data/models/somewhere --checkpoints 0,40,80 --seed 3 --unroll 4 "
                             "--batch 5")
    other = ModelRun("/abs/run", seed=0, unroll=2, batch=2, digests={8: "sha256-8"}, objective="wp", epsilon=0.1)
    assert other.command() == ("ddzlab train dmc /abs/run --checkpoints 8 --seed 0 --unroll 2 --batch 2 "
                               "--objective wp --epsilon 0.1")
    with pytest.raises(ExperimentError, match="no checkpoint at 50 frames"):
        RUN.spec(50)
    with pytest.raises(ExperimentError, match="not a checkpoint label"):
        RUN.frames_of("greedy")
    with pytest.raises(ExperimentError, match="no checkpoint listed"):
        ModelRun("x", 0, 4, 5, {})
    with pytest.raises(ExperimentError, match="frame counts >= 0"):
        ModelRun("x", 0, 4, 5, {-1: "sha256-0"})
    from ddzlab.env.dmc import DMCError
    with pytest.raises(DMCError, match="unroll"):
        ModelRun("x", 0, 0, 5, {0: "sha256-0"})


def test_the_regeneration_command_is_the_trainers_own_command_line(monkeypatch):
    """The command parses with `ddzlab train dmc` and asks for exactly the run's settings."""
    from ddzlab.env import dmc
    seen = {}

    def fake(out, checkpoints, config, **kw):
        seen.update(out=out, checkpoints=checkpoints, config=config)
        return {f: f for f in checkpoints}

    monkeypatch.setattr(dmc, "train_checkpoints", fake)
    words = DMC_RUN.command().split()
    assert words[:3] == ["ddzlab", "train", "dmc"]
    assert dmc.main(words[3:]) == 0
    assert seen["out"] == f"data/models/{DMC_RUN.folder}" and seen["checkpoints"] == list(DMC_RUN.checkpoints)
    assert seen["config"] == DMC_RUN.config()


def test_the_catalog_pins_every_checkpoint_of_the_run():
    curve = CATALOG["10_dmc_curve"]
    assert curve.configs == DMC_RUN.specs() and list(curve.opponents) == CURVE_OPPONENTS
    assert curve.deals == ARENA_DEALS and curve.seed == CATALOG["06_tournament"].seed
    last = {DMC_RUN.label(DMC_RUN.final): DMC_RUN.spec(DMC_RUN.final)}
    cross = CATALOG["10_dmc_crossplay"]
    assert cross.configs == last and sorted([*cross.opponents, *CURVE_OPPONENTS]) == sorted(CHEAP_AGENTS)
    dup = CATALOG["10_dmc_duplicate"]
    assert dup.configs == last and dup.layout == "duplicate" and dup.deals == ARENA_DEALS
    for spec in curve.configs.values():
        assert ",digest=sha256-" in spec and spec.startswith(f"douzero:{DMC_RUN.folder},frames=")
    from ddzlab.agents.base import _named_spec
    name, opts = _named_spec(DMC_RUN.spec(DMC_RUN.final))
    assert name == "douzero" and opts == {"folder": DMC_RUN.folder, "frames": DMC_RUN.final,
                                          "digest": DMC_RUN.digests[DMC_RUN.final]}


def test_curve_table_and_gains_by_hand():
    # dmc-0 loses every game; dmc-80 wins 3 of 4 against greedy (deal 0 both, deal 1 as landlord)
    spec = []
    for d in (0, 1):
        spec += [("dmc-0", "greedy", d, "landlord", 0), ("dmc-0", "greedy", d, "farmers", 0)]
    spec += [("dmc-80", "greedy", 0, "landlord", 1), ("dmc-80", "greedy", 0, "farmers", 1),
             ("dmc-80", "greedy", 1, "landlord", 1), ("dmc-80", "greedy", 1, "farmers", 0)]
    games = _rows(spec)
    run = ModelRun("r", 0, 4, 5, {0: "sha256-0", 80: "sha256-80"})
    t = curve_table(games, run, ["greedy"]).set_index("frames")
    assert t.loc[0, "WP"] == 0 and t.loc[80, "WP"] == pytest.approx(0.75)
    assert t.loc[80, "landlord WP"] == 1.0 and t.loc[80, "farmers WP"] == 0.5 and t.loc[80, "deals"] == 2
    # per-deal WP 1.0 and 0.5: mean 0.75, SD 0.354, t(1) interval 0.75 ± 12.706 × 0.25, clipped to 0..1
    assert t.loc[80, "WP_lo"] == 0.0 and t.loc[80, "WP_hi"] == 1.0
    g = curve_gains(games, run, ["greedy"]).iloc[0]
    assert (g["first"], g["last"]) == (0, 80) and g["ΔWP"] == pytest.approx(0.75) and g.deals == 2
    assert g["p (Holm)"] == pytest.approx(g.p) and not g.significant
    from ddzlab.stats import StatsError
    with pytest.raises(StatsError, match="no stored games of dmc-0 against rulev1"):
        curve_table(games, run, ["rulev1"])


def test_crossplay_matrix_reads_both_orientations():
    # a beats b on both games of deal 0 and one of deal 1; b is the config in the c rows
    games = _rows([("a", "b", 0, "landlord", 1), ("a", "b", 0, "farmers", 1),
                   ("a", "b", 1, "landlord", 1), ("a", "b", 1, "farmers", 0),
                   ("b", "c", 0, "landlord", 0), ("b", "c", 0, "farmers", 0),
                   ("b", "c", 1, "landlord", 0), ("b", "c", 1, "farmers", 1)])
    long, matrix = crossplay_matrix(games, ["a", "b", "c"])
    wp = long.set_index(["A", "B"]).WP
    assert wp["a", "b"] == pytest.approx(0.75) and wp["b", "a"] == pytest.approx(0.25)
    assert wp["c", "b"] == pytest.approx(0.75) and ("a", "c") not in wp.index
    assert matrix.loc["a", "b"].startswith("0.750 [") and matrix.loc["a", "c"] == "" and matrix.loc["a", "a"] == "—"


def test_the_duplicate_runs_arena_seatings_are_the_arenas_games(tmp_path):
    sides = Experiment("s", configs=["greedy"], opponents=["smallest"], deals=3, seed=5)
    dup = Experiment("d", configs=["greedy"], opponents=["smallest"], deals=3, seed=5, layout="duplicate")
    run_experiment(sides, root=tmp_path, progress=False)
    run_experiment(dup, root=tmp_path, progress=False)
    s, d = load_games(sides, root=tmp_path), load_games(dup, root=tmp_path)
    assert sides_in_duplicate(s, d, "greedy", "smallest") == {"games": 6, "agree": 6}
    # one result flipped in the sides rows: one game disagrees
    s.loc[s.index[0], "won"] = 1 - s.loc[s.index[0], "won"]
    assert sides_in_duplicate(s, d, "greedy", "smallest") == {"games": 6, "agree": 5}


def test_find_models_lists_folders_with_the_three_position_files(tmp_path):
    for name, files in (("full", ("landlord", "landlord_up", "landlord_down")), ("part", ("landlord",)),
                        ("run", ())):
        (tmp_path / name).mkdir()
        for f in files:
            (tmp_path / name / f"{f}.ckpt").write_bytes(b"")
    (tmp_path / "file.ckpt").write_bytes(b"")
    assert find_models(tmp_path) == ["full"]
    assert find_models(tmp_path / "absent") == []


def test_check_says_which_checkpoints_are_here_and_as_listed(tmp_path, monkeypatch):
    from peers import require_peer
    require_peer("torch", "pip install 'ddzlab[douzero]'")
    from ddzlab.env import douzero_agent
    from ddzlab.env.douzero_agent import folder_digest, save_random_checkpoints
    save_random_checkpoints(tmp_path / "m", seed=1)
    for p in ("landlord", "landlord_up", "landlord_down"):
        (tmp_path / "m" / f"{p}.ckpt").rename(tmp_path / "m" / f"{p}_weights_40.ckpt")
    monkeypatch.setattr(douzero_agent, "MODELS_DIR", tmp_path)
    digest = folder_digest("m", 40)
    run = ModelRun("m", 0, 4, 5, {0: "sha256-0", 40: digest, 80: "sha256-80"})
    got = run.check().set_index("frames")
    assert list(got.present) == [False, True, False] and list(got["as listed"]) == [False, True, False]
    assert got.loc[40, "digest"] == digest and pd.isna(got.loc[0, "digest"])
    wrong = ModelRun("m", 0, 4, 5, {40: "sha256-ffffffffffffffff"}).check().iloc[0]
    assert wrong.present and not wrong["as listed"]
