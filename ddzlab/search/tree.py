"""Compiled search trees: UCT on one world, and single-observer ISMCTS over sampled worlds.

The loops of `ddzlab.agents.mcts` (`_Search._uct`, `ISMCTSAgent._search`) as kernels, node
for node: selection by UCB (ISMCTS: with availability counts), expansion of one random
untried move, one rollout, reward 1 to every node whose seat's side won. A tree is a set of
flat arrays (`Tree`) that the caller owns, so a search can run in chunks: the agent checks
its clock between chunks, and grows the arrays when they fill up.

Randomness comes from numba's generator, seeded per decision by the agent (`seed`): same
seed, same tree.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..analysis.endgame import LEAF_NODES
from ..kernels import FILTERS as FILTER_CODES, NODE
from ..moves.compiled import MAX_MOVES, SCRATCH
from .policies import choose, keep_prior, policy_index, rollout, split_filter
from .endgame import new_memo, solve
from .sample import SAMPLE_SCRATCH, sample_world
from .state import S_LORD, S_PLAYERS, S_SIZE, S_TO_ACT, S_WINNER, legal, play, side_won

# node fields (columns of ``Tree.ints``): the offsets of `ddzlab.kernels.NODE`
(N_PARENT, N_SEAT, N_CARDS, N_META, N_VISITS, N_AVAIL, N_FIRST, N_LAST, N_NEXT, N_USTART,
 N_UCOUNT) = (NODE.offset(name) for name in ("parent", "seat", "cards", "meta", "visits", "avail", "first", "last",
                                            "next", "ustart", "ucount"))
N_FIELDS = NODE.size
#: the tree's move filters (``ddzlab.agents.mcts``'s ``moves``) as the kernels number them
FILTERS = {name: FILTER_CODES.code(name) for name in FILTER_CODES}
_ALL, _SPLIT_POLICY = FILTER_CODES.code("all"), FILTER_CODES.code("split+policy")
#: how the tree picks the moves of the searcher's opponents (``ddzlab.agents.mcts``'s
#: ``others``) as the kernels take it: the probability ``follow`` that an opponent's move is
#: drawn from the rollout policy rather than chosen by UCB like the searcher's own. ``search``
#: (0): the opponents are modelled as players who see every card of the world and search the
#: same tree; ``policy`` (1): as the rollout policy; a number in between mixes the two
OTHERS = {"search": 0.0, "policy": 1.0}
#: the progressive bias (``ddzlab.agents.mcts``'s ``bias``): the child whose move the rollout
#: policy plays at a node gets ``bias / (visits + 1)`` on top of its UCB value, and is expanded
#: before the other untried moves; 0 leaves the search (and its random draws) as without it

#: progressive widening (``ddzlab.agents.mcts``'s ``widen``, ISMCTS only): at a node visited
#: N times the tree's moves are the filter's and the first ``floor(N ** widen)`` of the moves it
#: left out, in legal order; 0: the filter alone

#: the exact endgame at a leaf (``ddzlab.agents.mcts``'s ``exact``): the memo's size at which
#: a search empties it (about 30 MB); each solve's budget is `ddzlab.analysis.endgame.LEAF_NODES`
EXACT_MEMO = 400_000


#: a root node's fields (no parent, no seat, no move, no children, no untried moves yet)
_ROOT = np.zeros(N_FIELDS, dtype=np.int64)
_ROOT[[N_PARENT, N_SEAT, N_FIRST, N_LAST, N_NEXT, N_USTART]] = -1


class Tree:
    """The arrays of one search tree: ``ints[node]`` (`N_*` fields), ``reward[node]``, the
    untried-move pool of UCT (``pool_cards``/``pool_meta``) and ``used`` = [nodes, pool].

    An agent keeps one and `reset`s it for every search: the arrays are reused from decision
    to decision (allocating them anew cost more than the search of a late, small position).
    """

    def __init__(self, nodes: int, pool: int = 0) -> None:
        self.ints = np.zeros((nodes, N_FIELDS), dtype=np.int64)
        self.reward = np.zeros(nodes, dtype=np.float64)
        self.pool_cards = np.empty(pool, dtype=np.int64)
        self.pool_meta = np.empty(pool, dtype=np.int64)
        self.used = np.zeros(2, dtype=np.int64)
        self.rows = np.empty((2, MAX_MOVES), dtype=np.int64)    # `root_rows`' output
        self.row_reward = np.empty(MAX_MOVES, dtype=np.float64)
        _new_node(self.ints, self.reward, self.used, -1, -1, 0, 0)

    @staticmethod
    def nodes_for(iterations: int) -> int:
        """Node rows that ``iterations`` iterations fill at most (one new node each, the
        root, and the two spare rows the kernels keep): no `grow` in between."""
        return iterations + 3

    def reset(self, nodes: int = 0) -> None:
        """An empty tree (the root alone) with room for at least ``nodes`` nodes."""
        if len(self.ints) < nodes:
            self.ints = np.zeros((nodes, N_FIELDS), dtype=np.int64)
            self.reward = np.zeros(nodes, dtype=np.float64)
        self.used[0], self.used[1] = 1, 0
        self.ints[0] = _ROOT              # `_new_node`'s root, without a kernel call
        self.reward[0] = 0.0

    def grow(self) -> None:
        """Double whichever array is nearly full."""
        if self.used[0] + 2 >= len(self.ints):
            self.ints = np.concatenate([self.ints, np.zeros_like(self.ints)])
            self.reward = np.concatenate([self.reward, np.zeros_like(self.reward)])
        if self.used[1] + MAX_MOVES > len(self.pool_cards) and len(self.pool_cards):
            extra = max(len(self.pool_cards), MAX_MOVES)
            self.pool_cards = np.concatenate([self.pool_cards, np.zeros(extra, dtype=np.int64)])
            self.pool_meta = np.concatenate([self.pool_meta, np.zeros(extra, dtype=np.int64)])

    def root_stats(self, t: np.ndarray, root: np.ndarray) -> tuple[list[int], list[int], list[float]]:
        """(index, visits, reward) of each child of the root, in expansion order; index: the
        place of the child's move in the legal list of the root position ``root`` (a state
        array; ``t``: `ddzlab.moves.compiled.core_table`), which is `Game.legal_moves`' order."""
        k = root_rows(t, root, self.ints, self.reward, self.rows, self.row_reward)
        if k < 0:
            raise AssertionError("a root child's move is not legal at the root: a corrupt tree")
        return self.rows[0, :k].tolist(), self.rows[1, :k].tolist(), self.row_reward[:k].tolist()


@njit(cache=True)
def seed(value):
    """Seed numba's generator (the kernels' randomness). numba keeps the seed's low 32 bits;
    masking them here gives the same stream and lets the kernels run as plain Python
    (``NUMBA_DISABLE_JIT=1``: numpy's legacy seed takes 32 bits only)."""
    np.random.seed(value & 0xFFFFFFFF)


@njit(cache=True)
def _new_node(ints, reward, used, parent, seat, cards, meta):
    i = used[0]
    used[0] = i + 1
    ints[i, N_PARENT] = parent
    ints[i, N_SEAT] = seat
    ints[i, N_CARDS] = cards
    ints[i, N_META] = meta
    ints[i, N_VISITS] = 0
    ints[i, N_AVAIL] = 0
    ints[i, N_FIRST] = -1
    ints[i, N_LAST] = -1
    ints[i, N_NEXT] = -1
    ints[i, N_USTART] = -1
    ints[i, N_UCOUNT] = 0
    reward[i] = 0.0
    if parent >= 0:
        if ints[parent, N_LAST] < 0:
            ints[parent, N_FIRST] = i
        else:
            ints[ints[parent, N_LAST], N_NEXT] = i
        ints[parent, N_LAST] = i
    return i


@njit(cache=True)
def root_rows(t, root, ints, reward, rows, row_reward):
    """The root's children into ``rows`` (index in the legal list of ``root``, visits) and
    ``row_reward``, in expansion order; returns their number (-1: a move not found)."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    n = legal(t, root, oc, om, sc)
    k = 0
    ch = ints[0, N_FIRST]
    while ch >= 0:
        at = -1
        for i in range(n):
            if oc[i] == ints[ch, N_CARDS] and om[i] == ints[ch, N_META]:
                at = i
                break
        if at < 0:
            return -1
        rows[0, k] = at
        rows[1, k] = ints[ch, N_VISITS]
        row_reward[k] = reward[ch]
        k += 1
        ch = ints[ch, N_NEXT]
    return k


@njit(cache=True)
def _moves(t, st, moves, width, oc, om, fc, fm, sc, policy, pt, w, extra=0):
    """The tree's moves at ``st`` into ``fc``/``fm`` by filter number (`FILTERS`): all legal
    moves, the split filter's, or those and the rollout policy's own move; then up to
    ``extra`` of the moves the filter left out, in legal order (progressive widening)."""
    n = legal(t, st, oc, om, sc)
    if moves != _ALL and n > width:
        k = split_filter(st, oc, om, n, width, fc, fm, sc)
        if moves == _SPLIT_POLICY and k < n:
            k = keep_prior(t, st, oc, om, n, k, policy, pt, w, fc, fm)
        kept = k
        for i in range(n):
            if k - kept >= extra:
                break
            found = False
            for j in range(kept):
                if fc[j] == oc[i] and fm[j] == om[i]:
                    found = True
                    break
            if not found:
                fc[k] = oc[i]
                fm[k] = om[i]
                k += 1
        return k
    for i in range(n):
        fc[i] = oc[i]
        fm[i] = om[i]
    return n


@njit(cache=True)
def _prior_move(t, st, oc, om, sc, policy, pt, w):
    """(cards, meta) of the move the rollout policy plays at ``st`` without exploration."""
    n = legal(t, st, oc, om, sc)
    i = policy_index(t, st, oc, om, n, policy, pt, w)
    return oc[i], om[i]


@njit(cache=True)
def _opponent(st, me):
    """Whether the seat to act in ``st`` plays against seat ``me`` (the other side)."""
    lord = st[S_LORD]
    s = st[S_TO_ACT]
    if lord < 0:
        return s != me
    return (s == lord) != (me == lord)


@njit(cache=True)
def _child(ints, node, cards, meta):
    """The child of ``node`` reached by (cards, meta), or -1."""
    ch = ints[node, N_FIRST]
    while ch >= 0:
        if ints[ch, N_CARDS] == cards and ints[ch, N_META] == meta:
            return ch
        ch = ints[ch, N_NEXT]
    return -1


@njit(cache=True)
def _modelled_step(t, st, ints, reward, used, node, oc, om, sc, policy, epsilon, pt, w):
    """An opponent's move drawn from the rollout policy (`OTHERS`), played on
    ``st``: returns (node reached, whether it is new). The node of a move not drawn before
    is added, which ends the iteration's descent like an expansion."""
    n = legal(t, st, oc, om, sc)
    i = choose(t, st, oc, om, n, policy, epsilon, pt, w)
    seat = st[S_TO_ACT]
    ch = _child(ints, node, oc[i], om[i])
    play(st, oc[i], om[i])
    if ch >= 0:
        return ch, False
    return _new_node(ints, reward, used, node, seat, oc[i], om[i]), True


@njit(cache=True)
def _settle(t, st, me, exact, strict, memo):
    """Decide a leaf with few cards left exactly instead of by a rollout: when at most
    ``exact`` cards remain and the solver answers within `LEAF_NODES` new positions, mark the
    side that wins with perfect play as the winner in ``st`` and return True. A win for the
    side of ``me`` holds against any opponents; a loss only against perfect ones, so it is
    used only when the tree models the opponents as perfect (``strict``) and the rollout
    decides otherwise."""
    if exact <= 0 or st[S_WINNER] >= 0:
        return False
    left = 0
    for i in range(st[S_PLAYERS]):
        left += st[S_SIZE + i]
    if left > exact:
        return False
    if len(memo) > EXACT_MEMO:
        memo.clear()
    r = solve(t, st, LEAF_NODES, memo)
    if r < 0:
        return False
    s = st[S_TO_ACT]
    ours = (r == 1) != _opponent(st, me)
    if not ours and not strict:
        return False
    lord = st[S_LORD]
    if r == 1:
        st[S_WINNER] = s
    elif lord < 0:
        st[S_WINNER] = (s + 1) % st[S_PLAYERS]
    else:
        st[S_WINNER] = (s + 1) % st[S_PLAYERS] if s == lord else lord
    return True


@njit(cache=True)
def _backprop(ints, reward, node, st):
    while node >= 0:
        ints[node, N_VISITS] += 1
        parent = ints[node, N_PARENT]
        if parent >= 0 and side_won(st, ints[node, N_SEAT]):
            reward[node] += 1.0
        node = parent


@njit(cache=True)
def uct(t, world, ints, reward, pool_cards, pool_meta, used, todo, c, moves, width, policy, epsilon, pt, w,
        follow, exact, bias, leads):
    """Up to ``todo`` UCT iterations on the fixed ``world``; stops early when the arrays
    are nearly full (``pt``, ``w``: the weights rollout's tables, `ddzlab.search.policies.choose`;
    ``follow``: `OTHERS`; ``exact``: `_settle`; ``bias``: the progressive bias towards the
    rollout policy's move; ``follow``, ``exact`` and ``bias`` are None when off, so numba
    compiles none of their kernels; ``leads``: the greedy rollouts' memo, `ddzlab.search.policies.new_lead_memo`).
    Returns (iterations done, rollout moves played)."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    fc = np.empty(MAX_MOVES, dtype=np.int64)
    fm = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    st = np.empty_like(world)
    me = world[S_TO_ACT]
    if exact is not None:                          # None: never (nothing of the solver compiled)
        memo = new_memo()
    done = sims = 0
    while done < todo and used[0] + 2 < ints.shape[0] and used[1] + MAX_MOVES <= pool_cards.shape[0]:
        st[:] = world
        node = np.int64(0)                          # typed: a literal 0 compiles `_new_node` twice
        while True:                                     # selection
            if follow is not None and follow > 0.0 and st[S_WINNER] < 0 and _opponent(st, me) and (
                    follow >= 1.0 or np.random.random() < follow):
                node, new = _modelled_step(t, st, ints, reward, used, node, oc, om, sc, policy, epsilon, pt, w)
                if new:
                    break
                continue
            if ints[node, N_USTART] < 0:
                start = used[1]
                n = 0
                if st[S_WINNER] < 0:
                    n = _moves(t, st, moves, width, oc, om, fc, fm, sc, policy, pt, w, 0)
                    for i in range(n):
                        pool_cards[start + i] = fc[i]
                        pool_meta[start + i] = fm[i]
                used[1] = start + n
                ints[node, N_USTART] = start
                ints[node, N_UCOUNT] = n
            if ints[node, N_UCOUNT] > 0 or ints[node, N_FIRST] < 0:
                break
            log_n = math.log(ints[node, N_VISITS])
            pc = pm = -1
            if bias is not None and bias > 0.0:
                pc, pm = _prior_move(t, st, oc, om, sc, policy, pt, w)
            best, best_v = -1, 0.0
            ch = ints[node, N_FIRST]
            while ch >= 0:
                v = ints[ch, N_VISITS]
                val = reward[ch] / v + c * math.sqrt(log_n / v)
                if bias is not None and ints[ch, N_CARDS] == pc and ints[ch, N_META] == pm:
                    val += bias / (v + 1)
                if best < 0 or val > best_v:
                    best, best_v = ch, val
                ch = ints[ch, N_NEXT]
            node = best
            play(st, ints[node, N_CARDS], ints[node, N_META])
        k = ints[node, N_UCOUNT]
        if k > 0:                                       # expansion
            start = ints[node, N_USTART]
            j = -1
            if bias is not None and bias > 0.0:         # the policy's move first
                pc, pm = _prior_move(t, st, oc, om, sc, policy, pt, w)
                for i in range(start, start + k):
                    if pool_cards[i] == pc and pool_meta[i] == pm:
                        j = i
                        break
            if j < 0:
                j = start + int(np.random.random() * k)
            cards, meta = pool_cards[j], pool_meta[j]
            pool_cards[j] = pool_cards[start + k - 1]      # remove it from the untried moves
            pool_meta[j] = pool_meta[start + k - 1]
            ints[node, N_UCOUNT] = k - 1
            seat = st[S_TO_ACT]
            play(st, cards, meta)
            known = -1
            if follow is not None and 0.0 < follow < 1.0:
                known = _child(ints, node, cards, meta)
            node = known if known >= 0 else _new_node(ints, reward, used, node, seat, cards, meta)
        if exact is not None:
            _settle(t, st, me, exact, follow is None or follow == 0.0, memo)
        sims += rollout(t, st, policy, epsilon, oc, om, pt, w, leads)
        _backprop(ints, reward, node, st)
        done += 1
    return done, sims


@njit(cache=True)
def _grown(a, need):
    """``a`` copied into an array at least twice as long and at least ``need`` long."""
    b = np.empty(max(2 * a.shape[0], need), dtype=a.dtype)
    for i in range(a.shape[0]):         # (a loop: a slice assignment compiles for seconds)
        b[i] = a[i]
    return b


@njit(cache=True)
def ismcts(t, template, unseen, holders, sizes, known, bomb_ranks, bomb_left, bomb_other, truth, keep, pool, cum,
           p, ints, reward, used, todo, c, moves, width, policy, epsilon, pt, w, follow, exact, bias, widen, leads):
    """Up to ``todo`` single-observer ISMCTS iterations, each in a fresh world dealt by
    `sample_world`; stops early when the node arrays are nearly full (``follow``: `OTHERS`;
    ``exact``: `_settle`; ``bias``: the progressive bias towards the rollout policy's move;
    ``widen``: progressive widening; ``follow``, ``exact``, ``bias``: None when off, as in `uct`;
    ``leads``: as in `uct`). Returns (iterations done, rollout moves played).

    The moves at a node where the searcher is to act (the root among them), the policy's
    move there and which of them have children are worked out once a call: every
    world shares the searcher's hand and the public facts along the path, the moves' inputs
    (`_moves` and `_prior_move` read only the seat to act's hand and public facts)."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    fc = np.empty(MAX_MOVES, dtype=np.int64)
    fm = np.empty(MAX_MOVES, dtype=np.int64)
    kid = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    st = np.empty_like(template)
    me = template[S_TO_ACT]
    if exact is not None:                          # None: never (nothing of the solver compiled)
        memo = new_memo()
    done = sims = 0
    # the searcher's nodes, by node: where its moves start in the pool (-1: not yet), how many
    # the filter keeps, how many in all (widening's too), the policy's move (`bias`)
    at = np.full(ints.shape[0], -1, dtype=np.int64)
    kept = np.empty(ints.shape[0], dtype=np.int64)
    every = np.empty(ints.shape[0], dtype=np.int64)
    prior = np.empty((ints.shape[0], 2), dtype=np.int64)
    pool_c = np.empty(1024, dtype=np.int64)         # their moves (in the order `_moves` gives them)
    pool_m = np.empty(1024, dtype=np.int64)
    pool_kid = np.empty(1024, dtype=np.int64)       # each one's child (-1: untried)
    pooled = 0
    none, all_left = np.int64(0), np.int64(MAX_MOVES)     # typed, as `extra`: one `_moves` compiled
    deal = np.empty(SAMPLE_SCRATCH, dtype=np.int64)
    while done < todo and used[0] + 2 < ints.shape[0]:
        sample_world(template, unseen, holders, sizes, known, bomb_ranks, bomb_left, bomb_other, truth, keep, pool,
                     cum, p, st, deal)
        node = np.int64(0)                          # typed: a literal 0 compiles `_new_node` twice
        while st[S_WINNER] < 0:
            if follow is not None and follow > 0.0 and _opponent(st, me) and (
                    follow >= 1.0 or np.random.random() < follow):
                node, new = _modelled_step(t, st, ints, reward, used, node, oc, om, sc, policy, epsilon, pt, w)
                if new:
                    break
                continue
            extra = int(ints[node, N_VISITS] ** widen) if widen > 0.0 else 0
            mine = st[S_TO_ACT] == me
            pc = pm = -1
            if mine:
                if at[node] < 0:
                    k = _moves(t, st, moves, width, oc, om, fc, fm, sc, policy, pt, w, none)
                    n = k if widen == 0.0 else _moves(t, st, moves, width, oc, om, fc, fm, sc, policy, pt, w, all_left)
                    if pooled + n > pool_c.shape[0]:
                        pool_c, pool_m, pool_kid = _grown(pool_c, pooled + n), _grown(pool_m, pooled + n), \
                            _grown(pool_kid, pooled + n)
                    for i in range(n):
                        pool_c[pooled + i] = fc[i]
                        pool_m[pooled + i] = fm[i]
                        pool_kid[pooled + i] = _child(ints, node, fc[i], fm[i])
                    at[node], kept[node], every[node] = pooled, k, n
                    pooled += n
                    if bias is not None and bias > 0.0:
                        prior[node, 0], prior[node, 1] = _prior_move(t, st, oc, om, sc, policy, pt, w)
                base = at[node]
                n = min(kept[node] + extra, every[node])
                for i in range(n):
                    fc[i] = pool_c[base + i]
                    fm[i] = pool_m[base + i]
                    kid[i] = pool_kid[base + i]
                if bias is not None and bias > 0.0:
                    pc, pm = prior[node, 0], prior[node, 1]
            else:
                n = _moves(t, st, moves, width, oc, om, fc, fm, sc, policy, pt, w, extra)
                if bias is not None and bias > 0.0:
                    pc, pm = _prior_move(t, st, oc, om, sc, policy, pt, w)
            if n == 0:      # a game in play always has a move: a state array the rules cannot reach
                raise RuntimeError("ismcts: a position in play with no legal move (a corrupt state array)")
            untried = 0
            first = -1
            for i in range(n):
                if not mine:
                    kid[i] = _child(ints, node, fc[i], fm[i])
                if kid[i] < 0:
                    untried += 1
                    if fc[i] == pc and fm[i] == pm:
                        first = i
            if untried:                                 # expansion (the policy's move first)
                want = int(np.random.random() * untried) if first < 0 else 0
                for i in range(n):
                    if kid[i] < 0 and (first < 0 or i == first):
                        if want == 0:
                            seat = st[S_TO_ACT]
                            play(st, fc[i], fm[i])
                            parent = node
                            node = _new_node(ints, reward, used, parent, seat, fc[i], fm[i])
                            if mine:
                                pool_kid[at[parent] + i] = node
                            break
                        want -= 1
                break
            best, best_v = -1, 0.0
            for i in range(n):
                ch = kid[i]
                ints[ch, N_AVAIL] += 1
            for i in range(n):
                ch = kid[i]
                v = ints[ch, N_VISITS]
                val = reward[ch] / v + c * math.sqrt(math.log(ints[ch, N_AVAIL]) / v)
                if bias is not None and fc[i] == pc and fm[i] == pm:
                    val += bias / (v + 1)
                if best < 0 or val > best_v:
                    best, best_v = ch, val
            node = best
            play(st, ints[node, N_CARDS], ints[node, N_META])
        if exact is not None:
            _settle(t, st, me, exact, follow is None or follow == 0.0, memo)
        sims += rollout(t, st, policy, epsilon, oc, om, pt, w, leads)
        _backprop(ints, reward, node, st)
        done += 1
    return done, sims


__all__ = ["Tree", "FILTERS", "OTHERS", "EXACT_MEMO", "seed", "uct", "ismcts", "root_rows"]
