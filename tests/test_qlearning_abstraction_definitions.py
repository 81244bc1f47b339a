"""`ddzlab.agents.qlearning.abstraction` against its docstrings (issue 22: the survivors of its
first mutation run). A trio or plane action plays "with the kickers of least delta"
(`_with_kickers`): the legal play built on the split's trio or plane, of least split cost,
ties to the play that sheds more cards, then to the lower kickers. Worked out by hand on
hands whose every other card is a good solo or pair (split cost 0 for each kicker choice).
"""
from __future__ import annotations

import pytest

from ddzlab.agents import qlearning as Q
from ddzlab.cards import Hand
from ddzlab.moves import legal_moves
from ddzlab.rules import STANDARD


@pytest.mark.parametrize("hand,action,move", [
    ("3334", 8, "3334"),            # the lone 4 goes with the trio
    ("33345", 8, "3334"),           # two solo kickers cost the same: the lower
    ("333447", 8, "33344"),         # a pair kicker sheds more than a solo one
    ("333444K7", 15, "3334447K"),   # the plane takes both solos
])
def test_a_trio_or_plane_action_plays_its_kickers(hand, action, move):
    h = Hand(hand)
    legal = legal_moves(h, STANDARD, None)
    split = Q.lead_split(h.bits)
    assert action in Q.lead_actions(split, 0, 17, 17)
    assert str(Q.resolve_lead(split, action, legal)) == move
