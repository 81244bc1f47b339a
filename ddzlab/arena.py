"""Arena: duels on fixed deals with sides swapped, WP and ADP with 95% confidence intervals.

The protocol is DouZero's evaluation (REFERENCE §1): no bidding, seat 0 is landlord and
holds the kitty, play order landlord → down → up. Every deal is played twice, A as landlord
against two copies of B, then B as landlord against two copies of A.

* WP: share of games won by A's side (for farmers: either farmer going out).
* ADP: average points of A's side per game, base 1 doubled by each bomb or rocket, i.e.
  ``+2**bombs`` when A's side wins and ``-2**bombs`` when it loses (spring is not counted,
  as in DouZero's evaluation).

Agents are passed as *specs* (a registered name such as ``"random"``, ``(name, kwargs)``,
or a picklable ``factory(seed=...)``) and rebuilt for every game with a seed derived from
``(seed, deal index, half, seat)``: results do not depend on ``n_jobs`` or the backend.

>>> from ddzlab.deals import generate_deals
>>> df = duel("smallest", "random", generate_deals(4, seed=1), progress=False)
>>> list(df.index), int(df.loc["combined", "n"])
(['A landlord', 'A farmers', 'combined'], 8)
"""
from __future__ import annotations

import csv
import math
import os
from functools import partial
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .agents.base import AgentSpec, agent_name, make_agent, play_game
from .deals import Deal, generate_deals, read_deals
from .game import Game
from .errors import DdzError
from .parallel import run_chunks
from .records import RecordWriter, game_record, play_recorded
from .rules import STANDARD, Rules, get_rules

Z95 = 1.959963984540054
GAME_COLUMNS = ["deal", "a_landlord", "landlord_won", "a_won", "bombs", "a_points", "moves"]
SUMMARY_COLUMNS = ["WP", "WP_lo", "WP_hi", "ADP", "ADP_lo", "ADP_hi", "n"]
ROWS = ["A landlord", "A farmers", "combined"]


class DuelResultsError(DdzError):
    """A duel results file that belongs to another duel, or is not a results file."""


def game_seed(seed: int, deal: int, half: int, seat: int) -> int:
    """The seed of one agent in one game: independent of chunking and worker count."""
    return int(np.random.SeedSequence([seed, deal, half, seat]).generate_state(1)[0])


def play_deal(agent_a: AgentSpec, agent_b: AgentSpec, deal: Deal, index: int, rules: Rules,
              seed: int = 0, records: Optional[list] = None) -> list[tuple]:
    """Both halves of one deal: rows of `GAME_COLUMNS` (A landlord first). With a
    ``records`` list, each game's `ddzlab.records.game_record` is appended to it."""
    rows = []
    for half, (lord, farmer) in enumerate(((agent_a, agent_b), (agent_b, agent_a))):
        agents = [make_agent(spec, seed=game_seed(seed, index, half, s))
                  for s, spec in enumerate((lord, farmer, farmer))]
        if records is None:
            game = play_game(Game(deal, rules=rules, landlord=0), agents)
        else:
            game, evals = play_recorded(Game(deal, rules=rules, landlord=0), agents)
            records.append(game_record(game, [agent_name(a) for a in agents], evals,
                                       index=2 * index + half, deal_no=index, half=half))
        lw = bool(game.landlord_won)
        a_won = lw if half == 0 else not lw
        points = (1 << game.bombs) * (1 if a_won else -1)
        rows.append((index, half == 0, lw, a_won, game.bombs, points, len(game.history)))
    return rows


def _play_chunk(agent_a: AgentSpec, agent_b: AgentSpec, chunk: list[tuple[int, Deal]],
                rules: Rules, seed: int, record: bool = False) -> Any:
    """Rows of the chunk's games; with ``record``, (rows, game records)."""
    out: list[tuple] = []
    records: Optional[list] = [] if record else None
    for index, deal in chunk:
        out.extend(play_deal(agent_a, agent_b, deal, index, rules, seed, records))
    return (out, records) if record else out


def _as_deals(deals: Union[Sequence[Deal], str, Path, int], rules: Rules, seed: int) -> list[Deal]:
    if isinstance(deals, int):
        return generate_deals(deals, seed=seed, rules=rules)
    if isinstance(deals, (str, Path)):
        return read_deals(deals, rules)
    return list(deals)


def duel_games(agent_a: AgentSpec, agent_b: AgentSpec,
               deals: Union[Sequence[Deal], str, Path, int], rules: Union[Rules, str] = STANDARD,
               n_jobs: int = 1, backend: Optional[str] = None, progress: bool = True,
               seed: int = 0, chunk_size: Optional[int] = None,
               results: Union[str, Path, None] = None,
               record: Union[str, Path, None] = None) -> pd.DataFrame:
    """Play the duel and return one row per game (`GAME_COLUMNS`), sorted by deal and half.

    ``deals``: a list of `Deal`, a deal file (path or name in ``data/deals``), or a number
    of deals to generate from ``seed``. ``n_jobs`` > 1 or ``backend`` runs chunks of deals
    through joblib; ``backend="dask"`` uses the current dask.distributed ``Client`` (one
    is started on the local machine if none exists).

    ``results``: a CSV file that finished deals are appended to as they complete; rerun with
    the same file and an interrupted duel resumes where it stopped (deals already in it are
    not replayed). A file written by another duel (agents, rules or seed) raises
    `DuelResultsError`.

    ``record``: a game record file (`ddzlab.records`) that every game is written to, with
    its moves and the agents' evaluations; it is appended to when resuming from ``results``
    (a record of another duel is refused), else written afresh.
    """
    rules = get_rules(rules)
    deal_list = _as_deals(deals, rules, seed)
    meta = {"a": _label(agent_a), "b": _label(agent_b), "rules": rules.name, "seed": seed}
    rows, sink = _results_sink(results, meta)
    done = {r[0] for r in rows}
    indexed = [(i, d) for i, d in enumerate(deal_list) if i not in done]
    if n_jobs == 1 and backend is None:
        size = 1                 # here, deal by deal
    else:
        workers = n_jobs if n_jobs > 1 else (os.cpu_count() or 1)
        size = chunk_size or max(1, math.ceil(len(indexed) / (4 * workers)))
    chunks = [indexed[i:i + size] for i in range(0, len(indexed), size)]
    writer = None
    if record is not None:
        if results is None and Path(record).exists():
            Path(record).unlink()            # not resuming: a fresh record
        writer = RecordWriter(record, rules=rules, agents=[meta["a"], meta["b"]], seed=seed,
                              source="duel")
    parts: Iterable = run_chunks(partial(_play_chunk, agent_a, agent_b, rules=rules, seed=seed,
                                         record=writer is not None),
                                 chunks, n_jobs, backend)
    if progress:
        from tqdm.auto import tqdm
        parts = tqdm(parts, total=len(chunks), desc="duel", unit="deal" if size == 1 else "chunk")
    try:
        for part in parts:
            if writer is not None:
                part, recs = part
                for rec in recs:
                    writer.write(rec)
            sink(part)
    finally:
        if writer is not None:
            writer.close()
    df = pd.DataFrame(rows, columns=GAME_COLUMNS)
    return df.sort_values(["deal", "a_landlord"], ascending=[True, False]).reset_index(drop=True)


def _results_sink(path: Union[str, Path, None], meta: dict) -> tuple[list[tuple], Any]:
    """Rows already in the results file, and a function that records new rows (in memory,
    and appended to the file, flushed, when there is one)."""
    rows: list[tuple] = []
    if path is None:
        return rows, rows.extend
    path = Path(path)
    columns = GAME_COLUMNS + list(meta)
    if path.exists() and path.stat().st_size > 0:
        old = pd.read_csv(path)
        if list(old.columns) != columns:
            raise DuelResultsError(f"{path}: not a duel results file (columns {list(old.columns)})")
        for key, value in meta.items():
            other = old[old[key].astype(str) != str(value)]
            if len(other):
                raise DuelResultsError(f"{path} holds another duel ({key}={other[key].iloc[0]!r}, "
                                       f"this one has {value!r}); use another file")
        complete = old.groupby("deal").deal.transform("size") == 2   # both halves written
        rows = [tuple(r) for r in old.loc[complete, GAME_COLUMNS].itertuples(index=False)]
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(",".join(columns) + "\n")

    def sink(new_rows: list[tuple]) -> None:
        rows.extend(new_rows)
        with open(path, "a", newline="") as f:
            csv.writer(f).writerows(list(r) + list(meta.values()) for r in new_rows)

    return rows, sink


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (well-behaved at 0% and 100%)."""
    if n == 0:
        return (math.nan, math.nan)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if wins == 0 else max(0.0, centre - half)     # exact at the ends
    hi = 1.0 if wins == n else min(1.0, centre + half)
    return (lo, hi)


def mean_ci(values: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation interval (mean ± z·sd/√n)."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(np.mean(values))
    if n == 1:
        return (m, math.nan, math.nan)
    half = z * float(np.std(values, ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


def summarize(games: pd.DataFrame) -> pd.DataFrame:
    """The duel table: rows A landlord / A farmers / combined, `SUMMARY_COLUMNS`."""
    parts = [games[games.a_landlord], games[~games.a_landlord], games]
    out = []
    for part in parts:
        n = len(part)
        wins = int(part.a_won.sum())
        lo, hi = wilson(wins, n)
        adp, alo, ahi = mean_ci(part.a_points.to_numpy(dtype=float))
        out.append((wins / n if n else math.nan, lo, hi, adp, alo, ahi, n))
    df = pd.DataFrame(out, index=pd.Index(ROWS, name="A as"), columns=SUMMARY_COLUMNS)
    return df.astype({"n": int})


def _label(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, tuple):
        return str(spec[0])
    return getattr(spec, "__name__", type(spec).__name__)


def duel(agent_a: AgentSpec, agent_b: AgentSpec, deals: Union[Sequence[Deal], str, Path, int],
         rules: Union[Rules, str] = STANDARD, n_jobs: int = 1, backend: Optional[str] = None,
         progress: bool = True, seed: int = 0, chunk_size: Optional[int] = None,
         results: Union[str, Path, None] = None, record: Union[str, Path, None] = None) -> pd.DataFrame:
    """A against B on every deal, sides swapped; the WP/ADP table (module docstring).

    For the per-game rows call `duel_games` (then `summarize`); ``df.attrs`` names A, B,
    the rules and the number of deals.
    """
    games = duel_games(agent_a, agent_b, deals, rules, n_jobs, backend, progress, seed, chunk_size,
                       results, record)
    df = summarize(games)
    df.attrs.update({"A": _label(agent_a), "B": _label(agent_b), "rules": get_rules(rules).name,
                     "deals": int(games.deal.nunique()) if len(games) else 0})
    return df


__all__ = ["duel", "duel_games", "DuelResultsError", "summarize", "play_deal", "game_seed", "wilson", "mean_ci",
           "GAME_COLUMNS", "SUMMARY_COLUMNS", "ROWS"]
