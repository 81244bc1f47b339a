"""CPU seconds a move of the strongest search agent, `ismcts_modelled`, of the agents it builds
on (`ismcts_weights`, `ismcts_weights_prior`) and of notebook 09's next candidates (the same
with a progressive bias or widening, `09_prior_dev`), against their budget.

The budget is at most one second of CPU a move on a 2-core machine. The stored games of
`05_strongest` time each move by the wall clock on a machine shared with other jobs, which
overstates the agent's own cost; here every `play` call of the search agent is timed with
`time.process_time` (this process's CPU time: the agent's search, nothing else runs in the
call) in whole games against `rulev1` and `weights`, the agent in either role, beside the
default `ismcts` on the same deals. Prints mean, median, 95th percentile and maximum per move
and the ratio to `ismcts`.

    python benchmarks/bench_strongest.py [--deals N] [--seed S]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ddzlab.agents import make_agent, play_game
from ddzlab.deals import generate_deals
from ddzlab.experiments import CATALOG
from ddzlab.experiments.catalog import PRIOR_LABEL, PRIOR_SPEC, STRONG_SECONDS, STRONG_TARGETS, STRONGEST
from ddzlab.game import Game


class CPUTimed:
    """An agent whose `play` calls are timed in CPU seconds of this process."""

    def __init__(self, agent) -> None:
        self.agent, self.seconds = agent, []

    def bid(self, obs):
        return self.agent.bid(obs)

    def play(self, obs):
        start = time.process_time()
        move = self.agent.play(obs)
        self.seconds.append(time.process_time() - start)
        return move

    def __getattr__(self, name):
        return getattr(self.agent, name)


def measure(spec: str, opponent: str, deals, seed: int) -> list[float]:
    """CPU seconds of every move of ``spec``: each deal as landlord (seat 0), then as both
    farmers against an ``opponent`` landlord."""
    out: list[float] = []
    for i, deal in enumerate(deals):
        for landlord in (True, False):
            ours = [CPUTimed(make_agent(spec, seed=seed + 10 * i + k)) for k in range(1 if landlord else 2)]
            theirs = [make_agent(opponent, seed=seed + 10 * i + 5 + k) for k in range(2 if landlord else 1)]
            play_game(Game(deal, landlord=0), ours + theirs if landlord else theirs + ours)
            out += [s for agent in ours for s in agent.seconds]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    deals = generate_deals(args.deals, seed=args.seed)
    agents = {STRONGEST: STRONGEST, PRIOR_LABEL: PRIOR_SPEC, "ismcts_modelled": "ismcts_modelled",
              **CATALOG["09_prior_dev"].configs, "ismcts": "ismcts"}
    for spec in agents.values():                                                      # compile first
        make_agent(spec, seed=0).play(Game(deals[0], landlord=0).observation(0))
    print(f"CPU seconds a move (time.process_time), {args.deals} deals x 2 roles; budget {STRONG_SECONDS:g} s")
    for opponent in STRONG_TARGETS:
        rows = {label: np.array(measure(spec, opponent, deals, args.seed)) for label, spec in agents.items()}
        base = rows["ismcts"].mean()
        for label, s in rows.items():
            print(f"  vs {opponent:8s} {label:28s} moves {len(s):4d}  mean {s.mean():.3f}  median {np.median(s):.3f}  "
                  f"p95 {np.quantile(s, 0.95):.3f}  max {s.max():.3f}  ratio to ismcts {s.mean() / base:.1f}")


if __name__ == "__main__":
    main()
