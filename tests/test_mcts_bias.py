"""The progressive bias towards the rollout policy's own move (``bias``), from its definition
(docs/search.md, "Priors"): the policy's move is expanded first, and a child with the bonus
``bias / (visits + 1)`` on top of its UCB value is chosen while the bonus dominates.

With a bias far larger than any UCB value, the tree's first visits are worked out by hand:
every root move is tried once (the policy's first), then every iteration chooses the policy's
move again. The policy's move is computed independently of the tree by the Python rollout
(`Rollout.prior`); the compiled policy's equality with it is tested with the compiled core.
"""
from __future__ import annotations

import pytest

from ddzlab.agents import make_agent
from ddzlab.agents.mcts import MCTSConfigError
from ddzlab.deals import generate_deals
from ddzlab.game import Game

HUGE = 1e9


def opening(k: int) -> Game:
    """The landlord's lead of deal ``k``: many legal moves."""
    return Game(generate_deals(k + 1, seed=21)[k], landlord=0)


def root_stats(kind: str, backend: str, bias: float, iterations: int, k: int, seed: int = 0):
    game = opening(k)
    agent = make_agent(kind, seed=seed, iterations=iterations, moves="split+policy", rollout="greedy",
                       bias=bias, backend=backend)
    if kind == "mcts_cheat":
        agent.see_all_hands(game)
    stats = agent._run_search(game.observation(0))
    assert agent.last_backend == backend
    return game, agent, stats


@pytest.mark.parametrize("backend", ["numba", "python"])
@pytest.mark.parametrize("kind", ["ismcts", "mcts_cheat"])
@pytest.mark.parametrize("k", [0, 3])
def test_a_dominant_bias_tries_the_policy_move_first_then_keeps_choosing_it(kind, backend, k):
    n = 40
    game, agent, stats = root_stats(kind, backend, HUGE, n, k)
    prior = agent.rollout.prior(game, game.legal_moves())
    children = len(stats)
    assert children >= 4, "a lead with several moves in the tree"
    assert next(iter(stats)) == prior, "the policy's move is expanded first"
    assert stats[prior][0] == n - (children - 1), "every other root move once, the policy's move the rest"
    assert all(v == 1 for m, (v, _) in stats.items() if m != prior)


@pytest.mark.parametrize("backend", ["numba", "python"])
def test_without_a_bias_the_policy_move_is_not_forced(backend):
    """The same searches without the bias: the first expansion is a random untried move, so over
    seeds it is not always the policy's, and the visits are not all on one move."""
    firsts, concentrated = [], []
    for seed in range(8):
        game, agent, stats = root_stats("ismcts", backend, 0.0, 40, 0, seed=seed)
        prior = agent.rollout.prior(game, game.legal_moves())
        firsts.append(next(iter(stats)) == prior)
        concentrated.append(stats.get(prior, (0, 0.0))[0] == 40 - (len(stats) - 1))
    assert not all(firsts) and not all(concentrated)


@pytest.mark.parametrize("backend", ["numba", "python"])
def test_a_small_bias_fades_with_visits(backend):
    """bias 0.05 is worth less than one visit's exploration term: after 400 iterations the policy's
    move is not visited as if forced (the other moves get more than one visit each)."""
    game, agent, stats = root_stats("mcts_cheat", backend, 0.05, 400, 0)
    prior = agent.rollout.prior(game, game.legal_moves())
    assert next(iter(stats)) == prior
    assert stats[prior][0] < 400 - (len(stats) - 1)


@pytest.mark.parametrize("spec", ["ismcts:bias=-1", "ismcts:bias=nan", "ismcts:bias=inf", "ismcts:bias=x",
                                  "ismcts:bias=1,rollout=random", "mcts:bias=2,rollout=halfsolo"])
def test_a_bad_bias_is_refused(spec):
    with pytest.raises(MCTSConfigError, match="bias"):
        make_agent(spec, seed=0)
