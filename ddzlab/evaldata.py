"""DouZero's evaluation deal files, read without unpickling arbitrary objects.

DouZero's ``generate_eval_data.py`` writes its evaluation deals with ``pickle``: a list with
one dict per deal, ``{"landlord": [20 cards], "landlord_up": [17], "landlord_down": [17],
"three_landlord_cards": [3]}``, each a sorted list of DouZero's card codes (3..14 for 3..A,
17 for 2, 20 and 30 for the black and red joker); the three kitty cards are also among the
landlord's 20. Python's ``pickle.load`` would run whatever a file asks it to, so this reader
uses an unpickler that builds only what that format can hold: lists, tuples, dicts, strings
and integers, plus numpy integer arrays and scalars for files written by variants that kept
numpy values. Any other object in the file -- a class, a function, a reference to anything
importable -- is refused before it is built (`DealFileError`), as are files over
`MAX_BYTES` and contents that do not describe full, disjoint deals of the standard deck.
"""
from __future__ import annotations

import importlib
import io
import pickle
from collections import Counter
from pathlib import Path
from typing import Any, Union

from .errors import DealFileError

#: the largest file read (DouZero's 10,000-deal file is about 1 MB)
MAX_BYTES = 64 << 20
#: each field of a deal and its number of cards
FIELDS = {"landlord": 20, "landlord_up": 17, "landlord_down": 17, "three_landlord_cards": 3}
#: DouZero's card codes, lowest rank first, and how many of each the deck holds
CODES = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)
DECK = Counter({c: (1 if c >= 20 else 4) for c in CODES})

#: the only globals a file may name: numpy's array and scalar reconstruction (both module
#: spellings, numpy 1 and 2, each resolved to the installed numpy), and the text-to-bytes
#: encoder older pickle protocols store bytes with
_NUMPY_GLOBALS = {
    ("numpy", "ndarray"): ("numpy", "ndarray"), ("numpy", "dtype"): ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"): ("_core", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"): ("_core", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"): ("_core", "scalar"),
    ("numpy._core.multiarray", "scalar"): ("_core", "scalar"),
    ("numpy.core.numeric", "_frombuffer"): ("_numeric", "_frombuffer"),     # pickle protocol 5
    ("numpy._core.numeric", "_frombuffer"): ("_numeric", "_frombuffer"),
    ("_codecs", "encode"): ("codecs", "encode"),      # how protocol 2 stores an array's bytes
}


def _numpy_global(kind: str, name: str) -> Any:
    import numpy as np
    if kind == "numpy":
        return getattr(np, name)
    if kind == "codecs":
        import codecs
        return codecs.encode
    places = ("multiarray", "numeric") if kind == "_core" else ("numeric",)
    for module in [f"numpy.{core}.{place}" for place in places for core in ("_core", "core")]:
        try:
            return getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
    raise DealFileError(f"this numpy has no {name}")


class _Restricted(pickle.Unpickler):
    """An unpickler that builds plain containers and numpy integer arrays, nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        target = _NUMPY_GLOBALS.get((module, name))
        if target is None:
            raise DealFileError(f"refers to {module}.{name}: a DouZero deal file holds only lists of card codes; "
                                "refused without building it")
        return _numpy_global(*target)

    def persistent_load(self, pid: Any) -> Any:
        raise DealFileError("holds a persistent reference: not a DouZero deal file")


def _cards(value: Any, where: str) -> list[int]:
    import numpy as np
    if isinstance(value, np.ndarray):
        if value.ndim != 1 or value.dtype.kind not in "iu":
            raise DealFileError(f"{where}: an array of {value.dtype} with shape {value.shape}, not card codes")
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise DealFileError(f"{where}: a {type(value).__name__}, not a list of card codes")
    out = []
    for c in value:
        if isinstance(c, np.integer):
            c = int(c)
        if isinstance(c, bool) or not isinstance(c, int) or c not in DECK:
            raise DealFileError(f"{where}: {c!r} is not a DouZero card code ({', '.join(map(str, CODES))})")
        out.append(c)
    return out


def check_records(data: Any, source: str = "<data>") -> list[dict[str, list[int]]]:
    """The deals of an unpickled DouZero evaluation file, checked: a list of dicts with
    exactly `FIELDS`, each a list of card codes of its size; the three hands together are
    the whole deck and the kitty is among the landlord's cards."""
    if not isinstance(data, (list, tuple)):
        raise DealFileError(f"{source}: holds a {type(data).__name__}, not a list of deals")
    if not data:
        raise DealFileError(f"{source}: holds no deals")
    out = []
    for i, rec in enumerate(data):
        where = f"{source}, deal {i}"
        if not isinstance(rec, dict) or set(rec) != set(FIELDS):
            keys = sorted(map(str, rec)) if isinstance(rec, dict) else type(rec).__name__
            raise DealFileError(f"{where}: expected the keys {sorted(FIELDS)}, got {keys}")
        cards = {k: _cards(rec[k], f"{where}, {k}") for k in FIELDS}
        for k, n in FIELDS.items():
            if len(cards[k]) != n:
                raise DealFileError(f"{where}: {k} has {len(cards[k])} cards, DouZero's deals have {n}")
        held = Counter(cards["landlord"]) + Counter(cards["landlord_up"]) + Counter(cards["landlord_down"])
        if held != DECK:
            raise DealFileError(f"{where}: the three hands are not one deck (too many or missing: "
                                f"{sorted(((held - DECK) + (DECK - held)).elements())})")
        if Counter(cards["three_landlord_cards"]) - Counter(cards["landlord"]):
            raise DealFileError(f"{where}: three_landlord_cards are not all among the landlord's cards")
        out.append(cards)
    return out


def read_douzero_file(path: Union[str, Path]) -> list[dict[str, list[int]]]:
    """The checked deals (`check_records`) of a DouZero evaluation file (``eval_data.pkl``),
    unpickled by the restricted unpickler; `DealFileError` naming the file otherwise."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise DealFileError(f"{path}: {size:,} bytes, more than a DouZero deal file ({MAX_BYTES:,} at most)")
        raw = path.read_bytes()
    except OSError as e:
        raise DealFileError(f"cannot read deal file {path}: {e.strerror}") from None
    try:
        data = _Restricted(io.BytesIO(raw)).load()
    except DealFileError as e:
        raise DealFileError(f"{path}: {e}") from None
    except Exception as e:        # truncated or not a pickle at all
        raise DealFileError(f"{path}: not a readable DouZero deal file ({type(e).__name__}: {str(e)[:200]})") from None
    return check_records(data, str(path))


__all__ = ["read_douzero_file", "check_records", "FIELDS", "CODES", "MAX_BYTES"]
