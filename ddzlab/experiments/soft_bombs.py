"""Soft bombs in notebook 07's wildcard games: how often one is played, and over-bombed.

A *soft bomb* is a four made with the flower card; every natural bomb and the rocket beat
it. A soft bomb is *over-bombed* when, in the same trick, a natural bomb or the rocket is
played after it. The stored experiment `07_wildcard` keeps one row per game (no moves), so
the study ``07_soft_bombs`` replays its games move by move — the same agents and seeds,
through `ddzlab.arena.play_deal`, which the experiment runner plays — and stores one row per
deal (`ddzlab.analysis.studies.run_study`: resumable, one gzip member per row): the soft
bombs played and over-bombed in the deal's two games, and each game's result, so that a
reader can check that the replay is the stored experiment's games.

    run_study("07_soft_bombs", soft_bomb_tasks(), replay_soft_bombs)
"""
from __future__ import annotations

import io
from functools import lru_cache
from typing import Iterable

from ..arena import GAME_COLUMNS, play_deal
from ..deals import Deal
from ..moves import Move
from ..records import read_records, write_records
from ..rules import Kind, get_rules
from .catalog import CATALOG

#: the stored experiment whose games the study replays
EXPERIMENT = "07_wildcard"
#: where `play_deal`'s rows hold the config's result and the game's length
_A_WON, _MOVES = GAME_COLUMNS.index("a_won"), GAME_COLUMNS.index("moves")


def soft_bomb_counts(moves: Iterable[Move]) -> tuple[int, int]:
    """(soft bombs played, soft bombs over-bombed) in one game's moves, in order (passes
    included: two passes in a row end a trick)."""
    played = over = passes = 0
    soft_in_trick = False
    for move in moves:
        if move.is_pass:
            passes += 1
            if passes == 2:
                passes, soft_in_trick = 0, False
            continue
        passes = 0
        if move.kind is Kind.SOFT_BOMB:
            played += 1
            soft_in_trick = True
        elif soft_in_trick and move.kind in (Kind.BOMB, Kind.ROCKET):
            over += 1
            soft_in_trick = False
    return played, over


@lru_cache(maxsize=2)
def _deals(experiment: str) -> tuple[Deal, ...]:
    return tuple(CATALOG[experiment].deal_list())


def soft_bomb_tasks(n_deals: int = 2000, experiment: str = EXPERIMENT) -> list[dict]:
    """One task per deal of ``experiment`` and per (config, opponent) pair of its grid."""
    exp = CATALOG[experiment]
    return [{"experiment": experiment, "config": c, "opponent": o, "deal": i}
            for i in range(n_deals) for c in exp.configs for o in exp.opponents]


def replay_soft_bombs(task: dict) -> dict:
    """Replay one deal's two games (the config as landlord, then as the farmers) and count
    their soft bombs: ``soft_played``, ``over_bombed``, ``games_with_soft`` (0-2), and each
    game's result from the config's side (``won_landlord``, ``won_farmers``, ``moves_*``)."""
    exp = CATALOG[task["experiment"]]
    rules = get_rules(exp.rules)
    i = int(task["deal"])
    lines: list = []
    rows = play_deal(task["config"], task["opponent"], _deals(task["experiment"])[i], i, rules,
                     exp.seed, records=lines)
    text = io.StringIO()             # through the record format: its reader replays every move
    write_records(text, lines, rules=rules, agents=[task["config"], task["opponent"]], seed=exp.seed)
    text.seek(0)
    out = {"soft_played": 0, "over_bombed": 0, "games_with_soft": 0}
    for record, row, role in zip(read_records(text, rules)[1], rows, ("landlord", "farmers")):
        played, over = soft_bomb_counts(move for _, move, _ in record.moves)
        out["soft_played"] += played
        out["over_bombed"] += over
        out["games_with_soft"] += played > 0
        out[f"won_{role}"] = int(row[_A_WON])
        out[f"moves_{role}"] = int(row[_MOVES])
    return out


__all__ = ["EXPERIMENT", "soft_bomb_counts", "soft_bomb_tasks", "replay_soft_bombs"]
