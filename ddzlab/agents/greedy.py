"""`GreedyAgent`: plays du-guai's greedy split (docs/definitions.md#greedy-split) with a farmer's manners.

It leads the play with the highest Q(S, a) (`ddzlab.analysis.greedy_q`): the one that leaves
the hand easiest to empty. Following, it takes the best-Q reply that is not a bomb; it
never beats its own partner (unless that empties its hand), and it spends a bomb or the
rocket only when the player it answers is down to ``bomb_when`` cards or fewer, or when
the bomb empties its hand. Bidding is `SmallestAgent`'s (pass, unless everyone else
passed), so it is a play agent, meant for duels and for simulation labels.

It explains its plays (`ddzlab.agents.base.Evaluating`): ``last_eval`` holds the chosen
play's Q and the three best-Q legal plays, ``{"q": 7, "top": {"34567": 7, "3": 4, ...}}``.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..analysis.greedy import q_value
from ..game import Observation
from ..moves import Move
from .base import register_agent
from .smallest import SmallestAgent


@register_agent("greedy")
class GreedyAgent(SmallestAgent):
    """du-guai's greedy split: plays the move that leaves the most cards playable next, deterministic (module docstring)."""

    name = "greedy"
    last_eval = None

    def __init__(self, bomb_when: int = 4) -> None:
        self.bomb_when = bomb_when

    def bid(self, obs: Observation) -> int:
        self.last_eval = None
        return super().bid(obs)

    def play(self, obs: Observation) -> Move:
        partner = (obs.last_move is not None and obs.landlord is not None
                   and obs.seat != obs.landlord and obs.last_seat != obs.landlord)
        threat = (obs.last_move is not None and obs.last_seat is not None
                  and obs.cards_left[obs.last_seat] <= self.bomb_when)
        hand = obs.hand.bits
        move = greedy_choice(hand, obs.legal_moves, obs.last_move is not None, partner, threat)
        self.last_eval = greedy_eval(hand, obs.legal_moves, move)
        return move


def greedy_eval(hand: int, legal: Sequence[Move], move: Move) -> Optional[dict]:
    """The greedy agent's explanation of ``move`` (`ddzlab.agents.base.Evaluating`): its
    Q and the three best-Q legal plays; ``{"finishes": True}`` when it empties the hand;
    None for a pass."""
    if move.is_pass:
        return None
    if move.cards == hand:
        return {"finishes": True}
    scored = sorted(((q_value(hand, m), m) for m in legal if not m.is_pass), key=lambda qm: -qm[0])
    return {"q": q_value(hand, move), "top": {str(m): q for q, m in scored[:3]}}


def greedy_choice(hand: int, legal: Sequence[Move], following: bool, partner: bool,
                  threat: bool) -> Move:
    """`GreedyAgent`'s choice among ``legal`` for packed ``hand``: ``partner`` when the move
    to beat is the partner's, ``threat`` when its player may go out soon (bombs allowed).
    Also the greedy rollout policy of `ddzlab.agents.mcts`, which has no `Observation`."""
    moves = [m for m in legal if not m.is_pass]
    for m in moves:
        if m.cards == hand:
            return m
    if following:
        if partner:
            moves = []
        elif not threat:
            moves = [m for m in moves if not m.is_bomb]
    if not moves:
        return legal[-1]          # pass (only reachable when following)
    return max(moves, key=lambda m: q_value(hand, m))
