"""The experiment store: a CSV of game rows kept as a gzip file of appended members.

Each flush appends one gzip *member* (a complete gzip stream: header, compressed rows,
CRC and length) to ``games.csv.gz``; ``gzip`` and pandas read such a file as one stream.
A process killed while writing leaves at most its last member cut short: the CRC and the
length in a member's trailer tell a complete member from a damaged one, so `read_rows`
keeps every complete member and drops only the damaged tail (with a warning that says how
many bytes), and `compact` — which a run calls before it appends anything — rewrites the
file without that tail, atomically (a new file renamed over the old one). A row is
therefore either in the file exactly once or not at all: a rerun replays the games of the
lost member, never a game that is still stored.

`compact` also merges the small members of a run into one (better compression); a lock
file (`locked`) keeps two runs from appending to the same experiment at once.
"""
from __future__ import annotations

import fcntl
import gzip
import io
import os
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

import pandas as pd

from ..errors import DdzError
from ..gzmembers import complete_members

#: one row per game, from the side of ``config`` (the configuration under study)
COLUMNS = ["config", "opponent", "deal", "role", "won", "points", "moves", "seconds", "plays",
           "opp_seconds", "opp_plays"]
ROLES = ("landlord", "farmers")
DTYPES = {"config": str, "opponent": str, "deal": "int64", "role": str, "won": "int8",
          "points": "int64", "moves": "int64", "seconds": float, "plays": "int64",
          "opp_seconds": float, "opp_plays": "int64"}


class StoreError(DdzError):
    """An experiment store that cannot be used: another experiment's files, a damaged file,
    a run already writing to it."""


def empty() -> pd.DataFrame:
    """A frame of no rows with the store's columns and types."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in DTYPES.items()})


def read_rows(path: Path) -> tuple[pd.DataFrame, int]:
    """The rows of a store file (`COLUMNS`) and the number of bytes of its damaged tail
    (0 when the file is whole); warns when a tail is dropped."""
    path = Path(path)
    if not path.exists():
        return empty(), 0
    data = path.read_bytes()
    members, end = complete_members(data)
    dropped = len(data) - end
    if dropped:
        warnings.warn(f"{path}: the last {dropped} bytes are an incomplete gzip member (a run "
                      "stopped while writing); their games are not counted and will be replayed",
                      stacklevel=2)
    text = b"".join(members).decode("utf-8")
    if not text:
        return empty(), dropped
    header = ",".join(COLUMNS)
    if not text.startswith(header + "\n"):
        raise StoreError(f"{path}: not an experiment store (first line {text.splitlines()[0][:80]!r}, "
                         f"expected {header!r})")
    df = pd.read_csv(io.StringIO(text), dtype=DTYPES, keep_default_na=False)
    bad = ~df["role"].isin(ROLES) | ~df["won"].isin((0, 1))
    if bad.any():
        raise StoreError(f"{path}: {int(bad.sum())} row(s) with a bad role or won value, "
                         f"e.g. {df[bad].iloc[0].to_dict()}")
    return df, dropped


def to_csv(rows: Sequence[tuple], header: bool) -> bytes:
    """Rows as CSV text (seconds to the microsecond)."""
    buf = io.StringIO()
    if header:
        buf.write(",".join(COLUMNS) + "\n")
    for r in rows:
        buf.write(",".join(f"{v:.6f}" if isinstance(v, float) else str(v) for v in r) + "\n")
    return buf.getvalue().encode("utf-8")


def append(path: Path, rows: Sequence[tuple]) -> None:
    """Append ``rows`` to the store as one gzip member (with the header if the file is new),
    flushed to disk before returning."""
    if not rows:
        return
    path = Path(path)
    new = not path.exists() or path.stat().st_size == 0
    member = gzip.compress(to_csv(rows, header=new), mtime=0)
    with open(path, "ab") as f:
        f.write(member)
        f.flush()
        os.fsync(f.fileno())


def compact(path: Path, key: Sequence[str] = ("config", "opponent", "deal")) -> pd.DataFrame:
    """Rewrite the store as one member, atomically: the damaged tail dropped, games whose
    ``key`` group is incomplete (not both roles) dropped, rows sorted by deal, config,
    opponent, role. Raises `StoreError` when a game is stored twice (two runs wrote the same
    experiment). Returns the rows kept."""
    path = Path(path)
    df, _ = read_rows(path)
    twice = df.duplicated(list(key) + ["role"], keep=False)
    if twice.any():
        raise StoreError(f"{path}: {int(twice.sum())} rows store the same game twice, e.g. "
                         f"{df[twice].iloc[0][list(key) + ['role']].to_dict()}; was the experiment run twice "
                         "at once?")
    whole = df.groupby(list(key))["role"].transform("size") == 2
    df = df[whole]
    df = df.assign(_r=df["role"] != "landlord").sort_values(["deal", "config", "opponent", "_r"],
                                                           kind="stable").drop(columns="_r")
    df = df.reset_index(drop=True)
    if not path.exists():
        return df
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(gzip.compress(to_csv(list(df.itertuples(index=False, name=None)), header=True), mtime=0))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return df


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold the experiment folder's lock file for a run; a second run of the same
    experiment raises `StoreError` instead of appending beside the first."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / ".lock", os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"another run is writing {folder} (lock {folder / '.lock'}); wait for it "
                             "or stop it") from None
        yield
    finally:
        os.close(fd)


__all__ = ["COLUMNS", "ROLES", "DTYPES", "StoreError", "read_rows", "empty", "append", "compact", "locked", "to_csv"]
