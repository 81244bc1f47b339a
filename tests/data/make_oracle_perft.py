"""Regenerate mini.perft and homework.perft from the independent oracle (tests/oracle.py):
python tests/data/make_oracle_perft.py

Each line: ``hand | move to beat (or -) | number of legal moves`` — leading moves, or replies
plus pass. Counts come from the oracle's brute force over sub-multisets, never from
`ddzlab.moves`; each move to beat has exactly one reading, so its cards name it.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import oracle  # noqa: E402
from conftest import clumpy_hand, random_hand  # noqa: E402

from ddzlab.cards import Hand  # noqa: E402
from ddzlab.rules import HOMEWORK, MINI  # noqa: E402


def perft(rules, seed: int, sizes: list[int], opener_size: int, n: int = 100) -> list[str]:
    rng = np.random.default_rng(seed)
    lines = [f"# hand | to_beat | legal moves ({rules.name} rules; the oracle of tests/oracle.py; "
             "see make_oracle_perft.py)"]
    deck = Hand.from_bits(rules.deck)
    for i in range(n):
        size = sizes[i % len(sizes)]
        hand = (clumpy_hand if i % 3 == 0 else random_hand)(rng, rules, size)
        lines.append(f"{hand} | - | {len(oracle.leading_moves(hand, rules))}")
    follows = 0
    while follows < n:
        opener = (clumpy_hand if follows % 3 == 0 else random_hand)(rng, rules, opener_size)
        single = sorted((bits, next(iter(found))) for bits, found in
                        oracle.leading_moves(opener, rules).items() if len(found) == 1)
        bits, rival = single[rng.integers(len(single))]
        rest = deck - opener
        size = min(sizes[follows % len(sizes)], len(rest))
        hand = Hand.from_ranks(rng.permutation(rest.ranks())[:size].tolist())
        lines.append(f"{hand} | {Hand.from_bits(bits)} | {len(oracle.replies(hand, rules, rival))}")
        follows += 1
    return lines


if __name__ == "__main__":
    here = Path(__file__).parent
    (here / "mini.perft").write_text("\n".join(perft(MINI, 8, [9, 12], 12)) + "\n")
    (here / "homework.perft").write_text("\n".join(perft(HOMEWORK, 9, [8, 12, 17, 20, 24], 20)) + "\n")
