"""The two Q-tables, their visit counts, and their compressed file format."""
from __future__ import annotations

import json
import os
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar, Union

import numpy as np

from ...config import DATA_DIR
from ...errors import ModelFileError
from ...npyheader import NpyHeaderError, npy_header
from .abstraction import (FOLLOW, LEAD, N_FOLLOW_ACTIONS, N_FOLLOW_STATES, N_LEAD_ACTIONS,
                          N_LEAD_STATES)

_T = TypeVar("_T")

FORMAT_TAG = "ddzlab-qlearning"
FORMAT_VERSION = 1
DEFAULT_TABLE = DATA_DIR / "qlearning" / "qtable.npz"
#: the tables of notebook 04's checkpoint study (`ddzlab.qstudy`)
CHECKPOINT_DIR = DATA_DIR / "experiments" / "04_qlearning_tables"
TRAIN_COMMAND = ("ddzlab train qlearning --games 10000 --seed 0 --opponents split_random "
                 "--tie prior --q-init -40 --rewards outcome --rule mc --gamma 1 --alpha 0.01 "
                 "--average --caution 40 --min-visits 30 --epsilon 0.05 "
                 f"--out {DEFAULT_TABLE.relative_to(DATA_DIR.parent)}")

# -- tables ---------------------------------------------------------------------------
class QTables:
    """The lead and follow Q-tables (every entry starts at ``q_init``: 0 in the seed),
    visit counts per state, and free-form metadata (``meta``)."""

    def __init__(self, q_init: float = 0.0) -> None:
        self.q_init = float(q_init)
        self.lead = np.full((N_LEAD_STATES, N_LEAD_ACTIONS), q_init, np.float32)
        self.follow = np.full((N_FOLLOW_STATES, N_FOLLOW_ACTIONS), q_init, np.float32)
        self.lead_visits = np.zeros((N_LEAD_STATES, N_LEAD_ACTIONS), np.uint32)
        self.follow_visits = np.zeros((N_FOLLOW_STATES, N_FOLLOW_ACTIONS), np.uint32)
        self.meta: dict = {}

    def table(self, which: int) -> np.ndarray:
        return self.lead if which == LEAD else self.follow

    def visits(self, which: int) -> np.ndarray:
        return self.lead_visits if which == LEAD else self.follow_visits

    def coverage(self) -> dict[str, float]:
        """Share of each table's states visited at least once."""
        return {"lead": float(np.count_nonzero(self.lead_visits.any(axis=1))) / N_LEAD_STATES,
                "follow": float(np.count_nonzero(self.follow_visits.any(axis=1))) / N_FOLLOW_STATES}

    def copy(self) -> "QTables":
        t = object.__new__(QTables)
        t.q_init, t.meta = self.q_init, json.loads(json.dumps(self.meta))
        t.lead, t.follow = self.lead.copy(), self.follow.copy()
        t.lead_visits, t.follow_visits = self.lead_visits.copy(), self.follow_visits.copy()
        return t

    def arrays(self) -> dict[str, np.ndarray]:
        """The tables in the sparse form they are saved in (rows that differ from the
        initial value or were visited)."""
        init = np.float32(self.q_init)
        lr = np.flatnonzero(self.lead_visits.any(axis=1) | np.any(self.lead != init, axis=1))
        fr = np.flatnonzero(self.follow_visits.any(axis=1) | np.any(self.follow != init, axis=1))
        lr, fr = lr.astype(np.int32), fr.astype(np.int32)
        return {"lead_rows": lr, "lead_q": self.lead[lr], "lead_visits": self.lead_visits[lr],
                "follow_rows": fr, "follow_q": self.follow[fr],
                "follow_visits": self.follow_visits[fr]}

    def save(self, path: Union[str, Path], extra: Optional[dict[str, np.ndarray]] = None) -> Path:
        """Write a compressed .npz (format tag, version, sparse tables, metadata)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = self.arrays()
        arrays.update(extra or {})
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez_compressed(tmp, format=np.array(FORMAT_TAG), version=np.array(FORMAT_VERSION),
                            shapes=np.array([N_LEAD_STATES, N_LEAD_ACTIONS, N_FOLLOW_STATES,
                                             N_FOLLOW_ACTIONS]), q_init=np.array(self.q_init),
                            meta=np.array(json.dumps(self.meta)), allow_pickle=False, **arrays)
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: Union[str, Path]) -> "QTables":
        """Read a table written by `save`; a corrupt or foreign file raises `ModelFileError`."""
        return load_file(Path(path))[0]


#: the arrays a table file may hold: (dtype kinds, number of dimensions); ``train_state`` is a
#: training checkpoint's (`ddzlab.qtraining`)
_MEMBERS = {"format": ("U", 0), "version": ("iu", 0), "shapes": ("iu", 1), "q_init": ("fiu", 0),
            "meta": ("U", 0), "train_state": ("U", 0),
            "lead_rows": ("iu", 1), "lead_q": ("f", 2), "lead_visits": ("iu", 2),
            "follow_rows": ("iu", 1), "follow_q": ("f", 2), "follow_visits": ("iu", 2)}
#: the most bytes a text array (metadata, training state) may take, unpacked
MAX_TEXT_BYTES = 64 * 2**20
#: Q-values beyond this size mean a corrupt or crafted file (rewards are game points)
MAX_Q_ABS = 1e6


def _member_limit(name: str) -> int:
    """The most bytes array ``name`` can need in a real table (all states stored, 8-byte
    numbers), plus room for the .npy header."""
    side, _, part = name.partition("_")
    states, actions = ((N_LEAD_STATES, N_LEAD_ACTIONS) if side == "lead" else
                       (N_FOLLOW_STATES, N_FOLLOW_ACTIONS))
    if part == "rows":
        return states * 8 + 4096
    if part in ("q", "visits"):
        return states * actions * 8 + 4096
    return MAX_TEXT_BYTES if _MEMBERS[name][0] == "U" else 4096


def _check_members(path: Path) -> None:
    """Refuse, before anything is unpacked, a file whose arrays are unknown, declare more
    bytes than a real table needs (a decompression bomb), or have the wrong dtype or rank."""
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            if len(infos) > len(_MEMBERS):
                raise ModelFileError(f"{path}: {len(infos)} arrays; a Q-table file has at "
                                     f"most {len(_MEMBERS)}")
            for info in infos:
                name = info.filename[:-4] if info.filename.endswith(".npy") else ""
                if name not in _MEMBERS:
                    raise ModelFileError(f"{path}: unknown array {info.filename!r}")
                if info.file_size > _member_limit(name):
                    raise ModelFileError(f"{path}: array {name!r} unpacks to {info.file_size} "
                                         f"bytes, more than a Q-table needs "
                                         f"({_member_limit(name)})")
                try:
                    shape, dtype, _ = npy_header(zf, info)
                except NpyHeaderError as e:
                    raise ModelFileError(f"{path}: array {name!r}: {e}") from None
                kinds, ndim = _MEMBERS[name]
                if dtype.kind not in kinds or dtype.hasobject or len(shape) != ndim:
                    raise ModelFileError(f"{path}: array {name!r} is {dtype} of shape {shape}; "
                                         f"expected kind {kinds!r} with {ndim} dimension(s)")
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        if isinstance(e, ModelFileError):
            raise
        raise ModelFileError(f"{path}: not a readable .npz Q-table ({e})") from None


def _scalar(path: Path, data: dict, key: str, kind: Callable[[Any], _T]) -> _T:
    try:
        return kind(data[key][()])
    except (KeyError, TypeError, ValueError, OverflowError):
        raise ModelFileError(f"{path}: missing or bad {key!r}") from None


def _read(path: Path) -> tuple[float, dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
                                dict, dict[str, np.ndarray]]:
    """A checked table file: (q_init, {"lead"/"follow": (rows, q, visits)}, meta, all arrays).

    Every array is checked before it is used: names, unpacked sizes, dtypes and shapes from
    the headers (nothing large is unpacked first), rows inside the tables and listed once,
    Q-values finite and at most `MAX_Q_ABS`, visit counts non-negative integers. Any
    failure raises `ModelFileError` naming the file and the array."""
    if not path.exists():
        raise ModelFileError(f"{path}: no such Q-table file")
    _check_members(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise ModelFileError(f"{path}: not a readable .npz Q-table ({e})") from None
    fmt = str(data.get("format", ""))
    if fmt != FORMAT_TAG:
        raise ModelFileError(f"{path}: format tag {fmt!r}, expected {FORMAT_TAG!r}")
    version = _scalar(path, data, "version", int)
    if version != FORMAT_VERSION:
        raise ModelFileError(f"{path}: format version {version}, this ddzlab reads "
                             f"version {FORMAT_VERSION}")
    want = [N_LEAD_STATES, N_LEAD_ACTIONS, N_FOLLOW_STATES, N_FOLLOW_ACTIONS]
    shapes = [int(x) for x in data.get("shapes", [])]
    if shapes != want:
        raise ModelFileError(f"{path}: table shapes {shapes}, expected {want} "
                             "(lead states, lead actions, follow states, follow actions)")
    q_init = _scalar(path, data, "q_init", float)
    if not abs(q_init) <= MAX_Q_ABS:
        raise ModelFileError(f"{path}: initial value q_init is {q_init}")
    parts = {}
    for name, n_states, n_act in (("lead", N_LEAD_STATES, N_LEAD_ACTIONS),
                                  ("follow", N_FOLLOW_STATES, N_FOLLOW_ACTIONS)):
        try:
            rows, q, visits = data[f"{name}_rows"], data[f"{name}_q"], data[f"{name}_visits"]
        except KeyError as e:
            raise ModelFileError(f"{path}: missing array {e.args[0]!r}") from None
        if q.shape != (len(rows), n_act) or visits.shape != q.shape:
            raise ModelFileError(f"{path}: {name} arrays have shapes {q.shape}, {rows.shape}, "
                                 f"{visits.shape}; expected ({len(rows)}, {n_act}) rows")
        if len(rows) and (rows.min() < 0 or rows.max() >= n_states):
            raise ModelFileError(f"{path}: {name} rows outside 0..{n_states - 1}")
        if len(np.unique(rows)) != len(rows):
            raise ModelFileError(f"{path}: {name} rows listed twice")
        if not np.all(np.abs(q) <= MAX_Q_ABS):       # NaN fails this too
            raise ModelFileError(f"{path}: {name} table holds NaN, infinite or values "
                                 f"beyond {MAX_Q_ABS:g}")
        if visits.size and (visits.min() < 0 or visits.max() > np.iinfo(np.uint32).max):
            raise ModelFileError(f"{path}: {name} visit counts outside 0..{np.iinfo(np.uint32).max}")
        parts[name] = (rows.astype(np.int64), q.astype(np.float32), visits.astype(np.uint32))
    try:
        meta = json.loads(str(data["meta"]))
    except (KeyError, json.JSONDecodeError, RecursionError) as e:
        raise ModelFileError(f"{path}: bad metadata ({type(e).__name__}: {e})") from None
    if not isinstance(meta, dict):
        raise ModelFileError(f"{path}: metadata is a {type(meta).__name__}, not an object")
    return q_init, parts, meta, data


def load_file(path: Path) -> tuple[QTables, dict[str, np.ndarray]]:
    """The tables of a file (dense, to train on) and its other arrays (a checkpoint's
    training state); checked as `_read` says."""
    q_init, parts, meta, data = _read(path)
    t = QTables(q_init)
    for name, which in (("lead", LEAD), ("follow", FOLLOW)):
        rows, q, visits = parts[name]
        t.table(which)[rows] = q
        t.visits(which)[rows] = visits
    t.meta = meta
    return t, data


class _SparseRows:
    """One table's stored rows; ``rows[state]`` is the state's row (the initial values
    and zero visits for a state the run never touched)."""

    __slots__ = ("states", "values", "default")

    def __init__(self, states: np.ndarray, values: np.ndarray, default: np.ndarray) -> None:
        self.states, self.values, self.default = states, values, default

    def __getitem__(self, state: int) -> np.ndarray:
        i = int(np.searchsorted(self.states, state))
        if i < len(self.states) and self.states[i] == state:
            return self.values[i]
        return self.default

    def __len__(self) -> int:
        return len(self.states)


class SparseTables:
    """A saved table to play with, read-only, in the sparse form it is stored in: the rows
    of the states its run touched (kilobytes to a few MB, where `QTables` allocates
    170 MB), so that one process can hold the dozens of tables an experiment compares.
    ``table(which)[state]`` and ``visits(which)[state]`` read as `QTables`'."""

    def __init__(self, q_init: float, parts: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
                 meta: dict) -> None:
        self.q_init, self.meta = float(q_init), meta
        self._q, self._n = {}, {}
        for name, which, n_act in (("lead", LEAD, N_LEAD_ACTIONS),
                                   ("follow", FOLLOW, N_FOLLOW_ACTIONS)):
            rows, q, visits = parts[name]
            order = np.argsort(rows, kind="stable")       # binary search needs sorted rows
            rows, q, visits = rows[order], q[order], visits[order]
            self._q[which] = _SparseRows(rows, q, np.full(n_act, q_init, np.float32))
            self._n[which] = _SparseRows(rows, visits, np.zeros(n_act, np.uint32))
        for part in (*self._q.values(), *self._n.values()):
            part.values.setflags(write=False)
            part.default.setflags(write=False)

    @classmethod
    def empty(cls, q_init: float = 0.0, meta: Optional[dict] = None) -> "SparseTables":
        """A table no run has touched (with ``meta={"config": {"tie": "prior"}}`` it plays
        the untrained prior)."""
        none = (np.zeros(0, np.int64), np.zeros((0, N_LEAD_ACTIONS), np.float32),
                np.zeros((0, N_LEAD_ACTIONS), np.uint32))
        few = (none[0], np.zeros((0, N_FOLLOW_ACTIONS), np.float32),
               np.zeros((0, N_FOLLOW_ACTIONS), np.uint32))
        return cls(q_init, {"lead": none, "follow": few}, dict(meta or {}))

    def table(self, which: int) -> _SparseRows:
        return self._q[which]

    def visits(self, which: int) -> _SparseRows:
        return self._n[which]

    def coverage(self) -> dict[str, float]:
        """Share of each table's states visited at least once."""
        out = {}
        for name, which, n in (("lead", LEAD, N_LEAD_STATES), ("follow", FOLLOW, N_FOLLOW_STATES)):
            out[name] = float(np.count_nonzero(self._n[which].values.any(axis=1))) / n
        return out


_TABLE_CACHE: "OrderedDict[tuple[str, float], SparseTables]" = OrderedDict()
CACHE_TABLES = 256    # tables kept in memory per process (an experiment's grid interleaves them)


def load_tables(path: Union[str, Path, None] = None) -> SparseTables:
    """The tables in ``path`` (default `DEFAULT_TABLE`) to play with (`SparseTables`),
    cached per file and mtime; a missing default table raises `ModelFileError` naming the
    command that makes it."""
    p = Path(path) if path is not None else DEFAULT_TABLE
    if not p.exists():
        hint = f"; make it with:  {TRAIN_COMMAND}" if path is None else ""
        raise ModelFileError(f"no trained Q-table at {p}{hint}")
    key = (str(p.resolve()), p.stat().st_mtime)
    t = _TABLE_CACHE.get(key)
    if t is None:
        q_init, parts, meta, _ = _read(p)
        t = _TABLE_CACHE[key] = SparseTables(q_init, parts, meta)
        while len(_TABLE_CACHE) > CACHE_TABLES:
            _TABLE_CACHE.popitem(last=False)
    else:
        _TABLE_CACHE.move_to_end(key)
    return t


def checkpoint_file(name: str) -> Path:
    """The file of a checkpoint of notebook 04's study by name (``split_random-s0-10000``,
    `ddzlab.qstudy`); a missing one raises `ModelFileError` naming the command that makes it."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ModelFileError(f"checkpoint {name!r}: give a name such as 'split_random-s0-10000'")
    path = CHECKPOINT_DIR / f"{name}.npz"
    if not path.exists():
        raise ModelFileError(f"no checkpoint {name!r} in {CHECKPOINT_DIR}; make the study's "
                             "tables with:  ddzlab train qstudy  (deterministic, resumable)")
    return path
