"""Guess accuracy measured in the games a study plays: the same agents, opponents and deals.

A guesser's accuracy depends on who made the plays it reads: the `policy` guesser's model of
the opponents is exactly right in greedy self-play and wrong against `rulev1`. So notebook
05 measures accuracy in the arena's games of the configuration it scores: `accuracy_games`
replays each deal as `ddzlab.arena.play_deal` plays it (``config`` as landlord against two
copies of ``opponent``, then the other way round, the same per-seat agent seeds), and at
every decision of a ``config`` seat samples ``samples`` worlds from each guesser and scores
them with `ddzlab.determinize.guess_accuracy`. The guessers only watch: the game's moves
are the agents' own. A policy guesser's effective sample size at that decision is kept
too (``ess``; NaN for other guessers).

Rows: ``deal``, ``role`` (the side ``config`` played), ``seat``, ``ply`` (moves played
before the decision), ``progress`` (share of the cards played), ``guesser``, ``accuracy``
(mean over the samples) and ``ess``. With ``path`` the rows are written to a gzip CSV after
every deal and a rerun continues after the last deal stored.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence, Union

import numpy as np
import pandas as pd

from ..agents.base import AgentSpec, make_agent
from ..agents.mcts import make_guesser
from ..arena import game_seed
from ..deals import Deal
from ..determinize import determinize, guess_accuracy
from ..game import Game, Phase
from ..rules import get_rules

ACCURACY_COLUMNS = ["deal", "role", "seat", "ply", "progress", "guesser", "accuracy", "ess"]


def _one_game(config: AgentSpec, opponent: AgentSpec, deal: Deal, index: int, half: int, rules,
              guessers: Mapping[str, str], samples: int, seed: int) -> list[tuple]:
    lord, farmer = (config, opponent) if half == 0 else (opponent, config)
    specs = (lord, farmer, farmer)
    agents = [make_agent(spec, seed=game_seed(seed, index, half, s)) for s, spec in enumerate(specs)]
    mine = {0} if half == 0 else {1, 2}
    role = "landlord" if half == 0 else "farmers"
    rng = np.random.default_rng([seed, index, half, 7])
    watchers = {s: {name: make_guesser(g) for name, g in guessers.items()} for s in mine}
    game = Game(deal, rules=rules, landlord=0)
    total = sum(game.sizes)
    rows = []
    while game.phase is Phase.PLAY:
        seat = game.to_act
        obs = game.observation(seat)
        if seat in mine and len(obs.legal_moves) > 1:
            progress = 1 - sum(game.sizes) / total
            for name, guesser in watchers[seat].items():
                see = getattr(guesser, "see", None)
                if see is not None:
                    see(game)
                acc = np.mean([guess_accuracy(obs, game, determinize(obs, rng, guesser)) for _ in range(samples)])
                ess = float(getattr(guesser, "ess", np.nan))
                rows.append((index, role, seat, len(game.history), round(progress, 4), name, round(float(acc), 5),
                             round(ess, 3)))
        agent = agents[seat]
        cheat = getattr(agent, "see_all_hands", None)
        if cheat is not None:
            cheat(game)
        game.play(agent.play(obs), seat)
    return rows


def accuracy_games(config: AgentSpec, opponent: AgentSpec, deals: Sequence[Deal],
                   guessers: Union[Mapping[str, str], Sequence[str]], rules: str = "standard",
                   seed: int = 0, samples: int = 4, path: Union[str, Path, None] = None,
                   progress: bool = False) -> pd.DataFrame:
    """Accuracy of each guesser (name → guesser spec of `ddzlab.agents.mcts.make_guesser`,
    or a list of specs) at ``config``'s decisions in its arena games against ``opponent`` on
    ``deals`` (arena seed ``seed``; see the module docstring). ``path``: gzip CSV written
    after every deal; deals already in it are not replayed."""
    if not isinstance(guessers, Mapping):
        guessers = {g: g for g in guessers}
    for g in guessers.values():
        make_guesser(g)                                   # a bad name fails before any game
    rules_obj = get_rules(rules)
    done = pd.DataFrame(columns=ACCURACY_COLUMNS)
    if path is not None and Path(path).exists():
        done = pd.read_csv(path)
    have = set(done["deal"]) if len(done) else set()
    parts = [done] if len(done) else []
    todo = [i for i in range(len(deals)) if i not in have]
    if progress:
        from tqdm.auto import tqdm
        todo = tqdm(todo, desc="guess accuracy", unit="deal")
    for i in todo:
        rows = [r for half in (0, 1)
                for r in _one_game(config, opponent, deals[i], i, half, rules_obj, guessers, samples, seed)]
        parts.append(pd.DataFrame(rows, columns=ACCURACY_COLUMNS))
        if path is not None:
            pd.concat(parts, ignore_index=True).to_csv(path, index=False, compression="gzip")
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=ACCURACY_COLUMNS)
    return out.sort_values(["deal", "role", "ply", "guesser"], kind="stable").reset_index(drop=True)


__all__ = ["accuracy_games", "ACCURACY_COLUMNS"]
