"""Bidding matches: full games with bidding (叫分), one policy against a baseline in three seats.

The arena layer's counterpart of `ddzlab.arena.duel` for the whole game: bidding decides the
landlord (so a bidding policy such as `ddzlab.agents.threshold_bidder.ThresholdBidder` is
measured by the points it wins), and seeds come from `ddzlab.arena.game_seed`.

>>> df = bidding_match("threshold_bidder", "smallest", n_deals=1, seed=0)
>>> len(df), list(df.columns)[:4]
(3, ['deal', 'seat', 'landlord', 'bid'])
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from .agents.base import make_agent, play_game
from .arena import game_seed
from .deals import generate_deals
from .game import Game

__all__ = ["bidding_match"]


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
