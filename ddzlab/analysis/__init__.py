"""Hand analysis: fewest plays (A*), best homework score (DFS), du-guai's greedy split,
weight-based hand power and hints, and an open-hand endgame solver."""
from .astar import PlaysResult, min_plays
from .dfs import ScoreResult, best_score
from .score import REWARD, homework_score, reward, split_score, split_value

__all__ = ["min_plays", "PlaysResult", "best_score", "ScoreResult", "REWARD", "reward",
           "homework_score", "split_score", "split_value"]
