"""ThresholdBidder: bids 1–3 by thresholds on a bidding model's score of the 17-card hand.

`ThresholdBidder` conforms to the `ddzlab.agents.Agent` protocol: ``bid(obs)`` reads only the
seat's own 17 cards and the current bid; ``play(obs)`` is delegated to a wrapped play agent
(any `ddzlab.agents` spec), so bidding policy and card play can be varied independently.
Registered as ``threshold_bidder``; ``ddzlab train bidder`` (`ddzlab.agents.bidder_train`)
fits a model for it.

The score is a fitted bidding model's decision value (SVM, logistic regression), its
probability of "call", or a regressor's predicted landlord win rate
(`ddzlab.bidding.models.make_win_rate_model`): the models and their features are pure
functions of a hand and live in `ddzlab.bidding`. With thresholds ``(t1, t2, t3)`` the
bidder's level is the highest ``b`` with ``score >= t_b``; it bids that level when it is
above the current bid, and passes otherwise. Matches of bidders in full games are
`ddzlab.matches.bidding_match`.

>>> from ddzlab.bidding.data import load_calls
>>> from ddzlab.bidding.models import make_bidder
>>> df = load_calls()
>>> svm = make_bidder("linear_svc", "seed", C=0.01).fit(df, df.label)
>>> bidder = ThresholdBidder(svm, thresholds=(0.0, 1.0, 2.0))
>>> [bidder.level(h) for h in ("3456789TJQKA2BR22", "334455667899TJQK3")]
[3, 0]
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from ..bidding.data import hands_frame, natural_readings
from ..bidding.models import load_bidder, seed_svm
from ..cards import Hand, as_hand
from ..deals import SeedLike
from ..game import Observation
from ..moves import Move
from .base import DEFAULT_PLAY_AGENT, make_agent, register_agent

__all__ = ["ThresholdBidder", "SCORE_CACHE"]

#: hand scores a bidder memoises before it starts again (a bound, so long runs stay small)
SCORE_CACHE = 10_000


def _score_fn(model: Any, score: str):
    if score == "auto":
        score = ("decision" if hasattr(model, "decision_function") else
                 "proba" if hasattr(model, "predict_proba") else "predict")
    if score == "decision":
        return lambda X: model.decision_function(X)
    if score == "proba":
        return lambda X: model.predict_proba(X)[:, 1]
    if score == "predict":
        return lambda X: np.asarray(model.predict(X), dtype=float)
    raise ValueError(f"score={score!r}; use auto, decision, proba or predict")


@register_agent("threshold_bidder")
class ThresholdBidder:
    """Bid 1–3 by thresholds on a model's score of the 17-card hand; play via a wrapped agent.

    ``model``: a fitted Pipeline, a path to a `save_bidder` file, or None for `seed_svm`.
    ``thresholds``: increasing scores needed for bids 1, 2, 3 (use ``inf`` to never bid a
    level). ``play_agent``: an agent spec for card play (``seed`` is passed on to it).
    """

    def __init__(self, model: Any = None, thresholds: Sequence[float] = (0.0, 0.75, 1.5),
                 score: str = "auto", play_agent: Any = DEFAULT_PLAY_AGENT, seed: SeedLike = None,
                 name: Optional[str] = None) -> None:
        if model is None:
            model = seed_svm()
        elif isinstance(model, (str, Path)):
            model = load_bidder(model)
        t = [float(x) for x in thresholds]
        if len(t) != 3 or any(b < a for a, b in zip(t, t[1:])):
            raise ValueError(f"thresholds must be three non-decreasing numbers, got {thresholds}")
        self.model = model
        self.thresholds = tuple(t)
        self.score_kind = score
        self._score = _score_fn(model, score)
        self.player = make_agent(play_agent, seed=seed)
        self.name = name or f"threshold{self.thresholds}"
        self._cache: dict[int, float] = {}

    def score(self, hand: Union[Hand, str]) -> float:
        """The model's score of one hand (memoised: a seat scores its hand once per deal); a
        hand holding the flower card F scores as its best reading (`natural_readings`)."""
        h = as_hand(hand)
        s = self._cache.get(h.bits)
        if s is None:
            s = float(np.max(self._score(hands_frame(natural_readings(h)))))
            if len(self._cache) >= SCORE_CACHE:
                self._cache.clear()
            self._cache[h.bits] = s
        return s

    def level(self, hand: Union[Hand, str]) -> int:
        """The highest bid (0–3) this hand is worth."""
        s = self.score(hand)
        return sum(1 for t in self.thresholds if s >= t)

    def bid(self, obs: Observation) -> int:
        lvl = self.level(obs.hand)
        legal = obs.legal_bids or (0, 1, 2, 3)
        self.last_eval: Optional[dict] = {"score": round(self.score(obs.hand), 4), "level": lvl}
        return lvl if lvl > obs.bid and lvl in legal else 0

    def play(self, obs: Observation) -> Move:
        move = self.player.play(obs)
        self.last_eval = getattr(self.player, "last_eval", None)
        return move
