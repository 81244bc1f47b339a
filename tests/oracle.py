"""An independent rules oracle, written from the rule text (docs/rules.md), not from `ddzlab.moves`.

It knows nothing of ddzlab's move generator: each rule set is re-typed below from the
reference text as plain data (`RuleText`), a multiset of cards is classified by trying every
definition in turn (`readings`), and the moves of a hand are found by brute force over its
sub-multisets (`leading_moves`, `replies`). The only ddzlab imports are the rank numbering and
packing of `ddzlab.cards` and the names of the kinds (`ddzlab.rules.Kind`), so the answers can be
compared with ddzlab's. `tests/engine/test_oracle.py` cross-checks the chain limits typed here against the
data in `ddzlab.rules` — that is the one place the two meet.

Conventions (docs/rules.md#the-standard-game, kickers):

* a combination is a *main part* (a unit, a chain, a trio/quad or a chain of them) plus, for
  the carrying kinds, kickers; a kicker never shares a rank with the main part;
* pair kickers are pairs of distinct ranks (so four+two pairs never takes both pairs from one
  bomb, and B+R, one card of each joker, is never a pair);
* solo kickers are any cards: a pair (or B+R) may serve as two solos, but a kicker rank appears
  at most twice — three times only when exactly three kickers are needed, and never four
  (DouZero's detector, which docs/definitions.md#standard-move-set makes the spec, rejects the others: a plane whose
  kickers hold a whole bomb, or a trio unless the plane is three long);
* one set of cards may have several readings (``333444555666``: a trio chain of four, or a
  three-trio plane carrying ``333`` or ``666``). A lead plays the cards; a reply is legal when
  *some* reading beats the move to beat (same kind and length, higher main rank), or it is a
  bomb or the rocket (docs/rules.md#the-standard-game, "Following").

Extending to the wildcard rule set (docs/rules.md#other-rule-sets): `wild_readings` tries every rank a flower
card may stand for and classifies the natural cards plus that rank with the same `readings`,
tagging each reading with the ranks the wildcards took. What else the wildcard rules change goes
in data: plane wings of distinct ranks (`Carry.distinct`), soft bombs below natural ones (`beats`).
`wild_leading` / `wild_replies` list the moves of a hand holding the flower card ``F`` as
(cards paid, kind, rank, length): every reading of every rank ``F`` may stand for, each once.

>>> sorted((k.name, RANKS[r], n) for k, r, n in readings(counts("333444555666"), STANDARD))
[('PLANE_SOLO', '3', 3), ('PLANE_SOLO', '4', 3), ('TRIO_CHAIN', '3', 4)]
>>> readings(counts("9999TTTT"), STANDARD), readings(counts("9999TTTT"), MINI)
(frozenset(), frozenset({(<Kind.QUAD_CHAIN: 18>, 6, 2)}))
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, product
from typing import Callable, Iterable, Iterator, Optional

from ddzlab.cards import pack, parse_counts, unpack
from ddzlab.rules import Kind

RANKS = "3456789TJQKA2BR"           # the rank order of docs/rules.md#cards
N = len(RANKS)
R9, RA, R2, RB, RR = 6, 11, 12, 13, 14
UNIT_OF_WIDTH = {1: Kind.SOLO, 2: Kind.PAIR, 3: Kind.TRIO, 4: Kind.BOMB}

Reading = tuple  # (Kind, main rank, length)


@dataclass(frozen=True)
class Chain:
    """``width`` copies of each of ``min_len``.. links, ranks ``step`` apart, all chain ranks.
    ``max_len`` None: as long as the chain ranks allow (the text gives no other limit)."""
    kind: Kind
    width: int
    step: int
    min_len: int
    max_len: Optional[int] = None


@dataclass(frozen=True)
class Carry:
    """A main part of ``links`` groups of ``width`` copies (consecutive chain ranks when more
    than one) carrying ``kickers(links)`` kickers of ``kicker_width`` cards each."""
    kind: Kind
    width: int
    links: tuple[int, ...]
    kicker_width: int
    kickers: Callable[[int], int]
    distinct: bool = False          # solo kickers of distinct ranks (wildcard rules: plane wings)


@dataclass(frozen=True)
class RuleText:
    name: str
    deck_ranks: tuple[int, ...]      # ranks in the deck (4 copies, jokers 1)
    chain_ranks: tuple[int, ...]     # ranks allowed in any chain
    chains: tuple[Chain, ...]
    carries: tuple[Carry, ...]
    rocket: bool = True

    def longest(self, step: int) -> int:
        """Most links a chain of this step can have inside the chain ranks."""
        best = 0
        for s in self.chain_ranks:
            n = 0
            while s + n * step in self.chain_ranks:
                n += 1
            best = max(best, n)
        return best

    def chain_lengths(self, c: Chain) -> range:
        return range(c.min_len, (c.max_len or self.longest(c.step)) + 1)

    @property
    def deck(self) -> list[int]:
        return [(1 if r >= RB else 4) if r in self.deck_ranks else 0 for r in range(N)]


def _per_trio(n: int) -> int:
    return n


def _two(n: int) -> int:
    return 2


ALL = tuple(range(N))
THREE_TO_A = tuple(range(0, RA + 1))
NINE_TO_A = tuple(range(R9, RA + 1))

# the standard game (docs/rules.md#the-standard-game): solo chain ≥5 (3..A, so at most 12), pair
# chain ≥3 pairs, trio chain ≥2; planes carry one solo or one pair per trio; four carries two
# solos or two pairs.
STANDARD = RuleText(
    "standard", ALL, THREE_TO_A,
    chains=(Chain(Kind.SOLO_CHAIN, 1, 1, 5, 12), Chain(Kind.PAIR_CHAIN, 2, 1, 3),
            Chain(Kind.TRIO_CHAIN, 3, 1, 2)),
    carries=(Carry(Kind.TRIO_SOLO, 3, (1,), 1, _per_trio), Carry(Kind.TRIO_PAIR, 3, (1,), 2, _per_trio),
             Carry(Kind.PLANE_SOLO, 3, tuple(range(2, 13)), 1, _per_trio),
             Carry(Kind.PLANE_PAIR, 3, tuple(range(2, 13)), 2, _per_trio),
             Carry(Kind.FOUR_TWO_SOLO, 4, (1,), 1, _two), Carry(Kind.FOUR_TWO_PAIR, 4, (1,), 2, _two)))

# mini (docs/rules.md#other-rule-sets): 9..2 + jokers; solo chains 5-6 (9-K, T-A, 9-A), pair
# chains 3-6 pairs, planes of 2-3 trios with or without wings, two consecutive quads (航天飞机)
# alone or with 2 solos or 2 pairs.
MINI = RuleText(
    "mini", tuple(range(R9, N)), NINE_TO_A,
    chains=(Chain(Kind.SOLO_CHAIN, 1, 1, 5, 6), Chain(Kind.PAIR_CHAIN, 2, 1, 3, 6),
            Chain(Kind.TRIO_CHAIN, 3, 1, 2, 3), Chain(Kind.QUAD_CHAIN, 4, 1, 2, 2)),
    carries=(Carry(Kind.TRIO_SOLO, 3, (1,), 1, _per_trio), Carry(Kind.TRIO_PAIR, 3, (1,), 2, _per_trio),
             Carry(Kind.PLANE_SOLO, 3, (2, 3), 1, _per_trio), Carry(Kind.PLANE_PAIR, 3, (2, 3), 2, _per_trio),
             Carry(Kind.FOUR_TWO_SOLO, 4, (1,), 1, _two), Carry(Kind.FOUR_TWO_PAIR, 4, (1,), 2, _two),
             Carry(Kind.QUAD_CHAIN_SOLO, 4, (2,), 1, _two), Carry(Kind.QUAD_CHAIN_PAIR, 4, (2,), 2, _two)))

# homework (docs/rules.md#other-rule-sets): the 15 combos; gapped chains step 2 (3579J, 335577,
# 333555); no plane with wings; longest solo chain 12 (3..A), gapped solo 6 (3579JK, 468TQA).
HOMEWORK = RuleText(
    "homework", ALL, THREE_TO_A,
    chains=STANDARD.chains + (Chain(Kind.GAP_SOLO_CHAIN, 1, 2, 5, 6), Chain(Kind.GAP_PAIR_CHAIN, 2, 2, 3),
                              Chain(Kind.GAP_TRIO_CHAIN, 3, 2, 2)),
    carries=tuple(c for c in STANDARD.carries if c.kind not in (Kind.PLANE_SOLO, Kind.PLANE_PAIR)))

# wildcard (docs/rules.md#other-rule-sets): the standard combinations; a plane's solo wings are of
# different ranks. (Soft bombs and the flower card itself are handled by `wild_leading` and `beats`.)
WILDCARD = RuleText(
    "wildcard", ALL, THREE_TO_A, chains=STANDARD.chains,
    carries=tuple(Carry(c.kind, c.width, c.links, c.kicker_width, c.kickers, c.kind == Kind.PLANE_SOLO)
                  for c in STANDARD.carries))
#: wildcard: the flower card stands for any one rank 3..A; its packed slot (after the 15 ranks)
FLOWER_STANDS_FOR = THREE_TO_A
FLOWER = 1 << (4 * N)

TEXTS = {t.name: t for t in (STANDARD, MINI, HOMEWORK, WILDCARD)}


def text_of(rules) -> RuleText:
    """The oracle's rule text for a rule-set name (or anything with a ``name``)."""
    return TEXTS[getattr(rules, "name", rules)]


def counts(cards: str) -> tuple[int, ...]:
    return tuple(parse_counts(cards))


# -- classification ------------------------------------------------------------------------
def _kickers_ok(kick: list[int], n: int, width: int, distinct: bool = False) -> bool:
    """Whether the leftover counts ``kick`` are ``n`` kickers of ``width`` cards (see module doc)."""
    used = [c for c in kick if c]
    if distinct:
        return len(used) == n and all(c == width for c in used)
    if width == 2:
        return len(used) == n and all(c == 2 for c in used)
    return sum(used) == n and all(c <= 2 or (c == 3 and n == 3) for c in used)


@lru_cache(maxsize=200_000)
def readings(c: tuple[int, ...], rt: RuleText) -> frozenset:
    """Every reading (kind, main rank, length) of the multiset with rank counts ``c``."""
    size = sum(c)
    present = [r for r in range(N) if c[r]]
    out: set = set()
    if not size or any(r not in rt.deck_ranks for r in present):
        return frozenset()
    if len(present) == 1 and c[present[0]] in UNIT_OF_WIDTH:
        out.add((UNIT_OF_WIDTH[c[present[0]]], present[0], 1))
    if rt.rocket and present == [RB, RR] and size == 2:
        out.add((Kind.ROCKET, RB, 1))
    for ch in rt.chains:
        n = len(present)
        if (n in rt.chain_lengths(ch) and all(c[r] == ch.width for r in present)
                and present == [present[0] + i * ch.step for i in range(n)]
                and all(r in rt.chain_ranks for r in present)):
            out.add((ch.kind, present[0], n))
    for ca in rt.carries:
        for links in ca.links:
            k = ca.kickers(links)
            if ca.width * links + k * ca.kicker_width != size:
                continue
            for s in present:
                main = [s + i for i in range(links)]
                if links > 1 and not all(r in rt.chain_ranks for r in main):
                    continue
                if not all(r < N and c[r] >= ca.width for r in main):
                    continue
                kick = list(c)
                for r in main:
                    kick[r] -= ca.width
                if any(kick[r] for r in main):
                    continue                    # a kicker may not share a rank with the main part
                if _kickers_ok(kick, k, ca.kicker_width, ca.distinct):
                    out.add((ca.kind, s, links))
    return frozenset(out)


def beats(a: Reading, b: Reading) -> bool:
    """docs/rules.md#the-standard-game "Following": the rocket beats everything; a bomb beats any non-bomb and
    any lower bomb; otherwise same kind, same length, higher main rank. Wildcard: a natural bomb
    beats every soft bomb, a soft bomb any non-bomb and any lower soft bomb."""
    if a[0] == Kind.ROCKET:
        return b[0] != Kind.ROCKET
    if b[0] == Kind.ROCKET:
        return False
    if a[0] == Kind.BOMB:
        return b[0] != Kind.BOMB or a[1] > b[1]
    if a[0] == Kind.SOFT_BOMB:
        return b[0] not in (Kind.BOMB, Kind.SOFT_BOMB) or (b[0] == Kind.SOFT_BOMB and a[1] > b[1])
    return a[0] == b[0] and a[2] == b[2] and a[1] > b[1]


# -- enumeration ---------------------------------------------------------------------------
def submultisets(c: Iterable[int]) -> Iterator[tuple[int, ...]]:
    """Every non-empty sub-multiset of rank counts ``c`` (as counts)."""
    for sub in product(*(range(x + 1) for x in c)):
        if any(sub):
            yield sub


def _sized_submultisets(c: list[int], size: int, start: int = 0) -> Iterator[list[int]]:
    """Sub-multisets of ``c`` with exactly ``size`` cards (as count lists)."""
    if size == 0:
        yield [0] * N
        return
    for r in range(start, N):
        for t in range(min(c[r], size), 0, -1):
            for rest in _sized_submultisets(c, size - t, r + 1):
                rest[r] = t
                yield rest


def _candidates(c: tuple[int, ...], rt: RuleText) -> Iterator[tuple[int, ...]]:
    """A superset of the moves of a large hand: every unit, chain-shaped run and main part
    plus every sized multiset of the other cards (the classifier decides)."""
    for r in range(N):
        for w in range(1, c[r] + 1):
            yield tuple(w if q == r else 0 for q in range(N))
    if c[RB] and c[RR]:
        yield tuple(1 if q in (RB, RR) else 0 for q in range(N))
    for ch in rt.chains:
        for s in rt.chain_ranks:
            for n in rt.chain_lengths(ch):
                ranks = [s + i * ch.step for i in range(n)]
                if all(r < N and c[r] >= ch.width for r in ranks):
                    yield tuple(ch.width if q in ranks else 0 for q in range(N))
    for ca in rt.carries:
        for links in ca.links:
            for s in range(N):
                main = [s + i for i in range(links)]
                if not all(r < N and c[r] >= ca.width for r in main):
                    continue
                rest = [0 if r in main else c[r] for r in range(N)]
                for kick in _sized_submultisets(rest, ca.kickers(links) * ca.kicker_width):
                    yield tuple(kick[r] + (ca.width if r in main else 0) for r in range(N))


#: hands with more sub-multisets than this go through `_candidates`
BRUTE_LIMIT = 3_000


def leading_moves(cards, rules) -> dict[int, frozenset]:
    """Every move a hand can lead: {packed cards: its readings}.

    Plain brute force over all sub-multisets when there are at most `BRUTE_LIMIT` of
    them, else over `_candidates` (a superset whose completeness a test checks against the
    plain brute force on small hands).
    """
    rt = text_of(rules)
    c = _as_counts(cards)
    n_sub = 1
    for x in c:
        n_sub *= x + 1
    subs = submultisets(c) if n_sub <= BRUTE_LIMIT else set(_candidates(c, rt))
    return _moves(subs, rt)


def leading_moves_plain(cards, rules) -> dict[int, frozenset]:
    """`leading_moves` by plain brute force whatever the hand size (slow on big hands)."""
    return _moves(submultisets(_as_counts(cards)), text_of(rules))


def leading_moves_candidates(cards, rules) -> dict[int, frozenset]:
    """`leading_moves` through `_candidates` whatever the hand size."""
    rt = text_of(rules)
    return _moves(set(_candidates(_as_counts(cards), rt)), rt)


def _moves(subs, rt: RuleText) -> dict[int, frozenset]:
    out = {}
    for sub in subs:
        found = readings(tuple(sub), rt)
        if found:
            out[pack(sub)] = found
    return out


def replies(cards, rules, to_beat: Reading) -> set[int]:
    """Packed cards of every legal reply to ``to_beat`` (a reading); 0 stands for pass."""
    return {bits for bits, found in leading_moves(cards, rules).items()
            if any(beats(x, to_beat) for x in found)} | {0}


def fewest_plays(cards, rules) -> int:
    """Fewest plays that empty the hand, by recursion over the oracle's own leading moves of
    the whole hand (a play of a sub-hand is a play of the hand). Every split has a play that
    holds the lowest remaining card, so only those are tried."""
    c0 = _as_counts(cards)
    moves = [tuple(unpack(bits)) for bits in leading_moves(c0, rules)]

    @lru_cache(maxsize=None)
    def solve(c: tuple[int, ...]) -> int:
        if not any(c):
            return 0
        low = next(r for r in range(N) if c[r])
        return 1 + min(solve(tuple(a - b for a, b in zip(c, m))) for m in moves
                       if m[low] and all(b <= a for a, b in zip(c, m)))

    return solve(c0)


def _as_counts(cards) -> tuple[int, ...]:
    if isinstance(cards, str):
        return counts(cards)
    if isinstance(cards, int):
        return tuple(unpack(cards))
    bits = getattr(cards, "bits", None)
    return tuple(unpack(bits)) if bits is not None else tuple(cards)


# -- wildcards (docs/rules.md#other-rule-sets) ---------------------------------------------------
def wild_readings(c: tuple[int, ...], wild: int, rt: RuleText,
                  stands_for: tuple[int, ...] = THREE_TO_A) -> set[tuple]:
    """Readings of natural cards ``c`` plus ``wild`` flower cards, each standing for one rank
    of ``stands_for``: {(kind, rank, length, ranks the wildcards took)}. Brute force over the
    readings of the wildcards, the natural test oracle."""
    out = set()
    for took in combinations_with_replacement(stands_for, wild):
        d = list(c)
        for r in took:
            d[r] += 1
        if max(d) <= 4:
            out |= {(k, r, n, took) for k, r, n in readings(tuple(d), rt)}
    return out


def wild_leading(cards, rules, natural: Optional[Callable] = None) -> set[tuple]:
    """Every move a hand that may hold the flower card leads, as (cards paid, kind, rank,
    length) with ``F`` paid as its own slot: the natural moves, and for each rank ``x`` ``F``
    may stand for, the moves of the natural cards plus an ``x`` that use an ``x``, paying ``F``
    for it (a four so made is a soft bomb). Each (paid, reading) once.

    ``natural(counts)`` lists {packed cards: readings} of natural cards (default: the
    rule-text brute force `leading_moves`; a test may pass a faster lister it trusts)."""
    bits = cards if isinstance(cards, int) else getattr(cards, "bits", None)
    if bits is None:
        bits = pack(parse_counts(cards))
    f = bits >> (4 * N) & 15
    c = tuple(unpack(bits & (FLOWER - 1)))
    lister = natural or (lambda d: leading_moves(d, rules))
    out = {(b, k, r, n) for b, found in lister(c).items() for k, r, n in found}
    if f:
        for x in FLOWER_STANDS_FOR:
            d = list(c)
            d[x] += 1
            one = 1 << (4 * x)
            for b, found in lister(tuple(d)).items():
                if b >> (4 * x) & 15:
                    out |= {(b - one + FLOWER, Kind.SOFT_BOMB if k == Kind.BOMB else k, r, n)
                            for k, r, n in found}
    return out


def wild_replies(cards, rules, to_beat: Reading, natural: Optional[Callable] = None) -> set[tuple]:
    """The moves of `wild_leading` whose reading beats ``to_beat``, plus pass as ``(0, PASS, -1, 0)``."""
    return {m for m in wild_leading(cards, rules, natural) if beats(m[1:], to_beat)} | {(0, Kind.PASS, -1, 0)}


@lru_cache(maxsize=500_000)
def lowest_reading(paid: int, reading: Reading, rt: RuleText) -> Optional[int]:
    """The lowest rank the flower card in ``paid`` can be read as for ``reading`` (None: none)."""
    kind = Kind.BOMB if reading[0] == Kind.SOFT_BOMB else reading[0]
    for x in FLOWER_STANDS_FOR:
        d = list(unpack(paid - FLOWER))
        d[x] += 1
        if (kind, reading[1], reading[2]) in readings(tuple(d), rt):
            return x
    return None


def wild_fewest_plays(cards, rules) -> int:
    """`fewest_plays` for a hand that may hold the flower card: recursion over the paid cards
    of `wild_leading` (F is its own slot, so the lowest remaining slot may be F itself)."""
    bits = cards if isinstance(cards, int) else getattr(cards, "bits", None)
    moves = sorted({m[0] for m in wild_leading(bits, rules)})

    @lru_cache(maxsize=None)
    def solve(b: int) -> int:
        if not b:
            return 0
        low = b & -b
        low = 15 << (4 * ((low.bit_length() - 1) // 4))
        return 1 + min(solve(b - m) for m in moves
                       if m & low and all((b >> s & 15) >= (m >> s & 15) for s in range(0, 64, 4)))

    return solve(bits)
