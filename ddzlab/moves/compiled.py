"""The compiled move generator (numba): `MoveGenerator`'s leading and following lists as
kernels over packed ``int64`` hands, in the same order, for the search core.

Why a second enumeration: a search calls the generator millions of times per decision,
and a Python call costs microseconds where a compiled one costs nanoseconds. It is not a
second opinion on the rules: the kernels read one table (`core_table`) built from the
same `Rules` data that `MoveGenerator` reads (deck, units, chain specs, attachment specs,
bomb kinds), implement the same kicker conventions (see `ddzlab.moves`), and the tests
compare both lists move for move, order included (tests/search/test_compiled.py; at full size
``tests/compiled_check.py``). Chains read their step from the table, so the homework rules'
gapped chains are generated like the others. A hand with the flower card ``F`` (the
``wildcard`` rules) lists its natural moves so, then the moves paying ``F`` in the order of
the expansion below (docs/core.md says why not `WildcardGenerator`'s): the same moves, each
once, with the same readings; `supports` says which rule sets the core plays.

A move in the core is two ``int64``: its packed cards and ``meta = kind + 32 (rank + 1)
+ 1024 length + 16384 (reading + 1)`` (`encode`; a pass is ``(0, 0)``; the last term only for
a move with ``F``), read by every kernel through `meta_kind`, `meta_rank`, `meta_length` and
`meta_reading`. Kernels write moves into caller-owned
arrays and return how many they wrote (`MAX_MOVES` is a safe capacity: a hand of the
standard rules has a few hundred leading moves at most).

numba compiles each kernel on first use and caches the machine code on disk
(``cache=True``): in ``__pycache__`` beside this file, or under ``NUMBA_CACHE_DIR`` when
the package directory is read-only (`ddzlab.search` sets a user cache directory then).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..cards import F_BIT, N_RANKS, N_SLOTS, RB, RF, RR
from ..errors import RulesError
from ..kernels import ATTACH_FIELDS, CHAIN_FIELDS, TABLE, KernelLayoutError
from ..rules import KIND_SHAPE, Kind, Rules
from .move import PASS, Move

K_PASS, K_BOMB, K_ROCKET = int(Kind.PASS), int(Kind.BOMB), int(Kind.ROCKET)
K_SOFT_BOMB = int(Kind.SOFT_BOMB)

#: a capacity that no hand's move list reaches (checked by every kernel: overflow raises)
MAX_MOVES = 4096

# -- the table: one int64 array per rule set, filled from `Rules` (`ddzlab.kernels.TABLE`) ----
T_DECK, T_CHAIN_OK = TABLE.offset("deck"), TABLE.offset("chain_ok")
T_ROCKET, T_LONGEST_TRIO = TABLE.offset("rocket"), TABLE.offset("longest_trio")
T_NUNITS, T_UNITS = TABLE.offset("n_units"), TABLE.offset("units")
T_NCHAINS, T_CHAINS = TABLE.offset("n_chains"), TABLE.offset("chains")
T_NATTACH, T_ATTACH = TABLE.offset("n_attach"), TABLE.offset("attach")
T_CHAIN_SLOTS, T_QUAD_SLOTS = TABLE.offset("chain_slots"), TABLE.offset("quad_slots")
T_WILD, T_TIERS = TABLE.offset("wild"), TABLE.offset("tiers")
T_SIZE = TABLE.size
A_FIELDS, C_FIELDS = ATTACH_FIELDS, CHAIN_FIELDS


#: the bomb orders the kernels play (the natural part reads a bomb as below the rocket)
_BOMB_ORDERS = ((Kind.BOMB, Kind.ROCKET), (Kind.SOFT_BOMB, Kind.BOMB, Kind.ROCKET))


def _fits(rules: Rules) -> bool:
    """Whether the move kernels generate these rules' moves: chains of ranks one or two apart
    (the homework rules' gapped chains), kickers on trios, quads or chains of step 1, the bombs
    of the standard order (bomb < rocket) or, with the flower card ``F`` in slot 15, the
    wildcard order (soft bomb < bomb < rocket)."""
    wild = rules.wildcard is not None
    return (all(c.step in (1, 2) for c in rules.chains)
            and tuple(rules.bomb_order) == _BOMB_ORDERS[wild]
            and (not wild or (rules.wildcard == RF and all(0 <= x < RB for x in rules.wild_ranks)))
            and all(KIND_SHAPE[a.base][1] == 1 for a in rules.attachments))


@lru_cache(maxsize=None)
def supports(rules: Rules) -> bool:
    """Whether the compiled core (move kernels, play, sampling, the random, halfsolo and
    greedy rollouts) plays these rules: those whose moves the kernels generate (`_fits`):
    standard, mini, homework and wildcard. Under the wildcard rules the exact endgame solver
    has no checked twin yet (`ddzlab.agents.mcts_compiled` says so)."""
    return _fits(rules)


@lru_cache(maxsize=None)
def core_table(rules: Rules) -> np.ndarray:
    """The rule set as the kernels read it (`ddzlab.kernels.TABLE`); built once per rules."""
    if not _fits(rules):
        raise RulesError(f"the compiled core does not play the {rules.name} rules: "
                         "use the Python generator (ddzlab.moves)")
    try:
        TABLE.check("units", 2 * len(rules.units), "two values per unit kind")
        TABLE.check("chains", C_FIELDS * len(rules.chains), f"{C_FIELDS} values per chain spec")
        TABLE.check("attach", A_FIELDS * len(rules.attachments), f"{A_FIELDS} values per attachment spec")
    except KernelLayoutError as e:
        raise RulesError(f"the {rules.name} rules do not fit the compiled core's table: {e}") from None
    t = np.zeros(T_SIZE, dtype=np.int64)
    for r in range(N_SLOTS):
        t[T_DECK + r] = (rules.deck >> (4 * r)) & 15
        t[T_QUAD_SLOTS] |= int(r < N_RANKS and t[T_DECK + r] == 4) << (4 * r)
    for r in range(N_RANKS):
        t[T_CHAIN_OK + r] = r in rules.chain_ranks
        t[T_CHAIN_SLOTS] |= int(r in rules.chain_ranks) << (4 * r)
    t[T_ROCKET] = rules.rocket
    trio = rules.chain(Kind.TRIO_CHAIN)
    t[T_LONGEST_TRIO] = trio.max_len if trio else 0
    t[T_NUNITS] = len(rules.units)
    for i, kind in enumerate(rules.units):
        t[T_UNITS + 2 * i: T_UNITS + 2 * i + 2] = (kind, KIND_SHAPE[kind][0])
    t[T_NCHAINS] = len(rules.chains)
    for i, c in enumerate(rules.chains):
        t[T_CHAINS + C_FIELDS * i: T_CHAINS + C_FIELDS * (i + 1)] = (c.kind, c.width, c.step, c.min_len,
                                                                    c.max_len)
    t[T_NATTACH] = len(rules.attachments)
    for i, a in enumerate(rules.attachments):
        width, step = KIND_SHAPE[a.base]
        unit = a.base in (Kind.TRIO, Kind.BOMB)
        t[T_ATTACH + A_FIELDS * i: T_ATTACH + A_FIELDS * (i + 1)] = (
            a.kind, width, step, a.kicker_width, a.per_unit, 1 if unit else a.min_units,
            1 if unit else a.max_units, a.distinct, unit, 0)
    if rules.wildcard is not None:
        t[T_WILD] = sum(1 << (4 * x) for x in set(rules.wild_ranks))
    for tier, kind in enumerate(rules.bomb_order, start=1):
        t[T_TIERS + int(kind)] = tier
    if rules.wildcard is not None:
        t.flags.writeable = False           # the flower card's table: its own type (`_flower_leads`)
    return t


#: the meta's reading field: ``READING * (x + 1)`` for a move reading ``F`` as rank ``x``
READING = 1 << 14


def encode(move: Move) -> tuple[int, int]:
    """(cards, meta) of a `Move` as the kernels store it."""
    meta = int(move.kind) + 32 * (move.rank + 1) + 1024 * move.length
    return move.cards, meta if move.reading is None else meta + READING * (move.reading + 1)


@njit(cache=True, inline="always")
def meta_kind(meta):
    """The `Kind` number of a kernel's move meta (0: pass)."""
    return meta & 31


@njit(cache=True, inline="always")
def meta_rank(meta):
    """The rank of a kernel's move meta (the `Move.rank`: -1 for a pass)."""
    return ((meta >> 5) & 31) - 1


@njit(cache=True, inline="always")
def meta_length(meta):
    """The length of a kernel's move meta (`Move.length`)."""
    return (meta >> 10) & 15


@njit(cache=True, inline="always")
def is_bomb_kind(kind):
    """Whether a move of this kind is a bomb (doubles the stakes; beats by `Rules.bomb_order`):
    a bomb, a soft bomb or the rocket, as `Move.is_bomb`."""
    return kind == K_BOMB or kind == K_ROCKET or kind == K_SOFT_BOMB


@njit(cache=True, inline="always")
def meta_reading(meta):
    """The rank ``F`` is read as in a kernel's move meta (`Move.reading`; -1: no ``F``)."""
    return (meta >> 14) - 1


def _python(kernel):
    """A kernel's plain Python function (the kernel itself when numba's JIT is off,
    ``NUMBA_DISABLE_JIT=1``: the mutation run of the kernels, tests/MUTATION.md)."""
    return getattr(kernel, "py_func", kernel)


def decode(cards: int, meta: int) -> Move:
    """The `Move` of a kernel's (cards, meta)."""
    kind = _python(meta_kind)(meta)
    if kind == 0:
        return PASS
    reading = _python(meta_reading)(meta)
    return Move(Kind(kind), _python(meta_rank)(meta), _python(meta_length)(meta), int(cards),
                None if reading < 0 else reading)


# -- kernels ------------------------------------------------------------------------------
_F_BIT = F_BIT
_NATURAL = (1 << (4 * RF)) - 1              # the 15 rank slots of a packed hand (F's cleared)
_RB, _RR = RB, RR


@njit(cache=True, inline="always")
def _emit(oc, om, n, cards, meta):
    if n >= oc.shape[0]:
        raise ValueError("move buffer full: raise ddzlab.moves.compiled.MAX_MOVES")
    oc[n] = cards
    om[n] = meta
    return n + 1


def scratch() -> np.ndarray:
    """Work space for `lead_moves` / `follow_moves` (one per caller, reused across calls:
    allocating it in every call of a rollout step costs more than the step's arithmetic)."""
    return np.empty(SCRATCH, dtype=np.int64)


SCRATCH = 48


@njit(cache=True)
def _split_scratch(bits, sc):
    """Rank counts of ``bits`` into sc[0:15]; the views (counts, pool, caps) of ``sc``."""
    c = sc[0:15]
    for r in range(15):
        c[r] = (bits >> (4 * r)) & 15
    return c, sc[16:31], sc[32:47]


#: bit 0 of each of the 15 four-bit slots of a packed hand
_SLOT_LOW = sum(1 << (4 * r) for r in range(15))


@njit(cache=True, inline="always")
def _at_least(bits, w):
    """The ranks ``bits`` holds at least ``w`` times (w = 1..4), as a slot mask (bit 4r):
    bit arithmetic on the packed counts, for the generators' quick skips."""
    if w == 1:
        return (bits | bits >> 1 | bits >> 2 | bits >> 3) & _SLOT_LOW
    if w == 2:
        return (bits >> 1 | bits >> 2 | bits >> 3) & _SLOT_LOW
    if w == 3:
        return (bits >> 2 | bits >> 3 | (bits >> 1 & bits)) & _SLOT_LOW
    return (bits >> 2 | bits >> 3) & _SLOT_LOW


@njit(cache=True, inline="always")
def _has_run(mask, length, step):
    """Whether the slot mask holds ``length`` ranks ``step`` apart (a run of a chain spec)."""
    y = mask
    for i in range(1, length):
        y &= mask >> (4 * step * i)
    return y != 0


@njit(cache=True, inline="always")
def _run_from(mask, s, step):
    """How many ranks ``step`` apart the slot mask holds in a row from rank ``s`` up: the
    length of the run from ``s`` (a maximal run's, from its lowest rank)."""
    run, r = 0, s
    while r < 15 and (mask >> (4 * r)) & 1:
        run += 1
        r += step
    return run


@njit(cache=True)
def _solo_sets(pool, caps, npool, k, main, meta, oc, om, n):
    """`_kicker_sets` of ``k`` solo kickers from ``pool`` (a rank up to its cap), in the
    same depth-first order; iterative (numba's cache cannot reload recursive kernels)."""
    js = np.empty(k + 1, dtype=np.int64)
    ts = np.empty(k + 1, dtype=np.int64)
    needs = np.empty(k + 1, dtype=np.int64)
    accs = np.empty(k + 1, dtype=np.int64)
    d = 0
    js[0], ts[0], needs[0], accs[0] = 0, 0, k, 0
    while d >= 0:
        j = js[d]
        if j >= npool:
            d -= 1
            continue
        t = ts[d] + 1
        if t > caps[j] or t > needs[d]:          # this rank is done: the next one
            js[d], ts[d] = j + 1, 0
            continue
        ts[d] = t
        acc = accs[d] + (t << (4 * pool[j]))
        need = needs[d] - t
        if need == 0:
            n = _emit(oc, om, n, main + acc, meta)
        else:
            d += 1
            js[d], ts[d], needs[d], accs[d] = j + 1, 0, need, acc
    return n


@njit(cache=True)
def _pair_sets(pool, npool, k, main, meta, oc, om, n):
    """``itertools.combinations(pool, k)`` of pair kickers, in the same order."""
    if npool < k:
        return n
    idx = np.arange(k)
    while True:
        acc = 0
        for i in range(k):
            acc += 2 << (4 * pool[idx[i]])
        n = _emit(oc, om, n, main + acc, meta)
        i = k - 1
        while i >= 0 and idx[i] == i + npool - k:
            i -= 1
        if i < 0:
            return n
        idx[i] += 1
        for j in range(i + 1, k):
            idx[j] = idx[j - 1] + 1


@njit(cache=True)
def _attached(t, a, c, n_units, s, leading, pool, caps, oc, om, n):
    """The moves of attachment ``a`` (its index in the table) on the main part of
    ``n_units`` units from rank ``s``: `MoveGenerator._two_kickers` when two kickers,
    `_more_kickers` otherwise, same kicker sets in the same order (``pool``, ``caps``: scratch
    arrays of 15)."""
    o = T_ATTACH + A_FIELDS * a
    kind, width, step, kw, per_unit, distinct = t[o], t[o + 1], t[o + 2], t[o + 3], t[o + 4], t[o + 7]
    top = s + (n_units - 1) * step
    main = np.int64(0)             # typed, not literal 0: see _lead_natural
    for r in range(s, top + 1, step):
        main += width << (4 * r)
    meta = kind + 32 * (s + 1) + 1024 * n_units
    k = per_unit * n_units
    npool = np.int64(0)
    for r in range(15):
        cr = c[r]
        if distinct and cr > 1:
            cr = 1
        if cr >= kw and not (s <= r <= top and (r - s) % step == 0):
            pool[npool] = r
            caps[npool] = cr if cr < 2 else 2
            npool += 1
    if k == 2:
        for i in range(npool):
            for j in range(i + 1, npool):
                n = _emit(oc, om, n, main + (kw << (4 * pool[i])) + (kw << (4 * pool[j])), meta)
        if kw == 1 and not distinct:
            for i in range(npool):
                if c[pool[i]] >= 2:
                    n = _emit(oc, om, n, main + (2 << (4 * pool[i])), meta)
        return n
    if kw == 2:
        if k == 1:
            for i in range(npool):
                n = _emit(oc, om, n, main + (2 << (4 * pool[i])), meta)
            return n
        return _pair_sets(pool, npool, k, main, meta, oc, om, n)
    if k == 1:
        for i in range(npool):
            n = _emit(oc, om, n, main + (1 << (4 * pool[i])), meta)
        return n
    if k != 3:
        return _solo_sets(pool, caps, npool, k, main, meta, oc, om, n)
    # three solos (`_three_solos`), less the trios that read as a longer chain
    skip_hi = 3 << (4 * (top + 1)) if t[T_CHAIN_OK + top + 1] else -1
    skip_lo = -1
    if leading and s >= 1 and t[T_CHAIN_OK + s - 1] and t[T_LONGEST_TRIO] > n_units:
        skip_lo = 3 << (4 * (s - 1))
    for i in range(npool):
        x = 1 << (4 * pool[i])
        ci = c[pool[i]]
        if distinct and ci > 1:
            ci = 1
        for j in range(i + 1, npool):
            y = x + (1 << (4 * pool[j]))
            for z in range(j + 1, npool):
                kick = y + (1 << (4 * pool[z]))
                n = _emit(oc, om, n, main + kick, meta)
            cj = c[pool[j]]
            if distinct and cj > 1:
                cj = 1
            if cj >= 2:
                n = _emit(oc, om, n, main + y + (1 << (4 * pool[j])), meta)
        if ci >= 2:
            for z in range(i + 1, npool):
                n = _emit(oc, om, n, main + 2 * x + (1 << (4 * pool[z])), meta)
            if ci >= 3:
                kick = 3 * x
                if kick != skip_hi and kick != skip_lo:
                    n = _emit(oc, om, n, main + kick, meta)
    return n


@njit(cache=True, inline="always")
def _run_len(t, c, s, width, step, hi):
    """How many chain ranks ``step`` apart from ``s`` up, at most ``hi``, ``c`` holds ``width`` times."""
    k, r = 0, s
    while r < 15 and t[T_CHAIN_OK + r] and c[r] >= width and k < hi:
        k += 1
        r += step
    return k


@njit(cache=True)
def _next_part(t, c, width, step, lo, hi, s, k):
    """The main part of a chain attachment (a plane) after (rank ``s``, length ``k``) in counts
    ``c``: runs of ``lo`` to ``hi`` chain ranks ``step`` apart, each held ``width`` times, by
    lowest rank then length; (-1, 0) when none is left; (-1, 0) also starts the walk. The one
    walk of the planes, natural (`_lead_natural`) and with ``F`` among the kickers
    (`_flower_moves`), with nothing to allocate."""
    if s >= 0 and k < _run_len(t, c, s, width, step, hi):
        return s, k + 1
    for r in range(s + 1, 15):
        if _run_len(t, c, r, width, step, hi) >= lo:
            return r, lo
    return -1, 0


@njit(cache=True, inline="always")
def _unit_kicked(t, a, bits, s, oc, om, n):
    """`_attached` for a unit attachment with one kicker (a trio with a solo or a pair) on
    the trio or quad of rank ``s``: the kickers straight off the slot masks, rank order, no
    scratch; -1 when attachment ``a`` is not of that shape (`_attached` then)."""
    o = T_ATTACH + A_FIELDS * a
    kw = t[o + 3]
    if t[o + 4] != 1 or (t[o + 7] and kw > 1):
        return -1
    main = t[o + 1] << (4 * s)
    meta = t[o] + 32 * (s + 1) + 1024
    m = _at_least(bits, kw) & ~(15 << (4 * s))
    r = 0
    while m:
        if m & 1:
            n = _emit(oc, om, n, main + (kw << (4 * r)), meta)
        m >>= 4
        r += 1
    return n


@njit(cache=True)
def _lead_natural(t, bits, oc, om, sc):
    """Every leading move of packed hand ``bits`` (no ``F``), in `MoveGenerator.leading`'s order:
    for each width 1-4 the units and chains (read off the slot masks of the ranks held that
    often, `_at_least`), the rocket after the solos; then the trios and quads with kickers, then
    the planes (`_next_part`, `_attached`)."""
    # typed, not literal: one `_attached` for all calls. So are the counters: numba types a
    # counter started at a literal 0 as ``Literal[int](0)`` until the loop widens it, and compiles
    # each kernel called with it for that type too, a variant that never runs
    one, lead = np.int64(1), np.bool_(True)
    n = np.int64(0)
    for w in range(1, 5):
        held = _at_least(bits, w)
        if w >= 3 and held == 0:
            break
        for u in range(t[T_NUNITS]):
            if t[T_UNITS + 2 * u + 1] == w:
                kind = t[T_UNITS + 2 * u]
                m, r = held, 0
                while m:
                    if m & 1:
                        n = _emit(oc, om, n, w << (4 * r), kind + 32 * (r + 1) + 1024)
                    m >>= 4
                    r += 1
                break
        cm = held & t[T_CHAIN_SLOTS]
        for ch in range(t[T_NCHAINS]):
            o = T_CHAINS + C_FIELDS * ch
            if t[o + 1] != w:
                continue
            kind, step, lo, hi = t[o], t[o + 2], t[o + 3], t[o + 4]
            if not _has_run(cm, lo, step):
                continue                        # no run of lo ranks: the scan below finds nothing
            starts = cm & ~(cm << (4 * step))    # maximal runs of chain ranks held w times, step
            s = 0                               # apart, by their lowest rank
            while starts >> (4 * s):
                if (starts >> (4 * s)) & 1:
                    run = _run_from(cm, s, step)
                    for m in range(lo, min(run, hi) + 1):
                        part = 0
                        for q in range(m):
                            part += w << (4 * step * q)
                        for i in range(run - m + 1):
                            r = s + i * step
                            n = _emit(oc, om, n, part << (4 * r), kind + 32 * (r + 1) + 1024 * m)
                s += 1
        if w == 1 and t[T_ROCKET] and (bits >> (4 * _RB)) & 15 and (bits >> (4 * _RR)) & 15:
            n = _emit(oc, om, n, (1 << (4 * _RB)) + (1 << (4 * _RR)), K_ROCKET + 32 * (_RB + 1) + 1024)
    if _at_least(bits, 3) == 0:
        return n
    c, pool, caps = _split_scratch(bits, sc)
    for unit_pass in (1, 0):               # trios and quads with kickers first, then planes
        for a in range(t[T_NATTACH]):
            o = T_ATTACH + A_FIELDS * a
            if t[o + 8] != unit_pass:
                continue
            width, step, lo, hi = t[o + 1], t[o + 2], t[o + 5], t[o + 6]
            held = _at_least(bits, width)
            if held == 0 or (not unit_pass and not _has_run(held & t[T_CHAIN_SLOTS], lo, step)):
                continue                        # no main part of this attachment: nothing below
            if unit_pass:
                m, s = held, np.int64(0)
                while m:
                    if m & 1:
                        k = _unit_kicked(t, a, bits, s, oc, om, n)
                        n = k if k >= 0 else _attached(t, a, c, one, s, lead, pool, caps, oc, om, n)
                    m >>= 4
                    s += 1
                continue
            s, k = _next_part(t, c, width, step, lo, hi, np.int64(-1), np.int64(0))
            while s >= 0:
                n = _attached(t, a, c, k, s, lead, pool, caps, oc, om, n)
                s, k = _next_part(t, c, width, step, lo, hi, s, k)
    return n


@njit(cache=True)
def _follow_natural(t, bits, beat_cards, beat_meta, oc, om, sc):
    """Every reply of packed hand ``bits`` (no ``F``) to the move (``beat_cards``,
    ``beat_meta``), without the pass, in `MoveGenerator.following`'s order; returns the count
    written (``sc``: `scratch`). Counts are read off ``bits``; a kind is skipped when the slot
    masks show it has no reply above the move (`_at_least`, `_has_run`), and the scratch is
    filled only for kickers."""
    kind = meta_kind(beat_meta)
    above = meta_rank(beat_meta)
    length = meta_length(beat_meta)
    one, lead = np.int64(1), np.bool_(False)    # typed, not literal: see `_lead_natural`
    n = np.int64(0)
    if kind == K_ROCKET:
        return n
    shift = 4 * (above + 1)                     # slot masks >> shift: the ranks above the move's
    if kind == K_BOMB:
        for r in range(above + 1, 15):
            if (bits >> (4 * r)) & 15 == 4:
                n = _emit(oc, om, n, 4 << (4 * r), K_BOMB + 32 * (r + 1) + 1024)
    else:
        for u in range(t[T_NUNITS]):
            if t[T_UNITS + 2 * u] == kind:
                w = t[T_UNITS + 2 * u + 1]
                if _at_least(bits, w) >> shift == 0:
                    continue
                for r in range(above + 1, 15):
                    if (bits >> (4 * r)) & 15 >= w:
                        n = _emit(oc, om, n, w << (4 * r), kind + 32 * (r + 1) + 1024)
        for ch in range(t[T_NCHAINS]):
            o = T_CHAINS + C_FIELDS * ch
            if t[o] != kind or not t[o + 3] <= length <= t[o + 4]:
                continue
            w, step = t[o + 1], t[o + 2]
            if not _has_run((_at_least(bits, w) & t[T_CHAIN_SLOTS]) >> shift, length, step):
                continue
            part = 0
            for q in range(length):
                part += w << (4 * step * q)
            for s in range(above + 1, 15):
                k, r = 0, s
                while r < 15 and t[T_CHAIN_OK + r] and (bits >> (4 * r)) & 15 >= w and k < length:
                    k += 1
                    r += step
                if k == length:
                    n = _emit(oc, om, n, part << (4 * s), kind + 32 * (s + 1) + 1024 * length)
        for a in range(t[T_NATTACH]):
            o = T_ATTACH + A_FIELDS * a
            if t[o] != kind or not t[o + 5] <= length <= t[o + 6]:
                continue
            width, step = t[o + 1], t[o + 2]
            held = _at_least(bits, width) >> shift
            if held == 0 or (not t[o + 8] and not _has_run(held & (t[T_CHAIN_SLOTS] >> shift), length, step)):
                continue
            c, pool, caps = _split_scratch(bits, sc)
            for s in range(above + 1, 15):
                if t[o + 8]:
                    if c[s] >= width:
                        n = _attached(t, a, c, one, s, lead, pool, caps, oc, om, n)
                    continue
                k, r = 0, s
                while r < 15 and t[T_CHAIN_OK + r] and c[r] >= width and k < length:
                    k += 1
                    r += step
                if k == length:
                    n = _attached(t, a, c, length, s, lead, pool, caps, oc, om, n)
        if _at_least(bits, 4):
            for r in range(15):
                if (bits >> (4 * r)) & 15 == 4 and t[T_DECK + r] == 4:
                    n = _emit(oc, om, n, 4 << (4 * r), K_BOMB + 32 * (r + 1) + 1024)
    if t[T_ROCKET] and (bits >> (4 * _RB)) & 15 and (bits >> (4 * _RR)) & 15:
        n = _emit(oc, om, n, (1 << (4 * _RB)) + (1 << (4 * _RR)), K_ROCKET + 32 * (_RB + 1) + 1024)
    return n


# -- the flower card F (wildcard rules; docs/core.md) ------------------------------------------
# A hand with F lists its natural moves (the natural kernels on the hand without F, in their
# order), then the moves paying F, each once, with the reading `Move.reading` gives it:
#   (a) F in the main part (the unit, chain, trio or quad, plane), read as the rank x of the
#       slot it fills: per rank x that F may stand for, lowest first, the moves of the hand
#       with one more x whose main part holds x (kickers natural), F paying that x;
#   (b) F among the kickers of a natural main part: the natural kicker sets one kicker short,
#       completed by F read as the lowest rank that makes valid kickers (a pair kicker: F
#       pairs with a natural card y, read as y);
#   then, replying, the soft bombs (three natural x and F) that beat the move by the tiers.
# (a) and (b) never make the same cards with the same kind, rank and length, and each makes
# a move once, so no move is listed twice.
# Both parts read the hand's slot masks (`_at_least`) as the natural leads do: a kicker is the
# low bit of a slot mask (``m & -m``) times its width, the cards of a move paying F are its
# natural cards plus ``F_BIT - (1 << 4x)`` and its meta plus ``READING (x + 1)``, written once
# (no second pass over the list). The shapes of the rule sets with F (one or two kickers of
# width 1 or 2 on a unit or a main part) take that path; three kickers or more go through the
# scratch counts (`_attached`, `_flower_sets`), which hold every kicker convention.


@njit(cache=True, inline="always")
def _low_rank(mask):
    """The lowest rank a nonzero slot mask holds."""
    r = 0
    while not (mask >> (4 * r)) & 1:
        r += 1
    return r


@njit(cache=True, inline="always")
def _part_mask(s, n_units, step):
    """The slot mask of a main part's ranks: ``n_units`` ranks ``step`` apart from ``s``."""
    m = 0
    for i in range(n_units):
        m |= 1 << (4 * (s + i * step))
    return m


@njit(cache=True, inline="always")
def _kicked_off(t, a, nat, c, n_units, s, leading, off, rd, pool, caps, oc, om, n):
    """`_attached`'s moves of attachment ``a`` on the main part of ``n_units`` units from
    rank ``s`` (kickers from the natural hand ``nat``, never of a main rank), each move's cards
    plus ``off`` and meta plus ``rd`` (F paying a main rank: part (a)). One or two kickers of
    width 1 or 2 off the slot masks; other shapes through `_attached` on the counts ``c``."""
    o = T_ATTACH + A_FIELDS * a
    kw, distinct = t[o + 3], t[o + 7]
    k = t[o + 4] * n_units
    if k > 2 or kw > 2:
        lo = n
        n = _attached(t, a, c, n_units, s, leading, pool, caps, oc, om, n)
        for j in range(lo, n):
            oc[j] += off
            om[j] += rd
        return n
    mm = _part_mask(s, n_units, t[o + 2])
    main = t[o + 1] * mm + off
    meta = t[o] + 32 * (s + 1) + 1024 * n_units + rd
    if distinct and kw > 1:
        return n                                    # no rank gives a pair of distinct cards
    p = _at_least(nat, kw) & ~mm
    if k == 1:
        while p:
            low = p & -p
            n = _emit(oc, om, n, main + kw * low, meta)
            p ^= low
        return n
    while p:                                        # two kickers: ranks i < j, then i twice
        li = p & -p
        p ^= li
        q = p
        while q:
            lj = q & -q
            n = _emit(oc, om, n, main + kw * (li + lj), meta)
            q ^= lj
    if kw == 1 and not distinct:
        d = _at_least(nat, 2) & ~mm
        while d:
            low = d & -d
            n = _emit(oc, om, n, main + 2 * low, meta)
            d ^= low
    return n


@njit(cache=True)
def _kicker_reading(t, a, kick, main, k, n_units, leading, top, s):
    """The lowest rank ``F`` may stand for that completes the natural solo kickers ``kick``
    (one short of ``k``) of attachment ``a`` on the main part ``main`` of ``n_units`` units
    (from ``s`` to ``top``); -1: none does."""
    o = T_ATTACH + A_FIELDS * a
    distinct = t[o + 7]
    cap = 1 if distinct else (1 if k == 1 else (3 if k == 3 else 2))
    wild = t[T_WILD]
    for x in range(15):
        if not (wild >> (4 * x)) & 1 or (main >> (4 * x)) & 15:
            continue
        have = (kick >> (4 * x)) & 15
        if have + 1 > cap:
            continue
        if have == 2:                               # three solos of one rank: not the trio that
            triple = 3 << (4 * x)                   # reads as a longer chain (`_attached`)
            if t[T_CHAIN_OK + top + 1] and triple == 3 << (4 * (top + 1)):
                continue
            if (leading and s >= 1 and t[T_CHAIN_OK + s - 1] and t[T_LONGEST_TRIO] > n_units
                    and triple == 3 << (4 * (s - 1))):
                continue
        return x
    return -1


@njit(cache=True)
def _flower_sets(t, a, c, n_units, s, leading, pool, caps, oc, om, n):
    """`_flower_kicked` for the shapes off its slot-mask path (three solo kickers or more, a
    kicker wider than a pair): the natural kicker sets one short (``c``: the natural counts),
    each completed by ``F`` as its lowest reading (`_kicker_reading`)."""
    o = T_ATTACH + A_FIELDS * a
    kind, width, step, distinct = t[o], t[o + 1], t[o + 2], t[o + 7]
    k = t[o + 4] * n_units
    top = s + (n_units - 1) * step
    main = 0
    for r in range(s, top + 1, step):
        main += width << (4 * r)
    meta = kind + 32 * (s + 1) + 1024 * n_units
    npool = 0
    for r in range(15):
        cr = c[r]
        if distinct and cr > 1:
            cr = 1
        if cr >= 1 and not (main >> (4 * r)) & 15:
            pool[npool] = r
            caps[npool] = cr if cr < 2 else 2
            npool += 1
    lo = n
    if k == 1:
        n = _emit(oc, om, n, main, meta)
    elif k == 2:
        for i in range(npool):
            n = _emit(oc, om, n, main + (1 << (4 * pool[i])), meta)
    else:
        n = _solo_sets(pool, caps, npool, k - 1, main, meta, oc, om, n)
    out = lo
    for j in range(lo, n):                          # each natural set: F as its lowest reading
        x = _kicker_reading(t, a, oc[j] - main, main, k, n_units, leading, top, s)
        if x >= 0:
            oc[out] = oc[j] + _F_BIT
            om[out] = meta + READING * (x + 1)
            out += 1
    return out


@njit(cache=True, inline="always")
def _flower_kicked(t, a, nat, c, n_units, s, leading, pool, caps, oc, om, n):
    """The moves of attachment ``a`` on the natural main part of ``n_units`` units from rank
    ``s`` with ``F`` among the kickers (part (b) above; ``nat``: the natural hand, ``c`` its
    counts). A pair kicker is ``F`` with a natural ``y``, read as ``y``; solo kickers are the
    natural sets one short, ``F`` read as the lowest wild rank outside the main part (and,
    distinct kickers, outside the set)."""
    o = T_ATTACH + A_FIELDS * a
    kw, distinct = t[o + 3], t[o + 7]
    k = t[o + 4] * n_units
    mm = _part_mask(s, n_units, t[o + 2])
    main = t[o + 1] * mm
    meta = t[o] + 32 * (s + 1) + 1024 * n_units
    wild = t[T_WILD]
    if kw == 2:                                     # F pairs with a natural y: read as y
        ys = _at_least(nat, 1) & wild & ~mm
        twos = _at_least(nat, 2) & ~mm
        while ys:
            yl = ys & -ys
            ys ^= yl
            base = main + yl + _F_BIT
            ym = meta + READING * (_low_rank(yl) + 1)
            if k == 1:
                n = _emit(oc, om, n, base, ym)
            elif k == 2:
                p = twos & ~yl
                while p:
                    low = p & -p
                    n = _emit(oc, om, n, base + 2 * low, ym)
                    p ^= low
            else:
                npool = 0
                for r in range(15):
                    if (twos & ~yl) >> (4 * r) & 1:
                        pool[npool] = r
                        npool += 1
                n = _pair_sets(pool, npool, k - 1, base, ym, oc, om, n)
        return n
    if kw != 1 or k > 2:
        return _flower_sets(t, a, c, n_units, s, leading, pool, caps, oc, om, n)
    free = wild & ~mm                               # F's readings outside the main part
    if free == 0:
        return n
    x0 = _low_rank(free)
    if k == 1:
        return _emit(oc, om, n, main + _F_BIT, meta + READING * (x0 + 1))
    rest = free ^ (1 << (4 * x0))
    x1 = _low_rank(rest) if rest else -1
    p = _at_least(nat, 1) & ~mm
    while p:                                        # one natural solo, F the other
        low = p & -p
        x = x0
        if distinct and low == 1 << (4 * x0):       # distinct kickers: not the solo's rank
            x = x1
        if x >= 0:
            n = _emit(oc, om, n, main + low + _F_BIT, meta + READING * (x + 1))
        p ^= low
    return n


@njit(cache=True, inline="always")
def _run_ends(cm, x, step):
    """(lowest, highest) rank of the run of ranks ``step`` apart in slot mask ``cm`` through ``x``."""
    lo = x
    while lo - step >= 0 and (cm >> (4 * (lo - step))) & 1:
        lo -= step
    hi = x
    while hi + step < 15 and (cm >> (4 * (hi + step))) & 1:
        hi += step
    return lo, hi


@njit(cache=True, inline="always")
def _flower_main(t, nat, c, x, leading, above, want_kind, want_len, span, pool, caps, oc, om, n):
    """Part (a) for one rank ``x``: every move of the hand ``nat`` plus one ``x`` whose main
    part holds ``x``, ``F`` paying that ``x`` (``c``: the counts of that hand); leading, or
    (``leading`` False) replies of kind ``want_kind`` and length ``want_len`` with a main rank
    above ``above``. ``span``: the units, chain specs and attachments to read (`_flower_span`)."""
    u0, u1, ch0, ch1, a0, a1 = span
    bits = nat + (1 << (4 * x))
    cx = (bits >> (4 * x)) & 15
    off = _F_BIT - (1 << (4 * x))                   # F pays the x
    rd = READING * (x + 1)
    for u in range(u0, u1):                         # units
        kind, w = t[T_UNITS + 2 * u], t[T_UNITS + 2 * u + 1]
        if cx >= w and (leading or (kind == want_kind and x > above)):
            if kind == K_BOMB:
                kind = K_SOFT_BOMB
            n = _emit(oc, om, n, (w << (4 * x)) + off, kind + 32 * (x + 1) + 1024 + rd)
    if t[T_CHAIN_OK + x]:
        for ch in range(ch0, ch1):                  # chains through x
            o = T_CHAINS + C_FIELDS * ch
            kind, w, step, lo, hi = t[o], t[o + 1], t[o + 2], t[o + 3], t[o + 4]
            if cx < w:
                continue
            if not leading:
                if kind != want_kind or not lo <= want_len <= hi:
                    continue
                lo = hi = want_len
            first, last = _run_ends(_at_least(bits, w) & t[T_CHAIN_SLOTS], x, step)
            run = (last - first) // step + 1
            part = 0
            for q in range(lo - 1):
                part += w << (4 * step * q)
            for m in range(lo, min(run, hi) + 1):
                part += w << (4 * step * (m - 1))
                r = max(first, x - (m - 1) * step)      # the windows of m links holding x
                while r <= x and r + (m - 1) * step <= last:
                    if leading or r > above:
                        n = _emit(oc, om, n, (part << (4 * r)) + off, kind + 32 * (r + 1) + 1024 * m + rd)
                    r += step
    for a in range(a0, a1):                         # trios, quads and planes with kickers
        o = T_ATTACH + A_FIELDS * a
        width, step, lo, hi, unit = t[o + 1], t[o + 2], t[o + 5], t[o + 6], t[o + 8]
        if cx < width:
            continue
        if not leading:
            if t[o] != want_kind or not lo <= want_len <= hi:
                continue
            lo = hi = want_len
        if unit:
            if leading or x > above:
                n = _kicked_off(t, a, nat, c, 1, x, leading, off, rd, pool, caps, oc, om, n)
            continue
        if not t[T_CHAIN_OK + x]:
            continue
        first, last = _run_ends(_at_least(bits, width) & t[T_CHAIN_SLOTS], x, step)
        run = (last - first) // step + 1
        for m in range(lo, min(run, hi) + 1):
            r = max(first, x - (m - 1) * step)          # the main parts of m links holding x
            while r <= x and r + (m - 1) * step <= last:
                if leading or r > above:
                    n = _kicked_off(t, a, nat, c, m, r, leading, off, rd, pool, caps, oc, om, n)
                r += step
    return n


@njit(cache=True, inline="always")
def _flower_span(t, leading, want_kind):
    """The table entries part (a) reads, as index ranges (units, chain specs, attachments):
    every one when leading, the one of kind ``want_kind`` when replying (a kind has one entry;
    none: empty ranges), so a reply's loop over the readings of ``F`` reads no other."""
    nu, nch, na = t[T_NUNITS], t[T_NCHAINS], t[T_NATTACH]
    if leading:
        return 0, nu, 0, nch, 0, na
    u0 = u1 = ch0 = ch1 = a0 = a1 = 0
    for u in range(nu):
        if t[T_UNITS + 2 * u] == want_kind:
            u0, u1 = u, u + 1
    for ch in range(nch):
        if t[T_CHAINS + C_FIELDS * ch] == want_kind:
            ch0, ch1 = ch, ch + 1
    for a in range(na):
        if t[T_ATTACH + A_FIELDS * a] == want_kind:
            a0, a1 = a, a + 1
    return u0, u1, ch0, ch1, a0, a1


@njit(cache=True)
def _flower_moves(t, nat, leading, above, want_kind, want_len, oc, om, sc, n):
    """The moves paying ``F`` of the hand ``nat`` + ``F`` (parts (a) and (b) above), after
    the ``n`` moves already written."""
    c, pool, caps = _split_scratch(nat, sc)
    span = _flower_span(t, leading, want_kind)
    wild = t[T_WILD]
    for x in range(above + 1, 15):                  # (a) F in the main part, read as x (a reply's
        if (wild >> (4 * x)) & 1:                   # main part lies above the move; leading: above -1)
            c[x] += 1
            n = _flower_main(t, nat, c, x, leading, above, want_kind, want_len, span, pool, caps, oc, om, n)
            c[x] -= 1
    a0, a1 = span[4], span[5]
    for a in range(a0, a1):                         # (b) F among the kickers of a natural main part
        o = T_ATTACH + A_FIELDS * a
        width, step, lo, hi, unit = t[o + 1], t[o + 2], t[o + 5], t[o + 6], t[o + 8]
        if not leading:
            if t[o] != want_kind or not lo <= want_len <= hi:
                continue
            lo = hi = want_len
        if unit:
            m = _at_least(nat, width) >> (4 * (above + 1))  # leading: above is -1
            s = above + 1
            while m:
                if m & 1:
                    n = _flower_kicked(t, a, nat, c, 1, s, leading, pool, caps, oc, om, n)
                m >>= 4
                s += 1
            continue
        if not _has_run(_at_least(nat, width) & t[T_CHAIN_SLOTS], lo, step):
            continue                                # no natural main part of this plane
        s, k = _next_part(t, c, width, step, lo, hi, above, hi)   # the main parts above the move
        while s >= 0:
            n = _flower_kicked(t, a, nat, c, k, s, leading, pool, caps, oc, om, n)
            s, k = _next_part(t, c, width, step, lo, hi, s, k)
    return n


# Which kernels hold the flower card's moves is decided when numba compiles, not when a hand
# holds F: the table of a rule set with F is read-only (`core_table`), so numba types it apart
# from the others, and `_flower_leads` / `_flower_replies` compile to the flower kernels for
# that type only. A search under the other rules never compiles them (docs/core.md,
# "Compiling what a call needs"); a hand with F on a writable table is refused.


def _flower_leads(t, nat, oc, om, sc, n):
    """The leads paying ``F`` of the hand ``nat`` + ``F``, after the ``n`` natural ones."""
    # literal, on purpose: leads compile their own `_flower_moves` (leading a constant), 25% faster
    # on hands holding F than one typed variant for leads and replies (benchmarks/README.md)
    return _flower_moves(t, nat, True, -1, 0, 0, oc, om, sc, n)


def _flower_replies(t, nat, beat_meta, oc, om, sc, n):
    """The replies paying ``F`` of the hand ``nat`` + ``F`` to a move of meta ``beat_meta``
    (the moves of its kind and length above it, then the soft bombs that beat it), after the
    ``n`` natural ones."""
    kind = meta_kind(beat_meta)
    above = meta_rank(beat_meta)
    theirs = t[T_TIERS + kind]
    if theirs == 0:
        n = _flower_moves(t, nat, False, above, kind, meta_length(beat_meta), oc, om, sc, n)
    soft = t[T_TIERS + K_SOFT_BOMB]
    wild = t[T_WILD]
    for x in range(15):
        if (wild >> (4 * x)) & 1 and (nat >> (4 * x)) & 15 >= 3 and (
                soft > theirs or (soft == theirs and x > above)):
            n = _emit(oc, om, n, (3 << (4 * x)) + _F_BIT,
                      K_SOFT_BOMB + 32 * (x + 1) + 1024 + READING * (x + 1))
    return n


class FlowerTableError(RulesError):
    """A hand holding the flower card ``F`` given to the move kernels with a table of a rule
    set without it (or a writable copy of the wildcard table: `core_table` makes it read-only)."""


def _flower_table(t) -> bool:
    """Whether numba's type ``t`` is the flower card's table (read-only, `core_table`)."""
    return isinstance(t, types.Array) and not t.mutable


_NO_FLOWER = "a hand holds F, but the table is not the flower card's (read-only) core_table"


@overload(_flower_leads, inline="always")
def _flower_leads_typed(t, nat, oc, om, sc, n):
    if _flower_table(t):
        return _flower_leads

    def refuse(t, nat, oc, om, sc, n):
        if n >= 0:                          # always (a count): the return types the call an int
            raise FlowerTableError(_NO_FLOWER)
        return n
    return refuse


@overload(_flower_replies, inline="always")
def _flower_replies_typed(t, nat, beat_meta, oc, om, sc, n):
    if _flower_table(t):
        return _flower_replies

    def refuse(t, nat, beat_meta, oc, om, sc, n):
        if n >= 0:
            raise FlowerTableError(_NO_FLOWER)
        return n
    return refuse


@njit(cache=True)
def lead_moves(t, bits, oc, om, sc):
    """Every leading move of packed hand ``bits``, in `MoveGenerator.leading`'s order; with
    ``F``, the natural moves so, then the moves paying ``F`` (see above); writes (cards,
    meta) into ``oc``/``om`` and returns the count (``sc``: `scratch`)."""
    nat = bits & _NATURAL
    n = _lead_natural(t, nat, oc, om, sc)
    if nat == bits:
        return n
    return _flower_leads(t, nat, oc, om, sc, n)


@njit(cache=True, inline="always")
def _unit_replies(t, bits, beat_meta, oc, om):
    """`_follow_natural` against a unit (solo, pair, trio, bomb: most replies of a game), off
    the slot masks: the units above it, the bombs (against a bomb, those above it only), the
    rocket; -1 when the move to beat is not a unit kind of the rules."""
    kind = meta_kind(beat_meta)
    w = 0
    for u in range(t[T_NUNITS]):
        if t[T_UNITS + 2 * u] == kind:
            w = t[T_UNITS + 2 * u + 1]
    if w == 0:
        return -1
    n = 0
    r = meta_rank(beat_meta) + 1
    m = _at_least(bits, w) >> (4 * r)
    while m:
        if m & 1:
            n = _emit(oc, om, n, w << (4 * r), kind + 32 * (r + 1) + 1024)
        m >>= 4
        r += 1
    b = _at_least(bits, 4) & t[T_QUAD_SLOTS] if kind != K_BOMB else 0
    r = 0
    while b:
        if b & 1:
            n = _emit(oc, om, n, 4 << (4 * r), K_BOMB + 32 * (r + 1) + 1024)
        b >>= 4
        r += 1
    if t[T_ROCKET] and (bits >> (4 * _RB)) & 15 and (bits >> (4 * _RR)) & 15:
        n = _emit(oc, om, n, (1 << (4 * _RB)) + (1 << (4 * _RR)), K_ROCKET + 32 * (_RB + 1) + 1024)
    return n


@njit(cache=True)
def follow_moves(t, bits, beat_cards, beat_meta, oc, om, sc):
    """Every reply of packed hand ``bits`` to the move (``beat_cards``, ``beat_meta``), then
    pass, in `MoveGenerator.following`'s order; with ``F``, the natural replies so, then the
    replies paying ``F`` (see above) and the soft bombs that beat the move, then pass
    (``sc``: `scratch`)."""
    nat = bits & _NATURAL
    n = _unit_replies(t, nat, beat_meta, oc, om)
    if n < 0:
        n = _follow_natural(t, nat, beat_cards, beat_meta, oc, om, sc)
    if nat != bits:
        n = _flower_replies(t, nat, beat_meta, oc, om, sc, n)
    return _emit(oc, om, n, 0, 0)


def compiled_moves(bits: int, rules: Rules, to_beat: Optional[Move] = None) -> list[Move]:
    """The compiled generator's list as `Move` values (for tests and checks: a search keeps
    moves as (cards, meta) pairs)."""
    t = core_table(rules)
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    if to_beat is None or to_beat.is_pass:
        n = lead_moves(t, bits, oc, om, scratch())
    else:
        cards, meta = encode(to_beat)
        n = follow_moves(t, bits, cards, meta, oc, om, scratch())
    return [decode(int(x), int(y)) for x, y in zip(oc[:n], om[:n])]


__all__ = ["supports", "core_table", "encode", "decode", "lead_moves", "follow_moves", "compiled_moves",
           "scratch", "MAX_MOVES", "READING", "meta_reading", "is_bomb_kind"]
