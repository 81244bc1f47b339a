"""Shared test helpers: seeded random hands for every rule set."""
from __future__ import annotations

import os

#: the Python search's debug mode (`ddzlab.agents.mcts.CHECK_MOVES`): every move a search
#: plays on a world goes through the checked `Game.play`; set before ddzlab is imported, and
#: inherited by the notebook kernels
os.environ.setdefault("DDZLAB_CHECK_SEARCH", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings, strategies as st  # noqa: E402

from ddzlab.cards import Hand  # noqa: E402
from ddzlab.rules import Rules  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _checked_search():
    """Debug mode on even if ddzlab.agents.mcts was imported before this file set it."""
    from ddzlab.agents import mcts
    mcts.CHECK_MOVES = os.environ["DDZLAB_CHECK_SEARCH"] == "1"

settings.register_profile("ci", max_examples=150, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def random_hand(rng: np.random.Generator, rules: Rules, size: int) -> Hand:
    """``size`` cards drawn without replacement from the rule set's deck."""
    deck = Hand.from_bits(rules.deck).ranks()
    return Hand.from_ranks(rng.choice(deck, size, replace=False).tolist())


def clumpy_hand(rng: np.random.Generator, rules: Rules, size: int) -> Hand:
    """``size`` cards drawn in clumps of 1-4 copies of a rank: many trios, bombs and planes."""
    deck = Hand.from_bits(rules.deck).counts
    ranks = [r for r in range(len(deck)) if deck[r]]
    c = [0] * len(deck)
    while sum(c) < size:
        r = int(rng.choice(ranks))
        c[r] = min(deck[r], c[r] + int(rng.integers(1, 5)), c[r] + size - sum(c))
    return Hand(c)


@st.composite
def hands(draw, rules: Rules, min_size: int = 0, max_size: int = 20) -> Hand:
    """Hypothesis strategy: a random sub-multiset of the rule set's deck."""
    deck = Hand.from_bits(rules.deck).ranks()
    size = draw(st.integers(min_size, min(max_size, len(deck))))
    seed = draw(st.integers(0, 2**32 - 1))
    return random_hand(np.random.default_rng(seed), rules, size)


def random_position(rules, seed: int, moves: int):
    """A game (landlord 0) after ``moves`` seeded random moves, then on to the next decision
    with a choice."""
    from ddzlab.deals import generate_deals
    from ddzlab.game import Game

    game = Game(generate_deals(1, seed=seed, rules=rules)[0], rules=rules, landlord=0)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = game.legal_moves()
        game.push(legal[int(rng.integers(len(legal)))])
    while len(game.legal_moves()) == 1:
        game.push(game.legal_moves()[0])
    return game


def side_by_side(agent, other, deals) -> list:
    """Play ``deals`` (seat 0 landlord, no bidding) with ``agent`` in every seat; at every
    position, the move ``agent`` plays and the move ``other`` would play on the same
    observation: a list of (move, other's move)."""
    from ddzlab.game import Game

    pairs = []
    for deal in deals:
        game = Game(deal, landlord=0)
        while not game.is_over:
            obs = game.observation(game.to_act)
            move = agent.play(obs)
            pairs.append((move, other.play(obs)))
            game.play(move)
    return pairs


def mean_root_value(make, obs, backend: str, iterations: int, seeds: int = 6, game=None) -> float:
    """The root's mean reward per visit of ``make(seed, backend)``'s search of ``obs``,
    averaged over ``seeds`` seeds (one search's value varies by about 0.04 between seeds):
    the compiled and Python loops of one search should agree on it. ``game``: the true
    game, shown to each agent first (the cheater and the oracle read it)."""
    total = 0.0
    for sd in range(seeds):
        agent = make(sd, backend)
        if game is not None:
            agent.see_all_hands(game)
        stats = agent._run_search(obs)
        assert agent.last_backend == backend and agent.last_iterations == iterations
        total += sum(r for _, r in stats.values()) / sum(v for v, _ in stats.values())
    return total / seeds


class NeverBids:
    """An agent that passes every auction (and plays the first legal move): the all-pass case."""

    def bid(self, obs):
        return 0

    def play(self, obs):
        return obs.legal_moves[0]
