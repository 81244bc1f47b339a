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

``--wildcard``: instead, `ismcts_modelled` against `weights` under the standard rules (deals
of ``--seed``) and under the wildcard rules (07_wildcard_strongest's deals, the flower card
included), in the same process: its CPU seconds a move under each and the ratio of the means,
with a 95% interval from resampling deals (the games differ, so the ratio is of two samples).

    python benchmarks/bench_strongest.py [--deals N] [--seed S] [--wildcard]
"""
from __future__ import annotations

import argparse
import time
from typing import Optional

import numpy as np

from ddzlab.agents import make_agent, play_game
from ddzlab.deals import generate_deals
from ddzlab.experiments import CATALOG
from ddzlab.experiments.catalog import PRIOR_LABEL, PRIOR_SPEC, STRONG_SECONDS, STRONG_TARGETS, STRONGEST
from ddzlab.game import Game
from ddzlab.rules import STANDARD, WILDCARD, Rules


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


def measure(spec: str, opponent: str, deals, seed: int, rules: Rules = STANDARD,
            per_deal: Optional[list] = None) -> list[float]:
    """CPU seconds of every move of ``spec``: each deal as landlord (seat 0), then as both
    farmers against an ``opponent`` landlord (``per_deal``: gets each deal's list too)."""
    out: list[float] = []
    for i, deal in enumerate(deals):
        mine: list[float] = []
        for landlord in (True, False):
            ours = [CPUTimed(make_agent(spec, seed=seed + 10 * i + k)) for k in range(1 if landlord else 2)]
            theirs = [make_agent(opponent, seed=seed + 10 * i + 5 + k) for k in range(2 if landlord else 1)]
            play_game(Game(deal, rules=rules, landlord=0), ours + theirs if landlord else theirs + ours)
            mine += [s for agent in ours for s in agent.seconds]
        out += mine
        if per_deal is not None:
            per_deal.append(mine)
    return out


def compare_rules(n: int, seed: int) -> None:
    """`ismcts_modelled` against `weights`, standard against wildcard (module docstring)."""
    wild = CATALOG["07_wildcard_strongest"]
    sets = {"standard": (STANDARD, generate_deals(n, seed=seed)),
            "wildcard": (WILDCARD, wild.deal_list()[:n])}
    for rules, deals in sets.values():                                               # compile first
        make_agent("ismcts_modelled", seed=0).play(Game(deals[0], rules=rules, landlord=0).observation(0))
    print(f"ismcts_modelled against weights: CPU seconds a move (time.process_time), {n} deals x 2 roles")
    groups = {}
    for name, (rules, deals) in sets.items():
        per: list = []
        s = np.array(measure("ismcts_modelled", "weights", deals, seed, rules, per))
        groups[name] = per
        print(f"  {name:8s} moves {len(s):4d}  mean {s.mean():.3f}  median {np.median(s):.3f}  "
              f"p95 {np.quantile(s, 0.95):.3f}  max {s.max():.3f}")
    rng = np.random.default_rng(seed)

    def mean(per, pick):
        return np.mean([x for i in pick for x in per[i]])
    a, b = groups["wildcard"], groups["standard"]
    ratio = mean(a, range(n)) / mean(b, range(n))
    boot = [mean(a, rng.integers(n, size=n)) / mean(b, rng.integers(n, size=n)) for _ in range(2000)]
    lo, hi = np.quantile(boot, [0.025, 0.975])
    print(f"  wildcard / standard mean: {ratio:.2f} (95% interval over deals {lo:.2f}-{hi:.2f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--wildcard", action="store_true", help="ismcts_modelled under standard and wildcard rules")
    args = ap.parse_args()
    if args.wildcard:
        compare_rules(args.deals, args.seed)
        return
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
