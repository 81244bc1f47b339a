"""Hand-analysis speed: A* fewest plays, DFS best score, hand power, endgame solver.

Prints medians and maxima against the issue's targets, and the endgame solver against the
PyPI package ``doudizhu-resolver`` (if installed) on the same 1v1 positions. Each search
starts cold (hand power) or with only ddzlab's per-rule-set tables warm (A*, DFS).

Timing follows `_common`: CPU time of this process (``--wall`` for wall time), the garbage
collector collected before each series and off during it. In the endgame comparison both
solvers start every position without their result memo (the peer's ``clear_cache()``;
ddzlab's memo lives in one call), the collector is off for both, and ddzlab is timed twice:
with its move tables warm, and with them rebuilt before each position (``cold``).
Run: ``python benchmarks/bench_analysis.py [--hands 300] [--positions 6] [--puzzle] [--wall]``.
"""
from __future__ import annotations

import argparse
import gc
import statistics
import time

import numpy as np
from _common import distinct_hands

from ddzlab.cards import RANK_CHARS, RB, RR, Hand
from ddzlab.moves import generator
from ddzlab.rules import HOMEWORK, STANDARD
from ddzlab.analysis import best_score, hand_power, min_plays, solve_endgame

#: the clock of every measurement (set from ``--wall`` in `main`)
CLOCK = time.process_time


def timed(fn, items) -> list[float]:
    """Seconds of ``fn(x)`` for each item; GC collected first and off during the series."""
    out = []
    gc.collect()
    gc.disable()
    try:
        for x in items:
            t = CLOCK()
            fn(x)
            out.append(CLOCK() - t)
    finally:
        gc.enable()
    return out


def once(fn) -> float:
    """Seconds of one call of ``fn`` (GC collected first and off during the call)."""
    return timed(lambda _: fn(), [None])[0]


def report(name: str, times: list[float], median_target: float | None, max_target: float | None):
    med, mx = statistics.median(times) * 1e3, max(times) * 1e3
    verdict = []
    if median_target is not None:
        verdict.append(f"median target {median_target:g} ms {'ok' if med <= median_target else 'MISSED'}")
    if max_target is not None:
        verdict.append(f"max target {max_target:g} ms {'ok' if mx <= max_target else 'MISSED'}")
    print(f"{name:44s} median {med:8.2f} ms  max {mx:8.2f} ms   {'; '.join(verdict)}")


def resolver_cards(hand: Hand) -> str:
    """A hand in doudizhu-resolver's notation (``10`` for T, suits assigned in order, BJ
    and CJ for the black and red joker)."""
    out = []
    for r, c in enumerate(hand.counts):
        if r == RB:
            out += ["BJ"] * c
        elif r == RR:
            out += ["CJ"] * c
        else:
            sym = "10" if RANK_CHARS[r] == "T" else RANK_CHARS[r]
            out += [sym + s for s in "shdc"[:c]]
    return "-".join(out)


def endgame_bench(positions: int, puzzle: bool) -> None:
    rng = np.random.default_rng(7)
    deck = Hand.from_bits(STANDARD.deck).ranks()
    try:
        import doudizhu_resolver as peer
    except ImportError:
        peer = None
        print("doudizhu-resolver not installed: `pip install doudizhu-resolver` to compare")
    for sizes in ((3, 3), (4, 4)) + (((10, 3),) if puzzle else ()):
        ours, ours_cold, theirs, agree = [], [], [], 0
        for i in range(positions if sizes != (10, 3) else 1):
            if sizes == (10, 3):   # the package README's puzzle
                a, b = Hand("2QQTT77553"), Hand("AA9")
            else:
                cards = rng.choice(deck, sum(sizes), replace=False).tolist()
                a, b = Hand.from_ranks(cards[:sizes[0]]), Hand.from_ranks(cards[sizes[0]:])
            win = solve_endgame([a, b]).winner == 0      # untimed: fills the move tables
            ours.append(once(lambda: solve_endgame([a, b])))
            generator.cache_clear()
            ours_cold.append(once(lambda: solve_endgame([a, b])))
            if peer is not None:
                ra, rb = resolver_cards(a), resolver_cards(b)    # inputs built untimed, as ours
                peer.clear_cache()
                got = []
                theirs.append(once(lambda: got.append(peer.is_winable(ra, rb))))
                agree += got[0] == win
        line = f"endgame 1v1 {sizes[0]} vs {sizes[1]} cards ({len(ours)} positions): " \
               f"ddzlab median {statistics.median(ours) * 1e3:.2f} ms (move tables rebuilt: " \
               f"{statistics.median(ours_cold) * 1e3:.2f} ms)"
        if theirs:
            ratio = statistics.median(theirs) / statistics.median(ours)
            cold = statistics.median(theirs) / statistics.median(ours_cold)
            line += (f", doudizhu-resolver median {statistics.median(theirs) * 1e3:.0f} ms "
                     f"({ratio:,.0f}x slower; {cold:,.0f}x against rebuilt tables), "
                     f"same winner {agree}/{len(ours)}")
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--puzzle", action="store_true",
                        help="also time the package README's 10-vs-3 puzzle (~80 s for the peer)")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    deck = Hand.from_bits(STANDARD.deck)

    seconds = once(lambda: min_plays(deck, STANDARD))
    print(f"{'min_plays whole 54-card deck, cold tables':44s} {1e3 * seconds:8.1f} ms   target 1000 ms")
    hands = distinct_hands(args.hands, 20, seed=20)
    report("min_plays 20-card standard (strong h)", timed(lambda h: min_plays(h, STANDARD), hands),
           5, 200)
    for h in ("ceil", "zero"):
        report(f"min_plays 20-card standard ({h} h)",
               timed(lambda x: min_plays(x, STANDARD, h), hands), None, None)
    seconds = once(lambda: min_plays(deck, STANDARD))
    print(f"{'min_plays whole 54-card deck, warm tables':44s} {1e3 * seconds:8.1f} ms")
    hw = distinct_hands(max(args.hands // 3, 20), 20, seed=21, rules=HOMEWORK)
    report("best_score 20-card homework", timed(lambda h: best_score(h, HOMEWORK), hw), 50, None)
    for n in (30, 40, 54):
        hs = distinct_hands(5 if n < 54 else 1, n, seed=n, rules=HOMEWORK)
        report(f"best_score {n}-card homework", timed(lambda h: best_score(h, HOMEWORK), hs),
               None, None)
    report("hand power 20-card standard (cold)", timed(lambda h: hand_power(h, STANDARD), hands),
           5, None)
    endgame_bench(args.positions, args.puzzle)


if __name__ == "__main__":
    main()
