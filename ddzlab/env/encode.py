"""Observation encodings for learners: DouZero's card-play features, exactly, and a compact one.

Both read one seat's `ddzlab.game.Observation`, so they see only what that seat may see.

**DouZero** (`douzero_obs`): the dict DouZero's ``douzero.env.env.get_obs`` returns for the
same position (Zha et al. 2021, tables 4 and 5), field for field and dtype for dtype, so a
DouZero-style network trains on ddzlab unchanged. A set of cards is DouZero's 54-vector:
for each rank 3..2 four slots, the first ``count`` of them 1 (column-major over a 4×13
matrix), then the black and the red joker. ``x_no_action`` (int8) is, for the landlord: its
hand, the cards in the other two hands, the move to beat, the cards played by landlord_up
and landlord_down, their cards left (one-hot of 17 each) and the bombs played (one-hot of
15) -- 319 values; for a farmer: hand, other hands, the landlord's and the teammate's played
cards, the move to beat, the last action of the landlord and of the teammate (a pass is
zeros), cards left of the landlord (one-hot of 20) and of the teammate (17), bombs -- 430
values. ``z`` (int8, 5×162) holds the last 15 actions, passes included, oldest first,
zero-padded in front, three to a row. ``x_batch`` / ``z_batch`` (float32) repeat them once
per legal action, ``x_batch`` with the action's 54-vector appended. A test compares all of
it with DouZero's own ``get_obs`` on positions of DouZero's ``GameEnv``.

**Compact** (`compact_obs`): ddzlab's own fixed-length float32 vector for any seat in any
phase (bidding included), per-rank counts rather than DouZero's unary slots; seats are
relative (me, the next seat to act after me, the previous one). `COMPACT_LAYOUT` names the
blocks; `COMPACT_SIZE` is their total (170).

>>> from ddzlab.deals import generate_deals
>>> from ddzlab.game import Game
>>> obs = Game(generate_deals(1, seed=0)[0], landlord=0).observation(0)
>>> d = douzero_obs(obs)
>>> d["position"], d["x_no_action"].shape, d["z"].shape, d["x_batch"].shape == (len(obs.legal_moves), 373)
('landlord', (319,), (5, 162), True)
>>> compact_obs(obs).shape
(170,)
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ..cards import N_RANKS
from ..errors import RulesError
from ..game import Observation, Phase
from ..moves import Move

# -- DouZero's features ----------------------------------------------------------------------

_DZ_CACHE: dict[int, np.ndarray] = {}
_POSITIONS = {"landlord": "landlord", "down": "landlord_down", "up": "landlord_up"}
_EMPTY = np.zeros(54, np.int8)


def douzero_cards(bits: int) -> np.ndarray:
    """DouZero's 54-vector of packed cards (``_cards2array``), cached per set of cards."""
    v = _DZ_CACHE.get(bits)
    if v is None:
        v = np.zeros(54, np.int8)
        for r in range(13):
            c = (bits >> (4 * r)) & 15
            v[4 * r:4 * r + c] = 1
        v[52] = (bits >> 52) & 1
        v[53] = (bits >> 56) & 1
        if len(_DZ_CACHE) < 1 << 16:
            _DZ_CACHE[bits] = v
    return v


def _one_hot(n: int, size: int) -> np.ndarray:
    v = np.zeros(size, np.int8)
    v[n - 1] = 1          # as DouZero: index n - 1 (an empty hand would light the last slot)
    return v


#: DouZero's one-hot cards-left vectors, by size then count; its one-hot bomb counts
_ONE_HOT = {size: [_one_hot(n, size) for n in range(size + 1)] for size in (17, 20)}
_BOMBS = [_one_hot(n + 1, 15) for n in range(15)]


def _last_action(history: Sequence, seat: int) -> np.ndarray:
    """The cards of ``seat``'s last action (zeros for a pass or before it acted)."""
    for s, m in reversed(history[-3:]):
        if s == seat:
            return douzero_cards(m.cards)
    return _EMPTY


def douzero_z(obs: Observation) -> np.ndarray:
    """The last 15 actions as DouZero's 5×162 int8 matrix (oldest first, zero-padded)."""
    return douzero_z_parts(obs.history)


def douzero_z_parts(history: Sequence) -> np.ndarray:
    """`douzero_z` from the public history of (seat, move) pairs."""
    rows = [douzero_cards(m.cards) for _, m in history[-15:]]
    if len(rows) < 15:
        rows[:0] = [_EMPTY] * (15 - len(rows))
    return np.concatenate(rows).reshape(5, 162)


def douzero_x(obs: Observation) -> np.ndarray:
    """``x_no_action``: the state features without the action (int8, 319 or 430 values)."""
    if obs.phase is not Phase.PLAY or obs.landlord is None or obs.players != 3:
        raise RulesError("DouZero's features describe a three-player game in play, after the landlord is known")
    return douzero_x_parts(obs.seat, obs.landlord, obs.rules.deck, obs.hand.bits, obs.played_bits, obs.last_move,
                           obs.history, obs.cards_left, obs.bombs)


def douzero_x_parts(seat: int, lord: int, deck: int, hand: int, played: Sequence[int], to_beat: Optional[Move],
                    history: Sequence, left: Sequence[int], bombs: int) -> np.ndarray:
    """`douzero_x` from one seat's hand and the public facts of a three-player game in play."""
    down, up = (lord + 1) % 3, (lord + 2) % 3
    other = deck - hand - played[0] - played[1] - played[2]
    last = _EMPTY if to_beat is None else douzero_cards(to_beat.cards)
    bomb = _BOMBS[bombs]
    parts: tuple[np.ndarray, ...]
    if seat == lord:
        parts = (douzero_cards(hand), douzero_cards(other), last, douzero_cards(played[up]),
                 douzero_cards(played[down]), _ONE_HOT[17][left[up]], _ONE_HOT[17][left[down]], bomb)
    else:
        mate = up if seat == down else down
        parts = (douzero_cards(hand), douzero_cards(other), douzero_cards(played[lord]),
                 douzero_cards(played[mate]), last, _last_action(history, lord), _last_action(history, mate),
                 _ONE_HOT[20][left[lord]], _ONE_HOT[17][left[mate]], bomb)
    return np.concatenate(parts)


def douzero_obs(obs: Observation, actions: Optional[Sequence[Move]] = None) -> dict:
    """DouZero's ``get_obs`` dict for this seat: ``position``, ``x_batch``, ``z_batch``,
    ``legal_actions``, ``x_no_action``, ``z`` (see the module docstring). ``actions``
    defaults to the seat's legal moves, in ddzlab's order."""
    actions = list(obs.legal_moves if actions is None else actions)
    x = douzero_x(obs)
    z = douzero_z(obs)
    n = len(actions)
    x_batch = np.empty((n, x.size + 54), np.float32)
    x_batch[:, :x.size] = x
    for j, m in enumerate(actions):
        x_batch[j, x.size:] = douzero_cards(m.cards)
    return {"position": _POSITIONS[obs.role], "x_batch": x_batch,
            "z_batch": np.repeat(z[np.newaxis].astype(np.float32), n, axis=0),
            "legal_actions": actions, "x_no_action": x, "z": z}


# -- the compact encoding --------------------------------------------------------------------

#: (name, size) of each block of `compact_obs`, in order. Counts are per rank 3..R; seats are
#: relative: me, next (acts after me), previous
COMPACT_LAYOUT: tuple[tuple[str, int], ...] = (
    ("hand", 15),                 # my cards
    ("unseen", 15),               # cards in the other two hands (deck less mine and all played)
    ("kitty", 15),                # the kitty once revealed (zeros before)
    ("played_me", 15), ("played_next", 15), ("played_prev", 15),
    ("last_me", 15), ("last_next", 15), ("last_prev", 15),   # each seat's latest action
    ("to_beat", 15),              # the move to beat (zeros when leading)
    ("passed", 3),                # 1 if that seat's latest action was a pass
    ("cards_left", 3),            # cards left / 20
    ("role", 4),                  # one-hot: landlord, down, up, not yet known (bidding)
    ("landlord", 3),              # one-hot: which relative seat is landlord
    ("bids", 3),                  # each seat's bid: 0 not yet, 1 passed, 1 + bid otherwise (/4)
    ("bid", 1),                   # the current bid / 3
    ("bombs", 1),                 # bombs and rockets played so far / 4
    ("phase", 1),                 # 1 during bidding
    ("leading", 1),               # 1 when this seat may lead anything
)
COMPACT_SIZE = sum(n for _, n in COMPACT_LAYOUT)


_SHIFTS = np.arange(0, 4 * N_RANKS, 4, dtype=np.int64)
#: float32 rank-count rows of the card sets met so far (cleared past 65,536 entries)
_ROWS: dict[int, np.ndarray] = {}


def compact_obs(obs: Observation) -> np.ndarray:
    """ddzlab's compact float32 encoding of one seat's view (`COMPACT_LAYOUT`); three-player games."""
    if obs.players != 3:
        raise RulesError("the compact encoding describes three-player games")
    return compact_parts(obs.seat, obs.rules.deck, obs.hand.bits, obs.played_bits, obs.history,
                         None if obs.kitty is None else obs.kitty.bits, obs.last_move, obs.landlord,
                         obs.cards_left, obs.bids, obs.bid, obs.bombs, obs.phase)


def compact_parts(me: int, deck: int, hand: int, played: Sequence[int], history: Sequence,
                  kitty: Optional[int], to_beat: Optional[Move], landlord: Optional[int], left: Sequence[int],
                  bids: Sequence, bid: int, bombs: int, phase: Phase) -> np.ndarray:
    """`compact_obs` from one seat's hand and the public facts of a three-player game, given
    one by one (what the environments call on a `Game` without building its `Observation`)."""
    nxt, prv = (me + 1) % 3, (me + 2) % 3
    last = [0, 0, 0]
    tail = [0.0] * 20          # passed 3, cards_left 3, role 4, landlord 3, bids 3, bid, bombs, phase, leading
    for s, m in history[-3:]:
        k = (s - me) % 3
        if m.kind:
            last[k] = m.cards
        else:
            tail[k] = 1.0
    tail[3], tail[4], tail[5] = left[me] / 20, left[nxt] / 20, left[prv] / 20
    if landlord is None:
        tail[9] = 1.0
    else:
        tail[6 + (me - landlord) % 3] = 1.0
        tail[10 + (landlord - me) % 3] = 1.0
    for s, b in bids:
        tail[13 + (s - me) % 3] = (1 + b) / 4
    tail[16], tail[17] = bid / 3, bombs / 4
    if phase is Phase.BIDDING:
        tail[18] = 1.0
    elif phase is Phase.PLAY and to_beat is None:
        tail[19] = 1.0
    rows = _ROWS
    if len(rows) > 1 << 16:
        rows.clear()
    parts = []
    for b in (hand, deck - hand - played[0] - played[1] - played[2], kitty or 0, played[me], played[nxt],
              played[prv], last[0], last[1], last[2], 0 if to_beat is None else to_beat.cards):
        r = rows.get(b)
        if r is None:
            r = rows[b] = ((b >> _SHIFTS) & 15).astype(np.float32)
        parts.append(r)
    parts.append(np.array(tail, np.float32))
    return np.concatenate(parts)


__all__ = ["douzero_cards", "douzero_x", "douzero_z", "douzero_obs", "COMPACT_LAYOUT",
           "COMPACT_SIZE", "compact_obs", "compact_parts"]
