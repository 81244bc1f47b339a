"""The arena against its definitions (the survivors of `make mutation MODULE=arena`):
the bounds a results row must keep, the seconds a move weighted by moves, the duel table's
shape, and what `duel` passes on."""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from ddzlab import arena
from ddzlab.arena import DuelResultsError, duel, duel_games, seconds_per_move, summarize
from ddzlab.agents import SmallestAgent
from ddzlab.parallel import run_chunks
from ddzlab.stats import wilson

COLUMNS = ["deal", "a_landlord", "landlord_won", "a_won", "bombs", "a_points", "moves", "a_moves", "b_moves"]
GOOD = {"deal": 0, "a_landlord": True, "landlord_won": True, "a_won": True, "bombs": 1, "a_points": 2,
        "moves": 30, "a_moves": 10, "b_moves": 20}


def _check(**change) -> None:
    row = {**GOOD, **change}
    arena._check_row(tuple(row[c] for c in COLUMNS), COLUMNS, n_deals=5, where="f:2")


def test_a_row_keeps_its_bounds_and_no_more():
    """deal in 0..n-1; bombs 0..20 with points ±2^bombs; moves 1..1000; each side's plays 0..moves."""
    for ok in ({"deal": 4}, {"bombs": 20, "a_points": 2**20}, {"bombs": 0, "a_points": 1},
               {"moves": 1, "a_moves": 1, "b_moves": 0}, {"moves": 1000}, {"a_moves": 0}, {"a_moves": 30},
               {"b_moves": 30}):
        _check(**ok)
    for bad, what in (({"deal": 5}, "deal 5 is outside the 5 deals"), ({"deal": -1}, "deal -1"),
                      ({"bombs": 21, "a_points": 2**21}, "bombs=21"),
                      ({"moves": 0, "a_moves": 0, "b_moves": 0}, "bombs=1, moves=0 cannot"),
                      ({"moves": 1001}, "bombs=1, moves=1001 cannot"), ({"a_moves": 31}, "a_moves=31 outside 0..moves"),
                      ({"b_moves": 31}, "b_moves=31 outside 0..moves"), ({"a_moves": -1}, "a_moves=-1"),
                      ({"a_points": -2}, "a_points=-2 is not"), ({"a_won": False, "a_points": -2}, "a_won=False")):
        with pytest.raises(ValueError, match=rf"^f:2: {what}"):
            _check(**bad)


def test_a_time_is_a_number_of_seconds_from_0_below_1e7():
    assert arena._cell("0", "seconds", "a_seconds", "f:2") == 0.0
    assert arena._cell("9999999.5", "seconds", "a_seconds", "f:2") == 9999999.5
    for bad in ("1e7", "-0.001", "nan", "inf"):
        with pytest.raises(ValueError, match=rf"^f:2: a_seconds='{bad}' is not a time in seconds"):
            arena._cell(bad, "seconds", "a_seconds", "f:2")


def _table(agents_attr):
    t = pd.DataFrame({"a": ["zed", "amy", "zed", "amy"], "role": ["combined", "combined", "landlord", "combined"],
                      "sec_per_move_a": [1.0, 0.5, 9.0, 2.0], "moves_a": [10, 30, 5, 10]})
    if agents_attr is not None:
        t.attrs["agents"] = agents_attr
    return t


def test_seconds_a_move_are_weighted_by_moves_in_the_agents_order():
    """amy: (0.5*30 + 2*10) / 40 = 0.875; zed: 1.0 (its landlord row is not combined)."""
    s = seconds_per_move(_table(None))
    assert s.name == "sec_per_move" and s.index.name == "agent"
    assert list(s.index) == ["zed", "amy"] and s.tolist() == pytest.approx([1.0, 0.875])
    s = seconds_per_move(_table(["amy", "zed", "bob"]))
    assert list(s.index) == ["amy", "zed", "bob"] and math.isnan(s["bob"])


def test_the_duel_table_and_what_duel_passes_on(tmp_path):
    results, record = tmp_path / "r.csv", tmp_path / "g.jsonl"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = duel("greedy", "smallest", 2, progress=False, results=results, record=record, chunk_size=1)
    assert table.index.name == "A as" and table["n"].dtype.kind == "i"
    assert table.attrs == {"A": "greedy", "B": "smallest", "rules": "standard", "deals": 2}
    assert results.exists() and len(results.read_text().splitlines()) == 1 + 4
    assert record.exists() and len(record.read_text().splitlines()) == 1 + 4
    # the defaults: seed 0
    pd.testing.assert_frame_equal(table, duel("greedy", "smallest", 2, seed=0, progress=False))
    games = duel_games("greedy", "smallest", 2, seed=0, progress=False)
    pd.testing.assert_frame_equal(summarize(games), table, check_like=False)


def test_duel_shows_progress_by_default(capsys):
    duel("greedy", "smallest", 1)
    assert "duel" in capsys.readouterr().err


def test_results_file_messages(tmp_path):
    path = tmp_path / "r.csv"
    duel_games("greedy", "smallest", 2, seed=0, progress=False, results=path)
    lines = path.read_text().splitlines()
    cut = tmp_path / "cut.csv"
    cut.write_text("\n".join(lines) + "\n" + lines[-1][:10])              # a last line without its newline
    with pytest.warns(UserWarning, match=r"the last line was cut short \(an interrupted write\): dropped, "
                                         r"its deal is replayed"):
        duel_games("greedy", "smallest", 2, seed=0, progress=False, results=cut)
    other = tmp_path / "other.csv"
    other.write_text("x,y\n")
    with pytest.raises(DuelResultsError, match=r"not a duel results file \(first line 'x,y'\)"):
        duel_games("greedy", "smallest", 2, seed=0, progress=False, results=other)
    twice = tmp_path / "twice.csv"
    twice.write_text("\n".join(lines + [lines[1]]) + "\n")
    with pytest.raises(DuelResultsError, match=r"a second row of \{'deal': 0\} with a_landlord=True: the file is damaged"):
        duel_games("greedy", "smallest", 2, seed=0, progress=False, results=twice)


def test_the_results_file_names_its_columns_and_the_duel(tmp_path):
    path = tmp_path / "r.csv"
    duel_games("greedy", "smallest", 2, seed=3, progress=False, results=path)
    head, first, *_ = path.read_text(encoding="utf-8").splitlines()
    assert head.split(",") == list(arena.GAME_COLUMNS) + ["a", "b", "rules", "seed", "deals"]
    assert first.split(",")[len(arena.GAME_COLUMNS):][:4] == ["greedy", "smallest", "standard", "3"]


def test_a_complete_results_file_resumes_without_a_warning(tmp_path):
    path = tmp_path / "r.csv"
    first = duel_games("greedy", "smallest", 3, seed=0, progress=False, results=path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = duel_games("greedy", "smallest", 3, seed=0, progress=False, results=path)
    pd.testing.assert_frame_equal(first, again)


def test_a_foreign_first_line_is_quoted_up_to_120_characters(tmp_path):
    long = tmp_path / "long.csv"
    line = "x" * 100 + "y" * 100
    long.write_text(line + "\n")
    with pytest.raises(DuelResultsError) as err:
        duel_games("greedy", "smallest", 1, progress=False, results=long)
    assert f"(first line {line[:120]!r})" in str(err.value)
    cut = tmp_path / "cut.csv"                      # only a cut line: dropped, nothing is left
    cut.write_text("abc")
    with pytest.warns(UserWarning, match="cut short"), \
            pytest.raises(DuelResultsError, match=r"not a duel results file \(first line ''\)"):
        duel_games("greedy", "smallest", 1, progress=False, results=cut)


def test_a_duel_record_names_its_seed_and_source(tmp_path):
    from ddzlab.records import read_records
    path = tmp_path / "g.jsonl"
    duel_games("greedy", "smallest", 1, seed=5, progress=False, record=path)
    header, games = read_records(path)
    assert (header.seed, header.source, header.agents, len(games)) == (5, "duel", ("greedy", "smallest"), 2)


def test_duel_games_checks_its_backend_and_shows_progress_by_default(capsys):
    with pytest.raises(arena.ArenaError, match="nosuch"):
        duel_games("greedy", "smallest", 1, backend="nosuch")
    duel_games("greedy", "smallest", 1)
    assert "duel" in capsys.readouterr().err


def test_the_default_seed_is_0():
    games = duel_games("random", "greedy", 3, progress=False)
    pd.testing.assert_frame_equal(games, duel_games("random", "greedy", 3, seed=0, progress=False))
    assert not games.equals(duel_games("random", "greedy", 3, seed=1, progress=False))
    table = duel("random", "greedy", 3, progress=False)
    pd.testing.assert_frame_equal(table, duel("random", "greedy", 3, seed=0, progress=False))
    assert not table.equals(duel("random", "greedy", 3, seed=1, progress=False))


def test_the_progress_bar_counts_deals_or_chunks(capsys):
    """Serially the bar counts deals (2/2 deal); in parallel it counts chunks (2/2 chunk,
    two deals each), named ``duel`` either way."""
    duel_games("greedy", "smallest", 2, seed=0)
    err = capsys.readouterr().err.replace("\r", "\n").splitlines()[-1]
    assert err.startswith("duel: 100%") and " 2/2 " in err and "chunk" not in err
    assert re.search(r"\d(deal/s|s/deal)\]$", err), err       # tqdm's rate names the unit
    duel_games("greedy", "smallest", 4, seed=0, n_jobs=2, chunk_size=2)
    err = capsys.readouterr().err.replace("\r", "\n").splitlines()[-1]
    assert err.startswith("duel: 100%") and " 2/2 " in err and "deal" not in err
    assert re.search(r"\d(chunk/s|s/chunk)\]$", err), err


def test_what_a_duel_hands_the_runner(monkeypatch):
    """`duel` and `duel_games` pass n_jobs, backend and chunk size on to
    `ddzlab.parallel.run_chunks`: by default one process and one deal a unit; a backend alone
    chunks by the machine's cores (4 units a core, here 1 core: 5 deals in units of ceil(5/4) = 2)."""
    calls = []

    def recording(func, chunks, n_jobs=1, backend=None):
        calls.append(([len(c) for c in chunks], n_jobs, backend))
        return run_chunks(func, chunks, n_jobs, backend)

    monkeypatch.setattr(arena, "run_chunks", recording)
    duel("greedy", "smallest", 3, progress=False)
    duel("greedy", "smallest", 8, progress=False, n_jobs=2, backend="threading", chunk_size=3)
    monkeypatch.setattr(arena.os, "cpu_count", lambda: 1)
    duel_games("greedy", "smallest", 5, progress=False, backend="threading")
    assert calls == [([1, 1, 1], 1, None), ([3, 3, 2], 2, "threading"), ([2, 2, 1], 1, "threading")]


def _tgames(rows: list[tuple], agents=None) -> pd.DataFrame:
    """Tournament game rows (a, b, deal, a_landlord, a_won, bombs, a_points, a_seconds,
    a_moves, b_seconds, b_moves); the other columns follow from them."""
    out = [{"a": a, "b": b, "deal": d, "a_landlord": al, "landlord_won": al == aw, "a_won": aw,
            "bombs": bo, "a_points": pts, "moves": am + bm, "a_seconds": asec, "a_moves": am,
            "b_seconds": bsec, "b_moves": bm}
           for a, b, d, al, aw, bo, pts, asec, am, bsec, bm in rows]
    df = pd.DataFrame(out, columns=arena.TOURNAMENT_GAME_COLUMNS)
    if agents is not None:
        df.attrs["agents"] = agents
    return df


X_VS_Y = [("x", "y", 0, True, True, 0, 1, 1.0, 10, 4.0, 20),
          ("x", "y", 0, False, True, 1, 2, 2.0, 8, 2.0, 16),
          ("x", "y", 1, True, False, 0, -1, 0.5, 5, 1.0, 10),
          ("x", "y", 1, False, True, 0, 1, 0.6, 6, 1.2, 12)]


def test_tournament_table_by_hand_for_both_sides_and_roles():
    """x beats y on 3 of 4 games. By hand, for each ordered pair and role: games, WP, ADP,
    seconds a move (A's and B's seconds over their moves in those games) and moves."""
    t = arena.tournament_table(_tgames(X_VS_Y)).set_index(["a", "b", "role"])
    want = {  # (games, WP, ADP, sec/move A, sec/move B, moves A, moves B)
        ("x", "y", "landlord"): (2, 0.5, 0.0, 1.5 / 15, 5.0 / 30, 15, 30),
        ("x", "y", "farmers"): (2, 1.0, 1.5, 2.6 / 14, 3.2 / 28, 14, 28),
        ("x", "y", "combined"): (4, 0.75, 0.75, 4.1 / 29, 8.2 / 58, 29, 58),
        ("y", "x", "landlord"): (2, 0.0, -1.5, 3.2 / 28, 2.6 / 14, 28, 14),
        ("y", "x", "farmers"): (2, 0.5, 0.0, 5.0 / 30, 1.5 / 15, 30, 15),
        ("y", "x", "combined"): (4, 0.25, -0.75, 8.2 / 58, 4.1 / 29, 58, 29),
    }
    assert set(t.index) == set(want)
    for key, (games, wp, adp, spa, spb, ma, mb) in want.items():
        row = t.loc[key]
        assert (row.games, row.deals, row.moves_a, row.moves_b) == (games, 2, ma, mb), key
        assert (row.WP, row.ADP, row.sec_per_move_a, row.sec_per_move_b) == pytest.approx((wp, adp, spa, spb)), key


def test_tournament_table_order_and_pairs_without_games():
    games = _tgames(X_VS_Y, agents=["y", "x", "z"])
    t = arena.tournament_table(games)
    assert list(dict.fromkeys(t.a)) == ["y", "x"] and "z" not in set(t.a) | set(t.b)
    assert t.attrs["agents"] == ["y", "x", "z"]
    given = arena.tournament_table(games, agents=["x", "y"])
    assert list(dict.fromkeys(given.a)) == ["x", "y"] and given.attrs["agents"] == ["x", "y"]
    found = arena.tournament_table(_tgames(X_VS_Y))
    assert list(dict.fromkeys(found.a)) == ["x", "y"] and found.attrs["agents"] == ["x", "y"]


def test_tournament_table_without_moves_has_no_seconds_a_move():
    """A role in which a side made no move: its seconds a move is NaN, not a division error."""
    games = _tgames([("x", "w", 0, True, True, 0, 1, 1.0, 4, 1.0, 2),
                     ("x", "w", 0, False, False, 0, -1, 0.0, 0, 0.0, 0)])
    t = arena.tournament_table(games).set_index(["a", "b", "role"])
    assert math.isnan(t.loc[("x", "w", "farmers")].sec_per_move_a)
    assert math.isnan(t.loc[("x", "w", "farmers")].sec_per_move_b)
    assert t.loc[("x", "w", "landlord")].sec_per_move_a == 0.25


def test_mean_ci_of_none_one_and_two_values():
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no numpy warning on the small cases
        assert all(math.isnan(x) for x in arena.mean_ci(np.array([])))
        m, lo, hi = arena.mean_ci(np.array([3.0]))
        assert m == 3.0 and math.isnan(lo) and math.isnan(hi)
        half = arena.Z95 * math.sqrt(2.0) / math.sqrt(2)          # sd of (1, 3) is sqrt(2)
        assert arena.mean_ci(np.array([1.0, 3.0])) == pytest.approx((2.0, 2.0 - half, 2.0 + half))


def test_paired_wilson_edges_and_its_games():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert all(math.isnan(x) for x in arena.paired_wilson(np.array([])))
        assert arena.paired_wilson(np.array([1.0])) == (1.0, *wilson(2, 2))        # one deal: 2 games
        assert arena.paired_wilson(np.array([1.0, 1.0]), games=3) == (1.0, *wilson(3, 3))
        assert arena.paired_wilson(np.array([0.5])) == (0.5, *wilson(1, 2))        # no spread from one deal
        assert arena.paired_wilson(np.array([0.0, 0.0, 0.0])) == (0.0, *wilson(0, 6))   # none at 0%
        assert arena.paired_wilson(np.array([0.0, 0.0, 0.0]))[2] > 0


def test_paired_wilson_at_the_effective_sample_size_by_hand():
    """Shares 0.5 and 1 (two deals, four games): p = 3/4, Var(p) = var(shares, ddof=1) / 2 =
    0.125 / 2, n_eff = p(1 - p) / Var(p) = 3; the Wilson interval of 2.25 wins in 3 at the
    level given."""
    for alpha in (0.05, 0.5):
        assert arena.paired_wilson(np.array([0.5, 1.0]), alpha=alpha) == pytest.approx((0.75, *wilson(2.25, 3, alpha)))
    assert wilson(2.25, 3, 0.5) != pytest.approx(wilson(2.25, 3))


def test_the_scheduler_is_reached_from_a_named_daemon_thread(monkeypatch):
    """`_connect` calls dask's ``Client`` in a daemon thread named ``ddzlab-connect`` (a hung
    connection must not keep the interpreter alive, and shows by name in a thread dump), and
    names the error ``Client`` raised."""
    import threading
    import dask.distributed
    seen = []

    class Refusing:
        def __init__(self, address, timeout):
            t = threading.current_thread()
            seen.append((address, timeout, t.name, t.daemon))
            raise ConnectionRefusedError("nobody home")

    monkeypatch.setattr(dask.distributed, "Client", Refusing)
    with pytest.raises(arena.ArenaError, match="at 'tcp://h:1': ConnectionRefusedError: nobody home"):
        arena._connect("tcp://h:1")
    assert seen == [("tcp://h:1", arena.SCHEDULER_TIMEOUT, "ddzlab-connect", True)]

    class Wordy(Refusing):
        def __init__(self, address, timeout):
            raise OSError("x" * 300)

    monkeypatch.setattr(dask.distributed, "Client", Wordy)
    with pytest.raises(arena.ArenaError, match=r"OSError: x{200}$"):      # the first 200 characters
        arena._connect("tcp://h:1")


def test_a_role_without_games_and_an_odd_number_of_games():
    """One game of x as landlord (won): the farmers row has no games (NaN, no error); the
    combined interval is the Wilson interval over that one game, not over two."""
    t = arena.tournament_table(_tgames(X_VS_Y[:1])).set_index(["a", "b", "role"])
    farmers = t.loc[("x", "y", "farmers")]
    assert farmers.games == 0 and farmers.deals == 0 and math.isnan(farmers.WP)
    comb = t.loc[("x", "y", "combined")]
    assert (comb.games, comb.WP) == (1, 1.0) and (comb.WP_lo, comb.WP_hi) == wilson(1, 1)


def test_labels_of_agent_specs():
    """A registered spec is its own label; a file agent is labelled by its file name, not the
    path a worker received; a tuple by its first item; an object by its name or class."""
    assert arena._label("greedy:x=1") == "greedy:x=1"
    assert arena._label("/some/dir/my_agent.py:MyAgent") == "my_agent.py:MyAgent"
    assert arena._label("/some/dir/my_agent.py") == "/some/dir/my_agent.py"
    assert arena._label(("named", {"x": 1})) == "named"
    assert arena._label(SmallestAgent) == "SmallestAgent" and arena._label(SmallestAgent()) == "SmallestAgent"


def test_a_duel_record_seats_the_landlord_first(tmp_path):
    from ddzlab.records import read_records
    games = duel_games("greedy", "smallest", 2, progress=False, record=tmp_path / "r.jsonl")
    _, recs = read_records(tmp_path / "r.jsonl")
    assert [r.seats for r in recs] == [("greedy", "smallest", "smallest") if g.a_landlord else
                                       ("smallest", "greedy", "greedy") for g in games.itertuples()]


def test_a_results_file_of_one_byte_is_refused_not_overwritten(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("\n")
    with pytest.raises(DuelResultsError, match="not a duel results file"):
        duel_games("greedy", "smallest", 1, progress=False, results=path)
    assert path.read_text() == "\n"


def test_tournament_games_columns_and_attrs():
    games = arena.tournament_games(["smallest", "greedy"], 2, progress=False, seed=3)
    assert list(games.columns) == arena.TOURNAMENT_GAME_COLUMNS and list(games.index) == list(range(4))
    assert games.attrs == {"agents": ["smallest", "greedy"], "rules": "standard", "seed": 3, "deals": 2}


def test_a_resumed_record_that_is_not_utf8_is_refused_unchanged(tmp_path):
    """A damaged record (a byte that is not UTF-8 in a game line) is not repaired on resume
    (it was read with replacement characters and rewritten): the run refuses it, naming the
    file and line, and leaves it as it was."""
    from ddzlab.records import RecordError
    rec, res = tmp_path / "r.jsonl", tmp_path / "r.csv"
    duel_games("smallest", "random", 3, seed=1, progress=False, results=res, record=rec)
    lines = rec.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"smallest"', b'"small\xffest"', 1)
    rec.write_bytes(b"\n".join(lines))
    damaged = rec.read_bytes()
    res.write_text("".join(res.read_text().splitlines(keepends=True)[:-2]))      # deal 2 to replay
    with pytest.raises(RecordError, match=r"r\.jsonl:3: not UTF-8 text \(byte 0xff\)"):
        duel_games("smallest", "random", 3, seed=1, progress=False, results=res, record=rec)
    assert rec.read_bytes() == damaged
