"""Loading the hand-labelled bidding data (du-guai's ``call.csv``) into a DataFrame of hands.

Every bidding model in `ddzlab.bidding` takes a DataFrame with a ``hand`` column of `Hand`
values (and a ``cards`` text column, for people); `as_hands` also accepts a Series, a list of
hands or card texts, so a single hand can be scored without building a frame by hand.

``call.csv`` has no header; each row is 17 card codes sorted ascending (1..13 = 3..2,
14 = black joker, 15 = red joker) and then the label (1 = call, 0 = don't call).

>>> df = load_calls()
>>> len(df), int(df.label.sum())
(4048, 1606)
>>> df.loc[0, "cards"]
'345556779TTTQQQA2'
"""
from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path
from typing import Union

import pandas as pd

from ..cards import COPIES, F_BIT, Hand, as_hand
from ..config import DATA_DIR
from ..errors import DdzError
from ..rules import WILDCARD

CALLS_PATH = DATA_DIR / "call.csv"
HAND_SIZE = 17


class CallFileError(DdzError):
    """A row of a call file that is not 17 valid card codes followed by a 0/1 label."""


HandLike = Union[Hand, str]


def _row_hand(row: list[str], where: str) -> tuple[Hand, int]:
    if len(row) != HAND_SIZE + 1:
        raise CallFileError(f"{where}: expected {HAND_SIZE} card codes and a label, "
                            f"got {len(row)} fields")
    try:
        values = [int(v) for v in row]
    except ValueError:
        raise CallFileError(f"{where}: non-integer field in {','.join(row)!r}") from None
    *codes, label = values
    if label not in (0, 1):
        raise CallFileError(f"{where}: label must be 0 or 1, got {label}")
    counts = [0] * 15
    for code in codes:
        if not 1 <= code <= 15:
            raise CallFileError(f"{where}: card code {code} is outside 1..15")
        counts[code - 1] += 1
    for rank, n in enumerate(counts):
        if n > COPIES[rank]:
            raise CallFileError(f"{where}: card code {rank + 1} appears {n} times "
                                f"(the deck holds {COPIES[rank]})")
    return Hand.from_counts(counts), label


def load_calls(path: Union[str, Path, None] = None) -> pd.DataFrame:
    """Read a call file into a DataFrame with columns ``hand``, ``cards`` and ``label``.

    Raises `CallFileError` (a `ValueError`) naming the file and line of the first bad row.
    """
    path = Path(path) if path is not None else CALLS_PATH
    hands: list[Hand] = []
    labels: list[int] = []
    with open(path, newline="") as f:
        for lineno, row in enumerate(csv.reader(f), start=1):
            if not row or all(not v.strip() for v in row):
                continue
            hand, label = _row_hand([v.strip() for v in row], f"{path}:{lineno}")
            hands.append(hand)
            labels.append(label)
    if not hands:
        raise CallFileError(f"{path}: no rows")
    return hands_frame(hands, labels)


def hands_frame(hands: Iterable[HandLike], labels: Iterable[int] | None = None) -> pd.DataFrame:
    """A DataFrame of hands (``hand``, ``cards`` and, if given, ``label``) from hands or texts."""
    hs = [as_hand(h) for h in hands]
    df = pd.DataFrame({"hand": pd.Series(hs, dtype=object), "cards": [str(h) for h in hs]})
    if labels is not None:
        ys = list(labels)
        if len(ys) != len(hs):
            raise ValueError(f"{len(hs)} hands but {len(ys)} labels")
        df["label"] = pd.Series(ys, dtype="int64")
    return df


def natural_readings(hand: HandLike) -> list[Hand]:
    """The natural hands a hand stands for, for models that read natural cards only: the
    hand itself, or for a hand holding the flower card ``F`` (wildcard rules, docs/rules.md#other-rule-sets)
    one hand per rank 3..A that ``F`` may be read as (a rank held four times left out). A
    model scores such a hand as its best reading, as `min_plays` does.

    >>> [str(h) for h in natural_readings("3333456789TJQKAAF")][:2]
    ['33334456789TJQKAA', '33334556789TJQKAA']
    """
    h = as_hand(hand)
    if not h.bits & F_BIT:
        return [h]
    nat = h.bits - F_BIT
    return [Hand.from_bits(nat + (1 << (4 * x))) for x in WILDCARD.wild_ranks if nat >> (4 * x) & 15 < 4]


def as_hands(X: object) -> list[Hand]:
    """The hands of a model input: a DataFrame (``hand`` or ``cards`` column), Series or list."""
    if isinstance(X, pd.DataFrame):
        if "hand" in X.columns:
            col = X["hand"]
        elif "cards" in X.columns:
            col = X["cards"]
        else:
            raise ValueError("a DataFrame of hands needs a 'hand' or 'cards' column; "
                             f"got {list(X.columns)}")
        values = col.tolist()
    elif isinstance(X, (Hand, str)):
        values = [X]
    else:
        values = list(X)  # type: ignore[call-overload]
    return [as_hand(v) for v in values]


def to_call_rows(df: pd.DataFrame) -> list[list[int]]:
    """Rows in call.csv format (17 codes ascending, then the label) — the loader's inverse."""
    return [[r + 1 for r in h.ranks()] + [int(lbl)] for h, lbl in zip(as_hands(df), df["label"])]
