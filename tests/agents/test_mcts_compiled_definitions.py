"""The MCTS agents' compiled backend (`ddzlab.agents.mcts_compiled`) against its docstrings
(the survivors of a mutation sample).

Which searches run compiled (every rollout with a compiled twin, halfsolo only at
``over=10``; every guesser with one, any guesser for the cheater, which does not guess),
what the guessers hand the kernels (the bomb guesser's probability, the oracle's true deal),
the time budget's chunks worked out by hand on a fake clock, root statistics added up over
worlds, and the split filter reaching determinized UCT.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.agents.mcts import HalfSoloRollout, MCTSConfigError
from ddzlab.agents.mcts_compiled import CHUNK, _Budget, _stats, _view
from ddzlab.deals import generate_deals
from ddzlab.determinize import BombGuesser, UniformGuesser, known_cards
from ddzlab.game import Game
from ddzlab.moves import detect
from ddzlab.search.sample import sample_world
from ddzlab.search.state import S_HAND
from ddzlab.search.tree import seed as seed_core
from ddzlab.rules import STANDARD
from conftest import random_position


def opening(seed: int = 0) -> Game:
    return Game(generate_deals(1, seed=seed)[0], landlord=0)


class OwnGuesser(UniformGuesser):
    """A guesser of the user's own: no compiled twin (not one of the core's classes, no pool)."""

    name = "own"


@pytest.mark.parametrize("rollout", ["random", HalfSoloRollout(10), "greedy", "weights"])
def test_every_rollout_with_a_compiled_twin_runs_compiled(rollout):
    game = opening()
    agent = make_agent("ismcts", iterations=40, rollout=rollout, seed=0, backend="numba")
    assert agent.play(game.observation(0)) in game.legal_moves()
    assert agent.last_backend == "numba" and agent.last_iterations == 40


def test_halfsolo_at_another_threshold_has_no_compiled_twin():
    game = opening()
    agent = make_agent("ismcts", iterations=40, rollout=HalfSoloRollout(11), seed=0, backend="numba")
    with pytest.raises(MCTSConfigError, match="the rollout 'halfsolo' has no compiled twin"):
        agent.play(game.observation(0))


def test_a_guesser_without_a_compiled_twin_runs_on_python_except_for_the_cheater():
    game = random_position(STANDARD, 3, 6)
    obs = game.observation(game.to_act)
    own = make_agent("ismcts", iterations=30, guesser=OwnGuesser(), seed=0, backend="numba")
    with pytest.raises(MCTSConfigError, match="the guesser 'own' has no compiled twin"):
        own.play(obs)
    cheat = make_agent("mcts_cheat", iterations=30, guesser=OwnGuesser(), seed=0, backend="numba")
    cheat.see_all_hands(game)
    assert cheat.play(obs) in obs.legal_moves and cheat.last_backend == "numba"


def test_the_bomb_guesser_hands_the_kernels_its_probability():
    game = random_position(STANDARD, 3, 6)
    obs = game.observation(game.to_act)
    for p in (0.0, 0.35):
        agent = make_agent("ismcts", iterations=30, guesser=BombGuesser(p), seed=0)
        assert _view(agent, obs)[1] == p
    assert _view(make_agent("ismcts", iterations=30, seed=0), obs)[1] == 0.0


def test_the_oracle_at_q_1_hands_the_kernels_the_true_deal():
    game = random_position(STANDARD, 3, 6)
    obs = game.observation(game.to_act)
    agent = make_agent("ismcts", iterations=30, guesser="oracle1.0", seed=0)
    agent.see_all_hands(game)
    view, p = _view(agent, obs)
    known = known_cards(obs)
    truth = {s: game.hands[s] - known.get(s, 0) for s in range(3) if s != obs.seat}
    world = np.empty_like(view.template)
    seed_core(5)
    for _ in range(20):
        sample_world(*view, p, world)
        dealt = {int(s): int(world[S_HAND + s]) - known.get(int(s), 0) for s in view.holders if s >= 0}
        assert dealt == {s: b for s, b in truth.items() if s in dealt} and dealt


def test_a_time_budget_runs_one_iteration_then_an_eighth_of_the_time_left():
    now = [0.0]
    budget = _Budget(SimpleNamespace(clock=lambda: now[0]), None, 100.0)
    assert budget.next_chunk(0) == 1                  # the first call: one iteration, to time it
    now[0] = 1.0                                      # 1 s for 1 iteration: 99 s left / 1 s / 8
    assert budget.next_chunk(1) == 12
    now[0] = 2.0                                      # 13 iterations in 2 s: 98 / (2/13) / 8 = 79.6
    assert budget.next_chunk(13) == 79
    now[0] = 2.001                                    # fast: capped at CHUNK
    assert budget.next_chunk(1000) == CHUNK
    capped = _Budget(SimpleNamespace(clock=lambda: now[0]), 1005, 100.0)
    capped.start = (0.0, 0)
    assert capped.next_chunk(1000) == 5                # never past the iteration cap
    now[0] = 100.0
    assert budget.next_chunk(2000) == 0               # the time is up
    assert _Budget(SimpleNamespace(clock=lambda: 0.0), 70, None).next_chunk(20) == 50    # no clock: all


def test_root_statistics_are_added_up_over_worlds():
    legal = [detect("3"), detect("4"), detect("5")]
    one = [([0, 2], [3, 4], [1.0, 2.0])]
    assert _stats(legal, one) == {legal[0]: (3, 1.0), legal[2]: (4, 2.0)}
    rows = [([0, 1], [3, 4], [1.0, 2.0]), ([1, 2], [5, 6], [0.5, 0.25])]
    assert _stats(legal, rows) == {legal[0]: (3, 1.0), legal[1]: (9, 2.5), legal[2]: (6, 0.25)}


@pytest.mark.parametrize("seed", [0, 1])
def test_determinized_uct_searches_only_the_split_filters_plays(seed):
    obs = opening(seed).observation(0)
    split = make_agent("mcts", iterations=300, worlds=2, moves="split", width=3, seed=0, backend="numba")
    stats = split._run_search(obs)
    assert len(stats) == 3 and sum(v for v, _ in stats.values()) == 300
    every = make_agent("mcts", iterations=300, worlds=2, moves="all", width=3, seed=0, backend="numba")
    assert len(every._run_search(obs)) > 3


def test_the_split_filter_alone_adds_no_policy_move():
    """``moves="split"`` searches the split filter's plays and nothing else, also at an opening
    where the rollout policy's own move (the weights play) is not among them (adding that move
    is ``"split+policy"``'s definition, docs/search.md): the root's children are exactly the
    Python `split_filter`'s plays."""
    from ddzlab.agents.mcts import split_filter
    agent = make_agent("mcts", iterations=60, worlds=2, moves="split", rollout="weights", seed=0, backend="numba")
    game = next((g for g in map(opening, range(20))
                 if agent.rollout.prior(g, g.legal_moves()) not in split_filter(g, g.legal_moves(), agent.width)), None)
    assert game is not None, "an opening where the policy's own move is not one of the split filter's"
    stats = agent._run_search(game.observation(0))
    assert set(stats) == set(split_filter(game, game.legal_moves(), agent.width))


def test_compiled_ismcts_scores_children_by_availability(monkeypatch):
    """The compiled ISMCTS loop's UCB uses ln(availability), not ln(parent visits), as the
    Python loop does (tests/agents/test_mcts.py). At the root, whose L legal moves are the same
    in every world, the first L iterations expand one child each; iteration L + 1 selects,
    raising every child's availability to 1, so the first L logarithms taken are ln 1 (the
    parent's visits would give ln L); after n iterations each root child's availability is
    n - L. Read by running the kernel's own Python source (``py_func``) with a recording
    ``math``; its callees stay compiled (with the JIT off, everything runs as Python)."""
    import ddzlab.agents.mcts_compiled as mcts_compiled
    from ddzlab.rules import MINI
    from ddzlab.search import tree
    from ddzlab.search.tree import N_AVAIL, N_FIRST, N_NEXT
    logs = []

    class Math:
        inf, sqrt = math.inf, math.sqrt

        @staticmethod
        def log(x):
            logs.append(int(x))
            return math.log(x)
    monkeypatch.setattr(tree, "math", Math)
    monkeypatch.setattr(mcts_compiled, "ismcts", getattr(tree.ismcts, "py_func", tree.ismcts))  # JIT off: itself
    game = Game(generate_deals(1, seed=2, rules=MINI)[0], rules=MINI, landlord=0)
    obs = game.observation(0)
    n_legal = len(obs.legal_moves)
    assert n_legal > 3
    agent = make_agent("ismcts", seed=0, iterations=n_legal + 6, moves="all", others="search", backend="numba")
    agent.play(obs)
    assert logs[:n_legal] == [1] * n_legal
    ints, avail, ch = agent.core_tree.ints, [], agent.core_tree.ints[0, N_FIRST]
    while ch >= 0:
        avail.append(int(ints[ch, N_AVAIL]))
        ch = ints[ch, N_NEXT]
    assert avail == [6] * n_legal


@pytest.mark.parametrize("spec", ["ismcts:iterations=200", "mcts:iterations=200,worlds=2",
                                  "mcts_cheat:iterations=200"])
def test_compiled_searches_draw_from_the_agents_seed(spec):
    """The kernels' random draws come from the agent's seed: the same seed gives the same root
    statistics, and four different seeds do not all give the same (a constant kernel seed
    would). Position: the landlord's opening lead, dozens of moves and 200 iterations."""
    game = opening(5)

    def root(seed):
        agent = make_agent(spec, seed=seed, backend="numba")
        if hasattr(agent, "see_all_hands"):
            agent.see_all_hands(game)
        return sorted((m.cards, v, r) for m, (v, r) in agent._run_search(game.observation(0)).items())
    first = root(0)
    assert root(0) == first
    assert any(root(s) != first for s in (1, 2, 3))
