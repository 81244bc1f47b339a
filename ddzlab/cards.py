"""Cards and hands: rank order, text notation, and the immutable `Hand` value.

Suits play no role in Dou Dizhu, so a hand is a multiset of ranks. ddzlab stores it as
one packed integer with four bits per rank (rank ``r`` occupies bits ``4r .. 4r+3``):
subtraction, containment and hashing are then single integer operations, which is what
makes search and memoisation cheap.

Ranks are numbered 0..14 in playing order::

    3 4 5 6 7 8 9 T J Q K A 2 B R
    0 1 2 3 4 5 6 7 8 9 ...   14

``B`` is the black joker (小王) and ``R`` the red joker (大王). The wildcard rule set's flower
card ``F`` (花牌, docs/rules.md#other-rule-sets) has its own slot, index 15 (`RF`), holding at most one card, so
a hand stays one integer; `unpack` lists the 15 real ranks only (read ``F`` with `flowers`).

>>> h = Hand("3 3 4 10 J Q K A 2 x D")
>>> str(h)
'334TJQKA2BR'
>>> len(h), h.count("3")
(11, 2)
>>> Hand("334") in h, str(h - Hand("BR"))
(True, '334TJQKA2')
"""
from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from typing import Union

import numpy as np

from .errors import CardError

RANK_CHARS = "3456789TJQKA2BR"
N_RANKS = 15
R3, R4, R5, R6, R7, R8, R9, RT, RJ, RQ, RK, RA, R2, RB, RR = range(N_RANKS)
#: the flower card's slot (after the 15 ranks) and the slot count including it
RF = 15
N_SLOTS = 16
SLOT_CHARS = RANK_CHARS + "F"
COPIES = tuple(4 if r < RB else 1 for r in range(N_RANKS))
SLOT_COPIES = COPIES + (1,)
#: the packed flower card
F_BIT = 1 << (4 * RF)

#: one bit per slot (bit 0 of each nibble, the flower's too); used to build per-rank flag masks
LOW_BITS = sum(1 << (4 * r) for r in range(N_SLOTS))
#: bit 3 of every nibble: the guard bit for the SWAR containment test
GUARD_BITS = LOW_BITS << 3
FULL_DECK_BITS = sum(c << (4 * r) for r, c in enumerate(COPIES))

_SYMBOLS = {ch: r for r, ch in enumerate(SLOT_CHARS)}
_SYMBOLS.update({ch.lower(): r for ch, r in list(_SYMBOLS.items())})
_SYMBOLS.update({"X": RB, "x": RB, "D": RR, "d": RR})


def rank_of(symbol: str) -> int:
    """The rank index of one card symbol (``'T'``, ``'10'``, ``'b'``, ``'X'`` ...)."""
    if symbol == "10":
        return RT
    try:
        return _SYMBOLS[symbol]
    except KeyError:
        raise CardError(f"unknown card symbol {symbol!r}; use one of {SLOT_CHARS} "
                        "(also 10, X/D for the jokers, lower case; F is the flower card)") from None


def parse_counts(text: str) -> list[int]:
    """Rank counts of a card text. Spaces and commas separate nothing and are ignored.

    The list has 15 entries, or 16 when the text holds the flower card ``F``."""
    counts = [0] * N_SLOTS
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " ,\t\n":
            i += 1
            continue
        if ch == "1" and text[i + 1:i + 2] == "0":
            counts[RT] += 1
            i += 2
            continue
        counts[rank_of(ch)] += 1
        i += 1
    if counts[RF] > 1:
        raise CardError(f"{counts[RF]} flower cards F in {text!r}: the deck holds one")
    return counts if counts[RF] else counts[:N_RANKS]


def pack(counts: Iterable[int]) -> int:
    """Pack per-rank counts into the 4-bit-per-rank integer, checking the deck limits."""
    bits = 0
    try:
        counts = [c if type(c) is int else operator.index(c) for c in counts]
    except TypeError:
        raise CardError(f"cards are card text or per-rank counts (integers), not {counts!r}") from None
    for r, c in enumerate(counts):
        if r >= N_SLOTS:
            raise CardError(f"too many ranks: a count vector has {N_RANKS} entries (16 with F)")
        if c < 0 or c > SLOT_COPIES[r]:
            raise CardError(f"{c} copies of {SLOT_CHARS[r]!r}, but the deck holds {SLOT_COPIES[r]}")
        bits |= c << (4 * r)
    return bits


def unpack(bits: int) -> list[int]:
    """Per-rank counts of a packed hand (the 15 ranks; see `flowers` for ``F``)."""
    return [(bits >> (4 * r)) & 15 for r in range(N_RANKS)]


def flowers(bits: int) -> int:
    """How many flower cards ``F`` a packed hand holds (0 or 1)."""
    return bits >> (4 * RF) & 15


def bits_contain(big: int, small: int) -> bool:
    """Whether packed multiset ``small`` is contained in ``big`` (one SWAR test).

    Every nibble holds at most 4, so ``(big | 8) - small`` never borrows across
    nibbles and keeps the guard bit exactly where ``big >= small``.
    """
    return ((big | GUARD_BITS) - small) & GUARD_BITS == GUARD_BITS


def bits_size(bits: int) -> int:
    """Number of cards in a packed hand (the nibbles' sum, from four popcounts).

    >>> bits_size(pack([4, 0, 3] + [0] * 11 + [1]))
    8
    """
    return ((bits & LOW_BITS).bit_count() + 2 * (bits & LOW_BITS << 1).bit_count()
            + 4 * (bits & LOW_BITS << 2).bit_count() + 8 * (bits & LOW_BITS << 3).bit_count())


def lowest_rank(bits: int) -> int:
    """Index of the lowest rank a non-empty packed hand holds.

    >>> lowest_rank(pack([0, 0, 2, 1]))
    2
    """
    if not bits:
        raise CardError("an empty hand has no lowest rank")
    return ((bits & -bits).bit_length() - 1) // 4


def format_bits(bits: int) -> str:
    """Cards of a packed hand in ascending order, e.g. ``'33TJQKA2BR'``."""
    return "".join(SLOT_CHARS[r] * ((bits >> (4 * r)) & 15) for r in range(N_SLOTS))


class Hand:
    """An immutable multiset of cards.

    Construct from text (``Hand("334BR")``), from another hand, or from per-rank counts
    with `Hand.from_counts`. ``a - b`` removes cards (raising `CardError` if ``b`` is not
    in ``a``), ``a + b`` joins, ``b in a`` tests containment; hands hash and compare
    by their cards.
    """

    __slots__ = ("bits",)
    bits: int

    def __init__(self, cards: Union[str, "Hand", Iterable[int], None] = None) -> None:
        if cards is None:
            bits = 0
        elif isinstance(cards, str):
            bits = pack(parse_counts(cards))
        elif isinstance(cards, Hand):
            bits = cards.bits
        else:
            bits = pack(cards)
        object.__setattr__(self, "bits", bits)

    @classmethod
    def from_bits(cls, bits: int) -> "Hand":
        """Wrap a packed integer (trusted: no range check)."""
        h = object.__new__(cls)
        object.__setattr__(h, "bits", bits)
        return h

    @classmethod
    def from_counts(cls, counts: Iterable[int]) -> "Hand":
        return cls.from_bits(pack(counts))

    @classmethod
    def from_ranks(cls, ranks: Iterable[int]) -> "Hand":
        """A hand from a list of rank indices (one entry per card)."""
        counts = [0] * N_SLOTS
        for r in ranks:
            if not 0 <= r < N_SLOTS:
                raise CardError(f"rank index {r} is outside 0..{N_SLOTS - 1} (15 is the flower F)")
            counts[r] += 1
        return cls.from_counts(counts)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Hand is immutable")

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(unpack(self.bits))

    def count(self, rank: Union[int, str]) -> int:
        r = rank_of(rank) if isinstance(rank, str) else rank
        return (self.bits >> (4 * r)) & 15

    def ranks(self) -> list[int]:
        """One rank index per card, ascending (the flower card ``F`` is 15, last)."""
        return [r for r in range(N_SLOTS) for _ in range((self.bits >> (4 * r)) & 15)]

    def __len__(self) -> int:
        return bits_size(self.bits)

    def __bool__(self) -> bool:
        return self.bits != 0

    def __iter__(self) -> Iterator[int]:
        return iter(self.ranks())

    def __contains__(self, other: object) -> bool:
        return bits_contain(self.bits, _bits_of(other))

    def __le__(self, other: "Hand") -> bool:
        return bits_contain(other.bits, self.bits)

    def __ge__(self, other: "Hand") -> bool:
        return bits_contain(self.bits, other.bits)

    def __sub__(self, other: object) -> "Hand":
        ob = _bits_of(other)
        if not bits_contain(self.bits, ob):
            raise CardError(f"cannot remove {format_bits(ob)} from {self}: "
                            f"missing {format_bits(missing_bits(self.bits, ob))}")
        return Hand.from_bits(self.bits - ob)

    def __add__(self, other: object) -> "Hand":
        ob = _bits_of(other)
        return Hand.from_counts(((self.bits >> (4 * r)) & 15) + ((ob >> (4 * r)) & 15) for r in range(N_SLOTS))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and other.bits == self.bits

    def __hash__(self) -> int:
        return hash(self.bits)

    def __str__(self) -> str:
        return format_bits(self.bits)

    def __repr__(self) -> str:
        return f"Hand({format_bits(self.bits)!r})"

    def __reduce__(self):
        return (Hand.from_bits, (self.bits,))


def missing_bits(have: int, need: int) -> int:
    """The cards of ``need`` that ``have`` lacks (packed), for error messages."""
    out = 0
    for r in range(N_SLOTS):
        d = ((need >> (4 * r)) & 15) - ((have >> (4 * r)) & 15)
        if d > 0:
            out |= d << (4 * r)
    return out


def _bits_of(obj: object) -> int:
    if isinstance(obj, Hand):
        return obj.bits
    cards = getattr(obj, "cards", None)
    if isinstance(cards, int):
        return cards
    if isinstance(obj, str):
        return pack(parse_counts(obj))
    raise TypeError(f"expected a Hand, a Move or card text, not {type(obj).__name__}")


def as_hand(cards: Union[str, Hand, Iterable[int]]) -> Hand:
    """Accept text, a `Hand` or counts wherever a hand is expected."""
    return cards if isinstance(cards, Hand) else Hand(cards)


def shuffled(bits: int, rng: np.random.Generator) -> list[int]:
    """The cards of ``bits`` in a random order drawn from ``rng``."""
    cards = np.array(Hand.from_bits(bits).ranks(), dtype=np.int64)
    rng.shuffle(cards)
    return cards.tolist()
