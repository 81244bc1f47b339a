"""WeightsAgent speed: ms per move against the issue's 5 ms target, and against its peers.

Two sets of positions, both seeded: the landlord's first move on 20-card hands (the hardest:
the hand-power table is built cold, as in the first move of every game), and every decision
of a few weights-vs-greedy games (warm: the agent keeps its table through a game, as in
play). Each agent answers the same observations in interleaved rounds (`_common`); a
fresh agent per position for the cold set. Run: ``python benchmarks/bench_weights.py
[--deals 200]``. The machine may be shared: read the ratios, not only the times.
"""
from __future__ import annotations

import argparse
import gc
import time

from _common import Engine, table, time_rounds

from ddzlab.agents import make_agent, play_game
from ddzlab.deals import generate_deals
from ddzlab.game import Game

AGENTS = ("weights", "greedy", "smallest")


class Recorder:
    """Wraps an agent and keeps every observation it was asked to play."""

    def __init__(self, agent, log):
        self.agent, self.log = agent, log

    def bid(self, obs):
        return self.agent.bid(obs)

    def play(self, obs):
        self.log.append(obs)
        return self.agent.play(obs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    deals = generate_deals(args.deals, seed=20260)      # benchmark positions, not an evaluation
    first = [Game(d, landlord=0).observation(0) for d in deals]
    assert all(len(o.hand) == 20 for o in first)

    # cold: a fresh agent per position, every one timed on its own (median, p95, max); one
    # untimed warm-up move first builds the per-rule-set move tables every agent shares
    for name in AGENTS:
        make_agent(name, seed=0).play(first[-1])
        times = []
        for obs in first:                      # best of 3 fresh agents: scheduler noise out
            best = float("inf")
            for _ in range(3):
                agent = make_agent(name, seed=0)
                gc.disable()
                t = time.perf_counter()
                agent.play(obs)
                best = min(best, time.perf_counter() - t)
                gc.enable()
            times.append(best)
        times.sort()
        med, p95, mx = (times[len(times) // 2] * 1e3, times[int(0.95 * len(times))] * 1e3,
                        times[-1] * 1e3)
        verdict = "" if name != "weights" else \
            f"  target 5 ms: median {'ok' if med <= 5 else 'MISSED'}, p95 {'ok' if p95 <= 5 else 'MISSED'}"
        print(f"{name:9s} first move, 20 cards, cold: median {med:6.2f} ms  p95 {p95:6.2f} ms  "
              f"max {mx:6.2f} ms{verdict}")

    # warm: every decision of weights-vs-greedy games, answered by one agent per game
    games: list[list] = []
    for d in deals[:args.games]:
        log: list = []
        rec = Recorder(make_agent("weights"), log)
        play_game(Game(d, landlord=0), [rec, make_agent("greedy"), make_agent("greedy")])
        games.append(log)
    n = sum(len(g) for g in games)

    def run_all(name):
        def run():
            for log in games:
                agent = make_agent(name, seed=0)
                for obs in log:
                    agent.play(obs)
        return run
    engines = time_rounds([Engine(name, run_all(name), n) for name in AGENTS], args.rounds)
    print(f"\n{n} in-game decisions of the landlord (weights) in {len(games)} games:")
    print(table(engines, "moves/s", "weights"))
    w = next(e for e in engines if e.name == "weights")
    print(f"weights: {1e3 / w.median:.3f} ms per move (median round)")


if __name__ == "__main__":
    main()
