"""The `Move` value: one play's kind, main rank, chain length and packed cards (and, under
the wildcard rules, the rank the flower card ``F`` is read as), plus `PASS` and the bomb order.

Every module of ddzlab that handles a play handles this one immutable value; which moves a
hand has is `ddzlab.moves.generator`'s business.
"""
from __future__ import annotations

from typing import Optional

from ..cards import F_BIT, RANK_CHARS, RF, Hand, bits_size, format_bits
from ..rules import KIND_SHAPE, Kind, Rules

#: every bomb kind of any rule set, weakest first (`Move.beats` without a rule set uses it;
#: each rule set's own `Rules.bomb_order` is a sub-sequence of it)
ALL_BOMB_ORDER = (Kind.SOFT_BOMB, Kind.BOMB, Kind.ROCKET)
_BOMB_KINDS = frozenset(ALL_BOMB_ORDER)
_TIERS: dict[tuple[Kind, ...], dict[Kind, int]] = {}


def bomb_tiers(order: tuple[Kind, ...]) -> dict[Kind, int]:
    """{bomb kind: its tier (1 = weakest)} of a rule set's `Rules.bomb_order` (cached)."""
    t = _TIERS.get(order)
    if t is None:
        t = _TIERS[order] = {k: i + 1 for i, k in enumerate(order)}
    return t


_F_MASK = 15 << (4 * RF)


class Move:
    """One play: kind, main rank, chain length (1 if not a chain), packed cards paid, and
    ``reading``: the rank the flower card ``F`` among them is read as (None without ``F``).

    A flower card in the main part has the rank its slot needs; one that is a kicker could be
    read as several ranks, and the move keeps the lowest (``333F=4``, trio of 3s with a solo).
    """

    __slots__ = ("kind", "rank", "length", "cards", "size", "_hash", "reading")
    kind: Kind
    rank: int
    length: int
    cards: int
    size: int
    reading: Optional[int]
    _hash: int

    def __init__(self, kind: Kind, rank: int, length: int, cards: int,
                 reading: Optional[int] = None) -> None:
        set_ = object.__setattr__   # moves are shared by the generator's tables: immutable
        set_(self, "kind", kind)
        set_(self, "rank", rank)
        set_(self, "length", length)
        set_(self, "cards", cards)
        set_(self, "size", bits_size(cards))
        set_(self, "reading", reading)
        set_(self, "_hash", hash((cards, int(kind), rank, length)) if reading is None
             else hash((cards, int(kind), rank, length, reading)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    @property
    def is_pass(self) -> bool:
        return self.kind == Kind.PASS

    @property
    def is_bomb(self) -> bool:
        """Bombs (soft ones too) and the rocket: they beat any ordinary move and double the stakes."""
        return self.kind in _BOMB_KINDS

    @property
    def rank_char(self) -> str:
        return RANK_CHARS[self.rank] if self.rank >= 0 else "-"

    @property
    def read_cards(self) -> int:
        """The packed cards as read: ``F`` replaced by the rank it stands for."""
        if self.reading is None:
            return self.cards
        return self.cards - F_BIT + (1 << (4 * self.reading))

    @property
    def main(self) -> int:
        """Packed cards of the main part (the trio, quad or chain without kickers), as read."""
        if self.kind in (Kind.PASS, Kind.ROCKET):
            return self.cards
        width, step = KIND_SHAPE[self.kind]
        return sum(width << (4 * (self.rank + i * step)) for i in range(self.length))

    @property
    def kickers(self) -> int:
        """Packed kicker cards (zero for moves without kickers), as read."""
        return self.read_cards - self.main

    def hand(self) -> Hand:
        return Hand.from_bits(self.cards)

    def beats(self, other: "Move", rules: Optional[Rules] = None) -> bool:
        """Whether this move may be played on top of ``other`` (pass beats nothing).

        Bombs compare by the rule set's `Rules.bomb_order` (a later kind beats an earlier
        one, the same kind by rank; the standard order is bomb < rocket, the wildcard's soft
        bomb < bomb < rocket); without ``rules``, `ALL_BOMB_ORDER`, which agrees with both.
        """
        if self.kind == Kind.PASS:
            return False
        if other.kind == Kind.PASS:
            return True
        tiers = bomb_tiers(ALL_BOMB_ORDER if rules is None else rules.bomb_order)
        mine, theirs = tiers.get(self.kind, 0), tiers.get(other.kind, 0)
        if mine or theirs:
            return mine > theirs or (mine == theirs and self.rank > other.rank)
        return self.kind == other.kind and self.length == other.length and self.rank > other.rank

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Move) and other.cards == self.cards and other.kind == self.kind
                and other.rank == self.rank and other.length == self.length
                and other.reading == self.reading)

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        if self.kind == Kind.PASS:
            return "pass"
        if self.reading is None:
            return format_bits(self.cards)
        return f"{format_bits(self.cards)}={RANK_CHARS[self.reading]}"

    def __repr__(self) -> str:
        if self.kind == Kind.PASS:
            return "Move('pass')"
        extra = f", length={self.length}" if self.length > 1 else ""
        return f"Move({str(self)!r}, {self.kind.name}, rank={self.rank_char!r}{extra})"

    def __reduce__(self):
        if self.reading is None:
            return (Move, (self.kind, self.rank, self.length, self.cards))
        return (Move, (self.kind, self.rank, self.length, self.cards, self.reading))


PASS = Move(Kind.PASS, -1, 0, 0)

#: words that mean "pass" wherever a move is typed
PASS_WORDS = frozenset({"pass", "p", "-", "不要", "过"})

