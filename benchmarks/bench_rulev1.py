"""Speed of `rulev1` (RLCard's rule agent inside ddzlab) against greedy and RLCard's own env.

Three contenders play full games (seat 0 landlord, no bidding), timed in interleaved rounds
with the same GC state (`_common.time_rounds`):

* ``rulev1 x3``: three `rulev1` agents in ddzlab's `Game` (the translation + RLCard's agent);
* ``greedy x3``: three greedy agents in ddzlab's `Game`;
* ``RLCard env.run``: RLCard's env with three of its own ``DouDizhuRuleAgentV1`` (the peer
  as RLCard runs it; it deals its own cards, so its games are other games).

Every contender first plays 20 untimed games (tables, caches, imports warm for all).

Prints games/s and moves/s, best and median, with ratios to ``rulev1 x3``.

    python benchmarks/bench_rulev1.py [--games N] [--rounds R] [--seed S]
"""
from __future__ import annotations

import argparse

from ddzlab.agents import make_agent, play_game
from ddzlab.deals import generate_deals
from ddzlab.game import Game

from _common import Engine, table, time_rounds


def ddzlab_round(name: str, deals, seed: int, moves: list[int]):
    def run() -> None:
        total = 0
        for i, deal in enumerate(deals):
            agents = [make_agent(name, seed=seed * 1_000_003 + 3 * i + s) for s in range(3)]
            total += len(play_game(Game(deal, landlord=0), agents).history)
        moves.append(total)
    return run


def rlcard_round(games: int, seed: int, moves: list[int]):
    import numpy as np
    import rlcard
    from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
    env = rlcard.make("doudizhu", config={"seed": seed})
    env.set_agents([DouDizhuRuleAgentV1() for _ in range(3)])

    def run() -> None:
        saved = np.random.get_state()
        env.seed(seed)                  # the same deals every round
        np.random.seed(seed)            # its rule agents draw from numpy's global state
        total = 0
        for _ in range(games):
            env.run(is_training=False)
            total += len(env.game.round.trace)
        np.random.set_state(saved)
        moves.append(total)
    return run


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    deals = generate_deals(args.games, seed=args.seed)
    moves: dict[str, list[int]] = {"rulev1 x3": [], "greedy x3": [], "RLCard env.run": []}
    engines = [Engine("rulev1 x3", ddzlab_round("rulev1", deals, args.seed, moves["rulev1 x3"]), args.games),
               Engine("greedy x3", ddzlab_round("greedy", deals, args.seed, moves["greedy x3"]), args.games),
               Engine("RLCard env.run", rlcard_round(args.games, args.seed, moves["RLCard env.run"]), args.games)]
    for name in ("rulev1", "greedy"):          # untimed warm-up of every engine alike:
        ddzlab_round(name, deals[:20], args.seed, [])()      # tables, caches, imports
    rlcard_round(20, args.seed, [])()
    time_rounds(engines, args.rounds)
    print(f"full games, {args.games} per round, {args.rounds} rounds (seat 0 landlord):")
    print(table(engines, "games/s", "rulev1 x3"))
    for e in engines:
        e.items = moves[e.name][0]          # every round plays the same games
        assert len(set(moves[e.name])) == 1, f"{e.name} played different games in different rounds"
    print(table(engines, "moves/s", "rulev1 x3"))


if __name__ == "__main__":
    main()
