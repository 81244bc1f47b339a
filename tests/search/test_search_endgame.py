"""The compiled endgame solver (ddzlab.search.endgame) against the Python open-hand solver.

Oracles: `ddzlab.analysis.endgame.solve_endgame` (a separate search over the Python move
generator and a dict memo) on positions of self-play games, positions worked out by hand,
and the node counts (the same search order visits the same positions).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.analysis import solve_endgame
from ddzlab.cards import Hand
from ddzlab.errors import OutOfTurnError, RulesError, SearchLimitError
from ddzlab.deals import Deal, generate_deals
from ddzlab.game import Game
from ddzlab.moves import parse_move
from ddzlab.moves.compiled import core_table, encode
from ddzlab.rules import MINI, STANDARD, WILDCARD, Rules
from ddzlab.search.endgame import exact_winner, new_memo, solve, solve_count
from ddzlab.search.state import N_STATE, S_BID, S_HAND, S_LAST_CARDS, S_LAST_META, S_LAST_SEAT, S_LORD, \
    S_PASSES, S_PLAYERS, S_SIZE, S_TO_ACT, S_WINNER, from_game

BIG = 10 ** 8


def state_of(hands: list[str], to_act: int = 0, to_beat: Optional[str] = None,
             last_seat: Optional[int] = None, landlord: int = 0) -> np.ndarray:
    """A state array of open hands (standard rules): 2 hands = 1v1, 3 = landlord ``landlord``."""
    n = len(hands)
    st = np.zeros(N_STATE, dtype=np.int64)
    for s, text in enumerate(hands):
        st[S_HAND + s] = Hand(text).bits
        st[S_SIZE + s] = sum(Hand(text).counts)
    st[S_TO_ACT], st[S_PLAYERS], st[S_WINNER], st[S_BID] = to_act, n, -1, 1
    st[S_LORD] = landlord if n == 3 else -1
    st[S_LAST_META], st[S_LAST_SEAT] = -1, -1
    if to_beat is not None:
        last_seat = (to_act - 1) % n if last_seat is None else last_seat
        st[S_LAST_CARDS], st[S_LAST_META] = encode(parse_move(to_beat))
        st[S_LAST_SEAT] = last_seat
        st[S_PASSES] = (to_act - last_seat - 1) % n
    return st


def python_solve(game: Game, max_nodes: int = BIG):
    """`solve_endgame` on the open hands of ``game``: (winning side or 1v1 seat, nodes)."""
    n = game.players
    res = solve_endgame([game.hand(s) for s in range(n)], game.rules, to_move=game.to_act,
                        to_beat=game.last_move, last_seat=game.last_seat,
                        landlord=0 if game.landlord is None else game.landlord, max_nodes=max_nodes)
    return res.winner, res.nodes


def side_of(game: Game, seat: int) -> int:
    return seat if game.landlord is None else int(seat != game.landlord)


def has_bomb(bits: int) -> bool:
    counts = Hand.from_bits(bits).counts
    return any(c == 4 for c in counts) or (len(counts) > 14 and counts[13] and counts[14])


@dataclass
class Tally:
    positions: int = 0
    following: int = 0
    bombs: int = 0
    mismatches: int = 0
    node_mismatches: int = 0


def clumpy_deal(rng: np.random.Generator, rules: Rules, players: int) -> Deal:
    """A deal of the usual sizes whose hands hold whole ranks (bombs, the rocket, long chains
    of pairs and trios): the deck's cards grouped by rank, the ranks in random order, dealt
    in runs."""
    usual = generate_deals(1, seed=rng, rules=rules, players=players)[0]
    counts = Hand.from_bits(rules.deck).counts
    cards = [r for r in rng.permutation(len(counts)) for _ in range(counts[r])]
    hands, i = [], 0
    for bits in usual.hands:
        size = sum(Hand.from_bits(bits).counts)
        hands.append(Hand.from_ranks(cards[i:i + size]).bits)
        i += size
    kitty = sum(Hand.from_bits(usual.kitty).counts)
    return Deal(tuple(hands), Hand.from_ranks(cards[i:i + kitty]).bits)


def endgames(rules: Rules, players: int, games: int, max_cards: int, seed: int) -> Iterator[Game]:
    """Every position of self-play games with at most ``max_cards`` cards in all hands: each
    seat plays greedy or uniformly random moves (drawn per game), so endgames vary; one game
    in three is dealt by `clumpy_deal` (positions with bombs)."""
    rng = np.random.default_rng(seed)
    greedy = make_agent("greedy")
    for i in range(games):
        lord = int(rng.integers(3)) if players == 3 else None
        deal = clumpy_deal(rng, rules, players) if i % 3 == 2 else None
        game = Game(deal, rules=rules, seed=rng, players=players, landlord=lord)
        greedy_seat = rng.random(players) < 0.5
        while not game.is_over:
            if sum(game.sizes) <= max_cards:
                yield game
            if greedy_seat[game.to_act]:
                move = greedy.play(game.observation(game.to_act))
            else:
                legal = game.legal_moves()
                move = legal[int(rng.integers(len(legal)))]
            game.play(move)


CASES = [(STANDARD, 3, 80, 18), (STANDARD, 2, 80, 18), (MINI, 3, 80, 20), (MINI, 2, 80, 20)]


@pytest.mark.parametrize("rules, players, games, max_cards", CASES,
                         ids=[f"{r.name}-{p}p" for r, p, _, _ in CASES])
def test_equals_python_solver_on_self_play_endgames(rules, players, games, max_cards):
    t = core_table(rules)
    tally = Tally()
    for game in endgames(rules, players, games, max_cards, seed=36):
        st = from_game(game)
        before = st.copy()
        got, nodes = solve_count(t, st, BIG, new_memo())
        assert np.array_equal(st, before)                  # a solve leaves the state alone
        want, want_nodes = python_solve(game)
        me = side_of(game, game.to_act)
        tally.positions += 1
        tally.following += game.last_move is not None
        tally.bombs += any(has_bomb(h) for h in game.hands)
        tally.mismatches += got != int(want == me)
        tally.node_mismatches += nodes != want_nodes
    assert tally.mismatches == 0 and tally.node_mismatches == 0, tally
    assert tally.positions >= 800 and tally.following >= 500 and tally.bombs >= 90, tally


def test_hand_worked_positions():
    t = core_table(STANDARD)
    cases = [
        # (hands, to act, to beat, its seat, does the side to act win)
        (["2QQTT77553", "AA9"], 0, None, None, False),   # the doudizhu-resolver puzzle: the leader loses
        (["55", "3"], 0, "44", 1, True),                  # 55 over 44 and out
        (["33", "3"], 0, "44", 1, False),                 # no answer: seat 1 leads its 3
        (["33", "4", "5"], 0, None, None, True),          # the landlord's pair cannot be answered
        (["AA", "34", "5"], 1, None, None, True),         # a low lead lets the partner out with its 5
        (["AA", "34", "3"], 1, None, None, False),        # ... but a 3 beats neither lead
        (["77772", "K3"], 0, "AA", 1, True),              # bomb the aces, then lead the 2
        (["77772", "BR3"], 0, "AA", 1, False),            # the rocket beats the bomb
        (["7777", "BR3", "4"], 0, None, None, True),      # bomb and out: the rocket is too late
        (["A", "K6", "3"], 1, "4", 0, False),             # the landlord's ace wins whatever the farmers do
        (["A", "K6", "2"], 1, "4", 0, True),              # ... unless the partner's 2 gets its turn
    ]
    for hands, to_act, to_beat, last_seat, wins in cases:
        st = state_of(hands, to_act, to_beat, last_seat)
        assert solve(t, st, BIG, new_memo()) == int(wins), hands
        res = solve_endgame(hands, STANDARD, to_move=to_act, last_seat=last_seat,
                            to_beat=None if to_beat is None else parse_move(to_beat))
        me = to_act if len(hands) == 2 else int(to_act != 0)
        assert (res.winner == me) == wins, hands               # the Python solver agrees


#: a 24-card position of a greedy self-play game (seed 5) that takes 40,549 positions to solve:
#: seat 0 (a farmer) to answer seat 1's J, seat 1 the landlord; the farmers win
BIG_HANDS = ["33899", "44668Q2", "357778TTTJQQ"]


def test_node_budget():
    t = core_table(STANDARD)
    st = state_of(BIG_HANDS, to_act=0, to_beat="J", last_seat=1, landlord=1)
    res = solve_endgame(BIG_HANDS, STANDARD, to_move=0, to_beat=parse_move("J"), last_seat=1, landlord=1)
    assert res.winner == 1 and res.nodes > 10_000
    with pytest.raises(SearchLimitError):
        solve_endgame(BIG_HANDS, STANDARD, to_move=0, to_beat=parse_move("J"), last_seat=1, landlord=1,
                      max_nodes=50)
    memo = new_memo()
    assert solve_count(t, st, 50, memo) == (-1, 51)            # stopped at the 51st position
    assert solve(t, st, 0, new_memo()) == -1
    assert solve(t, st, res.nodes - 1, new_memo()) == -1        # one short of the search
    assert solve_count(t, st, res.nodes, new_memo()) == (1, res.nodes)
    # the memo of the search that ran out holds only solved positions: reusing it is exact
    got, nodes = solve_count(t, st, BIG, memo)
    assert got == 1 and nodes < res.nodes
    assert solve_count(t, st, BIG, memo) == (1, 0)             # solved: answered by the memo


def test_exact_winner_sides_and_refusals():
    for players in (2, 3):
        for game in endgames(STANDARD, players, 3, 10, seed=7):
            assert exact_winner(game) == python_solve(game)[0]
            assert exact_winner(game, max_nodes=0) is None
    bidding = Game(rules=STANDARD, seed=1)
    with pytest.raises(OutOfTurnError):
        exact_winner(bidding)
    over = next(endgames(STANDARD, 2, 1, 99, seed=2))
    while not over.is_over:
        over.play(over.legal_moves()[0])
    with pytest.raises(OutOfTurnError):
        exact_winner(over)
    with pytest.raises(RulesError, match="wildcard"):
        exact_winner(Game(rules=WILDCARD, seed=1, landlord=0))
