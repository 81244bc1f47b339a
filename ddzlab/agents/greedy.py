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
    last_eval = None

    def __init__(self, bomb_when: int = 4) -> None:
        self.bomb_when = bomb_when

    def bid(self, obs: Observation) -> int:
        self.last_eval = None
        return super().bid(obs)

    def play(self, obs: Observation) -> Move:
        hand = obs.hand.bits
        moves = [m for m in obs.legal_moves if not m.is_pass]
        finishing = [m for m in moves if m.cards == hand]
        if finishing:
            self.last_eval = {"finishes": True}
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
            self.last_eval = None
            return obs.legal_moves[-1]          # pass (only reachable when following)
        scored = [(q_value(hand, m), m) for m in moves]
        q, best = max(scored, key=lambda qm: qm[0])     # the first of the best, as before
        top = sorted(scored, key=lambda qm: -qm[0])[:3]
        self.last_eval = {"q": q, "top": {str(m): v for v, m in top}}
        return best
