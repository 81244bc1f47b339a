"""Bidding matches: full games with bidding (叫分), one policy against a baseline in three seats.

The arena layer's counterpart of `ddzlab.arena.duel` for the whole game: bidding decides the
landlord (so a bidding policy such as `ddzlab.agents.threshold_bidder.ThresholdBidder` is
measured by the points it wins), and seeds come from `ddzlab.arena.game_seed`.

>>> df = bidding_match("threshold_bidder", "smallest", n_deals=1, seed=0)
>>> len(df), list(df.columns)[:4]
(3, ['deal', 'seat', 'landlord', 'bid'])
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import pandas as pd

from .agents.base import make_agent, play_game
from .arena import game_seed
from .deals import generate_deals
from .game import Game

__all__ = ["bidding_match", "BIDDING_POLICIES", "BIDDING_REFERENCE", "bidding_policy", "bidding_tasks", "play_bidding_deal"]


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
            assert game.scores is not None         # play_game plays to the end
            landlord = game.landlord == seat
            rows.append((i, seat, landlord, game.bid, game.landlord_won == landlord,
                         game.scores[seat], game.redeals))
    return pd.DataFrame(rows, columns=["deal", "seat", "landlord", "bid", "won", "points",
                                       "redeals"])


# --------------------------------------------------------------------------- notebook 01's stored match
#: the reference policy of notebook 01's bidding study (and the two baseline seats' policy)
BIDDING_REFERENCE = "seed SVM, call → bid 1"
#: the bidding policies of notebook 01, by name: thresholds on the seed SVM's decision value
#: (`ddzlab.bidding.models.seed_svm`), on the win rate predicted from the committed simulation
#: labels (``data/simulated/call_hands_greedy_d24.csv.gz``; thresholds at the 60/80/93%
#: quantiles of its predictions), and random bids
BIDDING_POLICIES = {
    BIDDING_REFERENCE: ("svm", (0, float("inf"), float("inf"))),
    "seed SVM, call → bid 3": ("svm", (0, 0, 0)),
    "seed SVM, graded 1/2/3": ("svm", (0, 0.75, 1.5)),
    "cautious SVM (2 / 3 only when strong)": ("svm", (0.75, 1.25, 2.0)),
    "win-rate graded": ("win_rate", None),
    "random bids": ("random", None),
}


@lru_cache(maxsize=None)
def _win_rate_bidder() -> tuple[Any, tuple]:
    """The win-rate regressor fitted on the committed greedy labels, and its thresholds."""
    import numpy as np

    from .bidding.data import load_calls
    from .bidding.models import make_win_rate_model
    from .config import DATA_DIR
    from .labels import attach_labels, read_labels
    labels = read_labels(DATA_DIR / "simulated" / "call_hands_greedy_d24.csv.gz")
    both = attach_labels(load_calls(), labels).dropna(subset=["win_rate"])
    model = make_win_rate_model("shape").fit(both, both.win_rate)
    return model, tuple(float(q) for q in np.quantile(model.predict(both), [0.6, 0.8, 0.93]))


def bidding_policy(name: str) -> Any:
    """A policy of `BIDDING_POLICIES` as an agent spec (a factory ``f(seed)`` or a name)."""
    from .agents.threshold_bidder import ThresholdBidder
    from .bidding.models import seed_svm
    kind, thresholds = BIDDING_POLICIES[name]
    if kind == "random":
        return "random"
    if kind == "svm":
        assert thresholds is not None               # every SVM policy names its thresholds
        return lambda seed: ThresholdBidder(seed_svm(), thresholds, seed=seed)
    model, qs = _win_rate_bidder()
    return lambda seed: ThresholdBidder(model, qs, score="predict", seed=seed)


@lru_cache(maxsize=4)
def _deals(n: int, seed: int) -> list:
    return generate_deals(n, seed=seed)


def bidding_tasks(n_deals: int, seed: int = 1, policies: Any = None) -> list[dict]:
    """The tasks of notebook 01's stored bidding match: every policy on deals ``0..n-1``,
    deal by deal (a partial run holds every policy on a common prefix of the deals)."""
    return [{"policy": p, "deal": i, "seed": seed} for i in range(n_deals)
            for p in (policies or list(BIDDING_POLICIES))]


def play_bidding_deal(task: dict, n_deals: int = 10_000) -> dict:
    """One deal of `bidding_match` (the policy in each seat in turn, against two
    `BIDDING_REFERENCE` bidders; the same seeds as `bidding_match`): per seat, whether
    the policy became landlord, the bid, whether it won, its points."""
    i, seed = int(task["deal"]), int(task["seed"])
    deal = _deals(n_deals, seed)[i]
    policy, baseline = bidding_policy(task["policy"]), bidding_policy(BIDDING_REFERENCE)
    row: dict = {}
    for seat in range(3):
        agents = [make_agent(policy if s == seat else baseline, seed=game_seed(seed, i, seat, s))
                  for s in range(3)]
        game = play_game(Game(deal, seed=game_seed(seed, i, seat, 9)), agents)
        assert game.scores is not None             # play_game plays to the end
        landlord = game.landlord == seat
        row.update({f"landlord_{seat}": int(landlord), f"bid_{seat}": game.bid,
                    f"won_{seat}": int(game.landlord_won == landlord), f"points_{seat}": game.scores[seat]})
    return row
