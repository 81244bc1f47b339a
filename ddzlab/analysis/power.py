"""Weight-based hand power and hints (penkzhou/DouDiZhu; docs/definitions.md#hand-power), in ddzlab's terms.

Every play gets a *power*: a fixed cost per play (-150) plus -100 x its "badness", which is
lower (better) for high ranks, long chains, bombs and the rocket. The power of a hand is
the largest total power of a split into plays:

    p(cards) = max over plays m holding the lowest rank of cards: power(m) + p(cards - m)

Taking only plays that hold the lowest remaining rank lists each split once (whatever
its order), so the recursion memoised on the remaining cards is fast. The plays come from
one call to ``ddzlab.moves`` on the whole hand: a play of a sub-hand is a play of the hand,
so each state filters that list by containment instead of regenerating moves.

Hints (penkzhou/DouDiZhu's recommendation) order the legal plays by the power of what remains
after them, best first; ties go to the play with less power of its own (keep strong
cards), then to the lower rank.

Limits: the number of sub-hands grows about twofold per two cards (random hands:
0.2-0.5 s and 16,000-49,000 states on 32 cards, 1-2 s and 43,000-160,000 on 34, 7 s and
270,000 on 36; structured hands more: 306,000 for nine bombs), so `hand_power` and `hints`
refuse a hand of more than `MAX_POWER_CARDS` cards at once, and every search stops with
`SearchLimitError` once it holds `MAX_POWER_STATES` sub-hands (under 100 MB, 5-20 s).

>>> [str(m) for m, _ in hints("433335")][:3]    # penkzhou/DouDiZhu's example: keep the bomb
['4', '5', '333345']
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional, Union

from ..cards import GUARD_BITS, Hand, bits_size, unpack
from ..moves import Move, generator, legal_moves
from ..rules import KIND_SHAPE, STANDARD, Kind, Rules, get_rules
from ..errors import SearchLimitError
from ._core import check_move, hand_bits, moves_text, refuse_over

ONE_HAND_POWER = -150.0   # cost of every extra play
POWER_UNIT = -100.0       # power per unit of badness
FACE_2 = 15               # face value of a 2 (3..A = 3..14, B = 16, R = 17)
#: the largest hand `hand_power` and `hints` search (larger ones are refused up front)
MAX_POWER_CARDS = 34
#: the most sub-hands one `PowerSolver` memoises before it raises `SearchLimitError`
MAX_POWER_STATES = 250_000


@dataclass(frozen=True)
class PowerConstants:
    """penkzhou/DouDiZhu's weights behind `move_power`, in one place so they can be tuned.

    The power of a play is ``one_hand + unit * bad``. Its badness ``bad`` is, by the width
    of its main part: ``base + slope * (15 - middle face) + chain * length`` (chains of
    solos count from 5 links, of pairs from 3, of trios from 2; each kicker group of a
    trio takes ``kicker``); a bomb is ``bomb + bomb_slope * (15 - face)`` (a bomb of 2s
    ``bomb_2``); four-with-kickers ``four_two``; the rocket ``rocket``. The defaults are
    penkzhou/DouDiZhu's values (frozen, hashable: the per-kind cache keys on them).
    """
    one_hand: float = ONE_HAND_POWER
    unit: float = POWER_UNIT
    solo: tuple[float, float] = (0.435, 0.0151)     # (base, slope)
    pair: tuple[float, float] = (0.437, 0.015)
    trio: tuple[float, float] = (0.433, 0.02)
    chain: float = 0.02
    kicker: float = 0.01
    bomb: tuple[float, float] = (-6.0, 0.175)
    bomb_2: float = -4.65
    four_two: float = -4.5
    rocket: float = -8.0


SEED_POWER = PowerConstants()


def _face(rank: int) -> int:
    return rank + 3


@lru_cache(maxsize=None)
def _move_power(kind: Kind, rank: int, length: int, groups: int,
                k: PowerConstants = SEED_POWER) -> float:
    if kind == Kind.ROCKET:
        bad = k.rocket
    else:
        width, step = KIND_SHAPE[kind]
        low = _face(rank)
        top = low + ((length - 1) * step + 1) / 2.0   # middle of the span, as penkzhou/DouDiZhu has it
        serial = length
        if width == 4:
            if groups:
                bad = k.four_two + 0.003 * (FACE_2 - top) + (serial if serial > 1 else 0) * 0.002 \
                    - groups * 0.002
            elif low == FACE_2:
                bad = k.bomb_2
            else:
                bad = k.bomb[0] + k.bomb[1] * (FACE_2 - top) + (serial if serial > 1 else 0) * 0.002
        elif width == 3:
            bad = k.trio[0] + k.trio[1] * (FACE_2 - top) + (serial if serial > 1 else 0) * k.chain \
                - groups * k.kicker
        elif width == 2:
            bad = k.pair[0] + k.pair[1] * (FACE_2 - top) + (serial if serial > 2 else 0) * k.chain
        else:
            bad = k.solo[0] + k.solo[1] * (FACE_2 - top) + (serial if serial > 4 else 0) * k.chain
    return k.one_hand + k.unit * bad


def _groups(move: Move) -> int:
    """Number of kicker groups (solos or pairs) a play carries."""
    kick = move.kickers
    if not kick or move.kind in (Kind.ROCKET, Kind.PASS):
        return 0
    cards = sum(unpack(kick))
    return cards // 2 if move.kind in (Kind.TRIO_PAIR, Kind.PLANE_PAIR, Kind.FOUR_TWO_PAIR,
                                        Kind.QUAD_CHAIN_PAIR) else cards


def move_power(move: Move, constants: PowerConstants = SEED_POWER) -> float:
    """penkzhou/DouDiZhu's power of one play (higher is better; pass is 0), under ``constants``.

    >>> round(move_power(Move(Kind.SOLO, 0, 1, 1)), 2), round(move_power(Move(Kind.ROCKET, 13, 1, 0)), 2)
    (-210.87, 650.0)
    """
    if move.kind == Kind.PASS:
        return 0.0
    return _move_power(move.kind, move.rank, move.length, _groups(move), constants)


@dataclass
class PowerResult:
    """Best split by power, and the search's effort."""
    power: float
    moves: list[Move]
    states: int
    seconds: float

    def __str__(self) -> str:
        return f"power {self.power:.1f} in {len(self.moves)} plays: {moves_text(self.moves)}"


class PowerSolver:
    """Memoised hand power for the sub-hands of one hand (``bits``), under ``constants``.

    ``memo`` maps the sub-hands searched so far to their power; `split` rebuilds the best
    split from it (the first play, in generation order, that reaches the power). A search
    that would memoise more than ``max_states`` sub-hands raises `SearchLimitError`.
    ``plays``: every leading play of ``bits`` in the order `split` should try them (default:
    the generator's; the power does not depend on the order, the split's ties do).
    """

    def __init__(self, bits: int, rules: Rules, constants: PowerConstants = SEED_POWER,
                 max_states: int = MAX_POWER_STATES, plays: Optional[Iterable[Move]] = None) -> None:
        self.bits = bits
        self.max_states = max_states
        by_low: dict[int, list[tuple[int, float, Move]]] = {}
        if plays is None:
            gen = generator(rules)
            # with a flower card, every play of every reading (the rank sweep `collect` cannot
            # hold F): the search then takes the best reading of F, like `min_plays`
            plays = gen.leading(bits) if rules.wildcard is not None else gen.collect(unpack(bits))
        for m in plays:
            c = m.cards
            low = ((c & -c).bit_length() - 1) >> 2          # lowest rank the play holds
            by_low.setdefault(low, []).append((c, move_power(m, constants), m))
        self.by_low = by_low
        #: the power of each play of the hand (`move_power` under ``constants``)
        self.play_power: dict[Move, float] = {m: pw for row in by_low.values() for _, pw, m in row}
        self.memo: dict[int, float] = {0: 0.0}
        self.power = self._searcher()

    def _searcher(self):
        """The recursive search as a closure over local tables (the hot loop of the agent
        that plays by hand power: no attribute look-ups inside)."""
        memo = self.memo
        plays = {low: [(c, pw) for c, pw, _ in row] for low, row in self.by_low.items()}
        guard = GUARD_BITS    # the SWAR containment test of ddzlab.cards.bits_contain
        get = memo.get
        limit = self.max_states

        def power(bits: int) -> float:
            """The power of the sub-hand ``bits`` (packed)."""
            got = get(bits)
            if got is not None:
                return got
            big = bits | guard
            best = -1e18
            for cards, pw in plays[((bits & -bits).bit_length() - 1) >> 2]:
                if (big - cards) & guard == guard:
                    v = pw + power(bits - cards)
                    if v > best:
                        best = v
            if len(memo) >= limit:
                raise SearchLimitError(f"the hand power search reached its limit of {limit:,} "
                                       "sub-hands: the hand is too large for it")
            memo[bits] = best
            return best
        return power

    def split(self, bits: int) -> list[Move]:
        """The best split of the sub-hand ``bits``."""
        power, out = self.power, []
        while bits:
            target = power(bits)
            big = bits | GUARD_BITS
            low = ((bits & -bits).bit_length() - 1) >> 2
            for cards, pw, m in self.by_low[low]:
                if (big - cards) & GUARD_BITS == GUARD_BITS and pw + power(bits - cards) == target:
                    break
            out.append(m)
            bits -= cards
        return out


def refuse_large_hand(bits: int) -> None:
    """`SearchLimitError` for a hand of more than `MAX_POWER_CARDS` cards (also the compiled
    solver's check, `ddzlab.search.power.solver`)."""
    n = bits_size(bits)
    refuse_over(n, MAX_POWER_CARDS, f"a hand power of {n} cards",
                "the exact split search doubles about every two cards: seconds at 34, minutes beyond")


def hand_power(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD,
               constants: PowerConstants = SEED_POWER) -> PowerResult:
    """The power of ``hand`` (penkzhou/DouDiZhu's p(cards)) and its best split; computed cold.

    Raises `SearchLimitError` (a ValueError) for a hand of more than `MAX_POWER_CARDS`
    cards, or one whose search exceeds `MAX_POWER_STATES` sub-hands."""
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)
    refuse_large_hand(bits)
    t0 = time.perf_counter()
    solver = PowerSolver(bits, rules, constants)
    p = solver.power(bits)
    moves = solver.split(bits)
    return PowerResult(p, moves, len(solver.memo), time.perf_counter() - t0)


def hints(hand: Union[Hand, str], to_beat: Optional[Move] = None,
          rules: Union[Rules, str] = STANDARD,
          constants: PowerConstants = SEED_POWER) -> list[tuple[Move, float]]:
    """Legal plays (no pass), best first by the power of the cards left after them.

    Returns (play, power of what remains). Raises `RulesError` if the hand or the play
    to beat do not belong to the rule set, `SearchLimitError` for a hand too large to
    search (as `hand_power`).
    """
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)
    refuse_large_hand(bits)
    if to_beat is not None:
        check_move(to_beat, rules, "move to beat")
    solver = PowerSolver(bits, rules, constants)
    out = []
    for m in legal_moves(Hand.from_bits(bits), rules, to_beat):
        if m.kind == Kind.PASS:
            continue
        out.append((m, solver.power(bits - m.cards)))
    out.sort(key=lambda x: (-x[1], move_power(x[0], constants), x[0].rank, x[0].size))
    return out


__all__ = ["move_power", "hand_power", "hints", "PowerResult", "PowerSolver", "PowerConstants",
           "SEED_POWER", "MAX_POWER_CARDS", "MAX_POWER_STATES"]
