"""`MoveGenerator`: the enumeration of the moves of a rule set without a flower card.

It reads the rule set's chain and attachment specs (variants are data) and keeps tables
keyed by rank patterns, so the moves of a hand are mostly looked up rather than built; see
`ddzlab.moves` for the kicker conventions it implements.
"""
from __future__ import annotations

from itertools import combinations
from typing import Optional, Sequence

from ..cards import LOW_BITS, N_RANKS, RB, RR, unpack
from ..rules import KIND_SHAPE, AttachSpec, Kind, Rules
from .move import PASS, Move

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
        #: (kind, width, move by rank); a rank the deck holds fewer than ``width`` of has None,
        #: typed away here: every lookup is guarded by a hand's count of that rank
        self.units: list[tuple[Kind, int, list[Move]]] = []
        for kind in rules.units:
            width = KIND_SHAPE[kind][0]
            table: list[Move] = [Move(kind, r, 1, width << (4 * r)) if deck[r] >= width else None  # type: ignore[misc]
                                 for r in range(N_RANKS)]
            self.units.append((kind, width, table))
        self.rocket = (Move(Kind.ROCKET, RB, 1, (1 << (4 * RB)) | (1 << (4 * RR)))
                       if rules.rocket else None)
        self.is_chain_rank = [r in rules.chain_ranks for r in range(N_RANKS)]
        self.chains = []
        for spec in rules.chains:
            chain_table: dict[tuple[int, int], Move] = {}
            for s in rules.chain_ranks:
                for n in range(1, spec.max_len + 1):
                    ranks = [s + i * spec.step for i in range(n)]
                    if not all(r in rules.chain_ranks for r in ranks):
                        break
                    if n >= spec.min_len:
                        chain_table[n, s] = Move(spec.kind, s, n, sum(spec.width << (4 * r) for r in ranks))
            self.chains.append((spec, chain_table))
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
        #: (base width, kicker width, kickers per unit, rows by base rank (None: not built yet), spec)
        self.unit_attach: list[tuple[int, int, int, list[Optional[list]], AttachSpec]] = []
        self.chain_attach: list[tuple[AttachSpec, tuple[int, int, Optional[int]]]] = []
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
        for spec, chain_table in chains:
            if size is not None and (size % spec.width or size // spec.width < spec.min_len):
                continue
            want = length if size is None else size // spec.width
            self._chains(c, spec.width, spec.step, spec.min_len, spec.max_len, want, above,
                         lambda n, s, t=chain_table: out.append(t[n, s]), upto)
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
            ranks: tuple[tuple[int, ...], ...] = ((), e1[1], e2[1], e3[1], e4[1])   # by width
        else:
            ranks = ((), e1[1], e2[1], e3[1], ())
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
            bombs = self.bomb_table          # a bomb to beat: the rule set has bombs
            out = [bombs[r] for r in self.deck_ranks if c[r] == 4 and r > to_beat.rank] if bombs else []
        else:
            out = self.collect(c, kind, to_beat.length, to_beat.rank, leading=False)
            if self.bomb_table is not None:
                out.extend([self.bomb_table[r] for r in self.deck_ranks if c[r] == 4])
        if self.rocket is not None and c[RB] and c[RR]:
            out.append(self.rocket)
        out.append(PASS)
        return out

