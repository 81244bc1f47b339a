"""Perft-style regression: legal-move counts recorded from DouZero (standard.perft) and from the
independent oracle of tests/oracle.py (mini.perft, homework.perft); see tests/data/make_*.py."""
from collections import Counter
from pathlib import Path

import pytest

from ddzlab.cards import Hand
from ddzlab.moves import detect, legal_moves
from ddzlab.rules import HOMEWORK, MINI, STANDARD

#: the recorded counts and the scripts that made them (tests/data/make_*.py)
DATA = Path(__file__).resolve().parents[1] / "data"
LINES = [ln for ln in (DATA / "standard.perft").read_text().splitlines()
         if ln and not ln.startswith("#")]


def test_perft_file_counts():
    mismatches = []
    for line in LINES:
        hand_text, beat_text, count = (part.strip() for part in line.split("|"))
        to_beat = None if beat_text == "-" else detect(beat_text)
        moves = legal_moves(Hand(hand_text), STANDARD, to_beat)
        if len(moves) != int(count):
            breakdown = Counter(m.kind.name for m in moves)
            mismatches.append(f"{hand_text} vs {beat_text}: {len(moves)} != {count}; by kind {dict(breakdown)}")
    assert len(LINES) == 300
    assert not mismatches, "\n".join(mismatches[:10])


@pytest.mark.parametrize("rules", [MINI, HOMEWORK], ids=lambda r: r.name)
def test_oracle_perft_file_counts(rules):
    """mini.perft / homework.perft: counts from the independent oracle (make_oracle_perft.py)."""
    lines = [ln for ln in (DATA / f"{rules.name}.perft").read_text().splitlines()
             if ln and not ln.startswith("#")]
    mismatches, follows = [], 0
    for line in lines:
        hand_text, beat_text, count = (part.strip() for part in line.split("|"))
        to_beat = None if beat_text == "-" else detect(beat_text, rules)
        follows += to_beat is not None
        moves = legal_moves(Hand(hand_text), rules, to_beat)
        if len(moves) != int(count):
            mismatches.append(f"{hand_text} vs {beat_text}: {len(moves)} != {count}")
    assert len(lines) == 200 and follows == 100
    assert not mismatches, "\n".join(mismatches[:10])


def test_wildcard_perft_file_counts():
    """wildcard.perft: leading, reply and depth-2 counts from the independent oracle's
    expansion of the flower card (make_wildcard_perft.py); the moves to beat carry their reading."""
    from ddzlab.rules import WILDCARD
    lines = [ln for ln in (DATA / "wildcard.perft").read_text().splitlines()
             if ln and not ln.startswith("#")]
    mismatches, kinds = [], Counter()
    for line in lines:
        parts = [part.strip() for part in line.split("|")]
        if parts[0] == "d2":
            leader, follower, count = Hand(parts[1]), Hand(parts[2]), int(parts[3])
            got = sum(len(legal_moves(follower, WILDCARD, lead)) for lead in legal_moves(leader, WILDCARD))
            kinds["d2"] += 1
        else:
            hand_text, beat_text, count = parts[0], parts[1], int(parts[2])
            to_beat = None if beat_text == "-" else detect(beat_text, WILDCARD)
            kinds["follow" if to_beat else "lead"] += 1
            got = len(legal_moves(Hand(hand_text), WILDCARD, to_beat))
        if got != count:
            mismatches.append(f"{line}: ddzlab {got}")
    assert kinds == {"lead": 60, "follow": 60, "d2": 20}
    assert not mismatches, "\n".join(mismatches[:10])
