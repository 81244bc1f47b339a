"""Experiments behind notebooks 02 and 03, as functions returning DataFrames.

Notebooks call these and plot; every random draw takes a seed.
"""
from __future__ import annotations

import time
from typing import Iterable, Sequence

import numpy as np
import pandas as pd

from ..cards import Hand
from ..moves import Move
from ..rules import HOMEWORK, Rules, get_rules
from ._core import moves_text
from .astar import HEURISTICS, min_plays
from .dfs import best_score
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


__all__ = ["random_hands", "fewest_plays_table", "score_table", "score_time_by_size",
           "pruning_ablation", "split_examples", "draw_split"]
