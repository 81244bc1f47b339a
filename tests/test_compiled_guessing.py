"""The compiled core's pool and oracle guessing (`ddzlab.search.sample`): the worlds it deals
follow the Python guessers' distributions, and the search agents run those guessers compiled
with the values of the Python loops."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.agents.mcts import make_guesser
from ddzlab.deals import generate_deals
from ddzlab.determinize import DeterminizeError, NoisyOracleGuesser, PolicyGuesser, hidden_sizes, known_cards
from ddzlab.game import Game
from ddzlab.rules import MINI, STANDARD
from ddzlab.search import view_of
from ddzlab.search.sample import sample_world
from ddzlab.search.state import S_HAND, size_of
from ddzlab.search.tree import seed as seed_core


def _point(rules, seed: int, moves: int) -> Game:
    """A game after ``moves`` random moves, then on to the next decision with a choice."""
    game = Game(generate_deals(1, seed=seed, rules=rules)[0], rules=rules, landlord=0)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = game.legal_moves()
        game.push(legal[int(rng.integers(len(legal)))])
    while len(game.legal_moves()) == 1:
        game.push(game.legal_moves()[0])
    return game


def _accuracy(truth: dict[int, int], hands: dict[int, int]) -> float:
    """Share of the hidden cards a world's holders hold as in ``truth`` (multiset overlap)."""
    right = total = 0
    for h, bits in truth.items():
        for r in range(15):
            a, b = (bits >> (4 * r)) & 15, (hands[h] >> (4 * r)) & 15
            right += min(a, b)
            total += a
    return right / total


def _hidden(view, st, obs) -> dict[int, int]:
    """The hidden cards a dealt state gives each seat holder (known cards removed)."""
    known = known_cards(obs)
    return {int(s): int(st[S_HAND + s]) - known.get(int(s), 0) for s in view.holders if s >= 0}


@pytest.mark.parametrize("rules,moves", [(STANDARD, 7), (MINI, 9)])
def test_compiled_oracle_deals_as_the_python_oracle(rules, moves):
    """Every world keeps the public facts; q = 1 is the true deal; at q = 0.5 the realised
    accuracy of the compiled draws equals the Python oracle's (|z| < 4 over 1,500 each: a
    0.03 shift of q moves it by about z = 6)."""
    game = _point(rules, 3, moves)
    obs = game.observation(game.to_act)
    oracle = NoisyOracleGuesser(1.0)
    oracle.see(game)
    truth = oracle.truth(obs)
    seats = {h: b for h, b in truth.items() if h >= 0}
    st = np.empty(19, dtype=np.int64)
    seed_core(1)
    view = view_of(obs, oracle=(truth, 1.0))
    sample_world(*view, 0.0, st)
    assert _hidden(view, st, obs) == seats
    n, q = 1500, 0.5
    view = view_of(obs, oracle=(truth, q))
    compiled = []
    for _ in range(n):
        sample_world(*view, 0.0, st)
        hands = _hidden(view, st, obs)
        assert sum(hands.values()) == sum(seats.values()) and st[S_HAND + obs.seat] == obs.hand.bits
        assert all(size_of(hands[s]) == size_of(seats[s]) for s in seats)
        compiled.append(_accuracy(seats, hands))
    g, rng = NoisyOracleGuesser(q), np.random.default_rng(2)
    g.see(game)
    python = [_accuracy(seats, {s: h for s, h in g.guess(obs, rng).items() if s >= 0}) for _ in range(n)]
    a, b = np.array(compiled), np.array(python)
    se = math.sqrt(a.var() / n + b.var() / n)
    assert abs(a.mean() - b.mean()) < 4 * se, (a.mean(), b.mean())
    assert a.mean() > q                                 # the kept cards alone give q


def test_pool_worlds_are_candidates_drawn_by_weight():
    """Each world is one candidate deal, drawn with its weight's probability (|z| < 4 per
    candidate over 20,000 draws); a candidate of weight 0 never comes."""
    game = _point(STANDARD, 5, 12)
    obs = game.observation(game.to_act)
    rng = np.random.default_rng(0)
    sizes = hidden_sizes(obs)
    deals = [make_guesser("uniform").guess(obs, rng) for _ in range(6)]
    weights = np.array([0.3, 0.0, 0.1, 0.25, 0.05, 0.3])
    view = view_of(obs, pool=(deals, weights))
    assert view.pool.shape == (6, len(sizes))
    st = np.empty(19, dtype=np.int64)
    seed_core(3)
    index = {tuple(sorted((s, b) for s, b in d.items() if s >= 0)): i for i, d in enumerate(deals)}
    counts = np.zeros(6)
    n = 20000
    for _ in range(n):
        sample_world(*view, 0.0, st)
        counts[index[tuple(sorted(_hidden(view, st, obs).items()))]] += 1
    assert counts[1] == 0
    z = (counts - n * weights) / np.sqrt(n * weights * (1 - weights) + 1e-12)
    assert np.all(np.abs(z) < 4), z
    with pytest.raises(DeterminizeError):
        view_of(obs, pool=(deals, np.zeros(6)))


@pytest.mark.parametrize("guesser", ["policy", "oracle0.5"])
@pytest.mark.parametrize("kind", ["ismcts", "mcts"])
def test_pool_and_oracle_guessers_search_compiled(kind, guesser):
    game = _point(STANDARD, 2, 6)
    obs = game.observation(game.to_act)
    moves = []
    for _ in range(2):
        a = make_agent(f"{kind}:iterations=60,guesser={guesser}", seed=4)
        if guesser.startswith("oracle"):
            a.see_all_hands(game)
        moves.append(a.play(obs))
        assert a.last_backend == "numba" and a.last_iterations == 60
    assert moves[0] == moves[1] and moves[0] in obs.legal_moves          # same seed, same move
    if guesser == "policy":
        assert isinstance(a.guesser, PolicyGuesser) and len(a.guesser.ess_log) == 1


@pytest.mark.parametrize("guesser", ["policy", "oracle0.5"])
def test_compiled_search_values_match_the_python_loop(guesser):
    """The same position, guesser and budget on both backends: the root's mean reward,
    averaged over six seeds, agrees within 0.05 (as tests/test_compiled.py checks UCT; one
    search's value varies by about 0.04 between seeds)."""
    for s in (0, 3):
        game = _point(MINI, 20 + s, 4 + s)
        obs = game.observation(game.to_act)
        values = []
        for backend in ("numba", "python"):
            total = 0.0
            for sd in range(6):
                a = make_agent(f"ismcts:iterations=300,guesser={guesser}", seed=sd, backend=backend)
                if guesser.startswith("oracle"):
                    a.see_all_hands(game)
                stats = a._run_search(obs)
                assert a.last_backend == backend and a.last_iterations == 300
                total += sum(r for _, r in stats.values()) / sum(v for v, _ in stats.values())
            values.append(total / 6)
        assert abs(values[0] - values[1]) < 0.05, values
