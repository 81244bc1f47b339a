"""Regenerate wildcard.perft from the independent oracle (tests/oracle.py):
python tests/data/make_wildcard_perft.py

Lines ``hand | move to beat (or -) | number of legal moves``: leading moves, or replies plus
pass, of hands holding the flower card F (most of them); the move to beat is written with its
reading (``45678F=9``). Lines ``d2 | leader | follower | count``: depth 2, the number of
(lead, reply) pairs — every leading move of the leader times every reply (pass included) of the
follower. Counts come from the oracle's brute force over the 12 readings of F and the rule
text (`oracle.wild_leading`), never from `ddzlab.moves`.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import oracle  # noqa: E402
from conftest import clumpy_hand, random_hand  # noqa: E402

from ddzlab.cards import SLOT_CHARS, Hand  # noqa: E402
from ddzlab.rules import STANDARD, WILDCARD  # noqa: E402

RT = oracle.text_of(WILDCARD)


def hand_of(rng, size: int, i: int) -> Hand:
    h = (clumpy_hand if i % 3 == 0 else random_hand)(rng, STANDARD, size - 1)
    return h + Hand("F") if i % 4 else random_hand(rng, WILDCARD, size)


def move_text(paid: int, kind, rank: int, length: int) -> str:
    text = str(Hand.from_bits(paid))
    if paid & oracle.FLOWER:
        text += "=" + SLOT_CHARS[oracle.lowest_reading(paid, (kind, rank, length), RT)]
    return text


def perft(seed: int = 12, n: int = 60, n_d2: int = 20) -> list[str]:
    rng = np.random.default_rng(seed)
    lines = ["# hand | to_beat | legal moves (wildcard rules; the oracle of tests/oracle.py; "
             "see make_wildcard_perft.py)", "# d2 | leader | follower | (lead, reply) pairs"]
    sizes = [4, 6, 8, 10, 12, 14]
    for i in range(n):
        hand = hand_of(rng, sizes[i % len(sizes)], i)
        lines.append(f"{hand} | - | {len(oracle.wild_leading(hand, WILDCARD))}")
    deck = Hand.from_bits(WILDCARD.deck)
    for i in range(n):
        opener = hand_of(rng, 10, i + 1)
        leads = sorted(oracle.wild_leading(opener, WILDCARD))
        paid, kind, rank, length = leads[rng.integers(len(leads))]
        rest = (deck - Hand.from_bits(paid)).ranks()
        hand = Hand.from_ranks(rng.permutation(rest)[:sizes[i % len(sizes)]].tolist())
        count = len(oracle.wild_replies(hand, WILDCARD, (kind, rank, length)))
        lines.append(f"{hand} | {move_text(paid, kind, rank, length)} | {count}")
    for i in range(n_d2):
        leader = hand_of(rng, 8, i)
        follower = Hand.from_ranks(rng.permutation((deck - leader).ranks())[:8].tolist())
        theirs = oracle.wild_leading(follower, WILDCARD)
        pairs = sum(1 + sum(oracle.beats(m[1:], lead[1:]) for m in theirs)
                    for lead in oracle.wild_leading(leader, WILDCARD))
        lines.append(f"d2 | {leader} | {follower} | {pairs}")
    return lines


if __name__ == "__main__":
    (Path(__file__).parent / "wildcard.perft").write_text("\n".join(perft()) + "\n")
