"""Hand analysis: fewest plays (A*), best homework score (DFS), du-guai's greedy split,
weight-based hand power and hints, and an open-hand endgame solver."""
from .astar import PlaysResult, min_plays

__all__ = ["min_plays", "PlaysResult"]
