"""`SplitLeadAgent`: leads from an optimal split of its hand, follows as `greedy`.

Notebook 03 asks whether the split a hand is scored by matters in a game. With
``split="score"`` the agent leads from the split with the best homework score
(`ddzlab.analysis.best_score`), with ``split="fewest"`` from a split with the fewest plays
(`ddzlab.analysis.min_plays`). Leading, it plays the split's lowest play (by main rank, the
longer first) that is not a bomb or the rocket, while the split has one; the split is
recomputed from the cards left at every lead. Following, bidding and the bomb manners are
`GreedyAgent`'s, so the two variants differ only in which split they lead from.

It explains its leads (`ddzlab.agents.base.Evaluating`): ``{"split": "333444 | 55 | ..."}``.
"""
from __future__ import annotations

from functools import lru_cache

from ..analysis import best_score, min_plays
from ..game import Observation
from ..moves import Move
from ..rules import Rules
from .base import AgentError, register_agent
from .greedy import GreedyAgent

SPLITS = ("score", "fewest")


@lru_cache(maxsize=4096)
def _split(bits: int, rules: Rules, split: str) -> tuple[Move, ...]:
    from ..cards import Hand
    hand = Hand.from_bits(bits)
    res = best_score(hand, rules) if split == "score" else min_plays(hand, rules)
    return tuple(res.moves)


def split_lead(bits: int, rules: Rules, split: str) -> tuple[Move, tuple[Move, ...]]:
    """The play `SplitLeadAgent` leads with from packed ``bits``, and the split it is from."""
    moves = _split(bits, rules, split)
    plain = [m for m in moves if not m.is_bomb] or list(moves)
    return min(plain, key=lambda m: (m.rank, -m.size, m.cards)), moves


@register_agent("split_lead")
class SplitLeadAgent(GreedyAgent):
    """Leads the lowest non-bomb play of its best-score (``split="score"``) or fewest-plays
    (``split="fewest"``) split; otherwise plays as `GreedyAgent` (module docstring)."""

    name = "split_lead"

    def __init__(self, split: str = "fewest", bomb_when: int = 4) -> None:
        if split not in SPLITS:
            raise AgentError(f"split_lead: split must be one of {SPLITS}, not {split!r}")
        super().__init__(bomb_when)
        self.split = split
        self.name = f"split_lead:split={split}"

    def play(self, obs: Observation) -> Move:
        if obs.last_move is not None:
            return super().play(obs)
        move, moves = split_lead(obs.hand.bits, obs.rules, self.split)
        if move not in obs.legal_moves:       # the searches' moves are legal leads; guard anyway
            raise AgentError(f"split_lead: {move} from the split of {obs.hand} is not a legal lead")
        self.last_eval = {"split": " | ".join(map(str, moves))}
        return move


__all__ = ["SplitLeadAgent", "split_lead", "SPLITS"]
