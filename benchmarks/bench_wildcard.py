"""The wildcard rule set's move generation against the standard rules' (issue 8, speed).

Targets: leading moves of random 21-card wildcard hands at most 3x the time per hand of
standard 20-card hands; `min_plays` on 21-card wildcard hands median <= 10 ms (random hands,
and hands that all hold F: the search then runs once per rank F may stand for).

Engines, timed under `_common`'s rules (interleaved rounds, same GC state, CPU time):

* ``standard 20`` — `legal_moves(hand)` on random 20-card standard hands (the reference);
* ``wildcard 21`` — `legal_moves(hand, WILDCARD)` on random 21-card hands of the 55-card deck
  (about 38% hold the flower card F);
* ``wildcard 21 with F`` — the same on hands that all hold F (the expansion's full cost).

Both generators are warm (their caches filled by a first round). Run:
``python benchmarks/bench_wildcard.py [--hands 3000] [--rounds 5]``.
"""
import argparse
import time

import numpy as np
from _common import Engine, distinct_hands, each, table, time_rounds

from ddzlab.cards import Hand
from ddzlab.errors import RulesError
from ddzlab.moves import legal_moves
from ddzlab.rules import STANDARD, WILDCARD


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    std = distinct_hands(args.hands, 20, seed=20)
    wild = distinct_hands(args.hands, 21, seed=21, rules=WILDCARD)
    with_f = [h if h.bits >> 60 else Hand.from_bits(h.bits - (1 << (4 * h.ranks()[0])) + (1 << 60))
              for h in wild]
    engines = [Engine("standard 20", each(lambda h: legal_moves(h, STANDARD), std, False), len(std)),
               Engine("wildcard 21", each(lambda h: legal_moves(h, WILDCARD), wild, False), len(wild)),
               Engine("wildcard 21 with F", each(lambda h: legal_moves(h, WILDCARD), with_f, False), len(with_f))]
    time_rounds(engines, 1)                      # warm the caches
    for e in engines:
        e.seconds.clear()
    time_rounds(engines, args.rounds)
    print(f"leading moves, {args.hands:,} distinct random hands each, {args.rounds} rounds, CPU time, warm")
    print(table(engines, "hands/s", "standard 20"))
    ref = engines[0]
    for e in engines[1:]:
        print(f"{e.name}: {ref.median / e.median:.1f}x the time per hand of standard 20 (target <= 3x)")
    from ddzlab.analysis import min_plays
    for name, hands in (("random", wild), ("holding F", with_f)):
        times = []
        for h in hands[:200]:
            t = time.process_time()
            try:
                min_plays(h, WILDCARD)
            except RulesError as err:
                print(f"min_plays on wildcard hands: refused ({err})")
                return
            times.append(time.process_time() - t)
        print(f"min_plays on {len(times)} 21-card wildcard hands ({name}): median {1e3 * np.median(times):.1f} ms, "
              f"90th percentile {1e3 * np.percentile(times, 90):.1f} ms (target: median <= 10 ms)")

if __name__ == "__main__":
    main()
