"""Perft-style regression: legal-move counts recorded from the DouZero oracle (tests/data)."""
from collections import Counter
from pathlib import Path


from ddzlab.cards import Hand
from ddzlab.moves import detect, legal_moves
from ddzlab.rules import STANDARD

LINES = [ln for ln in (Path(__file__).parent / "data" / "standard.perft").read_text().splitlines()
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
