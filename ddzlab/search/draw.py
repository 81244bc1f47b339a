"""One uniformly random legal move without listing them all: the random rollout's step.

A random rollout needs one move of the legal list, drawn uniformly, not the list. For the
common positions the list's length and its i-th move follow from the hand's slot masks
(`ddzlab.moves.compiled._at_least`) in the list's own order:

* a reply to a unit (solo, pair, trio, bomb; most replies of a game): the units above it, the
  bombs (against a bomb, none but the units above it), the rocket, the pass
  (`ddzlab.moves.compiled._unit_replies`' order);
* a lead of a hand whose kicker moves are trios or quads with one kicker (no quad with two
  kickers, no plane): the units and chains of each width, the rocket after the solos, then
  those kicker moves (`ddzlab.moves.compiled._lead_natural`'s order).

The step draws ``int(random() * n)`` with ``n`` the list's length, as `ddzlab.search.policies.choose`
does for the random policy on the whole list, and plays that index's move: the same draw and
the same move, so a seeded rollout plays the same game either way. Every other position (a
hand with the flower card ``F``, a reply to a chain or a kicker move, a lead with a quad's two
kickers or a plane) lists its moves as before. tests/search/test_draw.py holds the counts and
the picked moves equal to the lists on random positions of every rule set.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..moves.compiled import (A_FIELDS, C_FIELDS, K_BOMB, K_ROCKET, T_ATTACH, T_CHAINS, T_CHAIN_SLOTS, T_NATTACH,
                              T_NCHAINS, T_NUNITS, T_QUAD_SLOTS, T_ROCKET, T_UNITS, _NATURAL, _RB, _RR, _at_least,
                              _has_run, _run_from, meta_kind, meta_rank)
from .state import S_HAND, S_LAST_META, S_TO_ACT, legal, play, size_of

_ROCKET_CARDS = (1 << (4 * _RB)) + (1 << (4 * _RR))
_ROCKET_META = K_ROCKET + 32 * (_RB + 1) + 1024


@njit(cache=True, inline="always")
def _slot(mask, i):
    """The rank of the ``i``-th slot (from 0, lowest first) set in a slot mask."""
    r = 0
    while True:
        if mask & 1:
            if i == 0:
                return r
            i -= 1
        mask >>= 4
        r += 1


@njit(cache=True, inline="always")
def _unit_width(t, kind):
    """The width of unit kind ``kind`` in the rules (0: not a unit kind)."""
    w = 0
    for u in range(t[T_NUNITS]):
        if t[T_UNITS + 2 * u] == kind:
            w = t[T_UNITS + 2 * u + 1]
    return w


@njit(cache=True, inline="always")
def reply_parts(t, bits, meta):
    """The reply list of natural hand ``bits`` to a unit ``meta`` in its three parts, in its
    order: (width, kind, units, above, bombs, rocket). ``units``: the slot mask, shifted down
    by ``above``, of the ranks above the move held ``width`` times, each a reply of ``kind``;
    ``bombs``: the slot mask of the bombs (0 against a bomb, whose betters are its units);
    ``rocket``: whether the rocket follows them; the pass ends the list. ``width`` 0: the move
    to beat is not a unit kind (list the replies then)."""
    kind = meta_kind(meta)
    w = _unit_width(t, kind)
    above = meta_rank(meta) + 1
    units = _at_least(bits, w) >> (4 * above) if w else 0
    bombs = _at_least(bits, 4) & t[T_QUAD_SLOTS] if w and kind != K_BOMB else 0
    rocket = w > 0 and t[T_ROCKET] != 0 and (bits >> (4 * _RB)) & 15 != 0 and (bits >> (4 * _RR)) & 15 != 0
    return w, kind, units, above, bombs, rocket


@njit(cache=True, inline="always")
def reply_count(t, bits, meta):
    """The length of the reply list of natural hand ``bits`` to a unit ``meta``, the pass
    included; 0 when the move to beat is not a unit kind (list the replies then)."""
    w, _, units, _, bombs, rocket = reply_parts(t, bits, meta)
    if w == 0:
        return 0
    return size_of(units) + size_of(bombs) + (1 if rocket else 0) + 1


@njit(cache=True, inline="always")
def reply_pick(t, bits, meta, i):
    """(cards, meta) of reply ``i`` of `reply_count`'s list."""
    w, kind, units, above, bombs, rocket = reply_parts(t, bits, meta)
    k = size_of(units)
    if i < k:
        r = above + _slot(units, i)
        return w << (4 * r), kind + 32 * (r + 1) + 1024
    i -= k
    k = size_of(bombs)
    if i < k:
        r = _slot(bombs, i)
        return 4 << (4 * r), K_BOMB + 32 * (r + 1) + 1024
    i -= k
    if i == 0 and rocket:
        return _ROCKET_CARDS, _ROCKET_META
    return 0, 0


@njit(cache=True, inline="always")
def _kicker_pool(t, o, bits):
    """The kicker ranks of a unit attachment with one kicker, as a slot mask (before the main
    part's own rank is taken out); -1: the attachment has more kickers."""
    kw = t[o + 3]
    if t[o + 4] != 1:
        return -1
    if t[o + 7] and kw > 1:
        return 0
    return _at_least(bits, kw)


@njit(cache=True, inline="always")
def _lead_walk(t, bits, i):
    """Walk the leading list of natural hand ``bits`` in its order, without listing it:
    (cards, meta, 0) of lead ``i``, or (0, 0, ``i`` minus the list's length) when ``i`` lies
    past its end. Quads with two kickers and planes are not walked (`_listed_leads`)."""
    for w in range(1, 5):
        held = _at_least(bits, w)
        if w >= 3 and held == 0:
            break
        for u in range(t[T_NUNITS]):
            if t[T_UNITS + 2 * u + 1] == w:
                k = size_of(held)
                if i < k:
                    r = _slot(held, i)
                    return w << (4 * r), t[T_UNITS + 2 * u] + 32 * (r + 1) + 1024, 0
                i -= k
                break
        cm = held & t[T_CHAIN_SLOTS]
        for ch in range(t[T_NCHAINS]):
            o = T_CHAINS + C_FIELDS * ch
            if t[o + 1] != w:
                continue
            kind, step, lo, hi = t[o], t[o + 2], t[o + 3], t[o + 4]
            if not _has_run(cm, lo, step):
                continue
            starts = cm & ~(cm << (4 * step))
            s = 0
            while starts >> (4 * s):
                if (starts >> (4 * s)) & 1:
                    run = _run_from(cm, s, step)
                    for m in range(lo, min(run, hi) + 1):
                        if i < run - m + 1:
                            part = 0
                            for q in range(m):
                                part += w << (4 * step * q)
                            r = s + i * step
                            return part << (4 * r), kind + 32 * (r + 1) + 1024 * m, 0
                        i -= run - m + 1
                s += 1
        if w == 1 and t[T_ROCKET] and (bits >> (4 * _RB)) & 15 and (bits >> (4 * _RR)) & 15:
            if i == 0:
                return _ROCKET_CARDS, _ROCKET_META, 0
            i -= 1
    if _at_least(bits, 3) == 0:
        return 0, 0, i
    for a in range(t[T_NATTACH]):
        o = T_ATTACH + A_FIELDS * a
        width = t[o + 1]
        held = _at_least(bits, width)
        if held == 0 or not t[o + 8]:
            continue
        pool = _kicker_pool(t, o, bits)
        size = size_of(pool)
        m, s = held, 0
        while m:
            if m & 1:
                k = size - ((pool >> (4 * s)) & 1)          # the pool without the main part's rank
                if i < k:
                    kick = pool & ~(15 << (4 * s))
                    return (width << (4 * s)) + (t[o + 3] << (4 * _slot(kick, i))), t[o] + 32 * (s + 1) + 1024, 0
                i -= k
            m >>= 4
            s += 1
    return 0, 0, i


@njit(cache=True, inline="always")
def _listed_leads(t, bits):
    """Whether the leads of natural hand ``bits`` must be listed: it holds a plane's main part
    or a quad with two kickers, which `_lead_walk` does not walk."""
    if _at_least(bits, 3) == 0:
        return False
    for a in range(t[T_NATTACH]):
        o = T_ATTACH + A_FIELDS * a
        held = _at_least(bits, t[o + 1])
        if held == 0:
            continue
        if not t[o + 8]:
            if _has_run(held & t[T_CHAIN_SLOTS], t[o + 5], t[o + 2]):
                return True
        elif _kicker_pool(t, o, bits) < 0:
            return True
    return False


_PAST_END = 1 << 62


@njit(cache=True)
def lead_count(t, bits):
    """The length of the leading list of natural hand ``bits``; 0 when the hand holds a quad
    with two kickers or a plane's main part (list the leads then)."""
    if _listed_leads(t, bits):
        return 0
    return _PAST_END - _lead_walk(t, bits, _PAST_END)[2]


@njit(cache=True)
def lead_pick(t, bits, i):
    """(cards, meta) of lead ``i`` of `lead_count`'s list (``lead_count`` not 0)."""
    cards, meta, _ = _lead_walk(t, bits, i)
    return cards, meta


@njit(cache=True, inline="always")
def random_step(t, st, oc, om, sc):
    """Play a uniformly random legal move at ``st`` (its game in play): ``int(random() * n)``
    of the legal list of ``n`` moves, counted and picked off the masks where it can be
    (`lead_count`, `reply_count`), listed (``oc``, ``om``, ``sc``) where not."""
    hand = st[S_HAND + st[S_TO_ACT]]
    if hand & _NATURAL == hand:
        meta = st[S_LAST_META]
        n = lead_count(t, hand) if meta < 0 else reply_count(t, hand, meta)
        if n > 0:
            i = int(np.random.random() * n)
            if meta < 0:
                cards, m = lead_pick(t, hand, i)
            else:
                cards, m = reply_pick(t, hand, meta, i)
            play(st, cards, m)
            return
    n = legal(t, st, oc, om, sc)
    i = int(np.random.random() * n)
    play(st, oc[i], om[i])


__all__ = ["lead_count", "lead_pick", "reply_parts", "reply_count", "reply_pick", "random_step"]
