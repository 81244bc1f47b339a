"""`ThresholdBidder` against its definition (the survivors of
`make mutation MODULE=agents/threshold_bidder`): which score ``auto`` picks, the defaults it
keeps, the bid by level against the current bid (the fallback when an observation lists no
bids), its explanation, the wrapped player's seed and explanation, the bounded score memo."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.agents import threshold_bidder as tb
from ddzlab.agents.threshold_bidder import ThresholdBidder
from ddzlab.deals import generate_deals
from ddzlab.game import Game


class Decision:
    """Decision value = number of 2s and jokers (the model's other methods must be ignored)."""

    def decision_function(self, X):
        return np.array([h.count("2") + h.count("B") + h.count("R") for h in X["hand"]], float)

    def predict_proba(self, X):
        raise AssertionError("auto must use the decision value")


class Proba:
    def predict_proba(self, X):
        p = np.array([h.count("2") / 4 for h in X["hand"]])
        return np.column_stack([1 - p, p])

    def predict(self, X):
        raise AssertionError("auto must use the probability")


class Predict:
    def predict(self, X):
        return [h.count("A") for h in X["hand"]]


HAND = "3456789TJQKA2AA22"          # three 2s, three aces, no joker


@pytest.mark.parametrize("model, score", [(Decision(), 3.0), (Proba(), 0.75), (Predict(), 3.0)])
def test_auto_scores_by_decision_then_probability_then_prediction(model, score):
    assert ThresholdBidder(model).score(HAND) == score


def test_an_unknown_score_kind_and_bad_thresholds_are_named():
    with pytest.raises(ValueError, match=r"^score='logit'; use auto, decision, proba or predict$"):
        ThresholdBidder(Decision(), score="logit")
    with pytest.raises(ValueError, match=r"^thresholds must be three non-decreasing numbers, got \(2, 1, 3\)$"):
        ThresholdBidder(Decision(), thresholds=(2, 1, 3))


def test_the_bidder_keeps_its_model_settings_and_name():
    model = Decision()
    b = ThresholdBidder(model, thresholds=(1, 2, 3))
    assert b.model is model and b.score_kind == "auto" and b.thresholds == (1.0, 2.0, 3.0)
    assert b.name == "threshold(1.0, 2.0, 3.0)"
    assert ThresholdBidder(model, name="mine").name == "mine"


def test_the_wrapped_player_gets_the_seed_and_its_explanation_is_passed_on():
    game = Game(generate_deals(1, seed=4)[0], landlord=0)
    obs = game.observation(0)
    b = ThresholdBidder(Decision(), play_agent="random", seed=3)
    ref = make_agent("random", seed=3)
    assert [b.play(obs) for _ in range(8)] == [ref.play(obs) for _ in range(8)]
    g = ThresholdBidder(Decision(), play_agent="greedy")
    greedy = make_agent("greedy")
    assert g.play(obs) == greedy.play(obs)
    assert g.last_eval == greedy.last_eval and g.last_eval is not None


@pytest.mark.parametrize("level", [1, 2, 3])
def test_an_observation_without_legal_bids_falls_back_to_every_bid(level):
    """A hand worth ``level`` bids it at the start of an auction even when the observation
    lists no legal bids (the fallback is every bid, 0-3); never its level at or below the
    current bid."""
    thresholds = [-1e9] * level + [1e9] * (3 - level)
    b = ThresholdBidder(Decision(), thresholds=thresholds)
    obs = Game(generate_deals(1, seed=0)[0]).observation(0)
    bare = dataclasses.replace(obs, legal_bids=())
    assert b.bid(bare) == level
    assert b.bid(dataclasses.replace(bare, bid=level)) == 0
    assert b.bid(dataclasses.replace(bare, bid=level - 1)) == level
    if level < 3:
        assert b.bid(dataclasses.replace(bare, bid=level + 1)) == 0


def test_a_bid_is_explained_by_its_score_to_four_places_and_its_level():
    class Thirds(Decision):
        def decision_function(self, X):
            return super().decision_function(X) / 3 + 1 / 7
    b = ThresholdBidder(Thirds(), thresholds=(0.5, 1.0, 1.2))
    game = Game(generate_deals(1, seed=0)[0], first_bidder=1)    # seat 1 holds 2 2 2 and B
    obs = game.observation(1)
    b.bid(obs)
    score = b.score(obs.hand)
    assert score != round(score, 4) and score > 1 / 7        # the hand holds a 2 or a joker
    assert score != b.score("")
    assert b.last_eval == {"score": round(score, 4), "level": b.level(obs.hand)}


def test_the_score_memo_is_bounded(monkeypatch):
    """The memo holds at most `SCORE_CACHE` hands, then starts again."""
    monkeypatch.setattr(tb, "SCORE_CACHE", 3)
    b = ThresholdBidder(Decision())
    hands = ["3456789TJQKA2AA22", "3456789TJQKA2AA2B", "3456789TJQKA2AA2R", "3456789TJQKA2AABR"]
    for n, hand in enumerate(hands[:3], start=1):
        b.score(hand)
        assert len(b._cache) == n
    b.score(hands[0])                          # memoised: no new entry
    assert len(b._cache) == 3
    b.score(hands[3])                          # a fourth hand: the memo starts again
    assert len(b._cache) == 1 and b.score(hands[3]) == 3.0
