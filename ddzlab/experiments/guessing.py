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

Notebook 05's stored study is `ACCURACY_STUDY`: ``python -m ddzlab.experiments.guessing``
plays it (resumable) into ``data/experiments/05_guess_accuracy/``; `load_accuracy` reads it.
"""
from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Mapping, Optional, Sequence, TypedDict, Union

import numpy as np
import pandas as pd

from ..agents.base import AgentSpec, play_game
from ..agents.mcts import make_guesser
from ..arena import seat_agents
from ..deals import Deal, generate_deals
from ..determinize import determinize, guess_accuracy
from ..game import Game
from ..rules import get_rules
from .catalog import GUESS_OPPONENTS, GUESSERS, ORACLE_Q
from .runner import ExperimentError, experiments_root

ACCURACY_COLUMNS = ["deal", "role", "seat", "ply", "progress", "guesser", "accuracy", "ess"]


def _one_game(config: AgentSpec, opponent: AgentSpec, deal: Deal, index: int, half: int, rules,
              guessers: Mapping[str, str], samples: int, seed: int) -> list[tuple]:
    """The accuracy rows of one arena game (the arena's agents, seats and seeds,
    `ddzlab.arena.seat_agents`, driven by `ddzlab.agents.play_game`): at each decision of
    a ``config`` seat with a choice, every guesser's mean accuracy over ``samples`` worlds."""
    agents = seat_agents(config, opponent, index, half, seed)
    mine = {0} if half == 0 else {1, 2}
    role = "landlord" if half == 0 else "farmers"
    # each guesser draws from its own stream: its numbers do not depend on the others listed
    rngs = {name: np.random.default_rng([seed, index, half, zlib.crc32(name.encode())]) for name in guessers}
    watchers = {s: {name: make_guesser(g) for name, g in guessers.items()} for s in mine}
    game = Game(deal, rules=rules, landlord=0)
    total = sum(game.sizes)
    rows: list[tuple] = []

    def watch(game: Game, seat: int) -> None:
        obs = game.observation(seat)
        if seat not in mine or len(obs.legal_moves) <= 1:
            return
        progress = 1 - sum(game.sizes) / total
        for name, guesser in watchers[seat].items():
            see = getattr(guesser, "see", None)
            if see is not None:
                see(game)
            rng = rngs[name]
            acc = np.mean([guess_accuracy(obs, game, determinize(obs, rng, guesser)) for _ in range(samples)])
            ess = float(getattr(guesser, "ess", np.nan))
            rows.append((index, role, seat, len(game.history), round(progress, 4), name, round(float(acc), 5),
                         round(ess, 3)))

    play_game(game, agents, watch=watch)
    return rows


def _read_rows(path: Union[str, Path]) -> pd.DataFrame:
    """The stored accuracy rows of ``path``; a file that is not one (not gzip CSV, other
    columns) raises `ExperimentError` naming it, not pandas' own error or a KeyError."""
    try:
        df = pd.read_csv(path)
    except (OSError, EOFError, ValueError) as e:     # BadGzipFile, a cut gzip stream, ParserError, ...
        raise ExperimentError(f"{path}: not a file of accuracy rows ({type(e).__name__}: {e})") from None
    if list(df.columns) != ACCURACY_COLUMNS:
        raise ExperimentError(f"{path}: columns {list(df.columns)}, expected {ACCURACY_COLUMNS}")
    return df


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
        done = _read_rows(path)
        stored = set(done["guesser"])
        if len(done) and stored != set(guessers):
            raise ExperimentError(f"{path} holds the guessers {sorted(stored)}, not {sorted(guessers)}: its deals "
                                  "would lack some guessers; move the file away to start the panel again")
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
        if path is not None:                              # a new file renamed over the old: a kill
            tmp = Path(str(path) + ".tmp")                # mid-write loses no stored deal
            pd.concat(parts, ignore_index=True).to_csv(tmp, index=False, compression="gzip")
            os.replace(tmp, path)
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=ACCURACY_COLUMNS)
    return out.sort_values(["deal", "role", "ply", "guesser"], kind="stable").reset_index(drop=True)


#: notebook 05's accuracy study: the searcher whose decisions are scored, the opponents of the
#: guesser experiments, every guesser and oracle, deals generated from ``seed`` per rule set
class AccuracyStudy(TypedDict):
    """The settings of the stored guess-accuracy study."""
    name: str                          # its folder under the experiments root
    config: str                        # the searcher whose decisions are guessed at
    panels: list[tuple[str, str]]      # (rules, opponent) pairs, one stored file each
    guessers: list[str]
    deals: int
    seed: int
    samples: int                       # guesses drawn per decision


ACCURACY_STUDY: AccuracyStudy = {"name": "05_guess_accuracy", "config": "ismcts:iterations=200",
                  "panels": [(r, o) for r in ("standard", "mini") for o in GUESS_OPPONENTS[r]],
                  "guessers": list(GUESSERS) + [f"oracle{q}" for q in ORACLE_Q],
                  "deals": 100, "seed": 23, "samples": 4}


def accuracy_path(rules: str, opponent: str, root: Union[str, Path, None] = None) -> Path:
    """Where the stored accuracy rows of one (rules, opponent) panel live."""
    return experiments_root(root) / ACCURACY_STUDY["name"] / f"{rules}-{opponent}.csv.gz"


def run_accuracy_study(deals: Optional[int] = None, root: Union[str, Path, None] = None,
                       progress: bool = True) -> pd.DataFrame:
    """Play (or continue) `ACCURACY_STUDY` panel by panel; ``deals`` overrides its size."""
    st = ACCURACY_STUDY
    n = st["deals"] if deals is None else deals
    for rules, opp in st["panels"]:
        path = accuracy_path(rules, opp, root)
        path.parent.mkdir(parents=True, exist_ok=True)
        dl = generate_deals(n, seed=st["seed"], rules=get_rules(rules))
        accuracy_games(st["config"], opp, dl, st["guessers"], rules=rules, seed=st["seed"],
                       samples=st["samples"], path=path, progress=progress)
    return load_accuracy(root)


def load_accuracy(root: Union[str, Path, None] = None) -> pd.DataFrame:
    """Every stored panel of `ACCURACY_STUDY` (columns `ACCURACY_COLUMNS` plus ``rules`` and
    ``opponent``); empty when nothing is stored."""
    parts = []
    for rules, opp in ACCURACY_STUDY["panels"]:
        path = accuracy_path(rules, opp, root)
        if path.exists():
            parts.append(_read_rows(path).assign(rules=rules, opponent=opp))
    return pd.concat(parts, ignore_index=True) if parts else \
        pd.DataFrame(columns=ACCURACY_COLUMNS + ["rules", "opponent"])


__all__ = ["accuracy_games", "run_accuracy_study", "load_accuracy", "accuracy_path", "ACCURACY_STUDY",
           "ACCURACY_COLUMNS"]


if __name__ == "__main__":
    run_accuracy_study()
