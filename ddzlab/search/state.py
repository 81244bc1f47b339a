"""A game in play as one small ``int64`` array, and the compiled step: legal moves, play, scores.

The search core's worlds are arrays, not `Game` objects, so copying one is a memcpy and a
step costs nanoseconds. The layout (`ddzlab.kernels.STATE`) holds what play needs and no more:
hands, card counts, plays per seat (for spring), the seat to act, the landlord (-1 for a
two-player game), the move to beat (meta -1 when leading), passes in a row, bombs, the
winner (-1 while playing), the number of players, the bid, the cards each seat has played and
the revealed kitty (what `Observation.unseen` reads). `from_game` reads a `Game`
into it; play follows `Game._push` step for step (tests/search/test_compiled.py plays the same
choices in both and compares end states and scores).
"""
from __future__ import annotations

from typing import Any, Union

import numpy as np
from numba import njit

from ..cards import format_bits
from ..errors import OutOfTurnError
from ..game import Game, Phase
from ..kernels import STATE
from ..moves.compiled import T_DECK, decode, encode, follow_moves, is_bomb_kind, lead_moves, meta_kind

# the offsets of `ddzlab.kernels.STATE`, as constants the kernels compile in
S_HAND, S_SIZE, S_PLAYS = STATE.offset("hand"), STATE.offset("size"), STATE.offset("plays")
S_TO_ACT, S_LORD, S_LAST_CARDS = STATE.offset("to_act"), STATE.offset("lord"), STATE.offset("last_cards")
S_LAST_META, S_LAST_SEAT, S_PASSES = STATE.offset("last_meta"), STATE.offset("last_seat"), STATE.offset("passes")
S_BOMBS, S_WINNER, S_PLAYERS = STATE.offset("bombs"), STATE.offset("winner"), STATE.offset("players")
S_BID, S_PLAYED, S_KITTY = STATE.offset("bid"), STATE.offset("played"), STATE.offset("kitty")
N_STATE = STATE.size


def put_turn(st: Union[np.ndarray, list[int]], src) -> None:
    """Write who acts, the landlord and the move to beat (with its seat) of ``src`` (a `Game`
    or an `Observation`: both name them alike) into the state array ``st`` (or a list of its
    values); -1 for none."""
    st[S_TO_ACT] = -1 if src.to_act is None else src.to_act
    st[S_LORD] = -1 if src.landlord is None else src.landlord
    if src.last_move is None:
        st[S_LAST_META] = -1
    else:
        st[S_LAST_CARDS], st[S_LAST_META] = encode(src.last_move)
    st[S_LAST_SEAT] = -1 if src.last_seat is None else src.last_seat


def from_game(game: Game) -> np.ndarray:
    """The state array of a game in play (or finished)."""
    if game.phase is Phase.BIDDING:
        raise OutOfTurnError("the search core plays the card play: finish the bidding first")
    STATE.check("hand", game.players, "one hand per seat")
    st = np.zeros(N_STATE, dtype=np.int64)
    for s in range(game.players):
        st[S_HAND + s] = game.hands[s]
        st[S_SIZE + s] = game.sizes[s]
        st[S_PLAYS + s] = game.plays[s]
        st[S_PLAYED + s] = game.played[s]
    put_turn(st, game)
    st[S_PASSES] = game.passes
    st[S_BOMBS] = game.bombs
    st[S_WINNER] = -1 if game.winner is None else game.winner
    st[S_PLAYERS] = game.players
    st[S_BID] = game.bid
    st[S_KITTY] = 0 if game.kitty is None else game.kitty.bits
    return st


_NIBBLES = 0x0F0F0F0F0F0F0F0F


@njit(cache=True, inline="always")
def size_of(bits):
    """Cards in a packed hand (of at most 16 slots): the slots summed in parallel, pairwise
    into bytes, then the bytes (no slot-by-slot loop in the rollouts' hottest step)."""
    y = (bits & _NIBBLES) + ((bits >> 4) & _NIBBLES)
    y += y >> 8
    y += y >> 16
    y += y >> 32
    return y & 0xFF


@njit(cache=True, inline="always")
def legal(t, st, oc, om, sc):
    """The legal moves of the seat to act (`Game.legal_moves`' list, same order; ``sc``:
    `ddzlab.moves.compiled.scratch`). Inlined where it is called, as `play` is: a call between
    kernels that passes arrays costs about what a rollout step's reply list does
    (benchmarks/README.md, "Where a rollout step's time goes")."""
    hand = st[S_HAND + st[S_TO_ACT]]
    if st[S_LAST_META] < 0:
        return lead_moves(t, hand, oc, om, sc)
    return follow_moves(t, hand, st[S_LAST_CARDS], st[S_LAST_META], oc, om, sc)


@njit(cache=True, inline="always")
def play(st, cards, meta):
    """The seat to act plays (cards, meta), one of its legal moves (`Game.push`)."""
    s = st[S_TO_ACT]
    players = st[S_PLAYERS]
    kind = meta_kind(meta)
    if kind == 0:
        passes = st[S_PASSES] + 1
        if passes == players - 1:             # everyone else passed: the trick is over
            st[S_LAST_META] = -1
            st[S_LAST_CARDS] = 0
            st[S_LAST_SEAT] = -1
            st[S_PASSES] = 0
        else:
            st[S_PASSES] = passes
        st[S_TO_ACT] = (s + 1) % players
        return
    st[S_HAND + s] -= cards
    st[S_PLAYED + s] += cards
    st[S_SIZE + s] -= size_of(cards)
    st[S_PLAYS + s] += 1
    if is_bomb_kind(kind):                  # a soft bomb doubles the stakes too
        st[S_BOMBS] += 1
    st[S_LAST_CARDS] = cards
    st[S_LAST_META] = meta
    st[S_LAST_SEAT] = s
    st[S_PASSES] = 0
    if st[S_SIZE + s] == 0:
        st[S_WINNER] = s
        st[S_TO_ACT] = -1
    else:
        st[S_TO_ACT] = (s + 1) % players


@njit(cache=True)
def unseen(t, st, seat):
    """`Observation.unseen` of ``seat``: the deck less its hand, every card played and the
    revealed kitty cards the landlord still holds (``t``: `ddzlab.moves.compiled.core_table`)."""
    bits = 0
    for r in range(16):                     # 16 slots: the flower card F is slot 15
        bits += t[T_DECK + r] << (4 * r)
    bits -= st[S_HAND + seat]
    for s in range(st[S_PLAYERS]):
        bits -= st[S_PLAYED + s]
    lord, kitty = st[S_LORD], st[S_KITTY]
    if kitty and lord >= 0 and lord != seat:
        played = st[S_PLAYED + lord]
        for r in range(16):
            k = ((kitty >> (4 * r)) & 15) - ((played >> (4 * r)) & 15)
            if k > 0:
                bits -= k << (4 * r)
    return bits


@njit(cache=True)
def side_won(st, seat):
    """Whether ``seat``'s side won the finished game (`ddzlab.agents.mcts.side_won`)."""
    lord = st[S_LORD]
    if lord < 0:
        return st[S_WINNER] == seat
    return (st[S_WINNER] == lord) == (seat == lord)


@njit(cache=True)
def scores(st, out):
    """Points per seat of a finished game into ``out`` (`Game.scores`)."""
    players = st[S_PLAYERS]
    w = st[S_WINNER]
    lord = st[S_LORD]
    if lord < 0:
        unit = 1 << st[S_BOMBS]
        for s in range(players):
            out[s] = unit if s == w else -unit
        return
    if w == lord:
        spring = True
        for s in range(players):
            if s != lord and st[S_PLAYS + s] != 0:
                spring = False
    else:
        spring = st[S_PLAYS + lord] == 1
    unit = st[S_BID] * (1 << st[S_BOMBS]) * (2 if spring else 1)
    sign = 1 if w == lord else -1
    for s in range(players):
        out[s] = sign * (2 * unit if s == lord else -unit)


def describe(st: np.ndarray) -> dict[str, Any]:
    """The fields of a state array by name (`ddzlab.kernels.STATE`), for debugging a kernel:
    the seats' fields for the players only, cards as text, the move to beat as a `Move`
    (None when leading), -1 as None."""
    d: dict[str, Any] = STATE.describe(st.tolist())
    players = int(d["players"])
    for name in ("hand", "size", "plays", "played"):
        d[name] = d[name][:players]
    for name in ("hand", "played"):
        d[name] = [format_bits(b) for b in d[name]]
    d["kitty"] = format_bits(d["kitty"])
    meta, cards = d.pop("last_meta"), d.pop("last_cards")
    d["last_move"] = None if meta < 0 else decode(cards, meta)
    for name in ("to_act", "lord", "last_seat", "winner"):
        if d[name] < 0:
            d[name] = None
    return d


__all__ = ["describe", "from_game", "legal", "play", "unseen", "side_won", "scores", "size_of", "N_STATE"]
