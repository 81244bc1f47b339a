"""The duplicate format of Botzone's Dou Dizhu contests for two agents: the six seatings of a
deal, the games played in them, and Botzone's score of a game (docs/rules.md#the-fields-protocols).

**Seatings.** Botzone plays every deal once for each way of seating its three entrants. With
two agents, A and B, the three seats are filled by the six seatings in which both agents sit:
A alone against two B (``ABB``, ``BAB``, ``BBA``) and B alone against two A (``BAA``,
``ABA``, ``AAB``) — the distinct orderings of the entrants (A, B, B) and (A, A, B), each
played once. A seating is written seat by seat, seat 0 the landlord (ddzlab's research
setting: no bidding, seat 0 holds the kitty), then the farmer after it, then the farmer
before it. Over the six games of a deal each agent holds each seat three times and holds one
seat in three games, two seats in the other three; `SEATINGS` ``[2k + 1]`` is ``[2k]`` with
A and B swapped. The first two, ``ABB`` and ``BAA``, are the arena's two games of a deal
(`ddzlab.arena.play_deal`, the same agent seeds), so a duplicate run contains the
``douzero`` protocol's games.

**Score.** `botzone_scores`: the side that goes out gets 2 points a player (the landlord
alone, or each farmer), the other side 0; each seat adds a hundredth of a point for every
move it played by kind (`move_points`); the two farmers then share the mean of their two
scores. An agent's score in a game is the sum over the seats it holds. Bombs do not
multiply anything.

The games are stored one row per game (`ddzlab.experiments.store.DUPLICATE_COLUMNS`): the
seating, the landlord's result, and each seat's move points in hundredths, so the score is
recomputed from the row by `botzone_scores`, never stored.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence

from ..agents.base import AgentSpec, make_agent, play_game
from ..arena import _Timed, game_seed
from ..deals import Deal
from ..errors import DdzError
from ..game import Game
from ..moves.move import Move
from ..rules import Kind, Rules

#: the six seatings of a deal, seat 0 (landlord) first; [2k + 1] is [2k] with A and B swapped
SEATINGS = ("ABB", "BAA", "AAB", "BBA", "ABA", "BAB")
#: points for winning, per player of the winning side
WIN_POINTS = 2
#: the hundredths of a point each kind of move earns the seat that plays it (Botzone's table)
KIND_POINTS = {
    Kind.PASS: 0, Kind.SOLO: 1, Kind.PAIR: 2,
    Kind.TRIO: 4, Kind.TRIO_SOLO: 4, Kind.TRIO_PAIR: 4,
    Kind.SOLO_CHAIN: 6, Kind.PAIR_CHAIN: 6,
    Kind.FOUR_TWO_SOLO: 8, Kind.FOUR_TWO_PAIR: 8,
    Kind.TRIO_CHAIN: 8, Kind.PLANE_SOLO: 8, Kind.PLANE_PAIR: 8,
    Kind.BOMB: 10, Kind.ROCKET: 16,
    Kind.QUAD_CHAIN: 10, Kind.QUAD_CHAIN_SOLO: 10, Kind.QUAD_CHAIN_PAIR: 10,
}
#: a chain of three or more fours earns this instead of 10
LONG_QUAD_CHAIN_POINTS = 20
_QUAD_CHAINS = (Kind.QUAD_CHAIN, Kind.QUAD_CHAIN_SOLO, Kind.QUAD_CHAIN_PAIR)


class DuplicateError(DdzError):
    """Input the duplicate format cannot score: an unknown seating, a move kind Botzone does
    not have, a malformed game result."""


def seat_agents_of(seating: str) -> tuple[str, str, str]:
    """The agent (``"A"`` or ``"B"``) in each seat of ``seating``; `DuplicateError` for a
    seating that is not one of `SEATINGS`."""
    if seating not in SEATINGS:
        raise DuplicateError(f"seating {seating!r} is not one of the duplicate format's {', '.join(SEATINGS)}")
    return (seating[0], seating[1], seating[2])


def move_points(move: Move) -> int:
    """Botzone's reward for playing ``move``, in hundredths of a point (`KIND_POINTS`)."""
    kind = Kind(move.kind)
    if kind not in KIND_POINTS:
        raise DuplicateError(f"a {kind.label} is no move of Botzone's Dou Dizhu; the duplicate format "
                             "scores the standard rules only")
    if kind in _QUAD_CHAINS and move.length >= 3:
        return LONG_QUAD_CHAIN_POINTS
    return KIND_POINTS[kind]


def botzone_scores(landlord_won: bool, points: Sequence[int]) -> tuple[float, float, float]:
    """The three seats' scores of one game (seat 0 the landlord): ``WIN_POINTS`` to each
    player of the winning side, plus each seat's move ``points`` (hundredths of a point,
    `move_points` summed over its moves); the farmers then both get the mean of their two."""
    if isinstance(landlord_won, float) or landlord_won not in (0, 1):
        raise DuplicateError(f"landlord_won is True or False, got {landlord_won!r}")
    try:
        pts = [operator.index(p) for p in points]
    except TypeError:
        pts = []
    if len(pts) != 3 or min(pts) < 0:
        raise DuplicateError(f"a game's move points are three whole numbers >= 0 (one per seat), got {points!r}")
    lord = WIN_POINTS * int(bool(landlord_won)) + pts[0] / 100
    farmer_win = WIN_POINTS * int(not landlord_won)
    farmers = (2 * farmer_win + (pts[1] + pts[2]) / 100) / 2
    return (lord, farmers, farmers)


def agent_scores(seating: str, landlord_won: bool, points: Sequence[int]) -> tuple[float, float]:
    """(A's score, B's score) in one game: each the sum of the `botzone_scores` of its seats."""
    seats = seat_agents_of(seating)
    scores = botzone_scores(landlord_won, points)
    a = sum(s for who, s in zip(seats, scores) if who == "A")
    b = sum(s for who, s in zip(seats, scores) if who == "B")
    return (a, b)


def play_seatings(agent_a: AgentSpec, agent_b: AgentSpec, deal: Deal, index: int, rules: Rules,
                  seed: int = 0) -> list[tuple[Any, ...]]:
    """The six games of deal ``index``, one per `SEATINGS` entry ``k``: rows
    ``(seating, landlord_won, bombs, moves, points0, points1, points2, a_seconds, a_plays,
    b_seconds, b_plays)``. Seat ``s`` of game ``k`` is seeded by
    `ddzlab.arena.game_seed` (``seed``, ``index``, ``k``, ``s``), as the arena seeds its half ``k``."""
    rows = []
    for k, seating in enumerate(SEATINGS):
        clock = [[0.0, 0], [0.0, 0]]            # [seconds, play calls] of A, of B
        agents = []
        for s, who in enumerate(seating):
            spec = agent_a if who == "A" else agent_b
            agents.append(_Timed(make_agent(spec, seed=game_seed(seed, index, k, s)), clock, 0 if who == "A" else 1))
        game = play_game(Game(deal, rules=rules, landlord=0), agents)
        points = [0, 0, 0]
        for seat, move in game.history:
            points[seat] += move_points(move)
        rows.append((seating, int(bool(game.landlord_won)), game.bombs, len(game.history), *points,
                     round(clock[0][0], 6), clock[0][1], round(clock[1][0], 6), clock[1][1]))
    return rows


__all__ = ["SEATINGS", "WIN_POINTS", "KIND_POINTS", "LONG_QUAD_CHAIN_POINTS", "DuplicateError", "seat_agents_of",
           "move_points", "botzone_scores", "agent_scores", "play_seatings"]
