"""Search speed: ddzlab's compiled core against OpenSpiel's C++ and against its own Python path.

Three comparisons, each timed in this one process, in interleaved rounds whose order
alternates (A B, then B A), in CPU time (``time.process_time``), every engine run once
untimed first (compiled code loaded, move tables and OpenSpiel's game built), the garbage
collector collected before and disabled during every timed part for every engine (as
`_common.time_rounds`):

1. **UCT on the true deal, random rollouts, 200 iterations a move**: ddzlab's
   ``mcts_cheat:rollout=random,moves=all,iterations=200`` (compiled) against OpenSpiel
   2.0.2's ``pyspiel.MCTSBot`` with ``RandomRolloutEvaluator(1, seed)`` on its own
   ``dou_dizhu`` (uct_c 2, no solver). Every seat of a game searches; whole games; the time
   per move of the card play (OpenSpiel's bidding moves are not counted; ddzlab's games
   start at the play with seat 0 as landlord). Target: ddzlab's time per move ≤ OpenSpiel's.
2. **The default ``ismcts``** (split filter, greedy rollouts, 200 iterations): the compiled
   backend against ``backend=python``, seat 0 against two random farmers (as
   bench_mcts.py), iterations per second. Target: ≥ 10×.
3. **Random playouts**: whole random games inside the core (``ddzlab.search.policies.rollout``
   from a fresh deal) against OpenSpiel's C++ game driven step by step from Python
   (``apply_action`` of a random legal action), and ddzlab's Python `Game` driven the same
   way; games per second, each from a dealt position at the start of the card play: the
   deals (and OpenSpiel's random bidding) are made untimed for every engine, since the core
   and `Game` are timed from a dealt game too.

    python benchmarks/bench_search.py [--rounds 3] [--games 2] [--deals 2] [--playouts 300]

OpenSpiel is optional (``pip install -e '.[openspiel]'``); without it the OpenSpiel columns
are skipped with a note. The machine is shared: read the ratios of one run, not the
absolute times, and note the load (printed).
"""
from __future__ import annotations

import argparse
import gc
import os
import time
from contextlib import contextmanager

import numpy as np

from ddzlab.agents import make_agent
from ddzlab.agents.base import play_game
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves.compiled import MAX_MOVES, core_table
from ddzlab.rules import STANDARD
from ddzlab.search import from_game
from ddzlab.search.policies import POLICIES, rollout
from ddzlab.search.tree import seed as seed_core
from ddzlab.search.weights import stand_in

UCT = "mcts_cheat:rollout=random,moves=all,iterations=200"

try:
    import pyspiel
except ImportError:           # the optional extra
    pyspiel = None


@contextmanager
def _gc_off():
    """The same collector state for every timed part (`_common.time_rounds`' rule)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _Clocked:
    """An agent wrapper adding CPU seconds and searched moves (forced moves excluded)."""

    def __init__(self, agent, acc: list) -> None:
        self.agent, self.acc = agent, acc

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def play(self, obs):
        t = time.process_time()
        move = self.agent.play(obs)
        dt = time.process_time() - t
        if self.agent.last_iterations:
            self.acc[0] += dt
            self.acc[1] += 1
            self.acc[2] += self.agent.last_iterations
        return move


def ddzlab_uct_games(deals, seed: int, acc: list) -> None:
    for i, deal in enumerate(deals):
        agents = [_Clocked(make_agent(UCT, seed=[seed, i, s]), acc) for s in range(3)]
        play_game(Game(deal, landlord=0), agents)


def openspiel_uct_games(n: int, seed: int, acc: list) -> None:
    game = pyspiel.load_game("dou_dizhu")
    rng = np.random.default_rng(seed)
    for g in range(n):
        bots = [pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed * 1000 + 10 * g + s), 2.0, 200,
                                1000, False, seed * 1000 + 10 * g + s, False) for s in range(3)]
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            t = time.process_time()
            action = bots[state.current_player()].step(state)
            dt = time.process_time() - t
            if max(legal) > 3:                    # a card-play decision (bids are actions 0..3)
                acc[0] += dt
                acc[1] += 1
                acc[2] += 200
            state.apply_action(action)


def ismcts_moves(backend: str, deals, acc: list) -> None:
    for i, deal in enumerate(deals):
        game = Game(deal, landlord=0)
        agent = _Clocked(make_agent("ismcts", seed=i, backend=backend, iterations=200), acc)
        farmers = [make_agent("random", seed=[i, s]) for s in (1, 2)]
        play_game(game, [agent, *farmers])


def core_playouts(n: int, seed: int) -> float:
    """Seconds (CPU) for ``n`` random games in the core, each from a fresh deal."""
    t_rules = core_table(STANDARD)
    unused = stand_in(STANDARD)            # the weights policy's inputs, not read by the random one
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    starts = [from_game(Game(d, landlord=0)) for d in generate_deals(n, seed=seed)]
    seed_core(seed)
    t = time.process_time()
    for st in starts:
        rollout(t_rules, st, POLICIES["random"], 0.0, oc, om, *unused)
    return time.process_time() - t


def game_playouts(n: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    games = [Game(d, landlord=0) for d in generate_deals(n, seed=seed)]
    t = time.process_time()
    for g in games:
        while not g.is_over:
            legal = g.legal_moves()
            g.push(legal[int(rng.integers(len(legal)))])
    return time.process_time() - t


def _openspiel_play_starts(n: int, seed: int) -> list:
    """``n`` OpenSpiel states at the start of the card play: dealt and bid at random."""
    game = pyspiel.load_game("dou_dizhu")
    rng = np.random.default_rng(seed)
    starts = []
    while len(starts) < n:
        state = game.new_initial_state()
        while not state.is_terminal() and (state.is_chance_node() or max(state.legal_actions()) <= 3):
            actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                       else state.legal_actions())
            state.apply_action(actions[int(rng.integers(len(actions)))])
        if not state.is_terminal():          # all passed: OpenSpiel ends the game undealt
            starts.append(state)
    return starts


def openspiel_playouts(n: int, seed: int) -> float:
    starts = _openspiel_play_starts(n, seed)
    rng = np.random.default_rng(seed)
    t = time.process_time()
    for state in starts:
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.integers(len(actions)))])
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", type=int, default=2, help="UCT games per engine per round")
    ap.add_argument("--deals", type=int, default=2, help="ismcts deals per backend per round")
    ap.add_argument("--playouts", type=int, default=300, help="random games per engine per round")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU time, interleaved rounds")
    if pyspiel is None:
        print("OpenSpiel is not installed (pip install -e '.[openspiel]'): its columns are skipped")
    # every engine once, untimed: compiled code loaded (cached on disk), move tables built,
    # OpenSpiel's game loaded, the Python paths' imports done
    ddzlab_uct_games(generate_deals(1, seed=99), 99, [0.0, 0, 0])
    for backend in ("numba", "python"):
        ismcts_moves(backend, generate_deals(1, seed=99), [0.0, 0, 0])
    core_playouts(2, 99)
    game_playouts(2, 99)
    if pyspiel is not None:
        openspiel_uct_games(1, 99, [0.0, 0, 0])
        openspiel_playouts(2, 99)
    uct = {"ddzlab": [0.0, 0, 0], "openspiel": [0.0, 0, 0]}
    ism = {"numba": [0.0, 0, 0], "python": [0.0, 0, 0]}
    play = {"core": [0.0, 0], "Game": [0.0, 0], "openspiel": [0.0, 0]}
    ratios = []
    for r in range(args.rounds):
        flip = (lambda xs: xs[::-1]) if r % 2 else (lambda xs: xs)     # A B, then B A
        deals = generate_deals(args.games, seed=1000 + r)
        mine, theirs = [0.0, 0, 0], [0.0, 0, 0]
        for engine in flip(["ddzlab", "openspiel"]):
            with _gc_off():
                if engine == "ddzlab":
                    ddzlab_uct_games(deals, r, mine)
                elif pyspiel is not None:
                    openspiel_uct_games(args.games, r, theirs)
        for acc, part in ((uct["ddzlab"], mine), (uct["openspiel"], theirs)):
            for i in range(3):
                acc[i] += part[i]
        deals = generate_deals(args.deals, seed=2000 + r)
        for backend in flip(["numba", "python"]):
            with _gc_off():
                ismcts_moves(backend, deals, ism[backend])
        for name, fn in flip([("core", core_playouts), ("Game", game_playouts),
                              ("openspiel", openspiel_playouts if pyspiel is not None else None)]):
            if fn is not None:
                with _gc_off():
                    play[name][0] += fn(args.playouts, 3000 + r)
                play[name][1] += args.playouts
        line = f"round {r + 1}: UCT ms/move ddzlab {1000 * mine[0] / max(mine[1], 1):.2f}"
        if pyspiel is not None:
            ratios.append((mine[0] / mine[1]) / (theirs[0] / theirs[1]))
            line += f", OpenSpiel {1000 * theirs[0] / max(theirs[1], 1):.2f}, ratio {ratios[-1]:.2f}"
        print(line, flush=True)

    def per_move(acc):
        return 1000 * acc[0] / acc[1]
    print("\n1. UCT on the true deal, random rollouts, 200 iterations a move (whole games, every seat)")
    print(f"   ddzlab {UCT} (compiled): {per_move(uct['ddzlab']):.2f} ms/move over {uct['ddzlab'][1]} moves")
    if pyspiel is not None:
        o = per_move(uct["openspiel"])
        print(f"   OpenSpiel MCTSBot + RandomRolloutEvaluator(1): {o:.2f} ms/move over {uct['openspiel'][1]} moves")
        print(f"   ddzlab time per move / OpenSpiel's: {per_move(uct['ddzlab']) / o:.2f} (target <= 1); "
              f"rounds {min(ratios):.2f}-{max(ratios):.2f}, median {float(np.median(ratios)):.2f}")
    n, p = ism["numba"], ism["python"]
    print("\n2. default ismcts (split filter, greedy rollouts, 200 iterations), seat 0 vs random farmers")
    print(f"   numba  {per_move(n):7.2f} ms/move  {n[2] / n[0]:9.0f} it/s over {n[1]} moves")
    print(f"   python {per_move(p):7.2f} ms/move  {p[2] / p[0]:9.0f} it/s over {p[1]} moves")
    print(f"   iterations/s numba / python: {(n[2] / n[0]) / (p[2] / p[0]):.1f}x (target >= 10)")
    print("\n3. random games, whole (games per second)")
    rates = {k: v[1] / v[0] for k, v in play.items() if v[1]}
    for k, label in (("core", "ddzlab compiled core (one kernel call per game)"),
                     ("Game", "ddzlab Game, step by step from Python"),
                     ("openspiel", "OpenSpiel C++ dou_dizhu, step by step from Python (from the start of the card play)")):
        if k in rates:
            print(f"   {label}: {rates[k]:,.0f} games/s")
    if "openspiel" in rates:
        print(f"   core / OpenSpiel: {rates['core'] / rates['openspiel']:.1f}x;"
              f" core / Game: {rates['core'] / rates['Game']:.1f}x")


if __name__ == "__main__":
    main()
