"""du-guai's greedy split Q(S, a), exactly as docs/definitions.md#greedy-split defines it.

    Q(S, a) = len(a) + d(S - a) + r          (a leaves cards)
    Q(S, a) = MAX_Q + len(a) + r             (a empties S)

``r`` is -1 when ``a`` has fewer than four cards and uses a rank of which S holds all
four (it breaks a bomb), else 0. ``d(X)`` is the most cards one next play can take from
X's cards below the 2: the largest count of one rank, the longest solo chain if it has
at least five ranks, twice the longest pair chain if it has at least three pairs.
The best play maximises Q; ``delta_q = max_q - q`` says how much worse a play splits.

>>> res = greedy_q("345667")          # du-guai's example
>>> res.q_of("66"), res.q_of("34567"), res.max_q
(3, 6, 6)
>>> greedy_q("44445").q_of("4")       # breaks the bomb: 1 + d(4445) - 1
3
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..cards import LOW_BITS, R2, Hand, as_hand, bits_size
from ..moves import Move, legal_moves
from ..rules import STANDARD, Kind, Rules, get_rules
from ._core import check_move, hand_bits

MAX_Q = 10000


#: bit 0 of every rank below the 2 (the ranks d(X) looks at)
_BELOW_2 = sum(1 << (4 * r) for r in range(R2))


def _longest_run(flags: int) -> int:
    """Longest run of consecutive ranks flagged in ``flags`` (bit 0 of each nibble)."""
    n = 0
    while flags:
        flags &= flags >> 4
        n += 1
    return n


def next_play_size(bits: int) -> int:
    """d(X): the most cards one next play can take from X's ranks below the 2.

    Bit-parallel (this runs inside every greedy rollout of `ddzlab.agents.mcts`): the
    flags of ranks holding at least 1, 2, 3 or 4 cards come from shifts of the packed
    counts, and the longest run of set flags from repeated ``f & f >> 4``.
    """
    b = bits & (_BELOW_2 * 15)
    f1 = (b | b >> 1 | b >> 2) & _BELOW_2
    if not f1:
        return 0
    f2 = (b >> 1 | b >> 2) & _BELOW_2
    best = 4 if b >> 2 & _BELOW_2 else 3 if (b & b >> 1) & _BELOW_2 else 2 if f2 else 1
    long1 = _longest_run(f1)
    if long1 >= 5:
        best = max(best, long1)
    if f2:
        long2 = _longest_run(f2)
        if long2 >= 3:
            best = max(best, 2 * long2)
    return best


def q_value(bits: int, move: Move) -> int:
    """Q(S, a) for cards S (packed) and play a."""
    return q_cards(bits, move.cards, move.size)


def q_cards(bits: int, cards: int, size: Optional[int] = None) -> int:
    """Q(S, a) for cards S (packed) and the cards of a (packed; ``size`` of them, counted
    when not given): `q_value` for a part of S that need not be a `Move`."""
    m = cards
    if size is None:
        size = bits_size(m)
    # r = -1: a play of fewer than 4 cards using a rank of which S holds all four
    r = -1 if size < 4 and (bits >> 2) & (m | m >> 1 | m >> 2) & LOW_BITS else 0
    rest = bits - m
    if rest == 0:
        return MAX_Q + size + r
    return size + next_play_size(rest) + r


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
        assert m is not None                   # a hand with cards has a lead
        out.append(m)
        bits -= m.cards
    return out


__all__ = ["MAX_Q", "next_play_size", "q_value", "q_cards", "greedy_q", "greedy_split", "GreedyResult"]
