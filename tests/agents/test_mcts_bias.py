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


def root_stats(kind: str, backend: str, bias: float, iterations: int, k: int, seed: int = 0, rollout: str = "greedy"):
    game = opening(k)
    agent = make_agent(kind, seed=seed, iterations=iterations, moves="split+policy", rollout=rollout,
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


@pytest.mark.parametrize("kind", ["ismcts", "mcts_cheat"])
def test_a_dominant_bias_follows_the_weights_rollouts_own_move(kind):
    """With the weights rollout the policy's move is the `WeightsAgent`'s play, not greedy's. At
    an opening where the two differ and the split filter leaves the weights play out (so only
    the policy's own move brings it into the tree), the compiled tree expands the weights play
    first and then keeps choosing it, as in the greedy case above."""
    from ddzlab.agents.mcts import split_filter
    greedy = make_agent("ismcts", seed=0, rollout="greedy").rollout
    weights = make_agent("ismcts", seed=0, rollout="weights").rollout
    width = make_agent("ismcts", seed=0).width
    k = next((k for k in range(20)
              if weights.prior(opening(k), opening(k).legal_moves()) != greedy.prior(opening(k), opening(k).legal_moves())
              and weights.prior(opening(k), opening(k).legal_moves())
              not in split_filter(opening(k), opening(k).legal_moves(), width)), None)
    assert k is not None, "an opening where only the weights play's own bias brings it into the tree"
    n = 30
    game, agent, stats = root_stats(kind, "numba", HUGE, n, k, rollout="weights")
    prior = weights.prior(game, game.legal_moves())
    assert next(iter(stats)) == prior, "the weights play is expanded first"
    assert stats[prior][0] == n - (len(stats) - 1)


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


def filtered(game: Game, agent) -> list:
    """The tree's moves at ``game`` without widening, by the definition: the split filter's
    moves with the policy's own move placed before the pass."""
    from ddzlab.agents.mcts import split_filter
    legal = game.legal_moves()
    kept = split_filter(game, legal, agent.width)
    prior = agent.rollout.prior(game, legal)
    if prior not in kept:
        kept = kept[:-1] + [prior, kept[-1]] if kept[-1].is_pass else kept + [prior]
    return kept


def children_after(iterations: int, kept: int, total: int, widen: float) -> int:
    """Root children after ``iterations``: at iteration i the root has been visited i - 1 times,
    its moves are the first min(total, kept + extra(i - 1, widen)) of the order, and an
    untried one among them is expanded."""
    c = 0
    for i in range(1, iterations + 1):
        if c < min(total, kept + extra(i - 1, widen)):
            c += 1
    return c


def extra(visits: int, widen: float) -> int:
    """The left-out moves a node visited ``visits`` times adds: floor(visits ** widen); none without widening."""
    return int(visits ** widen) if widen else 0


@pytest.mark.parametrize("backend", ["numba", "python"])
@pytest.mark.parametrize("widen,iterations", [(0.5, 60), (0.34, 300), (0.0, 60)])
def test_progressive_widening_adds_the_left_out_moves_as_the_root_is_visited(backend, widen, iterations):
    """The root's children: as many as the recurrence gives, all among the filter's moves and
    the first left-out moves (legal order) that the root's last visit count allows."""
    game = opening(2)
    agent = make_agent("ismcts", seed=1, iterations=iterations, moves="split+policy", rollout="greedy",
                       widen=widen, backend=backend)
    stats = agent._run_search(game.observation(0))
    kept = filtered(game, agent)
    order = kept + [m for m in game.legal_moves() if m not in kept]
    assert len(order) > len(kept) + 5, "a lead with many moves the filter leaves out"
    assert len(stats) == children_after(iterations, len(kept), len(order), widen)
    assert set(stats) <= set(order[:len(kept) + extra(iterations - 1, widen)])
    assert (len(stats) > len(kept)) == (widen > 0)


@pytest.mark.parametrize("spec", ["ismcts:widen=-0.1", "ismcts:widen=1.5", "ismcts:widen=nan",
                                  "mcts:widen=0.5", "mcts_cheat:widen=0.5", "ismcts:widen=0.5,moves=all"])
def test_a_bad_widening_is_refused(spec):
    with pytest.raises(MCTSConfigError, match="widen"):
        make_agent(spec, seed=0)
