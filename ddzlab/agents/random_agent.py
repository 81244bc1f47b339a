"""`RandomAgent`: a uniformly random legal bid and move, from a seeded numpy Generator."""
from __future__ import annotations

from ..deals import SeedLike, as_rng
from ..game import Observation
from ..moves import Move
from .base import register_agent


@register_agent("random")
class RandomAgent:
    """Picks uniformly among the legal bids / moves (pass included when following).

    The baseline of every duel; reproducible from ``seed`` (int, SeedSequence or Generator).
    """

    name = "random"

    def __init__(self, seed: SeedLike = None) -> None:
        self.rng = as_rng(seed)

    def bid(self, obs: Observation) -> int:
        bids = obs.legal_bids
        return bids[int(self.rng.random() * len(bids))]

    def play(self, obs: Observation) -> Move:
        moves = obs.legal_moves
        return moves[int(self.rng.random() * len(moves))]
