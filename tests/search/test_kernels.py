"""The compiled components' declarations (ddzlab.kernels): codes, named layouts, `describe`.

Each number a kernel branches on and each offset it reads is declared once; these tests check
the declarations against what they promise (fields laid end to end, capacities refused when
exceeded, every rollout class naming a twin that exists) and `describe` against the game a
state was read from.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from ddzlab.agents import make_agent
from ddzlab.agents.mcts import MOVE_FILTERS, GreedyRollout, HalfSoloRollout, Rollout, WeightsRollout
from ddzlab.agents.weights import RULES, RuleWeights
from ddzlab.deals import generate_deals
from ddzlab.errors import RulesError
from ddzlab.game import Game
from ddzlab.kernels import (FILTERS, NODE, PARAMS, POLICIES, STATE, TABLE, WEIGHTS_RULES, Codes, KernelLayoutError,
                            Layout)
from ddzlab.rules import STANDARD, Kind


def test_a_layout_lays_its_fields_end_to_end():
    lay = Layout("toy", (("a", 2), ("b", 1), ("c", 3)))
    assert [lay.offset(n) for n in "abc"] == [0, 2, 3] and lay.size == 6
    assert lay.describe([5, 6, 7, 8, 9, 10]) == {"a": [5, 6], "b": 7, "c": [8, 9, 10]}
    for layout in (STATE, TABLE, NODE, PARAMS):
        ends = [layout.offset(n) + layout.capacity(n) for n, _ in layout.fields]
        starts = [layout.offset(n) for n, _ in layout.fields]
        assert starts[0] == 0 and starts[1:] == ends[:-1] and ends[-1] == layout.size, layout


def test_a_layout_refuses_what_does_not_fit():
    lay = Layout("toy", (("a", 2), ("b", 1)))
    lay.check("a", 2)
    with pytest.raises(KernelLayoutError, match="3 values for 'a', which holds 2"):
        lay.check("a", 3)
    with pytest.raises(KernelLayoutError, match="no field 'z'"):
        lay.offset("z")
    with pytest.raises(KernelLayoutError, match="needs 3 values"):
        lay.describe([1, 2])
    with pytest.raises(KernelLayoutError, match="twice"):
        Layout("bad", (("a", 1), ("a", 2)))
    with pytest.raises(KernelLayoutError, match="twice"):
        Codes("bad", ("x", "x"))


def test_a_rule_set_too_big_for_the_table_is_refused_by_name():
    from ddzlab.moves.compiled import core_table
    five = replace(STANDARD, name="five units", units=STANDARD.units + (Kind.SOLO,))
    with pytest.raises(RulesError, match="five units.*'units'"):
        core_table(five)


def test_codes_number_names_in_order_and_refuse_unknown_ones():
    assert [POLICIES.code(n) for n in ("random", "halfsolo", "greedy", "weights")] == [0, 1, 2, 3]
    assert WEIGHTS_RULES.mask(["finish", "bomb"]) == 1 | 1 << 8      # the first and the ninth rule tried
    with pytest.raises(KernelLayoutError, match="unknown move filter 'none'"):
        FILTERS.code("none")


def test_the_python_side_names_its_kernels_from_the_one_declaration():
    assert MOVE_FILTERS == FILTERS.names and RULES == WEIGHTS_RULES.names
    twins = {cls: cls().core_policy() for cls in (Rollout, HalfSoloRollout, GreedyRollout, WeightsRollout)}
    assert twins == {Rollout: "random", HalfSoloRollout: "halfsolo", GreedyRollout: "greedy", WeightsRollout: "weights"}
    assert HalfSoloRollout(over=5).core_policy() is None          # the twin plays over=10 only

    class Cautious(GreedyRollout):                               # plays differently, names no twin
        def choose(self, game, legal, rng):
            return legal[-1]
    assert Cautious().core_policy() is None
    agent = make_agent("ismcts:iterations=5", seed=1)
    agent.rollout = Cautious()
    from ddzlab.agents.mcts_compiled import _plan
    game = Game(generate_deals(1, seed=0)[0], landlord=0)
    assert "no compiled twin" in _plan(agent, game.observation(0))


def test_weights_parameters_sit_at_their_named_offsets():
    from ddzlab.agents.weights_compiled import params
    w = RuleWeights()
    p = params(w, frozenset({"gatekeeper", "bomb"}))
    assert len(p) == PARAMS.size
    assert p[PARAMS.offset("gate_lo")] == w.gate_ranks[0] and p[PARAMS.offset("gate_hi")] == w.gate_ranks[1]
    assert p[PARAMS.offset("urgent_cards")] == w.urgent_cards
    assert p[PARAMS.offset("off")] == (1 << 2) + (1 << 8)        # the third and the ninth rule tried


def test_describe_names_what_a_state_holds():
    from ddzlab.search.state import describe, from_game
    game = Game(generate_deals(1, seed=4)[0], landlord=1)
    first = game.legal_moves()[0]
    game.play(first)
    d = describe(from_game(game))
    assert d["size"] == list(game.sizes) and d["players"] == 3 and d["lord"] == 1
    assert d["to_act"] == game.to_act and d["last_seat"] == 1 and d["last_move"] == first
    assert d["winner"] is None and d["bombs"] == 0
    from ddzlab.cards import format_bits
    assert d["hand"] == [format_bits(b) for b in game.hands]
