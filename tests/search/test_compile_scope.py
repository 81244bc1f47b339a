"""What a search compiles: only the parts its options use (docs/core.md, "Compiling what a call needs").

A first search on a fresh install compiles its kernels, and numba types every function a
kernel may call, whichever branch calls it. The weights policy, the exact endgame solver and
the opponents' modelled moves are large, so the kernels take them as optional inputs (``pt``
None: no weights tables; ``exact``, ``follow``, ``bias`` None: off) and numba drops the
branch that needs them before typing; the flower card's moves are compiled only for the
wildcard rules' (read-only) table. These tests compile fresh copies of the kernels and read
their typed or machine code: the functions that appear in it are the ones compiled with it.
A control with the option on shows that each check can fail.
"""
from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import ddzlab.agents.mcts_compiled as mcts_compiled
from ddzlab.agents import make_agent
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.kernels import POLICIES
from ddzlab.cards import F_BIT, Hand
from ddzlab.moves.compiled import MAX_MOVES, SCRATCH, FlowerTableError, core_table, encode, lead_moves
from ddzlab.moves.compiled import follow_moves
from ddzlab.moves import legal_moves
from ddzlab.moves.move import Move
from ddzlab.rules import HOMEWORK, MINI, STANDARD, WILDCARD, Kind
from ddzlab.search.policies import policy_index
from ddzlab.search.state import from_game, legal
from ddzlab.search.tree import ismcts
from ddzlab.search.weights import stand_in


def called(dispatcher) -> set[str]:
    """Names of the compiled functions the typed code of every overload of ``dispatcher`` calls."""
    names = set()
    for cres in dispatcher.overloads.values():
        for ty in cres.type_annotation.typemap.values():
            fn = getattr(getattr(ty, "dispatcher", None), "py_func", None)
            if fn is not None:
                names.add(fn.__name__)
    return names


@pytest.mark.parametrize("weights", [False, True])
def test_the_rollout_choice_types_the_weights_policy_only_when_given_its_tables(weights):
    game = Game(generate_deals(1, seed=3)[0], landlord=0)
    t, st = core_table(STANDARD), from_game(game)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    n = legal(t, st, oc, om, np.empty(SCRATCH, dtype=np.int64))
    if weights:
        pt, w = mcts_compiled._weights_tables(make_agent("ismcts_weights"), STANDARD)
        policy = POLICIES.code("weights")
    else:
        pt, w = stand_in(STANDARD)
        policy = POLICIES.code("greedy")
    fresh = njit(policy_index.py_func)
    i = fresh(t, st, oc, om, n, policy, pt, w)
    assert 0 <= i < n
    assert ("choose_weights" in called(fresh)) is weights
    assert "greedy_index" in called(fresh)


@pytest.mark.parametrize("exact", [0, 12])
def test_ismcts_types_the_endgame_solver_only_when_exact_is_on(monkeypatch, exact):
    fresh = njit(ismcts.py_func)
    monkeypatch.setattr(mcts_compiled, "ismcts", fresh)
    agent = make_agent(f"ismcts:iterations=20,exact={exact}", seed=1)
    game = Game(generate_deals(1, seed=4)[0], landlord=0)
    move = agent.play(game.observation(game.to_act))
    assert move in game.legal_moves()
    assert fresh.overloads, "the agent did not run the (patched) compiled ISMCTS"
    assert ("_settle" in called(fresh)) is (exact > 0)


@pytest.mark.parametrize("others", ["search", "policy"])
def test_ismcts_types_the_modelled_opponents_and_the_prior_only_when_on(monkeypatch, others):
    on = others == "policy"
    fresh = njit(ismcts.py_func)
    monkeypatch.setattr(mcts_compiled, "ismcts", fresh)
    options = "others=policy,bias=0.5" if on else "others=search,bias=0"
    agent = make_agent(f"ismcts:iterations=20,{options}", seed=1)
    game = Game(generate_deals(1, seed=4)[0], landlord=0)
    assert agent.play(game.observation(game.to_act)) in game.legal_moves()
    assert fresh.overloads, "the agent did not run the (patched) compiled ISMCTS"
    names = called(fresh)
    assert ("_modelled_step" in names) is on
    assert ("_prior_move" in names) is on
    assert "rollout" in names


def machine_code(dispatcher) -> str:
    """The LLVM code of every overload of ``dispatcher``, the kernels it calls linked in."""
    return "".join(dispatcher.inspect_llvm().values())


@pytest.mark.parametrize("rules", [STANDARD, MINI, HOMEWORK, WILDCARD], ids=lambda r: r.name)
def test_the_move_kernels_compile_the_flower_card_only_for_its_table(rules):
    t = core_table(rules)
    assert t.flags.writeable is (rules.wildcard is None)
    bits = sum(1 << (4 * r) for r in range(8))                  # one card of each of 8 ranks
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    lead, follow = njit(lead_moves.py_func), njit(follow_moves.py_func)
    assert lead(t, bits, oc, om, sc) > 0
    assert follow(t, bits, *encode(Move(Kind.SOLO, 0, 1, 1)), oc, om, sc) > 0
    for fresh in (lead, follow):
        assert ("_flower_moves" in machine_code(fresh)) is (rules.wildcard is not None)


def test_a_hand_with_the_flower_card_on_another_table_is_refused():
    t = core_table(WILDCARD).copy()           # writable: typed as the other rule sets' tables
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    hand = F_BIT + (1 << 4 * 3) + (1 << 4 * 5)
    n = lead_moves(core_table(WILDCARD), hand, oc, om, sc)
    assert n == len(legal_moves(Hand.from_bits(hand), WILDCARD)) > 3     # F read as the pairs' ranks
    with pytest.raises(FlowerTableError, match="holds F"):
        lead_moves(t, hand, oc, om, sc)
    with pytest.raises(FlowerTableError, match="holds F"):
        follow_moves(t, hand, *encode(Move(Kind.SOLO, 0, 1, 1)), oc, om, sc)
