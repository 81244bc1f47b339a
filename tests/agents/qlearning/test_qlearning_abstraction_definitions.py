"""`ddzlab.agents.qlearning.abstraction` against its docstrings and the package's (the seed's
definitions, docs/definitions.md#q-learning-player; the survivors of its first mutation run), every expected
value worked out by hand.

- The split cost ``delta``: 1 per 2, 2 per joker, and the Q lost in every segment a play
  touches (added up; a segment it does not touch costs nothing).
- The lead split: a lone joker is a solo, both are the rocket; four with two needs a good
  bomb and two other cards; planes and chains longer than five are the "other" chains; the
  chain-of-five feature; at most three solo and pair actions and two of the others.
- Lead actions pick the small, middle (index n // 2) or large play of their category; a trio
  or plane action plays "with the kickers of least delta" (`_with_kickers`): the legal play of
  the same kind family, rank and length built on it, of least split cost, ties to the play
  that sheds more cards, then to the lower kickers.
- Follow actions pick among the cheapest replies by rank; the highest reply is the cheapest,
  then the lowest, of the top rank; the split does not depend on the order of the replies.
- The table rows hold the seat's role ((seat - landlord) mod 3, or the seed's seat -1), the
  forced solos offered to a farmer, and the role of the seat whose move is to beat.
"""
from __future__ import annotations

import pytest

from ddzlab.agents import qlearning as Q
from ddzlab.agents.qlearning import abstraction
from ddzlab.cards import Hand
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves import detect, legal_moves
from ddzlab.rules import STANDARD


@pytest.fixture(autouse=True)
def fresh_memos():
    """Every test computes its splits afresh: a memo filled by an earlier test (or, under
    mutmut, by the run before the fork) would hide a fault in the code it memoises."""
    for memo in (abstraction._SEG_CACHE, abstraction._LEAD_CACHE, abstraction._SINGLES):
        memo.clear()


@pytest.mark.parametrize("hand,action,move", [
    ("3334", 8, "3334"),            # the lone 4 goes with the trio
    ("33345", 8, "3334"),           # two solo kickers cost the same: the lower
    ("333447", 8, "33344"),         # a pair kicker sheds more than a solo one
    ("333444K7", 15, "3334447K"),   # the plane takes both solos
])
def test_a_trio_or_plane_action_plays_its_kickers(hand, action, move):
    h = Hand(hand)
    legal = legal_moves(h, STANDARD, None)
    split = Q.lead_split(h.bits)
    assert action in Q.lead_actions(split, 0, 17, 17)
    assert str(Q.resolve_lead(split, action, legal)) == move


# -- the split cost ``delta`` (the package docstring): the Q a play loses against the best of
# every segment it touches, plus 1 per 2 and 2 per joker it spends
def _delta(hand: str, cards: str) -> int:
    return Q.move_delta(Hand(hand).bits, Hand(cards).bits)


@pytest.mark.parametrize("hand,cards,cost", [
    ("2", "2", 1), ("22", "22", 2), ("B", "B", 2), ("BR", "BR", 4), ("R", "R", 2),
    ("32R", "2R", 3),               # no card below the 2: no segment is touched
    ("356789", "3", 0),             # the 3 is its segment's best play; 5-9 is not touched
    ("356789", "56789", 0),
])
def test_delta_counts_high_cards_and_only_the_segments_a_play_touches(hand, cards, cost):
    assert _delta(hand, cards) == cost


def test_delta_adds_the_loss_of_every_segment_a_play_touches():
    # 33 and 55 are two segments (no 4); a lone 3 and a lone 5 each break a pair
    one, other = _delta("3355", "3"), _delta("3355", "5")
    assert one > 0 and other > 0
    assert _delta("3355", "35") == one + other


# -- the lead split: categories, features and the actions offered (package docstring)
def _split(hand: str):
    return Q.lead_split(Hand(hand).bits)


def test_one_joker_is_a_solo_and_two_are_the_rocket():
    one = _split("3B")
    assert one.rocket is None and 12 not in one.actions and one.features[8] == 0
    assert [str(m) for m in one.solos] == ["3", "B"]
    both = _split("3BR")
    assert str(both.rocket) == "BR" and 12 in both.actions and both.features[8] == 1
    assert [str(m) for m in both.solos] == ["3"]


@pytest.mark.parametrize("hand,four_two", [("333345", True), ("3333455", True), ("33334", False),
                                           ("3333", False), ("33345", False)])
def test_four_with_two_needs_a_good_bomb_and_two_other_cards(hand, four_two):
    split = _split(hand)
    assert split.four_two is four_two
    assert (16 in split.actions) is four_two


def test_planes_and_long_chains_are_the_other_chains():
    plane = _split("333444")
    assert plane.planes == 1 and [str(m) for m in plane.other] == ["333444"]
    assert 15 in plane.actions and plane.features[6] == 1
    chain = _split("345678")
    assert chain.planes == 0 and [str(m) for m in chain.other] == ["345678"]
    assert 15 in chain.actions and chain.features[6] == 1
    assert 15 not in _split("34567").actions           # a chain of five is actions 13-14


@pytest.mark.parametrize("hand,height", [("34567", 1), ("789TJ", 1), ("89TJQ", 2), ("TJQKA", 2)])
def test_chain_of_five_feature_is_its_top_value_over_five(hand, height):
    # the seed's values: 3 → 1 ... A → 12; the feature is (value of the top card) // 5
    assert _split(hand).features[5] == height


@pytest.mark.parametrize("hand,actions", [
    ("3", (1,)),
    ("357", (1, 2, 3)),
    ("3579J", (1, 2, 3)),           # at most three solo actions: small, middle, large
    ("33557799", (5, 6, 7)),
    ("333555", (8, 9)),
    ("333355557777", (10, 11, 16)),  # two bomb actions, whatever the number of bombs
    ("345679TJQK", (13, 14)),
])
def test_each_category_offers_at_most_its_actions(hand, actions):
    assert _split(hand).actions == actions


@pytest.mark.parametrize("hand,action,move", [
    ("3579J", 1, "3"), ("3579J", 2, "7"), ("3579J", 3, "J"),     # middle: index 5 // 2
    ("3579", 2, "7"),                                            # index 4 // 2
    ("33557799", 5, "33"), ("33557799", 6, "77"), ("33557799", 7, "99"),
    ("333555", 8, "333"), ("333555", 9, "555"),
    ("33335555", 10, "3333"), ("33335555", 11, "5555"),
    ("345679TJQK", 13, "34567"), ("345679TJQK", 14, "9TJQK"),
    ("333357", 16, "333357"),
])
def test_a_lead_action_plays_its_categorys_small_middle_or_large_play(hand, action, move):
    h = Hand(hand)
    split = Q.lead_split(h.bits)
    assert action in split.actions
    played = Q.resolve_lead(split, action, legal_moves(h, STANDARD, None))
    assert played.cards == Hand(move).bits


# -- following
def _follow(hand: str, to_beat: str):
    h = Hand(hand)
    legal = legal_moves(h, STANDARD, detect(Hand(to_beat).bits))
    return h, legal, Q.follow_split(h.bits, legal)


def test_the_follow_split_does_not_depend_on_the_order_of_the_legal_replies():
    h, legal, split = _follow("579JK", "3")
    assert Q.follow_split(h.bits, legal[::-1]) == split
    assert len(split.good) > 1


def test_the_highest_reply_is_the_cheapest_then_the_lowest_of_the_top_rank():
    assert _follow("999566", "3334")[2].highest.cards == Hand("9995").bits   # 9996 breaks 66
    assert _follow("99957", "3334")[2].highest.cards == Hand("9995").bits    # lower kicker


def test_no_ordinary_reply_leaves_only_pass_and_the_bombs():
    _, _, split = _follow("33334", "2")
    assert split.highest is None and split.good == ()
    assert split.actions == (0, 6)


@pytest.mark.parametrize("hand,large", [("44446666", "6666"), ("444466668888", "8888")])
def test_bombs_offer_the_small_and_the_large_bomb(hand, large):
    _, _, split = _follow(hand, "3")
    assert split.actions[-2:] == (6, 7)
    assert Q.resolve_follow(split, 6).cards == Hand("4444").bits
    assert Q.resolve_follow(split, 7).cards == Hand(large).bits


def test_follow_actions_pick_from_the_cheapest_replies_by_rank():
    # five cheap replies 5 7 9 J K: actions 1-4 take indexes 0, n // 2, n // 1.5, n - 1
    _, _, split = _follow("579JK", "3")
    assert split.actions == (0, 1, 2, 3, 4, 5)
    picks = [str(Q.resolve_follow(split, a)) for a in (1, 2, 3, 4)]
    assert picks == ["5", "9", "J", "K"]
    assert str(Q.resolve_follow(split, 5)) == "K"


# -- one decision: the role is (seat - landlord) mod 3 (the seed's bug: seat -1), the owner's
# role is that of the seat whose move is to beat; both are digits of the table row
def _digits(index: int, radix: tuple[int, ...]) -> list[int]:
    out = []
    for n in reversed(radix):
        index, d = divmod(index, n)
        out.append(d)
    return out[::-1]


@pytest.mark.parametrize("seat,landlord,bug,role", [
    (0, 0, False, 0), (1, 0, False, 1), (2, 0, False, 2), (0, 1, False, 2), (0, 2, False, 1),
    (1, 2, False, 2), (0, 0, True, 2), (1, 0, True, 2), (2, 1, True, 1), (2, 2, True, 0),
])
def test_the_lead_row_holds_the_seats_role(seat, landlord, bug, role):
    bits = Hand("3579").bits
    d = Q.decide(bits, legal_moves(Hand("3579"), STANDARD, None), seat, landlord, (17, 17, 17),
                 None, None, role_bug=bug)
    assert d.table == Q.LEAD
    assert _digits(d.state, abstraction.LEAD_RADIX)[-3] == role


@pytest.mark.parametrize("seat,landlord,sizes,first", [
    (1, 0, (1, 17, 17), 4),         # the down farmer: the landlord (previous seat) at one card
    (1, 0, (17, 17, 1), 0),         # the down farmer: the partner (next seat) at one card
    (2, 0, (1, 17, 17), 4),         # the up farmer: the landlord (next seat) at one card
    (2, 0, (17, 1, 17), None),      # the up farmer's partner at one card: nothing forced
    (0, 0, (1, 1, 17), None),       # the landlord: never forced
])
def test_a_farmer_is_offered_the_forced_solo(seat, landlord, sizes, first):
    h = Hand("3579")
    d = Q.decide(h.bits, legal_moves(h, STANDARD, None), seat, landlord, sizes, None, None)
    if first is None:
        assert d.actions == [1, 2, 3]
    else:
        assert d.actions == [first, 1, 2, 3]


@pytest.mark.parametrize("seat,landlord,last_seat,owner", [
    (2, 1, 0, 2), (0, 1, 2, 1), (1, 0, 0, 0), (2, 0, 1, 1), (0, 2, 1, 2),
])
def test_the_follow_row_holds_the_role_of_the_seat_to_beat(seat, landlord, last_seat, owner):
    h = Hand("579JK")
    last = detect(Hand("3").bits)
    legal = legal_moves(h, STANDARD, last)
    d = Q.decide(h.bits, legal, seat, landlord, (17, 17, 17), last, last_seat)
    assert d.table == Q.FOLLOW and d.legal is legal
    assert _digits(d.state, abstraction.FOLLOW_RADIX)[1:3] == [(seat - landlord) % 3, owner]
    assert d.partner is ((seat - landlord) % 3 != 0 and owner != 0)


def test_decide_obs_reads_the_seat_of_the_move_to_beat():
    game = Game(generate_deals(1, seed=5)[0], landlord=0)
    game.play(game.legal_moves()[0])                     # seat 0 leads
    game.play(game.legal_moves()[0])                     # seat 1 beats it (or passes)
    obs = game.observation(2)
    d = Q.decide_obs(obs)
    assert d.table == Q.FOLLOW
    assert _digits(d.state, abstraction.FOLLOW_RADIX)[2] == obs.last_seat


NEEDS_A_LANDLORD = "the Q-learning abstraction needs a three-player game with a landlord"


def test_decide_obs_needs_three_players_and_a_landlord():
    bidding = Game(generate_deals(1, seed=5)[0])          # the landlord is not chosen yet
    assert bidding.landlord is None
    with pytest.raises(ValueError, match=f"^{NEEDS_A_LANDLORD}$"):
        Q.decide_obs(bidding.observation(0))
    duel = Game(generate_deals(1, seed=5, players=2)[0], players=2)
    with pytest.raises(ValueError, match=f"^{NEEDS_A_LANDLORD}$"):
        Q.decide_obs(duel.observation(duel.to_act))


def test_a_row_out_of_range_names_its_table_and_features():
    with pytest.raises(ValueError, match=r"lead features \(0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0\)"):
        Q.lead_index((0,) * 9 + (3, 0, 0))
    with pytest.raises(ValueError, match=r"follow features \(6, 0, 0, 0, 0, 0\) out of range"):
        Q.follow_index((6, 0, 0, 0, 0, 0))


# -- categories with several good plays (alternatives of equal Q in one segment)
def test_other_chains_sort_by_their_top_card():
    split = _split("456789TJQKAA")        # 4..K and 4..A are both a best play of the segment
    assert [str(m) for m in split.other] == ["456789TJQK", "456789TJQKA"]
    legal = legal_moves(Hand("456789TJQKAA"), STANDARD, None)
    assert str(Q.resolve_lead(split, 15, legal)) == "456789TJQK"


def test_three_chains_of_five_still_offer_two_actions():
    split = _split("33456788TJQQQKKAA")
    assert [str(m) for m in split.chain5] == ["34567", "45678", "TJQKA"]
    assert split.actions == (1, 2, 5, 6, 7, 13, 14, 15)    # 15: the other chains, once


def test_a_trio_action_plays_a_trio_even_when_a_plane_holds_it():
    # 555 is a good trio and 444555 a good plane of the same segment; the trio action plays
    # 555 with the kickers of least delta: 44 (from the bomb) and 77 cost the same, 44 is lower
    h = Hand("444455577")
    split = Q.lead_split(h.bits)
    assert [str(m) for m in split.trios] == ["555"] and [str(m) for m in split.other] == ["444555"]
    assert _delta("444455577", "44555") == _delta("444455577", "55577")
    assert Q.resolve_lead(split, 8, legal_moves(h, STANDARD, None)).cards == Hand("44555").bits


def test_a_plane_action_keeps_the_planes_length():
    # the good planes QQQKKK and QQQKKKAAA (the fourth A stays a solo): action 15 plays the
    # first with two solo kickers, not the longer plane of the same rank
    h = Hand("48QQQKKKAAAA")
    split = Q.lead_split(h.bits)
    assert [str(m) for m in split.other] == ["QQQKKK", "QQQKKKAAA"]
    assert Q.resolve_lead(split, 15, legal_moves(h, STANDARD, None)).cards == Hand("48QQQKKK").bits


def test_decide_reads_previous_and_next_hand_sizes_and_the_partner_flag():
    """`decide`: hand_p is the previous seat's size, hand_n the next seat's; following, the
    partner flag is set for a farmer answering the other farmer only."""
    from ddzlab.agents.qlearning.abstraction import (decide, hand_to_state, lead_features,
                                                     lead_index, lead_split)
    game = Game(generate_deals(1, seed=3)[0], landlord=0)
    bits = game.hands[1]
    sizes = (20, 17, 3)                              # seat 1: previous is 0, next is 2
    d = decide(bits, [], 1, 0, sizes, None, None)
    assert d.state == lead_index(lead_features(lead_split(bits), 1, 20, 3))
    assert hand_to_state(20) != hand_to_state(3)     # so a swap would change the row
    assert d.state != lead_index(lead_features(lead_split(bits), 1, 3, 20))
    game.play(game.legal_moves()[0])                 # landlord leads
    for seat, last_seat, partner in ((1, 0, False), (2, 1, True), (0, 1, False), (0, 2, False)):
        moves = game.legal_moves()
        d = decide(game.hands[seat], moves, seat, 0, (20, 17, 17), game.last_move, last_seat)
        assert d.partner is partner, (seat, last_seat)
