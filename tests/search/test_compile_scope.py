"""What a search compiles: only the parts its options use (docs/core.md, "Compiling what a call needs").

A first search on a fresh install compiles its kernels, and numba types every function a
kernel may call, whichever branch calls it. The weights policy and the exact endgame solver
are large, so the kernels take them as optional inputs (``pt`` None: no weights tables;
``exact`` None: never solve) and numba drops the branch that needs them before typing. These
tests compile fresh copies of the kernels and read their typed code: the functions that
appear in it are the ones compiled with it. A control with the option on shows that each
check can fail.
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
from ddzlab.moves.compiled import MAX_MOVES, SCRATCH, core_table
from ddzlab.rules import STANDARD
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
