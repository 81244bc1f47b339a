"""The experiment store: a CSV of game rows kept as a gzip file of small checked blocks.

``games.csv.gz`` is a concatenation of gzip members, so ``gzip -dc`` and pandas read it as
one CSV. Every member is a *block* (`ddzlab.gzmembers.block`) of at most `BLOCK_ROWS` rows
whose header says where the block's rows sit in the file and carries its own CRC-32, and
every row ends with a ``check`` column: the CRC-32 of the rest of the row. What is checked:

- the gzip trailer's CRC-32 and length: the decompressed bytes of each block;
- the block header's CRC-32s: of the header itself (the bytes gzip does not check: time
  stamp, flags, the block's first row and row count, the compressed length) and of the
  compressed bytes (a flipped padding bit inflates to the same text and passes the trailer);
- the row check: each row on its own, so the rows of a damaged block that inflate intact
  are kept, and a row edited after it was written (a changed result) is found even when
  its block was recompressed;
- the headers' row numbers and, in blocks written by `write`, the file's row count: a
  block missing from the middle and a cut tail are seen even when what is left is valid
  gzip.

`read_store` reads every intact row and lists the damage (byte range, rows lost, the deals
around them): one damaged block never hides the blocks after it. Only a block cut short
at the very end, written by a run's `append` (an interrupted run), is not damage: its games
were never complete and are replayed. Any other damage makes `compact` refuse (a run never
rewrites a damaged store) until `repair` keeps the intact rows and drops the rest, saying
what it dropped. A lock file (`locked`) keeps two runs from appending to the same store.

Files in the format before blocks (plain members, no ``check`` column) are read as before;
`write` converts them.

Two layouts of rows (`Schema`): `GAMES` (`COLUMNS`: a game from the side of ``config``, its
``role``; a deal's two games, ``config`` as landlord and as farmers) and `DUPLICATE`
(`DUPLICATE_COLUMNS`: the six games of a deal in Botzone's duplicate format, one per
``seats``, `ddzlab.experiments.duplicate`). A file's header line says which it holds;
everything here reads, checks, sorts and repairs both.
"""
from __future__ import annotations

import fcntl
import io
import os
import warnings
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

import pandas as pd

from ..errors import DdzError
from ..gzmembers import block, complete_members, has_blocks, scan_blocks
from .duplicate import SEATINGS

#: one row per game, from the side of ``config`` (the configuration under study)
COLUMNS = ["config", "opponent", "deal", "role", "won", "points", "moves", "seconds", "plays",
           "opp_seconds", "opp_plays"]
#: the last column of every stored row: CRC-32 of the row's text before it, 8 hex digits
CHECK = "check"
ROLES = ("landlord", "farmers")
DTYPES = {"config": str, "opponent": str, "deal": "int64", "role": str, "won": "int8",
          "points": "int64", "moves": "int64", "seconds": float, "plays": "int64",
          "opp_seconds": float, "opp_plays": "int64"}
KEY = ["config", "opponent", "deal", "role"]
#: rows per block written by `write` (a damaged byte costs at most this many rows' block)
BLOCK_ROWS = 256
HEADER_LINE = ",".join(COLUMNS + [CHECK])
_LEGACY_HEADER = ",".join(COLUMNS)
#: one row per game of the duplicate format: ``seats`` the seating (``config`` = A, ``opponent``
#: = B, seat 0 the landlord), ``points0..2`` each seat's move points in hundredths, the clock
#: columns summed over the seats of ``config`` and of ``opponent``
DUPLICATE_COLUMNS = ["config", "opponent", "deal", "seats", "landlord_won", "bombs", "moves", "points0",
                     "points1", "points2", "seconds", "plays", "opp_seconds", "opp_plays"]
DUPLICATE_DTYPES = {"config": str, "opponent": str, "deal": "int64", "seats": str, "landlord_won": "int8",
                    "bombs": "int64", "moves": "int64", "points0": "int64", "points1": "int64",
                    "points2": "int64", "seconds": float, "plays": "int64", "opp_seconds": float,
                    "opp_plays": "int64"}


@dataclass(frozen=True)
class Schema:
    """A layout of stored rows: the columns and their types, the column that tells a deal's
    games of one pair apart (``game``) and the values it takes (``games``: every (config,
    opponent, deal) stored holds each of them once), the 0/1 column (``flag``)."""
    name: str
    columns: tuple[str, ...]
    dtypes: dict
    game: str
    games: tuple[str, ...]
    flag: str

    @property
    def key(self) -> list[str]:
        return ["config", "opponent", "deal", self.game]

    @cached_property
    def header(self) -> str:
        return ",".join(self.columns + (CHECK,))

    def sort_order(self) -> dict[str, int]:
        return {g: i for i, g in enumerate(self.games)}


GAMES = Schema("sides", tuple(COLUMNS), DTYPES, "role", ROLES, "won")
DUPLICATE = Schema("duplicate", tuple(DUPLICATE_COLUMNS), DUPLICATE_DTYPES, "seats", SEATINGS, "landlord_won")
SCHEMAS = {s.name: s for s in (GAMES, DUPLICATE)}


def schema_of(df: pd.DataFrame) -> Schema:
    """The layout whose columns ``df`` has (`GAMES` unless it has the duplicate columns)."""
    return DUPLICATE if "seats" in df.columns else GAMES


def _sniff(data: bytes) -> Optional[Schema]:
    """The layout named by the header line of a store file's first gzip member, if it names one."""
    try:
        first = zlib.decompressobj(31).decompress(data, 4096)
    except zlib.error:
        return None
    line = first.split(b"\n", 1)[0].decode("utf-8", errors="replace")
    for schema in SCHEMAS.values():
        if line == schema.header:
            return schema
    return None


class StoreError(DdzError):
    """An experiment store that cannot be used: another experiment's files, a damaged file,
    bad rows, a run already writing to it."""


class DamagedStoreError(StoreError):
    """A store with damaged bytes: the message names the file, the damaged byte ranges, the
    rows and deals they held, and the repair command. ``read`` holds what could be read."""

    def __init__(self, message: str, read: "StoreRead") -> None:
        super().__init__(message)
        self.read = read


class BadRowsError(StoreError):
    """Rows that cannot all be true: a game stored twice, a game with only one role, a label
    or deal the experiment does not have, a value that does not parse."""


@dataclass
class Damage:
    """One damaged stretch of a store: bytes ``start``–``end``, the row indices it held
    (``rows``, when known), how many of them were read intact (``kept``) and lost."""
    start: int
    end: int
    what: str
    rows: Optional[tuple[int, int]] = None
    kept: int = 0
    near: str = ""

    @property
    def lost(self) -> Optional[int]:
        return None if self.rows is None else max(0, self.rows[1] - self.rows[0] - self.kept)

    def describe(self) -> str:
        lost = "an unknown number of rows" if self.lost is None else f"{self.lost} row(s)"
        held = "" if self.rows is None else f" (rows {self.rows[0]}-{self.rows[1] - 1} of the file)"
        return f"bytes {self.start}-{self.end}: {self.what}; {lost} lost{held}, {self.kept} intact{self.near}"


@dataclass
class StoreRead:
    """What `read_store` found: the intact rows (file order, without the check column), the
    damage, and the bytes of an interrupted last write (dropped; not damage)."""
    path: Path
    rows: pd.DataFrame
    damage: list[Damage] = field(default_factory=list)
    interrupted: int = 0
    legacy: bool = False
    sealed: bool = False            # every block was written by `write` (nothing appended since)
    next_seq: int = 0               # the row index the next appended block starts at
    schema: Schema = GAMES          # the layout of the rows

    @property
    def damaged(self) -> bool:
        return bool(self.damage)

    def describe(self, repair: str = "") -> str:
        """The damage in words, one stretch a line, and the repair command."""
        lines = [f"{self.path} is damaged ({len(self.rows)} intact rows read):"]
        lines += [f"  {d.describe()}" for d in self.damage]
        if repair:
            lines.append(f"  nothing was written; `{repair}` keeps the intact rows and reports what it drops")
        return "\n".join(lines)


def empty(schema: Schema = GAMES) -> pd.DataFrame:
    """A frame of no rows with the store's columns and types."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in schema.dtypes.items()})


def _checked(line: bytes, schema: Schema = GAMES) -> Optional[str]:
    """The row text of a stored line (without its check) if the check holds, else None."""
    body, sep, check = line.rpartition(b",")
    if not sep or len(check) != 8 or body.count(b",") != len(schema.columns) - 1:
        return None
    if f"{zlib.crc32(body):08x}".encode() != check:
        return None
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _parse(path: Path, bodies: list[str], schema: Schema = GAMES) -> pd.DataFrame:
    """The checked row texts as a frame; `BadRowsError` when a value does not parse."""
    if not bodies:
        return empty(schema)
    text = ",".join(schema.columns) + "\n" + "\n".join(bodies) + "\n"
    try:
        df = pd.read_csv(io.StringIO(text), dtype=schema.dtypes, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as e:
        raise BadRowsError(f"{path}: a stored row does not parse ({e})") from None
    if tuple(df.columns) != schema.columns or len(df) != len(bodies):
        raise BadRowsError(f"{path}: the rows do not have the store's {len(schema.columns)} columns")
    bad = ~df[schema.game].isin(schema.games) | ~df[schema.flag].isin((0, 1))
    if bad.any():
        raise BadRowsError(f"{path}: {int(bad.sum())} row(s) with a bad {schema.game} or {schema.flag} value, "
                           f"e.g. {df[bad].iloc[0].to_dict()}")
    return df


def _near(rows: list[tuple[int, str]], a: int, b: int) -> str:
    """The deals of the intact rows just before row ``a`` and from row ``b`` on: the lost
    rows' deals lie between them (a store is in deal order)."""
    before = [r for s, r in rows if s < a]
    after = [r for s, r in rows if s >= b]
    lo = before[-1].split(",")[2] if before else "the start"
    hi = after[0].split(",")[2] if after else "the end"
    return f"; between deal {lo} and deal {hi}"


def _read_legacy(path: Path, data: bytes) -> StoreRead:
    members, end = complete_members(data)
    text = b"".join(members).decode("utf-8", errors="replace")
    lines = text.splitlines()
    if lines and lines[0] != _LEGACY_HEADER:
        raise StoreError(f"{path}: not an experiment store (first line {lines[0][:80]!r}, "
                         f"expected {HEADER_LINE!r})")
    df = _parse(path, lines[1:])
    return StoreRead(path, df, interrupted=len(data) - end, legacy=True, next_seq=len(df))


def _read_unblocked(path: Path, data: bytes, schema: Schema) -> StoreRead:
    """Stored rows in plain gzip members (the file was recompressed by another program): each
    row is kept if its check holds; the whole file is reported as damage (no block tells
    which rows are missing)."""
    members, end = complete_members(data)
    lines = b"".join(members).split(b"\n")
    head = schema.header.encode()
    bodies = [b for b in (_checked(line, schema) for line in lines if line and line != head) if b is not None]
    bad = sum(1 for line in lines if line and line != head) - len(bodies)
    damage = [Damage(0, len(data), f"no block headers (rewritten by another program?); {bad} row(s) fail their "
                     "check" + (f", {len(data) - end} bytes after the last whole gzip member" if end < len(data)
                                else ""), None, len(bodies))]
    return StoreRead(path, _parse(path, bodies, schema), damage, next_seq=len(bodies), schema=schema)


def read_store(path: Path, schema: Optional[Schema] = None) -> StoreRead:
    """Every intact row of the store file ``path`` and a list of its damage; raises only
    for a file that is no experiment store, holds rows of another layout than ``schema``
    (default: the layout its header names, else `GAMES`) or rows that do not parse."""
    path = Path(path)
    want = schema or GAMES
    if not path.exists():
        return StoreRead(path, empty(want), schema=want)
    data = path.read_bytes()
    if not data:
        return StoreRead(path, empty(want), schema=want)
    found = _sniff(data)
    if schema is not None and found is not None and found is not schema:
        raise StoreError(f"{path} holds games of the {found.name!r} layout ({found.game} column), not "
                         f"{schema.name!r}: the store of another protocol; give the run another name")
    schema = found or want
    if not has_blocks(data):
        if data[:3] == b"\x1f\x8b\x08":
            try:
                first = complete_members(data)[0]
            except zlib.error:
                first = []
            if first and first[0].startswith(_LEGACY_HEADER.encode() + b"\n"):
                return _read_legacy(path, data)
            if first and not first[0].startswith(schema.header.encode()):
                raise StoreError(f"{path}: not an experiment store (first line "
                                 f"{first[0].splitlines()[0][:80]!r}, expected {schema.header!r})")
            if first:                        # our rows, recompressed by another program: check each row
                return _read_unblocked(path, data, schema)
    pieces = scan_blocks(data)
    # the rows each piece holds: from its header, else between its neighbours' rows
    spans: list[Optional[tuple[int, int]]] = [(p.header.seq, p.header.seq + p.header.count)
                                              if p.header else None for p in pieces]
    totals = {p.header.total for p in pieces if p.header and p.header.sealed}     # headers are checked
    total = max(totals) if totals else None
    for i, p in enumerate(pieces):
        if spans[i] is None:
            lo = next((s[1] for s in reversed(spans[:i]) if s), 0)
            hi = next((s[0] for s in spans[i + 1:] if s), None)
            if hi is None and total is not None and i == len(pieces) - 1:
                hi = max(total, lo)
            spans[i] = (lo, hi) if hi is not None and hi >= lo else None
    kept: list[tuple[int, str]] = []                 # (row index or position, row text)
    damage: list[Damage] = []
    interrupted = 0
    expect = 0
    for i, p, span in zip(range(len(pieces)), pieces, spans):
        last = i == len(pieces) - 1
        if p.ok and p.header and p.header.seq != expect and not (damage and damage[-1].end == p.start):
            a, b = sorted((expect, p.header.seq))
            damage.append(Damage(p.start, p.start, "rows missing before this block (a block removed?)"
                                 if p.header.seq > expect else "a block repeats rows of the one before it",
                                 (a, b)))
        if last and p.cut and (p.header is None or not p.header.sealed) and \
                (total is None or (span is not None and span[0] >= total)):
            interrupted = p.end - p.start          # a run stopped while appending: replayed
            break
        lines = p.text.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        seq = span[0] if span else None
        good, bad = [], 0
        head = schema.header.encode()
        for line in lines:
            if line == head:
                continue
            body = _checked(line, schema)
            if body is None:
                bad += 1
            else:
                good.append(body)
        n_rows = len(good) + bad
        if p.ok:
            if bad or (p.header and n_rows != p.header.count):
                damage.append(Damage(p.start, p.end, f"{bad} row(s) fail their check (edited after writing?)"
                                     if bad else f"the block holds {n_rows} rows, its header says "
                                     f"{p.header.count if p.header else '?'}", span, len(good)))
        else:
            what = ("the file ends inside this block (cut tail)" if p.cut else
                    "damaged block (gzip or header check fails)" if p.header or p.start == 0 or
                    p.end - p.start > 64 else "stray bytes between blocks")
            damage.append(Damage(p.start, p.end, what, span, len(good)))
        base = seq if seq is not None else (kept[-1][0] + 1 if kept else 0)
        kept += [(base + k, g) for k, g in enumerate(good)]
        if span is not None:
            expect = span[1]
        elif p.header is None:
            expect = base + len(good)
    if total is not None and expect < total:
        if damage and damage[-1].end == len(data) and damage[-1].rows is not None:
            damage[-1].rows = (damage[-1].rows[0], total)      # the blocks after the cut are gone too
        else:
            damage.append(Damage(len(data), len(data), "the file ends early (cut tail)", (expect, total)))
    if len(totals) > 1:
        damage.append(Damage(0, len(data), f"blocks disagree on the file's rows ({sorted(totals)})"))
    for d in damage:
        if d.rows is not None and d.lost:
            d.near = _near(kept, d.rows[0], d.rows[1])
    df = _parse(path, [r for _, r in kept], schema)
    sealed = bool(pieces) and all(p.ok and p.header is not None and p.header.sealed for p in pieces)
    return StoreRead(path, df, damage, interrupted, sealed=sealed and not damage, next_seq=expect, schema=schema)


def read_rows(path: Path, repair: str = "", schema: Optional[Schema] = None) -> tuple[pd.DataFrame, int]:
    """The rows of a store file (`COLUMNS`, or its layout's) and the bytes of an interrupted
    last write (dropped, with a warning; those games are replayed). Raises `DamagedStoreError`
    (with ``repair``, the command that repairs it) when any other byte is damaged."""
    got = _undamaged(path, repair, schema)
    return got.rows, got.interrupted


def _undamaged(path: Path, repair: str, schema: Optional[Schema] = None) -> StoreRead:
    """`read_store` of a store that may have lost only an interrupted last write (warned:
    those games are replayed); any other damage raises `DamagedStoreError` naming ``repair``."""
    got = read_store(path, schema)
    if got.damaged:
        raise DamagedStoreError(got.describe(repair), got)
    if got.interrupted:
        warnings.warn(f"{path}: the last {got.interrupted} bytes are an incomplete block (a run "
                      "stopped while writing); their games are not counted and will be replayed",
                      stacklevel=3)
    return got


def _incomplete(df: pd.DataFrame, schema: Schema) -> pd.Series:
    """The rows whose (config, opponent, deal) lacks some of its games (`Schema.games`)."""
    if not len(df):
        return pd.Series(False, index=df.index)
    return df.groupby(schema.key[:3])[schema.game].transform("size") != len(schema.games)


def check_rows(path: Path, df: pd.DataFrame) -> None:
    """`BadRowsError` when a game is stored twice or a deal of a pair lacks some of its games
    (one of its two roles; one of its six seatings)."""
    schema = schema_of(df)
    key = schema.key
    twice = df.duplicated(key, keep=False)
    if twice.any():
        raise BadRowsError(f"{path}: {int(twice.sum())} rows store the same game twice, e.g. "
                           f"{df[twice].iloc[0][key].to_dict()}; was the experiment run twice at once?")
    single = _incomplete(df, schema)
    if single.any():
        what = "only one of their two roles" if schema is GAMES else "not all six seatings"
        raise BadRowsError(f"{path}: {int(single.sum())} game(s) with {what} "
                           f"stored, e.g. {df[single].iloc[0][key].to_dict()}")


def _lines(rows: Sequence[tuple]) -> list[bytes]:
    out = []
    for r in rows:
        body = ",".join(f"{v:.6f}" if isinstance(v, float) else str(v) for v in r).encode("utf-8")
        out.append(body + f",{zlib.crc32(body):08x}\n".encode())
    return out


def to_csv(rows: Sequence[tuple], header: bool, schema: Schema = GAMES) -> bytes:
    """Rows as stored CSV text: seconds to the microsecond, each row ending in its check."""
    return (schema.header.encode() + b"\n" if header else b"") + b"".join(_lines(rows))


def append(path: Path, rows: Sequence[tuple], seq: Optional[int] = None, schema: Schema = GAMES) -> None:
    """Append ``rows`` (of ``schema``'s columns) to the store as one block (with the header if
    the file is new), flushed to disk before returning. ``seq``: the row index of the first
    of them (default: read from the file, which must then be intact)."""
    if not rows:
        return
    path = Path(path)
    new = not path.exists() or path.stat().st_size == 0
    if seq is None:
        seq = 0 if new else read_store(path, schema).next_seq
    member = block(to_csv(rows, header=new, schema=schema), seq, len(rows))
    with open(path, "ab") as f:
        f.write(member)
        f.flush()
        os.fsync(f.fileno())


def sort_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in the store's order: deal, config, opponent, then landlord before farmers (the
    duplicate layout: the seatings in `SEATINGS` order)."""
    schema = schema_of(df)
    if schema is GAMES:
        rank = df["role"] != "landlord"
    else:
        rank = df[schema.game].map(schema.sort_order()).astype("int64")
    df = df.assign(_r=rank).sort_values(["deal", "config", "opponent", "_r"], kind="stable")
    return df.drop(columns="_r").reset_index(drop=True)


def encode(df: pd.DataFrame) -> bytes:
    """The rows as a whole store file: sealed blocks of `BLOCK_ROWS` rows, each naming the
    file's row count."""
    schema = schema_of(df)
    lines = _lines(list(df[list(schema.columns)].itertuples(index=False, name=None)))
    n = len(lines)
    out = []
    for start in range(0, max(n, 1), BLOCK_ROWS):
        chunk = lines[start:start + BLOCK_ROWS]
        text = (schema.header.encode() + b"\n" if start == 0 else b"") + b"".join(chunk)
        out.append(block(text, start, len(chunk), total=n, sealed=True))
    return b"".join(out)


def write(path: Path, df: pd.DataFrame) -> None:
    """Replace the store by ``df``'s rows (`encode`), atomically: a new file renamed over
    the old one, both flushed to disk."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(encode(df))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def compact(path: Path, repair: str = "", schema: Optional[Schema] = None) -> pd.DataFrame:
    """The stored rows in store order, after rewriting the file as sealed blocks when a run
    appended to it (an interrupted last write dropped). Refuses a damaged store
    (`DamagedStoreError`, naming ``repair``) and bad rows (`BadRowsError`) without writing.
    An intact sealed store is left byte for byte as it is."""
    path = Path(path)
    got = _undamaged(path, repair, schema)
    df = got.rows
    check_rows(path, df)
    ordered = sort_rows(df)
    if path.exists() and not (got.sealed and not got.legacy and df.equals(ordered)):
        write(path, ordered)
    return ordered


@dataclass
class Repair:
    """What `repair` did: the rows kept, and each kind of row dropped with its count."""
    kept: int
    dropped: dict[str, int]
    damage: list[Damage]
    backup: Optional[Path]


def repair(path: Path, drop: Optional[Callable[[pd.DataFrame], pd.Series]] = None, why: str = "",
           schema: Optional[Schema] = None) -> Repair:
    """Rewrite the store from its intact rows: rows lost in damaged bytes are gone, a game
    stored twice keeps one copy if the copies agree and none if not, a game with one role
    is dropped, and so are the rows that ``drop(rows)`` marks (reason ``why``). A damaged
    file is kept beside it as ``games.csv.gz.damaged``."""
    path = Path(path)
    got = read_store(path, schema)
    df = got.rows
    key = got.schema.key
    dropped: dict[str, int] = {}
    if got.damage:
        lost = sum(d.lost or 0 for d in got.damage)
        dropped["lost in damaged bytes (known count)"] = lost
    if got.interrupted:
        dropped["bytes of an interrupted last write"] = got.interrupted
    if drop is not None:
        mask = drop(df)
        if mask.any():
            dropped[why or "marked"] = int(mask.sum())
            df = df[~mask]
    exact = df.duplicated(keep="first")
    if exact.any():
        dropped["exact copies of a stored game"] = int(exact.sum())
        df = df[~exact]
    clash = df.duplicated(key, keep=False)
    if clash.any():
        dropped["copies of a game that disagree (all dropped)"] = int(clash.sum())
        df = df[~clash]
    single = _incomplete(df, got.schema)
    if single.any():
        what = "games with one role left (the other lost)" if got.schema is GAMES else \
            "games of a deal missing some of its six seatings"
        dropped[what] = int(single.sum())
        df = df[~single]
    backup = None
    if got.damage and path.exists():
        backup = path.with_name(path.name + ".damaged")
        backup.write_bytes(path.read_bytes())
    df = sort_rows(df)
    if path.exists() or len(df):
        write(path, df)
    return Repair(len(df), dropped, got.damage, backup)


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


__all__ = ["COLUMNS", "CHECK", "ROLES", "DTYPES", "KEY", "BLOCK_ROWS", "StoreError", "DamagedStoreError",
           "Schema", "GAMES", "DUPLICATE", "SCHEMAS", "DUPLICATE_COLUMNS", "DUPLICATE_DTYPES", "schema_of",
           "BadRowsError", "Damage", "StoreRead", "Repair", "read_store", "read_rows", "check_rows", "empty",
           "append", "compact", "repair", "write", "encode", "sort_rows", "locked", "to_csv"]
