"""du-guai's greedy split Q(S, a) (seed 000), exactly as REFERENCE.md §4 defines it.

    Q(S, a) = len(a) + d(S - a) + r          (a leaves cards)
    Q(S, a) = MAX_Q + len(a) + r             (a empties S)

``r`` is -1 when ``a`` has fewer than four cards and uses a rank of which S holds all
four (it breaks a bomb), else 0. ``d(X)`` is the most cards one next play can take from
X's cards below the 2: the largest count of one rank, the longest solo chain if it has
at least five ranks, twice the longest pair chain if it has at least three pairs.
The best play maximises Q; ``delta_q = max_q - q`` says how much worse a play splits.

>>> res = greedy_q("345667")          # the seed's example
>>> res.q_of("66"), res.q_of("34567"), res.max_q
(3, 6, 6)
>>> greedy_q("44445").q_of("4")       # breaks the bomb: 1 + d(4445) - 1
3
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..cards import R2, Hand, as_hand, unpack
from ..moves import Move, legal_moves
from ..rules import STANDARD, Kind, Rules, get_rules
from ._core import check_move, hand_bits

MAX_Q = 10000


def next_play_size(bits: int) -> int:
    """d(X): the most cards one next play can take from X's ranks below the 2."""
    c = unpack(bits)[:R2]
    best = max(c) if c else 0
    run1 = run2 = long1 = long2 = 0
    for x in c:
        run1 = run1 + 1 if x >= 1 else 0
        run2 = run2 + 1 if x >= 2 else 0
        long1 = max(long1, run1)
        long2 = max(long2, run2)
    if long1 >= 5:
        best = max(best, long1)
    if long2 >= 3:
        best = max(best, 2 * long2)
    return best


def q_value(bits: int, move: Move) -> int:
    """Q(S, a) for cards S (packed) and play a."""
    c = unpack(bits)
    mc = unpack(move.cards)
    r = -1 if move.size < 4 and any(mc[x] and c[x] == 4 for x in range(len(c))) else 0
    rest = bits - move.cards
    if rest == 0:
        return MAX_Q + move.size + r
    return move.size + next_play_size(rest) + r


@dataclass
class GreedyResult:
    """Q for every legal play (pass excluded), the best play and its Q."""
    q: list[tuple[Move, int]]
    best: Optional[Move]
    max_q: int

    def delta_q(self, move: Move) -> int:
        """max_q - Q(S, move): how much worse than the greedy best this play splits."""
        return self.max_q - dict(self.q)[move]

    def q_of(self, cards: str) -> int:
        """Q of the play with exactly these cards (for examples and tests)."""
        bits = as_hand(cards).bits
        for m, q in self.q:
            if m.cards == bits:
                return q
        raise KeyError(cards)


def greedy_q(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD,
             to_beat: Optional[Move] = None) -> GreedyResult:
    """Q(S, a) for every legal play a of hand S (leading, or beating ``to_beat``).

    Ties for the best go to the first play in ``legal_moves`` order (lowest kind and
    rank). With no legal play but pass, ``best`` is None and ``max_q`` 0.
    """
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)
    if to_beat is not None:
        check_move(to_beat, rules, "move to beat")
    q = [(m, q_value(bits, m)) for m in legal_moves(Hand.from_bits(bits), rules, to_beat)
         if m.kind != Kind.PASS]
    best, max_q = None, 0
    for m, v in q:
        if best is None or v > max_q:
            best, max_q = m, v
    return GreedyResult(q, best, max_q)


def greedy_split(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD) -> list[Move]:
    """Empty the hand by always leading the greedy best play."""
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)
    out = []
    while bits:
        m = greedy_q(Hand.from_bits(bits), rules).best
        out.append(m)
        bits -= m.cards
    return out


__all__ = ["MAX_Q", "next_play_size", "q_value", "greedy_q", "greedy_split", "GreedyResult"]
