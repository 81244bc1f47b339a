"""Bidding agents for the 叫分 phase: a score per hand, thresholds map it to a bid of 1–3.

`ThresholdBidder` conforms to the `ddzlab.agents.Agent` protocol: ``bid(obs)`` reads only the
seat's own 17 cards and the current bid; ``play(obs)`` is delegated to a wrapped play agent
(any `ddzlab.agents` spec), so bidding policy and card play can be varied independently.

The score is a fitted model's decision value (SVM, logistic regression), its probability of
"call", or a regressor's predicted landlord win rate (`make_win_rate_model`). With
thresholds ``(t1, t2, t3)`` the bidder's level is the highest ``b`` with ``score >= t_b``;
it bids that level when it is above the current bid, and passes otherwise.

>>> from ddzlab.bidding.data import load_calls
>>> from ddzlab.bidding.models import make_bidder
>>> df = load_calls()
>>> svm = make_bidder("linear_svc", "seed", C=0.01).fit(df, df.label)
>>> bidder = ThresholdBidder(svm, thresholds=(0.0, 1.0, 2.0))
>>> [bidder.level(h) for h in ("3456789TJQKA2BR22", "334455667899TJQK3")]
[3, 0]
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np
import pandas as pd

from ..agents import make_agent, play_game, register_agent
from ..arena import game_seed
from ..cards import Hand, as_hand
from ..deals import SeedLike, generate_deals
from ..game import Game, Observation
from ..moves import Move
from .data import hands_frame
from .simulate import DEFAULT_AGENT

__all__ = ["ThresholdBidder", "seed_svm", "bidding_match", "make_win_rate_model"]


def make_win_rate_model(features: Union[str, Sequence] = "shape", random_state: int = 0):
    """A regressor Pipeline (features → z-score → gradient boosting) for simulated win rates.

    Plain (single-threaded) gradient boosting: a bidder scores one hand at a time, where the
    OpenMP histogram version spends more time starting threads than predicting."""
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from .features import make_features
    return Pipeline([("features", make_features(features)), ("scale", StandardScaler()),
                     ("clf", GradientBoostingRegressor(max_depth=3, learning_rate=0.05,
                                                      n_estimators=200, subsample=0.8,
                                                      random_state=random_state))])


@lru_cache(maxsize=1)
def seed_svm(C: float = 0.01):
    """The du-guai seed's bidder (three features, z-scored LinearSVC) fitted on call.csv."""
    from .data import load_calls
    from .models import make_bidder
    df = load_calls()
    return make_bidder("linear_svc", "seed", C=C).fit(df, df.label)


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
                 score: str = "auto", play_agent: Any = DEFAULT_AGENT, seed: SeedLike = None,
                 name: Optional[str] = None) -> None:
        if model is None:
            model = seed_svm()
        elif isinstance(model, (str, Path)):
            from .models import load_bidder
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
        """The model's score of one hand (memoised: a seat scores its hand once per deal)."""
        h = as_hand(hand)
        s = self._cache.get(h.bits)
        if s is None:
            s = float(self._score(hands_frame([h]))[0])
            if len(self._cache) > 10_000:
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
        self.last_eval = {"score": round(self.score(obs.hand), 4), "level": lvl}
        return lvl if lvl > obs.bid and lvl in legal else 0

    def play(self, obs: Observation) -> Move:
        move = self.player.play(obs)
        self.last_eval = getattr(self.player, "last_eval", None)
        return move


def bidding_match(policy: Any, baseline: Any, n_deals: int = 100, seed: int = 0,
                  progress: bool = False) -> pd.DataFrame:
    """Full games with bidding: ``policy`` in one seat, ``baseline`` in the two others.

    Every deal is played three times, the tested policy sitting in each seat in turn (seat 0
    always bids first), so positions and cards are balanced. Specs are `make_agent` specs
    or factories ``f(seed) -> agent``. One row per game: the policy's seat, whether it
    became landlord, the winning bid, whether it won, its points and redeals.
    """
    deals = generate_deals(n_deals, seed=seed)
    rows = []
    it: Any = enumerate(deals)
    if progress:
        from tqdm.auto import tqdm
        it = tqdm(it, total=n_deals, desc="bidding match", unit="deal")
    for i, deal in it:
        for seat in range(3):
            agents = [make_agent(policy if s == seat else baseline, seed=game_seed(seed, i, seat, s))
                      for s in range(3)]
            game = play_game(Game(deal, seed=game_seed(seed, i, seat, 9)), agents)
            landlord = game.landlord == seat
            rows.append((i, seat, landlord, game.bid, game.landlord_won == landlord,
                         game.scores[seat], game.redeals))
    return pd.DataFrame(rows, columns=["deal", "seat", "landlord", "bid", "won", "points",
                                       "redeals"])
