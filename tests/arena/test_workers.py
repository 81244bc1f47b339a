"""Parallel runs that lose their workers: a clear `WorkerError`, never a
hang or a traceback, and a rerun that resumes without losing or repeating a game."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from distributed import Client, LocalCluster

from ddzlab import parallel
from ddzlab.arena import duel_games
from ddzlab.cli import main
from ddzlab.deals import generate_deals
from ddzlab.errors import DdzError
from ddzlab.parallel import WorkerError, run_chunks

def _slow(x: int) -> int:
    time.sleep(0.3)
    return x


@pytest.fixture
def quick_watch(monkeypatch):
    """The dask watch at test speed: a check every 0.2 s, 1 s without a worker is fatal."""
    monkeypatch.setattr(parallel, "DASK_POLL_SECONDS", 0.2)
    monkeypatch.setattr(parallel, "DASK_NO_WORKER_SECONDS", 1)


def test_worker_error_is_a_ddz_error() -> None:
    assert issubclass(WorkerError, DdzError) and issubclass(WorkerError, ValueError)


def test_a_cluster_without_workers_is_an_error_not_a_hang(quick_watch) -> None:
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, Client(cluster):
        t = time.monotonic()
        with pytest.raises(WorkerError, match="every dask worker .* is gone .* 5 chunks unfinished"):
            list(run_chunks(_slow, range(5), backend="dask"))
        assert time.monotonic() - t < 30          # the run used to wait for ever


def test_losing_the_scheduler_is_a_clear_error(quick_watch) -> None:
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    client = Client(cluster)
    try:
        got = []
        with pytest.raises(WorkerError, match="lost the dask scheduler"):
            for x in run_chunks(_slow, range(40), backend="dask"):
                got.append(x)
                if len(got) == 1:                 # the run is under way: lose the scheduler
                    threading.Thread(target=cluster.close, daemon=True).start()
        assert len(got) < 40
    finally:
        client.close()
        cluster.close()


def _killer_file(tmp_path: Path) -> str:
    """An agent file: a random agent that, built the first time in a worker process, kills
    that process (SIGKILL, like the OOM killer); afterwards a plain random agent."""
    path = tmp_path / "killer.py"
    path.write_text(
        "import os, signal\n"
        "from ddzlab.agents.random_agent import RandomAgent\n"
        f"MAIN, MARK = {os.getpid()}, {str(tmp_path / 'killed')!r}\n"
        "class Killer(RandomAgent):\n"
        "    def __init__(self, seed=None):\n"
        "        super().__init__(seed)\n"
        "        if os.getpid() != MAIN and not os.path.exists(MARK):\n"
        "            open(MARK, 'w').close()\n"
        "            os.kill(os.getpid(), signal.SIGKILL)\n")
    return f"{path}:Killer"


def test_a_killed_loky_worker_is_reported_and_the_duel_resumes(tmp_path, capsys) -> None:
    spec = _killer_file(tmp_path)
    results = tmp_path / "duel.csv"
    deals = generate_deals(30, seed=3)
    code = main(["duel", spec, "random", "--deals", "30", "--seed", "3", "--jobs", "2", "--quiet",
                 "--results", str(results)])
    err = capsys.readouterr().err
    assert code == 2 and (tmp_path / "killed").exists()
    assert "a worker process died during the run" in err and "rerun the same command to resume" in err
    assert "Traceback" not in err
    resumed = duel_games(spec, "random", deals, seed=3, n_jobs=2, progress=False, results=results)
    serial = duel_games(spec, "random", deals, seed=3, progress=False)
    assert len(resumed) == 60 and not resumed.duplicated(["deal", "a_landlord"]).any()
    assert resumed.equals(serial)


def test_loky_workers_do_not_outlive_a_killed_parent(tmp_path) -> None:
    """``kill -9`` of a ``--jobs 2`` duel in the middle of its chunks: its loky workers (and
    loky's resource tracker) exit within seconds (they lived 333 s, holding the terminal's
    stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "ddzlab.cli", "duel", "random", "smallest",
                             "--deals", "3000", "--jobs", "2", "--quiet",
                             "--results", str(tmp_path / "d.csv")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list = []
    deadline = time.monotonic() + 240                # a start on a loaded machine
    while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
        time.sleep(0.5)
        workers = [p for p in psutil.Process(proc.pid).children(recursive=True)
                   if "loky" in " ".join(p.cmdline())]
    assert len(workers) >= 2, "the duel never started its loky workers"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    gone, alive = psutil.wait_procs(workers, timeout=30)
    for p in alive:
        p.kill()
    assert not alive, f"{len(alive)} loky processes outlived their parent by 30 s"


def test_an_idle_loky_worker_exits_with_its_killed_parent(tmp_path) -> None:
    """One chunk on two workers: the worker that never gets a chunk watches its parent
    from its start, so both exit within seconds of a ``kill -9``, well before loky's idle
    timeout (`parallel.LOKY_IDLE_SECONDS`) would end the idle one."""
    marker = tmp_path / "started"
    chunk = tmp_path / "chunk.py"                 # run in a worker: no child process of its own
    chunk.write_text(f"import pathlib, time; pathlib.Path({str(marker)!r}).touch(); time.sleep(120)")
    script = ("import runpy; from ddzlab.parallel import run_chunks; "
              f"list(run_chunks(runpy.run_path, [{str(chunk)!r}], n_jobs=2))")
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        workers: list = []
        while time.monotonic() < deadline and proc.poll() is None:
            workers = [p for p in psutil.Process(proc.pid).children()
                       if "loky" in " ".join(p.cmdline())]
            if marker.exists() and len(workers) >= 3:     # two workers and the resource tracker
                break
            time.sleep(0.2)
        assert marker.exists() and len(workers) >= 3, "the run never started its two workers"
        started = time.monotonic()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        gone, alive = psutil.wait_procs(workers, timeout=parallel.LOKY_IDLE_SECONDS / 2)
        assert not alive, (f"{len(alive)} loky processes outlived their parent by "
                           f"{time.monotonic() - started:.0f} s")
    finally:
        with contextlib.suppress(ProcessLookupError):     # nothing left of the run: the goal
            os.killpg(proc.pid, signal.SIGKILL)
