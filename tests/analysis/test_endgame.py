"""Open-hand endgame solver against plain minimax on tiny positions."""
from __future__ import annotations

import numpy as np
import pytest

from ddzlab.cards import Hand
from ddzlab.errors import RulesError
from ddzlab.moves import legal_moves, parse_move
from ddzlab.rules import HOMEWORK, MINI, STANDARD
from ddzlab.analysis import solve_endgame
from ddzlab.analysis.bruteforce import brute_endgame


def deal(rng, rules, sizes):
    deck = Hand.from_bits(rules.deck).ranks()
    cards = rng.choice(deck, sum(sizes), replace=False).tolist()
    out, i = [], 0
    for s in sizes:
        out.append(Hand.from_ranks(cards[i:i + s]))
        i += s
    return out


def replay_line(res, hands, rules, n):
    """The line is legal and ends with the winner's side emptying a hand."""
    state = [h.bits for h in hands]
    last, last_seat = None, None
    for seat, m in res.line:
        lead = last is None or last_seat == seat
        opts = legal_moves(Hand.from_bits(state[seat]), rules, None if lead else last)
        assert m in opts
        if not m.is_pass:
            state[seat] -= m.cards
            last, last_seat = m, seat
        elif n == 2:
            last = None
    seat = res.line[-1][0]
    assert state[seat] == 0
    return seat


@pytest.mark.parametrize("rules", [STANDARD, HOMEWORK, MINI], ids=lambda r: r.name)
def test_1v1_matches_minimax(rules) -> None:
    rng = np.random.default_rng(12)
    for _ in range(150):
        a, b = deal(rng, rules, [int(rng.integers(1, 7)), int(rng.integers(1, 7))])
        res = solve_endgame([a, b], rules)
        assert res.winner == brute_endgame((a, b), rules)
        assert replay_line(res, [a, b], rules, 2) == res.winner


def test_three_hands_match_minimax() -> None:
    rng = np.random.default_rng(13)
    for i in range(80):
        hands = deal(rng, STANDARD, [int(rng.integers(1, 6)) for _ in range(3)])
        to_move = i % 3
        res = solve_endgame(hands, STANDARD, to_move=to_move)
        assert res.winner == brute_endgame(tuple(hands), STANDARD, to_move=to_move)
        seat = replay_line(res, hands, STANDARD, 3)
        assert (0 if seat == 0 else 1) == res.winner


def test_known_positions() -> None:
    # the doudizhu-resolver README puzzle: the first player loses
    assert solve_endgame(["2QQTT77553", "AA9"]).winner == 1
    # following a play: seat 0 answers seat 1's 44 with 55 and is out
    res = solve_endgame(["55", "3"], to_beat=parse_move("44"), to_move=0, last_seat=1)
    assert res.winner == 0 and [(s, str(m)) for s, m in res.line] == [(0, "55")]
    # ... but with 33 it cannot answer, and seat 1 leads its last card
    res = solve_endgame(["33", "3"], to_beat=parse_move("44"), to_move=0, last_seat=1)
    assert res.winner == 1 and [(s, str(m)) for s, m in res.line] == [(0, "pass"), (1, "3")]


def test_bad_input() -> None:
    with pytest.raises(RulesError):
        solve_endgame(["3333", "3"])                          # five 3s between them
    with pytest.raises(RulesError):
        solve_endgame(["33", "44"], STANDARD, to_beat=parse_move("335577", HOMEWORK))
    with pytest.raises(ValueError):
        solve_endgame(["3"])
    with pytest.raises(ValueError):
        solve_endgame(["3", ""])
