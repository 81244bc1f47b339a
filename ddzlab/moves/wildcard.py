"""`WildcardGenerator`: the moves of a rule set with a flower card ``F`` (docs/rules.md#other-rule-sets).

It wraps a natural `MoveGenerator` of the same rules without ``F`` and expands ``F`` over the
ranks it may stand for; the tables here are keyed by rank patterns like the natural ones.

The tables are bounded: they are built on first use, and the rank patterns a long run
meets would keep them growing without a bound. Every `CHECK_EVERY`
calls of `leading` / `following` the generator counts its table entries (its own and its
natural generator's); past ``max_entries`` (default `MAX_TABLE_ENTRIES`, about 100 MB) it
empties them all and rebuilds them on demand. A size cap rather than an LRU: an LRU would
add bookkeeping to every look-up of the hot path, and the tables refill in milliseconds.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from typing import Any, Iterable, Optional

from ..cards import F_BIT, LOW_BITS, N_RANKS, RB, RR, bits_size, format_bits, unpack
from ..errors import RulesError
from ..rules import KIND_SHAPE, AttachSpec, Kind, Rules
from .generator import _HI_SHIFT, _LO_MASK, _RANKS_HI, _RANKS_LO, MoveGenerator, _kicker_sets
from .move import _F_MASK, PASS, Move

#: the most table entries a `WildcardGenerator` keeps before emptying its tables
MAX_TABLE_ENTRIES = 300_000
#: calls of `leading` / `following` between two counts of the table entries
CHECK_EVERY = 1024


def _entries(tables: object) -> int:
    """Entries of the tables among an object's attributes: the keys of its dicts and the
    items of its lists of moves, also inside lists and tuples of them (not inside a dict)."""
    return sum(_count(v, 4) for v in vars(tables).values())


def _count(x: object, depth: int) -> int:
    if isinstance(x, dict):
        return len(x)
    if isinstance(x, list) and x and isinstance(x[0], Move):
        return len(x)
    if isinstance(x, (list, tuple)) and depth:
        return sum(_count(y, depth - 1) for y in x)
    return 0


class WildcardGenerator:
    """The moves of a rule set with a flower card ``F`` (docs/rules.md#other-rule-sets), by expanding it.

    A natural `MoveGenerator` of the same rules without ``F`` lists the moves of the natural
    cards; for each rank ``x`` that ``F`` may stand for, the moves of the natural cards plus
    one ``x`` that use an ``x`` are the moves paying ``F`` for it (penkzhou/DouDiZhu's method). One
    move per (cards paid, kind, rank, length): a kicker ``F`` that could be read as several
    ranks is one move, read as the lowest. A four made with ``F`` is a `Kind.SOFT_BOMB`.

    ``leading`` lists the same set from tables keyed by rank patterns, as the natural
    generator does (see its docstring); ``following`` expands only the replies that need the
    extra copy; `_expand` is the straightforward expansion the tests compare both with.
    ``leading`` / ``following`` match `MoveGenerator`'s; the rank-count sweep ``collect``
    (what the analysis searches use) has no wildcard version and raises `RulesError`.
    The tables hold at most about ``max_entries`` entries (module docstring; ``resets``
    counts how often they were emptied).
    """

    def __init__(self, rules: Rules, max_entries: int = MAX_TABLE_ENTRIES) -> None:
        self.rules = rules
        self.max_entries = max_entries
        self.resets = 0
        self._calls = 0
        self._build()

    def table_entries(self) -> int:
        """How many entries the tables hold (this generator's and its natural one's)."""
        return _entries(self) + _entries(self.natural)

    def _bound_tables(self) -> None:
        """Every `CHECK_EVERY` calls: empty the tables if they hold over ``max_entries``."""
        self._calls = 0
        if self.table_entries() > self.max_entries:
            self._build()
            self.resets += 1

    def _build(self) -> None:
        """Empty tables (and a fresh natural generator, whose tables are built on use)."""
        rules = self.rules
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
        self.unit_rows: dict[Kind, tuple[list[Optional[list]], list[Any]]] = {a.kind: ([None] * N_RANKS, [None] * N_RANKS) for _, _, _, _, a in self.natural.unit_attach}
        #: the natural generator's `unit_attach` entries, each with three tables (F in the
        #: main part; F among the kickers; F in the main part, a pair as two solos): rank
        #: pattern -> [`_unit_list` per rank]; a trio's pair kickers with F in the trio are
        #: one list per f2 (`_pair_kicked`). Each list depends on one rank pattern only.
        self.unit_plan: list[tuple[int, int, int, list, AttachSpec, tuple[dict, dict, dict]]] = [(bw, kw, k, table, a, ({}, {}, {})) for bw, kw, k, table, a in self.natural.unit_attach]
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
        self.plane_plan: list[tuple[tuple[int, int], list, dict]] = [(shape, attachments, {}) for shape, attachments in shapes.items()]
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
        self._calls += 1
        if self._calls >= CHECK_EVERY:
            self._bound_tables()
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
        ranks = ((), (c1.get(f1) or gen._lead_entry(1, f1))[1], (c2.get(f2) or gen._lead_entry(2, f2))[1],
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
                kicked = self.unit_rows[a.kind][1]
                out += [kicked[t] or self._kick_row_of(a, bw, t) for t in ranks[bw]]
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
        row = rows[t]
        if row is None:
            row = rows[t] = self._main_row(a, width, t, table)
        return row

    def _kick_row_of(self, a: AttachSpec, width: int, t: int) -> Any:
        """`_kick_row` of ``t`` (a move or a row, as `_kick_row` says), built on first use and
        kept in `unit_rows`."""
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

    def _main_plane(self, c: list[int], a: AttachSpec, n: int, s: int, x: int,
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
        self._calls += 1
        if self._calls >= CHECK_EVERY:
            self._bound_tables()
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

