"""Where a compiled search spends its time: the rollout step's parts, timed as kernel variants.

numba has no profiler, so the parts are timed apart, each as one kernel call looping over the
same recorded positions (CPU time, best of interleaved rounds):

* **positions**: the states met by random rollouts from ``--deals`` fresh deals (standard
  rules, landlord seat 0), recorded before each move, with the index the rollout drew;
* ``lead``: the leading list of each leading position; ``reply``: the replies of each
  following position; ``legal``: both (what a rollout step lists);
* ``play``: copy the state and play the recorded move; ``draw``: numba's generator;
* ``step``: a whole random rollout step (list, draw, play) on each position;
* ``random game``: whole random rollouts from the deals, per move.

Then a UCT decision (`mcts_cheat`, random rollouts, 200 iterations) split into the ``uct``
kernel and the Python around it, and the default ``ismcts`` the same way.

    python benchmarks/profile_core.py [--deals 300] [--rounds 5]
"""
from __future__ import annotations

import argparse
import gc
import time

import numpy as np
from numba import njit

from ddzlab.agents import make_agent
from ddzlab.deals import generate_deals
from ddzlab.game import Game, Phase
from ddzlab.moves.compiled import MAX_MOVES, SCRATCH, core_table
from ddzlab.rules import STANDARD
from ddzlab.search import from_game
from ddzlab.search.policies import POLICIES, rollout
from ddzlab.search.state import S_LAST_META, S_WINNER, legal, play
from ddzlab.search.tree import seed as seed_core
from ddzlab.search.weights import stand_in


@njit(cache=False)
def _record(t, starts, out_states, out_pick):
    """Random rollouts from each start; every position before a move into ``out_states``."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    k = 0
    for g in range(starts.shape[0]):
        st = starts[g].copy()
        while st[S_WINNER] < 0 and k < out_states.shape[0]:
            n = legal(t, st, oc, om, sc)
            i = int(np.random.random() * n)
            out_states[k] = st
            out_pick[k, 0] = oc[i]
            out_pick[k, 1] = om[i]
            k += 1
            play(st, oc[i], om[i])
    return k


@njit(cache=False)
def _legal_all(t, states, which):
    """The legal lists of the positions: which 0 all, 1 leads only, 2 replies only."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    total = 0
    for k in range(states.shape[0]):
        lead = states[k, S_LAST_META] < 0
        if which == 1 and not lead or which == 2 and lead:
            continue
        total += legal(t, states[k], oc, om, sc)
    return total


@njit(cache=False)
def _play_all(states, pick):
    st = np.empty(states.shape[1], dtype=np.int64)
    acc = 0
    for k in range(states.shape[0]):
        st[:] = states[k]
        play(st, pick[k, 0], pick[k, 1])
        acc += st[0]
    return acc


@njit(cache=False)
def _draw_all(n):
    acc = 0
    for k in range(n):
        acc += int(np.random.random() * 80)
    return acc


@njit(cache=False)
def _step_all(t, states):
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    st = np.empty(states.shape[1], dtype=np.int64)
    acc = 0
    for k in range(states.shape[0]):
        st[:] = states[k]
        n = legal(t, st, oc, om, sc)
        i = int(np.random.random() * n)
        play(st, oc[i], om[i])
        acc += st[0]
    return acc


def _clock(fn) -> float:
    gc.collect()
    gc.disable()
    try:
        t0 = time.process_time()
        fn()
        return time.process_time() - t0
    finally:
        gc.enable()


def _decisions(spec: str, deals, cheat: bool) -> tuple[float, float, int]:
    """(seconds in all, seconds in the kernel, searched moves) of whole games of ``spec`` in
    every seat (cheat) or seat 0 against random farmers."""
    import ddzlab.agents.mcts_compiled as mc
    inner = {"t": 0.0}
    kernels = {}
    for name in ("uct", "ismcts"):
        k = getattr(mc, name)

        def timed(*a, _k=k):
            t0 = time.process_time()
            r = _k(*a)
            inner["t"] += time.process_time() - t0
            return r
        kernels[name] = timed
    old = mc.uct, mc.ismcts
    mc.uct, mc.ismcts = kernels["uct"], kernels["ismcts"]
    total, moves = 0.0, 0
    try:
        for i, deal in enumerate(deals):
            game = Game(deal, landlord=0)
            agents = [make_agent(spec, seed=[i, s]) if cheat or s == 0 else make_agent("random", seed=[i, s])
                      for s in range(3)]
            gc.collect()
            gc.disable()
            while game.phase is Phase.PLAY:
                seat = game.to_act
                a = agents[seat]
                t0 = time.process_time()
                if cheat or seat == 0:
                    if getattr(a, "see_all_hands", None) is not None:
                        a.see_all_hands(game)
                move = a.play(game.observation(seat))
                if cheat or seat == 0:
                    dt = time.process_time() - t0
                    if a.last_iterations:
                        total += dt
                        moves += 1
                game.play(move, seat)
            gc.enable()
    finally:
        mc.uct, mc.ismcts = old
    return total, inner["t"], moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--games", type=int, default=4, help="deals of whole UCT / ismcts games")
    args = ap.parse_args()
    t = core_table(STANDARD)
    starts = np.stack([from_game(Game(d, landlord=0)) for d in generate_deals(args.deals, seed=7)])
    states = np.empty((80 * args.deals, starts.shape[1]), dtype=np.int64)
    pick = np.empty((80 * args.deals, 2), dtype=np.int64)
    seed_core(7)
    k = _record(t, starts, states, pick)
    states, pick = states[:k], pick[:k]
    leads = int((states[:, S_LAST_META] < 0).sum())
    unused = stand_in(STANDARD)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)

    def games():
        for st in starts:
            rollout(t, st.copy(), POLICIES["random"], 0.0, oc, om, *unused)
    parts = {"legal": lambda: _legal_all(t, states, 0), "lead": lambda: _legal_all(t, states, 1),
             "reply": lambda: _legal_all(t, states, 2), "play": lambda: _play_all(states, pick),
             "draw": lambda: _draw_all(k), "step": lambda: _step_all(t, states), "random game": games}
    for fn in parts.values():
        fn()
    secs: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(args.rounds):
        for name, fn in parts.items():
            secs[name].append(_clock(fn))
    moves_lead = _legal_all(t, states, 1)
    moves_reply = _legal_all(t, states, 2)
    print(f"{k} rollout positions from {args.deals} deals: {leads} leading ({moves_lead / leads:.1f} moves each),"
          f" {k - leads} following ({moves_reply / (k - leads):.1f} moves each)")
    for name, s in secs.items():
        print(f"  {name:12s} {1e9 * min(s) / k:7.1f} ns per position (best of {args.rounds})")
    print(f"  lead per leading position {1e9 * min(secs['lead']) / leads:.1f} ns;"
          f" reply per following position {1e9 * min(secs['reply']) / (k - leads):.1f} ns")
    deals = generate_deals(args.games, seed=11)
    for spec, cheat in (("mcts_cheat:rollout=random,moves=all,iterations=200", True), ("ismcts:iterations=200", False)):
        _decisions(spec, deals[:1], cheat)
        total, inner, moves = _decisions(spec, deals, cheat)
        print(f"{spec}: {1000 * total / moves:.3f} ms/move over {moves} moves, kernel {1000 * inner / moves:.3f}"
              f" ms ({100 * inner / total:.0f}%), Python around it {1000 * (total - inner) / moves:.3f} ms")


if __name__ == "__main__":
    main()
