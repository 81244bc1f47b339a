"""The `weights` agent's play as a kernel: `ddzlab.agents.weights.WeightsAgent.play`, rule for
rule, on a search state.

Same hand power (`ddzlab.search.power`, the same float sums), same rules in the same order
with the same tie-breaks: `WeightsAgent`'s lazy `_Values.best` (plays sorted by their bound,
stably in legal order; evaluated until no bound can win; ties to the lower rank, then fewer
cards, then the first), ``min``/``max``/``sorted`` as Python breaks their ties (the first in
legal or split order). The `RuleWeights`, the rules switched ``off`` and the rule order come
in as one float array (`ddzlab.agents.weights_compiled.params`), so tuned weights and the
ablations run compiled too. tests/compiled_check.py holds the two equal move for move.

A move is returned as its index in the legal list the caller passes (``oc``/``om``/``n``,
`ddzlab.search.state.legal`'s order); pass is the last entry when following.
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from ..kernels import PARAMS, WEIGHTS_RULES
from ..moves.compiled import (K_ROCKET, MAX_MOVES, SCRATCH, follow_moves, is_bomb_kind, meta_kind, meta_length,
                              meta_rank)
from ..rules import Kind, Rules
from .power import STARTS, hand_plays, power, split
from .state import (S_HAND, S_LAST_META, S_LAST_SEAT, S_LORD, S_PASSES, S_PLAYERS, S_SIZE, S_TO_ACT, S_WINNER,
                    legal, play, size_of, unseen)

# the parameter array (`ddzlab.kernels.PARAMS`): `RuleWeights` fields, then the bit mask of the
# rules switched off
(P_FOLLOW_THRESHOLD, P_HIGH_COST, P_EARLY_CARDS, P_PARTNER_OUT, P_PARTNER_GAIN, P_PARTNER_MAX_RANK, P_GATE_LO,
 P_GATE_HI, P_GATE_BELOW, P_URGENT_CARDS, P_BOMB_THREAT, P_BOMB_REST_PLAYS, P_OFF) = (
    PARAMS.offset(name) for name, _ in PARAMS.fields)
N_PARAMS = PARAMS.size
#: the named rules in the order they are tried (`ddzlab.kernels.WEIGHTS_RULES`)
RULE_ORDER = WEIGHTS_RULES.names
(R_FINISH, R_SPARE, R_GATEKEEPER, R_KEEP_LEAD, R_ONE_CARD, R_SPLIT_TWO, R_FEED, R_URGENT, R_BOMB) = (
    WEIGHTS_RULES.code(name) for name in ("finish", "spare_partner", "gatekeeper", "keep_lead", "one_card_guard",
                                          "split_vs_two", "feed_partner", "urgent_block", "bomb"))

K_SOLO, K_PAIR = int(Kind.SOLO), int(Kind.PAIR)
# what `_beatable` probes for a play with kickers: the kind of its main part (-1 for a
# quad with kickers: only a bomb beats it; 0 for a play without kickers)
_PROBE = np.zeros(32, dtype=np.int64)
for _k, _b in ((Kind.TRIO_SOLO, Kind.TRIO), (Kind.TRIO_PAIR, Kind.TRIO), (Kind.PLANE_SOLO, Kind.TRIO_CHAIN),
               (Kind.PLANE_PAIR, Kind.TRIO_CHAIN), (Kind.QUAD_CHAIN_SOLO, Kind.QUAD_CHAIN),
               (Kind.QUAD_CHAIN_PAIR, Kind.QUAD_CHAIN), (Kind.FOUR_TWO_SOLO, -1), (Kind.FOUR_TWO_PAIR, -1)):
    _PROBE[int(_k)] = int(_b)
K_QUAD_CHAIN = int(Kind.QUAD_CHAIN)
_HIGH = sum(15 << (4 * r) for r in (12, 13, 14))     # the 2s and jokers: the control cost counts them

# predicates of `best` (the lambdas of `WeightsAgent`)
ANY, PLAIN, PARTNER, GATE, NOT_SOLO, NOT_PAIR = range(6)


class Ctx(NamedTuple):
    """One decision: the legal moves, their lazily computed values, the hand's plays."""
    oc: np.ndarray
    om: np.ndarray
    n: int
    val: np.ndarray
    have: np.ndarray
    pc: np.ndarray
    pm: np.ndarray
    pp: np.ndarray
    start: np.ndarray
    hand: int
    base: float
    cost: float


@njit(cache=True, inline="always")
def _bomb(meta):
    """`Move.is_bomb`: a bomb, a soft bomb (wildcard) or the rocket."""
    return is_bomb_kind(meta_kind(meta))


@njit(cache=True)
def _high(cards):
    x = cards & _HIGH
    return ((x >> 48) & 15) + ((x >> 52) & 15) + ((x >> 56) & 15)


@njit(cache=True)
def _value(pt, c, i):
    """The value of legal move ``i``: gain of hand power less the control cost (pass: 0)."""
    if c.have[i]:
        return c.val[i]
    v = 0.0
    if meta_kind(c.om[i]):
        v = power(pt, c.hand - c.oc[i], c.pc, c.pp, c.start) - c.base
        if c.cost != 0.0:
            v -= c.cost * _high(c.oc[i])
    c.val[i] = v
    c.have[i] = True
    return v


@njit(cache=True)
def _pred(meta, code, lo, hi):
    kind = meta_kind(meta)
    if code == NOT_SOLO:
        return kind != K_SOLO and not _bomb(meta)
    if code == NOT_PAIR:
        return kind != K_PAIR and not _bomb(meta)
    if kind == 0:
        return False
    if code == ANY:
        return True
    if _bomb(meta):
        return False
    r = meta_rank(meta)
    return code == PLAIN or lo <= r <= hi


@njit(cache=True)
def best(pt, c, code, lo, hi):
    """`_Values.best`: (index, value) of the move of highest value among those with the
    predicate ``code`` (ties: lower rank, fewer cards, the first), index -1 when none."""
    cand = np.empty(c.n, dtype=np.int64)
    key = np.empty(c.n, dtype=np.float64)
    k = 0
    for i in range(c.n):
        if _pred(c.om[i], code, lo, hi):
            cand[k] = i
            # sorted by -bound = move power, stably: pass has bound 0
            key[k] = pt.ptab[meta_kind(c.om[i]), meta_rank(c.om[i]), meta_length(c.om[i])] if meta_kind(c.om[i]) else -0.0
            k += 1
    order = np.argsort(key[:k], kind="mergesort")
    arg, tv, tr, ts = -1, 0.0, 0, 0
    for j in range(k):
        i = cand[order[j]]
        b = -key[order[j]]
        if arg >= 0 and b < tv:
            break
        v = _value(pt, c, i)
        r = meta_rank(c.om[i])
        s = size_of(c.oc[i])
        if arg < 0 or v > tv or (v == tv and (r < tr or (r == tr and s < ts))):
            arg, tv, tr, ts = i, v, r, s
    return arg, tv


@njit(cache=True)
def _beatable(t, st, cards, meta, most, fc, fm, sc):
    """`WeightsAgent._beatable`: whether the unseen cards hold a non-bomb reply to the play
    small enough for an enemy's hand (a play with kickers is judged by its main part)."""
    if size_of(cards) > most:
        return False
    hidden = unseen(t, st, st[S_TO_ACT])
    pc, pm = cards, meta
    probe = _PROBE[meta_kind(meta)]
    if probe:                       # judged by the main part, kickers assumed found
        if probe < 0:
            return False
        rank, length = meta_rank(meta), meta_length(meta)
        width = 4 if probe == K_QUAD_CHAIN else 3
        pc = 0
        for q in range(length):
            pc += width << (4 * (rank + q))
        pm = probe + 32 * (rank + 1) + 1024 * length
        if size_of(hidden) < size_of(cards):
            return False
    n = follow_moves(t, hidden, pc, pm, fc, fm, sc)
    for i in range(n):
        if meta_kind(fm[i]) and not _bomb(fm[i]) and size_of(fc[i]) <= most:
            return True
    return False


@njit(cache=True)
def _split_rest(pt, c, bits, xc, xm):
    return split(pt, bits, c.pc, c.pm, c.pp, c.start, xc, xm)


@njit(cache=True)
def _find(c, cards, meta):
    for i in range(c.n):
        if c.oc[i] == cards and c.om[i] == meta:
            return i
    return -1


@njit(cache=True)
def choose_weights(t, pt, w, st, oc, om, n):
    """Index of `WeightsAgent.play`'s move among the ``n`` legal moves of the seat to act
    (``t``: the core table, ``pt``: `ddzlab.search.power.context`, ``w``: the parameters)."""
    me = st[S_TO_ACT]
    players = st[S_PLAYERS]
    lord = st[S_LORD]
    hand = st[S_HAND + me]
    pc = np.empty(MAX_MOVES, dtype=np.int64)
    pm = np.empty(MAX_MOVES, dtype=np.int64)
    pp = np.empty(MAX_MOVES, dtype=np.float64)
    start = np.empty(STARTS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    hand_plays(t, pt, hand, pc, pm, pp, start, sc)
    base = power(pt, hand, pc, pp, start)
    enemy = np.zeros(3, dtype=np.bool_)
    partner = -1
    if lord < 0 or me == lord:
        for s in range(players):
            enemy[s] = s != me
    else:
        enemy[lord] = True
        for s in range(players):
            if s != me and s != lord:
                partner = s
                break
    fewest, most = 99, 0
    for s in range(players):
        if enemy[s]:
            fewest = min(fewest, st[S_SIZE + s])
            most = max(most, st[S_SIZE + s])
    following = st[S_LAST_META] >= 0
    last_seat = st[S_LAST_SEAT]
    last_meta = st[S_LAST_META]
    cost = w[P_HIGH_COST] if following and fewest > w[P_EARLY_CARDS] else 0.0
    c = Ctx(oc, om, n, np.empty(n, dtype=np.float64), np.zeros(n, dtype=np.bool_), pc, pm, pp, start, hand,
            base, cost)
    off = int(w[P_OFF])
    xc = np.empty(64, dtype=np.int64)
    xm = np.empty(64, dtype=np.int64)
    fc = np.empty(MAX_MOVES, dtype=np.int64)
    fm = np.empty(MAX_MOVES, dtype=np.int64)
    up = players == 3 and lord >= 0 and (me - lord + 3) % 3 == 2
    for rule in range(9):
        if off >> rule & 1 or (following and (rule == R_KEEP_LEAD or rule == R_FEED)):
            continue
        if rule == R_FINISH:
            for i in range(n):
                if meta_kind(om[i]) and oc[i] == hand:
                    return i
        elif rule == R_SPARE:
            if partner < 0 or last_seat != partner or not following:
                continue
            if st[S_SIZE + partner] <= w[P_PARTNER_OUT]:
                return n - 1
            if st[S_PASSES] >= 1 and (me - 1 + players) % players == lord:     # the landlord passed
                return n - 1
            if not off >> R_GATEKEEPER & 1 and _gate(pt, c, w, st, up, partner) >= 0:
                continue                                                  # the gatekeeper answers
            i, v = best(pt, c, PARTNER, -1, int(w[P_PARTNER_MAX_RANK]))
            return i if i >= 0 and v >= w[P_PARTNER_GAIN] else n - 1
        elif rule == R_GATEKEEPER:
            i = _gate(pt, c, w, st, up, partner)
            if i >= 0:
                return i
        elif rule == R_KEEP_LEAD:
            k = _split_rest(pt, c, hand, xc, xm)
            free, bombs, arg = 0, 0, -1
            for j in range(k):
                if _bomb(xm[j]):
                    bombs += 1
                elif not _beatable(t, st, xc[j], xm[j], most, fc, fm, sc):
                    free += 1
                    if arg < 0 or (size_of(xc[j]), meta_rank(xm[j])) > (size_of(xc[arg]), meta_rank(xm[arg])):
                        arg = j
            if free and k - free - bombs <= 1:
                return _find(c, xc[arg], xm[arg])
        elif rule == R_ONE_CARD:
            if fewest != 1:
                continue
            if not following:
                i, _ = best(pt, c, NOT_SOLO, 0, 0)
                if i >= 0:
                    return i
                safe, top = -1, -1
                for j in range(n):
                    if meta_kind(om[j]) == K_SOLO:
                        if top < 0 or meta_rank(om[j]) > meta_rank(om[top]):
                            top = j
                        if (safe < 0 or meta_rank(om[j]) < meta_rank(om[safe])) and not _beatable(
                                t, st, oc[j], om[j], most, fc, fm, sc):
                            safe = j
                return safe if safe >= 0 else top
            if meta_kind(last_meta) == K_SOLO and enemy[last_seat]:
                top = _top_of(c, K_SOLO)
                if top >= 0:
                    return top
        elif rule == R_SPLIT_TWO:
            if fewest != 2:
                continue
            if not following:
                i, _ = best(pt, c, ANY, 0, 0)
                if meta_kind(om[i]) != K_PAIR:
                    continue
                i, _ = best(pt, c, NOT_PAIR, 0, 0)
                if i >= 0:
                    return i
                continue
            if meta_kind(last_meta) == K_PAIR and enemy[last_seat]:
                top = _top_of(c, K_PAIR)
                if top >= 0:
                    return top
        elif rule == R_FEED:
            if partner < 0 or partner != (me + 1) % players:
                continue
            left = st[S_SIZE + partner]
            kind = K_SOLO if left == 1 else K_PAIR if left == 2 else -1
            low = -1
            for j in range(n):
                if meta_kind(om[j]) == kind and (low < 0 or meta_rank(om[j]) < meta_rank(om[low])):
                    low = j
            if low >= 0:
                return low
        elif rule == R_URGENT:
            if not following or not enemy[last_seat] or st[S_SIZE + last_seat] > w[P_URGENT_CARDS]:
                continue
            i, _ = best(pt, c, PLAIN, 0, 0)
            if i >= 0:
                return i
        else:
            i = _bomb_rule(pt, c, w, st, following, enemy, xc, xm)
            if i >= 0:
                return i
    if following:
        i, v = best(pt, c, PLAIN, 0, 0)
        return i if i >= 0 and v >= w[P_FOLLOW_THRESHOLD] else n - 1
    i, _ = best(pt, c, ANY, 0, 0)
    return i


@njit(cache=True)
def _top_of(c, kind):
    """The legal move of ``kind`` of highest rank (the first), or -1."""
    top = -1
    for j in range(c.n):
        if meta_kind(c.om[j]) == kind and (top < 0 or meta_rank(c.om[j]) > meta_rank(c.om[top])):
            top = j
    return top


@njit(cache=True)
def _gate(pt, c, w, st, up, partner):
    """`WeightsAgent._gate`: the upstream farmer's gate card on its partner's small solo or pair."""
    meta = st[S_LAST_META]
    kind = meta_kind(meta)
    if (partner < 0 or not up or st[S_LAST_SEAT] != partner or meta < 0 or (kind != K_SOLO and kind != K_PAIR)
            or meta_rank(meta) >= w[P_GATE_BELOW] or st[S_SIZE + partner] <= w[P_PARTNER_OUT]):
        return -1
    i, _ = best(pt, c, GATE, int(w[P_GATE_LO]), int(w[P_GATE_HI]))
    return i


@njit(cache=True)
def _bomb_rule(pt, c, w, st, following, enemy, xc, xm):
    """`WeightsAgent._bomb`: bomb a nearly empty enemy, or when the rest is few plays."""
    nb = 0
    bombs = np.empty(c.n, dtype=np.int64)
    for i in range(c.n):
        if _bomb(c.om[i]):
            bombs[nb] = i
            nb += 1
    if nb == 0:
        return -1
    if following:
        last = st[S_LAST_SEAT]
        if not enemy[last]:
            return -1
        if st[S_SIZE + last] <= w[P_BOMB_THREAT]:
            low = -1
            for j in range(nb):
                i = bombs[j]
                key = (1 if meta_kind(c.om[i]) == K_ROCKET else 0, meta_rank(c.om[i]))
                if low < 0 or key < (1 if meta_kind(c.om[low]) == K_ROCKET else 0, meta_rank(c.om[low])):
                    low = i
            return low
    neg = np.empty(nb, dtype=np.float64)
    for j in range(nb):
        neg[j] = -_value(pt, c, bombs[j])
    order = np.argsort(neg, kind="mergesort")
    for j in range(nb):
        i = bombs[order[j]]
        k = _split_rest(pt, c, c.hand - c.oc[i], xc, xm)
        plays = 0
        for q in range(k):
            if not _bomb(xm[q]):
                plays += 1
        if plays <= w[P_BOMB_REST_PLAYS]:
            return i
    return -1


@lru_cache(maxsize=None)
def stand_in(rules: Rules) -> tuple[None, np.ndarray]:
    """(power tables, parameters) for kernels that take the weights policy's inputs but run
    another policy: no tables (numba then drops the weights branch before typing, so such a
    kernel never compiles the weights policy) and a parameter array never read. ``rules`` is
    the rule set the kernel plays (the same stand-in serves all)."""
    return None, np.zeros(N_PARAMS)


@njit(cache=True)
def play_out(t, pt, w, st, moves):
    """Play ``st`` to the end with the weights play in every seat; the moves chosen go into
    ``moves`` (rows of (cards, meta)); returns how many."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    k = 0
    while st[S_WINNER] < 0:
        n = legal(t, st, oc, om, sc)
        i = choose_weights(t, pt, w, st, oc, om, n)
        moves[k, 0] = oc[i]
        moves[k, 1] = om[i]
        k += 1
        play(st, oc[i], om[i])
    return k


__all__ = ["choose_weights", "play_out", "stand_in", "best", "N_PARAMS", "RULE_ORDER", "P_OFF"]
