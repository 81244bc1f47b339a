"""Files of appended gzip members: the one reader of the stored rows' files.

The stored experiments (`ddzlab.experiments.store`) and the stored search studies
(`ddzlab.analysis.studies`) append rows to a ``.csv.gz`` file as complete gzip *members*
(each a whole gzip stream: header, compressed rows, CRC and length), so a process killed
while writing leaves at most its last member cut short. The CRC and length in a member's
trailer tell a complete member from a damaged one: `complete_members` keeps every complete
member and says where the damaged tail starts.
"""
from __future__ import annotations

import zlib


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


__all__ = ["complete_members"]
