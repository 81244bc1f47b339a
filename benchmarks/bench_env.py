"""Environment steps per second with random legal actions: ddzlab's PettingZoo env against
RLCard's ``doudizhu`` env and DouZero's env, in this process.

A *step* is one player's action: the environment applies it and produces what the next
player sees. Every contender runs exactly ``--steps`` steps per round (a finished game is
reset and play goes on), choosing uniformly among the legal actions its own API offers,
under the rules of `_common` (interleaved rounds, GC collected before and off during each
round, CPU time, best and median):

* ``ddzlab AEC (compact)`` -- `ddzlab.env.DouDizhuEnv`, PettingZoo's loop:
  ``for agent in env.agent_iter(): obs, ... = env.last(); env.step(choice)``, the choice
  drawn from ``np.flatnonzero(obs["action_mask"].view(bool))``; each step encodes the acting
  seat's compact observation (170 values) and its 26,156-entry action mask. The steps a
  finished agent makes with ``None`` (PettingZoo's protocol) are timed, not counted.
* ``ddzlab AEC (douzero)`` -- the same with DouZero's features (x_no_action and z).
* ``RLCard env`` -- ``rlcard.make("doudizhu")``: ``env.step(a)`` with ``a`` drawn from
  ``state["legal_actions"]``; each step encodes RLCard's observation (its 790-value state).
* ``DouZero Env`` -- ``douzero.env.env.Env("wp")``, the environment DouZero trains with:
  ``env.step(a)`` with ``a`` from ``obs["legal_actions"]``; each step runs ``get_obs`` (its
  x_batch / z_batch for every legal action).
* ``DouZero GameEnv`` -- its bare game (``GameEnv.step`` with an agent drawing from
  ``infoset.legal_actions``): the infoset only, no features; the floor of its env.

The fixed-landlord deal of DouZero's protocol for ddzlab and DouZero; RLCard bids its own.

    python benchmarks/bench_env.py [--steps N] [--rounds R] [--seed S] [--wall]
"""
from __future__ import annotations

import argparse

import numpy as np

from _common import DouZeroRandom, Engine, table, timing_args, warm_and_time


def ddzlab_round(steps: int, seed: int, encoding: str):
    from ddzlab.env import DouDizhuEnv

    def run() -> None:
        env = DouDizhuEnv(encoding=encoding)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = 0
        while done < steps:
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"].view(bool))
                env.step(int(legal[int(rng.random() * len(legal))]))
                done += 1
                if done == steps:
                    break
            env.reset()
    return run


def rlcard_round(steps: int, seed: int):
    import rlcard

    def run() -> None:
        env = rlcard.make("doudizhu", config={"seed": seed})
        rng = np.random.default_rng(seed)
        state, _ = env.reset()
        for _ in range(steps):
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.random() * len(legal))])
            if env.is_over():
                state, _ = env.reset()
    return run


def douzero_env_round(steps: int, seed: int):
    from douzero.env.env import Env

    def run() -> None:
        np.random.seed(seed)           # DouZero's Env shuffles with numpy's global generator
        env = Env("wp")
        rng = np.random.default_rng(seed)
        obs = env.reset()
        for _ in range(steps):
            legal = obs["legal_actions"]
            obs, _, over, _ = env.step(legal[int(rng.random() * len(legal))])
            if over:
                obs = env.reset()
    return run


def douzero_game_round(steps: int, seed: int):
    from douzero.env.env import Env

    def run() -> None:
        np.random.seed(seed)
        shell = Env("wp")                # its reset deals; its GameEnv is driven bare
        rng = np.random.default_rng(seed)
        game = shell._env
        game.players = {p: DouZeroRandom(rng) for p in ("landlord", "landlord_down", "landlord_up")}
        shell.reset()
        for _ in range(steps):
            game.step()
            if game.game_over:
                shell.reset()
    return run


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20000)
    args = timing_args(ap).parse_args(argv)
    n = args.steps
    engines = [Engine("ddzlab AEC (compact)", ddzlab_round(n, args.seed, "compact"), n),
               Engine("ddzlab AEC (douzero)", ddzlab_round(n, args.seed, "douzero"), n)]
    refs = []
    try:
        engines.append(Engine("RLCard env", rlcard_round(n, args.seed), n))
        refs.append("RLCard env")
    except ImportError:
        print("rlcard not installed: pip install rlcard==1.2.0")
    try:
        engines.append(Engine("DouZero Env", douzero_env_round(n, args.seed), n))
        engines.append(Engine("DouZero GameEnv", douzero_game_round(n, args.seed), n))
        refs += ["DouZero Env", "DouZero GameEnv"]
    except ImportError:
        print("douzero not installed: pip install --no-deps douzero==1.1.0")
    clock = warm_and_time(engines, args)          # the warm-up builds move tables and the move index
    print(f"environment steps with random legal actions, {n:,} steps per round, {args.rounds} rounds, "
          f"GC off, {clock} time")
    for ref in refs or [engines[0].name]:
        print(table(engines, "steps/s", ref))
        print()


if __name__ == "__main__":
    main()
