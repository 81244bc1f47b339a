"""`ddzlab.agents.qlearning.tables` against its docstrings (mutation survivors).

A table file may hold each array up to what a real table needs (all states stored, 8-byte
numbers, plus a header), the lead table's states for the lead arrays and the follow table's
for the follow arrays; saving makes the folders it needs; an untouched state of a sparse
table reads as `QTables`' would (the initial value as float32, zero visits as uint32),
read-only; the cache tells files apart by path, not by time alone; a missing file given by
path names that path only; checkpoint names are plain names.
"""
from __future__ import annotations

import io
import os
import re
import zipfile

import numpy as np
import pytest

from ddzlab.agents import qlearning as Q
from ddzlab.agents.qlearning import tables as T
from ddzlab.errors import ModelFileError


def test_each_array_may_take_what_a_real_table_needs():
    lead, follow = Q.N_LEAD_STATES, Q.N_FOLLOW_STATES
    assert T._member_limit("lead_rows") == lead * 8 + 4096
    assert T._member_limit("lead_q") == T._member_limit("lead_visits") == lead * Q.N_LEAD_ACTIONS * 8 + 4096
    assert T._member_limit("follow_rows") == follow * 8 + 4096
    assert T._member_limit("follow_q") == T._member_limit("follow_visits") == follow * Q.N_FOLLOW_ACTIONS * 8 + 4096
    assert T._member_limit("meta") == T._member_limit("train_state") == T._member_limit("format") == T.MAX_TEXT_BYTES
    assert T._member_limit("version") == T._member_limit("q_init") == T._member_limit("shapes") == 4096


def test_saving_makes_the_folders_it_needs(tmp_path):
    t = Q.QTables()
    t.lead[3, 1] = 2.5
    path = t.save(tmp_path / "a" / "b" / "table.npz")
    assert path.exists() and Q.QTables.load(path).lead[3, 1] == 2.5


def test_an_untouched_state_reads_as_a_dense_tables_row_and_is_read_only():
    for q_init in (0.0, -40.0, 0.1):
        sparse = Q.SparseTables.empty(q_init)
        dense = Q.QTables(q_init)
        for which in (Q.LEAD, Q.FOLLOW):
            row, visits = sparse.table(which)[17], sparse.visits(which)[17]
            assert row.dtype == dense.table(which).dtype == np.float32
            assert visits.dtype == dense.visits(which).dtype == np.uint32
            assert np.array_equal(row, dense.table(which)[17]) and not visits.any()
            with pytest.raises(ValueError):
                row[0] = 1.0
            with pytest.raises(ValueError):
                visits[0] = 1
    assert Q.SparseTables.empty().q_init == 0.0 and Q.SparseTables.empty().meta == {}


def test_the_cache_tells_two_files_of_the_same_time_apart(tmp_path):
    a, b = Q.QTables(), Q.QTables()
    a.lead[5, 2], b.lead[5, 2] = 1.0, 2.0
    pa, pb = a.save(tmp_path / "a.npz"), b.save(tmp_path / "b.npz")
    stamp = pa.stat().st_mtime
    os.utime(pb, (stamp, stamp))
    assert Q.load_tables(pa).table(Q.LEAD)[5][2] == 1.0
    assert Q.load_tables(pb).table(Q.LEAD)[5][2] == 2.0


def test_a_missing_file_given_by_path_names_the_path_only(tmp_path):
    missing = tmp_path / "none.npz"
    with pytest.raises(ModelFileError) as err:
        Q.load_tables(missing)
    assert str(err.value) == f"no trained Q-table at {missing}"


@pytest.mark.parametrize("name", ["", "a/b", "a\\b", ".hidden", "..", "../x"])
def test_a_checkpoint_is_named_by_a_plain_name(name):
    with pytest.raises(ModelFileError) as err:
        Q.checkpoint_file(name)
    assert str(err.value) == f"checkpoint {name!r}: give a name such as 'split_random-s0-10000'"


def test_a_missing_checkpoint_names_the_command():
    with pytest.raises(ModelFileError, match=re.escape("no checkpoint 'nosuch-s0-1'")) as err:
        Q.checkpoint_file("nosuch-s0-1")
    assert str(err.value).endswith("make the study's tables with:  ddzlab train qstudy  (deterministic, resumable)")


def _zip_table(path, arrays: dict, version=(1, 0)):
    """A table file written member by member, every array as a .npy of ``version``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, value in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(value), version=version)
            zf.writestr(name if "." in name else f"{name}.npy", buf.getvalue())
    return path


def _table_arrays() -> dict:
    t = Q.QTables()
    t.lead[7, 3], t.follow_visits[2, 1] = 1.5, 4
    return {"format": np.array(T.FORMAT_TAG), "version": np.array(T.FORMAT_VERSION),
            "shapes": np.array([Q.N_LEAD_STATES, Q.N_LEAD_ACTIONS, Q.N_FOLLOW_STATES, Q.N_FOLLOW_ACTIONS]),
            "q_init": np.array(0.0), "meta": np.array("{}"), **t.arrays()}


def test_npy_members_of_version_2_load_and_of_version_3_are_refused(tmp_path):
    two = _zip_table(tmp_path / "v2.npz", _table_arrays(), version=(2, 0))
    loaded = Q.QTables.load(two)
    assert loaded.lead[7, 3] == 1.5 and loaded.follow_visits[2, 1] == 4
    three = _zip_table(tmp_path / "v3.npz", _table_arrays(), version=(3, 0))
    with pytest.raises(ModelFileError) as err:
        Q.QTables.load(three)
    assert str(err.value) == f"{three}: array 'format': .npy version (3, 0)"


def test_a_member_that_is_not_an_npy_array_is_unknown(tmp_path):
    bad = _zip_table(tmp_path / "t.npz", {**_table_arrays(), "lead_rows.txt": np.zeros(1, np.int64)})
    with pytest.raises(ModelFileError) as err:
        Q.QTables.load(bad)
    assert str(err.value) == f"{bad}: unknown array 'lead_rows.txt'"


def test_an_array_may_unpack_to_exactly_its_limit_and_not_one_byte_more(tmp_path):
    limit = T._member_limit("lead_rows")
    n = (limit - 128) // 8                      # a version 1.0 header here is 128 bytes
    assert 128 + 8 * n == limit
    at = _zip_table(tmp_path / "at.npz", {**_table_arrays(), "lead_rows": np.arange(n, dtype=np.int64)})
    with pytest.raises(ModelFileError) as err:
        Q.QTables.load(at)                      # refused later: more rows than states, not by size
    assert "unpacks to" not in str(err.value)
    over = _zip_table(tmp_path / "over.npz", {**_table_arrays(), "lead_rows": np.arange(n + 1, dtype=np.int64)})
    with pytest.raises(ModelFileError) as err:
        Q.QTables.load(over)
    assert str(err.value) == (f"{over}: array 'lead_rows' unpacks to {limit + 8} bytes, more than a Q-table "
                              f"needs ({limit})")


@pytest.mark.parametrize("drop,message", [
    ("format", "format tag '', expected '{tag}'"),
    ("version", "missing or bad 'version'"),
    ("q_init", "missing or bad 'q_init'"),
    ("shapes", "table shapes [], expected [{shapes}] (lead states, lead actions, follow states, follow actions)"),
])
def test_a_file_without_a_header_array_is_refused_by_name(tmp_path, drop, message):
    arrays = {k: v for k, v in _table_arrays().items() if k != drop}
    path = _zip_table(tmp_path / "t.npz", arrays)
    shapes = ", ".join(str(x) for x in (Q.N_LEAD_STATES, Q.N_LEAD_ACTIONS, Q.N_FOLLOW_STATES, Q.N_FOLLOW_ACTIONS))
    with pytest.raises(ModelFileError) as err:
        Q.QTables.load(path)
    assert str(err.value) == f"{path}: " + message.format(tag=T.FORMAT_TAG, shapes=shapes)


def test_the_initial_value_may_be_up_to_max_q_abs(tmp_path):
    at = _zip_table(tmp_path / "at.npz", {**_table_arrays(), "q_init": np.array(T.MAX_Q_ABS)})
    assert Q.QTables.load(at).q_init == T.MAX_Q_ABS
    over = _zip_table(tmp_path / "over.npz", {**_table_arrays(), "q_init": np.array(-2 * T.MAX_Q_ABS)})
    with pytest.raises(ModelFileError) as err:
        Q.QTables.load(over)
    assert str(err.value) == f"{over}: initial value q_init is {-2 * T.MAX_Q_ABS}"


def _refusal(tmp_path, **changes) -> str:
    path = _zip_table(tmp_path / "t.npz", {**_table_arrays(), **changes})
    with pytest.raises(ModelFileError) as err:
        Q.QTables.load(path)
    return str(err.value).removeprefix(f"{path}: ")


def test_the_stored_rows_are_checked_at_their_edges(tmp_path):
    a = _table_arrays()
    rows, q, visits = a["lead_rows"], a["lead_q"], a["lead_visits"]
    wide = np.zeros((len(rows), Q.N_LEAD_ACTIONS + 1), np.uint32)
    assert _refusal(tmp_path, lead_visits=wide) == (
        f"lead arrays have shapes {q.shape}, {rows.shape}, {wide.shape}; expected ({len(rows)}, {Q.N_LEAD_ACTIONS}) rows")
    beyond = rows.copy()
    beyond[-1] = Q.N_LEAD_STATES
    assert _refusal(tmp_path, lead_rows=beyond) == f"lead rows outside 0..{Q.N_LEAD_STATES - 1}"
    assert _refusal(tmp_path, lead_q=np.full_like(q, np.nextafter(T.MAX_Q_ABS, np.inf, dtype=np.float32))) == (
        f"lead table holds NaN, infinite or values beyond {T.MAX_Q_ABS:g}")
    top = np.iinfo(np.uint32).max
    assert _refusal(tmp_path, lead_visits=np.full(visits.shape, top + 1, np.int64)) == (
        f"lead visit counts outside 0..{top}")
    meta = _refusal(tmp_path, meta=np.array("{not json"))
    assert meta.startswith("bad metadata (JSONDecodeError: ")
    # at the edges themselves the file loads, its rows typed as a dense table's
    edge = _zip_table(tmp_path / "edge.npz", {**a, "lead_q": np.full(q.shape, T.MAX_Q_ABS),
                                              "lead_visits": np.full(visits.shape, top, np.int64)})
    sparse = Q.load_tables(edge)
    row, count = sparse.table(Q.LEAD)[int(rows[0])], sparse.visits(Q.LEAD)[int(rows[0])]
    assert row.dtype == np.float32 and count.dtype == np.uint32
    assert row[0] == T.MAX_Q_ABS and count[0] == top
