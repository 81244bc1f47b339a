"""The experiment store and runner: rows equal the arena's games, resume after kills at random
points (no game lost, none twice), a damaged last member, growing grids, refusals."""
import gzip
import json
import os
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from ddzlab.arena import TOURNAMENT_GAME_COLUMNS, duel_games, tournament_games, tournament_table
from ddzlab.cli import main
from ddzlab.experiments import (CATALOG, Experiment, ExperimentError, StoreError, arena_games, load_games, repair_experiment,
                                run_experiment, status)
from ddzlab.experiments import store
from ddzlab.experiments.runner import common_deals

PLAYED = ["config", "opponent", "deal", "role", "won", "points", "moves", "plays", "opp_plays"]


def _exp(name="t", deals=5, seed=3, **kw):
    kw.setdefault("configs", ["smallest", "random"])
    kw.setdefault("opponents", ["greedy"])
    return Experiment(name, deals=deals, seed=seed, **kw)


def test_rows_are_the_arenas_games(tmp_path):
    exp = _exp(deals=6)
    games = run_experiment(exp, root=tmp_path, progress=False)
    assert len(games) == 6 * 2 * 2 and games.attrs["deals_complete"] == 6
    for config in ("smallest", "random"):
        ref = duel_games(config, "greedy", exp.deal_list(), seed=3, progress=False)
        mine = games[games.config == config].reset_index(drop=True)
        assert list(mine.deal) == list(ref.deal)
        assert list(mine.role == "landlord") == list(ref.a_landlord)
        assert list(mine.won) == list(ref.a_won.astype(int))
        assert list(mine.points) == list(ref.a_points)
        assert list(mine.moves) == list(ref.moves)
    assert (games.seconds > 0).all() and (games.plays > 0).all()
    folder = tmp_path / "t"
    meta = json.loads((folder / "experiment.json").read_text())
    assert meta["seed"] == 3 and meta["deals"]["count"] == 6 and meta["runs"][-1]["games_added"] == 24
    assert (folder / "deals.txt").read_text().count("\n") >= 6


def test_round_robin_matches_the_arena_tournament(tmp_path):
    exp = Experiment("rr", configs=["random", "smallest", "greedy"], deals=3, seed=1)
    assert exp.pairs() == [("random", "smallest"), ("random", "greedy"), ("smallest", "greedy")]
    games = run_experiment(exp, root=tmp_path, progress=False)
    ref = tournament_games(["random", "smallest", "greedy"], exp.deal_list(), seed=1, progress=False)
    key = ["config", "opponent", "deal", "role"]
    ref = ref.assign(config=ref.a, opponent=ref.b, role=np.where(ref.a_landlord, "landlord", "farmers"),
                     won=ref.a_won.astype(int), points=ref.a_points)
    merged = games.merge(ref[key + ["won", "points", "moves"]], on=key, suffixes=("", "_ref"))
    assert len(merged) == len(games) == 3 * 3 * 2
    assert (merged.won == merged.won_ref).all() and (merged.points == merged.points_ref).all()
    assert (merged.moves == merged.moves_ref).all()
    # read back as the arena's games, the tournament table is the arena's (times aside)
    mine = tournament_table(arena_games(games), agents=["random", "smallest", "greedy"])
    theirs = tournament_table(ref[TOURNAMENT_GAME_COLUMNS], agents=["random", "smallest", "greedy"])
    timeless = [c for c in mine.columns if not c.startswith("sec_per_move")]
    pd.testing.assert_frame_equal(mine[timeless], theirs[timeless])


def test_parallel_run_stores_the_same_games(tmp_path):
    exp = _exp(deals=4)
    a = run_experiment(exp, root=tmp_path / "a", progress=False)
    b = run_experiment(exp, root=tmp_path / "b", n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(a[PLAYED], b[PLAYED])


def test_a_prefix_then_the_rest_and_a_growing_grid(tmp_path):
    exp = _exp(deals=6)
    part = run_experiment(exp, deals=2, root=tmp_path, progress=False)
    assert set(part.deal) == {0, 1} and part.attrs["deals_complete"] == 2
    full = run_experiment(exp, root=tmp_path, progress=False)
    again = run_experiment(_exp(name="fresh", deals=6), root=tmp_path, progress=False)
    pd.testing.assert_frame_equal(full[PLAYED], again[PLAYED])
    # one more config: only its games are played, the stored ones are kept byte for byte
    before = full.copy()
    bigger = _exp(deals=6, configs=["smallest", "random", "split_random"])
    grown = run_experiment(bigger, root=tmp_path, progress=False)
    assert len(grown) == len(full) + 12
    old = grown[grown.config != "split_random"].reset_index(drop=True)
    pd.testing.assert_frame_equal(old, before)
    runs = json.loads((tmp_path / "t" / "experiment.json").read_text())["runs"]
    assert [r["games_added"] for r in runs] == [8, 16, 12]
    # a smaller grid reads only its pairs, all_rows everything
    with pytest.warns(UserWarning, match="no longer in t's grid"):
        assert len(load_games(exp, root=tmp_path)) == len(full)
    assert len(load_games(exp, root=tmp_path, all_rows=True)) == len(grown)


def test_refuses_another_experiment_under_the_same_name(tmp_path):
    run_experiment(_exp(deals=2), root=tmp_path, progress=False)
    with pytest.raises(ExperimentError, match="seed"):
        run_experiment(_exp(deals=2, seed=4), root=tmp_path, progress=False)
    with pytest.raises(ExperimentError, match="other deals"):
        run_experiment(_exp(deals=3), root=tmp_path, progress=False)
    with pytest.raises(ExperimentError, match="another label"):
        run_experiment(_exp(deals=2, configs={"smallest": "random", "random": "random"}), root=tmp_path,
                       progress=False)
    with pytest.raises(ExperimentError, match="cannot play"):
        run_experiment(_exp(deals=2), deals=3, root=tmp_path, progress=False)
    assert issubclass(ExperimentError, ValueError)


def test_bad_experiments():
    with pytest.raises(ExperimentError, match="name"):
        Experiment("Bad Name", configs=["random", "greedy"])
    with pytest.raises(ExperimentError, match="twice"):
        Experiment("x", configs=["random", "random"])
    with pytest.raises(ExperimentError, match="spec"):
        Experiment("x", configs=[lambda seed: None, "random"])
    with pytest.raises(ExperimentError, match="round robin"):
        Experiment("x", configs=["random"])
    with pytest.raises(ExperimentError, match="deals"):
        Experiment("x", configs=["random", "greedy"], deals=0)
    with pytest.raises(ExperimentError, match="catalog"):
        run_experiment("no_such_experiment")


def test_an_unknown_agent_fails_before_anything_is_stored(tmp_path):
    from ddzlab.agents import AgentError
    with pytest.raises(AgentError, match="unknown agent 'nobody'"):
        run_experiment(_exp(configs=["random", "nobody"]), root=tmp_path, progress=False)
    assert not (tmp_path / "t").exists()


def test_a_second_run_at_once_is_refused(tmp_path):
    with store.locked(tmp_path / "t"):
        with pytest.raises(StoreError, match="another run"):
            run_experiment(_exp(deals=2), root=tmp_path, progress=False)


# -- the store under damage --------------------------------------------------------------------
def _rows(n, start=0):
    return [("a", "b", i // 2, ("landlord", "farmers")[i % 2], i % 2, 2 ** (i % 3), 30 + i, 0.001 * i, 10, 0.5, 11)
            for i in range(start, start + n)]


@pytest.mark.filterwarnings("ignore:.*incomplete block")
def test_store_drops_only_a_cut_last_member_and_compacts_atomically(tmp_path):
    path = tmp_path / "games.csv.gz"
    ends = [0]
    for k in range(5):
        store.append(path, _rows(4, 4 * k))
        ends.append(path.stat().st_size)           # member boundaries
    whole = path.read_bytes()
    full, dropped = store.read_rows(path)
    assert len(full) == 20 and dropped == 0
    # gzip and pandas read the multi-member file as one stream
    assert gzip.decompress(whole).decode().count("\n") == 21
    plain = pd.read_csv(path, dtype=store.DTYPES, keep_default_na=False)
    assert list(plain.columns) == store.COLUMNS + ["check"]
    pd.testing.assert_frame_equal(plain.drop(columns="check"), full)
    rng = np.random.default_rng(0)
    for cut in sorted(rng.integers(1, len(whole), 25)):
        path.write_bytes(whole[:cut])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows, dropped = store.read_rows(path)
        # a prefix of whole members, never a part of one
        kept_bytes = cut - dropped
        assert kept_bytes == max(e for e in ends if e <= cut) and len(rows) == 4 * ends.index(kept_bytes)
        pd.testing.assert_frame_equal(rows, full.iloc[:len(rows)].reset_index(drop=True))
        assert (dropped > 0) == bool(caught)
        kept = store.compact(path)
        assert len(kept) == len(rows) and store.read_rows(path)[1] == 0
    # garbage after the last block is no interrupted write (that starts like a block): damage,
    # refused with its byte range; every row before it is still read
    path.write_bytes(whole + b"config,opp\x00garbage")
    with pytest.raises(store.DamagedStoreError, match=f"bytes {len(whole)}-{len(whole) + 18}"):
        store.read_rows(path, repair="ddzlab experiment repair t")
    got = store.read_store(path)
    assert got.damaged and len(got.rows) == 20
    with pytest.raises(store.DamagedStoreError, match="ddzlab experiment repair t"):
        store.compact(path, repair="ddzlab experiment repair t")
    assert path.read_bytes() == whole + b"config,opp\x00garbage"          # nothing written


def test_store_refuses_a_foreign_file_and_a_game_stored_twice(tmp_path):
    path = tmp_path / "games.csv.gz"
    path.write_bytes(gzip.compress(b"a,b,c\n1,2,3\n"))
    with pytest.raises(StoreError, match="not an experiment store"):
        store.read_rows(path)
    path.unlink()
    store.append(path, _rows(4))
    store.append(path, _rows(2))
    with pytest.raises(StoreError, match="twice"):
        store.compact(path)


def test_repair_keeps_the_rows_of_an_agent_the_experiment_had(tmp_path):
    """An agent the stored experiment lists (a config dropped from the grid since, not yet
    retired by a run) is not one "it never had": repair keeps its rows."""
    run_experiment(_exp(deals=2), root=tmp_path, progress=False)
    done = repair_experiment(_exp(deals=2, configs=["smallest"]), root=tmp_path)
    assert done.kept == 2 * 2 * 2 and sum(done.dropped.values()) == 0      # 2 configs x 2 deals x 2 roles
    rows = store.read_store(tmp_path / "t" / "games.csv.gz", _exp().schema).rows
    assert sorted(set(rows["config"])) == ["random", "smallest"]
    # a deal the experiment no longer has is dropped, and the count says why
    done = repair_experiment(_exp(deals=1), root=tmp_path)
    assert done.kept == 2 * 1 * 2
    assert done.dropped == {"rows that disagree with the catalog (agent, pair or deal t does not have)": 4}


def test_a_game_with_one_role_is_refused_and_repair_drops_it(tmp_path):
    path = tmp_path / "games.csv.gz"
    store.append(path, _rows(5))            # deal 2 has only its landlord game
    before = path.read_bytes()
    with pytest.raises(store.BadRowsError, match="only one of their two roles"):
        store.compact(path)
    assert path.read_bytes() == before
    done = store.repair(path)
    assert done.kept == 4 and done.dropped == {"games with one role left (the other lost)": 1}
    assert set(store.read_rows(path)[0].deal) == {0, 1}


KILL_SCRIPT = """
import sys
from ddzlab.experiments import Experiment, run_experiment
exp = Experiment("killme", configs=["smallest", "random"], opponents=["greedy", "split_random"], deals=40, seed=5)
run_experiment(exp, root=sys.argv[1], progress=False)
"""


def test_killed_at_random_points_then_resumed_loses_and_doubles_nothing(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(KILL_SCRIPT)
    root = tmp_path / "killed"
    rng = np.random.default_rng(7)
    path = root / "killme" / "games.csv.gz"
    counts = []

    def stored():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return len(store.read_rows(path)[0]) if path.exists() else 0

    for _ in range(6):
        before = stored()
        proc = subprocess.Popen([sys.executable, str(script), str(root)], env=os.environ.copy())
        deadline = time.monotonic() + 300          # however loaded the machine: wait for new rows,
        while stored() <= before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)                       # then kill at a random moment after them
        time.sleep(float(rng.uniform(0.0, 0.4)))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        counts.append(stored())
    assert counts == sorted(counts)          # stored games only grow
    exp = Experiment("killme", configs=["smallest", "random"], opponents=["greedy", "split_random"],
                     deals=40, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resumed = run_experiment(exp, root=root, progress=False)
    clean = run_experiment(exp, root=tmp_path / "clean", progress=False)
    assert len(resumed) == 40 * 4 * 2
    assert not resumed.duplicated(["config", "opponent", "deal", "role"]).any()
    pd.testing.assert_frame_equal(resumed[PLAYED], clean[PLAYED])
    assert any(0 < c < len(clean) for c in counts), f"no kill landed inside the run: {counts}"


# -- reading ------------------------------------------------------------------------------------
def test_common_deals_and_status(tmp_path, monkeypatch):
    exp = _exp(deals=5)
    run_experiment(exp, deals=3, root=tmp_path, progress=False)
    games = load_games(exp, root=tmp_path)
    assert games.attrs["deals_complete"] == 3 and games.attrs["deals_planned"] == 5
    assert set(common_deals(games, 2).deal) == {0, 1}
    monkeypatch.setitem(CATALOG, "t", exp)
    st = status(root=tmp_path).set_index("experiment")
    assert st.loc["t", "games"] == 12 and st.loc["t", "games_planned"] == 20
    assert st.loc["t", "deals_complete"] == 3


def test_cli_experiment_run_and_status(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DDZLAB_EXPERIMENTS", str(tmp_path))
    monkeypatch.setitem(CATALOG, "clitest", _exp(name="clitest", deals=3))
    assert main(["experiment", "run", "clitest", "--deals", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "8 games stored" in out and "2 of 3 deals" in out
    assert main(["experiment", "status"]) == 0
    out = capsys.readouterr().out
    assert "clitest" in out and "06_tournament" in out
    assert main(["experiment", "run", "nothing_by_that_name"]) == 2
    assert "no experiment" in capsys.readouterr().err
    assert main(["experiment", "run"]) == 2
