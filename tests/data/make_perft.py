"""Regenerate standard.perft from DouZero (the oracle): python tests/data/make_perft.py

Each line: ``hand | move to beat (or -) | number of legal moves``. Leading counts are
DouZero's `MovesGener` less detector-WRONG moves; reply counts are its GameEnv reply set.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import random_hand  # noqa: E402
from peers import douzero_following, douzero_leading, to_douzero  # noqa: E402

from ddzlab.cards import Hand  # noqa: E402
from ddzlab.moves import legal_moves  # noqa: E402
from ddzlab.rules import STANDARD, Kind  # noqa: E402

rng = np.random.default_rng(2024)
lines = ["# hand | to_beat | legal moves (DouZero 1.1.0 as oracle; see make_perft.py)"]
for i in range(150):
    hand = random_hand(rng, STANDARD, (17, 20)[i % 2])
    lines.append(f"{hand} | - | {len(douzero_leading(hand))}")
for i in range(150):
    opener = random_hand(rng, STANDARD, 20)
    moves = [m for m in legal_moves(opener, STANDARD) if not (m.kind == Kind.PLANE_SOLO and m.length == 3)]
    rival = moves[rng.integers(len(moves))]
    hand = Hand.from_ranks(rng.permutation((Hand.from_bits(STANDARD.deck) - opener).ranks())[:17].tolist())
    lines.append(f"{hand} | {rival} | {len(douzero_following(hand, to_douzero(rival.cards)))}")
Path(__file__).with_name("standard.perft").write_text("\n".join(lines) + "\n")
