"""Simulation labels: how often a 17-card hand wins as landlord (arena layer: it plays games
with agents to label hands for the bidding models of `ddzlab.bidding`).

For one hand, each simulated deal draws a random kitty (3 of the 37 unseen cards) and a
random split of the other 34 between the two farmers, then plays the game in research mode
(seat 0 is landlord with 20 cards and leads; no bidding) with the same play agent in every
seat. The label is the landlord's win rate (and mean points, base 1, ×2 per bomb/spring).

The play agent is a `ddzlab.agents` spec (``"greedy"``, ``"smallest"``, or any registered
name or factory), so a stronger agent can be swapped in later; `DEFAULT_AGENT` names the
best one available when this module was written. How a deal is played is a parameter too:
``play(deal, agent, seeds) -> (landlord won, landlord points)``. By default (`default_play`)
``agent="weights"`` runs on the compiled core (`ddzlab.agents.weights_compiled.WeightsCore`,
move for move the `WeightsAgent`'s play, which is deterministic): the same labels as the
Python games at about 0.6 ms of CPU a game, deal included, where the Python games take about
7 ms (benchmarks/bench_weights_compiled.py; 4,045 hands x 100 games: about 4 CPU-minutes);
any other agent plays move by move (`play_as_landlord`).

Reproducible: ``SeedSequence([seed, hand.bits, k])`` is split in two for deal ``k`` of a hand,
one child drawing the cards and the other the three agents' seeds, so a hand's label depends
only on (hand, n_deals, agent, seed) — not on row order, chunking, workers or resuming.

>>> r = simulate_hand("3456789TJQKA2BR22", n_deals=4, seed=0)
>>> r["n_deals"], 0.0 <= r["win_rate"] <= 1.0
(4, True)
"""
from __future__ import annotations

import csv
import math
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Union

import numpy as np
import pandas as pd

from .agents.base import DEFAULT_PLAY_AGENT, make_agent, play_game
from .bidding.data import as_hands
from .cards import Hand, as_hand, shuffled
from .deals import Deal
from .game import Game
from .parallel import run_chunks
from .rules import STANDARD

#: the play agent used for labels: `ddzlab.agents.DEFAULT_PLAY_AGENT` (``greedy``, du-guai's
#: greedy split; WP 0.657 against ``smallest`` in the README's duel). Swap via ``agent=...``.
DEFAULT_AGENT = DEFAULT_PLAY_AGENT

COLUMNS = ["cards", "n_deals", "wins", "win_rate", "mean_points", "agent", "seed"]

#: plays one deal with seat 0 as landlord: ``play(deal, agent, seeds)`` -> (landlord won,
#: landlord points at base 1); ``seeds`` are the three seats' agent seeds
PlayFn = Callable[[Deal, Any, Iterable[int]], "tuple[bool, int]"]


def _seed_seq(seed: int, hand: Hand, k: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), hand.bits, int(k)])


def random_deal(hand: Hand, rng: np.random.Generator) -> Deal:
    """A deal with ``hand`` at seat 0, a random kitty and random farmer hands."""
    if len(hand) != STANDARD.hand_size:
        raise ValueError(f"simulation labels need a {STANDARD.hand_size}-card hand, got "
                         f"{len(hand)} cards ({hand})")
    rest = shuffled(STANDARD.deck - hand.bits, rng)
    kitty = Hand.from_ranks(rest[:3]).bits
    down = Hand.from_ranks(rest[3:20]).bits
    up = Hand.from_ranks(rest[20:37]).bits
    return Deal((hand.bits, down, up), kitty)


def play_as_landlord(deal: Deal, agent: Any = DEFAULT_AGENT,
                     seeds: Iterable[int] = (0, 1, 2)) -> tuple[bool, int]:
    """Play one deal with seat 0 as landlord; (landlord won, landlord points at base 1)."""
    agents = [make_agent(agent, seed=int(s)) for s in seeds]
    game = play_game(Game(deal, landlord=0), agents)
    assert game.scores is not None                 # play_game plays to the end
    return bool(game.landlord_won), int(game.scores[0])


_CORES: dict[str, Any] = {}


def weights_as_landlord(deal: Deal) -> tuple[bool, int]:
    """`play_as_landlord` with ``weights`` in every seat, on the compiled core (same result:
    the agent is deterministic; tests/agents/test_weights_compiled.py compares them)."""
    core = _CORES.get("weights")
    if core is None:
        from .agents.weights_compiled import WeightsCore
        core = _CORES["weights"] = WeightsCore()
    winner, scores = core.result(Game(deal, landlord=0))
    return winner == 0, scores[0]


def _weights_compiled(deal: Deal, agent: Any, seeds: Iterable[int]) -> tuple[bool, int]:
    """`weights_as_landlord` as a `PlayFn` (the agent is deterministic: no seeds)."""
    return weights_as_landlord(deal)


def default_play(agent: Any) -> PlayFn:
    """The fastest engine that plays ``agent``'s games: the compiled core for ``"weights"``
    when numba imports (the same games: the agent is deterministic), else `play_as_landlord`
    (the agents move by move; also ``"weights"`` where numba cannot run, as the MCTS agents
    fall back to their Python backend)."""
    if agent == "weights":
        from .agents.mcts import numba_error
        if numba_error() is None:
            return _weights_compiled
    return play_as_landlord


def simulate_hand(hand: Union[Hand, str], n_deals: int = 50, agent: Any = DEFAULT_AGENT,
                  seed: int = 0, play: Optional[PlayFn] = None) -> dict[str, Any]:
    """Landlord win rate of ``hand`` over ``n_deals`` random completions (see module doc),
    each deal played by ``play`` (default: `default_play` of ``agent``)."""
    play = play or default_play(agent)
    hand = as_hand(hand)
    wins = 0
    points = 0
    for k in range(n_deals):
        ss = _seed_seq(seed, hand, k)
        deal_ss, agent_ss = ss.spawn(2)
        deal = random_deal(hand, np.random.default_rng(deal_ss))
        won, pts = play(deal, agent, agent_ss.generate_state(3))
        wins += won
        points += pts
    return {"cards": str(hand), "n_deals": n_deals, "wins": wins,
            "win_rate": wins / n_deals if n_deals else math.nan,
            "mean_points": points / n_deals if n_deals else math.nan,
            "agent": _agent_label(agent), "seed": seed}


def _agent_label(agent: Any) -> str:
    if isinstance(agent, str):
        return agent
    if isinstance(agent, tuple):
        return f"{agent[0]}:{','.join(f'{k}={v}' for k, v in sorted(agent[1].items()))}"
    return getattr(agent, "__name__", type(agent).__name__)


def _chunk(hands: list[Hand], n_deals: int, agent: Any, seed: int,
           play: Optional[PlayFn] = None) -> list[dict[str, Any]]:
    return [simulate_hand(h, n_deals, agent, seed, play) for h in hands]


def read_labels(path: Union[str, Path]) -> pd.DataFrame:
    """A simulated-label file as a DataFrame (columns `COLUMNS`)."""
    return pd.read_csv(path, dtype={"cards": str, "agent": str})


def label_hands(hands: Iterable[Union[Hand, str]] | pd.DataFrame, path: Union[str, Path],
                n_deals: int = 50, agent: Any = DEFAULT_AGENT, seed: int = 0, n_jobs: int = 1,
                chunk_size: int = 20, progress: bool = True,
                backend: str | None = None, play: Optional[PlayFn] = None) -> pd.DataFrame:
    """Label hands by simulation, appending rows to the CSV at ``path``; returns all rows.

    Resume: hands already in the file (same ``n_deals``, agent and seed) are skipped, so an
    interrupted run continues where it stopped. A file made with other settings raises
    ``ValueError`` rather than mixing labels. Duplicate hands are simulated once.
    ``n_jobs`` > 1 runs chunks of hands in parallel through joblib (processes);
    ``backend="dask"`` sends them to the current dask.distributed ``Client`` (a local one is
    started, and closed afterwards, if none exists). Rows are appended as chunks finish.
    ``play`` plays each deal (`PlayFn`, default `default_play` of ``agent``; a module-level
    function, so that workers can import it); it must play the games of ``agent``, whose name
    the rows carry.
    """
    path = Path(path)
    label = _agent_label(agent)
    todo_all = list(dict.fromkeys(as_hands(hands)))            # unique, in order
    done: set[str] = set()
    new_file = not path.exists() or path.stat().st_size == 0
    if not new_file:
        old = read_labels(path)
        if list(old.columns) != COLUMNS:
            raise ValueError(f"{path}: not a simulated-label file (columns {list(old.columns)})")
        bad = old[(old.n_deals != n_deals) | (old.agent != label) | (old.seed != seed)]
        if len(bad):
            raise ValueError(f"{path} holds labels made with other settings (e.g. n_deals="
                             f"{bad.n_deals.iloc[0]}, agent={bad.agent.iloc[0]}, seed="
                             f"{bad.seed.iloc[0]}); use another file")
        done = set(old.cards)
    todo = [h for h in todo_all if str(h) not in done]
    chunks = [todo[i:i + chunk_size] for i in range(0, len(todo), chunk_size)]
    path.parent.mkdir(parents=True, exist_ok=True)
    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=len(todo), desc="simulate", unit="hand")
    try:
        with open(path, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            if new_file:
                writer.writeheader()
                f.flush()
            for rows in _run(chunks, n_deals, agent, seed, n_jobs, backend, play):
                writer.writerows(rows)
                f.flush()
                if bar is not None:
                    bar.update(len(rows))
    finally:
        if bar is not None:
            bar.close()
    return read_labels(path)


def _run(chunks: list[list[Hand]], n_deals: int, agent: Any, seed: int, n_jobs: int,
         backend: str | None = None,
         play: Optional[PlayFn] = None) -> Iterator[list[dict[str, Any]]]:
    """The rows of each chunk, in this process or through joblib, as chunks finish."""
    return run_chunks(partial(_chunk, n_deals=n_deals, agent=agent, seed=seed, play=play), chunks,
                      n_jobs, backend)


def attach_labels(df: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """``df`` (a DataFrame of hands) with the simulated columns joined on the cards text."""
    cols = ["cards", "win_rate", "mean_points", "wins", "n_deals"]
    return df.merge(labels[cols].drop_duplicates("cards"), on="cards", how="left")
