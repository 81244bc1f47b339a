"""Compiled card guessing: deal one seat's unseen cards to the other holders.

`view_of` reads what a guesser needs from an `Observation` (in Python, once per decision):
the state template (everything public plus the observer's hand), the unseen cards, the
holders and how many unknown cards each gets, the cards known for certain (the landlord's
kitty leftovers) and, for the bomb guesser, its candidate ranks. `sample_world` then deals
a world per call: the uniform guesser (`ddzlab.determinize.UniformGuesser`) with ``p = 0``,
the bomb guesser (`BombGuesser`: a bomb's unseen copies go to the opponent who did not play
from it, with probability ``p``) otherwise, the same rule as the Python classes.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..cards import N_RANKS
from ..determinize import REST, hidden_sizes, known_cards
from ..game import Observation
from ..moves.compiled import encode
from .state import (N_STATE, S_BID, S_BOMBS, S_HAND, S_LAST_CARDS, S_LAST_META, S_LAST_SEAT, S_LORD, S_PASSES,
                    S_PLAYED, S_PLAYERS, S_PLAYS, S_SIZE, S_KITTY, S_TO_ACT, S_WINNER, size_of)


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


def view_of(obs: Observation, bombs: bool = False) -> View:
    """The `View` of ``obs`` (``bombs``: also the bomb guesser's candidate ranks)."""
    st = np.zeros(N_STATE, dtype=np.int64)
    players = obs.players
    st[S_HAND + obs.seat] = obs.hand.bits
    plays = [0] * players
    for seat, move in obs.history:
        if not move.is_pass:
            plays[seat] += 1
    for s in range(players):
        st[S_SIZE + s] = obs.cards_left[s]
        st[S_PLAYS + s] = plays[s]
    st[S_TO_ACT] = obs.to_act
    st[S_LORD] = -1 if obs.landlord is None else obs.landlord
    if obs.last_move is None:
        st[S_LAST_META] = -1
    else:
        st[S_LAST_CARDS], st[S_LAST_META] = encode(obs.last_move)
    st[S_LAST_SEAT] = -1 if obs.last_seat is None else obs.last_seat
    passes = 0
    for _, move in reversed(obs.history):
        if not move.is_pass:
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
    sizes = hidden_sizes(obs)
    holders = np.array(list(sizes), dtype=np.int64)
    holders[holders == REST] = -1
    known = np.zeros(3, dtype=np.int64)
    for s, bits in known_cards(obs).items():
        known[s] = bits
    unseen = obs.unseen.bits
    cand: list[tuple[int, int, int]] = []
    others = [s for s in range(players) if s != obs.seat]
    if bombs and len(others) == 2:
        mine = obs.hand.bits + obs.played_bits[obs.seat]
        kitty = obs.kitty.bits if obs.kitty is not None else 0
        for r in range(N_RANKS):
            shift = 4 * r
            left = (unseen >> shift) & 15
            if not left or (obs.rules.deck >> shift) & 15 != 4 or (mine >> shift) & 15 or (kitty >> shift) & 15:
                continue
            by = [s for s in others if (obs.played_bits[s] >> shift) & 15]
            if len(by) == 1:
                cand.append((r, left, others[0] if by[0] == others[1] else others[1]))
    arr = np.array(cand, dtype=np.int64).reshape(-1, 3)
    return View(st, unseen, holders, np.array(list(sizes.values()), dtype=np.int64), known,
                arr[:, 0].copy(), arr[:, 1].copy(), arr[:, 2].copy())


@njit(cache=True)
def sample_world(template, unseen, holders, sizes, known, bomb_ranks, bomb_left, bomb_other, p, st):
    """Deal the unseen cards into ``st`` (a copy of ``template`` is made there first)."""
    for i in range(template.shape[0]):
        st[i] = template[i]
    nh = holders.shape[0]
    forced = np.zeros(nh, dtype=np.int64)
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
    cards = np.empty(size_of(rest), dtype=np.int64)
    k = 0
    for r in range(15):
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


__all__ = ["View", "view_of", "sample_world"]
