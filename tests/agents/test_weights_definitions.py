"""`ddzlab.agents.weights` against its docstrings, at the edges the random games miss
(the survivors of a mutation sample).

Each expected value is worked out from the definitions: a weight's range and message, an
explanation's text and ``last_eval``, a candidate's value (the gain of hand power, the
control cost only when following early, pass 0, the empty hand's power 0), a bid's
``last_eval``, and the boundaries of the gatekeeper, split-vs-two, feed-partner and bomb rules
on positions built for them (`tests.test_agent_weights.position`).
"""
from __future__ import annotations

import dataclasses

import pytest

from ddzlab.agents.weights import (Explanation, RuleWeights, WeightsAgent, WeightsError, check_weight,
                                   explanation_eval)
from ddzlab.analysis.power import SEED_POWER, PowerSolver
from ddzlab.cards import Hand
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves import PASS, detect
from ddzlab.rules import STANDARD
from test_weights import position


def explain(obs, weights: RuleWeights = RuleWeights(), **options):
    return WeightsAgent(weights).explain(obs, **options)


# -- weights --------------------------------------------------------------------------------
@pytest.mark.parametrize("name,value,message", [
    ("gate_ranks", (0, 15), "weight gate_ranks = 15: outside [0, 14]"),
    ("gate_ranks", (-1, 3), "weight gate_ranks = -1: outside [0, 14]"),
    ("follow_threshold", "x", "weight follow_threshold = 'x': expected a number"),
    ("high_cost", 2e6, "weight high_cost = 2000000.0: outside [-1e+06, 1e+06]"),
])
def test_a_weight_outside_its_range_is_refused_by_name(name, value, message):
    with pytest.raises(WeightsError) as err:
        check_weight(name, value)
    assert str(err.value) == message


def test_ranges_of_the_pair_weights():
    assert check_weight("gate_ranks", [0, 14]) == (0, 14)
    assert check_weight("bid_thresholds", [-5e5, 20.5, 9e5]) == (-5e5, 20.5, 9e5)   # not ranks


# -- explanations ---------------------------------------------------------------------------
def test_an_explanation_reads_best_first_and_its_eval_rounds_to_a_tenth():
    values = [(detect("3"), 1.44), (detect("55"), 12.3456), (PASS, 0.0), (detect("KK"), -7.26)]
    ex = Explanation(detect("55"), "lead_power", values)
    assert str(ex) == "55 by lead_power (55:12, 3:1, pass:0, KK:-7)"
    assert explanation_eval(ex) == {"rule": "lead_power", "value": 12.3,
                                    "top": {"55": 12.3, "3": 1.4, "pass": 0.0}}
    assert explanation_eval(ex, top=1) == {"rule": "lead_power", "value": 12.3, "top": {"55": 12.3}}
    assert explanation_eval(Explanation(detect("A"), "bomb")) == {"rule": "bomb"}    # nothing evaluated


# -- values ---------------------------------------------------------------------------------
def test_values_when_leading_are_the_gain_of_hand_power_without_a_control_cost():
    obs = position("22", 0, (2, 17, 17))
    solver = PowerSolver(Hand("22").bits, STANDARD, SEED_POWER)
    whole = solver.power(Hand("22").bits)
    values = dict(explain(obs, full=True).values)
    # one 2 spent while leading: no high-card cost; the whole hand: the empty hand's power is 0
    assert values[detect("2")] == pytest.approx(solver.power(Hand("2").bits) - whole, abs=1e-9)
    assert values[detect("22")] == pytest.approx(-whole, abs=1e-9)


def test_pass_is_worth_zero_and_the_control_cost_applies_only_early():
    late = position("2K", 0, (2, 5, 17), "Q", 1)           # an enemy holds 5 <= 8 cards: not early
    early = position("2K", 0, (2, 17, 17), "Q", 1)         # every enemy above 8 cards: early
    solver = PowerSolver(Hand("2K").bits, STANDARD, SEED_POWER)
    gain = solver.power(Hand("K").bits) - solver.power(Hand("2K").bits)      # playing the 2
    late_values = dict(explain(late, full=True).values)
    early_values = dict(explain(early, full=True).values)
    assert late_values[PASS] == 0.0 and early_values[PASS] == 0.0
    assert late_values[detect("2")] == pytest.approx(gain, abs=1e-9)
    assert early_values[detect("2")] == pytest.approx(gain - RuleWeights().high_cost, abs=1e-9)


def test_a_bid_explains_the_power_to_a_tenth_and_the_bid_the_hand_is_worth():
    for deal in generate_deals(20, seed=5):
        obs = Game(deal).observation(0)
        power = PowerSolver(obs.hand.bits, STANDARD, SEED_POWER).power(obs.hand.bits)
        if round(power, 1) != round(power, 2):
            break
    agent = WeightsAgent()
    agent.bid(obs)
    worth = sum(power >= t for t in RuleWeights().bid_thresholds)
    assert agent.last_eval == {"power": round(power, 1), "worth": worth}


# -- rule boundaries ------------------------------------------------------------------------
def test_the_gatekeeper_may_play_a_card_at_the_top_gate_rank():
    obs = position("58K9JJ", 2, (15, 10, 6), "4", 1)        # K is rank 10
    at_top = dataclasses.replace(RuleWeights(), gate_ranks=(10, 10))
    ex = explain(obs, at_top)
    assert (ex.rule, str(ex.move)) == ("gatekeeper", "K")
    above = explain(obs, dataclasses.replace(RuleWeights(), gate_ranks=(11, 11)))    # no A held
    assert above.rule != "gatekeeper"


def test_split_vs_two_answers_an_enemys_pair_with_the_highest_pair():
    obs = position("3355KK", 1, (2, 6, 10), "44", 0)        # the landlord, down to 2 cards, led 44
    ex = explain(obs)
    assert (ex.rule, str(ex.move)) == ("split_vs_two", "KK")


def test_a_farmer_feeds_only_the_partner_who_plays_next():
    before = position("338", 1, (10, 3, 1))                  # seat 2, the partner, plays next
    assert (explain(before).rule, str(explain(before).move)) == ("feed_partner", "3")
    after = position("338", 2, (10, 1, 3))                   # the landlord plays next
    ex = explain(after)
    assert ex.rule != "feed_partner"
    off = WeightsAgent(RuleWeights(), off=("feed_partner",)).explain(after)
    assert (ex.rule, ex.move) == (off.rule, off.move)


def test_the_bomb_rule_bombs_an_enemy_at_exactly_bomb_threat_cards():
    obs = position("555538J", 0, (7, 3, 10), "AA", 1)        # seat 1 holds 3 cards
    at = explain(obs, dataclasses.replace(RuleWeights(), bomb_threat=3))
    assert (at.rule, str(at.move)) == ("bomb", "5555")
    below = explain(obs, dataclasses.replace(RuleWeights(), bomb_threat=2))
    assert below.rule != "bomb"                              # the rest (3, 8, J) is 3 plays


def test_a_threatened_bomb_is_the_smallest_and_the_rocket_last():
    obs = position("44443333BR", 0, (10, 3, 10), "AA", 1)
    ex = explain(obs)
    assert (ex.rule, str(ex.move)) == ("bomb", "3333")
    rocket = explain(position("6666BR", 0, (6, 3, 10), "AA", 1))
    assert (rocket.rule, str(rocket.move)) == ("bomb", "6666")


def test_no_bomb_against_a_far_enemy_when_the_rest_is_many_plays():
    obs = position("5555389JQ", 0, (9, 10, 10), "A", 1)      # the rest, 3 8 9 J Q: 5 plays
    ex = explain(obs)
    assert ex.rule != "bomb" and ex.move == PASS


def test_weights_control_cost_counts_the_twos():
    """The control cost: ``high_cost`` per 2 or joker spent following while it is early
    (every enemy holds more than ``early_cards``). Seat 1 answers the landlord's 33: the
    value of 22 drops by exactly 2 × high_cost when high_cost goes from 0 to 50; the
    value of 44 (no 2, no joker) does not move."""
    import dataclasses

    from ddzlab.agents.weights import RuleWeights, WeightsAgent
    from ddzlab.cards import Hand
    from ddzlab.deals import Deal
    from ddzlab.rules import STANDARD
    seat1 = Hand("3456789TJQKA22BR4")
    rest = Hand.from_bits(STANDARD.deck - seat1.bits).ranks()    # ascending: 3 3 3 4 4 ...
    seat0 = Hand.from_ranks(rest[0::2][:17])                     # holds 33
    seat2 = Hand.from_ranks(rest[1::2][:17])
    left = Hand.from_bits(STANDARD.deck - seat1.bits - seat0.bits - seat2.bits)
    game = Game(Deal((seat0.bits, seat1.bits, seat2.bits), left.bits), landlord=0)
    game.play("33")
    obs = game.observation(1)
    values = {}
    for cost in (0.0, 50.0):
        ex = WeightsAgent(dataclasses.replace(RuleWeights(), high_cost=cost)).explain(obs, full=True)
        values[cost] = {str(m): v for m, v in ex.values}
    assert values[0.0]["22"] - values[50.0]["22"] == pytest.approx(2 * 50.0)
    assert values[0.0]["44"] == pytest.approx(values[50.0]["44"])
