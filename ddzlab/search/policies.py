"""Compiled rollout policies: greedy Q(S, a) and its choice, random, halfsolo, weights (the
`weights` agent's play, `ddzlab.search.weights`); a whole rollout; the split move filter and
its variant that also keeps the rollout policy's own move (the prior).

Each kernel is the compiled twin of a Python function named in its docstring, with the
same tie-breaks (the first best in legal order); tests/search/test_compiled.py holds them equal.
Policies are numbered for the kernels: `POLICIES`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..analysis.greedy import MAX_Q
from ..cards import R2
from ..kernels import POLICIES as POLICY_CODES
from ..moves.compiled import (_NATURAL, _RB, _RR, A_FIELDS, C_FIELDS, K_BOMB, SCRATCH, T_ATTACH, T_CHAIN_SLOTS, T_CHAINS,
                              T_NATTACH, T_NCHAINS, T_QUAD_SLOTS, T_ROCKET, T_UNITS, T_NUNITS, _at_least, _has_run, _run_from,
                              is_bomb_kind, meta_kind, meta_length, meta_rank)
from ..rules import Kind
from .draw import _ROCKET_CARDS, _ROCKET_META, _kicker_pool, _listed_leads, random_step, reply_parts
from .weights import choose_weights
from .state import S_HAND, S_LAST_META, S_LAST_SEAT, S_LORD, S_SIZE, S_TO_ACT, S_WINNER, legal, play, size_of

#: rollout policies by name, as the kernels number them (`ddzlab.kernels.POLICIES`)
POLICIES = {name: POLICY_CODES.code(name) for name in POLICY_CODES}
_RANDOM, _HALFSOLO, _WEIGHTS = POLICY_CODES.code("random"), POLICY_CODES.code("halfsolo"), POLICY_CODES.code("weights")
_GREEDY = POLICY_CODES.code("greedy")

#: slots of a greedy-lead memo (`new_lead_memo`): rows of (hand, cards, meta), one more row
#: holding the number of hands stored; emptied when half full
LEAD_MEMO_SLOTS = 1 << 13
_MEMO_MASK = LEAD_MEMO_SLOTS - 1
_MEMO_PROBES = 8
_MIX = 0x9E3779B1        # spreads a hand's bits: 31 bits of it times 32 bits never overflow an int64

_BELOW_2 = sum(1 << (4 * r) for r in range(R2))
_BELOW_2_ALL = _BELOW_2 * 15
_LOW15 = sum(1 << (4 * r) for r in range(15))
_MAX_Q = MAX_Q
K_SOLO = int(Kind.SOLO)


@njit(cache=True, inline="always")
def _longest_run(flags):
    n = 0
    while flags:
        flags &= flags >> 4
        n += 1
    return n


@njit(cache=True, inline="always")
def next_play_size(bits):
    """d(X) (`ddzlab.analysis.greedy.next_play_size`)."""
    b = bits & _BELOW_2_ALL
    f1 = (b | b >> 1 | b >> 2) & _BELOW_2
    if not f1:
        return 0
    f2 = (b >> 1 | b >> 2) & _BELOW_2
    if b >> 2 & _BELOW_2:
        best = 4
    elif (b & b >> 1) & _BELOW_2:
        best = 3
    elif f2:
        best = 2
    else:
        best = 1
    long1 = _longest_run(f1)
    if long1 >= 5 and long1 > best:
        best = long1
    if f2:
        long2 = _longest_run(f2)
        if long2 >= 3 and 2 * long2 > best:
            best = 2 * long2
    return best


@njit(cache=True, inline="always")
def q_cards(bits, m, size):
    """Q(S, a) (`ddzlab.analysis.greedy.q_cards`)."""
    r = -1 if size < 4 and (bits >> 2) & (m | m >> 1 | m >> 2) & _LOW15 else 0
    rest = bits - m
    if rest == 0:
        return _MAX_Q + size + r
    return size + next_play_size(rest) + r


@njit(cache=True)
def greedy_index(st, oc, om, n):
    """Index of `ddzlab.agents.greedy.greedy_choice` among the ``n`` legal moves of the
    seat to act, with the rollout's facts (partner, the last player down to ≤ 4 cards)."""
    s = st[S_TO_ACT]
    hand = st[S_HAND + s]
    for i in range(n):
        if meta_kind(om[i]) and oc[i] == hand:
            return i
    following = st[S_LAST_META] >= 0
    threat = False
    if following:
        lord, last = st[S_LORD], st[S_LAST_SEAT]
        if lord >= 0 and s != lord and last != lord:
            return n - 1                      # never beat the partner: pass
        threat = st[S_SIZE + last] <= 4
    best, best_q = -1, 0
    most = next_play_size(hand)     # d(rest) <= d(hand): a move's Q is at most its size + most
    for i in range(n):
        kind = meta_kind(om[i])
        if kind == 0 or (following and not threat and is_bomb_kind(kind)):
            continue
        size = size_of(oc[i])
        if best >= 0 and size + most <= best_q:
            continue                # cannot beat the best so far (ties keep the first)
        q = q_cards(hand, oc[i], size)
        if best < 0 or q > best_q:
            best, best_q = i, q
    return n - 1 if best < 0 else best


def new_lead_memo() -> np.ndarray:
    """An empty greedy-lead memo for `rollout` (`LEAD_MEMO_SLOTS` rows and a count row).

    Leading, the greedy policy's move depends on the hand alone (`greedy_index`: the move
    that empties the hand, else the first best Q of the lead list, a function of the hand
    and the rules), so a search remembers it per hand for one rules table: in a search's
    greedy rollouts about half the leads are of a hand led before. Its rows never change a
    choice, only skip recomputing it; a memo must not be shared between rules tables."""
    memo = np.full((LEAD_MEMO_SLOTS + 1, 3), -1, dtype=np.int64)
    memo[LEAD_MEMO_SLOTS, 0] = 0
    return memo


@njit(cache=True, inline="always")
def _memo_find(memo, hand):
    """(cards, meta, -1) of ``hand``'s greedy lead stored in ``memo``, or (-1, -1, slot) when
    it is not there: ``slot`` is where `_memo_store` puts it (-1: nowhere free nearby)."""
    h = ((((hand ^ (hand >> 31)) & 0x7FFFFFFF) * _MIX) >> 30) & _MEMO_MASK
    for probe in range(_MEMO_PROBES):
        j = (h + probe) & _MEMO_MASK
        key = memo[j, 0]
        if key == hand:
            return memo[j, 1], memo[j, 2], -1
        if key < 0:
            return -1, -1, j
    return -1, -1, -1


@njit(cache=True, inline="always")
def _memo_store(memo, slot, hand, cards, meta):
    """Store ``hand``'s greedy lead at ``slot`` (`_memo_find`'s); a memo half full starts again,
    so its probes stay short."""
    if memo[LEAD_MEMO_SLOTS, 0] >= LEAD_MEMO_SLOTS // 2:
        memo[:LEAD_MEMO_SLOTS, 0] = -1
        memo[LEAD_MEMO_SLOTS, 0] = 0
        slot = ((((hand ^ (hand >> 31)) & 0x7FFFFFFF) * _MIX) >> 30) & _MEMO_MASK
    if slot >= 0:
        memo[slot, 0] = hand
        memo[slot, 1] = cards
        memo[slot, 2] = meta
        memo[LEAD_MEMO_SLOTS, 0] += 1


@njit(cache=True)
def _better_reply(hand, cards, meta, partner, threat, most, best_c, best_m, best_q):
    """`_greedy_unit_reply`'s step: (whether ``cards`` empties the hand, the best so far after
    considering (``cards``, ``meta``): cards, meta, Q; ``best_q`` -1: none yet)."""
    if cards == hand:
        return True, cards, meta, best_q
    if partner or (not threat and is_bomb_kind(meta_kind(meta))):
        return False, best_c, best_m, best_q
    size = size_of(cards)
    if best_q >= 0 and size + most <= best_q:
        return False, best_c, best_m, best_q
    q = q_cards(hand, cards, size)
    if best_q < 0 or q > best_q:
        return False, cards, meta, q
    return False, best_c, best_m, best_q


@njit(cache=True, inline="always")
def _better_bomb_reply(hand, bombs, rocket, partner, threat, most, best_c, best_m, best_q):
    """The end of a walked reply list: the bombs of slot mask ``bombs`` by rank, then the
    rocket when ``rocket``, each through `_better_reply`; (cards, meta) of the choice."""
    r = 0
    while bombs:
        if bombs & 1:
            done, best_c, best_m, best_q = _better_reply(hand, 4 << (4 * r), K_BOMB + 32 * (r + 1) + 1024, partner,
                                                         threat, most, best_c, best_m, best_q)
            if done:
                return best_c, best_m
        bombs >>= 4
        r += 1
    if rocket:
        done, best_c, best_m, best_q = _better_reply(hand, np.int64(_ROCKET_CARDS), np.int64(_ROCKET_META), partner,
                                                     threat, most, best_c, best_m, best_q)
    return best_c, best_m


@njit(cache=True, inline="always")
def _greedy_unit_reply(t, st, hand, meta):
    """(cards, meta) of `greedy_index`'s reply to a unit ``meta`` (solo, pair, trio, bomb) of
    the natural ``hand`` of the seat to act, worked out on the parts of
    `ddzlab.search.draw.reply_parts`' list in its order, without writing it; (-1, -1) when
    that list does not apply (list the replies then). The same choice as `greedy_index`:
    the move that empties the hand, else the partner's pass, else the first best Q, bombs
    only against a threat. (The walks pass typed values, not literals, to `_better_reply`:
    numba compiles a kernel once more for each literal it is called with.)"""
    w, kind, units, above, bombs, rocket = reply_parts(t, hand, meta)
    if w == 0:
        return -1, -1
    s = st[S_TO_ACT]
    lord, last = st[S_LORD], st[S_LAST_SEAT]
    partner = lord >= 0 and s != lord and last != lord
    threat = st[S_SIZE + last] <= 4
    most = 0 if partner or not (units or bombs or rocket) else next_play_size(hand)    # (else unread)
    best_c, best_m, best_q = np.int64(0), np.int64(0), np.int64(-1)   # none yet: the pass
    r = above
    while units:
        if units & 1:
            done, best_c, best_m, best_q = _better_reply(hand, w << (4 * r), kind + 32 * (r + 1) + 1024, partner,
                                                         threat, most, best_c, best_m, best_q)
            if done:
                return best_c, best_m
        units >>= 4
        r += 1
    return _better_bomb_reply(hand, bombs, rocket, partner, threat, most, best_c, best_m, best_q)


@njit(cache=True)
def _greedy_chain_reply(t, st, hand, meta):
    """(cards, meta) of `greedy_index`'s reply to a chain or to a trio or quad with one
    kicker ``meta`` of the natural ``hand`` of the seat to act, walked in
    `ddzlab.moves.compiled._follow_natural`'s order (the chains of the move's kind and length
    above it by lowest rank, the main parts above it by rank with their kickers in rank
    order, the bombs, the rocket; the pass last) without writing the list; (-1, -1) for the
    other moves to beat (a unit: `_greedy_unit_reply`; a plane, a quad with two kickers,
    the rocket, a bomb: list the replies then). The same choice as `greedy_index`."""
    kind, above, length = meta_kind(meta), meta_rank(meta), meta_length(meta)
    if kind == 0 or is_bomb_kind(kind):
        return -1, -1
    walked = False
    for ch in range(t[T_NCHAINS]):
        o = T_CHAINS + C_FIELDS * ch
        if t[o] == kind and t[o + 3] <= length <= t[o + 4]:
            walked = True
    for a in range(t[T_NATTACH]):
        o = T_ATTACH + A_FIELDS * a
        if t[o] == kind and t[o + 5] <= length <= t[o + 6]:
            if not t[o + 8] or _kicker_pool(t, o, hand) < 0:
                return -1, -1                   # a plane or more kickers: listed
            walked = True
    if not walked:
        return -1, -1
    s = st[S_TO_ACT]
    lord, last = st[S_LORD], st[S_LAST_SEAT]
    partner = lord >= 0 and s != lord and last != lord
    threat = st[S_SIZE + last] <= 4
    most = 0 if partner else next_play_size(hand)     # (read only when not the partner's move)
    best_c, best_m, best_q = np.int64(0), np.int64(0), np.int64(-1)   # none yet: the pass
    for ch in range(t[T_NCHAINS]):
        o = T_CHAINS + C_FIELDS * ch
        if t[o] != kind or not t[o + 3] <= length <= t[o + 4]:
            continue
        w, step = t[o + 1], t[o + 2]
        cm = _at_least(hand, w) & t[T_CHAIN_SLOTS]
        part = 0
        for q in range(length):
            part += w << (4 * step * q)
        for r in range(above + 1, 15):
            if _run_from(cm, r, step) >= length:
                done, best_c, best_m, best_q = _better_reply(hand, part << (4 * r), kind + 32 * (r + 1) + 1024 * length,
                                                             partner, threat, most, best_c, best_m, best_q)
                if done:
                    return best_c, best_m
    for a in range(t[T_NATTACH]):
        o = T_ATTACH + A_FIELDS * a
        if t[o] != kind or not t[o + 5] <= length <= t[o + 6]:
            continue
        width, kw = t[o + 1], t[o + 3]
        pool = _kicker_pool(t, o, hand)
        m, r = _at_least(hand, width) >> (4 * (above + 1)), above + 1
        while m:
            if m & 1:
                kick, k = pool & ~(15 << (4 * r)), 0
                while kick:
                    if kick & 1:
                        done, best_c, best_m, best_q = _better_reply(
                            hand, (width << (4 * r)) + (kw << (4 * k)), kind + 32 * (r + 1) + 1024, partner, threat,
                            most, best_c, best_m, best_q)
                        if done:
                            return best_c, best_m
                    kick >>= 4
                    k += 1
            m >>= 4
            r += 1
    rocket = t[T_ROCKET] != 0 and (hand >> (4 * _RB)) & 15 != 0 and (hand >> (4 * _RR)) & 15 != 0
    return _better_bomb_reply(hand, _at_least(hand, 4) & t[T_QUAD_SLOTS], rocket, partner, threat, most,
                              best_c, best_m, best_q)


@njit(cache=True)
def _better_lead(hand, cards, meta, fam, most, best_c, best_m, best_q, best_f):
    """`_greedy_lead`'s step: the best lead so far (cards, meta, Q, family) after considering
    (``cards``, ``meta``) of family ``fam``, a family walked after ``best_f`` lying before it
    in the legal order (so it wins a tie), the same family after it (so it loses one). A move
    that empties the hand has the top Q (`q_cards`), so it wins, the first of them in legal
    order; another is skipped when its bound (size + d(hand)) cannot beat the best."""
    size = size_of(cards)
    if cards != hand:
        bound = size + most
        if bound < best_q or (bound == best_q and fam == best_f):
            return best_c, best_m, best_q, best_f
    q = q_cards(hand, cards, size)
    if q > best_q or (q == best_q and fam != best_f):
        return cards, meta, q, fam
    return best_c, best_m, best_q, best_f


@njit(cache=True)
def _greedy_lead(t, hand):
    """(cards, meta) of `greedy_index`'s lead from the natural ``hand`` (the move that
    empties the hand, else the first best Q of the leading list), worked out without writing
    the list; (-1, -1) when the list's walk does not apply (a quad with two kickers or a
    plane: list the leads then).

    The list is `ddzlab.search.draw._lead_walk`'s: for widths 1-4 the units, the chains (the
    rocket after the solos' chains), then the trios and quads with one kicker. Its families
    (a unit width, a chain kind, the rocket, a kicker move) are walked last first, each in
    its own order, so the big moves come first and whole families of small ones whose bound
    cannot reach the best are skipped (`_better_lead` keeps the legal order's tie-breaks)."""
    if _listed_leads(t, hand):
        return -1, -1
    most = next_play_size(hand)
    cards_in_hand = size_of(hand)
    best_c, best_m, best_q, best_f = np.int64(0), np.int64(0), np.int64(-1), np.int64(-1)
    fam = 0
    if _at_least(hand, 3):
        for a in range(t[T_NATTACH] - 1, -1, -1):
            o = T_ATTACH + A_FIELDS * a
            width, kw = t[o + 1], t[o + 3]
            held = _at_least(hand, width)
            if held == 0 or not t[o + 8]:
                continue
            fam += 1
            if width + kw + most < best_q and width + kw != cards_in_hand:
                continue
            pool = _kicker_pool(t, o, hand)
            meta0 = t[o] + 1024
            m, s = held, 0
            while m:
                if m & 1:
                    kick, r = pool & ~(15 << (4 * s)), 0
                    while kick:
                        if kick & 1:
                            best_c, best_m, best_q, best_f = _better_lead(
                                hand, (width << (4 * s)) + (kw << (4 * r)), meta0 + 32 * (s + 1), fam, most,
                                best_c, best_m, best_q, best_f)
                        kick >>= 4
                        r += 1
                m >>= 4
                s += 1
    for w in range(4, 0, -1):
        held = _at_least(hand, w)
        if held == 0:
            continue
        if w == 1 and t[T_ROCKET] and (hand >> (4 * _RB)) & 15 and (hand >> (4 * _RR)) & 15:
            fam += 1
            best_c, best_m, best_q, best_f = _better_lead(hand, np.int64(_ROCKET_CARDS), np.int64(_ROCKET_META), fam, most,
                                                          best_c, best_m, best_q, best_f)
        cm = held & t[T_CHAIN_SLOTS]
        for ch in range(t[T_NCHAINS] - 1, -1, -1):
            o = T_CHAINS + C_FIELDS * ch
            if t[o + 1] != w:
                continue
            kind, step, lo, hi = t[o], t[o + 2], t[o + 3], t[o + 4]
            if not _has_run(cm, lo, step):
                continue
            fam += 1
            starts = cm & ~(cm << (4 * step))
            s = 0
            while starts >> (4 * s):
                if (starts >> (4 * s)) & 1:
                    run = _run_from(cm, s, step)
                    for m in range(lo, min(run, hi) + 1):
                        part = 0
                        for q in range(m):
                            part += w << (4 * step * q)
                        for i in range(run - m + 1):
                            r = s + i * step
                            best_c, best_m, best_q, best_f = _better_lead(
                                hand, part << (4 * r), kind + 32 * (r + 1) + 1024 * m, fam, most,
                                best_c, best_m, best_q, best_f)
                s += 1
        for u in range(t[T_NUNITS]):
            if t[T_UNITS + 2 * u + 1] == w:
                fam += 1
                if w + most < best_q and w != cards_in_hand:
                    break
                kind, m, r = t[T_UNITS + 2 * u], held, 0
                while m:
                    if m & 1:
                        best_c, best_m, best_q, best_f = _better_lead(
                            hand, w << (4 * r), kind + 32 * (r + 1) + 1024, fam, most, best_c, best_m, best_q, best_f)
                    m >>= 4
                    r += 1
                break
    return best_c, best_m


@njit(cache=True)
def halfsolo_index(om, n, over):
    """`ddzlab.agents.mcts.HalfSoloRollout`'s draw: with more than ``over`` moves, half the
    solos are dropped (drawn directly, as the Python class does)."""
    if n <= over:
        return int(np.random.random() * n)
    k = 0
    for i in range(n):
        if meta_kind(om[i]) == K_SOLO:
            k += 1
    if k < 2:
        return int(np.random.random() * n)
    u = np.random.random() * (n - k // 2)
    if u < n - k:
        want = int(u)
        for i in range(n):
            if meta_kind(om[i]) != K_SOLO:
                if want == 0:
                    return i
                want -= 1
    want = int(np.random.random() * k)
    for i in range(n):
        if meta_kind(om[i]) == K_SOLO:
            if want == 0:
                return i
            want -= 1
    return n - 1


@njit(cache=True)
def policy_index(t, st, oc, om, n, policy, pt, w):
    """The move the greedy (2) or weights (3) policy plays, without exploration
    (`ddzlab.agents.mcts.Rollout.prior`). ``pt`` is None for every policy but weights: numba
    then drops the weights branch before typing, so a search without it never compiles it."""
    if pt is not None:
        if policy == _WEIGHTS:
            return choose_weights(t, pt, w, st, oc, om, n)
    return greedy_index(st, oc, om, n)


@njit(cache=True)
def choose(t, st, oc, om, n, policy, epsilon, pt, w):
    """One rollout step's choice by policy number (`POLICIES`; ``pt``, ``w``: the weights
    policy's power tables and parameters, `ddzlab.agents.weights_compiled.WeightsCore`)."""
    if policy == _RANDOM:
        return int(np.random.random() * n)
    if policy == _HALFSOLO:
        return halfsolo_index(om, n, 10)
    if np.random.random() < epsilon:
        return int(np.random.random() * n)
    return policy_index(t, st, oc, om, n, policy, pt, w)


@njit(cache=True)
def rollout(t, st, policy, epsilon, oc, om, pt, w, memo=None):
    """Play ``st`` to the end by ``policy``; returns the number of moves played. The random
    policy steps by `ddzlab.search.draw.random_step` (the same draws and moves as `choose`
    on the listed moves); the greedy policy, given a ``memo`` (`new_lead_memo`), takes its
    leads from it, its replies to a unit from `_greedy_unit_reply` and its exploring steps
    from `random_step`: the same draws and moves again."""
    steps = 0
    sc = np.empty(SCRATCH, dtype=np.int64)
    if memo is None:                        # (numba compiles one branch per memo's type)
        if policy == _RANDOM:               # the same draws, most moves picked without a list
            while st[S_WINNER] < 0:
                random_step(t, st, oc, om, sc)
                steps += 1
            return steps
    elif policy == _RANDOM or policy == _GREEDY:
        while st[S_WINNER] < 0:
            if policy == _RANDOM or np.random.random() < epsilon:    # greedy: `choose`'s draw, then its pick
                random_step(t, st, oc, om, sc)
                steps += 1
                continue
            hand = st[S_HAND + st[S_TO_ACT]]
            last = st[S_LAST_META]
            cards = meta = slot = -1
            natural = hand & _NATURAL == hand
            if last < 0:
                cards, meta, slot = _memo_find(memo, hand)
                if cards < 0 and natural:
                    cards, meta = _greedy_lead(t, hand)
                    if cards >= 0:
                        _memo_store(memo, slot, hand, cards, meta)
            elif natural:
                cards, meta = _greedy_unit_reply(t, st, hand, last)
                if cards < 0:
                    cards, meta = _greedy_chain_reply(t, st, hand, last)
            if cards < 0:                           # listed: a lead of a plane's hand, another reply
                n = legal(t, st, oc, om, sc)
                i = greedy_index(st, oc, om, n)
                cards, meta = oc[i], om[i]
                if last < 0:
                    _memo_store(memo, slot, hand, cards, meta)
            play(st, cards, meta)
            steps += 1
        return steps
    while st[S_WINNER] < 0:
        n = legal(t, st, oc, om, sc)
        i = choose(t, st, oc, om, n, policy, epsilon, pt, w)
        play(st, oc[i], om[i])
        steps += 1
    return steps


@njit(cache=True)
def split_filter(st, oc, om, n, width, fc, fm, sc=None):
    """`ddzlab.agents.mcts.split_filter` (applied when more than ``width`` moves): the
    ``width`` best plays by Q, the plays that empty the hand, then pass; into ``fc``/``fm``
    (``sc``: scratch to work in, such as the move generator's once the list is made; None or
    too short for ``2 * width``: allocated)."""
    hand = st[S_HAND + st[S_TO_ACT]]
    plays = n - 1 if meta_kind(om[n - 1]) == 0 else n
    if n <= width or plays <= width:
        for i in range(n):
            fc[i] = oc[i]
            fm[i] = om[i]
        return n
    if sc is not None and 2 * width <= sc.shape[0]:
        top_q, top_i = sc[:width], sc[width:2 * width]
    else:
        top_q, top_i = np.empty(width, dtype=np.int64), np.empty(width, dtype=np.int64)
    # top_q, top_i: the best ``width`` so far, best first; a tie ranks the earlier move first
    # (a stable sort's top)
    kept = 0
    most = next_play_size(hand)     # Q <= size + d(hand), but for a move that empties the hand
    for i in range(plays - 1 if width > 0 else -1, -1, -1):     # the last first: the big moves
        size = size_of(oc[i])
        if kept == width and size + most < top_q[width - 1] and oc[i] != hand:
            continue                # cannot reach the top (an equal Q enters: i is the earliest yet)
        q = q_cards(hand, oc[i], size)
        if kept == width and q < top_q[width - 1]:
            continue
        j = kept if kept < width else width - 1     # full: the last one leaves
        while j > 0 and top_q[j - 1] <= q:
            top_q[j], top_i[j] = top_q[j - 1], top_i[j - 1]
            j -= 1
        top_q[j], top_i[j] = q, i
        if kept < width:
            kept += 1
    for a in range(1, kept):                    # top_i[:kept] in legal order (a few: by insertion)
        x, b = top_i[a], a
        while b > 0 and top_i[b - 1] > x:
            top_i[b] = top_i[b - 1]
            b -= 1
        top_i[b] = x
    k = j = 0
    for i in range(plays):
        keep = j < width and top_i[j] == i
        if keep:
            j += 1
        if keep or oc[i] == hand:
            fc[k] = oc[i]
            fm[k] = om[i]
            k += 1
    if plays < n:
        fc[k] = 0
        fm[k] = 0
        k += 1
    return k


@njit(cache=True)
def keep_prior(t, st, oc, om, n, k, policy, pt, w, fc, fm):
    """`ddzlab.agents.mcts`'s ``split+policy`` filter: the ``k`` moves `split_filter` kept
    in ``fc``/``fm``, plus the move ``policy`` (greedy or weights) plays without exploration
    when the filter dropped it, placed before the pass; returns the new count."""
    i = policy_index(t, st, oc, om, n, policy, pt, w)
    for j in range(k):
        if fc[j] == oc[i] and fm[j] == om[i]:
            return k
    at = k - 1 if meta_kind(om[n - 1]) == 0 else k      # following: the pass stays last
    fc[k] = fc[at]
    fm[k] = fm[at]
    fc[at] = oc[i]
    fm[at] = om[i]
    return k + 1


__all__ = ["POLICIES", "LEAD_MEMO_SLOTS", "new_lead_memo", "next_play_size", "q_cards", "greedy_index", "halfsolo_index", "policy_index", "choose", "rollout",
           "split_filter", "keep_prior"]
