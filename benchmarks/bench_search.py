"""Search speed: ddzlab's compiled core against OpenSpiel's C++ and against its own Python path.

Three comparisons, each timed in this one process, in CPU time (``time.process_time``),
every engine run once untimed first (compiled code loaded, move tables and OpenSpiel's game
built), the garbage collector collected before and disabled during every timed part for
every engine (as `_common.time_rounds`), the order of the engines alternating:

1. **UCT on the true deal, random rollouts, 200 iterations a move, whole games**: ddzlab's
   ``mcts_cheat:rollout=random,moves=all,iterations=200`` (compiled) against OpenSpiel
   2.0.2's ``pyspiel.MCTSBot`` with ``RandomRolloutEvaluator(1, seed)`` (one uniformly random
   rollout per new leaf, as ddzlab's random rollout) on its own ``dou_dizhu`` (uct_c 2, no
   solver). Both engines play **the same deals** from the start of the card play (OpenSpiel's
   state is dealt card by card from ddzlab's deal and seat 0 bids 3: `openspiel_start`,
   which checks every hand), every seat searching, and the two games advance in lockstep,
   one move each in turn, so a change of the machine's load hits both alike. A move's time
   is its agent's whole decision (ddzlab: the cheater's ``see_all_hands`` hook and
   ``agent.play(obs)``, with its Python wrapper; OpenSpiel: ``bot.step(state)``); moves with
   one legal action are searched by neither and not counted. Printed: the pooled ratio of
   time per move, and per round the median, range and a 95% t-interval. Target: ≤ 0.5.
2. **The default ``ismcts``** (split filter, greedy rollouts, 200 iterations): the compiled
   backend against ``backend=python``, seat 0 against two random farmers (as
   bench_mcts.py), iterations per second, interleaved rounds. Target: ≥ 10×.
3. **Random playouts**: whole random games inside the core (``ddzlab.search.policies.rollout``
   from a fresh deal) against OpenSpiel's C++ game driven step by step from Python
   (``apply_action`` of a random legal action), and ddzlab's Python `Game` driven the same
   way; games per second, each from a dealt position at the start of the card play: the
   deals (and OpenSpiel's random bidding) are made untimed for every engine, since the core
   and `Game` are timed from a dealt game too.

    python benchmarks/bench_search.py [--rounds 10] [--games 6] [--deals 1] [--playouts 300]

OpenSpiel is optional: ``pip install -e '.[openspiel]'`` (the extra pins open-spiel==2.0.2,
a wheel from PyPI); without it the OpenSpiel columns are skipped with that note. The machine
is shared: read the ratios of one run, not the absolute times, and note the load (printed
at the start, after every round and at the end).
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
from ddzlab.cards import Hand
from ddzlab.deals import generate_deals
from ddzlab.game import Game, Phase
from ddzlab.moves.compiled import MAX_MOVES, core_table
from ddzlab.rules import STANDARD
from ddzlab.search import from_game
from ddzlab.search.policies import POLICIES, rollout
from ddzlab.search.tree import seed as seed_core
from ddzlab.search.weights import stand_in
from ddzlab.stats import t_interval

ITERATIONS = 200
UCT = f"mcts_cheat:rollout=random,moves=all,iterations={ITERATIONS}"

MISSING = ("OpenSpiel is not installed, so its columns are skipped. Install the optional extra "
           "(OpenSpiel 2.0.2, a wheel from PyPI): pip install -e '.[openspiel]'  (or: pip install open-spiel==2.0.2)")

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
    """An agent wrapper adding CPU seconds and searched moves (forced moves excluded) into
    ``acc`` = [seconds, moves, iterations]. A decision's time is its agent's whole work:
    the cheater's ``see_all_hands`` hook (it copies the true game) and ``play``."""

    def __init__(self, agent, acc: list) -> None:
        self.agent, self.acc, self.hook = agent, acc, 0.0
        if getattr(agent, "see_all_hands", None) is not None:
            self.see_all_hands = self._see

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def _see(self, game) -> None:
        t = time.process_time()
        self.agent.see_all_hands(game)
        self.hook = time.process_time() - t

    def play(self, obs):
        t = time.process_time()
        move = self.agent.play(obs)
        dt = time.process_time() - t + self.hook
        self.hook = 0.0
        if self.agent.last_iterations:
            self.acc[0] += dt
            self.acc[1] += 1
            self.acc[2] += self.agent.last_iterations
        return move


def ddzlab_uct_game(deal, seed: list, acc: list):
    """One whole game of ``deal`` (seat 0 landlord), every seat the compiled UCT, one move
    per step of this generator (`play_game`'s loop: the hook, then the agent's move)."""
    game = Game(deal, landlord=0)
    agents = [_Clocked(make_agent(UCT, seed=[*seed, s]), acc) for s in range(3)]
    while game.phase is Phase.PLAY:
        seat = game.to_act
        agents[seat].see_all_hands(game)
        game.play(agents[seat].play(game.observation(seat)), seat)
        yield


#: OpenSpiel's dou_dizhu chance actions: 0..50 place the face-up card (the seat dealt it bids
#: first), then 51 + card deals the next card to seats 0, 1, 2, 0, ... (card = 13 suit + rank
#: for ranks 3..2, 52 and 53 the jokers; ranks in ddzlab's order); bids are actions 0..3
OS_DEAL, OS_BID3 = 51, 3


def openspiel_start(game, deal):
    """OpenSpiel's state at the start of the card play of ``deal``: its player s holds seat
    s's hand, player 0 bid 3 and took the kitty, as in ddzlab's ``Game(deal, landlord=0)``
    (checked: each player's cards, read from OpenSpiel's observation, equal the seat's)."""
    state = game.new_initial_state()
    state.apply_action(0)                          # the face-up card is dealt first: to player 0
    ranks = [Hand.from_bits(b).ranks() for b in deal.hands]
    dealt = [0] * 15
    for j in range(51):
        r = ranks[j % 3][j // 3]
        state.apply_action(OS_DEAL + (52 + r - 13 if r >= 13 else 13 * dealt[r] + r))
        dealt[r] += 1
    state.apply_action(OS_BID3)
    want = list(deal.hands)
    want[0] += deal.kitty
    for p in range(3):
        counts = np.asarray(state.observation_tensor(p))[:75].reshape(15, 5).argmax(axis=1)
        if sum(int(k) << (4 * r) for r, k in enumerate(counts)) != want[p]:
            raise RuntimeError(f"OpenSpiel's player {p} does not hold seat {p}'s cards: the deal mapping is wrong")
    return state


def openspiel_uct_game(game, deal, seed: int, acc: list):
    """The same game on OpenSpiel, ``MCTSBot`` + ``RandomRolloutEvaluator(1)`` in every seat,
    one move per step of this generator."""
    bots = [pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed + s), 2.0, ITERATIONS, 1000, False,
                            seed + s, False) for s in range(3)]
    state = openspiel_start(game, deal)
    while not state.is_terminal():
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply_action(legal[0])
            yield
            continue
        t = time.process_time()
        action = bots[state.current_player()].step(state)
        acc[0] += time.process_time() - t
        acc[1] += 1
        acc[2] += ITERATIONS
        state.apply_action(action)
        yield


def uct_round(deals, r: int, game) -> tuple[list, list]:
    """One round: each deal played by both engines in lockstep, move for move (a load change
    hits both alike), the engine moving first alternating from deal to deal and round to
    round; returns ([seconds, moves, iterations] of ddzlab, of OpenSpiel)."""
    mine, theirs = [0.0, 0, 0], [0.0, 0, 0]
    for i, deal in enumerate(deals):
        games = [ddzlab_uct_game(deal, [r, i], mine)]
        if game is not None:
            games.append(openspiel_uct_game(game, deal, 1000 * r + 10 * i, theirs))
        if (r + i) % 2:
            games.reverse()
        with _gc_off():
            while games:
                for g in list(games):
                    if next(g, StopIteration) is StopIteration:
                        games.remove(g)
    return mine, theirs


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


def _uct_summary(uct: dict, ratios: list) -> None:
    def per_move(acc):
        return 1000 * acc[0] / acc[1]
    print(f"\n1. UCT on the true deal, random rollouts, {ITERATIONS} iterations a move (whole games, every seat,"
          " the same deals for both engines)")
    print(f"   ddzlab {UCT} (compiled): {per_move(uct['ddzlab']):.2f} ms/move over {uct['ddzlab'][1]} moves")
    if pyspiel is None:
        return
    o = per_move(uct["openspiel"])
    print(f"   OpenSpiel MCTSBot + RandomRolloutEvaluator(1): {o:.2f} ms/move over {uct['openspiel'][1]} moves")
    print(f"   ddzlab time per move / OpenSpiel's, all rounds pooled: {per_move(uct['ddzlab']) / o:.2f}"
          " (target <= 0.5)")
    line = f"   per round: median {float(np.median(ratios)):.2f}, range {min(ratios):.2f}-{max(ratios):.2f}"
    if len(ratios) > 1:
        m, lo, hi = t_interval(ratios)
        line += f", mean {m:.2f} [95% t-interval {lo:.2f}, {hi:.2f}]"
    print(line + f"; {sum(x <= 0.5 for x in ratios)} of {len(ratios)} rounds <= 0.5")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--games", type=int, default=6, help="UCT deals per round (each played by both engines)")
    ap.add_argument("--deals", type=int, default=1, help="ismcts deals per backend per round")
    ap.add_argument("--playouts", type=int, default=300, help="random games per engine per round")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; CPU time, interleaved rounds")
    if pyspiel is None:
        print(MISSING)
    os_game = pyspiel.load_game("dou_dizhu") if pyspiel is not None else None
    # every engine once, untimed: compiled code loaded (cached on disk), move tables built,
    # OpenSpiel's game loaded, the Python paths' imports done
    uct_round(generate_deals(2, seed=99), 99, os_game)
    for backend in ("numba", "python"):
        ismcts_moves(backend, generate_deals(1, seed=99), [0.0, 0, 0])
    core_playouts(2, 99)
    game_playouts(2, 99)
    if pyspiel is not None:
        openspiel_playouts(2, 99)
    uct = {"ddzlab": [0.0, 0, 0], "openspiel": [0.0, 0, 0]}
    ism = {"numba": [0.0, 0, 0], "python": [0.0, 0, 0]}
    play = {"core": [0.0, 0], "Game": [0.0, 0], "openspiel": [0.0, 0]}
    ratios = []
    for r in range(args.rounds):
        flip = (lambda xs: xs[::-1]) if r % 2 else (lambda xs: xs)     # A B, then B A
        mine, theirs = uct_round(generate_deals(args.games, seed=1000 + r), r, os_game)
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
        line = f"round {r + 1}: UCT ms/move ddzlab {1000 * mine[0] / max(mine[1], 1):.2f} ({mine[1]} moves)"
        if pyspiel is not None:
            ratios.append((mine[0] / mine[1]) / (theirs[0] / theirs[1]))
            line += (f", OpenSpiel {1000 * theirs[0] / max(theirs[1], 1):.2f} ({theirs[1]} moves),"
                     f" ratio {ratios[-1]:.2f}")
        print(line + f"; load {os.getloadavg()[0]:.1f}", flush=True)

    def per_move(acc):
        return 1000 * acc[0] / acc[1]
    _uct_summary(uct, ratios)
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
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
