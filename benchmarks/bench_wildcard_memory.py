"""Memory of the move tables: the wildcard generator's against the standard one's.

Both generators keep tables keyed by rank patterns, built on first use, so their memory grows
with the patterns they meet and is bounded by them. Each engine runs in a fresh child process
that first draws ``--hands`` distinct random hands (20 standard cards; 21 wildcard cards
holding F), then lists their leading moves; the growth of the child's peak resident memory
during the listing is the tables' (and the moves') footprint.

Run: ``python benchmarks/bench_wildcard_memory.py [--hands 40000]``.
"""
import argparse
import multiprocessing as mp
import resource

from _common import distinct_hands

from ddzlab.moves import legal_moves
from ddzlab.rules import STANDARD, WILDCARD


def grow(rules_name: str, n: int, queue) -> None:
    from bench_wildcard import with_flower
    rules = {"standard": STANDARD, "wildcard": WILDCARD}[rules_name]
    hands = (distinct_hands(n, 20, seed=3) if rules is STANDARD
             else with_flower(distinct_hands(n, 21, seed=3, rules=WILDCARD)))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for h in hands:
        legal_moves(h, rules)
    queue.put(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40000)
    args = parser.parse_args()
    ctx = mp.get_context("spawn")
    for name, what in (("standard", "20-card standard hands"), ("wildcard", "21-card wildcard hands holding F")):
        queue = ctx.Queue()
        p = ctx.Process(target=grow, args=(name, args.hands, queue))
        p.start()
        kb = queue.get()
        p.join()
        print(f"{name} tables after the leading moves of {args.hands:,} distinct {what}: {kb / 1024:.0f} MB")


if __name__ == "__main__":
    main()
