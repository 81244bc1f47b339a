"""`GreedyAgent`: plays du-guai's greedy split (REFERENCE §4) with a farmer's manners.

It leads the play with the highest Q(S, a) (`ddzlab.analysis.greedy_q`): the one that leaves
the hand easiest to empty. Following, it takes the best-Q reply that is not a bomb; it
never beats its own partner (unless that empties its hand), and it spends a bomb or the
rocket only when the player it answers is down to ``bomb_when`` cards or fewer, or when
the bomb empties its hand. Bidding is `SmallestAgent`'s (pass, unless everyone else
passed), so it is a play agent, meant for duels and for simulation labels.
"""
from __future__ import annotations

from ..analysis.greedy import q_value
from ..game import Observation
from ..moves import Move
from .base import register_agent
from .smallest import SmallestAgent


@register_agent("greedy")
class GreedyAgent(SmallestAgent):
    """Greedy-split play (see module docstring); deterministic."""

    name = "greedy"

    def __init__(self, bomb_when: int = 4) -> None:
        self.bomb_when = bomb_when

    def play(self, obs: Observation) -> Move:
        hand = obs.hand.bits
        moves = [m for m in obs.legal_moves if not m.is_pass]
        finishing = [m for m in moves if m.cards == hand]
        if finishing:
            return finishing[0]
        if obs.last_move is not None:
            partner = (obs.landlord is not None and obs.seat != obs.landlord
                       and obs.last_seat != obs.landlord)
            threat = obs.cards_left[obs.last_seat] <= self.bomb_when
            if partner:
                moves = []
            elif not threat:
                moves = [m for m in moves if not m.is_bomb]
        if not moves:
            return obs.legal_moves[-1]          # pass (only reachable when following)
        return max(moves, key=lambda m: q_value(hand, m))
