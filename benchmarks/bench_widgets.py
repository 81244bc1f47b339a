"""HandInspector response time on random 20-card hands (the issue's target: 0.3 s).

Two numbers per hand, each for a hand not seen before (the inspector's caches are cold for
it; per-rule-set tables, the bidding SVM and the agents' imports are warmed once first):

* *first update*: from typing the hand until ``set_text`` returns -- cards, legal moves,
  fewest plays, power and hints are then shown, the rest says "computing…";
* *complete*: until the background thread has also filled in the best score, the bidding
  model and every asked agent's move.

Agents: the cheap ones by default; ``--agents all`` asks every registered agent (the MCTS
agents alone take about 0.1-0.5 s per hand with their default budgets).
Run: ``python benchmarks/bench_widgets.py [--hands 100] [--agents all]``.
"""
from __future__ import annotations

import argparse
import statistics
import time

from _common import distinct_hands

from ddzlab.agents import available_agents
from ddzlab.rules import STANDARD
from ddzlab.widgets import HandInspector

CHEAP = ["greedy", "smallest", "random", "threshold_bidder"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100)
    ap.add_argument("--agents", default="cheap", choices=("cheap", "all"))
    args = ap.parse_args()
    agents = CHEAP if args.agents == "cheap" else available_agents()
    hands = distinct_hands(args.hands + 1, 20, seed=12, rules=STANDARD)
    insp = HandInspector(str(hands[0]), agents=agents)      # warm-up: tables, SVM, imports
    insp.wait(300)
    first, full = [], []
    for h in hands[1:]:
        t = time.perf_counter()
        insp.set_text(str(h))
        first.append(time.perf_counter() - t)
        insp.wait(300)
        full.append(time.perf_counter() - t)
        assert insp.fewest is not None and insp.score is not None and insp.agent_moves
    for name, xs in (("first update", first), ("complete", full)):
        print(f"HandInspector {name:12s} on {len(xs)} random 20-card hands, agents {args.agents}: "
              f"median {1e3 * statistics.median(xs):.1f} ms, max {1e3 * max(xs):.1f} ms "
              f"(target 300 ms; within: {sum(x <= 0.3 for x in xs)}/{len(xs)})")


if __name__ == "__main__":
    main()
