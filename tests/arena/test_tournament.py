"""Tournaments: round robin = the duels, both orientations, paired intervals, resume, dask."""
from __future__ import annotations

import io
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

from ddzlab import arena, cli
from ddzlab.agents import RandomAgent, SmallestAgent
from ddzlab.arena import (ArenaError, TournamentResultsError, duel, duel_games, mean_ci, paired_wilson,
                          summarize, tournament, tournament_games, wilson)
from ddzlab.deals import generate_deals, parse_deals

from test_arena import SURE_WIN, Bomber

AGENTS = ["random", "smallest", "greedy"]
TIMES = ["sec_per_move_a", "sec_per_move_b"]
DEALS = generate_deals(5, seed=11)


def untimed(df: pd.DataFrame) -> pd.DataFrame:
    """Every column that must not depend on how or where the games ran."""
    return df.drop(columns=[c for c in df.columns if c in TIMES or c.endswith("_seconds")])


@pytest.fixture(scope="module")
def table():
    return tournament(AGENTS, DEALS, progress=False, seed=3)


def test_every_pair_is_the_duel_of_the_pair(table):
    assert list(table.columns) == arena.TOURNAMENT_COLUMNS
    assert len(table) == 3 * 2 * 3                      # ordered pairs x roles
    assert table.attrs["agents"] == AGENTS and table.attrs["deals"] == 5
    for a in AGENTS:
        for b in AGENTS:
            if a == b:
                assert not len(table[(table.a == a) & (table.b == b)])
                continue
            rows = table[(table.a == a) & (table.b == b)].set_index("role")
            assert list(rows.index) == ["landlord", "farmers", "combined"]
            assert list(rows.deals) == [5, 5, 5]
            if AGENTS.index(a) > AGENTS.index(b):
                continue            # the same games from the other side: see the mirror test
            ref = duel(a, b, DEALS, progress=False, seed=3)
            ref.index = rows.index
            for col in ("WP", "WP_lo", "WP_hi", "ADP", "ADP_lo", "ADP_hi"):
                assert np.allclose(rows[col], ref[col], equal_nan=True), (a, b, col)
            assert list(rows.games) == list(ref.n) == [5, 5, 10]
    games = tournament_games(AGENTS, DEALS, progress=False, seed=3)
    pair = games[(games.a == "random") & (games.b == "greedy")][arena.GAME_COLUMNS].reset_index(drop=True)
    assert pair.equals(duel_games("random", "greedy", DEALS, progress=False, seed=3))
    assert (games.a_moves + games.b_moves == games.moves).all()   # one play call per move


def test_orientations_mirror_each_other(table):
    t = table.set_index(["a", "b", "role"])
    swap = {"landlord": "farmers", "farmers": "landlord", "combined": "combined"}
    for (a, b, role), row in t.iterrows():
        back = t.loc[(b, a, swap[role])]
        assert row.WP + back.WP == pytest.approx(1.0)
        assert row.WP_lo == pytest.approx(1 - back.WP_hi) and row.WP_hi == pytest.approx(1 - back.WP_lo)
        assert row.ADP == pytest.approx(-back.ADP) and row.ADP_lo == pytest.approx(-back.ADP_hi)
        assert row.sec_per_move_a == back.sec_per_move_b and row.sec_per_move_b == back.sec_per_move_a
        assert row.WP_lo <= row.WP <= row.WP_hi


class FakeClock:
    """Stands in for `perf_counter`: time moves only when a `Slow` agent says so."""
    now = 0.0

    @classmethod
    def read(cls):
        return cls.now


class Slow(SmallestAgent):
    """`smallest` that 'spends' exactly one fake second on every move."""

    def play(self, obs):
        FakeClock.now += 1.0
        return super().play(obs)


def test_time_per_move_is_charged_to_the_agent_that_moved(monkeypatch):
    monkeypatch.setattr(arena, "perf_counter", FakeClock.read)
    FakeClock.now = 0.0
    table = tournament({"slow": Slow, "fast": "smallest", "random": "random"}, 3, progress=False)
    df = table.set_index(["a", "b", "role"])
    for role in ("landlord", "farmers", "combined"):
        assert df.loc[("slow", "fast", role), "sec_per_move_a"] == 1.0
        assert df.loc[("slow", "fast", role), "sec_per_move_b"] == 0.0
        assert df.loc[("fast", "slow", role), "sec_per_move_a"] == 0.0
    games = tournament_games({"slow": Slow, "fast": "smallest", "random": "random"}, 3, progress=False)
    slow_moves = games[games.a == "slow"].a_moves.sum()
    assert df.loc[("slow", "fast", "combined"), "moves_a"] + df.loc[("slow", "random", "combined"), "moves_a"] \
        == slow_moves
    assert FakeClock.now == 2 * slow_moves               # every slow move was timed, twice over two runs
    spm = arena.seconds_per_move(table)
    assert list(spm.index) == ["slow", "fast", "random"] and list(spm) == [1.0, 0.0, 0.0]


def test_paired_interval_narrower_when_the_deal_decides():
    # 40 deals; in 32 the landlord wins both halves (the deal decides: A wins one game, loses
    # the other), in 8 A wins both. A's halves are anti-correlated: pairing narrows the CI.
    land = [1] * 32 + [1] * 8
    farm = [0] * 32 + [1] * 8
    games = _games(land, farm)
    per_deal = games.groupby("deal").a_won.mean().to_numpy()
    p, lo, hi = paired_wilson(per_deal)
    ulo, uhi = wilson(games.a_won.sum(), len(games))
    assert p == games.a_won.mean() == 0.6
    assert hi - lo < 0.7 * (uhi - ulo)
    assert (lo, hi) == tuple(summarize(games).loc["combined", ["WP_lo", "WP_hi"]])
    # the same for ADP
    m, alo, ahi = mean_ci(games.groupby("deal").a_points.mean().to_numpy(dtype=float))
    _, ulo, uhi = mean_ci(games.a_points.to_numpy(dtype=float))
    assert ahi - alo < uhi - ulo
    # A's halves positively correlated (A wins both or loses both): pairing must widen it
    games = _games([1] * 20 + [0] * 20, [1] * 20 + [0] * 20)
    _, lo, hi = paired_wilson(games.groupby("deal").a_won.mean().to_numpy())
    ulo, uhi = wilson(games.a_won.sum(), len(games))
    assert hi - lo > 1.2 * (uhi - ulo)


def test_paired_interval_is_wilson_for_independent_halves():
    rng = np.random.default_rng(0)
    games = _games(rng.random(4000) < 0.6, rng.random(4000) < 0.6)
    _, lo, hi = paired_wilson(games.groupby("deal").a_won.mean().to_numpy())
    ulo, uhi = wilson(games.a_won.sum(), len(games))
    assert hi - lo == pytest.approx(uhi - ulo, rel=0.05)
    assert paired_wilson(np.array([1.0, 1.0, 1.0])) == (1.0, *wilson(6, 6))   # no spread at 100%


def test_duel_combined_row_pairs_the_deal():
    deals = parse_deals("\n".join([SURE_WIN] * 4))
    df = duel("smallest", Bomber, deals, progress=False)
    # every deal is one win and one loss for A: no spread between deals at all
    assert tuple(df.loc["combined", ["WP", "WP_lo", "WP_hi"]]) == (0.5, 0.5, 0.5)
    assert tuple(df.loc["combined", ["ADP", "ADP_lo", "ADP_hi"]]) == (-15.5, -15.5, -15.5)
    assert list(df.columns) == arena.SUMMARY_COLUMNS


def _games(a_won_landlord, a_won_farmers) -> pd.DataFrame:
    rows = []
    for i, (x, y) in enumerate(zip(a_won_landlord, a_won_farmers)):
        rows.append((i, True, bool(x), bool(x), 0, 1 if x else -1, 30))
        rows.append((i, False, not y, bool(y), 0, 1 if y else -1, 30))
    return pd.DataFrame(rows, columns=arena.GAME_COLUMNS)


class Interrupter:
    """Builds `smallest`, but the n-th agent it builds stops the run (like Ctrl-C)."""

    def __init__(self, stop_at: int):
        self.built, self.stop_at = 0, stop_at

    def __call__(self, seed=None):
        self.built += 1
        if self.built == self.stop_at:
            raise KeyboardInterrupt
        return SmallestAgent()


def test_resume_gives_the_uninterrupted_frame(tmp_path):
    deals = generate_deals(6, seed=2)
    full = tournament(AGENTS, deals, progress=False)
    path = tmp_path / "t.csv"
    # 'smallest' is built once to check it, then 3 times per (pair, deal); it plays 2 pairs per
    # deal: stop in its second pair of deal 3, after 3 whole deals and 2 pairs of deal 3
    stop = Interrupter(stop_at=1 + 3 * 2 * 3 + 3 + 1)
    with pytest.raises(KeyboardInterrupt):
        tournament({"random": "random", "smallest": stop, "greedy": "greedy"}, deals, progress=False,
                   results=path)
    written = pd.read_csv(path)
    assert set(written.deal) == {0, 1, 2, 3} and len(written) == (3 * 3 + 2) * 2
    assert len(written[written.deal == 3]) == 4 and not (written[written.deal == 3].a == "smallest").any()
    assert "\r" not in path.read_text()
    counter = Interrupter(stop_at=0)
    resumed = tournament({"random": "random", "smallest": counter, "greedy": "greedy"}, deals,
                         progress=False, results=path)
    assert untimed(resumed).equals(untimed(full))
    assert counter.built == 1 + 5 * 3         # 5 (pair, deal) of 'smallest' were left to play
    again = tournament(AGENTS, deals, progress=False, results=path)   # all done: read back
    assert again.equals(resumed)


def test_resume_keys_on_the_pair_and_the_deal(tmp_path):
    """A file cut after the first pair of the last deal (random-smallest): the resumed run
    must play random-greedy and smallest-greedy of that deal. A resume key without the
    second agent took random-greedy for done (random had played that deal) and lost it."""
    deals = generate_deals(3, seed=2)
    path = tmp_path / "t.csv"
    full = tournament(AGENTS, deals, progress=False, results=path)
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 3 * 3 * 2
    cut = lines[:1 + 2 * 3 * 2 + 2]                     # deals 0, 1 whole; deal 2: one pair
    assert [line.split(",")[:3] for line in cut[-2:]] == [["random", "smallest", "2"]] * 2
    path.write_text("".join(cut))
    resumed = tournament(AGENTS, deals, progress=False, results=path)
    assert untimed(resumed).equals(untimed(full))
    assert len(path.read_text().splitlines()) == 1 + 3 * 3 * 2


def test_a_resumed_tournament_keeps_the_recorded_games_of_done_pairs(tmp_path):
    """Cut after the first pair of the last deal, with every game already in the record: the
    resumed run keeps the record's games of the (pair, deal)s the results file holds, drops
    the others and records them again, so the record ends as the uninterrupted run's."""
    deals = generate_deals(3, seed=2)
    res, rec = tmp_path / "t.csv", tmp_path / "t.jsonl"
    tournament(AGENTS, deals, progress=False, results=res, record=rec)
    full = rec.read_text()
    assert len(full.splitlines()) == 1 + 3 * 3 * 2
    lines = res.read_text().splitlines(keepends=True)
    res.write_text("".join(lines[:1 + 2 * 3 * 2 + 2]))  # deals 0, 1 whole; deal 2: one pair
    tournament(AGENTS, deals, progress=False, results=res, record=rec)
    assert rec.read_text() == full


def test_tournament_rows_follow_the_agents_order_not_the_alphabet():
    games = tournament_games(["smallest", "random", "greedy"], 1, progress=False)
    assert list(dict.fromkeys(zip(games.a, games.b))) == [("smallest", "random"), ("smallest", "greedy"),
                                                         ("random", "greedy")]


def test_a_foreign_results_file_is_refused(tmp_path):
    path = tmp_path / "t.csv"
    deals = generate_deals(2, seed=1)
    tournament(["random", "smallest"], deals, progress=False, results=path)
    with pytest.raises(TournamentResultsError,
                       match=r"another tournament \(agents='random\|smallest', this one has 'random\|greedy'\)"):
        tournament(["random", "greedy"], deals, progress=False, results=path)
    with pytest.raises(TournamentResultsError, match="seed"):
        tournament(["random", "smallest"], deals, progress=False, results=path, seed=1)
    with pytest.raises(TournamentResultsError, match="deals='2:"):
        tournament(["random", "smallest"], generate_deals(2, seed=2), progress=False, results=path)
    with pytest.raises(TournamentResultsError, match="rules"):
        tournament(["random", "smallest"], 2, "mini", progress=False, results=path)
    duel_file = tmp_path / "duel.csv"
    duel_games("random", "smallest", deals, progress=False, results=duel_file)
    with pytest.raises(TournamentResultsError, match="not a tournament results file"):
        tournament(["random", "smallest"], deals, progress=False, results=duel_file)


@pytest.mark.parametrize("kwargs, problem", [
    (dict(agents=["random"]), "at least two agents, got 1"),
    (dict(agents="random"), "a list of agents"),
    (dict(agents=["random", "random"]), r"\['random'\] appear more than once"),
    (dict(agents=["random", "nobody"]), "unknown agent 'nobody'"),
    (dict(deals=0), "at least one deal, got 0"),
    (dict(deals=[]), "^a tournament needs at least one deal, got an empty deal list$"),
    (dict(agents=lambda seed=None: None), "a list of agents or a dict"),
    (dict(n_jobs=0), "n_jobs must be .* at least 1, got 0"),
    (dict(scheduler="tcp://127.0.0.1:1", backend="loky"), "cannot use backend='loky'"),
])
def test_bad_arguments_are_named(kwargs, problem):
    args = {"agents": ["random", "smallest"], "deals": 2, **kwargs}
    with pytest.raises(ValueError, match=problem):
        tournament(args.pop("agents"), args.pop("deals"), progress=False, **args)


def run_cli(argv):
    out = io.StringIO()
    return cli.main(argv, stdin=io.StringIO(), stdout=out), out.getvalue()


def test_cli_prints_the_table_and_writes_it(tmp_path):
    out_file = tmp_path / "table.csv"
    code, out = run_cli(["tournament", "random", "smallest", "greedy", "--deals", "3", "--quiet",
                         "--seed", "3", "--out", str(out_file)])
    assert code == 0
    assert "Round robin of 3 agents, 3 deals x 2 sides" in out
    assert "WP of the row agent against the column agent" in out
    saved = pd.read_csv(out_file)
    ref = tournament(AGENTS, 3, progress=False, seed=3)
    assert untimed(saved).equals(untimed(ref))
    wp = ref.set_index(["a", "b", "role"]).loc[("random", "greedy", "combined")]
    assert f"{wp.WP:.3f} [{wp.WP_lo:.3f}, {wp.WP_hi:.3f}]" in out


@pytest.mark.parametrize("argv, problem", [
    (["random", "smallest", "--deals", "0"], "argument --deals: must be at least 1, not 0"),
    (["random", "smallest", "--deals", "-5"], "argument --deals: must be at least 1, not -5"),
    (["random", "smallest", "--jobs", "0"], "argument --jobs: must be at least 1, not 0"),
    (["random", "smallest", "--deals", "x"], "argument --deals: 'x' is not a whole number"),
])
def test_cli_argument_errors(capsys, argv, problem):
    with pytest.raises(SystemExit) as e:
        run_cli(["tournament", *argv])
    assert e.value.code == 2
    assert problem in capsys.readouterr().err


@pytest.mark.parametrize("argv, problem", [
    (["random", "--deals", "2"], "ddzlab tournament: error: a tournament needs at least two agents, got 1"),
    (["random", "nobody", "--deals", "2"], "ddzlab tournament: error: unknown agent 'nobody'"),
])
def test_cli_bad_agents(capsys, argv, problem):
    code, _ = run_cli(["tournament", *argv, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and problem in err and "Traceback" not in err


def test_cli_ctrl_c_says_how_to_resume(monkeypatch, capsys, tmp_path):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(arena, "tournament", interrupted)
    code, _ = run_cli(["tournament", "random", "smallest", "--results", str(tmp_path / "t.csv")])
    err = capsys.readouterr().err
    assert code == 130 and "interrupted; the finished deals are in" in err and "t.csv, rerun to resume" in err


def _random_on_dask_worker(seed=None):
    """A random agent that fails unless it is built inside a dask worker (or the first,
    argument-checking build in this process)."""
    from distributed import get_worker
    if seed != 0:
        get_worker()
    return RandomAgent(seed)


def test_local_cluster_and_joblib_equal_serial():
    import distributed     # part of the dev extra: a missing install must fail, not skip
    agents = {"random": _random_on_dask_worker, "smallest": "smallest", "greedy": "greedy"}
    deals = generate_deals(6, seed=9)
    serial = tournament(["random", "smallest", "greedy"], deals, progress=False, seed=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        on_dask = tournament(agents, deals, progress=False, seed=1, scheduler=cluster.scheduler_address)
    assert untimed(on_dask).equals(untimed(serial))
    with pytest.raises(ValueError):
        _random_on_dask_worker(1)        # proves the dask run really used the workers
    joblib = tournament(["random", "smallest", "greedy"], deals, progress=False, seed=1, n_jobs=2,
                        chunk_size=4)
    assert untimed(joblib).equals(untimed(serial))


def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(arena, "SCHEDULER_TIMEOUT", 1)
    with pytest.raises(ArenaError, match="cannot reach the dask scheduler at 'tcp://127.0.0.1:9'"):
        tournament(["random", "smallest"], 1, progress=False, scheduler="tcp://127.0.0.1:9")


@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n"])
def test_a_port_where_another_program_answers_is_a_clear_error_in_time(monkeypatch, reply):
    """A server on 127.0.0.1 that accepts and then says nothing (the review's run hung for
    400 s) or answers with something that is not dask: an ArenaError within the timeout."""
    import socket
    import threading
    import time
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(30)
    held = []

    def serve():
        try:
            for _ in range(4):
                conn, _ = srv.accept()
                held.append(conn)
                if reply:
                    conn.recv(64)
                    conn.sendall(reply)
        except OSError:
            pass
    threading.Thread(target=serve, daemon=True).start()
    monkeypatch.setattr(arena, "SCHEDULER_TIMEOUT", 1)
    t0 = time.monotonic()
    try:
        with pytest.raises(ArenaError, match="no dask scheduler answered|cannot reach the dask"):
            tournament(["random", "smallest"], 1, progress=False,
                       scheduler=f"tcp://127.0.0.1:{srv.getsockname()[1]}")
    finally:
        srv.close()
        for c in held:
            c.close()
    assert time.monotonic() - t0 < 1 + 5 + 20          # timeout, grace, import of dask on a loaded machine


def test_paired_wilson_uses_the_sample_variance_of_the_deal_shares():
    """Shares 1, 1/2, 0, 1/2: p = 1/2, sample variance (ddof 1) 1/6, so Var(p̂) = 1/24 and
    the effective size p(1-p)/Var = 6 (ddof 0 would give 8); the interval is the textbook
    Wilson interval at n = 6, written out here."""
    from ddzlab.arena import Z95, paired_wilson
    p, lo, hi = paired_wilson(np.array([1.0, 0.5, 0.0, 0.5]))
    n, z = 6.0, Z95
    centre = (0.5 + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(0.25 / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert p == 0.5
    assert lo == pytest.approx(centre - half, abs=1e-12) and hi == pytest.approx(centre + half, abs=1e-12)
    assert hi - lo == pytest.approx(0.624772, abs=1e-5)


def test_seconds_per_move_weights_each_row_by_its_moves():
    """X spent 0.1 s on each of 100 moves against Y and 1.0 s on each of 10 against Z:
    (10 + 10) / 110 = 0.1818 s per move (an unweighted mean of the rows would be 0.55)."""
    from ddzlab.arena import seconds_per_move
    table = pd.DataFrame({"a": ["X", "X", "Y", "X"], "b": ["Y", "Z", "X", "Y"],
                          "role": ["combined", "combined", "combined", "landlord"],
                          "sec_per_move_a": [0.1, 1.0, 0.5, 9.0], "moves_a": [100, 10, 40, 1]})
    table.attrs["agents"] = ["X", "Y", "Z"]
    spm = seconds_per_move(table)
    assert spm["X"] == pytest.approx(20 / 110) and spm["Y"] == pytest.approx(0.5)
    assert math.isnan(spm["Z"]) and list(spm.index) == ["X", "Y", "Z"]
def test_an_agent_from_a_file_plays_on_dask_worker_processes(tmp_path):
    """A dask worker is another process: it imports the user's file from the spec it is sent
    (the arena never ships a class that only exists in this process). Two workers: joblib runs
    a backend with a single worker in this process."""
    import distributed
    path = tmp_path / "user_agent.py"
    path.write_text("import os\n\n\nclass Pid:\n    '''Smallest legal move; remembers the process.'''\n"
                    "    name = 'pid'\n\n    def bid(self, obs):\n        return 0\n\n"
                    "    def play(self, obs):\n        self.last_eval = {'pid': os.getpid()}\n"
                    "        return min(obs.legal_moves, key=lambda m: (m.is_pass, m.rank, m.size))\n")
    spec = f"{path}:Pid"
    deals = generate_deals(3, seed=2)
    serial = tournament([spec, "greedy"], deals, progress=False, seed=1)
    record = tmp_path / "games.jsonl"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        on_dask = tournament([spec, "greedy"], deals, progress=False, seed=1, scheduler=cluster.scheduler_address,
                             record=record)
    assert untimed(on_dask).equals(untimed(serial))
    pids = {ev["pid"] for line in record.read_text().splitlines()[1:]
            for ev in (m.get("eval") for m in json.loads(line)["moves"]) if ev and "pid" in ev}
    assert pids and os.getpid() not in pids                  # played in the worker process


def test_a_resumed_tournament_numbers_its_games_on_and_refuses_another_runs_record(tmp_path):
    """Record lines of a tournament are numbered 0, 1, 2... in the order written, across a
    resume (not from 0 again); a record of other agents is refused, not appended to."""
    from ddzlab.arena import tournament
    from ddzlab.records import RecordError, read_records
    deals = generate_deals(3, seed=2)
    res, rec = tmp_path / "t.csv", tmp_path / "t.jsonl"
    tournament(["random", "smallest"], deals[:3], progress=False, results=res, record=rec)
    lines = res.read_text().splitlines()
    res.write_text("\n".join(lines[:1 + 4]) + "\n")           # deals 0 and 1 kept
    text = rec.read_text().splitlines()
    rec.write_text("\n".join(text[:1 + 4]) + "\n")
    tournament(["random", "smallest"], deals[:3], progress=False, results=res, record=rec)
    header, games = read_records(rec)
    assert [g.index for g in games] == list(range(6))
    assert sorted((g.extra["deal_no"], g.extra["half"]) for g in games) == [
        (d, h) for d in range(3) for h in (0, 1)]
    with pytest.raises(RecordError, match="holds another run"):
        tournament(["random", "greedy"], deals[:3], progress=False, results=tmp_path / "u.csv",
                   record=rec)
