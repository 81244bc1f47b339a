"""Threshold bidding agents: bid levels, legality in real games, delegation of play."""
import math

import numpy as np
import pytest

from ddzlab.agents import Agent, make_agent, play_game
from ddzlab.agents.threshold_bidder import ThresholdBidder
from ddzlab.bidding.data import load_calls
from ddzlab.bidding.models import make_bidder, save_bidder
from ddzlab.cards import Hand
from ddzlab.matches import bidding_match
from ddzlab.game import Game, Phase
from ddzlab.deals import generate_deals


@pytest.fixture(scope="module")
def svm():
    df = load_calls()
    return make_bidder("linear_svc", "seed", C=0.01).fit(df, df.label)


class FixedScore:
    """A stand-in model whose decision value is the number of jokers + 2s (hand-checkable)."""

    def decision_function(self, X):
        return np.array([h.count("B") + h.count("R") + h.count("2") for h in X["hand"]], float)


def test_levels_follow_thresholds():
    b = ThresholdBidder(FixedScore(), thresholds=(1, 2, 4))
    assert [b.level(h) for h in ("3456789TJQKA33445", "34567789TJQKA3344", "3456789TJQKA23445",
                                 "3456789TJQKA22B34", "3456789TJQK222BR3")] == [0, 0, 1, 2, 3]
    with pytest.raises(ValueError):
        ThresholdBidder(FixedScore(), thresholds=(2, 1, 3))


def test_bid_respects_current_bid():
    game = Game(generate_deals(1, seed=3)[0])
    b = ThresholdBidder(FixedScore(), thresholds=(0, 0, math.inf))   # always worth 2
    obs = game.observation(0)
    assert b.bid(obs) == 2
    game.make_bid(2)
    assert b.bid(game.observation(1)) == 0        # cannot outbid 2 with a level-2 hand
    assert isinstance(b, Agent)


def test_games_with_threshold_bidders_are_legal(svm, tmp_path):
    path = save_bidder(svm, tmp_path / "svm.json")
    for i, deal in enumerate(generate_deals(5, seed=1)):
        agents = [ThresholdBidder(path, thresholds=(-0.5, 0.5, 1.5), seed=i),
                  ThresholdBidder(svm, seed=i), make_agent("smallest")]
        game = play_game(Game(deal), agents)
        assert game.phase is Phase.FINISHED and sum(game.scores) == 0
        assert 1 <= game.bid <= 3


def test_registry_builds_the_seed_bidder():
    agent = make_agent("threshold_bidder", seed=0)
    assert agent.level("3456789TJQKA2BR22") == 3 and agent.level("334455667899TJQK3") == 0


def test_bidding_match_is_reproducible():
    a = bidding_match(ThresholdBidder, "smallest", n_deals=3, seed=5)
    b = bidding_match(ThresholdBidder, "smallest", n_deals=3, seed=5)
    assert a.equals(b) and len(a) == 9 and sorted(set(a.seat)) == [0, 1, 2]
    assert set(a.bid) <= {1, 2, 3}
    assert ((a.points > 0) == a.won).all()          # the seat's side won iff it scored


def test_a_flower_card_scores_as_its_best_reading():
    """Under the wildcard rules the bidding model (which reads natural cards) scores a hand
    holding F as the best of the hands F may stand for, not as the hand without F."""
    from ddzlab.rules import WILDCARD
    bidder = ThresholdBidder()
    hand = Hand("33345678TJQKAA2BF")                  # F as a 3 makes a bomb
    nat = hand.bits - (1 << 60)
    readings = [Hand.from_bits(nat + (1 << (4 * x))) for x in range(12) if nat >> (4 * x) & 15 < 4]
    assert len(readings) == 12 and all(len(h) == 17 for h in readings)
    want = max(ThresholdBidder().score(h) for h in readings)
    assert bidder.score(hand) == pytest.approx(want)
    assert bidder.score(hand) > ThresholdBidder().score(Hand.from_bits(nat)) + 0.5
    assert bidder.level(hand) == 1 and bidder.level(Hand.from_bits(nat)) == 0
    assert WILDCARD.wild_ranks == tuple(range(12))    # the readings above: F as 3..A
