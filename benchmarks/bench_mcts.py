"""MCTS speed: simulations (rollout moves) per second, iterations and time per move.

Each configuration plays seat 0 (the landlord) of a few seeded deals against two random
farmers and is timed only inside its own decisions, at a fixed iteration budget, so the
iterations per move are exact and the seconds show what that budget costs here. Timings
on a shared machine are noisy: compare the rows of one run (the ratio column is against
the first row), not runs. ``--profile`` prints where the time of the first configuration
goes (cProfile, top functions by own time).

    python benchmarks/bench_mcts.py [--rules standard|mini] [--deals N] [--iterations N] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from ddzlab.agents import make_agent
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.rules import get_rules

BASE = {"moves": "all", "rollout": "random"}
CONFIGS = [
    ("ismcts", {}),                          # the defaults: split filter, greedy rollouts
    ("mcts", {}),
    ("mcts_cheat", {}),
    ("mcts", BASE),                          # the ablation's baseline, then one part each
    ("mcts", {**BASE, "rollout": "halfsolo"}),
    ("mcts", {**BASE, "rollout": "greedy"}),
    ("mcts", {**BASE, "moves": "split"}),
    ("mcts", {**BASE, "guesser": "bomb"}),
    ("mcts", {**BASE, "guesser": "policy"}),
    ("ismcts", BASE),
]


def measure(kind: str, opts: dict, deals, rules, iterations: int) -> dict:
    """Decisions of seat 0 over the deals: moves, seconds, iterations, rollout moves."""
    moves = secs = its = sims = 0
    worst = 0.0
    for i, deal in enumerate(deals):
        game = Game(deal, rules=rules, landlord=0)
        agent = make_agent(kind, seed=i, iterations=iterations, **opts)
        farmers = [make_agent("random", seed=[i, s]) for s in (1, 2)]
        while not game.is_over:
            seat = game.to_act
            if seat == 0:
                if hasattr(agent, "see_all_hands"):
                    agent.see_all_hands(game)
                t = time.process_time()          # CPU time: less hostage to a shared machine
                move = agent.play(game.observation(0))
                dt = time.process_time() - t
                if agent.last_iterations:            # forced moves are not searched
                    moves += 1
                    secs += dt
                    worst = max(worst, dt)
                    its += agent.last_iterations
                    sims += agent.last_simulations
            else:
                move = farmers[seat - 1].play(game.observation(seat))
            game.play(move)
    return {"moves": moves, "ms/move": 1000 * secs / moves, "worst ms": 1000 * worst,
            "it/move": its / moves, "it/s": its / secs, "sims/s": sims / secs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=None,
                    help="iteration budget (default: the agents' default)")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    rules = get_rules(args.rules)
    from ddzlab.agents.mcts import DEFAULT_ITERATIONS
    iterations = args.iterations or DEFAULT_ITERATIONS
    deals = generate_deals(args.deals, seed=2024, rules=rules)
    print(f"{rules.name}: {args.deals} deals, seat 0 (landlord) vs two random farmers, "
          f"{iterations} iterations per move")
    base = None
    for kind, opts in CONFIGS:
        r = measure(kind, opts, deals, rules, iterations)
        base = base or r["ms/move"]
        label = kind + (":" + ",".join(f"{k}={v}" for k, v in opts.items()) if opts else "")
        print(f"{label:28s} moves {r['moves']:3d}  {r['ms/move']:7.1f} ms/move "
              f"(worst {r['worst ms']:6.0f})  {r['it/move']:6.1f} it/move  {r['it/s']:7.0f} it/s  "
              f"{r['sims/s']:8.0f} sims/s  time x{r['ms/move'] / base:4.2f}")
    if args.profile:
        kind, opts = CONFIGS[0]
        prof = cProfile.Profile()
        prof.enable()
        measure(kind, opts, deals[:1], rules, iterations)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
