"""Arena: duels on fixed deals with sides swapped, WP and ADP with 95% confidence intervals.

The protocol is DouZero's evaluation (docs/rules.md#the-research-setting-wp-and-adp): no bidding, seat 0 is landlord and
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

The combined row treats the two games of a deal as a pair (they share the cards, so their
results are not independent): its intervals come from the per-deal means (`paired_wilson`
for WP, `mean_ci` for ADP).

A *tournament* is a round robin of duels between any number of agents on one deal set
(every pair plays every deal twice, sides swapped, exactly as `duel` does, with the same
seeds), summarised as a tidy frame with both orientations of every pair and the time each
agent spends per move:

>>> t = tournament(["random", "smallest", "greedy"], 3, progress=False)
>>> len(t), list(t.columns[:5])
(18, ['a', 'b', 'role', 'games', 'deals'])
"""
from __future__ import annotations

import csv
import json
import math
import os
import zlib
from contextlib import nullcontext
from functools import partial
from itertools import combinations
from pathlib import Path
from time import perf_counter
from typing import Any, Callable, Iterable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .agents.base import AgentSpec, make_agent, play_game, portable_spec
from .deals import Deal, generate_deals, read_deals
from .game import Game
from .errors import DdzError
from .parallel import run_chunks
from .records import RecordWriter, check_record_run, game_record, play_recorded
from .rules import STANDARD, Rules, get_rules
from .stats import wilson

Z95 = 1.959963984540054
GAME_COLUMNS = ["deal", "a_landlord", "landlord_won", "a_won", "bombs", "a_points", "moves"]
SUMMARY_COLUMNS = ["WP", "WP_lo", "WP_hi", "ADP", "ADP_lo", "ADP_hi", "n"]
ROWS = ["A landlord", "A farmers", "combined"]
MAX_CHUNK = 10   # deals per parallel task at most, so results files gain rows often
#: extra per-game columns of a timed game (`play_deal` with ``timed=True``): seconds spent in
#: the ``play`` calls of A's seats and B's seats, and how many calls each side answered
TIME_COLUMNS = ["a_seconds", "a_moves", "b_seconds", "b_moves"]
ROLES = ["landlord", "farmers", "combined"]
TOURNAMENT_GAME_COLUMNS = ["a", "b"] + GAME_COLUMNS + TIME_COLUMNS
TOURNAMENT_COLUMNS = ["a", "b", "role", "games", "deals", "WP", "WP_lo", "WP_hi", "ADP", "ADP_lo",
                      "ADP_hi", "sec_per_move_a", "sec_per_move_b", "moves_a", "moves_b"]


class ArenaError(DdzError):
    """A bad arena argument: too few or duplicate agents, no deals, fewer than one job."""


#: the joblib backends a run may name (``dask`` needs the dask extra)
BACKENDS = ("loky", "multiprocessing", "threading", "sequential", "dask")


def _check_run(n_jobs: Any, backend: Optional[str]) -> None:
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs < 1:
        raise ArenaError(f"n_jobs must be a whole number of at least 1, got {n_jobs!r}")
    if backend is not None and backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")


class ResultsFileError(DdzError):
    """A results file that belongs to another run, or is not a results file."""


class DuelResultsError(ResultsFileError):
    """A duel results file that belongs to another duel, or is not a results file."""


class TournamentResultsError(ResultsFileError):
    """A tournament results file that belongs to another tournament, or is not one."""


def game_seed(seed: int, deal: int, half: int, seat: int) -> int:
    """The seed of one agent in one game: independent of chunking and worker count."""
    return int(np.random.SeedSequence([seed, deal, half, seat]).generate_state(1)[0])


class _Timed:
    """An agent whose ``play`` calls are timed: adds the seconds and the call to
    ``clock[side]`` (one `perf_counter` for every agent; building the observation and
    the agent are outside the clock)."""

    def __init__(self, agent: Any, clock: list[list[float]], side: int) -> None:
        self.agent, self.clock, self.side = agent, clock, side

    def bid(self, obs: Any) -> int:
        return self.agent.bid(obs)

    def play(self, obs: Any) -> Any:
        start = perf_counter()
        move = self.agent.play(obs)
        spent = perf_counter() - start
        entry = self.clock[self.side]
        entry[0] += spent
        entry[1] += 1
        return move

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)


def seat_agents(agent_a: AgentSpec, agent_b: AgentSpec, index: int, half: int, seed: int = 0) -> list:
    """The three agents of one game of deal ``index``: in half 0 ``agent_a`` is the landlord
    (seat 0) against two ``agent_b`` farmers, in half 1 the other way round; seat ``s`` is
    seeded by `game_seed` (``seed``, ``index``, ``half``, ``s``). The one place that seats a
    deal's games: `play_deal` and the studies that replay its games
    (`ddzlab.experiments.guessing`) call it."""
    lord, farmer = (agent_a, agent_b) if half == 0 else (agent_b, agent_a)
    return [make_agent(spec, seed=game_seed(seed, index, half, s)) for s, spec in enumerate((lord, farmer, farmer))]


def play_deal(agent_a: AgentSpec, agent_b: AgentSpec, deal: Deal, index: int, rules: Rules,
              seed: int = 0, timed: bool = False, records: Optional[list] = None) -> list[tuple]:
    """Both halves of one deal: rows of `GAME_COLUMNS` (A landlord first), followed by
    `TIME_COLUMNS` when ``timed``. With a ``records`` list, each game's
    `ddzlab.records.game_record` is appended to it."""
    rows = []
    for half, (lord, farmer) in enumerate(((agent_a, agent_b), (agent_b, agent_a))):
        agents = seat_agents(agent_a, agent_b, index, half, seed)
        clock = [[0.0, 0], [0.0, 0]]           # [seconds, play calls] of A's side, B's side
        if timed:
            sides = (0, 1, 1) if half == 0 else (1, 0, 0)
            agents = [_Timed(agent, clock, side) for agent, side in zip(agents, sides)]
        if records is None:
            game = play_game(Game(deal, rules=rules, landlord=0), agents)
        else:
            game, evals = play_recorded(Game(deal, rules=rules, landlord=0), agents)
            records.append(game_record(game, [_label(lord), _label(farmer), _label(farmer)], evals,
                                       index=2 * index + half, deal_no=index, half=half))
        lw = bool(game.landlord_won)
        a_won = lw if half == 0 else not lw
        points = (1 << game.bombs) * (1 if a_won else -1)
        row = (index, half == 0, lw, a_won, game.bombs, points, len(game.history))
        rows.append(row + (clock[0][0], clock[0][1], clock[1][0], clock[1][1]) if timed else row)
    return rows


def _play_chunk(agent_a: AgentSpec, agent_b: AgentSpec, chunk: list[tuple[int, Deal]],
                rules: Rules, seed: int, record: bool) -> Any:
    """Rows of the chunk's games; with ``record``, (rows, game records)."""
    out: list[tuple] = []
    records: Optional[list] = [] if record else None
    for index, deal in chunk:
        out.extend(play_deal(agent_a, agent_b, deal, index, rules, seed, records=records))
    return (out, records) if record else out


def _as_deals(deals: Union[Sequence[Deal], str, Path, int], rules: Rules, seed: int) -> list[Deal]:
    if isinstance(deals, int):
        return generate_deals(deals, seed=seed, rules=rules)
    if isinstance(deals, (str, Path)):
        return read_deals(deals, rules)
    return list(deals)


def _chunks(items: list, n_jobs: int, backend: Optional[str],
            chunk_size: Optional[int]) -> list[list]:
    """Work units: one item at a time here; in parallel, small chunks (at most `MAX_CHUNK`
    deals), so a results file gains rows every few deals, not once per long chunk."""
    if n_jobs == 1 and backend is None:
        size = 1
    else:
        workers = n_jobs if n_jobs > 1 else (os.cpu_count() or 1)
        size = chunk_size or max(1, min(MAX_CHUNK, math.ceil(len(items) / (4 * workers))))
    return [items[i:i + size] for i in range(0, len(items), size)]


def _check_record(record: Union[str, Path, None], results: Union[str, Path, None], rules: Rules,
                  agents: list[str], seed: int, source: str) -> None:
    """Refuse, before a run changes any file, a record file of another run (its header names
    other agents, rules, seed or source): `RecordError` naming the file."""
    if record is not None:
        check_record_run(record, rules=rules, agents=agents, seed=seed, source=source)


def _record_writer(record: Union[str, Path, None], results: Union[str, Path, None], rules: Rules,
                   agents: list[str], seed: int, source: str,
                   keep: Optional[Callable[[dict], bool]] = None) -> Optional[RecordWriter]:
    """The game-record writer of a run (None without ``record``). A record of another run is
    refused with `RecordError` before anything is changed (`_check_record`), never replaced.
    The run's own record is written afresh when the run does not resume from a results file
    (the same run played again from its start); a resumed run first drops the record's games
    that ``keep(game line)`` rejects (deals the results file does not hold complete, which
    are played again) and a last line cut short, so no game is recorded twice."""
    if record is None:
        return None
    path = Path(record)
    _check_record(path, results, rules, agents, seed, source)
    if results is None and path.exists():
        path.unlink()                          # this run's own record, played again from its start
    elif keep is not None and path.is_file() and path.stat().st_size > 0:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:             # left as it is: RecordWriter refuses it, naming the line
            return RecordWriter(record, rules=rules, agents=agents, seed=seed, source=source)
        lines = text.split("\n")
        lines = lines[:-1]                     # the last is empty, or cut short by a crash
        kept = lines[:1]
        for line in lines[1:]:
            try:
                game = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                kept.append(line)              # RecordWriter refuses it, naming the line
                continue
            if not isinstance(game, dict) or keep(game):
                kept.append(line)
        if kept != lines or text.split("\n")[-1]:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
            os.replace(tmp, path)
    return RecordWriter(record, rules=rules, agents=agents, seed=seed, source=source)


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
    not replayed). A file written by another duel (agents, rules, seed, or another deal
    set — other deals or another number of them) raises `DuelResultsError`.

    ``record``: a game record file (`ddzlab.records`) that every game is written to, with
    its moves and the agents' evaluations: appended to when resuming from ``results``, else
    written afresh. A record of another duel (agents, rules, seed) raises
    `ddzlab.records.RecordError` naming the file, before anything is written: it is never
    replaced.
    """
    rules = get_rules(rules)
    _check_run(n_jobs, backend)
    deal_list = _as_deals(deals, rules, seed)
    if not deal_list:
        raise ArenaError("a duel needs at least one deal, got an empty deal list")
    label_a, label_b = _label(agent_a), _label(agent_b)
    meta = {"a": label_a, "b": label_b, "rules": rules.name, "seed": seed,
            "deals": _deal_set_id(deal_list)}      # other or more deals: refused, not mixed in
    _check_record(record, results, rules, [label_a, label_b], seed, "duel")
    rows, sink = _results_sink(results, meta)
    done = {r[0] for r in rows}
    indexed = [(i, d) for i, d in enumerate(deal_list) if i not in done]
    chunks = _chunks(indexed, n_jobs, backend, chunk_size)
    writer = _record_writer(record, results, rules, [label_a, label_b], seed, "duel",
                            keep=lambda g: g.get("deal_no") in done)
    parts: Iterable = run_chunks(partial(_play_chunk, portable_spec(agent_a), portable_spec(agent_b),
                                         rules=rules, seed=seed,
                                         record=writer is not None),
                                 chunks, n_jobs, backend)
    if progress:
        from tqdm.auto import tqdm
        parts = tqdm(parts, total=len(chunks), desc="duel", unit="deal" if len(chunks) == len(indexed) else "chunk")
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


#: how each results column is written and checked: (parse, lowest, highest)
_INT, _BOOL, _SECS = "int", "bool", "seconds"
_COLUMN_KIND = {"deal": _INT, "a_landlord": _BOOL, "landlord_won": _BOOL, "a_won": _BOOL,
                "bombs": _INT, "a_points": _INT, "moves": _INT, "a_seconds": _SECS,
                "a_moves": _INT, "b_seconds": _SECS, "b_moves": _INT}
#: a game has at most this many moves and bombs (a 55-card deck, every card a move)
_MAX_MOVES, _MAX_BOMBS = 1000, 20


def _cell(value: str, kind: str, name: str, where: str) -> Any:
    if kind == _BOOL:
        if value not in ("True", "False"):
            raise ValueError(f"{where}: {name}={value!r} is not True or False")
        return value == "True"
    try:
        x = int(value) if kind == _INT else float(value)
    except ValueError:
        raise ValueError(f"{where}: {name}={value!r} is not a number") from None
    if kind == _SECS and not 0 <= x < 1e7:          # NaN fails this too
        raise ValueError(f"{where}: {name}={value!r} is not a time in seconds")
    return x


def _check_row(row: tuple, columns: Sequence[str], n_deals: int, where: str) -> None:
    """A game row's own consistency: deal inside the deal set, winners and points agreeing."""
    r = dict(zip(columns, row))
    if not 0 <= r["deal"] < n_deals:
        raise ValueError(f"{where}: deal {r['deal']} is outside the {n_deals} deals of this run")
    if not 0 <= r["bombs"] <= _MAX_BOMBS or not 1 <= r["moves"] <= _MAX_MOVES:
        raise ValueError(f"{where}: bombs={r['bombs']}, moves={r['moves']} cannot be one game's")
    if r["a_won"] != (r["landlord_won"] == r["a_landlord"]):
        raise ValueError(f"{where}: a_won={r['a_won']} contradicts landlord_won and a_landlord")
    if r["a_points"] != (1 << r["bombs"]) * (1 if r["a_won"] else -1):
        raise ValueError(f"{where}: a_points={r['a_points']} is not ±2^bombs of the winner")
    for side in ("a_moves", "b_moves"):
        if side in r and not 0 <= r[side] <= r["moves"]:
            raise ValueError(f"{where}: {side}={r[side]} outside 0..moves")


def _read_results(path: Path, header: list[str], columns: Sequence[str], meta: dict,
                  key: Sequence[str], what: str, error: type) -> tuple[list[tuple], list[str]]:
    """The complete deals' rows of a results file, and the file's lines to keep.

    A last line without its newline (a crash cut it) is dropped with a warning; any other
    bad line raises ``error`` naming the line. Rows of a deal whose two halves are not both
    there are dropped too (that deal is replayed), so a file never collects orphans."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: not a {what} results file (not UTF-8 text)") from None
    lines = text.split("\n")
    if lines[-1]:
        import warnings
        warnings.warn(f"{path}: the last line was cut short (an interrupted write): dropped, "
                      "its deal is replayed")
    lines = lines[:-1]
    if not lines or lines[0].split(",") != header:
        raise error(f"{path}: not a {what} results file (first line {lines[0][:120] if lines else ''!r})")
    n_deals = int(str(meta["deals"]).split(":")[0])
    parsed: list[tuple] = []
    halves: dict[tuple, list[int]] = {}
    for lineno, line in enumerate(lines[1:], start=2):
        where = f"{path}:{lineno}"
        cells = next(csv.reader([line]))
        if len(cells) != len(header):
            raise error(f"{where}: {len(cells)} fields, a {what} results row has {len(header)}")
        for name, value in zip(meta, cells[len(columns):]):
            if value != str(meta[name]):
                raise error(f"{path} holds another {what} ({name}={value!r}, this one has "
                            f"{str(meta[name])!r}); use another file")
        try:
            row = tuple(_cell(v, _COLUMN_KIND[c], c, where) if c in _COLUMN_KIND else v
                        for c, v in zip(columns, cells))
            _check_row(row, columns, n_deals, where)
        except ValueError as e:
            raise error(f"{e}; the file is damaged: repair or delete that line") from None
        k = tuple(row[columns.index(c)] for c in key)
        half = 0 if row[columns.index("a_landlord")] else 1
        if half in halves.setdefault(k, []):
            raise error(f"{where}: a second row of {dict(zip(key, k))} with a_landlord="
                        f"{half == 0}: the file is damaged")
        halves[k].append(half)
        parsed.append(row)
    keep = [i for i, row in enumerate(parsed)
            if len(halves[tuple(row[columns.index(c)] for c in key)]) == 2]
    return [parsed[i] for i in keep], [lines[0]] + [lines[i + 1] for i in keep]


def _results_sink(path: Union[str, Path, None], meta: dict, columns: Sequence[str] = GAME_COLUMNS,
                  key: Sequence[str] = ("deal",), what: str = "duel",
                  error: type = DuelResultsError) -> tuple[list[tuple], Any]:
    """Rows already in the results file, and a function that records new rows (in memory,
    and appended to the file, flushed, when there is one).

    Every row of the file carries ``meta`` (what identifies the run); a file with other
    values raises ``error``. Every row is checked (types, ranges, points against bombs and
    winner; `_read_results`); rows are kept only when both halves of their deal (the rows
    sharing ``key``) were written, and the file is rewritten without the others, so the
    replayed deal is not counted twice. Columns without a kind (`_COLUMN_KIND`: the agents'
    labels) are kept as strings."""
    rows: list[tuple] = []
    if path is None:
        return rows, rows.extend
    path = Path(path)
    header = list(columns) + list(meta)
    if path.is_dir():
        raise error(f"{path} is a folder; --results takes a CSV file name")
    if path.exists() and path.stat().st_size > 0:
        rows, lines = _read_results(path, header, columns, meta, key, what, error)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("".join(line + "\n" for line in lines))
        os.replace(tmp, path)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(",".join(header) + "\n")

    def sink(new_rows: list[tuple]) -> None:
        rows.extend(new_rows)
        with open(path, "a", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(list(r) + list(meta.values())
                                                         for r in new_rows)

    return rows, sink


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


def paired_wilson(shares: np.ndarray, games: Optional[int] = None,
                  alpha: float = 0.05) -> tuple[float, float, float]:
    """Win share and interval from per-deal shares (each deal's two games form a pair).

    The Wilson interval at the effective sample size ``p(1-p) / Var(p̂)``, with ``Var(p̂)``
    the variance of the per-deal shares over the number of deals (Kish's design effect
    for clustered samples). When the two games of a deal are independent this is about
    ``games`` (two per deal), the ordinary Wilson interval; the seat swap usually makes
    them anti-correlated for each side (the deal that favours the landlord gives each side
    one game), which narrows it. At 0% or 100%, or with one deal, there is no spread to
    estimate and the ordinary Wilson interval over ``games`` is used.

    >>> p, lo, hi = paired_wilson(np.array([0.5, 0.5, 0.5, 0.5]))
    >>> p, lo, hi     # every deal split: no sampling spread left between the deals
    (0.5, 0.5, 0.5)
    """
    n = len(shares)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    games = 2 * n if games is None else games
    p = float(np.mean(shares))
    n_eff: float = games
    if n > 1 and 0 < p < 1:
        var = float(np.var(shares, ddof=1)) / n
        if var == 0:
            return (p, p, p)
        n_eff = p * (1 - p) / var
    lo, hi = wilson(p * n_eff, n_eff, alpha)
    return (p, lo, hi)


def _role_stats(games: pd.DataFrame) -> list[tuple]:
    """(games, deals, WP, WP_lo, WP_hi, ADP, ADP_lo, ADP_hi) of A as landlord, as farmers,
    and combined; the combined intervals pair the two games of each deal."""
    out = []
    for part in (games[games.a_landlord], games[~games.a_landlord]):
        n = len(part)
        wins = int(part.a_won.sum())
        adp = mean_ci(part.a_points.to_numpy(dtype=float))
        out.append((n, int(part.deal.nunique()), wins / n if n else math.nan, *wilson(wins, n), *adp))
    per_deal = games.groupby("deal")[["a_won", "a_points"]].mean()
    wp = paired_wilson(per_deal.a_won.to_numpy(dtype=float), len(games))
    adp = mean_ci(per_deal.a_points.to_numpy(dtype=float))
    out.append((len(games), len(per_deal), *wp, *adp))
    return out


def summarize(games: pd.DataFrame) -> pd.DataFrame:
    """The duel table: rows A landlord / A farmers / combined, `SUMMARY_COLUMNS`.

    Landlord and farmer rows: Wilson interval for WP, normal interval for ADP over their
    games. Combined: the same over per-deal means (`paired_wilson`, `mean_ci`), since the
    two games of a deal share the cards."""
    out = [(*s[2:], s[0]) for s in _role_stats(games)]
    df = pd.DataFrame(out, index=pd.Index(ROWS, name="A as"), columns=SUMMARY_COLUMNS)
    return df.astype({"n": int})


def _label(spec: Any) -> str:
    if isinstance(spec, str):
        head, sep, rest = spec.partition(":")
        if sep and head.endswith(".py"):          # a user's file: its name, not the path a worker got
            return f"{Path(head).name}:{rest}"
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
                     "deals": int(games.deal.nunique())})       # duel_games refuses an empty duel
    return df


# -- tournaments -----------------------------------------------------------------------
def _entrants(agents: Union[Sequence[AgentSpec], dict[str, AgentSpec]]) -> list[tuple[str, AgentSpec]]:
    """(label, spec) of every agent; labels must be distinct."""
    if isinstance(agents, dict):
        entrants = [(str(k), v) for k, v in agents.items()]
    elif isinstance(agents, (str, tuple)) or callable(agents):
        raise ArenaError(f"a tournament takes a list of agents or a dict label -> agent, got {agents!r}")
    else:
        entrants = [(_label(spec), spec) for spec in agents]
    labels = [label for label, _ in entrants]
    if len(entrants) < 2:
        raise ArenaError(f"a tournament needs at least two agents, got {len(entrants)}: {labels}")
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ArenaError(f"agent label(s) {twice} appear more than once; give the agents as a "
                         "dict label -> spec to tell them apart")
    for label, spec in entrants:
        make_agent(spec, seed=0)                 # an unknown name fails here, not in a worker
    return entrants


def _deal_set_id(deals: Sequence[Deal]) -> str:
    """``"<count>:<crc32>"`` of the deal texts: a results file names the deals it was played on."""
    crc = zlib.crc32("\n".join(d.to_text() for d in deals).encode())
    return f"{len(deals)}:{crc:08x}"


def _play_pairs_chunk(entrants: tuple[tuple[str, AgentSpec], ...], chunk: list[tuple[int, int, int, Deal]],
                      rules: Rules, seed: int, record: bool) -> Any:
    """Timed rows (`TOURNAMENT_GAME_COLUMNS`) of ``(agent index a, agent index b, deal index, deal)`` items;
    with ``record``, (rows, game records)."""
    out: list[tuple] = []
    records: list = []
    for ia, ib, index, deal in chunk:
        (la, sa), (lb, sb) = entrants[ia], entrants[ib]
        recs: Optional[list] = [] if record else None
        out.extend((la, lb, *row) for row in play_deal(sa, sb, deal, index, rules, seed, timed=True,
                                                       records=recs))
        for rec in recs or ():
            rec.update(a=la, b=lb)
            records.append(rec)
    return (out, records) if record else out


def tournament_games(agents: Union[Sequence[AgentSpec], dict[str, AgentSpec]],
                     deals: Union[Sequence[Deal], str, Path, int], rules: Union[Rules, str] = STANDARD,
                     *, n_jobs: int = 1, backend: Optional[str] = None, scheduler: Optional[str] = None,
                     progress: bool = True, seed: int = 0, results: Union[str, Path, None] = None,
                     chunk_size: Optional[int] = None, record: Union[str, Path, None] = None) -> pd.DataFrame:
    """Every pair of agents on every deal, sides swapped: one row per game
    (`TOURNAMENT_GAME_COLUMNS`), pairs in the agents' order (``a`` listed before ``b``).
    ``record``: a game record file for every game (as `duel_games`; each game line also
    names its pair ``a``, ``b``).

    Each pair's games are exactly ``duel_games(a, b, deals, rules, seed=seed)`` (same agent
    seeds), plus the seconds each side spent in its agents' ``play`` calls. Arguments as
    in `tournament`.
    """
    entrants = _entrants(agents)
    labels = [label for label, _ in entrants]
    rules = get_rules(rules)
    if isinstance(deals, int) and deals < 1:
        raise ArenaError(f"a tournament needs at least one deal, got {deals}")
    _check_run(n_jobs, backend)
    if scheduler is not None and backend not in (None, "dask"):
        raise ArenaError(f"scheduler={scheduler!r} runs on dask; it cannot use backend={backend!r}")
    deal_list = _as_deals(deals, rules, seed)
    if not deal_list:
        raise ArenaError("a tournament needs at least one deal, got an empty deal list")
    meta = {"agents": "|".join(labels), "rules": rules.name, "seed": seed,
            "deals": _deal_set_id(deal_list)}
    _check_record(record, results, rules, labels, seed, "tournament")
    rows, sink = _results_sink(results, meta, TOURNAMENT_GAME_COLUMNS, key=("a", "b", "deal"),
                               what="tournament", error=TournamentResultsError)
    done = {(r[0], r[1], r[2]) for r in rows}
    items = [(ia, ib, i, d) for i, d in enumerate(deal_list)           # deal by deal: an
             for ia, ib in combinations(range(len(labels)), 2)         # interrupted run has
             if (labels[ia], labels[ib], i) not in done]               # every pair on a prefix
    client: Any = nullcontext()
    if scheduler is not None:
        client, backend = _connect(scheduler), "dask"
    chunks = _chunks(items, n_jobs, backend, chunk_size)
    writer = _record_writer(record, results, rules, labels, seed, "tournament",
                            keep=lambda g: (g.get("a"), g.get("b"), g.get("deal_no")) in done)
    func = partial(_play_pairs_chunk, tuple((label, portable_spec(spec)) for label, spec in entrants),
                   rules=rules, seed=seed,
                   record=writer is not None)
    with client:
        bar = None
        if progress:
            from tqdm.auto import tqdm
            pairs = len(labels) * (len(labels) - 1) // 2
            bar = tqdm(total=pairs * len(deal_list), initial=pairs * len(deal_list) - len(items),
                       unit="deal", desc=f"tournament, {pairs} pair{'s' * (pairs > 1)}")
        try:
            for part in run_chunks(func, chunks, n_jobs, backend):
                if writer is not None:
                    part, recs = part
                    for rec in recs:
                        writer.write({**rec, "game": writer.count})
                sink(part)
                if bar is not None:
                    bar.update(len(part) // 2)
        finally:
            if bar is not None:
                bar.close()
            if writer is not None:
                writer.close()
    df = pd.DataFrame(rows, columns=TOURNAMENT_GAME_COLUMNS)
    order = {label: i for i, label in enumerate(labels)}
    df = df.sort_values(["a", "b", "deal", "a_landlord"], ascending=[True, True, True, False],
                        key=lambda col: col.map(order) if col.name in ("a", "b") else col)
    df = df.reset_index(drop=True)
    df.attrs.update({"agents": labels, "rules": rules.name, "seed": seed, "deals": len(deal_list)})
    return df


SCHEDULER_TIMEOUT = 20        # seconds to wait for a dask scheduler


def _connect(address: str) -> Any:
    """A dask.distributed ``Client`` on an existing scheduler (the default client while open).

    The connection is made in a helper thread and abandoned after `SCHEDULER_TIMEOUT`
    seconds (plus a grace period): a program that is not a dask scheduler but accepts the
    connection and never answers made ``Client(timeout=...)`` wait forever."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise ArenaError("running on a dask scheduler needs dask.distributed: "
                         "pip install 'ddzlab[dask]'") from None
    import threading
    out: dict[str, Any] = {}

    def connect() -> None:
        try:
            out["client"] = Client(address, timeout=SCHEDULER_TIMEOUT)
        except BaseException as e:  # noqa: BLE001 - any failure is reported below
            out["error"] = e
    t = threading.Thread(target=connect, name="ddzlab-connect", daemon=True)
    t.start()
    t.join(SCHEDULER_TIMEOUT + 5)
    if t.is_alive():
        raise ArenaError(f"no dask scheduler answered at {address!r} within "
                         f"{SCHEDULER_TIMEOUT + 5} s (is another program listening there?)")
    if "error" in out:
        e = out["error"]
        raise ArenaError(f"cannot reach the dask scheduler at {address!r}: "
                         f"{type(e).__name__}: {str(e)[:200]}") from None
    return out["client"]


def _mirrored(games: pd.DataFrame) -> pd.DataFrame:
    """The same games seen from B's side (B becomes ``a``)."""
    m = games.copy()
    m["a"], m["b"] = games.b, games.a
    m["a_landlord"], m["a_won"], m["a_points"] = ~games.a_landlord, ~games.a_won, -games.a_points
    m["a_seconds"], m["b_seconds"] = games.b_seconds, games.a_seconds
    m["a_moves"], m["b_moves"] = games.b_moves, games.a_moves
    return m


def tournament_table(games: pd.DataFrame, agents: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """The tidy tournament frame (`TOURNAMENT_COLUMNS`) from `tournament_games` rows: one row
    per ordered pair (a, b) that has games and role (landlord / farmers / combined, A's role),
    both orientations of every pair (B vs A is the same games from B's side). Intervals as in
    `summarize` (combined: per-deal pairs). ``sec_per_move_a``: seconds per ``play`` call of
    A's agents in those games (wall clock; depends on the machine and its load), over
    ``moves_a`` calls (passes included)."""
    agents = list(agents if agents is not None else games.attrs.get("agents")
                  or dict.fromkeys([*games.a, *games.b]))
    both = pd.concat([games, _mirrored(games)], ignore_index=True)
    out = []
    for a in agents:
        for b in agents:
            pair = both[(both.a == a) & (both.b == b)]
            if a == b or not len(pair):
                continue
            for role, stats in zip(ROLES, _role_stats(pair)):
                part = pair if role == "combined" else pair[pair.a_landlord == (role == "landlord")]
                moves_a, moves_b = int(part.a_moves.sum()), int(part.b_moves.sum())
                spm_a = float(part.a_seconds.sum()) / moves_a if moves_a else math.nan
                spm_b = float(part.b_seconds.sum()) / moves_b if moves_b else math.nan
                out.append((a, b, role, *stats, spm_a, spm_b, moves_a, moves_b))
    df = pd.DataFrame(out, columns=TOURNAMENT_COLUMNS)
    df.attrs.update(games.attrs)
    df.attrs["agents"] = agents                 # the order used, given or found
    return df


def seconds_per_move(table: pd.DataFrame) -> pd.Series:
    """Each agent's seconds per ``play`` call over all its games of a `tournament` frame
    (weighted by its number of calls), in the agents' order."""
    comb = table[table.role == "combined"]
    spent = (comb.sec_per_move_a * comb.moves_a).groupby(comb.a, sort=False).sum()
    spm = spent / comb.moves_a.groupby(comb.a, sort=False).sum()
    agents = table.attrs.get("agents") or list(spm.index)
    return spm.reindex(agents).rename("sec_per_move").rename_axis("agent")


def tournament(agents: Union[Sequence[AgentSpec], dict[str, AgentSpec]],
               deals: Union[Sequence[Deal], str, Path, int], rules: Union[Rules, str] = STANDARD,
               *, n_jobs: int = 1, backend: Optional[str] = None, scheduler: Optional[str] = None,
               progress: bool = True, seed: int = 0, results: Union[str, Path, None] = None,
               chunk_size: Optional[int] = None, record: Union[str, Path, None] = None) -> pd.DataFrame:
    """A round robin: every pair of ``agents`` plays every deal twice, sides swapped, as
    `duel` does; the tidy frame of `tournament_table` (`TOURNAMENT_COLUMNS`, one row per
    ordered pair and role, both orientations).

    ``agents``: a list of agent specs (labelled by name) or a dict label -> spec; at least
    two, distinct labels. ``deals``: a list of `Deal`, a deal file, or a number of deals to
    generate from ``seed``.

    Runs here deal by deal (``n_jobs=1``), through joblib (``n_jobs`` > 1 or ``backend``), or
    on an existing dask cluster: ``scheduler="tcp://host:8786"`` connects a
    ``dask.distributed.Client`` to it for the run. Every column but the ``sec_per_move`` ones
    is the same whatever ``n_jobs``, backend or scheduler.

    ``results``: a CSV file that finished deals are appended to (flushed as each chunk
    finishes); rerun with it to resume. A file of another tournament (agents, rules, seed
    or deals) raises `TournamentResultsError`. ``record``: a game record file
    (`ddzlab.records`) of every game, appended to when resuming from ``results``, else written
    afresh; a record of another run raises `ddzlab.records.RecordError` (it is never replaced).
    """
    games = tournament_games(agents, deals, rules, n_jobs=n_jobs, backend=backend,
                             scheduler=scheduler, progress=progress, seed=seed, results=results,
                             chunk_size=chunk_size, record=record)
    return tournament_table(games)


__all__ = ["duel", "duel_games", "DuelResultsError", "summarize", "play_deal", "seat_agents", "game_seed", "mean_ci",
           "GAME_COLUMNS", "SUMMARY_COLUMNS", "ROWS",
           "tournament", "tournament_games", "tournament_table", "seconds_per_move", "paired_wilson", "ArenaError",
           "ResultsFileError", "TournamentResultsError", "TIME_COLUMNS", "ROLES", "TOURNAMENT_COLUMNS",
           "TOURNAMENT_GAME_COLUMNS"]
