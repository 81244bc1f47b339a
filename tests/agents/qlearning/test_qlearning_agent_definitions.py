"""The Q-learning package's agents against their docstrings, number by number.

`QLearningAgent` takes its settings from the table it plays unless they are given, acts
with `choose` on the row of its own decision (its role feature, its seed, its caution and
visit threshold), and explains each move; `SplitRandomAgent` draws uniformly among the
offered actions from its own seed. Expected values are worked out here from the
definitions (`ddzlab.agents.qlearning`'s docstrings), not read back from the agent.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

from ddzlab.agents import AgentError
from ddzlab.agents import qlearning as Q
from ddzlab.deals import generate_deals
from ddzlab.game import Game


def positions(n_deals: int = 6, seed: int = 4) -> list:
    """Observations of the seat to act in games the split-random player plays (landlord
    rotating), a few hundred lead and follow decisions."""
    player = Q.SplitRandomAgent(seed=seed)
    out = []
    for i, deal in enumerate(generate_deals(n_deals, seed=seed)):
        game = Game(deal, landlord=i % 3)
        while not game.is_over:
            obs = game.observation(game.to_act)
            out.append(obs)
            game.play(player.play(obs))
    return out


def first(table: int, at_least: int):
    """The first position whose decision uses ``table`` and offers ``at_least`` actions."""
    for obs in positions():
        d = Q.decide_obs(obs)
        if d.table == table and len(d.actions) >= at_least:
            return obs, d
    raise AssertionError("no such position")


# -- settings ---------------------------------------------------------------------------
def test_the_agent_takes_its_settings_from_the_table_unless_given():
    trained = Q.QTables()
    trained.meta = {"config": {"tie": "prior", "role_bug": True, "caution": 0.5, "min_visits": 3}}
    a = Q.QLearningAgent(trained)
    assert a.tables is trained
    assert (a.tie, a.role_bug, a.caution, a.min_visits) == ("prior", True, 0.5, 3)
    # given settings win, falsy ones included
    b = Q.QLearningAgent(trained, tie="random", role_bug=False, caution=0.0, min_visits=0)
    assert (b.tie, b.role_bug, b.caution, b.min_visits) == ("random", False, 0.0, 0)
    # a table without a training config: the seed's settings
    c = Q.QLearningAgent(Q.QTables())
    assert (c.tie, c.role_bug, c.caution, c.min_visits) == ("random", False, 0.0, 0)
    assert c.role_bug is False and type(c.caution) is float and type(c.min_visits) is int
    assert c.epsilon == 0.0


def test_one_source_of_a_table_only():
    message = "qlearning: give one of tables, path and checkpoint, not several"
    with pytest.raises(AgentError) as err:
        Q.QLearningAgent(Q.QTables(), checkpoint="split_random-s0-1000")
    assert str(err.value) == message
    with pytest.raises(AgentError) as err:
        Q.QLearningAgent(path="x.npz", checkpoint="split_random-s0-1000")
    assert str(err.value) == message
    with pytest.raises(AgentError, match=re.escape("qlearning: tie='first': use 'random' or 'prior'")):
        Q.QLearningAgent(Q.QTables(), tie="first")


# -- acting -----------------------------------------------------------------------------
def test_the_same_seed_plays_the_same_epsilon_greedy_moves():
    obs = positions()
    table = Q.QTables()

    def moves(seed):
        agent = Q.QLearningAgent(table, epsilon=0.5, seed=seed, tie="random")
        return [agent.play(o) for o in obs]

    assert moves(7) == moves(7)
    assert moves(7) != moves(8)


def test_the_agent_plays_the_best_action_of_its_own_decisions_row():
    """With distinct values the greedy action is the row's maximum over the offered
    actions; the row is the one of the decision the agent's role setting makes (the seed's
    role bug moves a seat to another state)."""
    obs = positions()
    rng = np.random.default_rng(11)
    table = Q.QTables()
    for o in obs:                     # distinct values in every row either setting reads
        for bug in (False, True):
            d = Q.decide_obs(o, bug)
            table.table(d.table)[d.state] = rng.random(table.table(d.table).shape[1])
    differ = 0
    for bug in (False, True):
        agent = Q.QLearningAgent(table, tie="random", role_bug=bug, caution=0.0, min_visits=0)
        for o in obs:
            d = Q.decide_obs(o, bug)
            row = table.table(d.table)[d.state]
            best = max(d.actions, key=lambda a: row[a])
            assert agent.play(o) == d.move(best)
            other = Q.decide_obs(o, not bug)
            differ += d.move(best) != other.move(max(other.actions, key=lambda a: table.table(other.table)[other.state][a]))
    assert differ > 0                 # the setting matters on these positions


def test_caution_and_the_visit_threshold_reach_the_choice():
    obs, d = first(Q.LEAD, 3)
    prior_first = min(d.actions, key=d.order.__getitem__)
    a1, a2 = [a for a in d.actions if a != prior_first][:2]
    table = Q.QTables()
    q, n = table.table(Q.LEAD)[d.state], table.visits(Q.LEAD)[d.state]
    q[a1], n[a1] = 1.0, 1             # best value, seen once
    q[a2], n[a2] = 0.9, 100           # a little worse, seen 100 times
    q[prior_first], n[prior_first] = -1.0, 100
    plain = Q.QLearningAgent(table, tie="prior", role_bug=False, caution=0.0, min_visits=0)
    assert plain.play(obs) == d.move(a1)
    # caution 0.5: 1.0 - 0.5/1 = 0.5 against 0.9 - 0.5/10 = 0.85
    careful = Q.QLearningAgent(table, tie="prior", role_bug=False, caution=0.5, min_visits=0)
    assert careful.play(obs) == d.move(a2)
    assert careful.last_eval["action"] == Q.LEAD_NAMES[a2]
    # only the prior's first action and actions tried 101 times or more are candidates
    strict = Q.QLearningAgent(table, tie="prior", role_bug=False, caution=0.0, min_visits=101)
    assert strict.play(obs) == d.move(prior_first)
    assert strict.last_eval["action"] == Q.LEAD_NAMES[prior_first]


def test_random_ties_are_broken_at_random_and_prior_ties_by_the_prior():
    obs = positions()
    prior = Q.QPriorAgent()
    by_prior = Q.QLearningAgent(Q.QTables(), tie="prior", role_bug=False, caution=0.0, min_visits=0)
    at_random = Q.QLearningAgent(Q.QTables(), tie="random", seed=0, role_bug=False, caution=0.0, min_visits=0)
    assert all(by_prior.play(o) == prior.play(o) for o in obs)
    assert sum(at_random.play(o) != prior.play(o) for o in obs) > len(obs) // 10


@pytest.mark.parametrize("table", [Q.LEAD, Q.FOLLOW])
def test_the_explanation_gives_the_action_its_visits_and_the_values_best_first(table):
    obs, d = first(table, 3)
    names = Q.LEAD_NAMES if table == Q.LEAD else Q.FOLLOW_NAMES
    tables = Q.QTables()
    q, n = tables.table(table)[d.state], tables.visits(table)[d.state]
    # values rising against the action order (so best-first is not the action order), each
    # with a fourth decimal (so rounding to three places shows)
    values = {a: 0.1237 + 1.5 * k for k, a in enumerate(d.actions)}
    for a, v in values.items():
        q[a], n[a] = v, 7 + a
    agent = Q.QLearningAgent(tables, tie="random", seed=0, role_bug=False, caution=0.0, min_visits=0)
    move = agent.play(obs)
    best = d.actions[-1]
    assert move == d.move(best)
    expected_q = [(names[a], round(0.1237 + 1.5 * k, 3)) for k, a in reversed(list(enumerate(d.actions)))]
    assert agent.last_eval == {"action": names[best], "visits": 7 + best, "q": dict(expected_q)}
    assert list(agent.last_eval["q"].items()) == expected_q
    assert agent.last_eval["q"][names[d.actions[0]]] == 0.124
    agent.bid(obs)
    assert agent.last_eval is None


# -- the split-random player ------------------------------------------------------------
def test_split_random_draws_every_offered_action_alike():
    obs, d = first(Q.LEAD, 4)
    agent = Q.SplitRandomAgent(seed=3)
    draws = 3000
    counts = dict.fromkeys(d.actions, 0)
    for _ in range(draws):
        agent.play(obs)
        counts[Q.LEAD_NAMES.index(agent.last_eval["action"])] += 1
    assert set(counts) == set(d.actions) and min(counts.values()) > 0
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_split_random_follows_its_seed():
    obs = positions(3)

    def moves(seed):
        agent = Q.SplitRandomAgent(seed=seed)
        return [agent.play(o) for o in obs]

    assert moves(5) == moves(5)
    assert moves(5) != moves(6)


@pytest.mark.parametrize("table", [Q.LEAD, Q.FOLLOW])
def test_split_random_explains_its_draw(table):
    obs, d = first(table, 2)
    names = Q.LEAD_NAMES if table == Q.LEAD else Q.FOLLOW_NAMES
    agent = Q.SplitRandomAgent(seed=1)
    for _ in range(20):
        move = agent.play(obs)
        ev = agent.last_eval
        assert set(ev) == {"rule", "action", "choices"}
        assert ev["rule"] == "uniform among the offered actions"
        assert ev["choices"] == len(d.actions)
        action = names.index(ev["action"])
        assert action in d.actions and d.move(action) == move
