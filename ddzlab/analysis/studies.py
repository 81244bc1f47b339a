"""Experiments behind notebooks 02 and 03, as functions returning DataFrames.

Notebooks call these and plot; every random draw takes a seed.

The larger search studies are stored, as the games are (`ddzlab.experiments`): a study is
a list of tasks (one search on one seeded hand), `run_study` solves the tasks not yet in its
rows file ``data/studies/<name>.csv.gz`` and appends one row per solved task, each row its
own gzip member, so a killed run loses at most the task in flight and a rerun resumes.
Expansion and node counts are exact and machine-independent; CPU seconds are this
machine's. The notebooks read the rows (`read_study`).
"""
from __future__ import annotations

import csv
import gzip
import io
import math
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Sequence, Union

import numpy as np
import pandas as pd

from ..cards import Hand
from ..config import DATA_DIR
from ..errors import DdzError
from ..gzmembers import complete_members
from ..moves import Move, generator
from ..rules import HOMEWORK, Rules, get_rules
from ._core import moves_text, tables
from .astar import HEURISTICS, PlaysResult, min_plays
from .dfs import best_score
from .homework import BudgetExceeded, HomeworkPlays, homework_astar, homework_dfs
from .greedy import greedy_split
from .power import hand_power
from .score import split_score


def random_hands(n: int, size: int, rules: Rules | str, seed: int) -> list[Hand]:
    """``n`` random hands of ``size`` cards from the rule set's deck (seeded)."""
    rules = get_rules(rules)
    rng = np.random.default_rng(seed)
    deck = Hand.from_bits(rules.deck).ranks()
    return [Hand.from_ranks(rng.choice(deck, size, replace=False).tolist()) for _ in range(n)]


def fewest_plays_table(hands: Iterable[Hand], rules: Rules | str) -> pd.DataFrame:
    """Fewest plays, the greedy and power splits' lengths, and A* effort per heuristic."""
    rules = get_rules(rules)
    rows = []
    for h in hands:
        row = {"hand": str(h), "cards": len(h), "rules": rules.name}
        for name in HEURISTICS:
            res = min_plays(h, rules, heuristic=name)
            row["plays"] = res.plays
            row[f"expanded_{name}"] = res.expanded
            row[f"ms_{name}"] = res.seconds * 1e3
            row[f"root_h_{name}"] = res.root_h
        row["greedy_plays"] = len(greedy_split(h, rules))
        row["power_plays"] = len(hand_power(h, rules).moves)
        rows.append(row)
    return pd.DataFrame(rows)


def score_table(hands: Iterable[Hand], rules: Rules | str = HOMEWORK) -> pd.DataFrame:
    """Best score and its plays next to the fewest plays (and the score of that split)."""
    rules = get_rules(rules)
    rows = []
    for h in hands:
        bs = best_score(h, rules)
        mp = min_plays(h, rules)
        rows.append({"hand": str(h), "cards": len(h), "best_score": bs.score,
                     "best_steps": bs.steps, "best_value": bs.value, "fewest_plays": mp.plays,
                     "fewest_split_score": split_score(mp.moves), "ms": bs.seconds * 1e3,
                     "nodes": bs.nodes})
    return pd.DataFrame(rows)


def score_time_by_size(sizes: Sequence[int], per_size: int, seed: int,
                       rules: Rules | str = HOMEWORK) -> pd.DataFrame:
    """best_score run time and search nodes against hand size."""
    rows = []
    for size in sizes:
        for h in random_hands(per_size, size, rules, seed + size):
            t = time.perf_counter()
            r = best_score(h, rules)
            rows.append({"cards": size, "seconds": time.perf_counter() - t, "nodes": r.nodes,
                         "steps": r.steps})
    return pd.DataFrame(rows)


def pruning_ablation(hands: Iterable[Hand], rules: Rules | str = HOMEWORK) -> pd.DataFrame:
    """best_score with and without the play-count bound and the memo (same answers)."""
    rows = []
    for h in hands:
        ref = None
        for prune in (True, False):
            for memo in (True, False):
                r = best_score(h, rules, prune=prune, memo=memo)
                ref = r.score if ref is None else ref
                assert r.score == ref or abs(r.score - ref) < 1e-9
                rows.append({"cards": len(h), "prune": prune, "memo": memo,
                             "ms": r.seconds * 1e3, "nodes": r.nodes})
    return pd.DataFrame(rows)


def split_examples(hands: Iterable[Hand], rules: Rules | str = HOMEWORK,
                   limit: int = 5) -> pd.DataFrame:
    """Hands whose best-score split uses more plays than the fewest-plays split."""
    rules = get_rules(rules)
    rows = []
    for h in hands:
        bs = best_score(h, rules)
        mp = min_plays(h, rules)
        if bs.steps != mp.plays:
            rows.append({"hand": str(h), "fewest": moves_text(mp.moves),
                         "fewest_score": split_score(mp.moves),
                         "best": moves_text(bs.moves), "best_score": bs.score})
            if len(rows) >= limit:
                break
    return pd.DataFrame(rows)


def draw_split(ax, moves: Sequence[Move], title: str = "") -> None:
    """Draw a split as rows of cards, one row per play (matplotlib axes)."""
    from matplotlib.patches import FancyBboxPatch

    ax.set_axis_off()
    for i, m in enumerate(moves):
        y = len(moves) - i
        for j, ch in enumerate(str(m)):
            ax.add_patch(FancyBboxPatch((j * 0.7, y - 0.4), 0.6, 0.8, boxstyle="round,pad=0.02",
                                        fc="white", ec="0.3"))
            ax.text(j * 0.7 + 0.3, y, ch, ha="center", va="center",
                    color="crimson" if ch == "R" else "black", fontsize=11)
        ax.text(-0.4, y, m.kind.label, ha="right", va="center", fontsize=9, color="0.35")
    ax.set_xlim(-5, 15)
    ax.set_ylim(0, len(moves) + 1)
    if title:
        ax.set_title(title)


# --------------------------------------------------------------------------- stored studies
STUDIES_DIR = DATA_DIR / "studies"


class StudyError(DdzError):
    """A stored study's rows file that holds a task twice (two runs solved the same task at
    once): `run_study` refuses to extend it; ``compact_study(name, dedupe=keys)`` repairs it."""


def study_path(name: str, folder: Path | None = None) -> Path:
    """The rows file of study ``name``."""
    return (STUDIES_DIR if folder is None else Path(folder)) / f"{name}.csv.gz"


def read_study(name: str, folder: Path | None = None) -> pd.DataFrame:
    """The stored rows of study ``name`` (empty frame if none): one row per solved task."""
    path = study_path(name, folder)
    members = complete_members(path.read_bytes())[0] if path.exists() else []
    lines = b"".join(members).decode().splitlines()     # a truncated last member is dropped
    if not lines:
        return pd.DataFrame()
    header = lines[0]
    body = [ln for ln in lines[1:] if ln != header]      # every member after the first repeats no header
    return pd.read_csv(io.StringIO("\n".join([header] + body)))


def run_study(name: str, tasks: Sequence[dict], solve: Callable[[dict], dict], *,
              folder: Path | None = None, progress: bool = True) -> pd.DataFrame:
    """Solve every task of ``tasks`` (dicts with the same fields, which name the task) not
    yet stored in study ``name`` and append its row (the task's fields, then
    ``solve(task)``'s) to the rows file as it finishes; return all stored rows. Every row
    of a study has the same columns (the first row fixes them)."""
    from tqdm.auto import tqdm

    path = study_path(name, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    keys = list(tasks[0]) if tasks else []
    stored = read_study(name, folder)
    columns = list(stored.columns) if len(stored) else None
    stored_keys = Counter(tuple(str(r[k]) for k in keys) for r in stored.to_dict("records"))
    twice = [k for k, count in stored_keys.items() if count > 1]
    if twice:
        raise StudyError(f"study {name!r} ({path}) holds {len(twice)} task(s) twice, e.g. "
                         f"{dict(zip(keys, twice[0]))}: two runs solved the same tasks at once; "
                         f"keep the first rows with compact_study({name!r}, dedupe={keys!r})")
    todo = [t for t in tasks if tuple(str(t[k]) for k in keys) not in stored_keys]
    for task in tqdm(todo, desc=name, disable=not progress):
        row = {**task, **solve(task)}
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        if columns is None:
            columns = list(row)
            writer.writerow(columns)
        writer.writerow([row.get(c, "") for c in columns])
        with open(path, "ab") as f:                    # one complete gzip member per row
            f.write(gzip.compress(buf.getvalue().encode(), mtime=0))
    return read_study(name, folder)


def compact_study(name: str, folder: Path | None = None, dedupe: Sequence[str] | None = None) -> int:
    """Rewrite study ``name``'s rows file as one gzip member holding the same text (one
    member per row compresses poorly); a damaged tail is dropped, later runs append after it.
    With ``dedupe`` (the task's fields), a row whose fields repeat an earlier row's is
    dropped too (the `StudyError` repair). Not while a run is appending to it. Returns the
    bytes saved."""
    path = study_path(name, folder)
    raw = path.read_bytes()
    text = b"".join(complete_members(raw)[0])
    if dedupe:
        rows = read_study(name, folder)
        kept = rows[~rows.astype(str).duplicated(list(dedupe))]
        text = kept.to_csv(index=False, lineterminator="\n").encode()
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
    tmp.replace(path)                                  # atomic: the old file or the new one
    return len(raw) - path.stat().st_size


_hand_lists: dict[tuple, list[Hand]] = {}


def task_hand(task: dict) -> Hand:
    """The hand of a task: the ``index``-th of `random_hands` (cards, rules, seed); the
    first k hands of a seed do not depend on how many are drawn."""
    key = (int(task["cards"]), str(task["rules"]), int(task["seed"]))
    hands = _hand_lists.get(key, [])
    if len(hands) <= task["index"]:
        hands = _hand_lists[key] = random_hands(2 * task["index"] + 2, *key)
    return hands[task["index"]]


def cold_caches() -> None:
    """Drop every cache the searches share (move generator, sweep tables), so that the
    CPU time of a search includes building what it needs."""
    generator.cache_clear()
    tables.cache_clear()


#: notebook 02's grid: (search, rules, sizes, heuristics), 20 hands per size, in the order
#: they are run (what the notebook needs most and what costs least first)
ASTAR_GRID = (
    ("sweep", "homework", (10, 14, 17, 20, 25, 30, 36, 42), ("zero", "ceil", "strong")),
    ("canonical", "homework", (10, 14, 17, 20, 25, 30), ("zero", "ceil")),
    ("every_order", "homework", (10, 12, 14, 17, 20), ("zero", "ceil")),
    ("every_order", "homework", (22, 25), ("zero", "ceil")),
    ("canonical", "homework", (36,), ("zero", "ceil")),
    ("sweep", "standard", (36, 42, 54), ("strong", "ceil", "zero")),
    ("sweep", "homework", (48, 54), ("zero", "ceil", "strong")),
    # no 48: at 42 cards uniform-cost search already stops at the budget on 16 of 20 hands, so
    # 48 would add censored ratios only, for about 5 CPU hours (its ten stored rows stay unused)
    ("canonical", "homework", (42, 54), ("zero", "ceil")),
    ("every_order", "homework", (30,), ("ceil", "zero")),
    ("sweep", "standard", (48,), ("strong", "ceil", "zero")),
)
#: expansions after which the homework's A* gives up on a hand (recorded as unfinished)
ASTAR_BUDGET = 500_000


def astar_tasks(per_size: int = 20, grid=ASTAR_GRID, seed: int = 200) -> list[dict]:
    """The tasks of the A* study: every (search, heuristic) of ``grid`` on the same
    ``per_size`` seeded hands per (rules, size) (one hand at 54 cards: the whole deck)."""
    tasks = []
    for search, rules, sizes, heuristics in grid:
        for cards in sizes:
            for index in range(1 if cards == 54 else per_size):
                for heuristic in heuristics:
                    tasks.append({"search": search, "heuristic": heuristic, "rules": rules,
                                  "cards": cards, "seed": seed + cards, "index": index})
    return tasks


def solve_astar(task: dict, budget: int = ASTAR_BUDGET) -> dict:
    """One A* task on cold caches: the fewest plays (empty if over ``budget``), states
    expanded, the heuristic at the root, CPU seconds."""
    hand = task_hand(task)
    cold_caches()
    t0 = time.process_time()
    r: Union[PlaysResult, HomeworkPlays]
    try:
        if task["search"] == "sweep":
            r = min_plays(hand, task["rules"], task["heuristic"])
        else:
            r = homework_astar(hand, task["rules"], task["heuristic"],
                               every_order=task["search"] == "every_order", max_expanded=budget)
    except BudgetExceeded as e:
        return {"hand": str(hand), "plays": math.nan, "expanded": e.expanded, "root_h": math.nan,
                "cpu_s": round(time.process_time() - t0, 3), "finished": 0}
    return {"hand": str(hand), "plays": r.plays, "expanded": r.expanded, "root_h": r.root_h,
            "cpu_s": round(time.process_time() - t0, 3), "finished": 1}


#: notebook 03's grid: the author's cut against the exact best score, and the bound's
#: per-hand ablation (memo on), 30+ hands per size
DFS_CUT_SIZES = (10, 12, 14, 16, 17, 20)
PRUNE_SIZES = (12, 17, 20)


def dfs_tasks(cut_per_size: int = 1000, prune_per_size: int = 60, seed: int = 300) -> list[dict]:
    """The tasks of notebook 03's stored study (see `solve_dfs`)."""
    tasks = [{"search": "cut", "heuristic": "-", "rules": "homework", "cards": c, "seed": seed + c,
              "index": i} for c in DFS_CUT_SIZES for i in range(cut_per_size)]
    tasks += [{"search": "prune", "heuristic": "-", "rules": "homework", "cards": c,
               "seed": seed + 50 + c, "index": i} for c in PRUNE_SIZES for i in range(prune_per_size)]
    return tasks


def solve_dfs(task: dict) -> dict:
    """``cut``: the homework's DFS with the author's cut against the exact best score;
    ``prune``: the exact search's nodes with and without its play-count bound (memo on)."""
    hand = task_hand(task)
    exact = best_score(hand, task["rules"])
    row = {"hand": str(hand), "exact": exact.score}
    if task["search"] == "cut":
        t0 = time.process_time()
        cut = homework_dfs(hand, task["rules"], partial_bound=True)
        row.update(value=cut.score, nodes=cut.nodes, nodes_other=math.nan,
                   cpu_s=round(time.process_time() - t0, 3))
    else:
        t0 = time.process_time()
        free = best_score(hand, task["rules"], prune=False)
        assert abs(free.score - exact.score) < 1e-9 or free.score == exact.score
        row.update(value=free.score, nodes=exact.nodes, nodes_other=free.nodes,
                   cpu_s=round(time.process_time() - t0, 3))
    return row


__all__ = ["StudyError", "random_hands", "fewest_plays_table", "score_table", "score_time_by_size",
           "pruning_ablation", "split_examples", "draw_split", "read_study", "run_study",
           "study_path", "compact_study", "task_hand", "cold_caches", "astar_tasks", "solve_astar", "dfs_tasks",
           "solve_dfs", "ASTAR_GRID", "ASTAR_BUDGET", "STUDIES_DIR"]
