"""Shared machinery of the hand-splitting searches: how a rule set's kinds divide, the
rank-histogram abstraction of chain-free hands, and the rank sweep.

Why a split into two stages
---------------------------
Every way to empty a hand is a set of plays. Each play is either

* a *chain play* — a solo/pair/trio/quad chain (plain or gapped), or a plane (a trio or
  quad chain carrying kickers): its main part spans several ranks;
* a *flat play* — solo, pair, trio, bomb, rocket, trio + kicker, four + two: its main part
  is one rank (or the rocket).

Whether a multiset of cards is a legal flat play does not depend on *which* ranks are
involved, only on their counts (a kicker must differ from the main rank, pair kickers come
from distinct ranks, the rocket needs both jokers). So the best way to finish a hand
with flat plays only depends on its **rank histogram** — how many ranks hold 1, 2, 3, 4
cards and how many jokers — of which there are only a few thousand. `FlatSolver` solves
those once per rule set and caches them (move lists always come from `ddzlab.moves`,
asked for on a representative hand of that histogram).

Chain plays are chosen by a *rank sweep*: ranks are visited in ascending order and at
each rank the searches decide which chain mains start there; once the sweep has passed
a rank, its remaining cards can only go to flat plays or be kickers ("frozen"). Because
a chain's lowest rank is where it starts, every set of plays is reached by exactly the
sweep that starts each chain at its lowest rank — the sweep is complete — and a frozen
part only matters through its histogram, which the sweep states use as part of their key.

Kickers of planes are not chosen when the plane's main part is: the plane is *pending*
and its kickers are picked at the end, from whatever the sweep left, by asking
``ddzlab.moves`` for the planes on that main (``leading=False``, so that every card set
is listed under exactly one reading and no legal set is lost).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from ..cards import N_RANKS, RB, RR, bits_size, unpack
from ..errors import SearchLimitError
from ..moves import PASS, Move, check_move, generator, hand_bits
from ..rules import KIND_SHAPE, AttachSpec, Kind, Rules

NIB = 15
#: bit 0 of every rank's nibble (ranks 3 .. red joker)
_LOW = sum(1 << (4 * r) for r in range(N_RANKS))
#: the nibbles of the ranks below the jokers
_PLAIN = (1 << (4 * RB)) - 1


def _at_least(bits: int) -> tuple[int, int, int, int]:
    """Bit 0 of each rank's nibble set where the rank holds at least 1, 2, 3, 4 cards
    (counts 0..4; the four masks of the bit-parallel bounds and histograms)."""
    b1, b2 = bits >> 1, bits >> 2
    return ((bits | b1 | b2) & _LOW, (b1 | b2) & _LOW, (bits & b1 | b2) & _LOW, b2 & _LOW)


@dataclass(frozen=True)
class PendingSpec:
    """A chain-based attachment (plane, quad chain + kickers) whose kickers are deferred."""
    index: int
    spec: AttachSpec
    width: int              # copies per rank of the main part
    step: int
    slots: int              # kicker groups per unit
    kicker_width: int


class Tables:
    """What the searches need to know about one rule set, precomputed once."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.gen = generator(rules)
        deck = unpack(rules.deck)
        self.chain_specs = rules.chains
        self.chain_kinds = frozenset(c.kind for c in rules.chains)
        self.pending_specs: list[PendingSpec] = []
        flat_attach = []
        for a in rules.attachments:
            width, step = KIND_SHAPE[a.base]
            if a.base in self.chain_kinds:
                self.pending_specs.append(PendingSpec(len(self.pending_specs), a, width, step,
                                                      a.per_unit, a.kicker_width))
            else:
                flat_attach.append(a)
        self.flat_attach = tuple(flat_attach)
        pend_kinds = {p.spec.kind for p in self.pending_specs}
        self.flat_kinds = tuple(k for k in sorted(rules.kinds)
                                if k not in self.chain_kinds and k not in pend_kinds
                                and k != Kind.PASS)
        self.chain_ranks = tuple(sorted(rules.chain_ranks))
        self.is_chain_rank = [r in rules.chain_ranks for r in range(N_RANKS)]
        self.plain_ranks = [r for r in range(N_RANKS) if deck[r] and r not in (RB, RR)]
        # masks: the non-chain ranks (2s, jokers...) are always "frozen"
        self.nonchain_mask = sum(NIB << (4 * r) for r in range(N_RANKS)
                                 if not self.is_chain_rank[r])
        self.chain_mask = sum(NIB << (4 * r) for r in self.chain_ranks)
        self.chain_low = self.chain_mask & _LOW
        self.plain_low = sum(1 << (4 * r) for r in self.plain_ranks)
        #: per sweep rank r: bit 0 of the nibbles no chain can use any more (`frozen_bound`)
        self.frozen_low = [(((1 << (4 * r)) - 1) | self.nonchain_mask) & _LOW
                           for r in range(N_RANKS + 1)]
        self.options_cache: dict[tuple[int, int, int], list[tuple[object, int]]] = {}
        self.four_two = any(a.base == Kind.BOMB for a in self.flat_attach)
        # largest flat play: unit widths, flat attachments, rocket
        self.flat_shapes = [(KIND_SHAPE[a.base][0], a.per_unit * a.kicker_width)
                            for a in self.flat_attach]
        self.units = tuple(KIND_SHAPE[k][0] for k in rules.units)
        self.flat_cache: dict[int, int] = {0: 0}
        self.profile_cache: dict[int, dict[int, int]] = {0: {0: 0}}
        self.moves_cache: dict[int, list[tuple[int, Kind]]] = {}

    # -- histogram keys ----------------------------------------------------------------
    @staticmethod
    def hist_key(bits: int) -> int:
        """(#ranks with 1, 2, 3, 4 plain cards, #jokers) packed into one int."""
        jokers = ((bits >> (4 * RB)) & 1) + ((bits >> (4 * RR)) & 1)
        g1, g2, g3, g4 = _at_least(bits & _PLAIN)
        n2, n3, n4 = g2.bit_count(), g3.bit_count(), g4.bit_count()
        return (g1.bit_count() - n2) + ((n2 - n3) << 5) + ((n3 - n4) << 10) + (n4 << 15) + (jokers << 20)

    def representative(self, key: int) -> int:
        """Packed cards of one hand with histogram ``key``: singles on the lowest ranks."""
        bits = 0
        ranks = iter(self.plain_ranks)
        for c in (1, 2, 3, 4):
            for _ in range((key >> (5 * (c - 1))) & 31):
                bits |= c << (4 * next(ranks))
        j = key >> 20
        if j >= 1:
            bits |= 1 << (4 * RB)
        if j >= 2:
            bits |= 1 << (4 * RR)
        return bits

    def flat_moves(self, bits: int, rank: int) -> list[Move]:
        """Flat plays of ``bits`` that contain a card of ``rank`` (from ddzlab.moves)."""
        c = unpack(bits)
        out = []
        shift = 4 * rank
        for kind in self.flat_kinds:
            for m in self.gen.collect(c, kind=kind):
                if (m.cards >> shift) & NIB:
                    out.append(m)
        return out

    @staticmethod
    def capped(key: int) -> int:
        """``key`` with every count class capped at 3 ranks.

        A flat play touches at most three ranks (a quad and two kicker ranks), so a hand
        offers the same play *shapes* — how many cards each touched rank gives — as the
        hand whose classes are capped at three ranks. The shapes, and the change each
        makes to the histogram, are therefore read off one small representative.
        """
        out = key & ~((1 << 20) - 1)
        for c in range(4):
            out |= min((key >> (5 * c)) & 31, 3) << (5 * c)
        return out

    def _key_moves(self, key: int) -> list[tuple[int, Kind]]:
        """Flat plays containing the first card of the representative of ``key``, as
        (change of histogram key, kind); the same list serves every key with the same
        capped key."""
        ck = self.capped(key)
        got = self.moves_cache.get(ck)
        if got is None:
            rep = self.representative(ck)
            first = next(r for r in range(N_RANKS) if (rep >> (4 * r)) & NIB)
            seen = set()
            got = []
            for m in self.flat_moves(rep, first):
                item = (self.hist_key(rep - m.cards) - ck, m.kind)
                if item not in seen:
                    seen.add(item)
                    got.append(item)
            self.moves_cache[ck] = got
        return got

    # -- flat stage: fewest plays ------------------------------------------------------
    def flat_plays(self, key: int) -> int:
        """Fewest flat plays that empty a hand with histogram ``key`` (exact, cached)."""
        got = self.flat_cache.get(key)
        if got is not None:
            return got
        best = 10 ** 9
        for delta, _ in self._key_moves(key):
            v = self.flat_plays(key + delta) + 1
            if v < best:
                best = v
        self.flat_cache[key] = best
        return best

    def flat_split(self, bits: int) -> list[Move]:
        """One fewest-plays flat split of the actual cards ``bits``."""
        out: list[Move] = []
        while bits:
            target = self.flat_plays(self.hist_key(bits))
            r = next(r for r in range(N_RANKS) if (bits >> (4 * r)) & NIB)
            for m in self.flat_moves(bits, r):
                if self.flat_plays(self.hist_key(bits - m.cards)) == target - 1:
                    out.append(m)
                    bits -= m.cards
                    break
            else:  # pragma: no cover - the histogram abstraction is exact
                raise AssertionError("flat split reconstruction failed")
        return out

    # -- flat stage: (plays -> best total reward) profile ------------------------------
    def flat_profile(self, key: int, reward) -> dict[int, int]:
        """For each number of flat plays that can empty the hand, the largest total reward.

        ``reward`` maps a `Kind` to an int; the cache assumes one reward table per
        rule set (the searches only use `ddzlab.analysis.score.reward`).
        """
        got = self.profile_cache.get(key)
        if got is not None:
            return got
        prof: dict[int, int] = {}
        for delta, kind in self._key_moves(key):
            w = reward(kind)
            for steps, val in self.flat_profile(key + delta, reward).items():
                s = steps + 1
                v = val + w
                if prof.get(s, -1) < v:
                    prof[s] = v
        self.profile_cache[key] = prof
        return prof

    def flat_split_for(self, bits: int, steps: int, value: int, reward) -> list[Move]:
        """A flat split of ``bits`` with exactly ``steps`` plays and total reward ``value``."""
        out: list[Move] = []
        while bits:
            r = next(r for r in range(N_RANKS) if (bits >> (4 * r)) & NIB)
            for m in self.flat_moves(bits, r):
                rest = self.flat_profile(self.hist_key(bits - m.cards), reward)
                w = reward(m.kind)
                if rest.get(steps - 1, -1) == value - w:
                    out.append(m)
                    bits -= m.cards
                    steps -= 1
                    value -= w
                    break
            else:  # pragma: no cover
                raise AssertionError("flat split reconstruction failed")
        return out

    # -- sweep helpers -------------------------------------------------------------------
    def chain_options(self, bits: int, r: int) -> list[tuple[object, int]]:
        """Chain mains starting exactly at rank ``r``: ``(Move, cards)`` for plain chains
        and ``((pending index, r, length), main cards)`` for plane mains.

        They depend only on the chain-rank cards from ``r`` up and on the hand's size (a
        plane needs room for its kickers), so they are cached under that key (shared by
        the states and hands that agree there; the list is not to be modified)."""
        total = bits_size(bits)
        key = ((bits & self.chain_mask) >> (4 * r), r, total)
        got = self.options_cache.get(key)
        if got is None:
            if len(self.options_cache) >= 1 << 16:    # at most ~75 MB
                self.options_cache.clear()
            got = self.options_cache[key] = self._chain_options(bits, r, total)
        return got

    def _chain_options(self, bits: int, r: int, total: int) -> list[tuple[object, int]]:
        c = unpack(bits)
        out: list[tuple[object, int]] = []
        bases: dict[Kind, list[Move]] = {}
        for spec in self.chain_specs:
            ms = self.gen.collect(c, kind=spec.kind, rank=r)
            bases[spec.kind] = ms
            out.extend((m, m.cards) for m in ms)
        for p in self.pending_specs:
            a = p.spec
            for m in bases.get(a.base, ()):
                if a.min_units <= m.length <= a.max_units and \
                        total - m.size >= m.length * p.slots * p.kicker_width:
                    out.append(((p.index, r, m.length), m.cards))
        return out

    def next_chain_rank(self, bits: int, r: int) -> Optional[int]:
        """The lowest chain rank ``>= r`` that still holds cards."""
        for s in self.chain_ranks:
            if s >= r and (bits >> (4 * s)) & NIB:
                return s
        return None

    def state_key(self, r: int, bits: int, pending: tuple) -> tuple:
        """Memo key of a sweep state: ranks below ``r`` only count through their histogram."""
        if pending:
            return (r, bits, pending)
        low = bits & ((1 << (4 * r)) - 1)
        return (r, bits - low, self.hist_key(low))

    def pending_main(self, item: tuple) -> int:
        index, s, n = item
        p = self.pending_specs[index]
        return sum(p.width << (4 * (s + i * p.step)) for i in range(n))

    def pending_moves(self, bits: int, item: tuple) -> list[Move]:
        """Every full play (main + kickers) of a pending plane whose kickers are in ``bits``
        (the moves of that kind, rank and length have exactly this main part)."""
        index, s, n = item
        c = unpack(bits + self.pending_main(item))
        return self.gen.collect(c, kind=self.pending_specs[index].spec.kind, length=n, rank=s,
                                leading=False)

    def pending_slots(self, pending: tuple) -> tuple[int, int]:
        """(kicker groups, kicker cards) the pending planes will absorb."""
        groups = cards = 0
        for index, _, n in pending:
            p = self.pending_specs[index]
            groups += n * p.slots
            cards += n * p.slots * p.kicker_width
        return groups, cards

    # -- bounds --------------------------------------------------------------------------
    def longest_bound(self, bits: int, r: int) -> int:
        """An upper bound on the size of any play the sweep may still make from ``bits``:
        chains starting at ``r`` or above, planes on them, or flat plays. (Bit-parallel:
        the longest run of chain ranks from ``r`` up holding ``width`` cards is the number
        of times the mask of those ranks can be and-ed with itself shifted by one step
        before it empties.)"""
        ge = _at_least(bits)
        return self._longest(ge, sum(g.bit_count() for g in ge), bits, r)

    def _longest(self, ge: tuple[int, int, int, int], total: int, bits: int, r: int) -> int:
        """`longest_bound` from the masks of `_at_least` and the number of cards."""
        if total == 0:
            return 1
        plain = self.plain_low
        mx = 4 if ge[3] & plain else 3 if ge[2] & plain else 2 if ge[1] & plain else \
            1 if ge[0] & plain else 0
        best = 1
        for w in self.units:
            if mx >= w and w > best:
                best = w
        if best < 2 and bits >> (4 * RB) & NIB and bits >> (4 * RR) & NIB:
            best = 2
        for w, extra in self.flat_shapes:
            if mx >= w:
                best = max(best, w + min(extra, total - w))
        above = self.chain_low & ~((1 << (4 * r)) - 1)
        runs: dict[tuple[int, int], int] = {}
        for spec in self.chain_specs:
            m = ge[spec.width - 1] & above if spec.width <= 4 else 0
            shift = 4 * spec.step
            n = 0
            while m:
                n += 1
                m &= m >> shift
            longest = min(n, spec.max_len)
            runs[(spec.width, spec.step)] = longest
            if longest >= spec.min_len:
                best = max(best, spec.width * longest)
        for p in self.pending_specs:
            a = p.spec
            n = min(runs.get((p.width, p.step), 0), a.max_units)
            if n >= a.min_units:
                best = max(best, min((p.width + p.slots * p.kicker_width) * n, total))
        return min(best, total)

    def frozen_bound(self, bits: int, r: int, pending: tuple) -> int:
        """A lower bound on the plays still needed, from the cards no chain can use.

        F = cards of ranks below ``r`` and of non-chain ranks; U = the rest. In any way to
        finish, remove from the plays whose main part is in U the F cards they carry as
        kickers, and from the plays whose main part is in F their U kickers: the F plays
        stay legal, except a four + two that loses one of its two kickers (+1 play each,
        at most one per quad of F), and the F kickers of U plays can be played on their
        own, one play per kicker slot. A trio of U offers one slot, a quad two, a
        pending plane its slots. Hence
        ``plays(F) <= #F-plays + slots(U) + quads(F)`` and the returned
        ``flat_plays(F) - slots(U) - quads(F)`` never exceeds the plays still needed.
        """
        return self._frozen(_at_least(bits), r, pending)

    def _frozen(self, ge: tuple[int, int, int, int], r: int, pending: tuple) -> int:
        """`frozen_bound` from the masks of `_at_least` (F's and U's are their low and
        high parts; F's histogram key from the plain ranks' counts, as `hist_key`)."""
        low = self.frozen_low[r]
        g1, g2, g3, g4 = ge
        f1 = g1 & low
        if not f1:
            return 0
        slots = self.pending_slots(pending)[0] + (g3 & ~low).bit_count() + (g4 & ~low).bit_count()
        plain = _PLAIN & _LOW
        n1, n2 = (f1 & plain).bit_count(), (g2 & low & plain).bit_count()
        n3, n4 = (g3 & low & plain).bit_count(), (g4 & low & plain).bit_count()
        key = (n1 - n2) + ((n2 - n3) << 5) + ((n3 - n4) << 10) + (n4 << 15) + \
            ((f1 >> (4 * RB) & 1) + (f1 >> (4 * RR) & 1) << 20)
        return self.flat_plays(key) - slots - (n4 if self.four_two else 0)

    def bound(self, bits: int, r: int, pending: tuple, strong: bool) -> int:
        """The "ceil" (``strong=False``) or "strong" heuristic of `ddzlab.analysis.astar`
        at a sweep state: ceil(cards / `longest_bound`), cards less the pending planes'
        kickers, and for "strong" at least `frozen_bound`; one `_at_least` for both."""
        ge = _at_least(bits)
        total = ge[0].bit_count() + ge[1].bit_count() + ge[2].bit_count() + ge[3].bit_count()
        cards = total - self.pending_slots(pending)[1]
        if cards <= 0:
            return 0
        h = -(-cards // self._longest(ge, total, bits, r))
        if strong:
            f = self._frozen(ge, r, pending)
            if f > h:
                h = f
        return h


@lru_cache(maxsize=None)
def tables(rules: Rules) -> Tables:
    """The (cached) search tables of a rule set."""
    return Tables(rules)


def refuse_over(count: int, limit: int, what: str, why: str) -> None:
    """Raise `SearchLimitError` when ``count`` exceeds a search's documented ``limit``
    (``what``: the input counted, e.g. "a hand power of 40 cards"; ``why``: the cost)."""
    if count > limit:
        raise SearchLimitError(f"{what}: over this search's limit of {limit:,} ({why})")


def moves_text(moves: list[Move]) -> str:
    """Plays as text, e.g. ``'34567 | 888+9 | BR'``."""
    return " | ".join(str(m) for m in moves) if moves else "(none)"


__all__ = ["tables", "Tables", "hand_bits", "check_move", "moves_text", "refuse_over", "PASS"]
