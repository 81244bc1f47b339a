"""Where the wildcard leads' time goes: the parts of `lead_moves` on hands holding F, timed
as kernel variants.

numba has no profiler, so each part is one kernel call looping over the same hands (those
of ``bench_wildcard.py --core``: random 21-card wildcard hands, each made to hold the flower
card F), CPU time, best of interleaved rounds (`_common.time_rounds`):

* ``standard 20``: the whole lead list of the standard 20-card hands (the reference);
* ``with F``: the whole lead list of the hands holding F (`lead_moves`);
* ``natural``: the moves of their natural cards (`_lead_natural` on the hand without F);
* ``flower``: the moves paying F (`_flower_moves`, leading);
* ``F in the main part``: its part (a) alone (`_flower_main` for every reading of F); the
  rest of ``flower`` is part (b), F among the kickers.

    python benchmarks/profile_flower.py [--hands 3000] [--rounds 7]
"""
from __future__ import annotations

import argparse

import numpy as np
from _common import Engine, time_rounds
from bench_wildcard import hand_sets
from numba import njit

from ddzlab.moves.compiled import (_NATURAL, MAX_MOVES, T_WILD, _flower_main, _flower_moves, _flower_span,
                                   _lead_natural, _split_scratch, core_table, lead_moves, scratch)
from ddzlab.rules import STANDARD, WILDCARD


@njit(cache=False)
def _whole(t, hands, oc, om, sc):
    total = 0
    for h in hands:
        total += lead_moves(t, h, oc, om, sc)
    return total


@njit(cache=False)
def _natural(t, hands, oc, om, sc):
    total = 0
    for h in hands:
        total += _lead_natural(t, h & _NATURAL, oc, om, sc)
    return total


@njit(cache=False)
def _flower(t, hands, oc, om, sc):
    total = 0
    for h in hands:
        total += _flower_moves(t, h & _NATURAL, True, -1, 0, 0, oc, om, sc, 0)
    return total


@njit(cache=False)
def _main_part(t, hands, oc, om, sc):
    total = 0
    for h in hands:
        nat = h & _NATURAL
        c, pool, caps = _split_scratch(nat, sc)
        span = _flower_span(t, True, 0)
        n = 0
        for x in range(15):
            if (t[T_WILD] >> (4 * x)) & 1:
                c[x] += 1
                n = _flower_main(t, nat, c, x, True, -1, 0, 0, span, pool, caps, oc, om, n)
                c[x] -= 1
        total += n
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    std, _, with_f = hand_sets(args.hands, seed=20)
    s = np.array([h.bits for h in std], dtype=np.int64)
    f = np.array([h.bits for h in with_f], dtype=np.int64)
    ts, tw = core_table(STANDARD), core_table(WILDCARD)
    oc, om, sc = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64), scratch()
    parts = {"standard 20": lambda: _whole(ts, s, oc, om, sc), "with F": lambda: _whole(tw, f, oc, om, sc),
             "natural": lambda: _natural(tw, f, oc, om, sc), "flower": lambda: _flower(tw, f, oc, om, sc),
             "F in the main part": lambda: _main_part(tw, f, oc, om, sc)}
    moves = {name: fn() for name, fn in parts.items()}         # compiles, and counts the moves
    engines = [Engine(name, fn, args.hands) for name, fn in parts.items()]
    time_rounds(engines, args.rounds)
    print(f"{args.hands:,} hands, best of {args.rounds} rounds, CPU time")
    for e in engines:
        sec = min(e.seconds)
        print(f"  {e.name:20s} {1e6 * sec / args.hands:6.2f} us a hand, {moves[e.name] / args.hands:6.1f} moves,"
              f" {1e9 * sec / max(moves[e.name], 1):5.1f} ns a move")


if __name__ == "__main__":
    main()
