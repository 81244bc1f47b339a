"""Rule sets as data: which cards, how many players, which combinations.

A variant is a `Rules` value, never an ``if variant == ...`` branch: the move generator
(`ddzlab.moves`) reads the chain and attachment specs below, and the game reads the deal
sizes. The kinds of combination are listed once, in `Kind` (numbered as DouZero numbers
its move types, with the variants' kinds after them).

>>> STANDARD.hand_size, STANDARD.kitty_size, MINI.hand_size
(17, 3, 9)
>>> Kind.PLANE_SOLO in STANDARD.kinds, Kind.PLANE_SOLO in HOMEWORK.kinds
(True, False)
>>> WILDCARD.deck_size, WILDCARD.kitty_size, [k.name for k in WILDCARD.bomb_order]
(55, 4, ['SOFT_BOMB', 'BOMB', 'ROCKET'])
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import IntEnum
from typing import Optional

from .cards import (COPIES, F_BIT, N_RANKS, N_SLOTS, R3, R9, RA, RF, SLOT_CHARS, bits_contain,
                    bits_size, pack)
from .errors import RulesError


class Kind(IntEnum):
    PASS = 0
    SOLO = 1
    PAIR = 2
    TRIO = 3
    BOMB = 4
    ROCKET = 5
    TRIO_SOLO = 6
    TRIO_PAIR = 7
    SOLO_CHAIN = 8
    PAIR_CHAIN = 9
    TRIO_CHAIN = 10
    PLANE_SOLO = 11
    PLANE_PAIR = 12
    FOUR_TWO_SOLO = 13
    FOUR_TWO_PAIR = 14
    GAP_SOLO_CHAIN = 15
    GAP_PAIR_CHAIN = 16
    GAP_TRIO_CHAIN = 17
    QUAD_CHAIN = 18
    QUAD_CHAIN_SOLO = 19
    QUAD_CHAIN_PAIR = 20
    SOFT_BOMB = 21      # four of a rank using the flower card F (wildcard rules)

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


#: copies of each chain rank in the main part, and the rank step between links
KIND_SHAPE: dict[Kind, tuple[int, int]] = {
    Kind.SOLO: (1, 1), Kind.PAIR: (2, 1), Kind.TRIO: (3, 1), Kind.BOMB: (4, 1),
    Kind.TRIO_SOLO: (3, 1), Kind.TRIO_PAIR: (3, 1),
    Kind.SOLO_CHAIN: (1, 1), Kind.PAIR_CHAIN: (2, 1), Kind.TRIO_CHAIN: (3, 1),
    Kind.PLANE_SOLO: (3, 1), Kind.PLANE_PAIR: (3, 1),
    Kind.FOUR_TWO_SOLO: (4, 1), Kind.FOUR_TWO_PAIR: (4, 1),
    Kind.GAP_SOLO_CHAIN: (1, 2), Kind.GAP_PAIR_CHAIN: (2, 2), Kind.GAP_TRIO_CHAIN: (3, 2),
    Kind.QUAD_CHAIN: (4, 1), Kind.QUAD_CHAIN_SOLO: (4, 1), Kind.QUAD_CHAIN_PAIR: (4, 1),
    Kind.SOFT_BOMB: (4, 1),
}


@dataclass(frozen=True)
class ChainSpec:
    """Chains of ``width`` copies per rank, ranks ``step`` apart, ``min_len..max_len`` links."""
    kind: Kind
    width: int
    step: int
    min_len: int
    max_len: int


@dataclass(frozen=True)
class AttachSpec:
    """A main part (a trio, a quad or a chain of them) carrying kickers.

    ``base`` is the kind of the main part (TRIO, BOMB, TRIO_CHAIN or QUAD_CHAIN);
    ``units`` the allowed chain lengths; each unit carries ``per_unit`` kickers that are
    solos (``kicker_width`` 1) or pairs (2). Kickers never share a rank with the main part;
    pair kickers come from distinct ranks; ``distinct`` solo kickers too (the wildcard
    rules' plane wings: no pair as two wings).
    """
    kind: Kind
    base: Kind
    kicker_width: int
    per_unit: int
    min_units: int = 1
    max_units: int = 1
    distinct: bool = False


@dataclass(frozen=True)
class Rules:
    """One rule set. Instances are frozen and hashable, so caches can key on them."""
    name: str
    deck: int                       # packed counts of the whole deck
    hand_size: int                  # cards dealt to each player
    kitty_size: int                 # cards the landlord receives
    chain_ranks: tuple[int, ...]    # ranks that may stand in any chain
    chains: tuple[ChainSpec, ...]
    attachments: tuple[AttachSpec, ...]
    units: tuple[Kind, ...] = (Kind.SOLO, Kind.PAIR, Kind.TRIO, Kind.BOMB)
    rocket: bool = True
    players: int = 3
    bidding: bool = True
    max_bid: int = 3
    wildcard: Optional[int] = None  # the slot of the flower card F (花牌), if the deck has one
    wild_ranks: tuple[int, ...] = ()  # the ranks F may stand for
    #: bomb kinds, weakest first: a later kind beats an earlier one, the same kind compares
    #: by rank; every kind listed beats any move of a kind not listed
    bomb_order: tuple[Kind, ...] = (Kind.BOMB, Kind.ROCKET)
    description: str = ""
    kinds: frozenset = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kinds = set(self.units) | {c.kind for c in self.chains} | {a.kind for a in self.attachments}
        if self.rocket:
            kinds.add(Kind.ROCKET)
        kinds |= {k for k in self.bomb_order if k != Kind.ROCKET or self.rocket}
        object.__setattr__(self, "kinds", frozenset(kinds))

    def __hash__(self) -> int:
        # cached: caches (the move generator's, the analysis tables') hash a rule set on every
        # call, and hashing every field each time showed in profiles of `legal_moves`
        try:
            return self.__dict__["_hash"]
        except KeyError:
            h = self.__dict__["_hash"] = hash(tuple(getattr(self, f.name) for f in fields(self) if f.compare))
            return h

    def __getstate__(self) -> dict:
        # string hashes differ between processes: a pickled rule set recomputes its own
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    @property
    def deck_size(self) -> int:
        return bits_size(self.deck)

    @property
    def ranks(self) -> tuple[int, ...]:
        """Ranks present in the deck, ascending."""
        return tuple(r for r in range(N_RANKS) if (self.deck >> (4 * r)) & 15)

    def chain(self, kind: Kind) -> Optional[ChainSpec]:
        for c in self.chains:
            if c.kind == kind:
                return c
        return None

    def check_hand(self, bits: int, what: str = "hand") -> None:
        """Raise `RulesError` unless ``bits`` fits in this rule set's deck."""
        if bits >> (4 * N_SLOTS):
            raise RulesError(f"{what} has bits above the {N_SLOTS} card slots (packed cards are "
                             f"below 2**{4 * N_SLOTS}): {bits:#x}")
        if not bits_contain(self.deck, bits):
            extra = [SLOT_CHARS[r] for r in range(N_SLOTS)
                     if (bits >> (4 * r)) & 15 > (self.deck >> (4 * r)) & 15]
            raise RulesError(f"{what} has more {', '.join(extra)} than the {self.name} deck holds")

    def __str__(self) -> str:
        return self.name


def _deck(ranks: range | tuple[int, ...]) -> int:
    return pack(COPIES[r] if r in ranks else 0 for r in range(N_RANKS))


_STD_RANKS = tuple(range(R3, RA + 1))

STANDARD = Rules(
    name="standard",
    deck=_deck(tuple(range(N_RANKS))),
    hand_size=17,
    kitty_size=3,
    chain_ranks=_STD_RANKS,
    chains=(
        ChainSpec(Kind.SOLO_CHAIN, 1, 1, 5, 12),
        ChainSpec(Kind.PAIR_CHAIN, 2, 1, 3, 12),
        ChainSpec(Kind.TRIO_CHAIN, 3, 1, 2, 12),
    ),
    attachments=(
        AttachSpec(Kind.TRIO_SOLO, Kind.TRIO, 1, 1),
        AttachSpec(Kind.TRIO_PAIR, Kind.TRIO, 2, 1),
        AttachSpec(Kind.PLANE_SOLO, Kind.TRIO_CHAIN, 1, 1, 2, 12),
        AttachSpec(Kind.PLANE_PAIR, Kind.TRIO_CHAIN, 2, 1, 2, 12),
        AttachSpec(Kind.FOUR_TWO_SOLO, Kind.BOMB, 1, 2),
        AttachSpec(Kind.FOUR_TWO_PAIR, Kind.BOMB, 2, 2),
    ),
    description="54 cards, 17 each + 3 kitty, bidding 1-3; DouZero's legal-move set",
)

MINI = Rules(
    name="mini",
    deck=_deck(tuple(range(R9, N_RANKS))),
    hand_size=9,
    kitty_size=3,
    chain_ranks=tuple(range(R9, RA + 1)),
    chains=(
        ChainSpec(Kind.SOLO_CHAIN, 1, 1, 5, 6),
        ChainSpec(Kind.PAIR_CHAIN, 2, 1, 3, 6),
        ChainSpec(Kind.TRIO_CHAIN, 3, 1, 2, 3),
        ChainSpec(Kind.QUAD_CHAIN, 4, 1, 2, 2),
    ),
    attachments=(
        AttachSpec(Kind.TRIO_SOLO, Kind.TRIO, 1, 1),
        AttachSpec(Kind.TRIO_PAIR, Kind.TRIO, 2, 1),
        AttachSpec(Kind.PLANE_SOLO, Kind.TRIO_CHAIN, 1, 1, 2, 3),
        AttachSpec(Kind.PLANE_PAIR, Kind.TRIO_CHAIN, 2, 1, 2, 3),
        AttachSpec(Kind.FOUR_TWO_SOLO, Kind.BOMB, 1, 2),
        AttachSpec(Kind.FOUR_TWO_PAIR, Kind.BOMB, 2, 2),
        AttachSpec(Kind.QUAD_CHAIN_SOLO, Kind.QUAD_CHAIN, 1, 1, 2, 2),
        AttachSpec(Kind.QUAD_CHAIN_PAIR, Kind.QUAD_CHAIN, 2, 1, 2, 2),
    ),
    bidding=False,
    description="迷你斗地主: 30 cards (9..2, jokers), 9 each + 3 kitty, seat 0 is landlord",
)

HOMEWORK = replace(
    STANDARD,
    name="homework",
    chains=STANDARD.chains + (
        ChainSpec(Kind.GAP_SOLO_CHAIN, 1, 2, 5, 6),
        ChainSpec(Kind.GAP_PAIR_CHAIN, 2, 2, 3, 6),
        ChainSpec(Kind.GAP_TRIO_CHAIN, 3, 2, 2, 6),
    ),
    attachments=tuple(a for a in STANDARD.attachments if a.base != Kind.TRIO_CHAIN),
    description="Tsinghua homework: standard plus gapped chains, no planes with wings, any hand size",
)

WILDCARD = replace(
    STANDARD,
    name="wildcard",
    deck=STANDARD.deck | F_BIT,
    kitty_size=4,
    attachments=tuple(replace(a, distinct=True) if a.kind == Kind.PLANE_SOLO else a
                      for a in STANDARD.attachments),
    wildcard=RF,
    wild_ranks=_STD_RANKS,
    bomb_order=(Kind.SOFT_BOMB, Kind.BOMB, Kind.ROCKET),
    description="花牌: 55 cards with a flower card F for any rank 3..A, 17 each + 4 kitty; "
                "soft bombs below natural bombs; plane solo wings of distinct ranks",
)

RULESETS: dict[str, Rules] = {r.name: r for r in (STANDARD, MINI, HOMEWORK, WILDCARD)}


def get_rules(name: str | Rules) -> Rules:
    """Look a rule set up by name (``standard``, ``mini``, ``homework``, ``wildcard``)."""
    if isinstance(name, Rules):
        return name
    if not isinstance(name, str):
        raise RulesError(f"a rule set is a Rules object or a name, not {name!r}")
    try:
        return RULESETS[name.lower()]
    except KeyError:
        raise RulesError(f"unknown rule set {name!r}; choose from {', '.join(RULESETS)}") from None


__all__ = ["Kind", "KIND_SHAPE", "ChainSpec", "AttachSpec", "Rules", "STANDARD", "MINI",
           "HOMEWORK", "WILDCARD", "RULESETS", "get_rules"]
