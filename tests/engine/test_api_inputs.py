"""Bad input to the public API raises a ValueError subclass naming the problem: any value
of any type, drawn by hypothesis, into the move parser,
the move generator, detection and the game's bid and play, and a failed action leaves the
game as it was."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from ddzlab.cards import Hand, bits_contain
from ddzlab.deals import generate_deals
from ddzlab.errors import DdzError
from ddzlab.game import Game
from ddzlab.moves import PASS, detect, legal_moves, parse_move
from ddzlab.rules import RULESETS, STANDARD, WILDCARD, get_rules

#: anything a caller might pass by mistake
ANY = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
                st.text(max_size=12), st.text("3456789TJQKA2BRF=", max_size=25),
                st.lists(st.integers(-3, 5), max_size=16), st.builds(object),
                st.sampled_from(["standard", "wildcard", "mini", "chess", "STANDARD", ""]))
RULES = st.one_of(st.sampled_from(list(RULESETS.values())), st.sampled_from(list(RULESETS)), ANY)


def _ok_or_value_error(f, *args, **kw):
    try:
        return f(*args, **kw)
    except DdzError:
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cards=ANY, rules=RULES)
def test_detect_and_parse_raise_only_value_errors(cards, rules):
    m = _ok_or_value_error(detect, cards, rules)
    if m is not None:
        assert m is PASS or m.cards > 0
    _ok_or_value_error(parse_move, cards, rules)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=ANY, rules=RULES, to_beat=st.one_of(st.none(), ANY))
def test_legal_moves_raise_only_value_errors(hand, rules, to_beat):
    moves = _ok_or_value_error(legal_moves, hand, rules, to_beat)
    if moves is not None:             # whatever it accepted, it lists real moves of the hand
        r = get_rules(rules)
        bits = hand.bits if isinstance(hand, Hand) else hand if isinstance(hand, int) else Hand(hand).bits
        assert all(m is PASS or bits_contain(bits, m.cards) for m in moves)
        assert len(moves) < 20_000 and r.check_hand(bits) is None


def test_the_cases_the_review_found():
    for f in (lambda: detect(-1), lambda: legal_moves(-1), lambda: legal_moves(-1, WILDCARD),
              lambda: legal_moves(True)):
        with pytest.raises(DdzError, match="non-negative int"):
            f()
    assert parse_move("33", "standard") == parse_move("33", STANDARD)
    assert legal_moves("3344", "standard") == legal_moves("3344", STANDARD)
    assert legal_moves("3344", to_beat="33") == legal_moves("3344", to_beat=parse_move("33"))
    assert [str(m) for m in legal_moves("3344", to_beat="33")] == ["44", "pass"]
    assert len(generate_deals(2, seed=0, rules="wildcard")[0].hands) == 3


@settings(max_examples=200, deadline=None)
@given(value=ANY)
def test_make_bid_takes_only_integer_bids_and_leaves_the_game_unchanged(value):
    game = Game(seed=1)
    before = (game.bids[:], game.bid, game.to_act, game.phase)
    try:
        game.make_bid(value)
    except DdzError:
        assert (game.bids, game.bid, game.to_act, game.phase) == before
        assert game.legal_bids() and game.observation(game.to_act).legal_bids
        return
    assert type(value) is int and value in (0, 1, 2, 3)
    assert game.bids[-1] == (0, value)


@pytest.mark.parametrize("value", [2.5, 1.0, True, False, "1", np.float64(2), None, [1]])
def test_make_bid_refuses_floats_bools_and_text(value):
    game = Game(seed=1)
    with pytest.raises(DdzError, match="a bid is an integer"):
        game.make_bid(value)
    assert game.bids == [] and game.legal_bids() == [0, 1, 2, 3]
    game.make_bid(np.int64(2))                               # numpy integers are integers
    assert game.bids == [(0, 2)]


def test_playing_no_cards_is_a_pass():
    game = Game(seed=1, landlord=0)
    with pytest.raises(DdzError, match="cannot pass: it leads"):
        game.play(Hand(""))
    game.play(game.legal_moves()[0])
    assert game.play(Hand("")) is PASS


@pytest.mark.parametrize("rules", ["standard", "mini", "homework", "wildcard"])
def test_cards_above_the_card_slots_are_refused(rules):
    """An int with bits above the 16 four-bit slots once slipped through the deck check
    (the borrow of the guard-bit test went past the top slot) and reached the generator."""
    from ddzlab.cards import N_SLOTS
    beyond = 1 << (4 * N_SLOTS + 5)
    for cards in (0x98DA91CC0AEC102F011F0F020, beyond, beyond | 1):
        with pytest.raises(DdzError, match="above the 16 card slots"):
            detect(cards, rules)
        with pytest.raises(DdzError, match="above the 16 card slots"):
            legal_moves(cards, rules)
    assert get_rules(rules).check_hand(0) is None
