"""Compiled card guessing: deal one seat's unseen cards to the other holders.

`view_of` reads what a guesser needs from an `Observation` (in Python, once per decision):
the state template (everything public plus the observer's hand), the unseen cards, the
holders and how many unknown cards each gets, the cards known for certain (the landlord's
kitty leftovers) and what the guesser brings. `sample_world` then deals a world per call,
by the same rule as the Python classes of `ddzlab.determinize`:

* the uniform guesser (`UniformGuesser`): ``p = 0``, nothing else given;
* the bomb guesser (`BombGuesser`): its candidate ranks; a bomb's unseen copies go to the
  opponent who did not play from it, with probability ``p``;
* the noisy oracle (`NoisyOracleGuesser`): the true hidden cards of each holder
  (``truth``) and ``keep`` = q: each card stays with its true holder with probability q,
  the rest are dealt uniformly into the room left;
* a *pool* guesser (any guesser with ``pool(obs, rng) -> (deals, weights)``, e.g.
  `PolicyGuesser`): the candidate deals of the decision (``pool``, one row per deal, one
  column per holder) and their cumulative weights (``cum``); each world is one candidate
  drawn by weight, as the guesser's own ``guess`` draws. The guesser builds the pool in
  Python once per decision; the draws cost nanoseconds.
"""
from __future__ import annotations

from typing import Mapping, NamedTuple, Optional, Sequence

import numpy as np
from numba import njit

from ..determinize import REST, DeterminizeError, bomb_candidates, hidden_sizes, known_cards
from ..game import Observation
from .state import (N_STATE, S_BID, S_BOMBS, S_HAND, S_PASSES,
                    S_PLAYED, S_PLAYERS, S_PLAYS, S_SIZE, S_KITTY, S_WINNER, put_turn, size_of)


class View(NamedTuple):
    """An observation as the sampling kernel reads it (see the module docstring)."""
    template: np.ndarray     # the state with the observer's hand and every public fact
    unseen: int
    holders: np.ndarray      # seat per holder (-1: cards no seat holds)
    sizes: np.ndarray        # unknown cards per holder
    known: np.ndarray        # known cards per seat
    bomb_ranks: np.ndarray   # the bomb guesser's candidates: rank, unseen copies, the other opponent
    bomb_left: np.ndarray
    bomb_other: np.ndarray
    truth: np.ndarray        # the oracle's true hidden cards per holder (zeros: no oracle)
    keep: float              # the oracle's q (0: no oracle)
    pool: np.ndarray         # candidate deals: hidden cards per holder, one row each (no rows: no pool)
    cum: np.ndarray          # their cumulative weights


def view_of(obs: Observation, bombs: bool = False, oracle: Optional[tuple[Mapping[int, int], float]] = None,
            pool: Optional[tuple[Sequence[Mapping[int, int]], Sequence[float]]] = None) -> View:
    """The `View` of ``obs``. ``bombs``: also the bomb guesser's candidate ranks;
    ``oracle``: (true hidden cards per holder, q) of a noisy oracle; ``pool``: (candidate
    deals, weights) of a pool guesser (deals as `ddzlab.determinize.Guesser.guess` returns
    them: packed cards per holder of `hidden_sizes`)."""
    st: list[int] = [0] * N_STATE            # filled as a list, one array at the end (cheaper)
    players = obs.players
    st[S_HAND + obs.seat] = obs.hand.bits
    plays = [0] * players
    for seat, move in obs.history:
        if move.cards:                          # not a pass
            plays[seat] += 1
    for s in range(players):
        st[S_SIZE + s] = obs.cards_left[s]
        st[S_PLAYS + s] = plays[s]
    put_turn(st, obs)
    passes = 0
    for _, move in reversed(obs.history):
        if move.cards:
            break
        passes += 1
    st[S_PASSES] = passes if obs.last_move is not None else 0
    st[S_BOMBS] = obs.bombs
    st[S_WINNER] = -1
    st[S_PLAYERS] = players
    st[S_BID] = obs.bid
    for s in range(players):
        st[S_PLAYED + s] = obs.played_bits[s]
    st[S_KITTY] = 0 if obs.kitty is None else obs.kitty.bits
    template = np.array(st, dtype=np.int64)
    sizes = hidden_sizes(obs)
    holders = np.array(list(sizes), dtype=np.int64)
    holders[holders == REST] = -1
    known = np.zeros(3, dtype=np.int64)
    for s, bits in known_cards(obs).items():
        known[s] = bits
    unseen = obs.unseen.bits
    cand = bomb_candidates(obs) if bombs else []
    arr = np.array(cand, dtype=np.int64).reshape(-1, 3)
    truth, keep = np.zeros(len(holders), dtype=np.int64), 0.0
    if oracle is not None:
        true, keep = oracle
        truth[:] = [true[h] for h in sizes]
    deals = np.zeros((0, len(holders)), dtype=np.int64)
    cum = np.zeros(0, dtype=np.float64)
    if pool is not None:
        candidates, weights = pool
        deals = np.array([[d[h] for h in sizes] for d in candidates], dtype=np.int64).reshape(-1, len(holders))
        cum = np.cumsum(np.asarray(weights, dtype=np.float64))
        if len(cum) != len(deals) or not len(cum) or not cum[-1] > 0:
            raise DeterminizeError("a pool needs one weight per candidate deal, with a positive sum")
    return View(template, unseen, holders, np.array(list(sizes.values()), dtype=np.int64), known,
                arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy(), truth, float(keep), deals, cum)


@njit(cache=True)
def _draw(cum):
    """An index drawn with probability proportional to its weight (``cum``: cumulative
    weights): the first ``i`` with ``cum[i] > u``, as numpy's ``choice`` picks."""
    u = np.random.random() * cum[cum.shape[0] - 1]
    lo, hi = 0, cum.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


_MAX_HOLDERS = 4
#: `sample_world`'s working integers: the holders' forced cards, then one per card of a deck
SAMPLE_SCRATCH = _MAX_HOLDERS + 64


@njit(cache=True)
def sample_world(template, unseen, holders, sizes, known, bomb_ranks, bomb_left, bomb_other, truth, keep,
                 pool, cum, p, st, scratch=None):
    """Deal the unseen cards into ``st`` (a copy of ``template`` is made there first).
    ``scratch``: `SAMPLE_SCRATCH` integers to work in (None: allocated per call), for a
    caller dealing many worlds."""
    if st.shape[0] < template.shape[0]:       # the kernels do not check bounds: a short state would corrupt memory
        raise ValueError("sample_world: the state array is shorter than the template")
    for i in range(template.shape[0]):
        st[i] = template[i]
    nh = holders.shape[0]
    if pool.shape[0] > 0:                                 # a candidate deal, by weight
        k = _draw(cum)
        for h in range(nh):
            if holders[h] >= 0:
                st[S_HAND + holders[h]] = pool[k, h] + known[holders[h]]
        return
    if scratch is None:
        buf = np.empty(SAMPLE_SCRATCH, dtype=np.int64)
    else:
        buf = scratch
    forced = buf[:nh]                                     # cards forced on each holder
    forced[:] = 0
    if keep > 0:                                          # the oracle keeps each true card w.p. keep
        for h in range(nh):
            for r in range(16):                # 16 slots: F is dealt like any card
                n = (truth[h] >> (4 * r)) & 15
                if n:
                    forced[h] += np.random.binomial(n, keep) << (4 * r)
    for b in range(bomb_ranks.shape[0]):
        h = 0
        while holders[h] != bomb_other[b]:
            h += 1
        left = bomb_left[b]
        if np.random.random() < p and sizes[h] - size_of(forced[h]) >= left:
            forced[h] += left << (4 * bomb_ranks[b])
    rest = unseen
    for h in range(nh):
        rest -= forced[h]
    cards = buf[_MAX_HOLDERS:_MAX_HOLDERS + size_of(rest)]    # the rest, one rank per card
    k = 0
    for r in range(16):
        for _ in range((rest >> (4 * r)) & 15):
            cards[k] = r
            k += 1
    np.random.shuffle(cards)
    i = 0
    for h in range(nh):
        bits = forced[h]
        for _ in range(sizes[h] - size_of(forced[h])):
            bits += 1 << (4 * cards[i])
            i += 1
        seat = holders[h]
        if seat >= 0:
            st[S_HAND + seat] = bits + known[seat]


__all__ = ["View", "view_of", "sample_world", "SAMPLE_SCRATCH"]
