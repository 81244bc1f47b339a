"""The wildcard rule set's move generation against the standard rules' (speed).

Targets: leading moves of random 21-card wildcard hands at most 3x the time per hand of
standard 20-card hands; `min_plays` on 21-card wildcard hands median <= 10 ms (random hands,
and hands that all hold F: one A* then searches every rank F may stand for at once).

Engines, timed under `_common`'s rules (interleaved rounds, same GC state, CPU time):

* ``standard 20`` — `legal_moves(hand)` on random 20-card standard hands (the reference);
* ``wildcard 21`` — `legal_moves(hand, WILDCARD)` on random 21-card hands of the 55-card deck
  (about 38% hold the flower card F);
* ``wildcard 21 with F`` — the same on hands that all hold F (the expansion's full cost).

Both generators keep tables keyed by rank patterns (which ranks hold 1, 2, 3, 4 cards), so
they are timed twice, warm both times:

* **replayed hands** (first, in a fresh process; the *warm* of ``bench_moves.py``): every
  round replays the same hands, so the tables hold every pattern the round needs;
* **unseen hands**: the tables are then filled further by ``--warm`` other hands, and every
  round draws hands neither engine has seen, so a table only helps as far as its patterns
  recur across hands (new patterns cost a list build, and a hand holding F has ~6x the
  moves of a standard hand to build).

The wildcard tables grow with the patterns they meet (tens of MB after tens of thousands of
hands holding F), and memory locality with them: the replayed hands are timed once more at
the end, with the tables the unseen rounds filled.

Then replies (``legal_moves(hand, rules, to_beat)``, each hand answering a random lead of
another hand, replayed like the leads; no target). Last, whole games: random and greedy self-play on both rule sets (`ddzlab.arena.duel_games`,
the same number of deals, CPU time), and `min_plays` / `best_score` on wildcard hands. The
tables' memory is measured by ``bench_wildcard_memory.py``.

The compiled core (``--core``: this part only, first otherwise): the move kernels of
`ddzlab.moves.compiled` (`lead_moves`, `follow_moves`) on the same three hand sets, one kernel
call looping over all hands of a round (no Python call per hand), CPU time. Target: wildcard
leads at most 3x the standard leads' time per hand.

Run: ``python benchmarks/bench_wildcard.py [--hands 3000] [--rounds 5] [--warm 5000] [--games 200] [--core]``.
"""
import argparse
import time

import numpy as np
from _common import Engine, distinct_hands, each, table, time_rounds
from numba import njit

from ddzlab.cards import Hand
from ddzlab.moves import legal_moves
from ddzlab.moves.compiled import MAX_MOVES, core_table, encode, follow_moves, lead_moves, scratch
from ddzlab.rules import STANDARD, WILDCARD


def with_flower(hands: list[Hand]) -> list[Hand]:
    """The hands, each holding F: a hand without F trades its lowest card for it."""
    return [h if h.bits >> 60 else Hand.from_bits(h.bits - (1 << (4 * h.ranks()[0])) + (1 << 60))
            for h in hands]


def hand_sets(n: int, seed: int) -> tuple[list[Hand], list[Hand], list[Hand]]:
    """Standard 20-card, wildcard 21-card and wildcard-with-F hands, ``n`` of each (seeded)."""
    wild = distinct_hands(n, 21, seed=seed + 1, rules=WILDCARD)
    return distinct_hands(n, 20, seed=seed), wild, with_flower(wild)


class Unseen:
    """A round over the next set of hands (`setup` moves on, untimed)."""

    def __init__(self, sets: list[list[Hand]], rules) -> None:
        self.sets, self.rules, self.hands = iter(sets), rules, []

    def setup(self) -> None:
        self.hands = next(self.sets)

    def run(self) -> None:
        rules = self.rules
        for h in self.hands:
            legal_moves(h, rules)


NAMES = ("standard 20", "wildcard 21", "wildcard 21 with F")
RULES = (STANDARD, WILDCARD, WILDCARD)


@njit(cache=True)
def _core_leads(t, hands, oc, om, sc):
    """Every hand's leading moves by the kernel; the total count (so nothing is optimised away)."""
    total = 0
    for h in hands:
        total += lead_moves(t, h, oc, om, sc)
    return total


@njit(cache=True)
def _core_replies(t, hands, beat_cards, beat_meta, oc, om, sc):
    total = 0
    for i in range(hands.shape[0]):
        total += follow_moves(t, hands[i], beat_cards[i], beat_meta[i], oc, om, sc)
    return total


def core_section(args, same: tuple) -> None:
    """The compiled move kernels on the three hand sets (module docstring)."""
    oc, om, sc = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64), scratch()
    arrays = [np.array([h.bits for h in hands], dtype=np.int64) for hands in same]
    engines = [Engine(name, lambda t=core_table(rules), a=a: _core_leads(t, a, oc, om, sc), len(a))
               for name, rules, a in zip(NAMES, RULES, arrays)]
    time_rounds(engines, 1)                      # compiles (or loads) the kernels
    for e in engines:
        e.seconds.clear()
    time_rounds(engines, args.rounds)
    report(engines, f"the compiled core's leading moves (ddzlab.moves.compiled.lead_moves), the same "
                    f"{args.hands:,} hands each round, {args.rounds} rounds, CPU time")
    print("core leading moves per hand (mean): " + ", ".join(
        f"{name} {_core_leads(core_table(rules), a, oc, om, sc) / len(a):.0f}"
        for name, rules, a in zip(NAMES, RULES, arrays)))
    rng = np.random.default_rng(7)
    engines = []
    for name, rules, hands, a in zip(NAMES, RULES, same, arrays):
        beats = [encode(leads[int(rng.integers(len(leads)))])
                 for o in hands[1:] + hands[:1] for leads in [legal_moves(o, rules)]]
        bc = np.array([c for c, _ in beats], dtype=np.int64)
        bm = np.array([m for _, m in beats], dtype=np.int64)
        engines.append(Engine(name, lambda t=core_table(rules), a=a, bc=bc, bm=bm:
                              _core_replies(t, a, bc, bm, oc, om, sc), len(a)))
    time_rounds(engines, 1)
    for e in engines:
        e.seconds.clear()
    time_rounds(engines, args.rounds)
    print()
    report(engines, f"the compiled core's replies (follow_moves) to a random lead of another hand, "
                    f"the same {args.hands:,} pairs each round, CPU time")
    print()


def report(engines: list[Engine], what: str) -> None:
    print(what)
    print(table(engines, "hands/s", "standard 20"))
    ref = engines[0]
    for e in engines[1:]:
        print(f"{e.name}: {ref.median / e.median:.1f}x the time per hand of standard 20 (target <= 3x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warm", type=int, default=5000, help="hands that fill the tables before the unseen rounds")
    parser.add_argument("--games", type=int, default=200, help="deals of self-play per rule set (each played twice)")
    parser.add_argument("--core", action="store_true", help="only the compiled core's part")
    args = parser.parse_args()
    same = hand_sets(args.hands, seed=20)             # first, in a fresh process: replayed hands
    core_section(args, same)
    if args.core:
        return
    engines = [Engine(name, each(lambda h, r=rules: legal_moves(h, r), hands, False), len(hands))
               for name, rules, hands in zip(NAMES, RULES, same)]
    time_rounds(engines, 1)                      # every pattern of these hands into the tables
    for e in engines:
        e.seconds.clear()
    time_rounds(engines, args.rounds)
    report(engines, f"leading moves, replayed hands: the same {args.hands:,} hands each round, "
                    f"{args.rounds} rounds, CPU time")
    print("leading moves per hand (mean): " + ", ".join(
        f"{name} {np.mean([len(legal_moves(h, rules)) for h in hands]):.0f}"
        for name, rules, hands in zip(NAMES, RULES, same)))

    # replies: each hand answers a random lead of the next hand (same pairs every round)
    rng = np.random.default_rng(7)
    pairs = [[(h, leads[int(rng.integers(len(leads)))])
              for h, o in zip(hands, hands[1:] + hands[:1]) for leads in [legal_moves(o, rules)]]
             for rules, hands in zip(RULES, same)]
    engines = [Engine(name, each(lambda p, r=rules: legal_moves(p[0], r, p[1]), ps, False), len(ps))
               for name, rules, ps in zip(NAMES, RULES, pairs)]
    time_rounds(engines, 1)
    for e in engines:
        e.seconds.clear()
    time_rounds(engines, args.rounds)
    print()
    print(f"replies to a random lead of another hand, the same {args.hands:,} pairs each round, CPU time")
    print(table(engines, "lists/s", "standard 20"))

    for hands in hand_sets(args.warm, seed=1):        # then fill both generators' tables further
        for h in hands:
            legal_moves(h, RULES[0] if h.bits >> 60 == 0 and len(h) == 20 else WILDCARD)
    rounds = [hand_sets(args.hands, seed=100 + 10 * r) for r in range(args.rounds)]
    unseen = [Unseen([r[i] for r in rounds], RULES[i]) for i in range(3)]
    engines = [Engine(name, u.run, args.hands, setup=u.setup) for name, u in zip(NAMES, unseen)]
    time_rounds(engines, args.rounds)
    print()
    report(engines, f"leading moves, unseen hands: {args.rounds} rounds of {args.hands:,} new random hands "
                    f"each, tables warmed by {args.warm:,} other hands, CPU time")

    engines = [Engine(name, each(lambda h, r=rules: legal_moves(h, r), hands, False), len(hands))
               for name, rules, hands in zip(NAMES, RULES, same)]
    time_rounds(engines, args.rounds)
    print()
    report(engines, "leading moves, the replayed hands again, now with the tables the unseen rounds filled")

    from ddzlab.arena import duel_games
    print()
    for agent in ("random", "greedy"):
        rates = {}
        for rules in ("standard", "wildcard"):
            duel_games(agent, agent, 20, rules=rules, progress=False, seed=1)        # warm up
            t = time.process_time()
            games = duel_games(agent, agent, args.games, rules=rules, progress=False, seed=2)
            rates[rules] = len(games) / (time.process_time() - t)
        print(f"{agent} self-play, {2 * args.games} games each: standard {rates['standard']:,.0f} games/s, "
              f"wildcard {rates['wildcard']:,.0f} ({rates['wildcard'] / rates['standard']:.2f}x)")

    from ddzlab.analysis import best_score, min_plays
    print()
    for name, fn, hands, note in (
            ("min_plays", min_plays, same[1][:200], "21-card wildcard hands (random)"),
            ("min_plays", min_plays, same[2][:200], "21-card wildcard hands (holding F)"),
            ("best_score", best_score, same[2][:100], "21-card wildcard hands (holding F)"),
            ("best_score", best_score, with_flower(distinct_hands(3, 40, seed=40, rules=WILDCARD)),
             "40-card wildcard hands (holding F)")):
        times = []
        for h in hands:
            t = time.process_time()
            fn(h, WILDCARD)
            times.append(time.process_time() - t)
        target = " (target: median <= 10 ms)" if fn is min_plays else ""
        print(f"{name} on {len(times)} {note}: median {1e3 * np.median(times):.1f} ms, "
              f"90th percentile {1e3 * np.percentile(times, 90):.1f} ms{target}")

if __name__ == "__main__":
    main()
