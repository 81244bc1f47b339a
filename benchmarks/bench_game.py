"""Random self-play speed: ddzlab's `Game` against DouZero's `GameEnv` and RLCard's env.

Every engine plays full games with uniformly random legal actions, in this process, on
the same deals (DouZero's evaluation layout: seat 0 is landlord with the kitty, no
bidding). RLCard deals its own cards (no way to inject a deal through its public API); it is
measured twice: its Game object driven with random legal actions ("raw"), and its env with
its stock random agents (which adds state encoding). Prints games/s and ratios.

    python benchmarks/bench_game.py [--games N] [--seed S]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ddzlab.agents import RandomAgent, play_game
from ddzlab.deals import generate_deals
from ddzlab.game import Game

from _common import douzero_cards as env_cards


def bench_ddzlab(deals, seed: int) -> float:
    agents = [RandomAgent(np.random.default_rng([seed, s])) for s in range(3)]
    t = time.perf_counter()
    for deal in deals:
        play_game(Game(deal, landlord=0), agents)
    return len(deals) / (time.perf_counter() - t)


def bench_douzero(deals, seed: int) -> float:
    from douzero.env.game import GameEnv

    class Random:
        """Uniform over DouZero's legal actions (drawn from a numpy generator)."""
        def __init__(self, rng):
            self.rng = rng

        def act(self, infoset):
            actions = infoset.legal_actions
            return actions[int(self.rng.random() * len(actions))]

    rng = np.random.default_rng(seed)
    players = {p: Random(rng) for p in ("landlord", "landlord_down", "landlord_up")}
    env = GameEnv(players)
    t = time.perf_counter()
    for deal in deals:
        data = {"landlord": env_cards(deal.hands[0] + deal.kitty),
                "landlord_down": env_cards(deal.hands[1]),
                "landlord_up": env_cards(deal.hands[2]),
                "three_landlord_cards": env_cards(deal.kitty)}
        for v in data.values():
            v.sort()
        env.card_play_init(data)
        while not env.game_over:
            env.step()
        env.reset()
    return len(deals) / (time.perf_counter() - t)


def bench_rlcard(n: int, seed: int) -> float:
    import rlcard
    from rlcard.agents import RandomAgent as RLRandom
    env = rlcard.make("doudizhu", config={"seed": seed})
    np.random.seed(seed)        # RLCard's random agent draws from numpy's global state
    env.set_agents([RLRandom(num_actions=env.num_actions) for _ in range(env.num_players)])
    t = time.perf_counter()
    for _ in range(n):
        env.run(is_training=False)
    return n / (time.perf_counter() - t)


def bench_rlcard_raw(n: int, seed: int) -> float:
    """RLCard's Game object driven directly (no state encoding): its raw game speed."""
    from rlcard.games.doudizhu.game import DoudizhuGame
    game = DoudizhuGame()
    game.np_random = np.random.RandomState(seed)
    rng = np.random.default_rng(seed)
    t = time.perf_counter()
    for _ in range(n):
        state, _ = game.init_game()
        while not game.is_over():
            actions = state["actions"]
            state, _ = game.step(actions[int(rng.random() * len(actions))])
    return n / (time.perf_counter() - t)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    deals = generate_deals(args.games, seed=args.seed)
    bench_ddzlab(deals[:50], args.seed)            # warm the move tables
    rows = [("ddzlab Game", bench_ddzlab(deals, args.seed))]
    try:
        rows.append(("DouZero GameEnv", bench_douzero(deals, args.seed)))
    except ImportError:
        print("douzero not installed: pip install --no-deps douzero==1.1.0")
    try:
        rows.append(("RLCard game (raw)", bench_rlcard_raw(max(50, args.games // 2), args.seed)))
        rows.append(("RLCard env.run", bench_rlcard(max(50, args.games // 5), args.seed)))
    except ImportError:
        print("rlcard not installed: pip install rlcard==1.2.0")
    ours = rows[0][1]
    print(f"random self-play, {args.games} games (seat 0 landlord), games/s:")
    print(f"{'engine':<20}{'games/s':>10}{'ddzlab ×':>10}")
    for name, rate in rows:
        print(f"{name:<20}{rate:>10.1f}{ours / rate:>10.2f}")


if __name__ == "__main__":
    main()
