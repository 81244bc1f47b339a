"""The compiled exact open-hand endgame solver: who wins a position with perfect play by everyone.

Why: a search's rollout plays a small endgame badly by chance, while the exact answer of a
position with few cards left costs tens of microseconds here (for the times per
number of cards, and the heavy tail from 20 cards on, see ``benchmarks/bench_endgame.py``). This module is the solver
kernel only; calling it from the tree is a later step.

It is `ddzlab.analysis.endgame`'s search compiled: an AND-OR depth-first search memoised on
the position (the hands, the seat to act, the play to beat and passes since it), which tries a
play that empties the hand first, then (leading) larger plays before smaller ones and, of the
same size, lower before higher, or (following) the lowest replies before bombs and pass; it
stops at the first winning play. The farmers win together; a trick ends when every other seat
passed (`ddzlab.search.state.play`). Two-player (1v1) and three-player positions. Moves come
from `ddzlab.search.state.legal` (the core's one move generator) and are played by
`ddzlab.search.state.play`, so the solver plays the same rules as the rollouts.

The search is iterative (an explicit stack of positions; numba's disk cache cannot reload a
recursive kernel) and bounded: the stack is at most one frame per play or pass left, and the
search gives up (returns -1) after ``max_nodes`` positions it had not memoised.

The memo (`new_memo`) maps a position key to 1 (the side to act wins) or 0. A key holds
everything the answer depends on, the landlord and the number of players included, so one
memo may be reused across solves of the same rule set (``t``): within one search, the
positions of different iterations share their solved subtrees. Reusing it across rule sets
is wrong (keys do not name the rules). A search that runs out of budget leaves only solved
positions in the memo, so a later solve with the same memo stays exact. A memo holds one
entry per position searched, about 80 bytes each (2.3 million took 170 MB): a caller that
keeps one across solves bounds it by the budgets it gives, or starts a new one.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from numba import njit, types
from numba.typed import Dict

from ..errors import OutOfTurnError, RulesError
from ..game import Game, Phase
from ..moves.compiled import MAX_MOVES, SCRATCH, core_table, is_bomb_kind, meta_kind, meta_rank
from .state import N_STATE, S_HAND, S_LAST_CARDS, S_LAST_META, S_LORD, S_PASSES, S_PLAYERS, S_SIZE, \
    S_TO_ACT, S_WINNER, from_game, legal, play, size_of

#: the default node budget of `exact_winner`: at most about a second, and 80 MB of memo
DEFAULT_NODES = 1_000_000

_KEY = types.UniTuple(types.int64, 5)


@njit(cache=True)
def new_memo():
    """An empty memo for `solve`: position key -> 1 if the side to act wins, else 0."""
    return Dict.empty(key_type=_KEY, value_type=types.int8)


@njit(cache=True, inline="always")
def _side(lord, seat):
    """The side of ``seat``: itself in 1v1 (no landlord), else 0 landlord / 1 farmers."""
    if lord < 0:
        return seat
    return 0 if seat == lord else 1


@njit(cache=True, inline="always")
def _key(s):
    """The memo key of state ``s``: the three hands, the cards to beat, and a tag packing its
    meta, the landlord (so the number of players), the seat to act and the passes since it."""
    meta = s[S_LAST_META]
    cards = s[S_LAST_CARDS] if meta >= 0 else 0
    tag = (((meta + 1) * 4 + s[S_LORD] + 1) * 4 + s[S_TO_ACT]) * 4 + s[S_PASSES]
    return (s[S_HAND], s[S_HAND + 1], s[S_HAND + 2], cards, tag)


@njit(cache=True)
def _ordered(s, tc, tm, n, mc, mm, base, ky):
    """The ``n`` legal moves ``tc/tm`` of state ``s`` written at ``mc/mm[base:]`` in the search
    order. The order is `ddzlab.analysis.endgame`'s: a play that empties the hand first;
    leading, larger before smaller, then lower rank; following, replies before bombs (and the
    rocket) before pass, each by rank. The generator's order breaks ties (stable): the sort
    key carries the move's index in its low 12 bits (``MAX_MOVES`` = 4096)."""
    hand = s[S_HAND + s[S_TO_ACT]]
    leading = s[S_LAST_META] < 0
    for i in range(n):
        c, m = tc[i], tm[i]
        rest = 0 if c == hand else 1
        if leading:
            k = (rest * 64 + 63 - size_of(c)) * 32 + meta_rank(m) + 1
        else:
            kind = meta_kind(m)
            bomb = 1 if is_bomb_kind(kind) else 0
            k = ((rest * 2 + (1 if kind == 0 else 0)) * 2 + bomb) * 32 + meta_rank(m) + 1
        ky[i] = k * MAX_MOVES + i
    ky[:n].sort()
    for i in range(n):
        j = ky[i] & (MAX_MOVES - 1)
        mc[base + i], mm[base + i] = tc[j], tm[j]


@njit(cache=True)
def solve_count(t, st, max_nodes, memo):
    """`solve` and the positions it searched: (answer, nodes). ``nodes`` counts the positions
    not found in the memo, the root included (`ddzlab.analysis.endgame`'s count)."""
    if st[S_WINNER] >= 0 or st[S_TO_ACT] < 0:
        raise ValueError("the game is over: nothing to solve")
    root = _key(st)
    if root in memo:
        return np.int64(memo[root]), np.int64(0)
    nodes = 1
    if nodes > max_nodes:
        return np.int64(-1), np.int64(nodes)
    lord = st[S_LORD]
    cards = 0
    for p in range(st[S_PLAYERS]):
        cards += st[S_SIZE + p]
    depth = 3 * cards + 4                 # a play removes a card; passes: at most two in a row
    states = np.empty((depth, N_STATE), dtype=np.int64)
    base = np.zeros(depth, dtype=np.int64)
    count = np.zeros(depth, dtype=np.int64)
    nxt = np.zeros(depth, dtype=np.int64)
    cap = 128                             # the move stack (grown as needed): each open position's list, in order
    mc = np.empty(cap, dtype=np.int64)
    mm = np.empty(cap, dtype=np.int64)
    ky = np.empty(MAX_MOVES, dtype=np.int64)
    tc = np.empty(MAX_MOVES, dtype=np.int64)
    tm = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    states[0, :] = st
    n = legal(t, st, tc, tm, sc)
    if n > cap:
        cap = n
        mc = np.empty(cap, dtype=np.int64)
        mm = np.empty(cap, dtype=np.int64)
    _ordered(st, tc, tm, n, mc, mm, 0, ky)
    count[0] = n
    d = 0
    while True:
        s = states[d]
        value = -1
        if nxt[d] >= count[d]:
            value = 0                             # every move lost
        else:
            i = base[d] + nxt[d]
            nxt[d] += 1
            c, m = mc[i], mm[i]
            seat = s[S_TO_ACT]
            if meta_kind(m) != 0 and c == s[S_HAND + seat]:
                value = 1                         # out of cards: won
            else:
                ch = states[d + 1]
                ch[:] = s
                play(ch, c, m)
                same = _side(lord, ch[S_TO_ACT]) == _side(lord, seat)
                got = memo.get(_key(ch), np.int8(-1))
                if got < 0:
                    nodes += 1
                    if nodes > max_nodes:
                        return np.int64(-1), np.int64(nodes)
                    d += 1
                    b = base[d - 1] + count[d - 1]
                    n = legal(t, ch, tc, tm, sc)
                    if b + n > cap:               # grow the move stack
                        cap = 2 * (b + n)
                        mc2 = np.empty(cap, dtype=np.int64)
                        mm2 = np.empty(cap, dtype=np.int64)
                        mc2[:b] = mc[:b]
                        mm2[:b] = mm[:b]
                        mc, mm = mc2, mm2
                    _ordered(ch, tc, tm, n, mc, mm, b, ky)
                    base[d] = b
                    count[d] = n
                    nxt[d] = 0
                    continue
                if (got == 1) == same:
                    value = 1
        if value < 0:
            continue
        while True:                               # frame d is solved: record it, tell its parent
            memo[_key(states[d])] = np.int8(value)
            if d == 0:
                return np.int64(value), np.int64(nodes)
            same = _side(lord, states[d, S_TO_ACT]) == _side(lord, states[d - 1, S_TO_ACT])
            d -= 1
            if (value == 1) != same:
                break                             # this move loses for the parent: try its next
            value = 1


@njit(cache=True)
def solve(t, st, max_nodes, memo):
    """1 if the side of the seat to act in ``st`` (a state in play) wins with perfect play by
    everyone, 0 if it loses, -1 if ``max_nodes`` positions were searched without an answer.
    ``t``: `core_table` of the rules; ``memo``: `new_memo`, reusable for the same rules (see
    the module docstring). ``st`` is not changed; a finished one raises ValueError."""
    return solve_count(t, st, max_nodes, memo)[0]


def exact_winner(game: Game, max_nodes: int = DEFAULT_NODES) -> Optional[int]:
    """The side that wins ``game`` from here with perfect open-hand play: 0 the landlord, 1
    the farmers, or in 1v1 the winning seat; None when ``max_nodes`` positions were searched
    without an answer. Raises `OutOfTurnError` for a game still bidding or already over, and
    `ddzlab.errors.RulesError` for rules the compiled core does not play."""
    if game.phase is not Phase.PLAY:
        raise OutOfTurnError(f"exact_winner solves a game in play, not one {game.phase.name.lower()}")
    if game.rules.wildcard is not None:     # its Python reference cannot solve a position with F
        raise RulesError(f"the exact endgame solver is not checked under the {game.rules.name} rules "
                         "(the flower card): no reference to check it against yet")
    t = core_table(game.rules)
    st = from_game(game)
    won = solve(t, st, max_nodes, new_memo())
    if won < 0:
        return None
    seat = int(st[S_TO_ACT])                # the seat to act (a game in play has one)
    side = seat if game.landlord is None else int(seat != game.landlord)
    return side if won == 1 else 1 - side


__all__ = ["solve", "solve_count", "new_memo", "exact_winner", "DEFAULT_NODES"]
