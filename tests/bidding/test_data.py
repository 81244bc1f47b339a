"""Loader of call.csv: the real file's shape, and a clear error on each kind of bad row."""
from pathlib import Path

import pandas as pd
import pytest

from ddzlab.bidding.data import (CallFileError, as_hands, hands_frame, load_calls,
                                 to_call_rows)
from ddzlab.cards import Hand
from ddzlab.errors import DdzError

GOOD = "1,2,3,3,3,4,5,5,7,8,8,8,10,10,10,12,13,0\n1,1,1,1,2,2,3,4,5,6,7,8,9,13,13,14,15,1\n"


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "calls.csv"
    p.write_text(text)
    return p


def test_real_file_matches_reference():
    df = load_calls()
    assert len(df) == 4048 and int(df.label.sum()) == 1606
    assert all(len(h) == 17 for h in df.hand)
    assert list(df.columns) == ["hand", "cards", "label"]


def test_small_file_decodes_codes(tmp_path):
    df = load_calls(_write(tmp_path, GOOD + "\n"))  # a trailing blank line is fine
    assert df.cards.tolist() == ["345556779TTTQQQA2", "33334456789TJ22BR"]
    assert df.hand[1] == Hand("33334456789TJ22BR")
    assert df.label.tolist() == [0, 1]
    assert to_call_rows(df) == [[int(v) for v in line.split(",")] for line in GOOD.split()]


@pytest.mark.parametrize("row, words", [
    ("1,2,3,3,3,4,5,5,7,8,8,8,10,10,10,12,0", "17 card codes"),       # 16 cards
    ("1,2,3,3,3,4,5,5,7,8,8,8,10,10,10,12,13,2", "label must be 0 or 1"),
    ("1,2,3,3,3,4,5,5,7,8,8,8,10,10,10,12,16,1", "outside 1..15"),
    ("1,2,3,3,3,4,5,5,7,8,8,8,10,10,10,x,13,1", "non-integer"),
    ("1,1,1,1,1,4,5,5,7,8,8,8,10,10,10,12,13,1", "appears 5 times"),
    ("1,2,3,3,3,4,5,5,7,8,8,8,10,10,10,14,14,1", "appears 2 times"),
])
def test_malformed_rows_raise_call_file_error(tmp_path, row, words):
    path = _write(tmp_path, GOOD + row + "\n")
    with pytest.raises(CallFileError, match=words) as info:
        load_calls(path)
    assert ":3:" in str(info.value)  # names the line
    assert isinstance(info.value, DdzError) and isinstance(info.value, ValueError)


def test_empty_file_is_an_error(tmp_path):
    with pytest.raises(CallFileError):
        load_calls(_write(tmp_path, "\n"))


def test_as_hands_accepts_frames_series_lists():
    df = hands_frame(["33BR", Hand("2222")])
    assert as_hands(df) == [Hand("33BR"), Hand("2222")]
    assert as_hands(df[["cards"]]) == as_hands(df)
    assert as_hands(pd.Series(["33BR"])) == [Hand("33BR")]
    assert as_hands("33BR") == [Hand("33BR")]
    with pytest.raises(ValueError):
        as_hands(pd.DataFrame({"x": [1]}))


def test_hands_frame_refuses_labels_of_another_length():
    assert hands_frame(["33", "44"], [1, 0]).label.tolist() == [1, 0]
    for labels in ([1], [1, 0, 1]):
        with pytest.raises(ValueError, match="labels"):
            hands_frame(["33", "44"], labels)


def test_natural_readings_of_the_flower_card():
    from ddzlab.bidding.data import natural_readings
    plain = Hand("3456789TJQKA2BR22")
    assert natural_readings(plain) == [plain]
    hand = Hand("3333456789TJQKAAF")              # four 3s: F cannot be a fifth
    got = natural_readings(hand)
    assert len(got) == 11 and len(set(got)) == 11
    for h in got:
        assert len(h) == 17 and not h.bits >> 60
        diff = Hand.from_bits(h.bits - (hand.bits - (1 << 60)))
        assert len(diff) == 1 and diff.ranks()[0] in range(1, 12)
