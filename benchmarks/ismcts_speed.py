"""The compiled default `ismcts` alone, at any budget: milliseconds a move and iterations a second.

`bench_search.py` times the default `ismcts` at 200 iterations against the Python loops; this
script times the compiled search only, so it can run the default budget (8,000 iterations a
move) and compare two versions of the core, run alternately on the same deals:

    PYTHONPATH=/path/to/old python benchmarks/ismcts_speed.py --deals 8
    PYTHONPATH=/path/to/new python benchmarks/ismcts_speed.py --deals 8

The games are `bench_search.py`'s (seat 0 searching, landlord, against two random farmers; deals
seeded 2000), timed as it times them (CPU time of each decision with more than one legal
move, `bench_search._Clocked`), after one untimed game that loads the compiled code.
"""
from __future__ import annotations

import argparse

from bench_search import _Clocked, generate_deals

from ddzlab.agents import make_agent
from ddzlab.agents.base import play_game
from ddzlab.game import Game


def moves(spec: str, deals, acc: list) -> None:
    for i, deal in enumerate(deals):
        agent = _Clocked(make_agent(spec, seed=i, backend="numba"), acc)
        farmers = [make_agent("random", seed=[i, s]) for s in (1, 2)]
        play_game(Game(deal, landlord=0), [agent, *farmers])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--spec", default="ismcts", help="the agent (default: `ismcts` at its default budget)")
    args = ap.parse_args()
    moves(args.spec, generate_deals(1, seed=99), [0.0, 0, 0])
    acc = [0.0, 0, 0]
    moves(args.spec, generate_deals(args.deals, seed=2000), acc)
    print(f"{args.spec}: {1000 * acc[0] / acc[1]:.2f} ms/move, {acc[2] / acc[0]:,.0f} iterations/s over {acc[1]} moves")


if __name__ == "__main__":
    main()
