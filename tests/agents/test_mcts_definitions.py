"""The MCTS agents (`ddzlab.agents.mcts`) against their docstrings, on the Python loops
(the survivors of a mutation sample).

Every iteration passes through one root child (so the root children's visits add up to the
iterations); a child's reward counts the games its player's side won; rollouts count the
moves they play; expansion draws uniformly among the untried moves; ties go to legal order;
the determinized worlds come from the agent's own guesser and generator; the cheater refuses a
game that is not at the observation's point; and the messages, defaults and backend choice
are as documented.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from ddzlab.agents import make_agent
from ddzlab.agents import mcts as M
from ddzlab.agents.mcts import (COMPILED_ITERATIONS, MCTSConfigError, Rollout, _following_facts, make_guesser,
                                make_rollout, resolve_backend)
from ddzlab.deals import generate_deals
from ddzlab.determinize import UniformGuesser
from ddzlab.game import Game
from ddzlab.rules import STANDARD
from conftest import random_position


def winning_point() -> Game:
    """A position whose player can play its whole hand at once, among other moves."""
    for seed in range(200):
        game = Game(generate_deals(1, seed=seed)[0], landlord=0)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            legal = game.legal_moves()
            hand = game.hands[game.to_act]
            if len(legal) > 1 and any(m.cards == hand for m in legal):
                return game
            game.push(legal[int(rng.integers(len(legal)))])
    raise AssertionError("no such position")


# -- messages, defaults, backends -------------------------------------------------------------
def test_unknown_names_are_refused_with_the_choices():
    with pytest.raises(MCTSConfigError) as err:
        make_guesser("psychic")
    assert str(err.value) == ("unknown guesser 'psychic': uniform, bomb, policy, policyN (N candidates), mcmc, "
                              "mcmcN (N samples) or oracleQ (0 <= Q <= 1)")
    with pytest.raises(MCTSConfigError) as err:
        make_rollout("smart")
    assert str(err.value) == "unknown rollout 'smart': random, halfsolo, greedy, weights"


def test_the_backend_asked_for_or_the_one_that_imports(monkeypatch):
    assert resolve_backend("python") == "python"
    assert resolve_backend(None) == "numba" == resolve_backend("numba")
    monkeypatch.setattr(M, "numba_error", lambda: "numba does not import (test)")
    monkeypatch.setattr(M, "_note_once", lambda text: None)
    assert resolve_backend(None) == "python"
    with pytest.raises(MCTSConfigError) as err:
        resolve_backend("numba")
    assert str(err.value) == ("backend=numba is not available: numba does not import (test); pip install numba, "
                              "or use backend=python")


def test_worlds_start_at_one():
    assert make_agent("mcts", worlds=1).worlds == 1
    with pytest.raises(MCTSConfigError, match="worlds=0: a whole number, at least one"):
        make_agent("mcts", worlds=0)


def test_a_new_agent_has_spent_nothing_and_one_legal_move_is_explained():
    agent = make_agent("ismcts", iterations=20, seed=0, backend="python")
    assert agent.last_iterations == 0 and agent.last_simulations == 0
    game = random_position(STANDARD, 0, 3)
    while len(game.legal_moves()) > 1:
        game.push(game.legal_moves()[0])            # leads, then passes, until one move is left
        if game.is_over:
            pytest.fail("no forced move")
    assert agent.play(game.observation(game.to_act)) == game.legal_moves()[0]
    assert agent.last_eval == {"only": "one legal move"}


def test_the_compiled_default_budget_is_the_compiled_iterations():
    game = random_position(STANDARD, 1, 5)
    agent = make_agent("ismcts", seed=0, backend="numba")
    agent.play(game.observation(game.to_act))
    assert agent.last_backend == "numba" and agent.last_iterations == COMPILED_ITERATIONS


def test_facts_a_greedy_rollout_reads_about_the_move_to_beat():
    game = Game(generate_deals(1, seed=2)[0], landlord=0)
    assert _following_facts(game) == (False, False, False)
    game.push(game.legal_moves()[0])                  # the landlord leads: seat 1 answers it
    assert _following_facts(game) == (True, False, False)
    game.push(next(m for m in game.legal_moves() if not m.is_pass))       # seat 1, a farmer, plays
    assert _following_facts(game) == (True, True, False)                  # seat 2: its partner's move
    game.push(game.legal_moves()[-1])                 # seat 2 passes: the landlord answers seat 1
    assert _following_facts(game) == (True, False, False)


# -- the search ---------------------------------------------------------------------------------
class Counting(Rollout):
    """The random rollout, counting the moves it chooses."""

    def __init__(self) -> None:
        self.moves = 0

    def choose(self, game, legal, rng):
        self.moves += 1
        return super().choose(game, legal, rng)


@pytest.mark.parametrize("kind", ["mcts", "ismcts", "mcts_cheat"])
def test_root_visits_add_up_to_the_iterations_and_rollouts_count_their_moves(kind):
    game = random_position(STANDARD, 3, 4)
    obs = game.observation(game.to_act)
    rollout = Counting()
    agent = make_agent(kind, iterations=120, moves="all", rollout=rollout, seed=1, backend="python")
    if kind == "mcts_cheat":
        agent.see_all_hands(game)
    found = agent._run_search(obs)
    assert agent.last_iterations == 120
    assert sum(v for v, _ in found.values()) == 120 and all(v >= 1 for v, _ in found.values())
    assert all(0 <= r <= v for v, r in found.values())
    assert agent.last_simulations == rollout.moves > 120


def test_a_child_that_wins_at_once_wins_every_game():
    game = winning_point()
    obs = game.observation(game.to_act)
    agent = make_agent("mcts_cheat", iterations=200, moves="all", seed=0, backend="python")
    agent.see_all_hands(game)
    found = agent._run_search(obs)
    whole = next(m for m in obs.legal_moves if m.cards == obs.hand.bits)
    v, r = found[whole]
    assert v > 0 and r == v
    assert agent.play(obs) == whole


def test_ties_go_to_the_first_move_in_legal_order(monkeypatch):
    game = random_position(STANDARD, 4, 2)
    obs = game.observation(game.to_act)
    agent = make_agent("ismcts", iterations=10, seed=0, backend="python")
    a, b = obs.legal_moves[0], obs.legal_moves[1]
    monkeypatch.setattr(agent, "_run_search", lambda o: {a: (5, 2.0), b: (5, 2.0)})
    assert agent.play(obs) == a
    monkeypatch.setattr(agent, "_run_search", lambda o: {a: (5, 2.0), b: (5, 3.0)})
    assert agent.play(obs) == b                      # equal visits: the better mean


def test_expansion_draws_uniformly_among_the_untried_moves():
    game = random_position(STANDARD, 5, 1)
    obs = game.observation(game.to_act)
    legal = list(obs.legal_moves)
    counts = dict.fromkeys(legal, 0)
    for s in range(20 * len(legal)):             # 20 expected draws a move
        agent = make_agent("ismcts", iterations=1, moves="all", rollout="random", seed=s, backend="python")
        (move,) = agent._run_search(obs)
        counts[move] += 1
    assert len(legal) >= 2
    assert sps.chisquare(list(counts.values())).pvalue > 1e-3


class Recording(UniformGuesser):
    """The uniform guesser, counting the worlds it deals."""

    name = "recording"

    def __init__(self) -> None:
        self.calls = 0

    def guess(self, obs, rng):
        self.calls += 1
        return super().guess(obs, rng)


def test_determinized_worlds_come_from_the_agents_guesser_and_generator():
    game = random_position(STANDARD, 6, 5)
    obs = game.observation(game.to_act)
    guesser = Recording()
    agent = make_agent("mcts", iterations=80, worlds=4, guesser=guesser, seed=3, backend="python")
    first = agent._run_search(obs)
    assert guesser.calls == 4
    again = make_agent("mcts", iterations=80, worlds=4, guesser=Recording(), seed=3, backend="python")
    assert again._run_search(obs) == first            # the same seed, the same worlds and search


def test_the_cheater_refuses_a_game_that_is_not_at_the_observations_point():
    """A seat that passed and is to act again holds the same hand: only the history tells the
    stale game from the right one."""
    for seed in range(50):
        game = Game(generate_deals(1, seed=seed)[0], landlord=0)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            seat, legal = game.to_act, game.legal_moves()
            if legal[-1].is_pass and len(legal) > 1:
                stale = game.copy()
                game.push(legal[-1])
                while not game.is_over and game.to_act != seat:
                    nxt = game.legal_moves()
                    game.push(nxt[int(rng.integers(len(nxt)))])
                if not game.is_over and game.hands[seat] == stale.hands[seat] and len(game.legal_moves()) > 1:
                    cheat = make_agent("mcts_cheat", iterations=10, seed=0, backend="python")
                    cheat.see_all_hands(stale)
                    with pytest.raises(MCTSConfigError, match="needs see_all_hands"):
                        cheat.play(game.observation(seat))
                    cheat.see_all_hands(game)
                    assert cheat.play(game.observation(seat)) in game.legal_moves()
                    return
                continue
            game.push(legal[int(rng.integers(len(legal)))])
    pytest.fail("no seat passed and acted again with the same hand")


def test_mcts_picks_the_most_visited_move_and_breaks_ties_by_legal_order():
    """'most visits, then best mean; ties to legal order' (ddzlab.agents.mcts)."""
    from ddzlab.agents.mcts import MCTSAgent
    obs = Game(generate_deals(1, seed=3)[0], landlord=0).observation(0)
    legal = obs.legal_moves
    a, b, c = legal[1], legal[2], legal[3]
    agent = MCTSAgent(iterations=1, seed=0)
    for stats, want in (({a: (5, 2.0), b: (5, 2.0), c: (4, 4.0)}, a),   # full tie: first listed
                        ({c: (5, 2.0), b: (5, 2.0)}, b),                  # order of legal, not of stats
                        ({a: (5, 1.0), b: (5, 3.0)}, b),                  # same visits: better mean
                        ({a: (6, 0.0), b: (5, 5.0)}, a)):                 # visits first
        agent._run_search = lambda o, s=stats: s   # the choice in play(), whichever backend searched
        assert agent.play(obs) == want
