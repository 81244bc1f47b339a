"""Seeded game records of the compiled searches, to compare two versions of the core.

A change meant to speed the core up without changing its play must give the same games
for the same seeds: the same legal lists in the same order and the same random draws. This
script plays whole games of eight compiled searches (UCT with random, greedy and halfsolo
rollouts in every seat; ``ismcts`` default, with random rollouts, with widening, bias and
the policy's move kept, with half-modelled opponents, and the strongest agent, at seat 0
against random farmers) on all four rule sets and writes one line per game: rule set, search,
deal, then every move as ``seat:move``. Run it on both versions and compare the files:

    PYTHONPATH=/path/to/old python benchmarks/game_records.py 16 old.txt
    PYTHONPATH=/path/to/new python benchmarks/game_records.py 16 new.txt
    cmp old.txt new.txt
"""
from __future__ import annotations

import argparse
import warnings

from ddzlab.agents import make_agent
from ddzlab.agents.base import play_game
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.rules import RULESETS

#: (search, whether it plays every seat on the true deal)
SEARCHES = [("mcts_cheat:rollout=random,moves=all,iterations=200", True),
            ("ismcts:iterations=200", False),
            ("mcts_cheat:rollout=greedy,iterations=100", True),
            ("mcts_cheat:rollout=halfsolo,iterations=100", True),
            ("ismcts:rollout=random,iterations=150", False),
            ("ismcts:iterations=150,widen=0.5,bias=0.5,moves=split+policy", False),
            ("ismcts:iterations=150,others=0.5", False),
            ("ismcts_modelled:iterations=60", False)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("deals", type=int, help="deals per rule set and search")
    ap.add_argument("out", help="the records file to write")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    with open(args.out, "w") as out:
        for name in ("standard", "mini", "homework", "wildcard"):
            rules = RULESETS[name]
            for k, (spec, cheat) in enumerate(SEARCHES):
                for i, deal in enumerate(generate_deals(args.deals, seed=500 + k, rules=rules)):
                    game = Game(deal, rules=rules, landlord=0)
                    agents = [make_agent(spec, seed=[i, s], backend="numba") if cheat or s == 0
                              else make_agent("random", seed=[i, s]) for s in range(game.players)]
                    play_game(game, agents)
                    out.write(f"{name} {k} {i} " + " ".join(f"{s}:{m}" for s, m in game.history) + "\n")


if __name__ == "__main__":
    main()
