"""The game: bidding, play, scoring, rejected actions, undo/copy, observations."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ddzlab.cards import Hand
from ddzlab.deals import Deal, generate_deals
from ddzlab.errors import (CardError, IllegalCombinationError, IllegalMoveError, OutOfTurnError,
                           RulesError)
from ddzlab.game import Game, Phase
from ddzlab.moves import PASS, detect
from ddzlab.rules import HOMEWORK, MINI, STANDARD, Kind

MODES = ["bidding", "fixed", "mini", "one_v_one"]


def new_game(mode: str, seed: int) -> Game:
    if mode == "bidding":
        return Game(seed=seed, first_bidder=seed % 3)
    if mode == "fixed":
        return Game(generate_deals(1, seed=seed)[0], landlord=0)
    if mode == "mini":
        return Game(rules=MINI, seed=seed)
    return Game(rules=HOMEWORK, seed=seed, players=2)


def random_step(game: Game, rng: np.random.Generator):
    """One uniformly random legal action; returns it."""
    if game.phase is Phase.BIDDING:
        bids = game.legal_bids()
        action = bids[int(rng.integers(len(bids)))]
        game.make_bid(action)
        return action
    moves = game.legal_moves()
    move = moves[int(rng.integers(len(moves)))]
    game.play(move)
    return move


def play_random(game: Game, rng: np.random.Generator, limit: int = 2000) -> list:
    actions = []
    for _ in range(limit):
        if game.is_over:
            return actions
        actions.append(random_step(game, rng))
    raise AssertionError("game did not end")


def state(g: Game) -> tuple:
    """Everything observable about a game's state, for equality checks."""
    return (tuple(g.hands), tuple(g.sizes), tuple(g.played), tuple(g.plays), tuple(g.history),
            tuple(g.bids), g.bid, g.landlord, g.phase, g.to_act, g.last_move, g.last_seat,
            g.passes, g.bombs, g.winner, g.redeals, g.deal, tuple(g.legal_moves()),
            tuple(g.legal_bids()), g.scores)


def full_state(g: Game) -> tuple:
    """`state` plus what a rejected action must not touch either: the undo stack and the
    redeal generator's state."""
    return state(g) + (tuple(g._undo), repr(g._rng.bit_generator.state))


def spring_from_history(g: Game) -> bool:
    """春天 / anti-spring recomputed from the move history (not from `Game.spring`)."""
    lord = g.landlord
    plays = [seat for seat, m in g.history if not m.is_pass]
    if g.winner == lord:
        return all(seat == lord for seat in plays)
    return plays.count(lord) == 1


# -- property tests --------------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(MODES))
def test_random_game_ends_with_zero_sum_scores(seed, mode):
    game = new_game(mode, seed)
    start = [*game.deal.hands, game.deal.kitty]
    play_random(game, np.random.default_rng(seed))
    assert game.phase is Phase.FINISHED and game.is_over
    assert sum(game.scores) == 0
    assert game.hands[game.winner] == 0 and game.sizes[game.winner] == 0
    assert all(game.sizes[s] > 0 for s in range(game.players) if s != game.winner)
    # cards are conserved: what is held plus what was played is what was dealt
    assert sum(game.hands) + sum(game.played) == sum(start) or mode == "bidding"
    assert sum(game.hands) + sum(game.played) == sum(game.deal.hands) + game.deal.kitty
    assert game.legal_moves() == [] and game.to_act is None
    bombs = sum(1 for _, m in game.history if m.kind in (Kind.BOMB, Kind.ROCKET))
    assert game.winner == game.history[-1][0] and not game.history[-1][1].is_pass
    if game.players == 3:
        lord = game.landlord
        spring = spring_from_history(game)
        assert game.spring == spring
        mult = (1 << bombs) * (2 if spring else 1)
        assert game.multiplier == mult
        won = game.winner == lord
        assert game.landlord_won == won
        assert game.scores[lord] == (2 if won else -2) * game.bid * mult
        assert all(game.scores[s] == (-1 if won else 1) * game.bid * mult for s in range(3) if s != lord)
    else:
        assert game.scores[game.winner] == 1 << bombs


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(MODES))
def test_replaying_the_actions_reproduces_the_game(seed, mode):
    game = new_game(mode, seed)
    play_random(game, np.random.default_rng(seed))
    # a fresh game from the same (final) deal: bids then moves as recorded
    again = Game(game.deal, rules=game.rules, players=game.players,
                 landlord=None if game.spec.bidding or game.players == 2 else game.landlord,
                 first_bidder=game.spec.first_bidder)
    for action in game.actions:
        again.apply(action)
    assert again.scores == game.scores and again.winner == game.winner
    assert again.hands == game.hands and again.played == game.played
    assert again.history == game.history and again.bids == game.bids
    # replaying from the original seed reproduces redeals too
    game2 = new_game(mode, seed)
    play_random(game2, np.random.default_rng(seed))
    assert state(game2) == state(game)


def _rejections(game: Game):
    """(callable, expected error) pairs for each kind of bad action in this position."""
    seat = game.to_act
    other = (seat + 1) % game.players
    out = [(lambda: game.play("3", seat=other), OutOfTurnError),
           (lambda: game.make_bid(1), OutOfTurnError),
           (lambda: game.play("3Z"), CardError)]
    hand = game.hands[seat]
    missing = next((r for r in range(15) if not (hand >> (4 * r)) & 15
                    and (game.rules.deck >> (4 * r)) & 15), None)
    if missing is not None:
        out.append((lambda: game.play(Hand.from_ranks([missing])), IllegalMoveError))
    if game.last_move is None:
        out.append((lambda: game.play("pass"), IllegalMoveError))
        out.append((lambda: game.play(PASS), IllegalMoveError))
    else:
        legal_cards = {m.cards for m in game.legal_moves()}
        for m in game.gen.leading(hand):
            if m.cards not in legal_cards:
                out.append((lambda m=m: game.play(m), IllegalMoveError))  # does not beat
                break
    ranks = [r for r in range(13) if (hand >> (4 * r)) & 15]
    if len(ranks) >= 2:
        junk = Hand.from_ranks(ranks[:2])   # two different ranks below the jokers: no move
        assert detect(junk, game.rules) is None
        out.append((lambda: game.play(junk), IllegalCombinationError))
    return out


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(MODES))
def test_state_is_unchanged_after_rejected_actions(seed, mode):
    game = new_game(mode, seed)
    rng = np.random.default_rng(seed)
    seen_kinds = set()
    while not game.is_over:
        if game.phase is Phase.BIDDING:
            before = full_state(game)
            with pytest.raises(OutOfTurnError):
                game.play("3")
            with pytest.raises(IllegalMoveError):
                game.make_bid(game.spec.max_bid + 1)
            if game.bid:
                with pytest.raises(IllegalMoveError):
                    game.make_bid(game.bid)
            with pytest.raises(IllegalMoveError):
                game.make_bid(-1)
            assert full_state(game) == before
        else:
            for action, error in _rejections(game):
                before = full_state(game)
                with pytest.raises(error) as info:
                    action()
                assert str(info.value)
                assert type(info.value) is error or error is IllegalMoveError
                seen_kinds.add(error)
                assert full_state(game) == before
        random_step(game, rng)
    with pytest.raises(OutOfTurnError, match="over"):
        game.play("3")
    assert {OutOfTurnError, CardError, IllegalMoveError} <= seen_kinds


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(MODES))
def test_undo_and_copy(seed, mode):
    game = new_game(mode, seed)
    rng = np.random.default_rng(seed)
    snapshots = []
    while not game.is_over:
        snapshots.append(state(game))
        twin = game.copy()
        random_step(game, rng)
        assert state(twin) == snapshots[-1]           # the copy did not move
        after = state(game)
        random_step(twin, np.random.default_rng(0))   # moving the copy leaves game alone
        assert state(game) == after
    final = state(game)
    for snap in reversed(snapshots):
        game.undo()
        assert state(game) == snap
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        game.undo()
    play_random(game, np.random.default_rng(seed))
    assert state(game) == final


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_observations_hide_other_hands(seed):
    rng = np.random.default_rng(seed)
    deal = generate_deals(1, seed=seed)[0]
    h0, h1, h2 = deal.hands
    # swap cards between the hidden places: seat 0 must not notice
    swapped = Deal((h0, h2, h1), deal.kitty)
    a, b = Game(deal, landlord=0), Game(swapped, landlord=0)
    assert a.observation(0) == b.observation(0)
    assert a.observation(1) != b.observation(1)
    # during bidding the kitty is hidden too
    k1 = Hand.from_bits(h1).ranks()
    kitty = Hand.from_bits(deal.kitty).ranks()
    hidden = Deal((h0, Hand.from_ranks(kitty + k1[3:]).bits, h2), Hand.from_ranks(k1[:3]).bits)
    c, d = Game(deal, seed=1), Game(hidden, seed=1)
    assert c.observation(0) == d.observation(0) and c.observation(0).kitty is None
    # at every step an observation holds the seat's own hand and public facts only
    game = new_game("bidding", seed)
    while not game.is_over:
        for seat in range(3):
            obs = game.observation(seat)
            assert obs.hand.bits == game.hands[seat] and obs.seat == seat
            assert obs.cards_left == tuple(game.sizes)
            assert obs.history == tuple(game.history)
            assert (obs.legal_moves != ()) == (seat == game.to_act and game.phase is Phase.PLAY)
            unseen = obs.unseen.counts
            others = Hand.from_bits(sum(game.hands[s] for s in range(3) if s != seat)).counts
            if game.landlord is None:
                others = Hand.from_bits(game.deal.kitty + sum(game.deal.hands) - game.hands[seat]).counts
                assert unseen == others                  # the kitty is still face down
            elif seat == game.landlord:
                assert unseen == others                  # the landlord sees only its own cards
            else:
                # a farmer knows the kitty cards: of each rank, those the landlord cannot
                # have played yet (it played `played` cards of that rank) are not unseen
                kitty = Hand.from_bits(game.deal.kitty).counts
                played = Hand.from_bits(game.played[game.landlord]).counts
                shown = [max(0, k - p) for k, p in zip(kitty, played)]
                assert unseen == tuple(o - k for o, k in zip(others, shown))
            if game.landlord is not None:
                assert obs.kitty.bits == game.deal.kitty and obs.role == game.role(seat)
        random_step(game, rng)


def test_unseen_cards_for_each_seat_by_hand() -> None:
    """`Observation.unseen` on a hand-made deal, written out card by card."""
    kitty = Hand("2BR")
    deal = Deal((Hand("33334444555566667").bits, Hand("7778888999TTTTJJ9").bits,
                 Hand("JJQQQQKKKKAAAA222").bits), kitty.bits)
    game = Game(deal, seed=0, first_bidder=1)
    # bidding: everything but one's own 17 cards is unseen, the kitty included
    assert game.observation(1).unseen == Hand("33334444555566667JJQQQQKKKKAAAA2222BR")
    game.make_bid(0), game.make_bid(0), game.make_bid(1)     # seat 0 takes the kitty
    assert game.role(1) == "down" and game.role(2) == "up"
    for text in ("3", "7", "2", "R", "pass", "pass"):
        game.play(text)
    # seat 0 holds 3334444555566667 2B; seat 1 777888899 9TTTTJJ less a 7; seat 2 less a 2
    assert game.observation(0).unseen == Hand("778888999TTTTJJ9" "JJQQQQKKKKAAAA22")
    # farmers saw the kitty 2BR: the landlord played the R, so it still holds the 2 and the B
    assert game.observation(1).unseen == Hand("3334444555566667" "JJQQQQKKKKAAAA22")
    assert game.observation(2).unseen == Hand("3334444555566667" "778888999TTTTJJ9")
    game.play("2")      # the landlord leads its 2: the farmers know it held one 2 (the kitty's)
    assert game.observation(1).unseen == Hand("3334444555566667" "JJQQQQKKKKAAAA22")
    assert game.observation(2).unseen == Hand("3334444555566667" "778888999TTTTJJ9")
    assert game.observation(0).unseen == Hand("778888999TTTTJJ9" "JJQQQQKKKKAAAA22")


# -- bidding ---------------------------------------------------------------------------
def test_all_pass_redeals_with_the_games_generator():
    game = Game(seed=7, first_bidder=1)
    first = game.deal
    for seat in (1, 2, 0):
        game.make_bid(0, seat=seat)
    assert game.redeals == 1 and game.phase is Phase.BIDDING
    assert game.deal != first and game.bids == [] and game.to_act == 1
    assert sum(game.deal.hands) + game.deal.kitty == STANDARD.deck
    # the redeal is reproducible: same seed, same new deal
    again = Game(seed=7, first_bidder=1)
    for _ in range(3):
        again.make_bid(0)
    assert again.deal == game.deal
    # several all-pass rounds in a row still work (OpenSpiel crashed after the first)
    for _ in range(3):
        game.make_bid(0)
    assert game.redeals == 2
    game.make_bid(1)
    game.make_bid(0)
    game.make_bid(0)
    assert game.landlord == 1 and game.phase is Phase.PLAY
    game.undo()
    game.undo()
    game.undo()
    for _ in range(3):
        game.undo()
    assert game.redeals == 1 and game.deal == again.deal


def test_bid_of_three_ends_bidding_and_landlord_takes_the_kitty():
    deal = generate_deals(1, seed=3)[0]
    game = Game(deal, first_bidder=0)
    game.make_bid(1, seat=0)
    game.make_bid(3, seat=1)
    assert game.phase is Phase.PLAY and game.landlord == 1 and game.bid == 3
    assert game.hands[1] == deal.hands[1] + deal.kitty and game.sizes[1] == 20
    assert game.to_act == 1 and game.role(1) == "landlord"
    assert game.role(2) == "down" and game.role(0) == "up"
    obs = game.observation(2)
    assert obs.kitty == deal.kitty_hand() and obs.bids == ((0, 1), (1, 3))
    assert obs.landlord == 1 and obs.bid == 3


def test_highest_bid_after_one_round_wins():
    game = Game(generate_deals(1, seed=4)[0], first_bidder=2)
    game.make_bid(1)
    with pytest.raises(IllegalMoveError, match="cannot bid 1"):
        game.make_bid(1)
    game.make_bid(2)
    game.make_bid(0)
    assert game.landlord == 0 and game.bid == 2 and game.sizes == [20, 17, 17]


def test_bad_constructor_arguments():
    with pytest.raises(RulesError):
        Game(seed=0, landlord=3)
    with pytest.raises(RulesError):
        Game(seed=0, players=4)
    with pytest.raises(RulesError, match="bad deal"):
        Game(Deal((Hand("3").bits, 0, 0), 0), landlord=0)


# -- scoring on hand-made deals ------------------------------------------------------------
def _deal_with(landlord_cards: str, seat1: str | None = None) -> Deal:
    lord = Hand(landlord_cards)
    rest = Hand.from_bits(STANDARD.deck) - lord
    if seat1 is not None:
        s1 = Hand(seat1)
    else:
        s1 = Hand.from_ranks(rest.ranks()[:17])
    s2 = rest - s1
    if len(s2) > 17:  # seat 1 was given: the landlord takes the leftovers' top cards
        raise AssertionError("bad test deal")
    kitty = Hand.from_ranks(lord.ranks()[-3:])
    return Deal(((lord - kitty).bits, s1.bits, s2.bits), kitty.bits)


def test_spring_doubles_and_bombs_double():
    deal = _deal_with("3456789TJQKA" "BR" "2222" "33")
    game = Game(deal, landlord=0)
    for text in ("3456789TJQKA", "pass", "pass", "BR", "pass", "pass"):
        game.play(text)
    assert game.bombs == 1 and game.last_move is None and game.to_act == 0
    game.play("222233")
    assert game.is_over and game.winner == 0 and game.landlord_won and game.spring
    assert spring_from_history(game)
    assert game.multiplier == 4 and game.scores == (8, -4, -4)


def test_anti_spring():
    lord = Hand("3R") + Hand.from_ranks(
        (Hand.from_bits(STANDARD.deck) - Hand("B2222AAAKKKQQQJJJ3R")).ranks()[:18])
    deal = _deal_with(str(lord), "B2222AAAKKKQQQJJJ")
    game = Game(deal, landlord=0)
    for text in ("3", "B", "pass", "pass", "2222", "pass", "pass", "AAAKKKQQQJJJ"):
        game.play(text)
    assert game.is_over and game.winner == 1 and not game.landlord_won and game.spring
    assert spring_from_history(game)
    assert game.multiplier == 4 and game.scores == (-8, 4, 4)
    assert game.history[-1][1].kind is Kind.TRIO_CHAIN


def test_no_spring_when_both_sides_play():
    deal = _deal_with("3456789TJQKA" "BR" "2222" "33")
    game = Game(deal, landlord=0)
    game.play("3456789TJQKA")
    game.play("pass")
    game.play("pass")
    game.play("33")
    farmer_pair = next(m for m in game.legal_moves() if m.kind is Kind.PAIR)
    game.play(farmer_pair)
    game.play("pass")
    game.play("BR")
    game.play("pass")
    game.play("pass")
    game.play("2222")
    assert game.is_over and not game.spring and game.multiplier == 4
    assert not spring_from_history(game)
    assert game.scores == (8, -4, -4)


def test_one_v_one_mode():
    deal = Deal((Hand("35").bits, Hand("4").bits), 0)
    game = Game(deal, rules=HOMEWORK, players=2)
    assert game.landlord is None and game.kitty is None and game.phase is Phase.PLAY
    game.play("3")
    game.play("pass")                  # one pass ends the trick in 1v1
    assert game.last_move is None and game.to_act == 0
    game.play("5")
    assert game.winner == 0 and game.scores == (1, -1)
    assert game.observation(1).role == "player"


def test_messages_name_the_problem():
    game = Game(generate_deals(1, seed=11)[0], landlord=0)
    with pytest.raises(IllegalMoveError, match="cannot pass"):
        game.play("pass")
    with pytest.raises(OutOfTurnError, match="seat 2 cannot play now: it is seat 0's turn"):
        game.play("3", seat=2)
    hand = game.hand(0)
    absent = next(c for c in "3456789TJQKA2BR" if hand.count(c) == 0)
    with pytest.raises(IllegalMoveError, match=f"not in seat 0's hand.*missing {absent}"):
        game.play(absent)
    with pytest.raises(IllegalCombinationError, match="no cards"):
        game.play("  ")
    lowest = Hand.from_ranks([hand.ranks()[-1]])
    game.play(lowest)                             # the highest single card
    low = Hand.from_ranks([game.hand(1).ranks()[0]])
    if not any(m.cards == low.bits for m in game.legal_moves()):
        with pytest.raises(IllegalMoveError, match="does not beat"):
            game.play(low)


def test_copies_that_undo_into_bidding_redeal_independently():
    """A copy made during play shares nothing that undo can reach: redeals after undoing the
    bids are the same in the copy and the original, whatever order they happen in."""
    from ddzlab.deals import generate_deals
    game = Game(generate_deals(1, seed=8)[0], seed=1)
    game.make_bid(0), game.make_bid(0), game.make_bid(1)
    assert game.phase is Phase.PLAY
    twin = game.copy()
    for g in (twin, game):
        while g.bids:
            g.undo()
    for g in (twin, game):
        for _ in range(3):
            g.make_bid(0)          # all pass: redeal from the game's generator
    assert twin.redeals == game.redeals == 1
    assert twin.hands == game.hands
