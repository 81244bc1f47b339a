"""The experiment store's definitions, checked on rows small enough to work out by hand.

A stored row is its values joined by commas (seconds to the microsecond) and a ``check``: the
CRC-32 of that text in 8 hex digits. Rows are kept in deal, config, opponent order, landlord
before farmers; a whole file is sealed blocks of `BLOCK_ROWS` rows, each naming the file's
row count. `repair` keeps one copy of a game stored twice alike, none of one stored twice
differently, and drops a game with one role, saying how many rows each rule dropped.
"""
from __future__ import annotations

import gzip
import zlib

import pandas as pd
import pytest

from ddzlab.experiments import store
from ddzlab.gzmembers import scan_blocks


def _row(config="a", opponent="b", deal=0, role="landlord", won=1, points=2, moves=30, seconds=0.5, plays=10,
         opp_seconds=0.25, opp_plays=12) -> tuple:
    return (config, opponent, deal, role, won, points, moves, seconds, plays, opp_seconds, opp_plays)


def _frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=store.COLUMNS).astype(store.DTYPES)


def _game(deal: int, config: str = "a", opponent: str = "b", won: int = 1) -> list[tuple]:
    """The two rows of one game: the config as landlord, then as the farmers."""
    return [_row(config, opponent, deal, "landlord", won), _row(config, opponent, deal, "farmers", 1 - won)]


def test_a_row_is_its_values_and_the_crc32_of_their_text():
    body = "a,b,3,farmers,0,-4,41,1.250000,7,0.000001,9"
    line = store.to_csv([("a", "b", 3, "farmers", 0, -4, 41, 1.25, 7, 0.000001, 9)], header=False)
    assert line == f"{body},{zlib.crc32(body.encode()):08x}\n".encode()
    assert len(line.rstrip(b"\n").rsplit(b",", 1)[1]) == 8
    two = store.to_csv([_row(), _row(deal=1)], header=True)
    assert two.split(b"\n")[0] == (",".join(store.COLUMNS) + ",check").encode()
    assert two.count(b"\n") == 3


def test_a_checked_line_reads_back_and_a_changed_one_does_not():
    line = store.to_csv([_row(points=8)], header=False).rstrip(b"\n")
    assert store._checked(line) == "a,b,0,landlord,1,8,30,0.500000,10,0.250000,12"
    assert store._checked(line.replace(b",8,", b",9,")) is None          # a changed result
    assert store._checked(line[:-1] + (b"1" if line.endswith(b"0") else b"0")) is None   # a wrong check
    assert store._checked(line + b"0") is None                           # a check of 9 digits
    assert store._checked(b"a,b," + line) is None                        # two extra columns
    assert store._checked(line.rsplit(b",", 1)[0]) is None               # no check at all


def test_store_order_is_deal_config_opponent_landlord_first():
    rows = [_row("b", "x", 1, "farmers"), _row("b", "x", 1, "landlord"), _row("a", "y", 1, "landlord"),
            _row("a", "x", 2, "farmers"), _row("a", "x", 0, "farmers"), _row("a", "x", 0, "landlord")]
    got = store.sort_rows(_frame(rows))
    assert list(got[["deal", "config", "opponent", "role"]].itertuples(index=False, name=None)) == [
        (0, "a", "x", "landlord"), (0, "a", "x", "farmers"), (1, "a", "y", "landlord"),
        (1, "b", "x", "landlord"), (1, "b", "x", "farmers"), (2, "a", "x", "farmers")]
    assert list(got.index) == list(range(6)) and list(got.columns) == store.COLUMNS


def test_a_whole_file_is_sealed_blocks_of_block_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "BLOCK_ROWS", 4)
    rows = [r for d in range(5) for r in _game(d)]                        # 10 rows: blocks of 4, 4, 2
    data = store.encode(_frame(rows))
    heads = [p.header for p in scan_blocks(data)]
    assert [(h.seq, h.count, h.total, h.sealed) for h in heads] == [(0, 4, 10, True), (4, 4, 10, True),
                                                                    (8, 2, 10, True)]
    text = gzip.decompress(data).decode().splitlines()                   # one CSV, header once
    assert text[0] == store.HEADER_LINE and len(text) == 11
    assert [line.rsplit(",", 1)[0] for line in text[1:3]] == ["a,b,0,landlord,1,2,30,0.500000,10,0.250000,12",
                                                            "a,b,0,farmers,0,2,30,0.500000,10,0.250000,12"]
    path = tmp_path / "games.csv.gz"
    store.write(path, _frame(rows))
    got = store.read_store(path)
    assert got.sealed and not got.damaged and got.next_seq == 10 and got.interrupted == 0
    pd.testing.assert_frame_equal(got.rows, _frame(rows))
    assert not (tmp_path / "games.csv.gz.tmp").exists()


def test_an_empty_store_is_one_sealed_block_of_no_rows(tmp_path):
    heads = [p.header for p in scan_blocks(store.encode(store.empty()))]
    assert [(h.seq, h.count, h.total, h.sealed) for h in heads] == [(0, 0, 0, True)]
    got = store.read_store(tmp_path / "none.csv.gz")
    assert len(got.rows) == 0 and not got.damaged and got.next_seq == 0


def test_appended_blocks_number_their_rows_and_compact_seals_them_in_store_order(tmp_path):
    path = tmp_path / "games.csv.gz"
    store.append(path, _game(2))
    store.append(path, _game(0) + _game(1))
    heads = [p.header for p in scan_blocks(path.read_bytes())]
    assert [(h.seq, h.count, h.sealed) for h in heads] == [(0, 2, False), (2, 4, False)]
    got = store.read_store(path)
    assert not got.sealed and got.next_seq == 6 and list(got.rows["deal"]) == [2, 2, 0, 0, 1, 1]
    ordered = store.compact(path)
    assert list(ordered["deal"]) == [0, 0, 1, 1, 2, 2]
    again = store.read_store(path)
    assert again.sealed and list(again.rows["deal"]) == [0, 0, 1, 1, 2, 2]
    before = path.read_bytes()
    store.compact(path)                                                  # intact and sealed: untouched
    assert path.read_bytes() == before
    store.append(path, [])                                               # nothing to append: no block
    assert path.read_bytes() == before


def test_a_game_twice_or_with_one_role_is_refused_with_counts(tmp_path):
    path = tmp_path / "g.csv.gz"
    store.check_rows(path, _frame(_game(0) + _game(1)))
    with pytest.raises(store.BadRowsError, match=r"2 rows store the same game twice"):
        store.check_rows(path, _frame(_game(0) + _game(1) + [_row(deal=1, role="farmers", won=0)]))
    with pytest.raises(store.BadRowsError, match=r"1 game\(s\) with only one of their two roles"):
        store.check_rows(path, _frame(_game(0) + [_row(deal=1)]))


def test_repair_counts_each_kind_of_row_it_drops(tmp_path):
    path = tmp_path / "games.csv.gz"
    rows = (_game(3) + _game(0)                                            # two good games, out of order
            + [_row(deal=0)]                                             # an exact copy: one kept
            + [_row(deal=5, won=1), _row(deal=5, won=0)]                  # the landlord row twice, differently
            + _game(5)[1:]                                               # (so game 5 is also one role short)
            + [_row(deal=7, role="farmers")]                             # a game with one role
            + _game(9, config="gone"))                                   # rows a caller drops
    store.append(path, rows)
    done = store.repair(path, drop=lambda df: df["config"] == "gone", why="retired")
    assert done.dropped == {"retired": 2, "exact copies of a stored game": 1,
                            "copies of a game that disagree (all dropped)": 2,
                            "games with one role left (the other lost)": 2}
    assert done.kept == 4 and done.backup is None and done.damage == []
    got = store.read_store(path)
    assert got.sealed and list(got.rows["deal"]) == [0, 0, 3, 3]
    assert list(got.rows["role"]) == ["landlord", "farmers", "landlord", "farmers"]


def test_repair_of_a_damaged_file_keeps_a_backup_and_counts_the_lost_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "BLOCK_ROWS", 4)
    path = tmp_path / "games.csv.gz"
    store.write(path, _frame([r for d in range(6) for r in _game(d)]))  # blocks of rows 0-3, 4-7, 8-11
    data = path.read_bytes()
    second = scan_blocks(data)[1]
    bad = bytearray(data)
    bad[(second.start + second.end) // 2] ^= 0xFF
    path.write_bytes(bytes(bad))
    got = store.read_store(path)
    assert got.damaged and [d.rows for d in got.damage] == [(4, 8)]
    d = got.damage[0]
    assert d.lost == 4 - d.kept
    assert "between deal 1 and deal 4" in d.near
    with pytest.raises(store.DamagedStoreError):
        store.compact(path)
    assert path.read_bytes() == bytes(bad)                               # a damaged store is never rewritten
    done = store.repair(path)
    assert done.backup == tmp_path / "games.csv.gz.damaged" and done.backup.read_bytes() == bytes(bad)
    assert done.dropped["lost in damaged bytes (known count)"] == d.lost
    assert done.kept == 8 + 2 * (d.kept // 2)                          # a game left with one role goes too
    assert set(store.read_store(path).rows["deal"]) >= {0, 1, 4, 5}


def test_damage_in_words():
    d = store.Damage(10, 20, "damaged block", (4, 8), kept=1, near="; between deal 1 and deal 4")
    assert d.lost == 3
    assert d.describe() == ("bytes 10-20: damaged block; 3 row(s) lost (rows 4-7 of the file), 1 intact"
                            "; between deal 1 and deal 4")
    unknown = store.Damage(0, 5, "stray bytes")
    assert unknown.lost is None
    assert unknown.describe() == "bytes 0-5: stray bytes; an unknown number of rows lost, 0 intact"
    assert store.Damage(0, 1, "x", (2, 3), kept=5).lost == 0                 # never negative
    read = store.StoreRead(store.Path("g.csv.gz"), _frame(_game(0)), [d])
    assert read.damaged and not store.StoreRead(store.Path("g"), store.empty()).damaged
    assert read.describe("ddzlab experiment repair x").splitlines() == [
        "g.csv.gz is damaged (2 intact rows read):", f"  {d.describe()}",
        "  nothing was written; `ddzlab experiment repair x` keeps the intact rows and reports what it drops"]
    assert len(read.describe().splitlines()) == 2


def test_the_deals_around_lost_rows():
    rows = [(0, "a,b,3,x"), (1, "a,b,3,y"), (6, "a,b,8,x")]
    assert store._near(rows, 2, 6) == "; between deal 3 and deal 8"
    assert store._near(rows, 0, 1) == "; between deal the start and deal 3"
    assert store._near(rows, 2, 9) == "; between deal 3 and deal the end"


def test_a_second_run_is_locked_out(tmp_path):
    with store.locked(tmp_path / "exp"):
        with pytest.raises(store.StoreError, match="another run is writing"):
            with store.locked(tmp_path / "exp"):
                pass
    with store.locked(tmp_path / "exp"):                                 # released after the first
        pass


def test_a_recompressed_store_keeps_each_row_whose_check_holds(tmp_path):
    """A store rewritten by another program (plain gzip, no block headers): every row whose
    check holds is read, and the whole file is reported, with the count of rows that fail."""
    path = tmp_path / "games.csv.gz"
    store.write(path, _frame(_game(0) + _game(1)))
    text = gzip.decompress(path.read_bytes())
    lines = text.split(b"\n")
    lines[2] = lines[2].replace(b",0,2,30,", b",1,2,30,")        # deal 0's farmers row edited: its check fails
    path.write_bytes(gzip.compress(b"\n".join(lines)))
    got = store.read_store(path)
    assert list(got.rows["deal"]) == [0, 1, 1] and list(got.rows["role"]) == ["landlord", "landlord", "farmers"]
    [d] = got.damage
    assert (d.start, d.end, d.rows, d.kept) == (0, len(path.read_bytes()), None, 3)
    assert d.what == "no block headers (rewritten by another program?); 1 row(s) fail their check"
    path.write_bytes(gzip.compress(text) + b"junk")
    [d] = store.read_store(path).damage
    assert d.what == ("no block headers (rewritten by another program?); 0 row(s) fail their check, "
                      "4 bytes after the last whole gzip member")


def test_a_few_stray_bytes_between_blocks_lose_no_row(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "BLOCK_ROWS", 4)
    path = tmp_path / "games.csv.gz"
    store.write(path, _frame([r for d in range(4) for r in _game(d)]))   # blocks of rows 0-3, 4-7
    data = path.read_bytes()
    cut = scan_blocks(data)[1].start
    path.write_bytes(data[:cut] + b"stray" + data[cut:])
    got = store.read_store(path)
    assert len(got.rows) == 8
    [d] = got.damage
    assert (d.start, d.end, d.what, d.lost) == (cut, cut + 5, "stray bytes between blocks", 0)
    first = bytearray(data)
    first[1] ^= 0xFF                                    # the first block's gzip magic: the block is damaged
    path.write_bytes(bytes(first))
    assert store.read_store(path).damage[0].what == "damaged block (gzip or header check fails)"
