"""Hand analysis: fewest plays (A*), best homework score (DFS), du-guai's greedy split,
weight-based hand power and hints, and an open-hand endgame solver.

All functions take a hand (`Hand` or text) and a rule set (`Rules` or its name) and
raise a `ValueError` subclass (`RulesError`, `CardError`) on cards the rule set cannot hold.
"""
from .astar import HEURISTICS, PlaysResult, min_plays
from .dfs import ScoreResult, best_score
from .endgame import EndgameResult, solve_endgame
from .greedy import MAX_Q, GreedyResult, greedy_q, greedy_split, next_play_size, q_value
from .power import PowerResult, hand_power, hints, move_power
from .report import solve_report
from .score import REWARD, homework_score, reward, split_score, split_value

__all__ = ["min_plays", "PlaysResult", "HEURISTICS", "best_score", "ScoreResult",
           "solve_endgame", "EndgameResult", "greedy_q", "greedy_split", "GreedyResult",
           "next_play_size", "q_value", "MAX_Q", "hand_power", "hints", "move_power",
           "PowerResult", "solve_report", "REWARD", "reward", "homework_score", "split_score",
           "split_value"]
