"""Experiments: named grids of agent configurations × opponents on a fixed deal set, played
with the arena's seat-swapped protocol, every game stored as one row.

An `Experiment` names its configurations and opponents (agent specs, by label), a deal set
and the rules. Every (config, opponent) pair plays every deal twice — ``config`` as landlord
against two copies of the opponent, then the opponent as landlord against two copies of
``config`` — exactly as `ddzlab.arena.duel` plays it (`ddzlab.arena.play_deal`, agent seeds
from ``(seed, deal, half, seat)``), so the games of a pair do not depend on the rest of the
grid, on ``n_jobs`` or on the order they are played in. Without ``opponents`` the
configurations play a round robin (each unordered pair once, the earlier-listed as
``config``).

`run_experiment` plays what is missing and appends the games to
``data/experiments/<name>/games.csv.gz`` (`ddzlab.experiments.store`) as they finish: stop it
at any point and run it again, it plays only the games not stored. A committed store is
*published* (``experiment.json`` records its size): a run that would add games to it goes to a
user run in ``data/experiments-user/`` unless it is asked to publish. Every reader
(`load_games`, `status`, `run_experiment`) refuses a damaged store and rows that disagree with
the experiment; `repair_experiment` keeps the intact rows. Beside the rows:
``deals.txt`` (the deal set) and ``experiment.json`` (the spec, the seed, the deal set's
checksum and, per run, the code version and how many games it added). The work runs deal
by deal — every pair on deal 0, then deal 1 ... — so a partial experiment holds every pair
on a common prefix of the deals.

``layout="duplicate"``: every pair plays every deal six times instead, once in each seating
of Botzone's duplicate format (`ddzlab.experiments.duplicate`), stored one row per game in
the store's duplicate layout (`ddzlab.experiments.store.DUPLICATE`); resuming, checking and
repairing work the same.

>>> import tempfile
>>> exp = Experiment("demo", configs=["smallest", "random"], opponents=["greedy"], deals=2, seed=1)
>>> with tempfile.TemporaryDirectory() as d:
...     games = run_experiment(exp, root=d, progress=False)
...     again = run_experiment(exp, root=d, progress=False)     # nothing left to play
>>> len(games), len(again), sorted(set(games.role))
(8, 8, ['farmers', 'landlord'])
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import subprocess
import warnings
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from ..agents.base import make_agent
from ..arena import _connect, play_deal
from ..config import DATA_DIR, USER_RUNS_ENV
from ..deals import Deal, generate_deals, parse_deals, read_deals, write_deals
from ..parallel import run_chunks
from ..rules import get_rules
from . import store
from .duplicate import play_seatings
from .store import BadRowsError, DamagedStoreError, StoreError

#: where experiments are stored unless ``root`` or ``DDZLAB_EXPERIMENTS`` says otherwise
EXPERIMENTS_DIR = DATA_DIR / "experiments"
#: where runs beyond the published size go (git-ignored), unless ``DDZLAB_USER_EXPERIMENTS`` says
USER_EXPERIMENTS_DIR = DATA_DIR / "experiments-user"
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
COMPACT_EVERY = 200          # members appended before the store is compacted into one
MAX_CHUNK = 8                # (config, opponent, deal) units per parallel task at most
#: how each pair plays a deal: ``sides`` (the arena's two games) or ``duplicate`` (six seatings)
LAYOUTS = {"sides": store.GAMES, "duplicate": store.DUPLICATE}

Spec = Union[str, tuple]


class ExperimentError(StoreError):
    """A bad experiment: unknown name, bad spec, or stored files of another experiment."""


def _spec_label(spec: Spec) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and isinstance(spec[1], dict):
        opts = ",".join(f"{k}={v}" for k, v in sorted(spec[1].items()))
        return f"{spec[0]}:{opts}" if opts else spec[0]
    raise ExperimentError(f"an experiment's agents are spec strings ('weights:off=partner') or "
                          f"(name, kwargs) pairs, so they can be stored as text; got {spec!r}")


def _labelled(agents: Union[Mapping[str, Spec], Sequence[Spec], None], what: str) -> Optional[dict[str, Spec]]:
    if agents is None:
        return None
    if isinstance(agents, (str, tuple)):
        raise ExperimentError(f"{what}: give a list of specs or a dict label -> spec, not {agents!r}")
    if isinstance(agents, Mapping):
        out = {str(k): v for k, v in agents.items()}
        for v in out.values():
            _spec_label(v)
    else:
        out = {}
        for spec in agents:
            label = _spec_label(spec)
            if label in out:
                raise ExperimentError(f"{what}: {label!r} is listed twice")
            out[label] = spec
    if not out:
        raise ExperimentError(f"{what}: an experiment needs at least one agent")
    bad = [k for k in out if not k or "," in k or "\n" in k or '"' in k]
    if bad:
        raise ExperimentError(f"{what}: labels are stored in CSV rows and may not contain a comma, quote "
                              f"or newline: {bad}")
    return out


@dataclass(frozen=True)
class Experiment:
    """A named grid: ``configs`` × ``opponents`` (labels → agent specs; a list of spec
    strings is labelled by the strings) on a deal set, each deal played with sides swapped.

    ``opponents=None``: a round robin of the configs (each unordered pair once).
    ``deals``: a number of deals generated from ``deal_seed`` (default ``seed``), or the
    name of a deal file (``"standard_1000"`` in ``data/deals``, or a path).
    ``seed``: the arena seed the agents' per-game seeds derive from.
    ``layout``: ``"sides"`` (the default: two games a deal, sides swapped) or
    ``"duplicate"`` (six games a deal, one per seating of Botzone's duplicate format).
    """
    name: str
    configs: Any
    opponents: Any = None
    deals: Union[int, str] = 1000
    rules: str = "standard"
    seed: int = 0
    deal_seed: Optional[int] = None
    description: str = ""
    layout: str = "sides"
    _deal_cache: list = field(default_factory=list, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_PATTERN.match(self.name):
            raise ExperimentError(f"experiment name {self.name!r}: lower-case letters, digits, '_', '.', '-'")
        object.__setattr__(self, "configs", _labelled(self.configs, f"{self.name} configs"))
        object.__setattr__(self, "opponents", _labelled(self.opponents, f"{self.name} opponents"))
        get_rules(self.rules)
        if isinstance(self.deals, bool) or not isinstance(self.deals, (int, str)) or \
                (isinstance(self.deals, int) and self.deals < 1):
            raise ExperimentError(f"{self.name}: deals must be a positive number or a deal file, got {self.deals!r}")
        if self.opponents is None and len(self.configs) < 2:
            raise ExperimentError(f"{self.name}: a round robin needs at least two configs")
        if self.layout not in LAYOUTS:
            raise ExperimentError(f"{self.name}: layout {self.layout!r} is not one of {', '.join(LAYOUTS)}")

    @property
    def schema(self) -> store.Schema:
        """The layout of the stored rows (`ddzlab.experiments.store.Schema`)."""
        return LAYOUTS[self.layout]

    @property
    def games_per_deal(self) -> int:
        """Games each pair plays on a deal: 2 (sides swapped) or 6 (the duplicate seatings)."""
        return len(self.schema.games)

    @property
    def round_robin(self) -> bool:
        return self.opponents is None

    def pairs(self) -> list[tuple[str, str]]:
        """(config, opponent) labels in play order (a config never meets itself)."""
        if self.round_robin:
            return list(combinations(self.configs, 2))
        return [(c, o) for c in self.configs for o in self.opponents if c != o]

    def spec(self, label: str) -> Spec:
        for group in (self.configs, self.opponents or {}):
            if label in group:
                return group[label]
        raise ExperimentError(f"{self.name} has no agent labelled {label!r}")

    def deal_list(self) -> list[Deal]:
        """The experiment's deals (read or generated once)."""
        if not self._deal_cache:
            rules = get_rules(self.rules)
            if isinstance(self.deals, int):
                seed = self.seed if self.deal_seed is None else self.deal_seed
                deals = generate_deals(self.deals, seed=seed, rules=rules)
            else:
                deals = read_deals(self.deals, rules)
            self._deal_cache.extend(deals)
        return list(self._deal_cache)

    @property
    def n_deals(self) -> int:
        return len(self.deal_list())

    def with_agents(self, configs: Any = None, opponents: Any = None, name: Optional[str] = None) -> "Experiment":
        """The same experiment (deals, rules, seed) with other agents, e.g. a few cheap ones
        for a test-scale run; labels kept from this experiment where they exist."""
        def pick(new: Any, old: Optional[dict]) -> Any:
            if new is None:
                return old
            if old is not None and not isinstance(new, Mapping):
                return {(k if k in old else _spec_label(k)): old.get(k, k) for k in new}
            return new
        return replace(self, name=name or self.name, configs=pick(configs, self.configs),
                       opponents=pick(opponents, self.opponents), _deal_cache=list(self._deal_cache))

    def spec_json(self) -> dict:
        """What identifies the experiment, as stored in ``experiment.json``."""
        def enc(group: Optional[dict]) -> Optional[dict]:
            return None if group is None else {k: (v if isinstance(v, str) else [v[0], v[1]])
                                               for k, v in group.items()}
        deals = self.deal_list()
        out = {"name": self.name, "description": self.description, "configs": enc(self.configs),
               "opponents": enc(self.opponents), "round_robin": self.round_robin,
               "deals": {"source": self.deals, "deal_seed": self.deal_seed, "count": len(deals),
                         "crc32": _deal_crc(deals)},
               "rules": get_rules(self.rules).name, "seed": self.seed, "columns": list(self.schema.columns)}
        if self.layout != "sides":          # the key is absent from every store of the sides layout
            out["layout"] = self.layout
        return out


def _deal_crc(deals: Sequence[Deal]) -> str:
    return f"{zlib.crc32(chr(10).join(d.to_text() for d in deals).encode()):08x}"


# -- where things are ----------------------------------------------------------------------
def experiments_root(root: Union[str, Path, None] = None) -> Path:
    """``root``, else ``$DDZLAB_EXPERIMENTS``, else ``data/experiments``."""
    if root is not None:
        return Path(root)
    env = os.environ.get("DDZLAB_EXPERIMENTS")
    return Path(env) if env else EXPERIMENTS_DIR


def experiment_dir(name: str, root: Union[str, Path, None] = None) -> Path:
    return experiments_root(root) / name


def user_root(root: Union[str, Path, None] = None) -> Path:
    """Where user runs go: ``$DDZLAB_USER_EXPERIMENTS``, else ``data/experiments-user`` (for
    the default root) or ``<root>-user`` beside a given root."""
    env = os.environ.get("DDZLAB_USER_EXPERIMENTS")
    if env:
        return Path(env)
    if root is None and not os.environ.get("DDZLAB_EXPERIMENTS"):
        return USER_EXPERIMENTS_DIR
    base = experiments_root(root)
    return base.with_name(base.name + "-user")


def user_dir(label: str, root: Union[str, Path, None] = None) -> Path:
    """The folder of the user run ``label``."""
    if not isinstance(label, str) or not NAME_PATTERN.match(label):
        raise ExperimentError(f"user run name {label!r}: lower-case letters, digits, '_', '.', '-'")
    return user_root(root) / label


def _read_meta(folder: Path) -> dict:
    """The folder's ``experiment.json`` ({} when there is none)."""
    path = folder / "experiment.json"
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ExperimentError(f"{path}: not readable JSON ({e})") from None


def _repair_command(exp_name: str, folder: Path, root: Union[str, Path, None]) -> str:
    """The command that repairs the store in ``folder``."""
    if folder.parent == user_root(root):
        return f"ddzlab experiment repair {exp_name} --into {folder.name}"
    return f"ddzlab experiment repair {exp_name}"


def get_experiment(name_or_exp: Union[str, Experiment]) -> Experiment:
    """An `Experiment`, or the catalog's experiment of that name."""
    if isinstance(name_or_exp, Experiment):
        return name_or_exp
    from .catalog import CATALOG
    exp = CATALOG.get(name_or_exp)
    if exp is None:
        raise ExperimentError(f"no experiment {name_or_exp!r} in the catalog; known: {', '.join(sorted(CATALOG))}")
    return exp


def code_version() -> str:
    """The git commit of the code (``+dirty`` when ddzlab/ has uncommitted changes), else the
    package version."""
    from .. import __version__
    here = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--", "ddzlab"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"ddzlab {__version__}"
    return f"{commit}{'+dirty' if dirty else ''}"


# -- the stored spec -----------------------------------------------------------------------
def _check_stored(exp: Experiment, folder: Path) -> dict:
    """The stored ``experiment.json`` (or a new one), after checking that the stored rows
    were played under the same rules, seed and deals, and every label still names the same
    spec. Agents may be added (a grid grows) or left out."""
    meta_path = folder / "experiment.json"
    spec = exp.spec_json()
    if not meta_path.exists():
        return {**spec, "runs": []}
    try:
        old = json.loads(meta_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ExperimentError(f"{meta_path}: not readable JSON ({e})") from None
    if old.get("layout", "sides") != exp.layout:
        raise ExperimentError(f"{folder} was played in the {old.get('layout', 'sides')!r} layout, this experiment "
                              f"has {exp.layout!r}; give it another name")
    for key in ("rules", "seed"):
        if old.get(key) != spec[key]:
            raise ExperimentError(f"{folder} was played with {key}={old.get(key)!r}, this experiment has "
                                  f"{spec[key]!r}; give it another name")
    od, nd = old.get("deals", {}), spec["deals"]
    if (od.get("crc32"), od.get("count")) != (nd["crc32"], nd["count"]):
        raise ExperimentError(f"{folder} was played on other deals ({od.get('count')} deals, crc {od.get('crc32')}), "
                              f"this experiment has {nd['count']} deals, crc {nd['crc32']}; give it another name")
    stored = {**(old.get("configs") or {}), **(old.get("opponents") or {}), **old.get("retired", {})}
    for label, s in {**spec["configs"], **(spec["opponents"] or {})}.items():
        if label in stored and stored[label] != s:
            raise ExperimentError(f"{folder}: {label!r} was played as {stored[label]!r}, now {s!r}; "
                                  "give the new spec another label")
    retired = {k: v for k, v in stored.items()
               if k not in spec["configs"] and k not in (spec["opponents"] or {})}
    out = {**spec, "runs": old.get("runs", [])}
    for key in ("published", "notes", "seeded_from"):
        if key in old:
            out[key] = old[key]
    if retired:
        out["retired"] = retired          # labels with stored rows that the grid no longer lists
    return out


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _write_deals(exp: Experiment, folder: Path) -> None:
    path = folder / "deals.txt"
    deals = exp.deal_list()
    if path.exists():
        stored = parse_deals(path.read_text(encoding="utf-8"), exp.rules, source=str(path))
        if _deal_crc(stored) != _deal_crc(deals):
            raise ExperimentError(f"{path} holds other deals than experiment {exp.name!r}")
        return
    write_deals(path, deals, get_rules(exp.rules),
                comment=f"deal set of experiment {exp.name} (source: {exp.deals})")


# -- playing -------------------------------------------------------------------------------
def _play_units(specs: Mapping[str, Spec], rules: Any, seed: int,
                units: list[tuple[str, str, int, Deal]], layout: str = "sides") -> list[tuple]:
    """Store rows (`COLUMNS`) of both games of each (config, opponent, deal index, deal); in
    the duplicate layout (`ddzlab.experiments.store.DUPLICATE_COLUMNS`) of its six games."""
    out: list[tuple] = []
    if layout == "duplicate":
        for c, o, index, deal in units:
            out.extend((c, o, index, *row) for row in play_seatings(specs[c], specs[o], deal, index, rules, seed))
        return out
    for c, o, index, deal in units:
        for row in play_deal(specs[c], specs[o], deal, index, rules, seed, timed=True):
            _, a_landlord, _, a_won, _, points, moves, a_sec, a_moves, b_sec, b_moves = row
            out.append((c, o, index, "landlord" if a_landlord else "farmers", int(a_won), points, moves,
                        round(a_sec, 6), a_moves, round(b_sec, 6), b_moves))
    return out


def _chunked(units: list, n_jobs: int, parallel: bool) -> list[list]:
    if not parallel:
        return [[u] for u in units]
    workers = n_jobs if n_jobs > 1 else (os.cpu_count() or 1)
    size = max(1, min(MAX_CHUNK, math.ceil(len(units) / (4 * workers))))
    return [units[i:i + size] for i in range(0, len(units), size)]


def _deal_ranges(deals: Iterable[int]) -> str:
    """Deals as ranges: ``3, 7-9``."""
    out: list[tuple[int, int]] = []
    for d in sorted(set(deals)):
        if out and out[-1][1] == d - 1:
            out[-1] = (out[-1][0], d)
        else:
            out.append((d, d))
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out[:8])
    return text + (f" and {len(out) - 8} more ranges" if len(out) > 8 else "")


def _missing_deals(exp: Experiment, df: pd.DataFrame, n: int) -> list[int]:
    """The deals among the first ``n`` on which a pair of the grid lacks a game."""
    have = df.groupby(["config", "opponent", "deal"]).size() if len(df) else pd.Series(dtype=int)
    pairs = exp.pairs()
    return [i for i in range(n) if any(have.get((c, o, i), 0) != exp.games_per_deal for c, o in pairs)]


def _stored_rows(exp: Experiment, folder: Path, root: Union[str, Path, None],
                 allow_damaged: bool = False, publishing: bool = False) -> pd.DataFrame:
    """Every stored row of ``folder`` after the checks that every reader shares: no damaged
    byte (`DamagedStoreError` naming the range, the games missing and the repair command),
    no game twice or with one role, no label or deal the experiment does not have, as many
    rows as were published (`BadRowsError`). ``allow_damaged``: the intact rows of a
    damaged store, without the damage and row-count checks. ``publishing``: more rows than
    were published are the rows of a publishing run that stopped, which this run publishes."""
    path = folder / "games.csv.gz"
    repair = _repair_command(exp.name, folder, root)
    got = store.read_store(path, exp.schema)
    meta = _read_meta(folder)
    published = meta.get("published")
    df = got.rows
    if got.damaged and not allow_damaged:
        n = max([int(df["deal"].max()) + 1 if len(df) else 0, (published or {}).get("deals", 0)])
        missing = _missing_deals(exp, df, min(n, exp.n_deals))
        where = f"\n  games missing from the intact rows on deals {_deal_ranges(missing)}" if missing else ""
        raise DamagedStoreError(got.describe() + where + f"\n  nothing was written; `{repair}` keeps the "
                                "intact rows and reports what it drops", got)
    known = set(exp.configs) | set(exp.opponents or {})
    recorded = known | set(meta.get("configs") or {}) | set(meta.get("opponents") or {}) | set(meta.get("retired", {}))
    labels = set(df["config"]) | set(df["opponent"])
    if labels - recorded:
        raise BadRowsError(f"{path}: rows of agents that {exp.name} never had: {sorted(labels - recorded)}; "
                           f"`{repair}` drops them")
    out_of_range = (df["deal"] < 0) | (df["deal"] >= exp.n_deals)
    if out_of_range.any():
        raise BadRowsError(f"{path}: {int(out_of_range.sum())} row(s) of deals that {exp.name} does not have "
                           f"(it has deals 0-{exp.n_deals - 1}), e.g. deal {int(df[out_of_range].iloc[0]['deal'])}; "
                           f"`{repair}` drops them")
    pair = pd.Series(list(zip(df["config"], df["opponent"])), index=df.index, dtype=object)
    current = df["config"].isin(known) & df["opponent"].isin(known)
    stray = current & ~pair.isin(exp.pairs()) if len(df) else current
    if stray.any():
        raise BadRowsError(f"{path}: {int(stray.sum())} row(s) of pairs that {exp.name} does not play, e.g. "
                           f"{pair[stray].iloc[0]}; `{repair}` drops them")
    if not allow_damaged:
        try:
            store.check_rows(path, df)
        except BadRowsError as e:
            raise BadRowsError(f"{e}; `{repair}` drops them") from None
        if published is not None and len(df) < published.get("games", 0):
            raise DamagedStoreError(f"{path}: {len(df)} rows, but {published.get('games')} were published "
                                    f"({published.get('deals')} deals): rows are missing (a cut or replaced "
                                    f"file?); restore the committed file (git checkout), or keep these rows with "
                                    f"`{repair}`", got)
        if published is not None and len(df) > published.get("games", 0) and not publishing:
            raise BadRowsError(f"{path}: {len(df)} rows, but {published.get('games')} were published "
                               f"({published.get('deals')} deals); restore the committed file (git checkout), "
                               f"or publish these rows with `ddzlab experiment run {exp.name} --publish`")
    if got.interrupted:
        warnings.warn(f"{path}: the last {got.interrupted} bytes are an incomplete block (a run stopped while "
                      "writing); their games are not counted and will be replayed", stacklevel=3)
    return df


def _seed_user_run(exp: Experiment, source: Path, folder: Path, rows: pd.DataFrame) -> None:
    """Start the user run in ``folder`` from the published rows of ``source`` (a copy), so
    it plays only what the published store lacks; a user run that exists is resumed."""
    if (folder / "games.csv.gz").exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    meta = {k: v for k, v in _read_meta(source).items() if k != "published"}
    meta["seeded_from"] = {"folder": str(source), "games": int(len(rows))}
    store.write(folder / "games.csv.gz", store.sort_rows(rows))
    _write_json(folder / "experiment.json", meta)
    if (source / "deals.txt").exists():
        (folder / "deals.txt").write_bytes((source / "deals.txt").read_bytes())


def run_experiment(name_or_exp: Union[str, Experiment], deals: Optional[int] = None, n_jobs: int = 1,
                   scheduler: Optional[str] = None, progress: bool = True,
                   root: Union[str, Path, None] = None, into: Optional[str] = None,
                   publish: bool = False) -> pd.DataFrame:
    """Play every game of the experiment that is not stored yet and return all its games
    (`load_games`).

    ``deals``: play only the first ``deals`` deals of the set (a smaller run that a later,
    larger one completes). ``n_jobs`` > 1 runs through joblib processes; ``scheduler``
    (``"tcp://host:8786"``) on an existing dask cluster. ``root``: the folder that holds
    the experiments (default `experiments_root`). Interrupting loses at most the games in
    flight; run again to resume.

    A *published* store (its ``experiment.json`` records ``published``: the committed rows
    that the report reads) is never written by a run that adds games, unless ``publish``:
    such a run goes to the user run ``into`` (default: the experiment's name) under
    `user_root`, which starts as a copy of the published rows. ``publish=True`` plays into
    the published store and records its new size. A damaged store is refused
    (`DamagedStoreError`) before anything is written.
    """
    exp = get_experiment(name_or_exp)
    if not isinstance(n_jobs, int) or n_jobs < 1:
        raise ExperimentError(f"n_jobs must be a whole number of at least 1, got {n_jobs!r}")
    deal_list = exp.deal_list()
    n = len(deal_list) if deals is None else int(deals)
    if not 1 <= n <= len(deal_list):
        raise ExperimentError(f"{exp.name} has {len(deal_list)} deals; cannot play {deals!r} of them")
    if into is not None and publish:
        raise ExperimentError("publish plays into the published store, into into a user run: not both")
    specs = {**exp.configs, **(exp.opponents or {})}
    for label, spec in specs.items():          # a bad spec fails here, not in a worker
        make_agent(spec, seed=0)
    folder = experiment_dir(exp.name, root) if into is None else user_dir(into, root)
    pairs = exp.pairs()
    if into is None and "published" in _read_meta(folder) and not publish:
        stored = _stored_rows(exp, folder, root)
        done = set(zip(stored["config"], stored["opponent"], stored["deal"]))
        if all((c, o, i) in done for i in range(n) for c, o in pairs):
            return load_games(exp, root=root)          # nothing to play: nothing written
        target = user_dir(exp.name, root)
        _seed_user_run(exp, folder, target, stored)
        folder = target
    path = folder / "games.csv.gz"
    repair = _repair_command(exp.name, folder, root)
    with store.locked(folder):
        _stored_rows(exp, folder, root, publishing=publish)   # refuses damage and bad rows: nothing written yet
        meta = _check_stored(exp, folder)
        _write_deals(exp, folder)
        stored = store.compact(path, repair, exp.schema)
        done = set(zip(stored["config"], stored["opponent"], stored["deal"]))
        units = [(c, o, i, deal_list[i]) for i in range(n) for c, o in pairs if (c, o, i) not in done]
        if not units and not (publish and meta.get("published") != _published(exp, stored)):
            return _loaded(exp, folder, root)
        run = {"started": _now(), "code": code_version(), "deals": n, "n_jobs": n_jobs,
               "scheduler": scheduler, "games_before": int(len(stored))}
        meta["runs"] = meta.get("runs", []) + [run]
        _write_json(folder / "experiment.json", meta)
        rules = get_rules(exp.rules)
        parallel = n_jobs > 1 or scheduler is not None
        chunks = _chunked(units, n_jobs, parallel)
        func = partial(_play_units, specs, rules, exp.seed, layout=exp.layout)
        client: Any = _connect(scheduler) if scheduler is not None else nullcontext()
        bar = None
        if progress:
            from tqdm.auto import tqdm
            total = exp.games_per_deal * n * len(pairs)
            bar = tqdm(total=total, initial=total - exp.games_per_deal * len(units), unit="game", desc=exp.name)
        added = 0
        members = 0
        seq = len(stored)
        try:
            with client:
                parts: Iterable = run_chunks(func, chunks, n_jobs if parallel else 1,
                                             "dask" if scheduler is not None else None)
                for rows in parts:
                    store.append(path, rows, seq, exp.schema)
                    seq += len(rows)
                    added += len(rows)
                    members += 1
                    if bar is not None:
                        bar.update(len(rows))
                    if members >= COMPACT_EVERY:
                        seq = len(store.compact(path, repair, exp.schema))
                        members = 0
        finally:
            if bar is not None:
                bar.close()
            final = store.compact(path, repair, exp.schema)
            run.update({"finished": _now(), "games_added": added,
                        "complete": added == exp.games_per_deal * len(units)})
            if publish:
                meta["published"] = _published(exp, final)
            _write_json(folder / "experiment.json", meta)
    return _loaded(exp, folder, root)


def _published(exp: Experiment, rows: pd.DataFrame) -> dict:
    """The record of a published store: its complete deals and its rows."""
    return {"deals": deals_complete(rows, exp.pairs()), "games": int(len(rows))}


def _loaded(exp: Experiment, folder: Path, root: Union[str, Path, None]) -> pd.DataFrame:
    """`load_games` of the store in ``folder`` (published or a user run)."""
    into = folder.name if folder.parent == user_root(root) else None
    return load_games(exp, root=root, into=into)


def repair_experiment(name_or_exp: Union[str, Experiment], root: Union[str, Path, None] = None,
                      into: Optional[str] = None) -> store.Repair:
    """Rewrite an experiment's store from its intact rows (`ddzlab.experiments.store.repair`),
    dropping also the rows that disagree with the experiment (agents it never had, pairs it
    does not play, deals it does not have); a published store's record follows the rows
    kept, and ``experiment.json`` lists the repair. Returns what was kept and dropped."""
    exp = get_experiment(name_or_exp)
    folder = experiment_dir(exp.name, root) if into is None else user_dir(into, root)
    path = folder / "games.csv.gz"
    if not path.exists():
        raise ExperimentError(f"{path}: no stored games to repair")
    meta = _read_meta(folder)
    known = set(exp.configs) | set(exp.opponents or {})
    recorded = known | set(meta.get("configs") or {}) | set(meta.get("opponents") or {}) | set(meta.get("retired", {}))
    pairs = exp.pairs()

    def disagree(df: pd.DataFrame) -> pd.Series:
        pair = pd.Series(list(zip(df["config"], df["opponent"])), index=df.index, dtype=object)
        current = df["config"].isin(known) & df["opponent"].isin(known)
        return (~df["config"].isin(recorded) | ~df["opponent"].isin(recorded) | (df["deal"] < 0)
                | (df["deal"] >= exp.n_deals) | (current & ~pair.isin(pairs)))

    with store.locked(folder):
        done = store.repair(path, disagree, "rows that disagree with the catalog (agent, pair or deal "
                                            f"{exp.name} does not have)", exp.schema)
        if meta:
            kept = store.read_store(path, exp.schema).rows
            meta.setdefault("repairs", []).append({"at": _now(), "code": code_version(), "kept": done.kept,
                                                   "dropped": done.dropped,
                                                   "damage": [d.describe() for d in done.damage]})
            if "published" in meta:
                meta["published"] = _published(exp, kept)
            _write_json(folder / "experiment.json", meta)
    return done


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


# -- reading -------------------------------------------------------------------------------
def load_games(name_or_exp: Union[str, Experiment], root: Union[str, Path, None] = None,
               all_rows: bool = False, into: Optional[str] = None, allow_damaged: bool = False) -> pd.DataFrame:
    """The stored games of an experiment: one row per game (`ddzlab.experiments.store.COLUMNS`),
    sorted by deal, config, opponent, role (landlord first).

    The published store, or the user run ``into`` (`run_experiment`); with
    ``$DDZLAB_USER_RUNS`` set (``ddzlab report --user-runs``), a user run of the
    experiment's name when there is one. Every row is checked (`_stored_rows`): a damaged
    store raises `DamagedStoreError` unless ``allow_damaged`` (then the intact rows, with
    the damage in ``attrs["damage"]``); bad rows raise `BadRowsError`. Only the pairs of the
    experiment's current grid are returned (``all_rows=True``: also the rows of agents
    since removed from the grid, which are otherwise left out with a warning). ``attrs``
    hold the experiment's name, its planned deals and pairs, the store's folder and
    ``deals_complete``: the number of leading deals on which every pair has both games."""
    exp = get_experiment(name_or_exp)
    folder = experiment_dir(exp.name, root) if into is None else user_dir(into, root)
    if into is None and os.environ.get(USER_RUNS_ENV) and (user_dir(exp.name, root) / "games.csv.gz").exists():
        folder = user_dir(exp.name, root)
    df = _stored_rows(exp, folder, root, allow_damaged)
    damage = [d.describe() for d in store.read_store(folder / "games.csv.gz", exp.schema).damage] \
        if allow_damaged else []
    pairs = exp.pairs()
    if not all_rows and len(df):
        keep = pd.Series(list(zip(df["config"], df["opponent"])), index=df.index, dtype=object).isin(pairs)
        if not keep.all():
            left = sorted(set(df.loc[~keep, "config"]) | set(df.loc[~keep, "opponent"]) - set(exp.configs)
                          - set(exp.opponents or {}))
            warnings.warn(f"{folder / 'games.csv.gz'}: {int((~keep).sum())} stored row(s) of agents no longer in "
                          f"{exp.name}'s grid ({', '.join(left)}) are left out (all_rows=True reads them)",
                          stacklevel=2)
        df = df[keep]
    df = store.sort_rows(df)
    df.attrs.update({"experiment": exp.name, "deals_planned": exp.n_deals, "pairs": pairs, "store": str(folder),
                     "deals_complete": deals_complete(df, pairs), "damage": damage})
    return df


def deals_complete(games: pd.DataFrame, pairs: Sequence[tuple[str, str]]) -> int:
    """How many leading deals (0, 1, 2 ...) every pair has played all games of (both roles;
    in the duplicate layout the six seatings)."""
    if not len(games) or not pairs:
        return 0
    schema = store.schema_of(games)
    wanted = pd.Series(list(zip(games["config"], games["opponent"])), index=games.index, dtype=object).isin(pairs)
    games = games[wanted].drop_duplicates(schema.key)
    full = games.groupby("deal").size() == len(schema.games) * len(pairs)
    n = 0
    while full.get(n, False):
        n += 1
    return n


def common_deals(games: pd.DataFrame, n: Optional[int] = None) -> pd.DataFrame:
    """The games on the first ``n`` deals (default ``attrs["deals_complete"]``): every
    pair on the same deals, as a paired analysis needs."""
    n = games.attrs.get("deals_complete", 0) if n is None else n
    out = games[games["deal"] < n].reset_index(drop=True)
    out.attrs.update({**games.attrs, "deals_used": n})
    return out


def arena_games(games: pd.DataFrame) -> pd.DataFrame:
    """Stored rows as the arena's tournament games (`ddzlab.arena.TOURNAMENT_GAME_COLUMNS`:
    ``a`` = config, ``b`` = opponent), so `ddzlab.arena.tournament_table` and the tournament
    plots read an experiment."""
    from ..arena import TOURNAMENT_GAME_COLUMNS
    if "role" not in games.columns:
        raise ExperimentError("arena_games reads rows of the sides layout (a role per row); these are "
                              "duplicate-format rows: read them with ddzlab.experiments.protocols.duplicate_table")
    landlord = games["role"] == "landlord"
    won = games["won"].astype(bool)
    out = pd.DataFrame({
        "a": games["config"], "b": games["opponent"], "deal": games["deal"], "a_landlord": landlord,
        "landlord_won": landlord == won, "a_won": won,
        "bombs": np.log2(games["points"].abs()).round().astype(int), "a_points": games["points"],
        "moves": games["moves"], "a_seconds": games["seconds"], "a_moves": games["plays"],
        "b_seconds": games["opp_seconds"], "b_moves": games["opp_plays"]})
    out.attrs.update(games.attrs)
    return out[TOURNAMENT_GAME_COLUMNS]


def _problem(e: StoreError) -> str:
    """A store error as one status cell: its first line and the repair command if any."""
    text = str(e)
    first = text.splitlines()[0]
    fix = text.split("`")[1] if text.count("`") >= 2 else ""
    return f"{type(e).__name__}: {first[:160]}" + (f" -> {fix}" if fix and fix not in first else "")


def status(root: Union[str, Path, None] = None) -> pd.DataFrame:
    """One row per store of the catalog or on disk (published, then the user runs): games
    planned and stored, deals complete for every pair, file size, the code version of the
    last run, and ``problem``: why the store cannot be read (damaged bytes, bad rows), with
    the repair command. One bad store never stops the others from being listed."""
    from .catalog import CATALOG
    base = experiments_root(root)
    users = user_root(root)

    def on_disk(folder: Path) -> set[str]:
        return {p.name for p in folder.iterdir() if (p / "experiment.json").exists()} if folder.exists() else set()

    places: list[tuple[str, Path, Optional[str]]] = [(name, base / name, None) for name in sorted(set(CATALOG) | on_disk(base))]
    places += [(_read_meta(users / label).get("name", label), users / label, label) for label in sorted(on_disk(users))]
    rows = []
    for name, folder, label in places:
        path = folder / "games.csv.gz"
        problem = ""
        try:
            meta = _read_meta(folder)
        except ExperimentError as e:
            meta, problem = {}, _problem(e)
        exp = CATALOG.get(name)
        games: Any = math.nan
        planned, deals, done, pairs = math.nan, meta.get("deals", {}).get("count"), math.nan, math.nan
        try:
            if exp is not None:
                planned = exp.games_per_deal * exp.n_deals * len(exp.pairs())
                deals, pairs = exp.n_deals, len(exp.pairs())
                loaded = load_games(exp, root=root, into=label)
                games, done = len(loaded), loaded.attrs["deals_complete"]
            else:
                games = len(store.read_rows(path)[0])
        except StoreError as e:
            problem = _problem(e)
        runs = meta.get("runs", [])
        rows.append({"experiment": name, "store": "published" if label is None else f"user:{label}",
                     "pairs": pairs, "deals": deals, "deals_complete": done,
                     "games": games, "games_planned": planned,
                     "done": games / planned if planned and not problem else math.nan,
                     "MB": path.stat().st_size / 1e6 if path.exists() else 0.0,
                     "last_code": runs[-1].get("code") if runs else None,
                     "in_catalog": exp is not None, "problem": problem})
    return pd.DataFrame(rows)


def check_stores(root: Union[str, Path, None] = None) -> list[str]:
    """The problems of the published stores of the catalog (`load_games`'s checks), one
    message each; empty when every store reads."""
    from .catalog import CATALOG
    out = []
    for name, exp in sorted(CATALOG.items()):
        if (experiment_dir(name, root) / "games.csv.gz").exists():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _stored_rows(exp, experiment_dir(name, root), root)
            except StoreError as e:
                out.append(str(e))
    return out


__all__ = ["Experiment", "ExperimentError", "run_experiment", "load_games", "status", "common_deals", "arena_games",
           "deals_complete", "experiments_root", "experiment_dir", "get_experiment", "code_version",
           "EXPERIMENTS_DIR", "USER_EXPERIMENTS_DIR", "user_root", "user_dir", "repair_experiment", "check_stores",
           "DamagedStoreError", "BadRowsError"]
