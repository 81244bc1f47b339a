"""Moves: the one place in ddzlab that knows which card combinations exist.

A `Move` is a small immutable value: its `Kind`, main rank (lowest rank of the main part),
chain length and cards (packed like a `Hand`), and under the wildcard rules (REFERENCE §7) the
`reading`: the rank the flower card ``F`` is read as (None when no ``F`` is paid). The cards are
what the player pays; kind, rank and length say which combination they are read as, so
``45678F`` is two moves, printed ``45678F=3`` (the chain 3-8) and ``45678F=9`` (4-9). `legal_moves` lists every move a hand can
lead, or every reply to a move plus pass; `detect` classifies any multiset of cards.

The enumeration lives in `MoveGenerator` (one per rule set, from the cached `generator`): it
reads the rule set's chain and attachment specs, so variants are data.
For the standard rules the leading set equals DouZero's (``MovesGener`` filtered by its own
``move_detector``), which fixes the kicker conventions:

* kickers never share a rank with the main part; pair kickers come from distinct ranks;
* solo kickers may repeat a rank (a pair can serve as two solos, B+R as two solos), but
  never all four copies, and three copies only when exactly three kickers are needed;
* one set of cards is listed once. ``333444555666`` leads as a trio chain of four, and
  follows a three-trio plane as ``444555666`` carrying ``333`` (the higher reading).

>>> from ddzlab.cards import Hand
>>> [str(m) for m in legal_moves(Hand("3334"))]
['3', '4', '33', '333', '3334']
>>> m = detect("33344458")
>>> m.kind.name, m.rank_char, m.length
('PLANE_SOLO', '3', 2)
>>> [str(m) for m in legal_moves(Hand("4445558BR"), to_beat=m)]
['4445558B', '4445558R', '444555BR', 'BR', 'pass']
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Iterable, Optional, Sequence, Union

from dataclasses import replace

from .cards import (F_BIT, GUARD_BITS, LOW_BITS, N_RANKS, R2, RANK_CHARS, RB, RF, RR, Hand, as_hand,
                    bits_size, format_bits, rank_of, unpack)
from .errors import AmbiguousMoveError, CardError, IllegalCombinationError, RulesError
from .rules import KIND_SHAPE, STANDARD, AttachSpec, Kind, Rules, get_rules

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


def _kicker_sets(pool: list[tuple[int, int]], k: int, width: int) -> list[int]:
    """Packed kicker multisets of ``k`` kickers drawn from ``pool`` = [(rank, cap), ...].

    ``width`` 1: a rank may be drawn up to ``cap`` times; ``width`` 2: distinct ranks,
    each contributing a pair.
    """
    out: list[int] = []

    def rec(i: int, need: int, acc: int) -> None:
        if need == 0:
            out.append(acc)
            return
        for j in range(i, len(pool)):
            r, cap = pool[j]
            shift = 4 * r
            if width == 2:
                rec(j + 1, need - 1, acc + (2 << shift))
            else:
                for t in range(1, min(cap, need) + 1):
                    rec(j + 1, need - t, acc + (t << shift))

    rec(0, k, 0)
    return out


#: the ranks whose flag bit (bit 4r) is set, for ranks 0..7 and 8..14 (two lookups and a
#: concatenation instead of a scan of 15 ranks)
_LO_MASK, _HI_SHIFT = (1 << 32) - 1, 32
_RANKS_LO = {sum(1 << (4 * r) for r in rs): rs
             for m in range(256) for rs in [tuple(r for r in range(8) if m >> r & 1)]}
_RANKS_HI = {sum(1 << (4 * (r - 8)) for r in rs): rs
             for m in range(128) for rs in [tuple(r for r in range(8, N_RANKS) if m >> (r - 8) & 1)]}


def _three_solos(pool: list[int], c: list[int]) -> list[int]:
    """`_kicker_sets` of three solo kickers (a rank at most ``c[r]`` times, up to all
    three), in the same order, without the recursion: the three-trio plane's hot path."""
    one = [1 << (4 * r) for r in pool]
    out: list[int] = []
    n = len(pool)
    for i in range(n):
        x = one[i]
        for j in range(i + 1, n):
            y = x + one[j]
            out += [y + z for z in one[j + 1:]]
            if c[pool[j]] >= 2:
                out.append(y + one[j])
        if c[pool[i]] >= 2:
            out += [2 * x + z for z in one[i + 1:]]
            if c[pool[i]] >= 3:
                out.append(3 * x)
    return out


class MoveGenerator:
    """Precomputed move tables for one rule set, and the enumeration itself.

    Get one with `generator(rules)` (cached per rule set: the tables are built once and
    shared); `legal_moves`, `detect`, `Game` and the searches of `ddzlab.analysis` all use it.
    Building one directly gives fresh, empty caches (a cold start).

    * ``leading(bits)``: every move a packed hand can lead, each once;
    * ``following(bits, to_beat)``: every reply to a move, then `PASS`;
    * ``collect(counts, kind=, length=, above=, size=, rank=)``: the moves of rank counts,
      filtered by kind, chain length, card count or main rank (what `detect` and the searches
      use).

    The lists returned are fresh, but the `Move` objects in them are shared by the tables
    (they are immutable), so two calls return the *same* objects for the same moves.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        deck = unpack(rules.deck)
        self.deck_ranks = [r for r in range(N_RANKS) if deck[r]]
        self.units = []
        for kind in rules.units:
            width = KIND_SHAPE[kind][0]
            table = [Move(kind, r, 1, width << (4 * r)) if deck[r] >= width else None
                     for r in range(N_RANKS)]
            self.units.append((kind, width, table))
        self.rocket = (Move(Kind.ROCKET, RB, 1, (1 << (4 * RB)) | (1 << (4 * RR)))
                       if rules.rocket else None)
        self.is_chain_rank = [r in rules.chain_ranks for r in range(N_RANKS)]
        self.chains = []
        for spec in rules.chains:
            table: dict[tuple[int, int], Move] = {}
            for s in rules.chain_ranks:
                for n in range(1, spec.max_len + 1):
                    ranks = [s + i * spec.step for i in range(n)]
                    if not all(r in rules.chain_ranks for r in ranks):
                        break
                    if n >= spec.min_len:
                        table[n, s] = Move(spec.kind, s, n, sum(spec.width << (4 * r) for r in ranks))
            self.chains.append((spec, table))
        self.attachments = [(a, self._base_spec(a)) for a in rules.attachments]
        self.attach_cache: dict[tuple[Kind, int, int], dict[int, Move]] = {}
        self.pair_rows: dict[tuple[Kind, int, int], list] = {}
        self.main_ranks: dict[tuple[Kind, int, int], frozenset[int]] = {}
        self.bomb_table = next((t for k, _, t in self.units if k == Kind.BOMB), None)
        self.by_kind = {kind: ([u for u in self.units if u[0] == kind],
                               [ch for ch in self.chains if ch[0].kind == kind],
                               [at for at in self.attachments if at[0].kind == kind]) for kind in Kind}
        self.chain_flags = sum(1 << (4 * r) for r in rules.chain_ranks)
        self.unit_tables = {w: next((t for _, kw, t in self.units if kw == w), None) for w in (1, 2, 3, 4)}
        self.run_chains = {w: [(spec, self._run_table(spec, table)) for spec, table in self.chains
                               if spec.width == w] for w in (1, 2, 3, 4)}
        #: per width 1..4: chain-rank flags -> chains (`_chain_part`)
        self.chain_cache: list[dict[int, list[Move]]] = [{} for _ in range(5)]
        #: per width 1..4: rank flags -> (moves without kickers, ranks), see `_lead_entry`
        self.lead_cache: list[dict[int, tuple[list[Move], tuple[int, ...]]]] = [{} for _ in range(5)]
        self.lead_dicts = tuple(self.lead_cache[1:])
        self.unit_attach = []
        self.chain_attach = []
        for a, base in self.attachments:
            k = a.per_unit
            if a.base in (Kind.TRIO, Kind.BOMB) and k in (1, 2):
                # rows of table[t] are built on first use (`_unit_row`)
                self.unit_attach.append((base[0], a.kicker_width, k, [None] * N_RANKS, a))
            else:
                self.chain_attach.append((a, base))

    def _run_table(self, spec, table: dict[tuple[int, int], Move]) -> dict[tuple[int, int], list[Move]]:
        """For a run of ``n`` chain ranks starting at ``s``: every chain of ``spec`` inside it."""
        runs = {}
        for s in self.rules.chain_ranks:
            for n in range(1, len(self.rules.chain_ranks) + 1):
                runs[s, n] = [table[m, s + i * spec.step] for m in range(spec.min_len, min(n, spec.max_len) + 1)
                              for i in range(n - m + 1) if (m, s + i * spec.step) in table]
        return runs

    def _unit_row(self, a: AttachSpec, width: int, t: int) -> list:
        """row[r] (one kicker) or row[r][s], r <= s (two), of the moves of ``a`` on the trio
        or quad of rank ``t`` (built on first use: most quads never occur in a session)."""
        deck = unpack(self.rules.deck)
        main = width << (4 * t)
        kw = a.kicker_width
        if a.per_unit == 1:
            return [Move(a.kind, t, 1, main + (kw << (4 * r))) if r != t and deck[r] >= kw else None
                    for r in range(N_RANKS)]
        return [[Move(a.kind, t, 1, main + (kw << (4 * r)) + (kw << (4 * s)))
                 if t not in (r, s) and deck[r] >= kw and deck[s] >= kw
                 and (r < s or kw == 1 and deck[r] >= 2) else None
                 for s in range(N_RANKS)] for r in range(N_RANKS)]

    def _pair_rows(self, a: AttachSpec, s: int, n: int) -> list:
        """rows[r][q], r <= q: the move of attachment ``a`` on the main part of ``n`` units
        from ``s`` carrying kickers of ranks r and q (r == q: a pair as two solos)."""
        width, step = KIND_SHAPE[a.base]
        kw = a.kicker_width
        main_ranks = self.main_ranks[a.kind, s, n] = frozenset(range(s, s + n * step, step))
        main = sum(width << (4 * r) for r in main_ranks)
        deck = unpack(self.rules.deck)
        ok = [r not in main_ranks and deck[r] >= kw for r in range(N_RANKS)]
        rows = [[Move(a.kind, s, n, main + (kw << (4 * r)) + (kw << (4 * q)))
                 if ok[r] and ok[q] and (r < q or (r == q and kw == 1 and deck[r] >= 2 and not a.distinct))
                 else None
                 for q in range(N_RANKS)] for r in range(N_RANKS)]
        self.pair_rows[a.kind, s, n] = rows
        return rows

    def _base_spec(self, a: AttachSpec) -> tuple[int, int, Optional[int]]:
        """(width, step, longest trio chain) of an attachment's main part."""
        width, step = KIND_SHAPE[a.base]
        chain = self.rules.chain(Kind.TRIO_CHAIN)
        return width, step, (chain.max_len if chain else 0)

    # -- enumeration -----------------------------------------------------------------
    def collect(self, c: list[int], kind: Optional[Kind] = None, length: Optional[int] = None,
                above: int = -1, size: Optional[int] = None, leading: bool = True,
                rank: Optional[int] = None) -> list[Move]:
        """Moves of ``c`` (rank counts), optionally only one kind / length / card count,
        with main rank above ``above`` (or exactly ``rank``).

        ``leading=False`` lists the readings a reply may use (a three-trio plane carrying
        the trio below it) instead of the one reading a lead uses.
        """
        if rank is not None:
            above = rank - 1
        upto = N_RANKS if rank is None else rank
        out: list[Move] = []
        units, chains, attachments = (self.units, self.chains, self.attachments) if kind is None \
            else self.by_kind.get(kind, ((), (), ()))
        for ukind, width, table in units:
            if size is None or size == width:
                out.extend([table[r] for r in self.deck_ranks if c[r] >= width and above < r <= upto])
        if self.rocket is not None and (kind is None or kind == Kind.ROCKET) and size in (None, 2):
            if c[RB] and c[RR] and above < RB <= upto:
                out.append(self.rocket)
        for spec, table in chains:
            if size is not None and (size % spec.width or size // spec.width < spec.min_len):
                continue
            want = length if size is None else size // spec.width
            self._chains(c, spec.width, spec.step, spec.min_len, spec.max_len, want, above,
                         lambda n, s, t=table: out.append(t[n, s]), upto)
        for a, base in attachments:
            self._attach(c, a, base, length, above, size, leading, out, upto)
        return out

    def _chains(self, c, width, step, min_len, max_len, want, above, emit, upto=N_RANKS) -> None:
        ok = self.is_chain_rank
        for s in self.rules.chain_ranks:
            if s <= above or s > upto or c[s] < width:
                continue
            n, r = 0, s
            while r < N_RANKS and ok[r] and c[r] >= width and n < max_len:
                n += 1
                if n >= min_len and (want is None or n == want):
                    emit(n, s)
                r += step

    def _attach(self, c, a: AttachSpec, base, length, above, size, leading, out, upto=N_RANKS) -> None:
        width, step, longest_trio_chain = base
        bases: list[tuple[int, int]] = []
        lo, hi = a.min_units, a.max_units
        if length is not None:
            lo = hi = length
        if a.base in (Kind.TRIO, Kind.BOMB):
            if lo <= 1 <= hi:
                bases = [(1, r) for r in self.deck_ranks if c[r] >= width and above < r <= upto]
        else:
            self._chains(c, width, step, lo, hi, None, above, lambda n, s: bases.append((n, s)), upto)
        pools = None
        for n, s in bases:
            if size is not None and size != (width + a.per_unit * a.kicker_width) * n:
                continue
            if a.per_unit * n == 2:
                if pools is None:
                    pools = ([r for r in self.deck_ranks if c[r] >= a.kicker_width],
                             [r for r in self.deck_ranks if c[r] >= 2])
                self._two_kickers(a, n, s, pools[0], pools[1], out)
            else:
                self._more_kickers(c, a, base, n, s, leading, out)

    def _two_kickers(self, a: AttachSpec, n: int, s: int, pool: Sequence[int], doubles: Sequence[int],
                     out: list[Move], rows: Optional[list] = None) -> None:
        """Append the moves of ``a`` on the main part of ``n`` units from ``s`` carrying two
        kickers (most planes, four+two): ``pool`` the ranks holding a kicker, ``doubles``
        the ranks holding two (a pair as two solos). From a table built on first use, or
        from ``rows`` of the same shape (the wildcard generator's, with F in the chain)."""
        if rows is None:
            rows = self.pair_rows.get((a.kind, s, n)) or self._pair_rows(a, s, n)
        main = self.main_ranks[a.kind, s, n]
        pool = [r for r in pool if r not in main]
        out += [row[q] for i, r in enumerate(pool) for row in (rows[r],) for q in pool[i + 1:]]
        if a.kicker_width == 1 and not a.distinct:
            out += [rows[r][r] for r in doubles if r not in main]

    def _more_kickers(self, c: list[int], a: AttachSpec, base, n: int, s: int, leading: bool,
                      out: list[Move]) -> None:
        """Append the moves of ``a`` on the main part of ``n`` units from ``s`` with one or
        three or more kickers (kicker sets from `_plane_kicks`, moves cached by kicker set)."""
        width, step, _ = base
        kicks = self._plane_kicks(c, a, base, n, s, leading)
        key = (a.kind, s, n)
        cache = self.attach_cache.get(key)
        if cache is None:
            cache = self.attach_cache[key] = {}
        try:
            out += [cache[kick] for kick in kicks]
        except KeyError:
            main = sum(width << (4 * r) for r in range(s, s + n * step, step))
            for kick in kicks:
                if kick not in cache:
                    cache[kick] = Move(a.kind, s, n, main + kick)
            out += [cache[kick] for kick in kicks]

    def _plane_kicks(self, c: list[int], a: AttachSpec, base, n: int, s: int, leading: bool) -> list[int]:
        """Packed kicker sets (`_kicks`) of ``a`` on the main part of ``n`` units from ``s``,
        less those whose cards read as a longer chain when ``leading``."""
        width, step, longest_trio_chain = base
        k = a.per_unit * n
        top = s + (n - 1) * step
        kicks = self._kicks(c if not a.distinct else [min(x, 1) for x in c], range(s, top + 1, step), k,
                            a.kicker_width)
        if k == 3 and a.kicker_width == 1:
            # a kicker trio next to the chain reads as a longer chain: list those cards once
            if self.is_chain_rank[top + 1]:
                kicks = [x for x in kicks if x != 3 << (4 * (top + 1))]  # = chain one higher
            if leading and s >= 1 and self.is_chain_rank[s - 1] and longest_trio_chain > n:
                kicks = [x for x in kicks if x != 3 << (4 * (s - 1))]  # = trio chain of n+1
        return kicks

    def _kicks(self, c: list[int], main_ranks: range, k: int, kicker_width: int) -> list[int]:
        """Packed kicker sets of ``k`` solos or pairs outside the main part (see module doc;
        two kickers take the table path in `_attach`)."""
        if kicker_width == 2:
            pool = [r for r in self.deck_ranks if c[r] >= 2 and r not in main_ranks]
            if k == 1:
                return [2 << (4 * r) for r in pool]
            return [sum(2 << (4 * r) for r in combo) for combo in combinations(pool, k)]
        pool = [r for r in self.deck_ranks if c[r] and r not in main_ranks]
        if k == 1:
            return [1 << (4 * r) for r in pool]
        if k == 3:
            return _three_solos(pool, c)
        return _kicker_sets([(r, c[r] if c[r] < 2 else 2) for r in pool], k, 1)

    # -- the fast path for leading moves -----------------------------------------------
    def _lead_entry(self, width: int, flags: int) -> tuple[list[Move], tuple[int, ...]]:
        """(moves without kickers made of ``width`` copies per rank, the ranks) for the ranks
        whose flag bit is set; cached by flags (callers must not mutate the list).

        The units come from one table per width, the chains from a second cache keyed by the
        flags of the chain ranks alone (at most 2**12 patterns, so it fills fast).
        """
        ranks = _RANKS_LO[flags & _LO_MASK] + _RANKS_HI[flags >> _HI_SHIFT]
        unit = self.unit_tables[width]
        out = [unit[r] for r in ranks] if unit is not None else []
        if self.run_chains[width]:
            key = flags & self.chain_flags
            chains = self.chain_cache[width].get(key)
            if chains is None:
                chains = self._chain_part(width, key)
            out += chains
        if width == 1 and self.rocket is not None and flags >> (4 * RB) & 1 and flags >> (4 * RR) & 1:
            out.append(self.rocket)
        entry = self.lead_cache[width][flags] = (out, ranks)
        return entry

    def _chain_part(self, width: int, flags: int) -> list[Move]:
        """Every chain of ``width`` copies per rank over the chain ranks with ``flags``.

        Chains are assembled from maximal runs of flagged ranks: every chain lies in
        exactly one run, and the chains inside a run depend only on where it starts and
        how long it is (`run_chains`).
        """
        out: list[Move] = []
        for spec, runs in self.run_chains[width]:
            shift = 4 * spec.step
            starts = flags & ~(flags << shift)     # flagged, and the rank a step below is not
            while starts:
                low = starts & -starts
                n, x = 1, low << shift
                while flags & x:
                    n, x = n + 1, x << shift
                if n >= spec.min_len:
                    out += runs[(low.bit_length() - 1) >> 2, n]
                starts ^= low
        self.chain_cache[width][flags] = out
        return out

    def leading(self, bits: int) -> list[Move]:
        """Every leading move of a packed hand (equal as a set to ``collect(unpack(bits))``).

        Moves without kickers depend only on which ranks hold at least 1, 2, 3 or 4 cards,
        so they come from per-width caches keyed by those rank flags; kickers on a trio, a
        quad or a two-unit plane come from precomputed tables; longer planes take the
        general path.
        """
        f2 = (bits >> 1 | bits >> 2) & LOW_BITS        # ranks holding at least 2 cards
        f1 = bits & LOW_BITS | f2                        # ... at least 1
        f3 = (bits & bits >> 1 | bits >> 2) & LOW_BITS  # ... at least 3
        c1, c2, c3, c4 = self.lead_dicts
        e1 = c1.get(f1) or self._lead_entry(1, f1)
        e2 = c2.get(f2) or self._lead_entry(2, f2)
        out = e1[0] + e2[0]
        if not f3:
            return out
        e3 = c3.get(f3) or self._lead_entry(3, f3)
        out += e3[0]
        f4 = bits >> 2 & LOW_BITS
        if f4:
            e4 = c4.get(f4) or self._lead_entry(4, f4)
            out += e4[0]
            ranks = (None, e1[1], e2[1], e3[1], e4[1])
        else:
            ranks = (None, e1[1], e2[1], e3[1], ())
        for base_width, kicker_width, k, table, a in self.unit_attach:
            bases = ranks[base_width]
            if not bases:
                continue
            pool = ranks[kicker_width]
            for t in bases:
                row = table[t]
                if row is None:
                    row = table[t] = self._unit_row(a, base_width, t)
                if k == 1:
                    out += [row[r] for r in pool if r != t]
                    continue
                p = [r for r in pool if r != t]
                out += [row[r][q] for i, r in enumerate(p) for q in p[i + 1:]]
                if kicker_width == 1:
                    out += [row[r][r] for r in ranks[2] if r != t]
        if self.chain_attach:
            self._lead_chain_attach(bits, (0, f1, f2, f3, f4), ranks, out)
        return out

    def _lead_chain_attach(self, bits: int, flags: tuple, ranks: tuple, out: list[Move]) -> None:
        """Append the leading moves with kickers on a chain (planes) of a packed hand, given
        its rank flags and ranks per width (as `leading` computes them)."""
        c = None
        ok = self.is_chain_rank
        for a, base in self.chain_attach:
            width, step, _ = base
            f = flags[width]
            if not f & f >> (4 * step) & self.chain_flags:
                continue
            lo, hi, k1 = a.min_units, a.max_units, a.per_unit
            for s in ranks[width]:        # chains of the main part, as `_chains` lists them
                n, r = 0, s
                while r < N_RANKS and ok[r] and f >> (4 * r) & 1 and n < hi:
                    n += 1
                    if n >= lo:
                        if k1 * n == 2:
                            self._two_kickers(a, n, s, ranks[a.kicker_width], ranks[2], out)
                        else:
                            if c is None:
                                c = unpack(bits)
                            self._more_kickers(c, a, base, n, s, True, out)
                    r += step

    def following(self, bits: int, to_beat: Move) -> list[Move]:
        c = unpack(bits)
        kind = to_beat.kind
        if kind == Kind.ROCKET:
            return [PASS]
        if kind == Kind.BOMB:
            out = [self.bomb_table[r] for r in self.deck_ranks if c[r] == 4 and r > to_beat.rank]
        else:
            out = self.collect(c, kind, to_beat.length, to_beat.rank, leading=False)
            if self.bomb_table is not None:
                out.extend([self.bomb_table[r] for r in self.deck_ranks if c[r] == 4])
        if self.rocket is not None and c[RB] and c[RR]:
            out.append(self.rocket)
        out.append(PASS)
        return out


class WildcardGenerator:
    """The moves of a rule set with a flower card ``F`` (REFERENCE §7), by expanding it.

    A natural `MoveGenerator` of the same rules without ``F`` lists the moves of the natural
    cards; for each rank ``x`` that ``F`` may stand for, the moves of the natural cards plus
    one ``x`` that use an ``x`` are the moves paying ``F`` for it (seed 003's method). One
    move per (cards paid, kind, rank, length): a kicker ``F`` that could be read as several
    ranks is one move, read as the lowest. A four made with ``F`` is a `Kind.SOFT_BOMB`.

    ``leading`` lists the same set from tables keyed by rank patterns, as the natural
    generator does (see its docstring); ``following`` expands only the replies that need the
    extra copy; `_expand` is the straightforward expansion the tests compare both with.
    ``leading`` / ``following`` match `MoveGenerator`'s; the rank-count sweep ``collect``
    (what the analysis searches use) has no wildcard version and raises `RulesError`.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.natural = MoveGenerator(replace(rules, name=f"{rules.name} (natural cards)",
                                             deck=rules.deck & ~_F_MASK, wildcard=None, wild_ranks=()))
        self.wild = [(x, 1 << (4 * x)) for x in rules.wild_ranks]
        #: (natural move, x) -> the move paying F for one x (None if it has no x)
        self.subs: dict[tuple[Move, int], Optional[Move]] = {}
        #: (cards paid, kind, rank, length) -> the one move with F
        self.fmoves: dict[tuple[int, Kind, int, int], Move] = {}
        #: per rank F may stand for: id(natural move) -> `_sub` (the hot path of `_expand`:
        #: ids hash in C; the natural moves are shared table entries, kept alive in `alive`)
        self.by_id: list[dict[int, Optional[Move]]] = [{} for _ in self.wild]
        #: `following`'s tables: id(natural move) -> its moves paying F for one of its cards
        #: (`_variants`); per rank x: id(move using one more x) -> the move paying F for
        #: it, or None unless x is its canonical reading
        self.variants: dict[int, list[Move]] = {}
        self.own: list[dict[int, Optional[Move]]] = [{} for _ in self.wild]
        self.alive: list[Move] = []
        # `leading`'s tables, keyed by rank patterns like `MoveGenerator.leading`'s
        self.wild_list = tuple(rules.wild_ranks)
        self.wild_mask = sum(1 << (4 * x) for x in rules.wild_ranks)
        #: per width: chain-rank flags -> `_plain_row`; chain-rank flags -> `_plain1`
        self.plain: list[dict[int, list]] = [{} for _ in range(5)]
        self.plain1: dict[int, list[Move]] = {}
        #: attachment kind -> (`_main_row` per rank, `_kick_row` per rank), built on first use
        self.unit_rows = {a.kind: ([None] * N_RANKS, [None] * N_RANKS) for _, _, _, _, a in self.natural.unit_attach}
        #: the natural generator's `unit_attach` entries, each with three tables (F in the
        #: main part; F among the kickers; F in the main part, a pair as two solos): rank
        #: pattern -> [`_unit_list` per rank]; a trio's pair kickers with F in the trio are
        #: one list per f2 (`_pair_kicked`). Each list depends on one rank pattern only.
        self.unit_plan = [(bw, kw, k, table, a, ({}, {}, {})) for bw, kw, k, table, a in self.natural.unit_attach]
        #: (kind, start, length, x) -> `_main_plane`'s {kicker set: move}; -> its two-kicker rows
        self.main_kicks: dict[tuple[Kind, int, int, int], dict[int, Move]] = {}
        self.main_pair_rows: dict[tuple[Kind, int, int, int], list] = {}
        #: per rank x: id(natural unit or chain) -> its move with F paying one x (`_plain_row`)
        self.in_main: list[dict[int, Move]] = [{} for _ in range(N_RANKS)]
        #: per chain shape (width, step) of planes: its attachments, each with two tables of
        #: planes with F (among the kickers: rank pattern -> {start << 4 | length: moves}; in
        #: the chain: rank pattern -> {start << 8 | length << 4 | x: moves}), and the
        #: shape's chains (chain-rank flags -> `_plane_chains`)
        shapes: dict[tuple[int, int], list] = {}
        for a, base in self.natural.chain_attach:
            shapes.setdefault(base[:2], []).append((a, {}, {}))
        self.plane_plan = [(shape, attachments, {}) for shape, attachments in shapes.items()]
        #: (kind, start, length) of a natural plane -> {natural kickers: the move with F too}
        self.kick_planes: dict[tuple[Kind, int, int], dict[int, Optional[Move]]] = {}
        #: kind -> its attachment spec (`following` reads the kicker shape)
        self.attach_spec = {a.kind: a for a in rules.attachments}

    def __getattr__(self, name: str):
        raise RulesError(f"the {self.rules.name} rules' flower card F has no rank-count move "
                         f"tables ({name!r}): this search does not support the wildcard yet")

    def collect(self, *args, **kwargs) -> list[Move]:
        raise RulesError(f"the rank-count sweep `collect` cannot hold the {self.rules.name} rules' "
                         "flower card F: use leading/following (legal_moves), or a rule set without F")

    def _lowest(self, paid: int, kind: Kind, rank: int, length: int) -> Optional[Move]:
        """The move paying ``paid`` (with F) read as (kind, rank, length), read as the lowest
        rank F can stand for in it (built once, then shared); None if no reading makes it."""
        key = (paid, kind, rank, length)
        m = self.fmoves.get(key)
        if m is None:
            nat_kind = Kind.BOMB if kind == Kind.SOFT_BOMB else kind
            size = bits_size(paid)
            for x, one in self.wild:
                read = paid - F_BIT + one
                if any(n.cards == read for n in self.natural.collect(unpack(read), nat_kind, length,
                                                                    rank=rank, size=size)):
                    m = self.fmoves[key] = Move(kind, rank, length, paid, x)
                    break
        return m

    def _canonical(self, paid: int, kind: Kind, rank: int, length: int) -> Move:
        """`_lowest` for cards known to have a reading."""
        m = self._lowest(paid, kind, rank, length)
        if m is None:  # pragma: no cover - every caller passes a reading's cards
            raise AssertionError(f"no reading of {format_bits(paid)} as {kind.name}")
        return m

    def pay_with_flower(self, moves: Iterable[Move], rank: int) -> list[Move]:
        """``moves`` (a split of a natural hand that holds one more ``rank`` than the real
        hand) with that extra copy paid by F instead: the first move holding ``rank`` becomes
        its F version (a bomb becomes a soft bomb). How the analysis turns the best split of
        one reading of F back into moves of the real hand."""
        out, paid = [], False
        for m in moves:
            if not paid and m.cards >> (4 * rank) & 15:
                kind = Kind.SOFT_BOMB if m.kind == Kind.BOMB else m.kind
                m = self._canonical(m.cards - (1 << (4 * rank)) + F_BIT, kind, m.rank, m.length)
                paid = True
            out.append(m)
        return out

    def _sub(self, m: Move, x: int, one: int) -> Optional[Move]:
        """The move paying F instead of one ``x`` of natural move ``m`` (None: ``m`` has no ``x``)."""
        key = (m, x)
        try:
            return self.subs[key]
        except KeyError:
            pass
        f = None
        if m.cards >> (4 * x) & 15:
            kind = Kind.SOFT_BOMB if m.kind == Kind.BOMB else m.kind
            f = self._canonical(m.cards - one + F_BIT, kind, m.rank, m.length)
        self.subs[key] = f
        return f

    def _expand(self, bits: int, natural) -> list[Move]:
        """``natural(bits)``'s moves of the natural cards, then (when the hand holds F) the
        moves paying F, each once."""
        nat = bits & ~_F_MASK
        out = natural(nat)
        if nat == bits:
            return out
        found: dict[int, Optional[Move]] = {}
        for (x, one), table in zip(self.wild, self.by_id):
            moves = natural(nat + one)
            try:
                subs = list(map(table.__getitem__, map(id, moves)))
            except KeyError:
                for m in moves:
                    if id(m) not in table:
                        table[id(m)] = self._sub(m, x, one)
                        self.alive.append(m)     # keeps the id unique while it is a key
                subs = list(map(table.__getitem__, map(id, moves)))
            found.update(zip(map(id, subs), subs))
        found.pop(id(None), None)
        out += found.values()
        return out

    def leading(self, bits: int) -> list[Move]:
        """Every leading move of a packed hand (with or without F), each once.

        The same set as expanding F over its readings (`_expand`), assembled like
        `MoveGenerator.leading` from tables keyed by rank patterns instead of generating the
        hand once per reading. A move paying F has it either

        * in its main part (the trio, quad or chain), read as the rank ``x`` the slot needs:
          the only reading, since kickers never share a rank of the main part. These are the
          natural main parts over the ranks holding ``w`` cards plus one rank ``x`` holding
          ``w - 1`` (`_plain_row`, `_main_row`, `_main_plane`), with natural kickers;
        * or among the kickers of a natural main part, read as the lowest rank that makes
          the kickers valid (`_kick_row`, `_kick_plane`).
        """
        nat = bits & ~_F_MASK
        gen = self.natural
        out = gen.leading(nat)
        if nat == bits:
            return out
        f2 = (nat >> 1 | nat >> 2) & LOW_BITS
        f1 = nat & LOW_BITS | f2
        f3 = (nat & nat >> 1 | nat >> 2) & LOW_BITS
        f4 = nat >> 2 & LOW_BITS
        c1, c2, c3, c4 = gen.lead_dicts
        ranks = (None, (c1.get(f1) or gen._lead_entry(1, f1))[1], (c2.get(f2) or gen._lead_entry(2, f2))[1],
                 (c3.get(f3) or gen._lead_entry(3, f3))[1] if f3 else (),
                 (c4.get(f4) or gen._lead_entry(4, f4))[1] if f4 else ())
        wm = self.wild_mask
        g1, g2, g3 = f1 & wm, f2 & wm, f3 & wm     # the ranks F may stand for, per width held
        wild = (self.wild_list, _RANKS_LO[g1 & _LO_MASK] + _RANKS_HI[g1 >> _HI_SHIFT],
                _RANKS_LO[g2 & _LO_MASK] + _RANKS_HI[g2 >> _HI_SHIFT],
                _RANKS_LO[g3 & _LO_MASK] + _RANKS_HI[g3 >> _HI_SHIFT])
        cf = gen.chain_flags
        flags_of = (wm, f1, f2, f3, f4)
        # F in a unit or chain without kickers: x may hold w - 1 natural cards
        key = f1 & cf
        e = self.plain1.get(key)
        out += e if e is not None else self._plain1(key)
        for w, fw, xs in ((2, f2 & cf, wild[1]), (3, f3 & cf, wild[2]), (4, f4 & cf, wild[3])):
            if not xs:
                break                             # no rank holds w - 1, so none holds more
            row = self.plain[w].get(fw) or self._plain_row(w, fw)
            for x in xs:
                out += row[x]
        # trios and quads with kickers, from the rows of `unit_rows`
        for bw, kw, k, table, a, parts in self.unit_plan:
            if wild[bw - 1] and kw == 2 and bw == 3:  # F in a trio, natural pairs: by f2 alone
                e = parts[0].get(f2)
                if e is None:
                    e = parts[0][f2] = self._pair_kicked(a, bw, table, ranks, wild)
                out += e
            elif wild[bw - 1]:                    # F in the trio or quad of t: per rank, by pattern
                fk = flags_of[kw]
                row = parts[0].get(fk) or self._new_row(parts[0], fk)
                for t in wild[bw - 1]:
                    e = row[t]
                    out += e if e is not None else self._unit_list(a, 0, t, row, ranks, wild, table)
                if k == 2 and kw == 1:            # ... and a natural pair as two solos
                    row = parts[2].get(f2) or self._new_row(parts[2], f2)
                    for t in wild[bw - 1]:
                        e = row[t]
                        out += e if e is not None else self._unit_list(a, 2, t, row, ranks, wild, table)
            if not ranks[bw]:
                continue
            if k == 1 and kw == 1:                # F as the solo of a natural trio or quad
                row = self.unit_rows[a.kind][1]
                out += [row[t] or self._kick_row_of(a, bw, t) for t in ranks[bw]]
                continue
            if k == 2 and kw == 2:                # F pairs with y, beside a natural pair q
                kick_rows = self.unit_rows[a.kind][1]
                for t in ranks[bw]:
                    row = kick_rows[t] or self._kick_row_of(a, bw, t)
                    out += [row[q][y] for q in ranks[2] if q != t for y in wild[1] if y != t and y != q]
                continue
            pattern = g1 if k == 1 else f1       # F among the kickers: cached by rank pattern
            row = parts[1].get(pattern) or self._new_row(parts[1], pattern)
            for t in ranks[bw]:
                e = row[t]
                out += e if e is not None else self._unit_list(a, 1, t, row, ranks, wild, table)
        if gen.chain_attach:
            self._planes(nat, flags_of, ranks, wild, out)
        return out

    @staticmethod
    def _new_row(table: dict, key: int) -> list:
        """A new row of ``table`` for rank pattern ``key``: one list per rank, filled on use."""
        row = table[key] = [None] * N_RANKS
        return row

    def _unit_list(self, a: AttachSpec, part: int, t: int, row_of_lists: list, ranks: tuple, wild: tuple,
                   table: list) -> list[Move]:
        """The moves of ``a`` on the trio or quad of ``t`` with F: in the main part with natural
        kickers of distinct ranks (``part`` 0) or a natural pair as two solos (2), or F among
        the kickers (1, when the kickers are solos or F is the one pair); kept in
        ``row_of_lists[t]`` (the row of the rank pattern the list depends on)."""
        width, k = KIND_SHAPE[a.base][0], a.per_unit
        if part == 0:
            out = self._main_kicked(a, width, t, table, ranks)
        elif part == 2:
            row = self.unit_rows[a.kind][0][t] or self._main_row_of(a, width, t, table)
            out = [row[r][r] for r in ranks[2] if r != t]
        else:
            row = self._kick_row_of(a, width, t)
            out = [row[y] for y in wild[1] if y != t] if k == 1 else [row[r] for r in ranks[1] if r != t]
        row_of_lists[t] = out
        return out

    def _main_kicked(self, a: AttachSpec, width: int, t: int, table: list, ranks: tuple) -> list[Move]:
        """The moves of ``a`` with F in the trio or quad of ``t`` and natural kickers of
        distinct ranks (as `MoveGenerator.leading` lists them from its rows)."""
        row = self.unit_rows[a.kind][0][t] or self._main_row_of(a, width, t, table)
        pool = ranks[a.kicker_width]
        if a.per_unit == 1:
            return [row[r] for r in pool if r != t]
        p = [r for r in pool if r != t]
        return [row[r][q] for i, r in enumerate(p) for q in p[i + 1:]]

    def _pair_kicked(self, a: AttachSpec, width: int, table: list, ranks: tuple, wild: tuple) -> list[Move]:
        """`_main_kicked` for every rank ``t`` F may fill a trio of (pair kickers: the whole
        list depends on the ranks held twice alone)."""
        return [m for t in wild[width - 1] for m in self._main_kicked(a, width, t, table, ranks)]

    def _main_row_of(self, a: AttachSpec, width: int, t: int, table: list) -> list:
        """`_main_row` of ``t``, built on first use and kept in `unit_rows`."""
        rows = self.unit_rows[a.kind][0]
        if rows[t] is None:
            rows[t] = self._main_row(a, width, t, table)
        return rows[t]

    def _kick_row_of(self, a: AttachSpec, width: int, t: int):
        """`_kick_row` of ``t``, built on first use and kept in `unit_rows`."""
        rows = self.unit_rows[a.kind][1]
        if rows[t] is None:
            rows[t] = self._kick_row(a, width, t)
        return rows[t]

    def _plain_row(self, w: int, fw: int) -> list[list[Move]]:
        """[moves without kickers of ``w`` copies per rank with F paying one ``x``, for each
        rank ``x``]: the unit of ``x`` and the chains through ``x`` over the chain ranks
        ``fw`` plus ``x`` (cached by (w, fw): at most 4 * 2**12 rows, shared by all hands)."""
        gen = self.natural
        unit = gen.unit_tables[w]
        row: list[list[Move]] = [[] for _ in range(N_RANKS)]
        for x in self.wild_list:
            one = 1 << (4 * x)
            moves = [unit[x]] if unit is not None and unit[x] is not None else []
            if gen.run_chains[w] and gen.is_chain_rank[x]:
                flags = fw | one
                part = gen.chain_cache[w].get(flags)
                if part is None:
                    part = gen._chain_part(w, flags)
                moves += [m for m in part if m.cards >> (4 * x) & 15]
            table = self.in_main[x]
            try:
                row[x] = [table[id(m)] for m in moves]
            except KeyError:
                for m in moves:
                    if id(m) not in table:
                        table[id(m)] = self._in_main(m, x)
                        self.alive.append(m)      # keeps the id unique while it is a key
                row[x] = [table[id(m)] for m in moves]
        self.plain[w][fw] = row
        return row

    def _plain1(self, f1: int) -> list[Move]:
        """`_plain_row` of width 1 joined over every rank F may stand for (cached)."""
        row = self.plain[1].get(f1) or self._plain_row(1, f1)
        out = self.plain1[f1] = [m for x in self.wild_list for m in row[x]]
        return out

    def _in_main(self, m: Move, x: int) -> Move:
        """Natural move ``m`` with F paying one ``x`` of its main part (a bomb turns soft)."""
        kind = Kind.SOFT_BOMB if m.kind == Kind.BOMB else m.kind
        return self._fmove(m.cards - (1 << (4 * x)) + F_BIT, kind, m.rank, m.length, x)

    def _fmove(self, paid: int, kind: Kind, rank: int, length: int, x: int) -> Move:
        """The move paying ``paid`` read as (kind, rank, length) with F as ``x``, for callers
        that know ``x`` is its only reading (F in the main part, or F pairing with ``x``)."""
        key = (paid, kind, rank, length)
        f = self.fmoves.get(key)
        if f is None:
            f = self.fmoves[key] = Move(kind, rank, length, paid, x)
        return f

    def _main_row(self, a: AttachSpec, width: int, t: int, table: list) -> list:
        """The natural generator's kicker row of the trio or quad of ``t`` (`_unit_row`) with
        F paying one ``t``."""
        row = table[t]
        if row is None:
            row = table[t] = self.natural._unit_row(a, width, t)
        if a.per_unit == 1:
            return [m and self._in_main(m, t) for m in row]
        return [[m and self._in_main(m, t) for m in sub] for sub in row]

    def _kick_row(self, a: AttachSpec, width: int, t: int):
        """The moves of ``a`` on the natural trio or quad of ``t`` with F among the kickers:
        one solo F: the move; one F pair: row[y] (F with a natural ``y``); two solos:
        row[r] (F and a natural ``r``); two pairs: row[q][y] (a natural pair ``q``, F with
        ``y``)."""
        main = width << (4 * t)
        deck = unpack(self.natural.rules.deck)
        wild = [x in self.wild_list and x != t for x in range(N_RANKS)]
        kind, canon = a.kind, self._canonical
        if a.kicker_width == 1:
            if a.per_unit == 1:
                return canon(main + F_BIT, kind, t, 1)
            return [canon(main + (1 << (4 * r)) + F_BIT, kind, t, 1) if r != t and deck[r] else None
                    for r in range(N_RANKS)]
        fmove = self._fmove                   # F pairs with a natural y: its only reading
        if a.per_unit == 1:
            return [fmove(main + (1 << (4 * y)) + F_BIT, kind, t, 1, y) if wild[y] else None
                    for y in range(N_RANKS)]
        return [[fmove(main + (2 << (4 * q)) + (1 << (4 * y)) + F_BIT, kind, t, 1, y)
                 if wild[y] and q != y and q != t and deck[q] >= 2 else None
                 for y in range(N_RANKS)] for q in range(N_RANKS)]

    def _planes(self, nat: int, flags: tuple, ranks: tuple, wild: tuple, out: list[Move]) -> None:
        """Append the leading moves with F on a chain with kickers (planes): F among the
        kickers of a natural chain, or F in the chain itself. The lists are cached by the
        rank pattern their kickers draw from, like `_unit_list`'s."""
        gen = self.natural
        c = None
        for (width, step), attachments, runs in self.plane_plan:
            f = flags[width] & gen.chain_flags
            entry = runs.get(f)
            if entry is None:
                entry = runs[f] = self._plane_chains(f, step)
            natural, through = entry
            if not natural and not through:
                continue
            gx = flags[width - 1] & self.wild_mask      # the ranks F may fill a link of
            for a, kick_lists, main_lists in attachments:
                lo, hi, kw = a.min_units, a.max_units, a.kicker_width
                if natural:                       # F among the kickers of a natural chain
                    pattern = (flags[2] << 64 | flags[1] & self.wild_mask if kw == 2 else
                               flags[1] if a.distinct else flags[1] | flags[2] << 64)
                    lists = kick_lists.get(pattern)
                    if lists is None:
                        lists = kick_lists[pattern] = {}
                    for s, n in natural:
                        if lo <= n <= hi:
                            e = lists.get(s << 4 | n)
                            if e is None:
                                if c is None:
                                    c = unpack(nat)
                                e = lists[s << 4 | n] = self._kick_plane(c, a, width, n, s)
                            out += e
                if not gx:
                    continue
                pattern = flags[kw] if kw == 2 or a.distinct else flags[1] | flags[2] << 64 | flags[3] << 128
                lists = main_lists.get(pattern)
                if lists is None:
                    lists = main_lists[pattern] = {}
                for s, n, x, key in through:      # F in the chain, read as x
                    if gx >> (4 * x) & 1 and lo <= n <= hi:
                        e = lists.get(key)
                        if e is None:
                            if c is None:
                                c = unpack(nat)
                            e = lists[key] = self._main_plane(c, a, n, s, x, ranks)
                        out += e

    def _plane_chains(self, flags: int, step: int) -> tuple[list, list]:
        """The chains over the chain ranks ``flags``: (start, length) of the natural ones,
        and (start, length, x, key) of those F completes by filling the link ``x``, for
        every rank F may stand for (`_planes` keeps those whose ``x`` is held often enough)."""
        through = [(s, n, x, s << 8 | n << 4 | x) for x in self.wild_list
                   for s, n in self._chains_through(flags, step, x)]
        return self._chains_through(flags, step, None), through

    def _chains_through(self, flags: int, step: int, x: Optional[int]) -> list[tuple[int, int]]:
        """(start, length) of the chains of two or more links ``step`` apart over the chain
        ranks ``flags`` (plus ``x``, and then only those through ``x``; None: all)."""
        found: list[tuple[int, int]] = []
        if x is not None:
            if not self.natural.is_chain_rank[x]:
                return found
            flags |= 1 << (4 * x)
        for s in range(N_RANKS):
            n, r = 0, s
            while r < N_RANKS and flags >> (4 * r) & 1:
                n += 1
                if n >= 2 and (x is None or s <= x <= r and (x - s) % step == 0):
                    found.append((s, n))
                r += step
        return found

    def _main_plane(self, c: Optional[list[int]], a: AttachSpec, n: int, s: int, x: int,
                    ranks: tuple) -> list[Move]:
        """The moves of ``a`` on the chain of ``n`` units from ``s`` with F paying one ``x`` of
        it, with natural kickers: two from a table like the natural generator's
        `_pair_rows`, more from its kicker sets (``c``: the counts) with F swapped in."""
        gen = self.natural
        if a.per_unit * n == 2:
            key = (a.kind, s, n, x)
            rows = self.main_pair_rows.get(key)
            if rows is None:
                natural = gen.pair_rows.get((a.kind, s, n)) or gen._pair_rows(a, s, n)
                rows = self.main_pair_rows[key] = [[m and self._in_main(m, x) for m in row] for row in natural]
            out: list[Move] = []
            gen._two_kickers(a, n, s, ranks[a.kicker_width], ranks[2], out, rows)
            return out
        base = gen._base_spec(a)
        kicks = gen._plane_kicks(c, a, base, n, s, True)
        key = (a.kind, s, n, x)
        cache = self.main_kicks.get(key)
        if cache is None:
            cache = self.main_kicks[key] = {}
        try:
            return [cache[kick] for kick in kicks]
        except KeyError:
            width, step, _ = base
            main = sum(width << (4 * r) for r in range(s, s + n * step, step)) - (1 << (4 * x)) + F_BIT
            for kick in kicks:
                if kick not in cache:
                    cache[kick] = self._fmove(main + kick, a.kind, s, n, x)
            return [cache[kick] for kick in kicks]

    def _kick_plane(self, c: list[int], a: AttachSpec, width: int, n: int, s: int) -> list[Move]:
        """The moves of ``a`` on the natural chain of ``n`` units from ``s`` with F among the
        kickers: the natural kickers are one solo (or pair) short; F makes the last one,
        read as the lowest rank that gives valid kickers (none: no move)."""
        step = KIND_SHAPE[a.base][1]
        k = a.per_unit * n
        main_ranks = range(s, s + (n - 1) * step + 1, step)
        ranks = self.natural.deck_ranks
        if a.kicker_width == 1 and k == 2:
            kicks = [1 << (4 * r) for r in ranks if c[r] and r not in main_ranks]
        elif a.kicker_width == 1:
            cap = 1 if a.distinct else 2           # a rank three times only with F's help
            kicks = _kicker_sets([(r, min(c[r], cap)) for r in ranks if c[r] and r not in main_ranks],
                                 k - 1, 1)
        else:
            pairs = [r for r in ranks if c[r] >= 2 and r not in main_ranks]
            singles = [y for y in self.wild_list if c[y] and y not in main_ranks]
            kicks = [sum(2 << (4 * q) for q in combo) + (1 << (4 * y))
                     for combo in combinations(pairs, k - 1) for y in singles if y not in combo]
        key = (a.kind, s, n)
        cache = self.kick_planes.get(key)
        if cache is None:
            cache = self.kick_planes[key] = {}
        try:
            moves = [cache[kick] for kick in kicks]
        except KeyError:
            main = sum(width << (4 * r) for r in main_ranks) + F_BIT
            for kick in kicks:
                if kick in cache:
                    continue
                if a.kicker_width == 2:           # F pairs with the one single: its only reading
                    y = next(r for r in self.wild_list if kick >> (4 * r) & 15 == 1)
                    cache[kick] = self._fmove(main + kick, a.kind, s, n, y)
                else:
                    cache[kick] = self._lowest(main + kick, a.kind, s, n)
            moves = [cache[kick] for kick in kicks]
        return [m for m in moves if m is not None]

    def _variants(self, m: Move) -> list[Move]:
        """The moves paying F for one card of natural move ``m``, each only if that card's
        rank is the canonical reading."""
        out = []
        for x, one in self.wild:
            f = self._sub(m, x, one)
            if f is not None and f.reading == x:
                out.append(f)
        return out

    def following(self, bits: int, to_beat: Move) -> list[Move]:
        """Every reply to ``to_beat`` (bombs by `Rules.bomb_order`), then `PASS`.

        As `leading`: the natural replies once with their F variants, plus per reading ``x``
        only the replies using one more ``x`` than the hand holds, each from its canonical
        reading; bombs directly (natural fours, and a soft bomb of each rank held 3+ times).

        Readings that cannot add a reply are skipped. A reply using one more ``x`` than the
        hand holds pays F for it either in its main part (so ``x`` is held ``width - 1``
        times and lies above the rank to beat) or among its kickers: as a pair, beside the
        one ``x`` held; as a solo, read as the lowest rank that gives valid kickers, which
        is among the first ``main ranks + kickers`` ranks F may stand for (one of them is
        neither in the main part nor among the other kickers).
        """
        rules = self.rules
        if to_beat.kind == Kind.ROCKET:
            return [PASS]
        gen = self.natural
        nat = bits & ~_F_MASK
        c = unpack(nat)
        out: list[Move] = []
        if not to_beat.is_bomb:
            kind, length, above = to_beat.kind, to_beat.length, to_beat.rank
            moves = gen.collect(c, kind, length, above, leading=False)
            out = list(moves)
            if nat != bits:
                variants = self.variants
                for m in moves:
                    try:
                        out += variants[id(m)]
                    except KeyError:
                        v = variants[id(m)] = self._variants(m)
                        self.alive.append(m)
                        out += v
                width = KIND_SHAPE[kind][0]
                spec = self.attach_spec.get(kind)
                if spec is not None:
                    kw = spec.kicker_width
                    bound = self.wild_list[min(length * (1 + spec.per_unit) - 1, len(self.wild_list) - 1)]
                for (x, one), table in zip(self.wild, self.own):
                    cx = c[x]
                    if cx >= 4:
                        continue
                    if not (cx == width - 1 and x > above) and (
                            spec is None or (cx != 1 if kw == 2 else cx > 2 or x > bound)):
                        continue                  # reading x adds no reply (docstring)
                    c[x] = cx + 1
                    shift = 4 * x
                    news = [m for m in gen.collect(c, kind, length, above, leading=False)
                            if m.cards >> shift & 15 > cx]
                    c[x] = cx
                    for m in news:
                        if id(m) not in table:
                            f = self._sub(m, x, one)
                            table[id(m)] = f if f is not None and f.reading == x else None
                            self.alive.append(m)
                    out += filter(None, map(table.__getitem__, map(id, news)))
        bombs = [gen.bomb_table[r] for r in gen.deck_ranks if c[r] == 4] if gen.bomb_table else []
        if nat != bits:
            bombs += [self._soft_bomb(x, one) for x, one in self.wild if c[x] >= 3]
        out += [m for m in bombs if m.beats(to_beat, rules)]
        if gen.rocket is not None and bits >> (4 * RB) & 1 and bits >> (4 * RR) & 1:
            out.append(gen.rocket)
        out.append(PASS)
        return out

    def _soft_bomb(self, x: int, one: int) -> Move:
        """The soft bomb of rank ``x``: three natural ``x`` and F."""
        return self._canonical(3 * one + F_BIT, Kind.SOFT_BOMB, x, 1)

    def readings(self, bits: int) -> list[Move]:
        """Every move that pays exactly ``bits`` (one per reading)."""
        nat = bits & ~_F_MASK
        size = bits_size(bits)
        if nat == bits:
            return [m for m in self.natural.collect(unpack(bits), size=size) if m.cards == bits]
        out: list[Move] = []
        for x, one in self.wild:
            read = nat + one
            for m in self.natural.collect(unpack(read), size=size):
                if m.cards == read:
                    f = self._sub(m, x, one)
                    if f is not None and f not in out:
                        out.append(f)
        return out


@lru_cache(maxsize=None)
def generator(rules: Rules) -> Union[MoveGenerator, WildcardGenerator]:
    """The move generator of a rule set, built once and cached (``generator.cache_clear()``
    drops it, e.g. for a cold benchmark): a `WildcardGenerator` for rules with a flower card."""
    if rules.wildcard is not None:
        return WildcardGenerator(rules)
    return MoveGenerator(rules)


def hand_bits(hand: Union[Hand, str, int], rules: Rules) -> int:
    """Packed cards of a hand given as `Hand`, text or packed int, checked against the
    rule set's deck (raises `RulesError`; `CardError` for a negative or bool int)."""
    if isinstance(hand, int) and (hand < 0 or isinstance(hand, bool)):
        raise CardError(f"packed cards are a non-negative int, not {hand!r}")
    bits = hand if isinstance(hand, int) else as_hand(hand).bits
    rules.check_hand(bits)
    return bits


def legal_moves(hand: Union[Hand, str], rules: Rules = STANDARD,
                to_beat: Optional[Move] = None) -> list[Move]:
    """Every move ``hand`` can lead (``to_beat`` None or pass), or every move that beats
    ``to_beat`` followed by `PASS`. ``rules`` may be a rule set's name, ``to_beat`` text."""
    if not isinstance(rules, Rules):
        rules = get_rules(rules)
    if to_beat is not None and not isinstance(to_beat, Move):
        if not isinstance(to_beat, str):
            raise IllegalCombinationError(f"to_beat is a Move or card text, not {to_beat!r}")
        to_beat = parse_move(to_beat, rules)
    if type(hand) is Hand:          # the common case, checked inline (this is a hot path)
        bits = hand.bits
        if ((rules.deck | GUARD_BITS) - bits) & GUARD_BITS != GUARD_BITS:
            rules.check_hand(bits)      # raises `RulesError` naming the extra cards
    else:
        bits = hand_bits(hand, rules)
    gen = generator(rules)
    if to_beat is None or to_beat.kind is Kind.PASS:
        return gen.leading(bits)
    if to_beat.kind not in rules.kinds:
        raise RulesError(f"{to_beat!r} is not a combination of the {rules.name} rules")
    return gen.following(bits, to_beat)


def check_move(move: Move, rules: Rules, what: str = "move") -> Move:
    """Raise `RulesError` unless ``move`` is a combination of ``rules`` (pass is fine)."""
    if not isinstance(move, Move):
        raise TypeError(f"expected a Move, not {type(move).__name__}")
    if move.kind == Kind.PASS:
        return move
    if move.kind not in rules.kinds:
        raise RulesError(f"{what} {move!r} is a {move.kind.label}, which the {rules.name} "
                         "rules do not have")
    rules.check_hand(move.cards, what)
    c = unpack(move.cards)
    gen = generator(rules)
    for leading in (True, False):
        if any(m == move for m in gen.collect(c, kind=move.kind, length=move.length,
                                               leading=leading)):
            break
    else:
        raise RulesError(f"{what} {move!r} is not a combination of the {rules.name} rules")
    return move


def split_reading(text: str) -> tuple[str, Optional[int]]:
    """Card text and the rank ``F`` is read as, from ``'45678F=9'`` (None without ``=``)."""
    if "=" not in text:
        return text, None
    cards, _, rank = text.rpartition("=")
    r = rank_of(rank.strip())
    if r not in range(RB) or r == R2:
        raise CardError(f"the flower card F cannot be read as {rank.strip()!r}: only 3..A")
    return cards, r


def readings(cards: Union[Hand, str, int], rules: Rules = STANDARD) -> list[Move]:
    """Every move these cards make when led, one per reading (several only with ``F``)."""
    if isinstance(cards, str):
        cards, _ = split_reading(cards)
    bits = hand_bits(cards, rules)
    if bits == 0:
        return [PASS]
    gen = generator(rules)
    if isinstance(gen, WildcardGenerator):
        return gen.readings(bits)
    size = bits_size(bits)
    return [m for m in gen.collect(unpack(bits), size=size) if m.cards == bits][:1]


def detect(cards: Union[Hand, str, int], rules: Rules = STANDARD,
           reading: Optional[int] = None) -> Optional[Move]:
    """The move these cards make when led (`PASS` for no cards), or None if they form no
    combination.

    With a flower card ``F`` the reading may be given (``reading=`` the rank F stands for,
    or text such as ``'45678F=9'``); cards with several readings and none given raise
    `AmbiguousMoveError` listing them.

    >>> detect("3333BR").kind.name, detect("33334444")
    ('FOUR_TWO_SOLO', None)
    >>> from ddzlab.rules import WILDCARD
    >>> str(detect("45678F=9", WILDCARD)), detect("333F=3", WILDCARD).kind.name
    ('45678F=9', 'SOFT_BOMB')
    """
    if not isinstance(rules, Rules):
        rules = get_rules(rules)
    if isinstance(cards, str):
        cards, given = split_reading(cards)
        reading = given if given is not None else reading
    bits = hand_bits(cards, rules)
    if bits == 0:
        return PASS
    gen = generator(rules)
    if not bits & _F_MASK:
        if reading is not None:
            raise CardError(f"a reading (={RANK_CHARS[reading]}) is given but "
                            f"{format_bits(bits)} holds no flower card F")
        if isinstance(gen, WildcardGenerator):
            gen = gen.natural
        size = bits_size(bits)
        for move in gen.collect(unpack(bits), size=size):
            if move.cards == bits:
                return move
        return None
    found = gen.readings(bits)
    if reading is not None:
        read = bits - F_BIT + (1 << (4 * reading))
        found = [m for m in found if _read_as(m, read, reading, gen)]
    if len(found) > 1:
        raise AmbiguousMoveError(
            f"{format_bits(bits)} has {len(found)} readings: "
            + ", ".join(f"{m} ({m.kind.label} of {m.rank_char})" for m in found)
            + "; give one, e.g. " + str(found[-1]), tuple(found))
    return found[0] if found else None


def _read_as(m: Move, read: int, x: int, gen: "WildcardGenerator") -> bool:
    """Whether move ``m`` (with F) can be read with F as ``x`` (cards ``read``)."""
    if m.reading == x:
        return True
    kind = Kind.BOMB if m.kind == Kind.SOFT_BOMB else m.kind
    return any(n.cards == read for n in gen.natural.collect(unpack(read), kind, m.length, rank=m.rank,
                                                            size=m.size))


def parse_move(text: str, rules: Rules = STANDARD) -> Move:
    """Parse a move from text: a pass word (`PASS_WORDS`) or cards such as ``'33344458'``,
    with the flower card's reading when it has several (``'45678F=9'``).

    Raises `CardError` for unknown symbols or more copies than a deck has, `RulesError` for
    cards outside the rule set's deck, `IllegalCombinationError` when the cards form no
    combination or there are none, and its subclass `AmbiguousMoveError` (listing them) when
    they have several readings and none is given. This is the one parser of typed moves
    (`Game.play` uses it).
    """
    if not isinstance(rules, Rules):
        rules = get_rules(rules)
    if not isinstance(text, str):
        raise IllegalCombinationError(f"a move is card text such as 334 or 'pass', not {text!r}")
    if text.strip().lower() in PASS_WORDS:
        return PASS
    cards, reading = split_reading(text)
    bits = hand_bits(cards, rules)
    if bits == 0:
        raise IllegalCombinationError("no cards given: type cards such as 334 or 'pass'")
    move = detect(bits, rules, reading)
    if move is None:
        raise IllegalCombinationError(f"{text.strip()} is not a combination of the {rules.name} rules")
    return move


def find_move(moves: Iterable[Move], cards: Union[str, Hand, int]) -> Optional[Move]:
    """The move in ``moves`` that plays exactly these cards (None for none)."""
    bits = cards if isinstance(cards, int) else (
        0 if isinstance(cards, str) and cards.strip().lower() in PASS_WORDS
        else as_hand(cards).bits)
    for m in moves:
        if m.cards == bits:
            return m
    return None


__all__ = ["Move", "PASS", "PASS_WORDS", "Kind", "legal_moves", "detect", "parse_move", "find_move",
           "check_move", "MoveGenerator", "WildcardGenerator", "generator", "hand_bits", "readings", "split_reading",
           "ALL_BOMB_ORDER", "bomb_tiers"]
