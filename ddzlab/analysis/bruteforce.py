"""Brute-force oracles: plain recursion over `ddzlab.moves.legal_moves`, no cleverness.

They define what the fast searches must return, and the tests compare both on thousands
of small hands. Only use them on small hands (about 12 cards).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Union

from ..cards import Hand, lowest_rank
from ..moves import Move, legal_moves
from ..rules import HOMEWORK, STANDARD, Rules, get_rules
from ._core import hand_bits


def _splits_moves(bits: int, rules: Rules) -> list[Move]:
    """Legal leads of ``bits`` that hold a card of its lowest rank (every split has one)."""
    r = lowest_rank(bits)
    return [m for m in legal_moves(Hand.from_bits(bits), rules) if (m.cards >> (4 * r)) & 15]


def brute_min_plays(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD) -> int:
    """Fewest plays by exhaustive recursion over legal leads."""
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)

    @lru_cache(maxsize=None)
    def solve(b: int) -> int:
        if not b:
            return 0
        return 1 + min(solve(b - m.cards) for m in _splits_moves(b, rules))

    return solve(bits)


def brute_profiles(hand: Union[Hand, str], rules: Union[Rules, str], reward) -> dict[int, int]:
    """For each possible number of plays, the largest total reward (exhaustive)."""
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)

    @lru_cache(maxsize=None)
    def solve(b: int) -> tuple:
        if not b:
            return ((0, 0),)
        prof: dict[int, int] = {}
        for m in _splits_moves(b, rules):
            w = reward(m.kind)
            for s, v in solve(b - m.cards):
                if prof.get(s + 1, -1) < v + w:
                    prof[s + 1] = v + w
        return tuple(sorted(prof.items()))

    return dict(solve(bits))


def brute_best_score(hand: Union[Hand, str], rules: Union[Rules, str] = HOMEWORK) -> float:
    """The best homework score by enumerating every split (through its profile)."""
    from .score import homework_score, reward
    best = -math.inf
    for steps, value in brute_profiles(hand, rules, reward).items():
        best = max(best, homework_score(value, steps))
    return best


def brute_endgame(hands: tuple, rules: Union[Rules, str] = STANDARD, to_move: int = 0,
                  landlord: int = 0) -> int:
    """Plain minimax: the seat (0, 1 or 2) whose side wins with perfect play.

    Two hands: 1v1, seats alternate, a pass ends the trick. Three hands: the landlord
    plays against the other two, who win together; a trick ends after two passes.
    Returns the winning seat for 1v1, or 0 (landlord side) / 1 (farmers) for three hands.
    """
    rules = get_rules(rules)
    n = len(hands)
    start = tuple(hand_bits(h, rules) for h in hands)

    @lru_cache(maxsize=None)
    def wins(state: tuple, seat: int, last: Move | None, last_seat: int) -> bool:
        """Whether the side of ``seat`` (to move) wins."""
        h = state[seat]
        nxt = (seat + 1) % n
        if last is None or last_seat == seat:
            opts = legal_moves(Hand.from_bits(h), rules)
            last = None
        else:
            opts = legal_moves(Hand.from_bits(h), rules, last)
        for m in opts:
            if m.is_pass:
                child = state
                nl, ns = last, last_seat
            else:
                child = state[:seat] + (h - m.cards,) + state[seat + 1:]
                if not child[seat]:
                    return True
                nl, ns = m, seat
            if n == 2 or (seat == landlord) != (nxt == landlord):
                if not wins(child, nxt, nl, ns):
                    return True
            elif wins(child, nxt, nl, ns):
                return True
        return False

    first = wins(start, to_move, None, to_move)
    if n == 2:
        return to_move if first else 1 - to_move
    mover_is_landlord = to_move == landlord
    landlord_wins = first if mover_is_landlord else not first
    return 0 if landlord_wins else 1


__all__ = ["brute_min_plays", "brute_profiles", "brute_best_score", "brute_endgame"]
