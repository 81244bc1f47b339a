"""The experiment store under damage: every single flipped byte and every cut
tail is found and located, no intact block's row is lost, no wrong row is read; changed
results, duplicates and rows that disagree with the catalog are refused by the loader,
`status` and `run` alike; `repair` keeps the intact rows; runs beyond the published size
go to a user run and never change the published store."""
import gzip
import json
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ddzlab.cli import main
from ddzlab.errors import DdzError
from ddzlab.experiments import (CATALOG, BadRowsError, DamagedStoreError, Experiment, check_stores, load_games,
                                repair_experiment, run_experiment, status, store)
from ddzlab.gzmembers import HEADER_SIZE, block, scan_blocks

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "data" / "experiments" / "03_split_lead" / "games.csv.gz"


def _frame(n: int, start: int = 0) -> pd.DataFrame:
    """``n`` rows of distinct games (two roles each), in store order."""
    rows = [("a", "b", i // 2, ("landlord", "farmers")[i % 2], i % 2, 2 ** (i % 3), 30 + i % 17,
             (i % 97) / 64, 10 + i % 5, 0.5, 11) for i in range(start, start + n)]   # exact at 6 decimals
    return pd.DataFrame(rows, columns=store.COLUMNS).astype(store.DTYPES)


def _blocks(data: bytes) -> list[tuple[int, int, int, int]]:
    """(start byte, end byte, first row, rows) of each block of an intact file."""
    pieces = scan_blocks(data)
    assert all(p.ok for p in pieces)
    return [(p.start, p.end, p.header.seq, p.header.count) for p in pieces]


def _as_tuples(df: pd.DataFrame) -> list[tuple]:
    return list(df[store.COLUMNS].itertuples(index=False, name=None))


def _flip_and_read(path, data: bytes, pos: int, rng, full, blocks):
    """``data`` with one random bit of byte ``pos`` flipped, written to ``path`` and read back;
    the read is checked against the blocks the flip hit (`_check_damaged_read`). Returns the
    read, the damaged bytes and the indices of the blocks hit."""
    bad = bytearray(data)
    bad[pos] ^= 1 << int(rng.integers(8))
    path.write_bytes(bytes(bad))
    got = store.read_store(path)
    hit = {k for k, (s, e, _, _) in enumerate(blocks) if s <= pos < e}
    _check_damaged_read(got, full, blocks, hit)
    return got, bytes(bad), hit


def _check_damaged_read(got: store.StoreRead, full: pd.DataFrame, blocks, hit: set[int]) -> None:
    """What must hold after damage to the blocks ``hit``: every row of every other block is
    read, every row read is a true row in file order, and the damage accounts for the rest."""
    rows = _as_tuples(got.rows)
    truth = _as_tuples(full)
    index = {r: i for i, r in enumerate(truth)}
    assert all(r in index for r in rows), "a row that was never stored was read"
    order = [index[r] for r in rows]
    assert order == sorted(order) and len(set(order)) == len(order)
    must = {i for k, (_, _, seq, count) in enumerate(blocks) if k not in hit for i in range(seq, seq + count)}
    assert must <= set(order), f"rows of intact blocks lost: {sorted(must - set(order))[:5]}"
    assert got.damaged
    lost = sum(d.lost for d in got.damage if d.lost is not None)
    assert all(d.lost is not None for d in got.damage), [d.describe() for d in got.damage]
    assert len(rows) + lost == len(truth)


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(store, "BLOCK_ROWS", 16)


def test_every_single_byte_flip_is_found_and_loses_only_its_block(tmp_path, small_blocks):
    full = _frame(56)                                   # 4 blocks: 16, 16, 16, 8 rows
    data = store.encode(full)
    blocks = _blocks(data)
    assert [b[3] for b in blocks] == [16, 16, 16, 8]
    path = tmp_path / "games.csv.gz"
    path.write_bytes(data)
    assert not store.read_store(path).damaged and store.read_store(path).sealed
    # plain gzip reads the file as one CSV (header once, a check column last)
    assert gzip.decompress(data).decode().splitlines()[0] == ",".join(store.COLUMNS + ["check"])
    rng = np.random.default_rng(1)
    header_flips_read_whole = 0
    for pos in range(len(data)):
        got, bad, hit = _flip_and_read(path, data, pos, rng, full, blocks)
        assert any(d.start <= pos < d.end for d in got.damage), (pos, [d.describe() for d in got.damage])
        if pos % 7 == 0:
            with pytest.raises(DamagedStoreError, match="repair me"):
                store.compact(path, repair="repair me")
            assert path.read_bytes() == bad      # a damaged store is never rewritten
        k = hit.pop()
        if pos - blocks[k][0] < HEADER_SIZE:
            header_flips_read_whole += len(got.rows) == len(full)
    # a flip in a header (time stamp, flags, the DZ field) loses no row: the data is intact
    assert header_flips_read_whole == 4 * HEADER_SIZE


def test_header_bytes_gzip_does_not_check_are_checked(tmp_path):
    full = _frame(10)
    data = store.encode(full)
    path = tmp_path / "games.csv.gz"
    for pos in (4, 5, 6, 7, 8, 9):                     # mtime, XFL, OS: gzip ignores them
        bad = bytearray(data)
        bad[pos] ^= 0x10
        assert gzip.decompress(bytes(bad)) == gzip.decompress(data)
        path.write_bytes(bytes(bad))
        got = store.read_store(path)
        assert got.damaged and len(got.rows) == 10
        assert "bytes 0-" in got.describe()


def test_random_flips_of_a_committed_store(tmp_path):
    data = COMMITTED.read_bytes()
    full = store.read_store(COMMITTED).rows
    blocks = _blocks(data)
    assert len(full) == 8000 and len(blocks) == 32
    path = tmp_path / "games.csv.gz"
    rng = np.random.default_rng(37)
    kept = []
    for pos in rng.integers(0, len(data), 60):
        got, _, _ = _flip_and_read(path, data, pos, rng, full, blocks)
        assert len(got.damage) == 1 and got.damage[0].start <= pos < got.damage[0].end
        kept.append(len(got.rows))
    assert min(kept) >= 8000 - 256


def test_a_cut_tail_is_damage_and_loses_only_the_cut_block(tmp_path, small_blocks):
    full = _frame(56)
    data = store.encode(full)
    blocks = _blocks(data)
    path = tmp_path / "games.csv.gz"
    edges = {e + d for _, e, _, _ in blocks for d in (-1, 0, 1)} | {s + d for s, _, _, _ in blocks for d in (1, 49, 50)}
    for cut in sorted(c for c in set(range(1, len(data), 3)) | edges if 0 < c < len(data)):
        path.write_bytes(data[:cut])
        got = store.read_store(path)
        if cut < HEADER_SIZE:       # the file alone cannot tell this from a first write stopped at once
            assert got.interrupted == cut and len(got.rows) == 0      # (the published count can: below)
            continue
        hit = {k for k, (s, e, _, _) in enumerate(blocks) if e > cut}
        _check_damaged_read(got, full, blocks, hit)
        assert got.interrupted == 0                     # a sealed block cut short is no interrupted run
        text = got.describe()
        assert "cut tail" in text and "rows" in text
    path.write_bytes(data[:blocks[2][0]])               # cut exactly between two blocks: still seen
    got = store.read_store(path)
    assert len(got.rows) == 32 and [d.rows for d in got.damage] == [(32, 56)]
    assert "the file ends early" in got.describe()


def test_a_changed_result_is_found(tmp_path, small_blocks):
    full = _frame(40)
    data = store.encode(full)
    path = tmp_path / "games.csv.gz"
    # edit one row's result and recompress its block as a valid block: the row check fails
    start, end, seq, count = _blocks(data)[1]
    text = gzip.decompress(data[start:end])
    line = text.split(b"\n")[3]
    fields = line.split(b",")
    fields[4] = b"1" if fields[4] == b"0" else b"0"
    edited = text.replace(line, b",".join(fields), 1)
    path.write_bytes(data[:start] + block(edited, seq, count, total=40, sealed=True) + data[end:])
    got = store.read_store(path)
    assert len(got.rows) == 39 and "fail their check" in got.describe()
    # the whole file recompressed by plain gzip, one value changed: the row is found, the rest kept
    whole = gzip.decompress(data).replace(line, b",".join(fields), 1)
    path.write_bytes(gzip.compress(whole))
    got = store.read_store(path)
    assert got.damaged and len(got.rows) == 39 and "no block headers" in got.describe()
    assert set(_as_tuples(got.rows)) <= set(_as_tuples(full))


def test_interrupted_append_is_replayed_not_damage(tmp_path):
    path = tmp_path / "games.csv.gz"
    store.write(path, _frame(8))
    whole = path.read_bytes()
    store.append(path, _as_tuples(_frame(4, 8)), seq=8)
    appended = path.read_bytes()
    for cut in range(len(whole) + 1, len(appended)):
        path.write_bytes(appended[:cut])
        got = store.read_store(path)
        assert not got.damaged and got.interrupted == cut - len(whole) and len(got.rows) == 8
    path.write_bytes(appended)
    assert len(store.compact(path)) == 12 and store.read_store(path).sealed


# -- the experiment level: loader, status, run, repair alike ---------------------------------------
def _exp(name="t", deals=4):
    return Experiment(name, configs=["smallest", "random"], opponents=["greedy"], deals=deals, seed=3)


def test_damaged_store_is_refused_by_load_status_run_and_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DDZLAB_EXPERIMENTS", str(tmp_path / "exp"))
    monkeypatch.setattr(store, "BLOCK_ROWS", 4)
    exp, other = _exp(), _exp("u")
    monkeypatch.setitem(CATALOG, "t", exp)
    monkeypatch.setitem(CATALOG, "u", other)
    games = run_experiment(exp, progress=False)
    run_experiment(other, progress=False)
    path = tmp_path / "exp" / "t" / "games.csv.gz"
    data = bytearray(path.read_bytes())
    start, end, seq, count = _blocks(bytes(data))[2]
    data[start + HEADER_SIZE:end - 8] = bytes(end - 8 - start - HEADER_SIZE)   # block 2's rows zeroed
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedStoreError, match=r"(?s)bytes \d+-\d+.*ddzlab experiment repair t") as e:
        load_games(exp)
    assert isinstance(e.value, DdzError) and isinstance(e.value, ValueError)
    with pytest.raises(DamagedStoreError, match="ddzlab experiment repair t"):
        run_experiment(exp, progress=False)
    assert path.read_bytes() == bytes(data)
    st = status().set_index("experiment")
    assert "DamagedStoreError" in st.loc["t", "problem"] and "repair t" in st.loc["t", "problem"]
    assert st.loc["u", "problem"] == "" and st.loc["u", "games"] == 16      # the others still listed
    assert main(["experiment", "status"]) == 1
    assert "ddzlab experiment repair t" in capsys.readouterr().out
    assert "repair t" in check_stores()[0]
    from ddzlab.report import ReportError, run_report
    with pytest.raises(ReportError, match="(?s)cannot be read.*repair t"):
        run_report(only=["99"])
    # the intact rows stay readable; the repair keeps them and says what it dropped
    intact = load_games(exp, allow_damaged=True)
    assert len(intact) == 16 - 4 and intact.attrs["damage"]
    assert main(["experiment", "repair", "t"]) == 0
    out = capsys.readouterr().out
    assert "damaged: bytes" in out and "12 games kept" in out
    assert (path.parent / "games.csv.gz.damaged").read_bytes() == bytes(data)
    assert len(load_games(exp)) == 12
    # the run replays only the games the damage lost
    again = run_experiment(exp, progress=False)
    pd.testing.assert_frame_equal(again[["config", "opponent", "deal", "role", "won", "points"]],
                                  games[["config", "opponent", "deal", "role", "won", "points"]])


@pytest.mark.parametrize("row, match", [
    (("smallest", "greedy", 0, "landlord", 1, 2, 30, 0.1, 10, 0.1, 11), "twice"),
    (("nobody", "greedy", 0, "landlord", 1, 2, 30, 0.1, 10, 0.1, 11), "never had"),
    (("smallest", "greedy", 9, "landlord", 1, 2, 30, 0.1, 10, 0.1, 11), "does not have"),
    (("greedy", "smallest", 1, "landlord", 1, 2, 30, 0.1, 10, 0.1, 11), "does not play"),
])
def test_bad_rows_are_refused_everywhere(tmp_path, monkeypatch, row, match):
    monkeypatch.setenv("DDZLAB_EXPERIMENTS", str(tmp_path / "exp"))
    exp = _exp()
    monkeypatch.setitem(CATALOG, "t", exp)
    run_experiment(exp, progress=False)
    path = tmp_path / "exp" / "t" / "games.csv.gz"
    store.append(path, [row], seq=16)
    before = path.read_bytes()
    with pytest.raises(BadRowsError, match=match):
        load_games(exp)
    with pytest.raises(BadRowsError, match=match):
        run_experiment(exp, progress=False)
    assert path.read_bytes() == before
    assert match.split()[0] in status().set_index("experiment").loc["t", "problem"]
    done = repair_experiment(exp)
    if match == "twice":            # two different results for one game: neither is kept, nor its other role
        assert done.kept == 14 and done.dropped == {"copies of a game that disagree (all dropped)": 2,
                                                    "games with one role left (the other lost)": 1}
    else:
        assert done.kept == 16 and sum(done.dropped.values()) == 1
    assert len(load_games(exp)) == done.kept
    assert len(run_experiment(exp, progress=False)) == 16                  # the dropped game replayed


def test_rows_of_retired_agents_are_left_out_with_a_warning(tmp_path):
    grown = _exp(deals=2)
    run_experiment(Experiment("t", configs=["smallest", "random", "split_random"], opponents=["greedy"],
                              deals=2, seed=3), root=tmp_path, progress=False)
    with pytest.warns(UserWarning, match="4 stored row.*split_random"):
        games = load_games(grown, root=tmp_path)
    assert len(games) == 8 and len(load_games(grown, root=tmp_path, all_rows=True)) == 12


def test_committed_stores_are_published_and_read_whole():
    for name, exp in CATALOG.items():
        folder = ROOT / "data" / "experiments" / name
        if not (folder / "games.csv.gz").exists():
            continue
        meta = json.loads((folder / "experiment.json").read_text())
        got = store.read_store(folder / "games.csv.gz")
        assert not got.damaged and got.sealed and not got.legacy, name
        assert meta["published"]["games"] == len(got.rows), name
        assert folder.joinpath("games.csv.gz").stat().st_size < 3e6, name
    guessers = store.read_store(ROOT / "data/experiments/05_guessers/games.csv.gz").rows
    assert set(guessers.config) == set(CATALOG["05_guessers"].configs)       # no stray rows left


# -- user runs apart from published runs ----------------------------------------------------------
def test_a_bigger_run_goes_to_a_user_run_and_report_reads_the_published_store(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DDZLAB_EXPERIMENTS", str(tmp_path / "exp"))
    monkeypatch.delenv("DDZLAB_USER_EXPERIMENTS", raising=False)
    exp = _exp(deals=5)
    monkeypatch.setitem(CATALOG, "t", exp)
    run_experiment(exp, deals=2, publish=True, progress=False)
    folder = tmp_path / "exp" / "t"
    meta = json.loads((folder / "experiment.json").read_text())
    assert meta["published"] == {"deals": 2, "games": 8}
    published = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    # within the published size: nothing to play, nothing written
    assert len(run_experiment(exp, deals=2, progress=False)) == 8
    assert main(["experiment", "run", "t", "--deals", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "a user run" in out and str(tmp_path / "exp-user" / "t") in out
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == published
    assert len(load_games(exp)) == 8                                    # what the report reads
    mine = load_games(exp, into="t")
    assert len(mine) == 12 and mine.attrs["deals_complete"] == 3
    pd.testing.assert_frame_equal(mine[mine.deal < 2].reset_index(drop=True)[store.COLUMNS[:7]],
                                  load_games(exp)[store.COLUMNS[:7]])    # seeded from the published rows
    monkeypatch.setenv("DDZLAB_USER_RUNS", "1")                          # ddzlab report --user-runs
    assert len(load_games(exp)) == 12
    monkeypatch.delenv("DDZLAB_USER_RUNS")
    # a run under a name the user gives, and the status of both
    assert len(run_experiment(exp, deals=4, into="mine", progress=False)) == 16
    st = status()
    assert set(st[st.experiment == "t"]["store"]) == {"published", "user:t", "user:mine"}
    assert len(load_games(exp)) == 8
    # an edit of the published store without publishing is refused
    store.append(folder / "games.csv.gz", _as_tuples(mine[mine.deal == 2]), seq=8)
    with pytest.raises(BadRowsError, match="were published"):
        load_games(exp)
    # a published store cut anywhere, even inside its first block header, is refused
    (folder / "games.csv.gz").write_bytes(published["games.csv.gz"][:20])
    with pytest.raises(DamagedStoreError, match="rows are missing"):
        load_games(exp)
    with pytest.raises(DamagedStoreError, match="rows are missing"):
        run_experiment(exp, deals=3, progress=False)
    (folder / "games.csv.gz").write_bytes(published["games.csv.gz"])
    # only the deliberate command changes the published store
    run_experiment(exp, deals=3, publish=True, progress=False)
    assert json.loads((folder / "experiment.json").read_text())["published"] == {"deals": 3, "games": 12}
    assert len(load_games(exp)) == 12


def test_report_of_user_runs_goes_beside_the_committed_report(monkeypatch):
    from ddzlab.config import REPORT_DIR, run_dir
    monkeypatch.setenv("DDZLAB_SCALE", "quick")
    monkeypatch.delenv("DDZLAB_SCALE_FACTOR", raising=False)
    monkeypatch.delenv("DDZLAB_USER_RUNS", raising=False)
    assert run_dir() == REPORT_DIR                       # the published report: published stores only
    monkeypatch.setenv("DDZLAB_USER_RUNS", "1")
    assert run_dir() == REPORT_DIR / "user"              # not the committed report: nothing published


def test_a_store_of_no_rows_reads_whole(tmp_path):
    path = tmp_path / "games.csv.gz"
    store.write(path, store.empty())
    got = store.read_store(path)
    assert not got.damaged and len(got.rows) == 0 and got.sealed


def test_a_garbled_row_with_a_valid_check_is_refused_and_status_goes_on(tmp_path, monkeypatch):
    monkeypatch.setenv("DDZLAB_EXPERIMENTS", str(tmp_path / "exp"))
    exp, other = _exp(), _exp("u")
    monkeypatch.setitem(CATALOG, "t", exp)
    monkeypatch.setitem(CATALOG, "u", other)
    run_experiment(exp, progress=False)
    run_experiment(other, progress=False)
    body = b"smallest,greedy,3,landlord,yes,1,30,0.1,10,0.1,11"          # 'won' does not parse
    line = body + f",{zlib.crc32(body):08x}\n".encode()
    path = tmp_path / "exp" / "t" / "games.csv.gz"
    with open(path, "ab") as f:
        f.write(block(line, 16, 1))
    with pytest.raises(BadRowsError, match="does not parse"):
        load_games(exp)
    st = status().set_index("experiment")
    assert "BadRowsError" in st.loc["t", "problem"] and st.loc["u", "games"] == 16


def test_a_store_in_the_old_format_is_read_and_converted(tmp_path):
    path = tmp_path / "games.csv.gz"
    full = _frame(6)
    old = ",".join(store.COLUMNS) + "\n" + full.to_csv(header=False, index=False, float_format="%.6f")
    path.write_bytes(gzip.compress(old.encode(), mtime=0))
    got = store.read_store(path)
    assert got.legacy and not got.damaged
    pd.testing.assert_frame_equal(got.rows, full)
    pd.testing.assert_frame_equal(store.compact(path), full)
    again = store.read_store(path)
    assert not again.legacy and again.sealed
    pd.testing.assert_frame_equal(again.rows, full)


def test_a_stopped_publishing_run_resumes_with_publish(tmp_path):
    """A ``--publish`` run stopped after it appended games but before it recorded the new size
    leaves more rows than were published: a reader refuses them, and the next ``--publish`` run
    takes them up and publishes the whole."""
    exp = _exp(deals=4)
    run_experiment(exp, deals=2, root=tmp_path, progress=False, publish=True)
    meta_path = tmp_path / exp.name / "experiment.json"
    published = json.loads(meta_path.read_text())["published"]
    run_experiment(exp, deals=3, root=tmp_path, progress=False, publish=True)
    meta = json.loads(meta_path.read_text())
    meta["published"] = published                      # as if the run stopped before recording
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(BadRowsError, match="were published"):
        load_games(exp, root=tmp_path)
    games = run_experiment(exp, deals=4, root=tmp_path, progress=False, publish=True)
    assert games["deal"].nunique() == 4
    assert json.loads(meta_path.read_text())["published"]["deals"] == 4
    assert len(load_games(exp, root=tmp_path)) == len(games)
