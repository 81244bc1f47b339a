"""Files of appended gzip members: the one reader of the stored rows' files.

The stored experiments (`ddzlab.experiments.store`) and the stored search studies
(`ddzlab.analysis.studies`) append rows to a ``.csv.gz`` file as complete gzip *members*
(each a whole gzip stream: header, compressed rows, CRC and length), so a process killed
while writing leaves at most its last member cut short, and ``gzip`` or pandas read the
file as one stream.

`complete_members` reads plain members (the studies' files) and stops at the first bad one.

The experiment stores write *blocks* (`block`): small members whose header carries a
``DZ`` extra field with the block's place in the file (first row, row count, the rows of
the file when it was last rewritten, the compressed length) and a CRC-32 of the header
itself. The gzip trailer's CRC-32 covers only the decompressed bytes, not the header (the
time stamp, flags and extra field), so the header check is what makes a flipped header
byte visible. `scan_blocks` reads such a file block by block: it checks every header and
every trailer, and after a damaged block it finds the next block by its fixed header
bytes (`MAGIC`), so one damaged block never hides the blocks after it. From a damaged
block it keeps the bytes that inflate before the damage (`inflate_prefix`); the store's
per-row checks decide which of those rows are intact.
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from typing import Optional


def complete_members(data: bytes) -> tuple[list[bytes], int]:
    """The decompressed complete members of the gzip bytes ``data``, in order, and the offset
    where the damaged tail (if any) starts (``len(data)`` when the file is whole)."""
    out: list[bytes] = []
    pos = 0
    while pos < len(data):
        d = zlib.decompressobj(wbits=31)           # gzip framing, CRC-32 and length checked
        try:
            text = d.decompress(data[pos:])
        except zlib.error:
            break
        if not d.eof:
            break
        out.append(text)
        pos = len(data) - len(d.unused_data)
    return out, pos


# -- blocks: members with a checked header ---------------------------------------------------
#: gzip header with FEXTRA, mtime 0, no extra flags, OS "unknown"; then the extra field:
#: XLEN, the subfield id "DZ", its length, and the payload: version, flags (bit 0: sealed),
#: first row, rows, rows of the file when sealed, compressed length, CRC-32 of the compressed
#: bytes (deflate's padding bits change no output, so the trailer misses a flip there), CRC-32
#: of the header
_HEAD = struct.Struct("<4sIBBH2sHBBQIQIII")
HEADER_SIZE = _HEAD.size                   # 50 bytes: the deflate data starts right after
VERSION = 1
SEALED = 1
_PAYLOAD = HEADER_SIZE - 16
#: the bytes every block header starts with (used to find the next block after damage)
MAGIC = _HEAD.pack(b"\x1f\x8b\x08\x04", 0, 0, 255, _PAYLOAD + 4, b"DZ", _PAYLOAD, VERSION, 0, 0, 0, 0, 0, 0, 0)[:17]


@dataclass(frozen=True)
class BlockHeader:
    """What a block header says: its first row's index in the file, its rows, whether it was
    written by a rewrite of the whole file (``sealed``: then ``total`` is the file's rows)."""
    seq: int
    count: int
    total: int
    sealed: bool
    clen: int
    ccrc: int


def block(text: bytes, seq: int, count: int, total: int = 0, sealed: bool = False, level: int = 9) -> bytes:
    """One block: a gzip member holding ``text`` (``count`` rows, the first of them row
    ``seq`` of the file) whose header is checked by its own CRC-32."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 9)
    body = c.compress(text) + c.flush()
    head = _HEAD.pack(b"\x1f\x8b\x08\x04", 0, 0, 255, _PAYLOAD + 4, b"DZ", _PAYLOAD, VERSION,
                      SEALED if sealed else 0, seq, count, total, len(body), zlib.crc32(body), 0)
    head = head[:-4] + struct.pack("<I", zlib.crc32(head[:-4]))
    return head + body + struct.pack("<II", zlib.crc32(text), len(text) & 0xFFFFFFFF)


def read_header(data: bytes, pos: int) -> Optional[BlockHeader]:
    """The block header at ``pos``, or None when there is none or its check fails."""
    raw = data[pos:pos + HEADER_SIZE]
    if len(raw) < HEADER_SIZE or not raw.startswith(MAGIC[:16]):
        return None
    (_, _, _, _, _, _, _, version, flags, seq, count, total, clen, ccrc, check) = _HEAD.unpack(raw)
    if version != VERSION or flags & ~SEALED or zlib.crc32(raw[:-4]) != check:
        return None
    return BlockHeader(seq, count, total, bool(flags & SEALED), clen, ccrc)


def inflate_prefix(data: bytes) -> bytes:
    """What the raw deflate bytes ``data`` inflate to before the first error (the bytes
    before a damaged spot come out exact; those after it may not)."""
    d = zlib.decompressobj(-15)
    out = []
    step = 256
    for i in range(0, len(data), step):
        try:
            out.append(d.decompress(data[i:i + step]))
        except zlib.error:
            # redo the failing chunk a byte at a time: keep what came before the error
            d2 = zlib.decompressobj(-15)
            done = b"".join(out)
            try:
                d2.decompress(data[:i])
            except zlib.error:          # cannot happen: the same bytes inflated above
                return done
            tail = []
            for j in range(i, min(i + step, len(data))):
                try:
                    tail.append(d2.decompress(data[j:j + 1]))
                except zlib.error:
                    break
                if d2.eof:
                    break
            return done + b"".join(tail)
        if d.eof:
            break
    return b"".join(out)


@dataclass
class Piece:
    """A stretch of a block file: an intact block (``ok``), or a damaged stretch with
    whatever inflated before the damage (``text``) and, if its header is intact, ``header``.
    ``cut``: the file ends inside the block (an interrupted write, if it is the last)."""
    start: int
    end: int
    ok: bool
    text: bytes
    header: Optional[BlockHeader]
    cut: bool = False


def _next_header(data: bytes, pos: int) -> int:
    """Offset of the next valid block header after ``pos`` (``len(data)`` if none)."""
    q = data.find(MAGIC, pos + 1)
    while q != -1:
        if read_header(data, q) is not None:
            return q
        q = data.find(MAGIC, q + 1)
    return len(data)


def scan_blocks(data: bytes) -> list[Piece]:
    """The file ``data`` cut into intact blocks and damaged stretches, in order. Every
    intact block after a damaged one is found again (by its header)."""
    out: list[Piece] = []
    pos, n = 0, len(data)
    while pos < n:
        h = read_header(data, pos)
        if h is None:
            nxt = _next_header(data, pos)
            # the header is damaged but the data after it may not be: its length is fixed
            text = inflate_prefix(data[pos + HEADER_SIZE:nxt]) if nxt - pos > HEADER_SIZE else b""
            cut = nxt == n and MAGIC.startswith(data[pos:pos + len(MAGIC)]) and n - pos < HEADER_SIZE
            out.append(Piece(pos, nxt, False, text, None, cut=cut))
            pos = nxt
            continue
        body = pos + HEADER_SIZE
        end = body + h.clen + 8
        if end > n:                              # the file ends inside this block
            out.append(Piece(pos, n, False, inflate_prefix(data[body:n]), h, cut=True))
            break
        d = zlib.decompressobj(-15)
        try:
            text = d.decompress(data[body:body + h.clen])
            good = d.eof and not d.unused_data
        except zlib.error:
            text, good = b"", False
        if good:
            crc, size = struct.unpack("<II", data[end - 8:end])
            good = crc == zlib.crc32(text) and size == len(text) & 0xFFFFFFFF
        if not good:
            text = inflate_prefix(data[body:body + h.clen])
        elif zlib.crc32(data[body:body + h.clen]) != h.ccrc:
            good = False                         # a flipped bit that inflates to the same text
        out.append(Piece(pos, end, good, text, h))
        pos = end
    return out


def has_blocks(data: bytes) -> bool:
    """True when ``data`` holds at least one valid block header (a block file, not plain
    gzip members)."""
    return read_header(data, 0) is not None or _next_header(data, 0) < len(data)


__all__ = ["complete_members", "block", "read_header", "scan_blocks", "inflate_prefix", "has_blocks", "Piece",
           "BlockHeader", "MAGIC", "HEADER_SIZE"]
