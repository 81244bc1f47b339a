"""Open-hand endgame solver: who wins with perfect play when every hand is known.

Two hands (docs/definitions.md#two-player-mode): the players alternate; the responder beats the last play
or passes, and a pass hands the lead back. Three hands: the landlord (seat ``landlord``)
against two farmers who win together; a trick ends after two passes in a row. The first
player to empty the hand wins (for the farmers, either of them).

The search is an AND-OR depth-first search memoised on (hands, seat to move, play to
beat, seat that made it). It tries a play that empties the hand first, then (leading)
larger plays before smaller ones or (following) the lowest replies before bombs and pass,
and stops at the first winning play — so a won position usually costs one line, a lost
one all replies. Plays come from ``ddzlab.moves``.

Limits: the positions grow exponentially with the cards (three random 8-card
hands took from 100 to 285,000 nodes, 3 s), so a position of more than
`MAX_ENDGAME_CARDS` cards in all is refused up front, and a search stops with
`SearchLimitError` after ``max_nodes`` positions (default `MAX_ENDGAME_NODES`, about
80 MB and 5-10 s).

>>> r = solve_endgame(["33", "4"])      # leading 33 cannot be answered
>>> r.winner, [(s, str(m)) for s, m in r.line]
(0, [(0, '33')])
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional, Sequence, Union

from ..cards import Hand
from ..errors import RulesError
from ..moves import Move, legal_moves
from ..rules import STANDARD, Kind, Rules, get_rules
from ..errors import SearchLimitError
from ._core import check_move, hand_bits, refuse_over

#: the most cards (all hands together) `solve_endgame` accepts
MAX_ENDGAME_CARDS = 30
#: the default node budget of `solve_endgame`
MAX_ENDGAME_NODES = 500_000
#: the positions a tree search may spend on one leaf's exact solve (the MCTS agents' ``exact``)
#: before it plays the rollout instead: about 1 ms compiled (benchmarks/README.md, "The compiled endgame solver")
LEAF_NODES = 2000


@dataclass
class EndgameResult:
    """``winner``: the winning seat (1v1) or side (0 = landlord, 1 = farmers, three
    hands); ``line``: one perfect-play continuation as (seat, play) until someone empties
    the hand (the winning side's plays win against every reply; the losing side's are the
    first in the search order, since all of them lose)."""
    winner: int
    line: list[tuple[int, Move]]
    nodes: int
    seconds: float

    def describe(self) -> str:
        return " ; ".join(f"{s}:{m}" for s, m in self.line)


class _Solver:
    def __init__(self, rules: Rules, n: int, landlord: int, max_nodes: int = MAX_ENDGAME_NODES) -> None:
        self.rules = rules
        self.max_nodes = max_nodes
        self.n = n
        self.landlord = landlord
        self.memo: dict = {}
        self.lead_cache: dict[int, list[Move]] = {}
        self.nodes = 0

    def side(self, seat: int) -> int:
        if self.n == 2:
            return seat
        return 0 if seat == self.landlord else 1

    def options(self, bits: int, last: Optional[Move]) -> list[Move]:
        if last is None:
            got = self.lead_cache.get(bits)
            if got is None:
                got = sorted(legal_moves(Hand.from_bits(bits), self.rules),
                             key=lambda m: (m.cards != bits, -m.size, m.rank))
                self.lead_cache[bits] = got
            return got
        got = legal_moves(Hand.from_bits(bits), self.rules, last)
        got.sort(key=lambda m: (m.cards != bits, m.kind == Kind.PASS, m.is_bomb, m.rank))
        return got

    def step(self, state, seat, last, last_seat, m):
        """The position after ``seat`` plays ``m``."""
        nxt = (seat + 1) % self.n
        if m.kind == Kind.PASS:
            if self.n == 2 or nxt == last_seat:
                return state, nxt, None, nxt           # the trick is over: nxt leads
            return state, nxt, last, last_seat
        new = state[:seat] + (state[seat] - m.cards,) + state[seat + 1:]
        return new, nxt, m, seat

    def wins(self, state: tuple, seat: int, last: Optional[Move], last_seat: int) -> bool:
        """Whether the side of ``seat``, to move, wins with perfect play."""
        key = (state, seat, last, last_seat)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise SearchLimitError(f"the endgame search visited {self.max_nodes:,} positions without "
                                   "an answer: too many cards for an exact solve (max_nodes raises it)")
        me = self.side(seat)
        result = False
        for m in self.options(state[seat], last):
            if self.side_wins_after(state, seat, last, last_seat, m, me):
                result = True
                break
        self.memo[key] = result
        return result

    def side_wins_after(self, state: tuple, seat: int, last: Optional[Move], last_seat: int,
                        move: Move, side: int) -> bool:
        """Whether ``side`` wins with perfect play once ``seat`` has played ``move``."""
        if move.cards == state[seat] and move.kind != Kind.PASS:
            return self.side(seat) == side
        child = self.step(state, seat, last, last_seat, move)
        return self.wins(*child) == (self.side(child[1]) == side)

    def line(self, state, seat, last, last_seat, limit: int = 200) -> list[tuple[int, Move]]:
        """A perfect-play continuation: winners play a winning move, losers their first."""
        out = []
        while limit > 0 and all(state):
            limit -= 1
            me = self.side(seat)
            win = self.wins(state, seat, last, last_seat)
            chosen = None
            for m in self.options(state[seat], last):
                if self.side_wins_after(state, seat, last, last_seat, m, me) == win:
                    chosen = m
                    break
            assert chosen is not None
            out.append((seat, chosen))
            state, seat, last, last_seat = self.step(state, seat, last, last_seat, chosen)
        return out


def solve_endgame(hands: Sequence[Union[Hand, str]], rules: Union[Rules, str] = STANDARD,
                  to_move: int = 0, to_beat: Optional[Move] = None,
                  last_seat: Optional[int] = None, landlord: int = 0,
                  max_nodes: int = MAX_ENDGAME_NODES) -> EndgameResult:
    """Solve an open-hand position of two or three hands.

    ``to_move`` is the seat on turn; ``to_beat`` the play it must beat (None: it leads),
    made by ``last_seat`` (default: the seat before ``to_move``). Raises `RulesError`
    (a ValueError) for hands that do not fit the deck together, or a play to beat from
    another rule set, and `SearchLimitError` (also a ValueError) for more than
    `MAX_ENDGAME_CARDS` cards in all or a search past ``max_nodes`` positions.
    """
    rules = get_rules(rules)
    n = len(hands)
    if n not in (2, 3):
        raise ValueError(f"an endgame has two or three hands, not {n}")
    state = tuple(hand_bits(h, rules) for h in hands)
    total = [sum(x) for x in zip(*(Hand.from_bits(b).counts for b in state))]
    deck = Hand.from_bits(rules.deck).counts
    if any(t > c for t, c in zip(total, deck)):
        raise RulesError(f"the hands together hold more cards than the {rules.name} deck")
    if not all(state):
        raise ValueError("every hand must hold cards (the game is already over)")
    cards = sum(total)
    refuse_over(cards, MAX_ENDGAME_CARDS, f"an endgame of {cards} cards",
                "an exact open-hand solve grows exponentially: 3 s for some 24-card positions")
    if not 0 <= to_move < n or not 0 <= landlord < n:
        raise ValueError("seat out of range")
    if to_beat is not None and to_beat.kind == Kind.PASS:
        to_beat = None
    if to_beat is not None:
        check_move(to_beat, rules, "move to beat")
        last_seat = (to_move - 1) % n if last_seat is None else last_seat
    else:
        last_seat = to_move
    t0 = time.perf_counter()
    solver = _Solver(rules, n, landlord, max_nodes)
    first = solver.wins(state, to_move, to_beat, last_seat)
    me = solver.side(to_move)
    winner = me if first else 1 - me
    line = solver.line(state, to_move, to_beat, last_seat)
    return EndgameResult(winner, line, solver.nodes, time.perf_counter() - t0)


__all__ = ["solve_endgame", "EndgameResult", "MAX_ENDGAME_CARDS", "MAX_ENDGAME_NODES", "LEAF_NODES"]
