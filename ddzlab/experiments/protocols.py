"""The field's evaluation protocols as stored experiments: ``ddzlab evaluate A B --protocol
douzero|duplicate``.

**douzero** (docs/rules.md#the-fields-protocols): DouZero's and PerfectDou's cross-play
tables. 10,000 deals by default; every deal played twice, A as landlord against two copies
of B, then B as landlord against two copies of A (ddzlab's arena protocol), so both role
assignments see the same cards. WP is the share of games A's side wins; ADP is scored as
DouZero's evaluation scores it: a game is worth ``2 × 2^bombs`` to the winning side and the
opposite to the losing side (twice ddzlab's ``±2^bombs`` of `ddzlab.arena`; spring not
counted). The landlord and farmer rows count games (a Wilson interval for WP, a t interval
for ADP); the combined row takes the deal as the unit (`ddzlab.stats.head_to_head`: the two
games of a deal share the cards), so its intervals are paired (the WP interval clipped to 0..1).

The games are an `Experiment` (one config, one opponent) played by `run_experiment` into a
user run (``data/experiments-user/<name>``, resumable: the same command again plays only
what is missing), so `load_games`, ``ddzlab experiment status`` and the checked store apply.
A deal set may be a number of deals generated from a seed, a ddzlab deal file, or DouZero's
own ``eval_data.pkl`` (read by `ddzlab.evaldata`'s restricted reader).

**duplicate**: Botzone's contest format. Every deal (2,000 by default) is played six times,
once in each seating of A and B over the three seats in which both sit
(`ddzlab.experiments.duplicate.SEATINGS`: A holds one seat in three of them, two in the other
three, each seat three times), and every game is scored Botzone's way (`botzone_scores`: 2
points to each player of the winning side plus a hundredth of a point per move by kind, the
farmers sharing the mean of their scores); an agent's score is the sum over its seats. The
run is an `Experiment` in the duplicate layout (one stored row per game, with its seating).
`duplicate_table` gives each agent's total, its mean per deal and the paired difference
A − B: the deal is the unit (its six games share the cards), a t interval over deals.

`cross_play` builds the table of many agents against each other from douzero runs;
`cross_play_runs` plays (or only reads) one run per pair of a list of agents and returns it.
"""
from __future__ import annotations

import math
import zlib
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import pandas as pd

from .. import stats
from .duplicate import SEATINGS, agent_scores
from .runner import Experiment, ExperimentError, load_games, run_experiment

PROTOCOLS = ("douzero", "duplicate")
#: DouZero's evaluation scores a game 2 × 2^bombs; ddzlab's stored points are ±2^bombs
DOUZERO_POINTS = 2
DEFAULT_DEALS = 10_000
#: deals of a duplicate run unless told (six games each)
DUPLICATE_DEALS = 2_000
TABLE_COLUMNS = ["WP", "WP_lo", "WP_hi", "ADP", "ADP_lo", "ADP_hi", "games", "deals"]
ROWS = ["A landlord", "A farmers", "combined"]
DUPLICATE_TABLE_COLUMNS = ["score", "per_deal", "lo", "hi", "landlord_WP", "games", "deals"]
DUPLICATE_ROWS = ["A", "B", "A - B"]


def default_deals(protocol: str) -> int:
    """The number of deals a protocol plays unless told: 10,000 (douzero), 2,000 (duplicate)."""
    _check_protocol(protocol)
    return DUPLICATE_DEALS if protocol == "duplicate" else DEFAULT_DEALS


def _check_protocol(protocol: str) -> None:
    if protocol not in PROTOCOLS:
        raise ExperimentError(f"unknown protocol {protocol!r}; one of {', '.join(PROTOCOLS)}")


def _label(spec: str) -> str:
    """A spec as a store label (labels are CSV cells: no comma, quote or newline)."""
    if not isinstance(spec, str):
        raise ExperimentError(f"the protocols take agent specs as text, got {spec!r}")
    return spec.replace(",", ";").replace('"', "'").replace("\n", " ")


def run_name(protocol: str, a: str, b: str, deals: Union[int, str], seed: int) -> str:
    """The default name of an evaluation run: the protocol and a checksum of what it plays."""
    key = f"{protocol}|{a}|{b}|{deals}|{seed}"
    return f"eval-{protocol}-{zlib.crc32(key.encode()):08x}"


def protocol_experiment(a: str, b: str, protocol: str = "douzero", deals: Union[int, str, None] = None,
                        seed: int = 0, deal_seed: Optional[int] = None, name: Optional[str] = None) -> Experiment:
    """The `Experiment` of ``a`` against ``b`` under ``protocol``: ``deals`` a number (generated
    from ``deal_seed``, default ``seed``; default `default_deals`) or a deal file (ddzlab
    text, or DouZero's ``.pkl``)."""
    _check_protocol(protocol)
    if deals is None:
        deals = default_deals(protocol)
    la, lb = _label(a), _label(b)
    if la == lb:
        lb = f"{lb}#2"
    if isinstance(deals, (str, Path)):
        deals = str(Path(deals).expanduser().resolve()) if Path(deals).expanduser().exists() else str(deals)
    return Experiment(name or run_name(protocol, a, b, deals, seed), configs={la: a}, opponents={lb: b},
                      deals=deals, seed=seed, deal_seed=deal_seed,
                      layout="duplicate" if protocol == "duplicate" else "sides",
                      description=f"ddzlab evaluate --protocol {protocol}: {a} (A) against {b} (B)")


def evaluate(a: str, b: str, protocol: str = "douzero", deals: Union[int, str, None] = None, seed: int = 0,
             deal_seed: Optional[int] = None, name: Optional[str] = None, n_jobs: int = 1,
             progress: bool = True, root: Union[str, Path, None] = None,
             limit: Optional[int] = None) -> pd.DataFrame:
    """Play (or resume) ``a`` against ``b`` under ``protocol`` into a stored user run and
    return its table (`douzero_table`, or `duplicate_table`); ``deals`` default
    `default_deals`; ``limit`` plays only the first deals of the set. ``attrs`` name the run
    and the store."""
    exp = protocol_experiment(a, b, protocol, deals, seed, deal_seed, name)
    run_experiment(exp, deals=limit, n_jobs=n_jobs, progress=progress, root=root, into=exp.name)
    games = load_games(exp, root=root, into=exp.name)
    n = limit or exp.n_deals
    games = games[games["deal"] < n]
    tabulate = duplicate_table if protocol == "duplicate" else douzero_table
    table = tabulate(games, next(iter(exp.configs)), next(iter(exp.opponents)))
    table.attrs.update({"experiment": exp.name, "store": games.attrs.get("store"), "protocol": protocol,
                        "A": a, "B": b, "seed": seed})
    return table


def douzero_table(games: pd.DataFrame, a: str, b: str, alpha: float = 0.05) -> pd.DataFrame:
    """A's WP and ADP (DouZero's points) against B from stored game rows: rows A landlord,
    A farmers, combined (`ROWS`), columns `TABLE_COLUMNS`; intervals at level ``1 - alpha``,
    the combined row's paired by deal."""
    seen = stats.both_sides(games)
    pair = seen[(seen["config"] == a) & (seen["opponent"] == b)]
    if pair.empty:
        raise stats.StatsError(f"no games of {a!r} against {b!r}")
    rows = []
    for role in ("landlord", "farmers"):
        part = pair[pair["role"] == role]
        won = part["won"].to_numpy(dtype=float)
        points = DOUZERO_POINTS * part["points"].to_numpy(dtype=float)
        lo, hi = stats.wilson(won.sum(), len(won), alpha) if len(won) else (math.nan, math.nan)
        adp = stats.t_interval(points, alpha) if len(points) > 1 else (float(np.mean(points)), math.nan, math.nan)
        rows.append((won.mean() if len(won) else math.nan, lo, hi, *adp, len(part), part["deal"].nunique()))
    h2h = stats.head_to_head(games, a, b, alpha=alpha)
    wp, adp = h2h.loc["WP"], h2h.loc["ADP"]
    rows.append((wp.estimate, max(0.0, wp.lo), min(1.0, wp.hi), DOUZERO_POINTS * adp.estimate, DOUZERO_POINTS * adp.lo,
                 DOUZERO_POINTS * adp.hi, len(pair), int(wp.n)))
    out = pd.DataFrame(rows, index=pd.Index(ROWS, name="A as"), columns=TABLE_COLUMNS)
    out.attrs.update({"A": a, "B": b})
    return out.astype({"games": int, "deals": int})


def duplicate_table(games: pd.DataFrame, a: str, b: str, alpha: float = 0.05) -> pd.DataFrame:
    """Botzone's duplicate result of ``a`` (config) against ``b`` (opponent) from stored rows
    of the duplicate layout: rows A, B and A − B (`DUPLICATE_ROWS`); columns
    `DUPLICATE_TABLE_COLUMNS`: ``score`` the total over every game (`agent_scores`),
    ``per_deal`` its mean per deal with the t interval ``lo``–``hi`` over deals at level
    ``1 - alpha`` (the A − B row paired: the difference of the two totals on each deal),
    ``landlord_WP`` the share of the games it won as landlord. Only deals with all six games
    count."""
    if "seats" not in games.columns:
        raise stats.StatsError("duplicate_table reads duplicate-format rows (a seats column); these rows are "
                               "of the sides layout: read them with douzero_table")
    pair = games[(games["config"] == a) & (games["opponent"] == b)]
    if pair.empty:
        raise stats.StatsError(f"no duplicate games of {a!r} against {b!r}")
    whole = pair.groupby("deal")["seats"].transform("nunique") == len(SEATINGS)
    pair = pair[whole]
    if pair.empty:
        raise stats.StatsError(f"no deal of {a!r} against {b!r} has all {len(SEATINGS)} seatings stored")
    scores = np.array([agent_scores(s, lw, (p0, p1, p2)) for s, lw, p0, p1, p2 in
                       zip(pair["seats"], pair["landlord_won"], pair["points0"], pair["points1"], pair["points2"])],
                      dtype=float).reshape(-1, 2)
    per = pd.DataFrame({"deal": pair["deal"].to_numpy(), "A": scores[:, 0], "B": scores[:, 1]})
    per = per.groupby("deal")[["A", "B"]].sum()
    per["A - B"] = per["A"] - per["B"]
    lord = pair["seats"].str[0].to_numpy()
    won = pair["landlord_won"].to_numpy(dtype=float)
    rows = []
    for row in DUPLICATE_ROWS:
        x = per[row].to_numpy()
        mean, lo, hi = stats.t_interval(x, alpha) if len(x) > 1 else (float(np.mean(x)), math.nan, math.nan)
        wp = float(won[lord == row].mean()) if row in ("A", "B") else math.nan
        rows.append((float(x.sum()), mean, lo, hi, wp, len(pair), len(per)))
    out = pd.DataFrame(rows, index=pd.Index(DUPLICATE_ROWS, name="agent"), columns=DUPLICATE_TABLE_COLUMNS)
    out.attrs.update({"A": a, "B": b})
    return out.astype({"games": int, "deals": int})


def cross_play(games: pd.DataFrame, agents: Optional[Sequence[str]] = None, alpha: float = 0.05) -> pd.DataFrame:
    """The cross-play table of every ordered pair met in ``games`` (stored rows of one or
    more runs, e.g. ``pd.concat`` of `load_games` results): one row per (A, B, role) with
    `TABLE_COLUMNS` (DouZero's ADP points, the combined row paired by deal)."""
    seen = stats.both_sides(games)
    names = list(agents) if agents is not None else list(dict.fromkeys([*games["config"], *games["opponent"]]))
    out = []
    for a in names:
        for b in names:
            if a == b or seen[(seen["config"] == a) & (seen["opponent"] == b)].empty:
                continue
            t = douzero_table(games, a, b, alpha)
            for role, row in t.iterrows():
                out.append({"A": a, "B": b, "role": role, **row.to_dict()})
    return pd.DataFrame(out, columns=["A", "B", "role", *TABLE_COLUMNS])


def cross_play_runs(agents: Sequence[str], deals: Union[int, str] = DEFAULT_DEALS, seed: int = 0,
                    n_jobs: int = 1, progress: bool = True, root: Union[str, Path, None] = None,
                    limit: Optional[int] = None, play: bool = True) -> pd.DataFrame:
    """The `cross_play` table of ``agents`` (specs), each unordered pair a protocol run of its
    own (`evaluate`: stored, resumable, the earlier-listed agent as A). ``play=False`` only
    reads the stored runs (a notebook that renders from stored experiments); a pair with no
    stored games is then left out. ``limit`` uses the first deals of the set."""
    parts = []
    for i, a in enumerate(agents):
        for b in agents[i + 1:]:
            exp = protocol_experiment(a, b, "douzero", deals, seed)
            if play:
                run_experiment(exp, deals=limit, n_jobs=n_jobs, progress=progress, root=root, into=exp.name)
            try:
                games = load_games(exp, root=root, into=exp.name)
            except ExperimentError:
                if play:
                    raise
                continue
            if not len(games):
                continue
            parts.append(games[games["deal"] < (limit or exp.n_deals)])
    if not parts:
        raise stats.StatsError(f"no stored games of any pair of {list(agents)}")
    games = pd.concat(parts, ignore_index=True)
    return cross_play(games, [_label(a) for a in agents])


__all__ = ["PROTOCOLS", "DEFAULT_DEALS", "DUPLICATE_DEALS", "DOUZERO_POINTS", "TABLE_COLUMNS",
           "DUPLICATE_TABLE_COLUMNS", "DUPLICATE_ROWS", "default_deals", "protocol_experiment", "evaluate",
           "douzero_table", "duplicate_table", "cross_play", "cross_play_runs", "run_name"]
