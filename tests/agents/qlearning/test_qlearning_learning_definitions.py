"""`ddzlab.agents.qlearning.learning` against its docstrings, number by number.

The seed's rewards per table, the `Learner`'s defaults, and what each of its settings
changes in a worked example: the tie-break prior, caution and the visit threshold reaching
`choose`, the visit counts, the seed's update rule, the running-mean step size of
``average`` (also under the Monte Carlo rule). Every expected number is computed here by hand.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from ddzlab.agents import qlearning as Q

#: the seed's "bad" actions, from the module docstring (lead 0, 4, 10, 11, 12; follow 0, 5-8)
LEAD_BAD = {0, 4, 10, 11, 12}
FOLLOW_BAD = {0, 5, 6, 7, 8}


def learner(**options) -> Q.Learner:
    return Q.Learner(Q.QTables(), np.random.default_rng(0), **{"epsilon": 0.0, **options})


def test_the_seeds_reward_of_a_decision_depends_on_its_table():
    for a in range(Q.N_LEAD_ACTIONS):
        assert Q.bad_reward(Q.LEAD, a, 6) == pytest.approx(-1.6 if a in LEAD_BAD else -1.0), a
    for a in range(Q.N_FOLLOW_ACTIONS):
        assert Q.bad_reward(Q.FOLLOW, a, 3) == pytest.approx(-1.3 if a in FOLLOW_BAD else -1.0), a


def test_the_learners_defaults_are_the_seeds():
    lr = Q.Learner(Q.QTables(), np.random.default_rng(0))
    assert (lr.alpha, lr.gamma, lr.epsilon, lr.rule) == (0.5, 0.8, 0.1, "standard")
    assert lr.prior is False and lr.average is False and lr.shaped is True
    assert lr.caution == 0.0 and lr.min_visits == 0 and lr.pending is None
    assert learner(tie="prior").prior is True
    assert learner(average=True).average is True
    assert learner(rewards="outcome").shaped is False


def test_ties_go_to_the_prior_or_at_random():
    d = Q.Decision(Q.LEAD, 0, [1, 5, 13], None, ())          # the prior ranks 13 first
    assert {learner(tie="prior").act(d) for _ in range(30)} == {13}
    rng = np.random.default_rng(1)
    picks = {Q.Learner(Q.QTables(), rng, epsilon=0.0).act(d) for _ in range(60)}
    assert picks == {1, 5, 13}


def test_caution_and_the_visit_threshold_reach_the_choice():
    d = Q.Decision(Q.LEAD, 3, [1, 5, 13], None, ())

    def primed(**options):
        lr = learner(tie="prior", **options)
        q, n = lr.tables.table(Q.LEAD)[3], lr.tables.visits(Q.LEAD)[3]
        q[13], n[13] = -10.0, 400        # −10 − 40/20 = −12 with caution 40
        q[1], n[1] = 0.0, 4              # 0 − 40/2 = −20
        q[5], n[5] = -30.0, 50
        return lr

    assert primed().act(d) == 1                              # plain values
    assert primed(caution=40.0).act(d) == 13
    assert primed(min_visits=4).act(d) == 1                  # 4 visits: a candidate at 4 ...
    assert primed(min_visits=5).act(d) == 13                 # ... not at 5: 13 (the prior's first) beats 5


def test_visits_count_every_decision_and_rewards_use_the_decisions_table():
    lr = learner()
    d = Q.Decision(Q.LEAD, 2, [5, 1], None, ())
    lr.tables.table(Q.LEAD)[2, 5] = 1.0                      # a small pair: not bad when leading
    assert lr.act(d) == 5
    assert lr.pending == (Q.LEAD, 2, 5, -1.0)
    assert lr.act(d) == 5
    assert lr.tables.visits(Q.LEAD)[2, 5] == 2
    f = Q.Decision(Q.FOLLOW, 4, [5, 1], None, ())
    lr.tables.table(Q.FOLLOW)[4, 5] = 9.0                    # the highest reply: bad when following
    assert lr.act(f) == 5
    assert lr.pending == (Q.FOLLOW, 4, 5, pytest.approx(-1.2))


def test_the_seeds_update_rule_is_used_between_decisions():
    lr = learner(rule="seed")
    t = lr.tables
    t.follow[7, 2] = 3.0
    t.lead[5, 0] = 1.0
    lr.act(Q.Decision(Q.LEAD, 5, [0, 1], None, ()))          # the bad action 0: −1.2
    lr.act(Q.Decision(Q.FOLLOW, 7, [0, 2], None, ()))
    assert t.lead[5, 0] == pytest.approx(1 + 0.5 * (-1.2 + 0.8 * (3 - 1)))     # 1.2, not 1.1


def test_average_steps_by_one_over_the_visits_until_alpha():
    lr = learner(alpha=0.1, average=True)
    t = lr.tables
    t.follow[7, 2] = 3.0
    d1, d2 = Q.Decision(Q.LEAD, 5, [1], None, ()), Q.Decision(Q.FOLLOW, 7, [2], None, ())
    lr.act(d1)
    lr.act(d2)                       # α = max(0.1, 1/1): Q = −1 + 0.8 × 3
    assert t.lead[5, 1] == pytest.approx(1.4)
    lr.finish(won=True)              # α = 1: Q = 40
    assert t.follow[7, 2] == pytest.approx(40.0)
    lr.act(d1)
    lr.act(d2)                       # second visit: α = 1/2
    assert t.lead[5, 1] == pytest.approx(1.4 + 0.5 * (-1 + 0.8 * 40 - 1.4))
    plain = learner(alpha=0.1)
    plain.tables.follow[7, 2] = 3.0
    plain.act(d1)
    plain.act(d2)
    assert plain.tables.lead[5, 1] == pytest.approx(0.1 * 1.4)


def test_average_also_sets_the_monte_carlo_steps():
    lr = learner(rule="mc", alpha=0.1, gamma=0.9, average=True)
    t = lr.tables
    lr.act(Q.Decision(Q.LEAD, 1, [1], None, ()))             # −1
    lr.act(Q.Decision(Q.FOLLOW, 2, [0], None, ()))           # the last decision: the final reward
    lr.finish(won=True)
    assert t.lead[1, 1] == pytest.approx(-1 + 0.9 * 40)      # α = 1 on a first visit
    assert t.follow[2, 0] == pytest.approx(40.0)


# -- choose -------------------------------------------------------------------------------
def test_choose_without_caution_or_threshold_reads_the_plain_values():
    q = np.array([0.0, 2.0, 1.0, 3.0], np.float32)
    n = np.array([5, 0, 9, 0], np.uint32)            # the best two never tried
    order = (3, 2, 1, 0)                             # the prior ranks 0 last, 3 first ... by index
    rng = np.random.default_rng(0)
    # counts and the prior given, caution and the threshold left at their defaults (0)
    assert Q.choose(q, [0, 1, 2, 3], 0.0, rng, order, n) == 3
    assert Q.choose(q, [0, 1, 2], 0.0, rng, order, n) == 1
    # a threshold without counts or without the prior is ignored, as the docstring says
    assert Q.choose(q, [0, 1, 2, 3], 0.0, rng, None, n, min_visits=5) == 3
    assert Q.choose(q, [0, 1, 2, 3], 0.0, rng, order, None, min_visits=5) == 3


def test_choose_at_the_visit_threshold_keeps_the_best_candidate():
    q = np.array([0.0, 1.0, 2.0, 5.0], np.float32)
    n = np.array([3, 1, 1, 0], np.uint32)
    order = (1, 2, 3, 0)                             # the prior's first action is 3
    rng = np.random.default_rng(0)
    # min_visits 1: action 3 (first in the prior) and 0, 1, 2 (tried once or more): 3, the best
    assert Q.choose(q, [0, 1, 2, 3], 0.0, rng, order, n, min_visits=1) == 3
    # now the prior's first is 0 (value 0) and 3 was never tried: the candidates 0, 1, 2 -> 2
    order0 = (0, 1, 2, 3)
    assert Q.choose(q, [0, 1, 2, 3], 0.0, rng, order0, n, min_visits=1) == 2
    # two candidates left, the better listed second: 0 (the prior's first) and 2 -> 2
    n2 = np.array([0, 0, 1, 0], np.uint32)
    assert Q.choose(q, [0, 1, 2, 3], 0.0, rng, order0, n2, min_visits=1) == 2
    # one candidate left: the prior's first, whatever the values
    assert Q.choose(q, [0, 1, 2, 3], 0.0, rng, order0, n2, min_visits=2) == 0


def test_choose_with_caution_subtracts_caution_over_root_visits_and_puts_untried_last():
    q = np.array([1.0, 0.9, 9.0], np.float32)
    n = np.array([1, 100, 0], np.uint32)
    rng = np.random.default_rng(0)
    # caution 0.5: 1 - 0.5 = 0.5 against 0.9 - 0.05 = 0.85; the untried action 2 comes last
    assert Q.choose(q, [0, 1, 2], 0.0, rng, None, n, caution=0.5) == 1
    assert Q.choose(q, [0, 1], 0.0, rng, None, n, caution=0.05) == 0     # 0.95 against 0.895
    assert Q.choose(q, [2], 0.0, rng, None, n, caution=0.5) == 2         # the only action


def test_choose_explores_uniformly_with_probability_epsilon():
    q = np.array([0.0, 1.0, 0.0, 0.0], np.float32)    # action 1 is the unique best
    rng = np.random.default_rng(5)
    draws = 4000
    picks = [Q.choose(q, [0, 1, 2, 3], 0.5, rng) for _ in range(draws)]
    counts = np.bincount(picks, minlength=4)
    # P(action 1) = 0.5 + 0.5/4 = 0.625; each other action 0.125
    expected = np.array([0.125, 0.625, 0.125, 0.125]) * draws
    assert stats.chisquare(counts, expected).pvalue > 1e-3
    # epsilon 1: uniform
    every = np.bincount([Q.choose(q, [0, 1, 2, 3], 1.0, rng) for _ in range(draws)], minlength=4)
    assert stats.chisquare(every).pvalue > 1e-3


def test_choose_at_epsilon_zero_draws_only_to_break_ties():
    q = np.array([0.0, 1.0, 0.0], np.float32)
    rng = np.random.default_rng(9)
    before = rng.bit_generator.state
    assert Q.choose(q, [0, 1, 2], 0.0, rng) == 1
    assert rng.bit_generator.state == before        # a unique best: nothing drawn
    Q.choose(np.zeros(3, np.float32), [0, 1, 2], 0.0, rng)
    assert rng.bit_generator.state != before        # a tie: one draw


def test_q_update_defaults_and_its_refusal():
    q = np.zeros((1, 2), np.float32)
    q[0, 1] = 2.0
    Q.q_update(q, 0, 1, -1.0, 3.0)                   # α 0.5, γ 0.8, the standard rule
    assert q[0, 1] == pytest.approx(2 + 0.5 * (-1 + 0.8 * 3 - 2))
    with pytest.raises(ValueError) as err:
        Q.q_update(q, 0, 1, 0.0, 1.0, rule="mc")
    assert str(err.value) == "update rule 'mc': with a next state use 'standard' or 'seed'"
    assert q[0, 1] == pytest.approx(1.7)            # unchanged by the refusal


def test_monte_carlo_episodes_follow_one_another():
    lr = learner(rule="mc", alpha=0.5, gamma=1.0, rewards="outcome")
    t = lr.tables
    for won, value in ((True, 20.0), (False, 20.0 + 0.5 * (-40 - 20))):
        lr.act(Q.Decision(Q.LEAD, 6, [1], None, ()))
        lr.act(Q.Decision(Q.LEAD, 8, [1], None, ()))
        lr.finish(won=won)
        assert t.lead[6, 1] == pytest.approx(value) and lr.episode == [] and lr.pending is None
