"""A template for your own Dou Dizhu agent: copy this file and change `play` (and `bid`).

Try it against the built-in agents from the command line (any path works)::

    ddzlab duel docs/my_agent.py:MostCards greedy --deals 200 --jobs 2
    ddzlab tournament docs/my_agent.py:MostCards greedy rulev1 --deals 200
    ddzlab play --agents docs/my_agent.py:MostCards greedy

or from Python: ``ddzlab.arena.duel("docs/my_agent.py:MostCards", "greedy", 200)``.

An agent is a class with ``bid(obs)`` and ``play(obs)``. ``obs`` (a `ddzlab.Observation`)
is what the agent's seat may see: ``obs.hand`` (its cards), ``obs.role`` ('landlord',
'down' = the farmer after the landlord, 'up' = the farmer before it), ``obs.last_move`` (the
move to beat, None when leading), ``obs.cards_left`` (cards each seat holds),
``obs.history`` (every (seat, move) so far), ``obs.legal_moves`` and ``obs.legal_bids``.
A `ddzlab.Move` has ``kind`` (e.g. ``Kind.PAIR``), ``rank``, ``size`` (number of cards) and
prints as its cards (``str(move) == "334455"``).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ddzlab import Move, Observation


class MostCards:
    """Plays the legal move that sheds the most cards (the lowest among equals); never bids."""

    name = "most_cards"       # how results and game records name it

    def __init__(self, seed=None) -> None:
        # ddzlab passes a seed to every agent whose constructor takes one, derived from the
        # duel's seed and the deal (an int, or a list of ints): use it for any randomness
        # and results are reproducible.
        self.rng = np.random.default_rng(seed)
        self.last_eval: Optional[dict] = None   # optional: why it played what it played

    def bid(self, obs: Observation) -> int:
        """0 to pass, or one of obs.legal_bids (the duels have no bidding: seat 0 is landlord)."""
        self.last_eval = None
        return 0

    def play(self, obs: Observation) -> Move:
        """One of obs.legal_moves (it includes pass when following)."""
        best = max(obs.legal_moves, key=lambda move: (move.size, -move.rank))
        self.last_eval = {"rule": "most cards", "cards": best.size}
        return best
