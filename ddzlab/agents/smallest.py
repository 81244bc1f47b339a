"""`SmallestAgent`: always the smallest legal move; a deterministic, weak baseline."""
from __future__ import annotations

from ..game import Observation
from ..moves import Move
from .base import register_agent


def smallest_key(move: Move) -> tuple[int, int, int, int]:
    """Order used by `SmallestAgent`: non-bombs first (the rocket last of all), then the
    lowest main rank, then the fewest cards, then the lowest kickers."""
    bomb = 2 if move.kind.name == "ROCKET" else int(move.is_bomb)
    return (bomb, move.rank, move.size, move.cards)


@register_agent("smallest")
class SmallestAgent:
    """Plays the legal move with the smallest `smallest_key`; passes only when it must.

    Leading it plays its lowest single card; following it plays the lowest reply of the
    same kind, and a bomb (the lowest) only if nothing else beats. Bidding: it passes,
    except that the last bidder bids 1 when everyone else passed, so games with only
    `SmallestAgent` players never redeal forever.
    """

    name = "smallest"

    def bid(self, obs: Observation) -> int:
        last_bidder = len(obs.bids) == obs.players - 1
        if last_bidder and obs.bid == 0 and 1 in obs.legal_bids:
            return 1
        return 0

    def play(self, obs: Observation) -> Move:
        moves = [m for m in obs.legal_moves if not m.is_pass]
        if not moves:
            return obs.legal_moves[-1]
        return min(moves, key=smallest_key)
