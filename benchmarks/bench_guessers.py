"""The search's guessers on both backends: ms a move of ismcts, compiled against Python.

Notebook 05's guessers (`ddzlab.agents.mcts.make_guesser` names) at the study's budget. The
positions are the decisions (more than one legal move) of a few seeded greedy self-play games
on the standard rules; at each, a fresh agent (so a pool guesser builds its candidate deals
as it does at every real decision) searches once on each backend. Backends are timed in
interleaved rounds in this process (CPU time, `benchmarks/_common.py`'s rules); the table
gives the median round's ms a move and the ratio Python / compiled. The policy guessers
build their pool in Python on both backends: the ``pool ms`` column is that part (the same
work on both), so their ratio is bounded by it.

    python benchmarks/bench_guessers.py [--iterations 800] [--positions 12] [--rounds 3]
"""
from __future__ import annotations

import argparse
import gc
import statistics
import time
import warnings

from ddzlab.agents import make_agent
from ddzlab.agents.base import play_game
from ddzlab.agents.greedy import GreedyAgent
from ddzlab.deals import generate_deals
from ddzlab.game import Game

GUESSERS = ("uniform", "bomb", "policy", "policy64", "policy256", "mcmc", "oracle0.5")


def positions(n: int, seed: int = 5) -> list[Game]:
    """``n`` decisions with a choice, spread over seeded greedy self-play games."""
    out: list[Game] = []
    for deal in generate_deals(n, seed=seed):
        final = play_game(Game(deal, landlord=0), [GreedyAgent()] * 3)
        game = Game(deal, landlord=0)
        for k, (seat, move) in enumerate(final.history):
            if k % 7 == 3 and len(game.legal_moves()) > 1 and len(out) < n:
                out.append(game.copy())
            game.play(move, seat)
    return out


def search_ms(guesser: str, backend: str, games: list[Game], iterations: int) -> tuple[float, float]:
    """(ms a move, ms of it building pools) of one round over the positions."""
    gc.collect()
    total = pool = 0.0
    for i, game in enumerate(games):
        agent = make_agent(f"ismcts:iterations={iterations},guesser={guesser},backend={backend}", seed=i)
        obs = game.observation(game.to_act)
        if hasattr(agent, "see_all_hands"):
            agent.see_all_hands(game)
        t = time.process_time()
        build = getattr(agent.guesser, "pool", None)
        if build is not None:                 # the pool on its own (the search then reuses it)
            build(obs, agent.rng)
            pool += time.process_time() - t
        agent.play(obs)
        total += time.process_time() - t
        assert agent.last_backend == backend, (guesser, backend, agent.last_backend)
    return 1000 * total / len(games), 1000 * pool / len(games)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=800)
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--guessers", nargs="*", default=list(GUESSERS))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    games = positions(args.positions)
    for g in args.guessers:                   # warm up: numba's cache, the greedy memo
        search_ms(g, "numba", games[:1], 10)
    print(f"ismcts at {args.iterations} iterations, {len(games)} standard positions, {args.rounds} interleaved "
          f"rounds, median round (CPU ms a move)")
    print(f"{'guesser':10s} {'compiled':>9s} {'python':>9s} {'python/compiled':>16s} {'pool ms':>8s}")
    for g in args.guessers:
        runs: dict[str, list[float]] = {"numba": [], "python": []}
        pools = []
        for _ in range(args.rounds):
            for backend in runs:
                ms, pool = search_ms(g, backend, games, args.iterations)
                runs[backend].append(ms)
                pools.append(pool)
        c, p = statistics.median(runs["numba"]), statistics.median(runs["python"])
        print(f"{g:10s} {c:9.1f} {p:9.1f} {p / c:16.1f} {statistics.median(pools):8.1f}", flush=True)


if __name__ == "__main__":
    main()
