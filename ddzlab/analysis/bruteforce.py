"""Brute-force oracles: plain recursion over `ddzlab.moves.legal_moves`, no cleverness.

They define what the fast searches must return, and the tests compare both on thousands
of small hands. Only use them on small hands (about 12 cards, or structured hands of few
sub-hands). Their memo holds every sub-hand (position) they reach, so they are bounded:
a hand of more than `BRUTE_MAX_SUBHANDS` sub-hands (the product of its rank
counts plus one), or endgame hands of more than `BRUTE_MAX_ENDGAME_CARDS` cards in all, is
refused up front, and every search stops after `BRUTE_MAX_STATES` memoised states; both
raise `SearchLimitError`.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Union

from ..cards import Hand, bits_size, lowest_rank
from ..moves import Move, legal_moves
from ..rules import HOMEWORK, STANDARD, Rules, get_rules
from ..errors import SearchLimitError
from ._core import hand_bits, refuse_over

#: the most sub-hands (product of rank counts plus one) a brute-force hand may have
BRUTE_MAX_SUBHANDS = 2_000_000
#: the most cards, all hands together, `brute_endgame` accepts
BRUTE_MAX_ENDGAME_CARDS = 16
#: the most states one brute-force search memoises
BRUTE_MAX_STATES = 200_000


def _small(bits: int) -> int:
    """``bits``, after checking its number of sub-hands against `BRUTE_MAX_SUBHANDS`."""
    n = math.prod(c + 1 for c in Hand.from_bits(bits).counts)
    refuse_over(n, BRUTE_MAX_SUBHANDS, f"brute force over a hand of {n:,} sub-hands",
                "it enumerates every sub-hand")
    return bits


def _bounded(memo: dict) -> None:
    if len(memo) >= BRUTE_MAX_STATES:
        raise SearchLimitError(f"brute force reached its limit of {BRUTE_MAX_STATES:,} states: "
                               "the hand is too large for it")


def _splits_moves(bits: int, rules: Rules) -> list[Move]:
    """Legal leads of ``bits`` that hold a card of its lowest rank (every split has one)."""
    r = lowest_rank(bits)
    return [m for m in legal_moves(Hand.from_bits(bits), rules) if (m.cards >> (4 * r)) & 15]


def brute_min_plays(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD) -> int:
    """Fewest plays by exhaustive recursion over legal leads."""
    rules = get_rules(rules)
    bits = _small(hand_bits(hand, rules))
    memo: dict[int, int] = {0: 0}

    def solve(b: int) -> int:
        if b not in memo:
            got = 1 + min(solve(b - m.cards) for m in _splits_moves(b, rules))
            _bounded(memo)
            memo[b] = got
        return memo[b]

    return solve(bits)


def brute_profiles(hand: Union[Hand, str], rules: Union[Rules, str], reward) -> dict[int, int]:
    """For each possible number of plays, the largest total reward (exhaustive)."""
    rules = get_rules(rules)
    bits = _small(hand_bits(hand, rules))
    memo: dict[int, tuple] = {0: ((0, 0),)}

    def solve(b: int) -> tuple:
        if b in memo:
            return memo[b]
        prof: dict[int, int] = {}
        for m in _splits_moves(b, rules):
            w = reward(m.kind)
            for s, v in solve(b - m.cards):
                if prof.get(s + 1, -1) < v + w:
                    prof[s + 1] = v + w
        _bounded(memo)
        memo[b] = tuple(sorted(prof.items()))
        return memo[b]

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
    cards = sum(bits_size(b) for b in start)
    refuse_over(cards, BRUTE_MAX_ENDGAME_CARDS, f"a brute-force endgame of {cards} cards",
                "it visits every position")

    @lru_cache(maxsize=BRUTE_MAX_STATES)
    def wins(state: tuple, seat: int, last: Move | None, last_seat: int) -> bool:
        """Whether the side of ``seat`` (to move) wins (an LRU memo: at most
        `BRUTE_MAX_STATES` positions kept; a position dropped is searched again)."""
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
