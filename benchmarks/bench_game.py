"""Random self-play speed: ddzlab's `Game` against DouZero's `GameEnv` and RLCard's env.

Every engine plays full games with uniformly random legal actions through its public API,
in this process, under the rules of `_common` (interleaved rounds, the same GC state —
``gc.collect()`` before each round and the collector off during it — finished games dropped
by all, CPU time, best and median):

* ``ddzlab Game`` — ``play_game(Game(deal, landlord=0), agents)`` with three `RandomAgent`:
  every move builds the seat's `Observation` (legal moves included) and the agent picks one;
* ``DouZero GameEnv`` — ``card_play_init`` + ``step`` until over, agents picking uniformly
  from ``infoset.legal_actions`` (the same draw as ddzlab's random agent);
* both on the same deals (DouZero's evaluation layout: seat 0 is landlord with the kitty, no
  bidding), each round replaying the same games (the agents are re-seeded per round);
* ``RLCard game (raw)`` — its Game object driven with random legal actions, and ``RLCard
  env.run`` — its env with its stock random agents (adds state encoding). RLCard deals its
  own cards (its public API takes no deal), re-seeded per round.

One untimed warm-up round fills every engine's lazily built tables first.

    python benchmarks/bench_game.py [--games N] [--rounds R] [--seed S] [--wall]
"""
from __future__ import annotations

import argparse

import numpy as np

from ddzlab.agents import RandomAgent, play_game
from ddzlab.deals import generate_deals
from ddzlab.game import Game

from _common import DouZeroRandom, Engine, douzero_cards as env_cards, table, timing_args, warm_and_time


def ddzlab_round(deals, seed: int):
    def run() -> None:
        agents = [RandomAgent(np.random.default_rng([seed, s])) for s in range(3)]
        for deal in deals:
            play_game(Game(deal, landlord=0), agents)
    return run


def douzero_round(deals, seed: int):
    from douzero.env.game import GameEnv

    inits = []
    for deal in deals:
        data = {"landlord": env_cards(deal.hands[0] + deal.kitty),
                "landlord_down": env_cards(deal.hands[1]),
                "landlord_up": env_cards(deal.hands[2]),
                "three_landlord_cards": env_cards(deal.kitty)}
        for v in data.values():
            v.sort()
        inits.append(data)

    def run() -> None:
        rng = np.random.default_rng(seed)
        env = GameEnv({p: DouZeroRandom(rng) for p in ("landlord", "landlord_down", "landlord_up")})
        for data in inits:
            env.card_play_init({k: list(v) for k, v in data.items()})
            while not env.game_over:
                env.step()
            env.reset()
    return run


def rlcard_env_round(n: int, seed: int):
    import rlcard
    from rlcard.agents import RandomAgent as RLRandom

    def run() -> None:
        env = rlcard.make("doudizhu", config={"seed": seed})
        np.random.seed(seed)        # RLCard's random agent draws from numpy's global state
        env.set_agents([RLRandom(num_actions=env.num_actions) for _ in range(env.num_players)])
        for _ in range(n):
            env.run(is_training=False)
    return run


def rlcard_raw_round(n: int, seed: int):
    """RLCard's Game object driven directly (no state encoding): its raw game speed."""
    from rlcard.games.doudizhu.game import DoudizhuGame

    def run() -> None:
        game = DoudizhuGame()
        game.np_random = np.random.RandomState(seed)
        rng = np.random.default_rng(seed)
        for _ in range(n):
            state, _ = game.init_game()
            while not game.is_over():
                actions = state["actions"]
                state, _ = game.step(actions[int(rng.random() * len(actions))])
    return run


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    args = timing_args(ap).parse_args(argv)
    deals = generate_deals(args.games, seed=args.seed)
    engines = [Engine("ddzlab Game", ddzlab_round(deals, args.seed), len(deals))]
    ref = engines[0].name
    try:
        engines.append(Engine("DouZero GameEnv", douzero_round(deals, args.seed), len(deals)))
        ref = engines[-1].name
    except ImportError:
        print("douzero not installed: pip install --no-deps douzero==1.1.0")
    try:
        n_raw, n_env = max(20, args.games // 2), max(10, args.games // 5)
        engines.append(Engine("RLCard game (raw)", rlcard_raw_round(n_raw, args.seed), n_raw))
        engines.append(Engine("RLCard env.run", rlcard_env_round(n_env, args.seed), n_env))
    except ImportError:
        print("rlcard not installed: pip install rlcard==1.2.0")
    clock = warm_and_time(engines, args)
    print(f"random self-play, {args.games} games (seat 0 landlord; RLCard: its own deals), "
          f"{args.rounds} rounds, GC off, {clock} time")
    print(table(engines, "games/s", ref))


if __name__ == "__main__":
    main()
