"""The compiled `weights` play against the Python `WeightsAgent`, and what it buys.

Three measurements, each a set of engines timed in interleaved rounds in this process on the
same inputs, CPU time (`_common`):

1. **moves/s**: every decision of ``--deals`` weights self-play games (all seats). Python:
   a fresh `WeightsAgent` per seat and game (it keeps its hand-power table through a game,
   as in play). Compiled from the `Observation` (`WeightsCore.play`: the observation read
   into a state, the legal moves, the kernel) and the kernel alone, called from a compiled
   loop over the prepared states (`ddzlab.search.weights.choose_weights` after
   `ddzlab.search.state.legal`, as inside a rollout). The compiled memo of hand
   powers is emptied before every round (warm within a round, as in a search or a labelling
   worker).
2. **games/s**: weights self-play of the same deals with seat 0 as landlord (what the
   simulation labels of `ddzlab.labels` play): `play_game` with three `WeightsAgent` vs
   `WeightsCore.result` (the game built in Python, played in the core).
3. **ismcts iterations/s**: ``ismcts`` at ``--iterations`` per decision with greedy rollouts
   (the default) vs ``rollout=weights``, on the first decisions of the landlord and both
   farmers in ``--positions`` deals; one agent per engine and round.

Run: ``python benchmarks/bench_weights_compiled.py [--deals 20] [--rounds 3]``; stored
output: benchmarks/results/bench_weights_compiled.txt. The machine may be shared: read the
ratios (same process, interleaved), and the load printed first.
"""
from __future__ import annotations

import argparse
import os

import numpy as np
from numba import njit
from _common import Engine, table, time_rounds

from ddzlab.agents import make_agent, play_game
from ddzlab.agents.weights import WeightsAgent
from ddzlab.agents.weights_compiled import WeightsCore
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves.compiled import MAX_MOVES, SCRATCH
from ddzlab.rules import STANDARD
from ddzlab.search import from_game
from ddzlab.search.state import legal
from ddzlab.search.weights import choose_weights


@njit
def _choose_all(t, pt, w, states):
    """The weights choice at each state (a row), legal moves listed first: a rollout's steps."""
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    k = 0
    for i in range(states.shape[0]):
        n = legal(t, states[i], oc, om, sc)
        k += choose_weights(t, pt, w, states[i], oc, om, n)
    return k


def self_play_logs(deals) -> list[list[list]]:
    """Per game, per seat: the observations of every decision of weights self-play."""
    out = []
    for d in deals:
        game = Game(d, landlord=0)
        logs: list[list] = [[], [], []]
        agents = [WeightsAgent() for _ in range(3)]
        while not game.is_over:
            obs = game.observation(game.to_act)
            logs[game.to_act].append((obs, from_game(game)))
            game.push(agents[game.to_act].play(obs))
        out.append(logs)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=int, default=20)
    p.add_argument("--positions", type=int, default=6)
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    deals = generate_deals(args.deals, seed=20261)       # benchmark positions, not an evaluation
    core = WeightsCore()
    t, pt, w = core.tables(STANDARD)
    games = self_play_logs(deals)
    n = sum(len(seat) for g in games for seat in g)
    core.play(games[0][0][0][0])                          # compile or load the kernels untimed
    core.result(Game(deals[0], landlord=0))

    def python_moves():
        for g in games:
            for seat in g:
                agent = WeightsAgent()
                for obs, _ in seat:
                    agent.play(obs)

    def compiled_obs():
        for g in games:
            for seat in g:
                for obs, _ in seat:
                    core.play(obs)

    states = np.array([st for g in games for seat in g for _, st in seat])
    _choose_all(t, pt, w, states[:2])

    def kernel():
        _choose_all(t, pt, w, states)

    def clear():
        pt.keys[:] = 0
        pt.count[0] = 0

    engines = time_rounds([Engine("python WeightsAgent.play", python_moves, n),
                           Engine("compiled, from the observation", compiled_obs, n, clear),
                           Engine("compiled kernel on a state", kernel, n, clear)], args.rounds)
    print(f"\n1. {n} decisions of {len(games)} weights self-play games (every seat):")
    print(table(engines, "moves/s", "python WeightsAgent.play"))

    def python_games():
        for d in deals:
            play_game(Game(d, landlord=0), [WeightsAgent() for _ in range(3)])

    def compiled_games():
        for d in deals:
            core.result(Game(d, landlord=0))

    engines = time_rounds([Engine("python play_game", python_games, len(deals)),
                           Engine("compiled WeightsCore.result", compiled_games, len(deals), clear)], args.rounds)
    print(f"\n2. weights self-play, {len(deals)} deals, seat 0 landlord:")
    print(table(engines, "games/s", "python play_game"))

    obs = []
    for d in generate_deals(args.positions, seed=20262):
        game = Game(d, landlord=0)
        greedy = make_agent("greedy")
        for _ in range(3):
            o = game.observation(game.to_act)
            if len(o.legal_moves) > 1:                    # (one legal move is played unsearched)
                obs.append(o)
            game.push(greedy.play(o))

    def search(spec):
        def run():
            agent = make_agent(spec, seed=0)
            for o in obs:
                agent.play(o)
        return run
    specs = {"greedy rollouts": f"ismcts:iterations={args.iterations}",
             "weights rollouts": f"ismcts:iterations={args.iterations},rollout=weights"}
    for spec in specs.values():
        make_agent(spec, seed=0).play(obs[0])
    engines = time_rounds([Engine(name, search(spec), args.iterations * len(obs)) for name, spec in specs.items()],
                          args.rounds)
    print(f"\n3. ismcts, {args.iterations} iterations on each of {len(obs)} decisions (numba backend):")
    print(table(engines, "iterations/s", "greedy rollouts"))


if __name__ == "__main__":
    main()
