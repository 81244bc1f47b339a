"""Compiled likelihood of the observed plays under the greedy agent, for the policy guesser.

`ddzlab.determinize.PolicyGuesser` weights each candidate deal by the probability that the
modelled seats' plays were made, had the hidden cards been dealt so: each modelled play
counts ``1 - eps`` when the greedy agent (`ddzlab.agents.greedy.GreedyAgent`, bombs when the
last player holds <= 4 cards) would have made it, else ``eps / (n - 1)`` of the ``n`` legal
moves, and 1 when it was forced. In Python every candidate replays the game with `Game`
objects and a greedy decision per play (about a millisecond a candidate); here the replay is
the core's state array and `greedy_index` (microseconds). The sums are the same floating
point operations in the same order as `PolicyGuesser.log_likelihood`, so the values are
equal (tests/search/test_compiled_guessing.py compares them on random positions). Under the
wildcard rules greedy's ties go to the first move in the core's order (docs/core.md), so the
values equal the Python replay's with greedy choosing from the core's lists.

`greedy_log_likelihoods` is the entry point (Python, once per pool); `_replay` the kernel.
`PosteriorGuesser` samples the same posterior by Metropolis chains run in a kernel
(`_mcmc`), where importance resampling degenerates.
"""
from __future__ import annotations

import math
from typing import Mapping, Optional, Sequence

import numpy as np
from numba import njit

from ..determinize import (DeterminizeError, UniformGuesser, hidden_sizes, known_cards, modelled_seats,
                           pool_key, start_of_play)
from ..game import Observation
from ..moves.compiled import MAX_MOVES, SCRATCH, core_table, encode, meta_kind
from .policies import greedy_index
from .state import S_HAND, from_game, legal, play
from .tree import seed


@njit(cache=True)
def _log_likelihood(t, st0, seats, row, hist_cards, hist_meta, scored, eps, st, oc, om, sc):
    """The log-likelihood of the scored plays from ``st0`` with the seats' start hands ``row``."""
    for i in range(st0.shape[0]):
        st[i] = st0[i]
    for j in range(seats.shape[0]):
        st[S_HAND + seats[j]] = row[j]
    total = 0.0
    hit = math.log(1 - eps)
    for i in range(hist_cards.shape[0]):
        if scored[i]:
            n = legal(t, st, oc, om, sc)
            if n > 1:
                g = greedy_index(st, oc, om, n)
                if oc[g] == hist_cards[i] and meta_kind(om[g]) == meta_kind(hist_meta[i]):
                    total += hit
                else:
                    total += math.log(eps / (n - 1))
        play(st, hist_cards[i], hist_meta[i])
    return total


@njit(cache=True)
def _replay(t, st0, seats, hands, hist_cards, hist_meta, scored, eps, out):
    """``out[k]``: the log-likelihood of the scored plays with the start hands ``hands[k]``."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    st = np.empty_like(st0)
    for k in range(hands.shape[0]):
        out[k] = _log_likelihood(t, st0, seats, hands[k], hist_cards, hist_meta, scored, eps, st, oc, om, sc)


@njit(cache=True)
def _card(bits, size):
    """The slot of a card drawn uniformly from the packed ``bits`` (``size`` cards; slot 15 is
    the flower card F)."""
    want = int(np.random.random() * size)
    for r in range(16):
        n = (bits >> (4 * r)) & 15
        if want < n:
            return r
        want -= n
    return -1


@njit(cache=True)
def _mcmc(t, st0, seats, fixed, owner, starts, sizes, hist_cards, hist_meta, scored, eps, burn, thin, out):
    """Metropolis chains over the hidden cards; ``out`` gets each chain's states after
    ``burn`` steps, every ``thin`` steps (rows: hidden cards per holder). ``starts``: one
    starting deal per chain; ``fixed[j]``: seat j's cards not guessed (played, known, or
    the observer's hand); ``owner[h]``: the column of holder h in ``seats`` (-1: no seat).
    A step swaps a card drawn uniformly from one holder with one drawn from another: a
    symmetric proposal on physical cards, whose uniform prior is the uniform guesser's, so
    a swap is accepted with probability min(1, L'/L). Returns the steps that changed the
    deal (a swap of two cards of one rank changes nothing and is not counted)."""
    oc = np.empty(MAX_MOVES, dtype=np.int64)
    om = np.empty(MAX_MOVES, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    st = np.empty_like(st0)
    nh = sizes.shape[0]
    chains = starts.shape[0]
    per = out.shape[0] // chains
    live = np.zeros(nh, dtype=np.int64)
    k = 0
    for h in range(nh):
        if sizes[h] > 0:
            live[k] = h
            k += 1
    row = np.empty(seats.shape[0], dtype=np.int64)
    x = np.empty(nh, dtype=np.int64)
    accepted = 0
    o = 0
    for c in range(chains):
        for h in range(nh):
            x[h] = starts[c, h]
        for j in range(seats.shape[0]):
            row[j] = fixed[j]
        for h in range(nh):
            if owner[h] >= 0:
                row[owner[h]] += x[h]
        ll = _log_likelihood(t, st0, seats, row, hist_cards, hist_meta, scored, eps, st, oc, om, sc)
        for step in range(burn + per * thin):
            if k >= 2:
                i = int(np.random.random() * k)
                j = int(np.random.random() * (k - 1))
                if j >= i:
                    j += 1
                a, b = live[i], live[j]
                ra, rb = _card(x[a], sizes[a]), _card(x[b], sizes[b])
                if ra != rb:
                    move = (1 << (4 * rb)) - (1 << (4 * ra))
                    if owner[a] >= 0:
                        row[owner[a]] += move
                    if owner[b] >= 0:
                        row[owner[b]] -= move
                    ll2 = _log_likelihood(t, st0, seats, row, hist_cards, hist_meta, scored, eps, st, oc, om, sc)
                    if math.log(np.random.random()) < ll2 - ll:
                        x[a] += move
                        x[b] -= move
                        ll = ll2
                        accepted += 1
                    else:
                        if owner[a] >= 0:
                            row[owner[a]] -= move
                        if owner[b] >= 0:
                            row[owner[b]] += move
            if step >= burn and (step - burn) % thin == thin - 1:
                for h in range(nh):
                    out[o, h] = x[h]
                o += 1
    return accepted


def greedy_log_likelihoods(obs: Observation, deals: Sequence[Mapping[int, int]], scored: set[int],
                           eps: float) -> np.ndarray:
    """The log-likelihood of the plays of the ``scored`` seats in ``obs.history`` under the
    greedy agent, for each candidate deal (hidden cards per holder, as a guesser deals them)."""
    st0 = from_game(start_of_play(obs, deals[0]))
    known = known_cards(obs)
    seats = np.array([s for s in range(obs.players)], dtype=np.int64)
    mine = obs.hand.bits + obs.played_bits[obs.seat]
    hands = np.array([[mine if s == obs.seat else d[s] + known.get(s, 0) + obs.played_bits[s] for s in seats]
                      for d in deals], dtype=np.int64)
    out = np.empty(len(deals), dtype=np.float64)
    _replay(core_table(obs.rules), st0, seats, hands, *_history(obs, scored), float(eps), out)
    return out


def _history(obs: Observation, scored: set[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The plays of ``obs.history`` as kernel arrays: cards, meta, and whether each is scored."""
    cards = np.array([encode(m)[0] for _, m in obs.history], dtype=np.int64)
    meta = np.array([encode(m)[1] for _, m in obs.history], dtype=np.int64)
    flags = np.array([s in scored for s, _ in obs.history], dtype=np.bool_)
    return cards, meta, flags


class PosteriorGuesser:
    """The policy guesser's posterior, sampled by Metropolis chains (``mcmcN`` guessers).

    The target is `ddzlab.determinize.PolicyGuesser`'s: the uniform prior over the hidden
    cards times the likelihood of the modelled seats' plays under the greedy agent (``eps``
    for a play it would not have made; the partner's plays skipped unless ``partner="same"``).
    Importance resampling from the prior is often left with a few of its candidates (the
    likelihood is far narrower than the prior: `PolicyGuesser.ess` is often a small fraction
    of the pool; notebook 05's accuracy panels report it per decision), so this guesser walks
    instead: ``chains`` chains start from uniform deals, each proposes swapping
    one hidden card of a holder with one of another and accepts with probability min(1, L'/L),
    and after ``burn`` steps keeps every ``thin``-th state, ``samples`` states in all. Each
    `guess` draws one of them; the compiled search draws its worlds from the same pool.
    ``ess`` is the effective sample size of the pool as a distribution over distinct deals,
    ``(Σc)² / Σc²`` of their counts (the importance pool's formula when its deals differ);
    ``acceptance``: the share of the chains' steps that moved to another deal (a step that
    draws two cards of one rank, or has a single holder to draw from, changes nothing and
    counts as not moved).
    """

    name = "mcmc"

    def __init__(self, samples: int = 64, chains: int = 4, burn: int = 100, thin: int = 4, eps: float = 0.1,
                 partner: str = "skip") -> None:
        if samples < chains or samples % chains:
            raise DeterminizeError(f"samples={samples} must be a positive multiple of chains={chains}")
        if burn < 0 or thin < 1:
            raise DeterminizeError(f"burn={burn} must be >= 0 and thin={thin} >= 1")
        if not 0 < eps < 1:
            raise DeterminizeError(f"eps={eps} must lie strictly between 0 and 1")
        if partner not in ("skip", "same"):
            raise DeterminizeError(f"partner={partner!r}: 'skip' or 'same'")
        self.samples, self.chains, self.burn, self.thin, self.eps, self.partner = \
            samples, chains, burn, thin, eps, partner
        self.ess = float("nan")
        self.acceptance = float("nan")
        self.ess_log: list[float] = []
        self._key: Optional[tuple] = None
        self._pool: list[dict[int, int]] = []
        self._weights = np.ones(1)

    def scored_seats(self, obs: Observation) -> set[int]:
        """The seats whose plays the likelihood scores (`PolicyGuesser.scored_seats`)."""
        return modelled_seats(obs, self.partner == "same")

    def pool(self, obs: Observation, rng: np.random.Generator) -> tuple[list[dict[int, int]], np.ndarray]:
        """The sampled deals of ``obs`` and their (equal) weights, built on the first call for
        an observation from ``rng``, then reused."""
        key = pool_key(obs)
        if key != self._key:
            sizes = hidden_sizes(obs)
            holders = list(sizes)
            base = UniformGuesser()
            starts = [base.guess(obs, rng) for _ in range(self.chains)]
            known = known_cards(obs)
            seats = np.arange(obs.players, dtype=np.int64)
            fixed = np.array([obs.hand.bits + obs.played_bits[s] if s == obs.seat
                              else known.get(s, 0) + obs.played_bits[s] for s in range(obs.players)], dtype=np.int64)
            owner = np.array([h if h >= 0 else -1 for h in holders], dtype=np.int64)
            scored = self.scored_seats(obs)
            out = np.zeros((self.samples, len(holders)), dtype=np.int64)
            seed(int(rng.integers(2**62)))
            accepted = _mcmc(core_table(obs.rules), from_game(start_of_play(obs, starts[0])), seats, fixed, owner,
                             np.array([[d[h] for h in holders] for d in starts], dtype=np.int64),
                             np.array([sizes[h] for h in holders], dtype=np.int64),
                             *_history(obs, scored), float(self.eps), self.burn, self.thin, out)
            steps = self.chains * (self.burn + self.samples // self.chains * self.thin)
            self.acceptance = accepted / steps
            _, counts = np.unique(out, axis=0, return_counts=True)
            self.ess = float(counts.sum() ** 2 / np.sum(counts.astype(float) ** 2))
            self.ess_log.append(self.ess)
            self._key = key
            self._pool = [{h: int(v) for h, v in zip(holders, row)} for row in out]
            self._weights = np.full(self.samples, 1.0 / self.samples)
        return self._pool, self._weights

    def guess(self, obs: Observation, rng: np.random.Generator) -> dict[int, int]:
        pool, _ = self.pool(obs, rng)
        return dict(pool[int(rng.integers(len(pool)))])


__all__ = ["greedy_log_likelihoods", "PosteriorGuesser"]
