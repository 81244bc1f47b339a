"""The compiled endgame solver (`ddzlab.search.endgame`) against the Python one
(`ddzlab.analysis.endgame`), on the same self-play positions of 8, 12, 16, 20 and 24 cards.

Why: a search may replace a rollout by the exact result when that costs about a millisecond;
this measures, per number of cards left in all hands, how long the compiled solve takes
(median and 95th percentile) and how many positions it searches, so the cutoff can be read
off the table. The Python solver runs on the same positions in the same process; the ratio
is of medians.

Positions: games on generated deals (seeded), each seat playing greedy or uniformly random
moves (drawn per game); a game gives its first position with exactly N cards in all, leading
or following as it comes. Both solvers start every position with an empty memo (the compiled
one's time includes making it; the state array is made before, as a search has it), the
garbage collector is collected before each series and off during it, the clock is this
process's CPU time (``--wall``: wall time) (`_common`), and a position's time is the least of
``--repeat`` runs (the same for both solvers). Where both finished, the script checks that
they searched the same number of positions (the same search).

``in budget``: the share of positions a search calling the solver with ``max_nodes=--budget``
would have answered (the others return -1: the search keeps its rollout). The compiled solver
stops after ``--nodes`` positions, the Python one after ``--python-nodes`` (``cut``: its time
is then a lower bound).

Run: ``nice -n 10 python benchmarks/bench_endgame.py [--positions 40] [--sizes 8 12 16 20 24]
[--players 3] [--rules standard] [--seed 0] [--repeat 3] [--budget 2000] [--wall]``.
"""
from __future__ import annotations

import argparse
import gc
import time
from typing import Callable

import numpy as np

from ddzlab.agents import make_agent
from ddzlab.analysis import solve_endgame
from ddzlab.errors import SearchLimitError
from ddzlab.game import Game
from ddzlab.moves.compiled import core_table
from ddzlab.rules import get_rules
from ddzlab.search.endgame import new_memo, solve_count
from ddzlab.search.state import from_game


def positions(rules, players: int, size: int, count: int, seed: int) -> list[Game]:
    """``count`` positions with exactly ``size`` cards in all, one per self-play game."""
    rng = np.random.default_rng([seed, size])
    greedy = make_agent("greedy")
    out: list[Game] = []
    while len(out) < count:
        lord = int(rng.integers(3)) if players == 3 else None
        game = Game(rules=rules, seed=rng, players=players, landlord=lord)
        greedy_seat = rng.random(players) < 0.5
        while not game.is_over and sum(game.sizes) > size:
            if greedy_seat[game.to_act]:
                move = greedy.play(game.observation(game.to_act))
            else:
                legal = game.legal_moves()
                move = legal[int(rng.integers(len(legal)))]
            game.play(move)
        if not game.is_over and sum(game.sizes) == size:
            out.append(game.copy())
    return out


def python_solve(game: Game, max_nodes: int) -> int:
    """Nodes of the Python solve of ``game`` (-1: stopped at ``max_nodes``)."""
    try:
        return solve_endgame([game.hand(s) for s in range(game.players)], game.rules, to_move=game.to_act,
                             to_beat=game.last_move, last_seat=game.last_seat,
                             landlord=0 if game.landlord is None else game.landlord,
                             max_nodes=max_nodes).nodes
    except SearchLimitError:
        return -1


def timed(fn: Callable[[object], int], items: list, clock: Callable[[], float],
          repeat: int) -> tuple[list[float], list[int]]:
    """Seconds (the least of ``repeat`` runs: on a shared machine, the others include waits)
    and nodes of ``fn(x)`` per item; GC collected first and off during the series."""
    secs, nodes = [], []
    gc.collect()
    gc.disable()
    try:
        for x in items:
            best = float("inf")
            for _ in range(repeat):
                t = clock()
                n = fn(x)
                best = min(best, clock() - t)
            secs.append(best)
            nodes.append(n)
    finally:
        gc.enable()
    return secs, nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--sizes", type=int, nargs="+", default=[8, 12, 16, 20, 24])
    ap.add_argument("--players", type=int, default=3, choices=(2, 3))
    ap.add_argument("--rules", default="standard")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="runs per position and solver; the least time counts")
    ap.add_argument("--nodes", type=int, default=2_000_000, help="node budget of the compiled solver")
    ap.add_argument("--python-nodes", type=int, default=300_000, help="node budget of the Python solver")
    ap.add_argument("--budget", type=int, default=2_000,
                    help="the 'in budget' column: the share of positions solved within this many nodes")
    ap.add_argument("--wall", action="store_true", help="wall-clock time instead of this process's CPU time")
    args = ap.parse_args()
    rules = get_rules(args.rules)
    clock = time.perf_counter if args.wall else time.process_time
    t = core_table(rules)

    def compiled(st: np.ndarray) -> int:
        got, nodes = solve_count(t, st, args.nodes, new_memo())
        return int(nodes) if got >= 0 else -1

    warm = positions(rules, args.players, 8, 2, args.seed + 1)
    for g in warm:                    # compile (or load) the kernels outside the timing
        compiled(from_game(g))
    print(f"{rules.name}, {args.players} players, {args.positions} positions per size, {'wall' if args.wall else 'CPU'}"
          f" time per position; p95 = 95th percentile; in budget = solved within {args.budget:,} nodes;"
          " ratio = Python median / compiled median")
    head = (f"{'cards':>5} | {'compiled ms median':>18} {'p95':>8} {'max':>8} {'nodes med':>9} {'p95':>8} "
            f"{'<1ms':>5} {'in budget':>9} | {'Python ms median':>16} {'p95':>8} {'cut':>4} | {'ratio':>6} {'nodes/s compiled':>16}")
    print(head)
    print("-" * len(head))
    for size in args.sizes:
        games = positions(rules, args.players, size, args.positions, args.seed)
        cs, cn = timed(compiled, [from_game(g) for g in games], clock, args.repeat)
        ps, pn = timed(lambda g: python_solve(g, min(args.python_nodes, args.nodes)), games, clock, args.repeat)
        both = [i for i in range(len(games)) if cn[i] >= 0 and pn[i] >= 0]
        assert all(cn[i] == pn[i] for i in both), "the two solvers searched different positions"
        c_ms, p_ms = np.array(cs) * 1e3, np.array(ps) * 1e3
        done = np.array([n for n in cn if n >= 0])
        rate = done.sum() / sum(s for s, n in zip(cs, cn) if n >= 0) if len(done) else float("nan")
        print(f"{size:5d} | {np.median(c_ms):18.3f} {np.percentile(c_ms, 95):8.3f} {c_ms.max():8.2f} "
              f"{np.median(done) if len(done) else -1:9.0f} {np.percentile(done, 95) if len(done) else -1:8.0f} "
              f"{np.mean(c_ms < 1):5.0%} {np.mean([0 <= n <= args.budget for n in cn]):9.0%} | {np.median(p_ms):16.2f} {np.percentile(p_ms, 95):8.1f} "
              f"{sum(n < 0 for n in pn):4d} | {np.median(p_ms) / np.median(c_ms):5.0f}x {rate:16,.0f}")


if __name__ == "__main__":
    main()
