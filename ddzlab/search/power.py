"""Compiled hand power: `ddzlab.analysis.power`'s best-split recursion as kernels.

The power of a hand is the largest total power of a split into plays (the seed's p(cards),
see `ddzlab.analysis.power`). `PowerSolver` memoises it on the sub-hands of one hand; here
the memo is an open-addressing hash table over packed hands (``int64`` keys), shared by
every hand of a rule set and `PowerConstants`: p(bits) depends on nothing else, because
the plays of a sub-hand are exactly the plays of the hand that fit in it.

The plays of a hand come from the compiled generator (`ddzlab.moves.compiled.lead_moves`:
no second enumeration), reordered by a stable sort into the order `MoveGenerator.collect`
lists them (the kinds in rule-set order, then main rank, then chain length; the kicker
sets keep the generator's order); under the wildcard rules, whose flower card `collect`
cannot hold, they keep `lead_moves`' order (the plays of every reading of ``F``: a hand with
``F`` is worth the best of its readings, as `PowerSolver`'s). That order matters only to
`split`, which, like `PowerSolver.split`, takes the first play in that order that reaches the
power (docs/core.md, "Rollouts", says how the checks compare the wildcard order). A play's
power comes from a table filled by `ddzlab.analysis.power.move_power` itself (`table`), so
the sums are the same floating-point sums as the Python solver's.

The recursion is iterative (numba's on-disk cache cannot reload recursive kernels).

Limits, the Python solver's: the `solver` handle refuses a hand of more than
`MAX_POWER_CARDS` cards up front, and one `power` call raises `SearchLimitError` (a
ValueError) when it would memoise its `MAX_POWER_STATES`-th new sub-hand (the limit is the
context's ``limit``). A cold call therefore refuses exactly where a fresh `PowerSolver` with
the same ``max_states`` does (both memoise the same sub-hands; the Python memo also holds
the empty hand). The compiled memo is a cache shared by many hands and emptied when nearly
full, so its memory is fixed by ``memo_bits`` and the budget counts the work of one call,
recomputations after an emptying included. A refused call empties the memo (a cache: no
later answer changes), so the same call is refused again, as `PowerSolver`'s is.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, Sequence

import numpy as np
from numba import njit

from ..analysis.power import (MAX_POWER_STATES, SEED_POWER, PowerConstants, move_power,
                              refuse_large_hand)
from ..errors import RulesError, SearchLimitError
from ..moves import Move
from ..moves.compiled import MAX_MOVES, T_WILD, core_table, lead_moves, meta_kind, meta_length, meta_rank
from ..rules import KIND_SHAPE, Kind, Rules

#: kinds and main ranks the power table covers (`Kind` values are below 32, ranks below 15)
N_KINDS, MAX_LEN = 32, 21
#: log2 of the memo's slots (2**20: 16 MB); it is emptied when half full
MEMO_BITS = 20
#: the guard bits of the SWAR containment test: bit 3 of each rank's nibble, bit 1 of the flower
#: card's (slot 15 holds at most one card, and its bit 3 would be the sign bit of an ``int64``)
_GUARD = sum(8 << (4 * r) for r in range(15)) + (2 << (4 * 15))
#: the entries of a ``start`` array: one per slot (16, the flower card's included) and an end
STARTS = 17
_HASH = np.uint64(0x9E3779B97F4A7C15)


class PowerTables(NamedTuple):
    """What the power kernels read for one rule set and `PowerConstants` (see `context`)."""
    ptab: np.ndarray      # float64 [kind, rank, length]: move_power of that play
    kgroup: np.ndarray    # int64 [kind]: its place in `MoveGenerator.collect`'s kind order
    keys: np.ndarray      # int64 memo keys (0: empty slot)
    vals: np.ndarray      # float64 memo values
    filled: np.ndarray    # int64 [1]: filled slots
    limit: np.ndarray     # int64 [1]: one `power` call memoises fewer new sub-hands than this


def _groups_by_kind(rules: Rules) -> dict[Kind, int]:
    """Kicker groups of a play of each attachment kind, per chain length: ``per_unit`` × length."""
    return {a.kind: a.per_unit for a in rules.attachments}


@lru_cache(maxsize=None)
def _shared_tables(rules: Rules, constants: PowerConstants) -> tuple[np.ndarray, np.ndarray]:
    ptab = np.full((N_KINDS, 15, MAX_LEN), np.nan)
    per_unit = _groups_by_kind(rules)
    order: list[Kind] = list(rules.units) + [Kind.ROCKET] + [c.kind for c in rules.chains] \
        + [a.kind for a in rules.attachments]
    if rules.wildcard is not None:          # a four made with F (its kind group is never sorted on)
        order.append(Kind.SOFT_BOMB)
    if len(set(order)) != len(order):
        raise RulesError(f"the {rules.name} rules name a kind twice: no compiled hand power")
    kgroup = np.full(N_KINDS, 99, dtype=np.int64)
    for i, kind in enumerate(order):
        kgroup[int(kind)] = i
        lengths: Sequence[int] = [1]
        spec = rules.chain(kind)
        if spec is not None:
            lengths = range(spec.min_len, spec.max_len + 1)
        att = next((a for a in rules.attachments if a.kind == kind), None)
        if att is not None:
            lengths = range(att.min_units, att.max_units + 1)
        for rank in range(15):
            for n in lengths:
                if n < MAX_LEN:
                    # a play with these (kind, rank, length) has per_unit * n kicker groups:
                    # `move_power` reads them from its cards, so give it such cards
                    groups = per_unit.get(kind, 0) * n
                    ptab[int(kind), rank, n] = _power_of(kind, rank, n, groups, constants)
    return ptab, kgroup


def _power_of(kind: Kind, rank: int, length: int, groups: int, constants: PowerConstants) -> float:
    """`move_power` of a play of this shape (cards built only as far as `move_power` reads them)."""
    if kind == Kind.ROCKET:
        return move_power(Move(kind, rank, 1, 0), constants)
    width, step = KIND_SHAPE[kind]
    main = sum(width << (4 * (rank + i * step)) for i in range(length) if rank + i * step < 15)
    kicker_width = 2 if kind in (Kind.TRIO_PAIR, Kind.PLANE_PAIR, Kind.FOUR_TWO_PAIR, Kind.QUAD_CHAIN_PAIR) else 1
    # kicker cards on the lowest ranks outside the main part (only their count matters)
    kick, r = 0, 0
    for _ in range(groups):
        while rank <= r < rank + length * step:
            r += 1
        kick += kicker_width << (4 * (r % 15))
        r += 1
    return move_power(Move(kind, rank, length, main + kick), constants)


def context(rules: Rules, constants: PowerConstants = SEED_POWER, memo_bits: int = MEMO_BITS,
            max_states: int = MAX_POWER_STATES) -> PowerTables:
    """Fresh power tables with an empty memo (one per searching agent: the memo is its own);
    a `power` call past ``max_states`` sub-hands raises `SearchLimitError` (module docstring)."""
    core_table(rules)                       # refuses the rule sets the compiled core does not play
    ptab, kgroup = _shared_tables(rules, constants)
    size = 1 << memo_bits
    return PowerTables(ptab, kgroup, np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.float64),
                       np.zeros(1, dtype=np.int64), np.array([max_states], dtype=np.int64))


@njit(cache=True, inline="always")
def play_power(ptab, meta):
    """`move_power` of the play with this meta (pass: 0)."""
    kind = meta_kind(meta)
    if kind == 0:
        return 0.0
    return ptab[kind, meta_rank(meta), meta_length(meta)]


@njit(cache=True, inline="always")
def low_rank(bits):
    """The lowest slot a packed hand holds (15: the flower card alone)."""
    r = 0
    while not (bits >> (4 * r)) & 15:
        r += 1
    return r


@njit(cache=True)
def hand_plays(t, pt, bits, pc, pm, pp, start, sc):
    """Every play of ``bits`` into ``pc``/``pm``/``pp`` (cards, meta, power), grouped by the
    lowest slot they hold; ``start[r]`` .. ``start[r + 1]`` is slot r's group (``start``:
    `STARTS` entries). Each group is in `MoveGenerator.collect`'s order, or under the wildcard
    rules in `lead_moves`' order (the flower card's plays have no `collect` order: the Python
    solver's twin takes the plays in the order of the list it is given). Returns the count."""
    n = lead_moves(t, bits, pc, pm, sc)
    wild = t[T_WILD] != 0
    key = np.empty(n, dtype=np.int64)
    for i in range(n):
        meta = pm[i]
        if wild:
            key[i] = low_rank(pc[i])
        else:
            key[i] = (((low_rank(pc[i]) * 64 + pt.kgroup[meta_kind(meta)]) * 32 + (meta_rank(meta) + 1)) * 32
                      + meta_length(meta))
    order = np.argsort(key, kind="mergesort")
    tc = pc[:n].copy()
    tm = pm[:n].copy()
    for j in range(STARTS):
        start[j] = n
    for j in range(n - 1, -1, -1):
        i = order[j]
        pc[j] = tc[i]
        pm[j] = tm[i]
        pp[j] = play_power(pt.ptab, tm[i])
        start[low_rank(tc[i])] = j
    for j in range(STARTS - 2, -1, -1):     # slots without a play start where the next does
        if start[j] > start[j + 1]:
            start[j] = start[j + 1]
    return n


@njit(cache=True, inline="always")
def _slot(keys, bits):
    """The memo slot of ``bits``: its own, or the empty one where it would go."""
    mask = keys.shape[0] - 1
    i = int((np.uint64(bits) * _HASH) >> np.uint64(40)) & mask
    while keys[i] != 0 and keys[i] != bits:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def power(pt, bits, pc, pp, start):
    """p(bits) of a sub-hand of the hand whose plays `hand_plays` wrote (memoised in ``pt``);
    `SearchLimitError` past ``pt.limit`` new sub-hands."""
    if bits == 0:
        return 0.0
    keys, vals = pt.keys, pt.vals
    i = _slot(keys, bits)
    if keys[i] == bits:
        return vals[i]
    if pt.filled[0] * 2 > keys.shape[0]:     # half full: start again (only between calls)
        keys[:] = 0
        pt.filled[0] = 0
    # an explicit stack of frames: (sub-hand, next play to try, best so far)
    sbits = np.empty(64, dtype=np.int64)
    snext = np.empty(64, dtype=np.int64)
    sbest = np.empty(64, dtype=np.float64)
    d = 0
    sbits[0], snext[0], sbest[0] = bits, start[low_rank(bits)], -1e18
    ret = 0.0
    returning = False
    stored = 0                              # new sub-hands memoised by this call
    while d >= 0:
        b = sbits[d]
        j = snext[d]
        if returning:                      # the child of play j-1 just returned ``ret``
            v = pp[j - 1] + ret
            if v > sbest[d]:
                sbest[d] = v
            returning = False
        end = start[low_rank(b) + 1]
        big = b | _GUARD
        pushed = False
        while j < end:
            cards = pc[j]
            j += 1
            if (big - cards) & _GUARD == _GUARD:
                rest = b - cards
                if rest == 0:
                    v = pp[j - 1]
                else:
                    s = _slot(keys, rest)
                    if keys[s] != rest:
                        snext[d] = j
                        d += 1
                        sbits[d], snext[d], sbest[d] = rest, start[low_rank(rest)], -1e18
                        pushed = True
                        break
                    v = pp[j - 1] + vals[s]
                if v > sbest[d]:
                    sbest[d] = v
        if pushed:
            continue
        ret = sbest[d]
        stored += 1
        if stored >= pt.limit[0]:           # PowerSolver's test: its memo holds the empty hand too
            keys[:] = 0                     # drop the partial work: a retry is refused again
            pt.filled[0] = 0
            raise SearchLimitError("the compiled hand power search reached its limit of sub-hands "
                                   "(MAX_POWER_STATES): the hand is too large for it")
        if pt.filled[0] * 4 > keys.shape[0] * 3:     # nearly full: the memo is only a cache
            keys[:] = 0
            pt.filled[0] = 0
        s = _slot(keys, b)
        keys[s] = b
        vals[s] = ret
        pt.filled[0] += 1
        d -= 1
        returning = True
    return ret


@njit(cache=True)
def split(pt, bits, pc, pm, pp, start, oc, om):
    """`PowerSolver.split`: the best split of ``bits`` into ``oc``/``om``; returns its length."""
    k = 0
    while bits:
        target = power(pt, bits, pc, pp, start)
        big = bits | _GUARD
        low = low_rank(bits)
        found = False
        for j in range(start[low], start[low + 1]):
            cards = pc[j]
            if (big - cards) & _GUARD == _GUARD and pp[j] + power(pt, bits - cards, pc, pp, start) == target:
                oc[k] = cards
                om[k] = pm[j]
                k += 1
                bits -= cards
                found = True
                break
        if not found:       # the power is a max over these very sums: unreachable unless the tables disagree
            raise RuntimeError("split: no play of the lowest rank reaches the hand's power")
    return k


def solver(rules: Rules, constants: PowerConstants = SEED_POWER, max_states: int = MAX_POWER_STATES):
    """A Python handle on the kernels for tests and one-off use: ``f(bits) -> (power, split
    as (cards, meta) pairs)`` (a search calls the kernels directly). ``f`` refuses a hand of
    more than `MAX_POWER_CARDS` cards up front and a search past ``max_states`` sub-hands
    with `SearchLimitError`, as `ddzlab.analysis.hand_power` does."""
    t = core_table(rules)
    pt = context(rules, constants, memo_bits=16, max_states=max_states)
    pc, pm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    pp, start = np.empty(MAX_MOVES, dtype=np.float64), np.empty(STARTS, dtype=np.int64)
    oc, om = np.empty(64, dtype=np.int64), np.empty(64, dtype=np.int64)
    sc = np.empty(48, dtype=np.int64)

    def run(bits: int) -> tuple[float, list[tuple[int, int]]]:
        refuse_large_hand(bits)
        hand_plays(t, pt, bits, pc, pm, pp, start, sc)
        p = power(pt, bits, pc, pp, start)
        k = split(pt, bits, pc, pm, pp, start, oc, om)
        return float(p), [(int(oc[i]), int(om[i])) for i in range(k)]
    return run


__all__ = ["STARTS", "PowerTables", "context", "hand_plays", "power", "split", "play_power", "solver"]
