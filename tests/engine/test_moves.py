"""The move generator: properties on random hands of every rule set, and hand-checked cases."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

from conftest import hands, random_hand
from ddzlab.cards import Hand, unpack
from ddzlab.errors import CardError, IllegalCombinationError, RulesError
from ddzlab.moves import PASS, detect, find_move, generator, legal_moves, parse_move
from ddzlab.rules import HOMEWORK, MINI, STANDARD, Kind

ALL_RULES = [STANDARD, MINI, HOMEWORK]


def cards(moves):
    return sorted(str(m) for m in moves)


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
@given(data=st.data())
def test_every_leading_move_is_detected_as_itself_and_fits_the_hand(rules, data):
    hand = data.draw(hands(rules, max_size=20))
    moves = legal_moves(hand, rules)
    assert len({m.cards for m in moves}) == len(moves), "a card set is listed twice"
    for m in moves:
        assert m in hand
        rest = hand - m
        assert len(rest) == len(hand) - m.size
        assert detect(m.cards, rules) == m
        assert m.main + m.kickers == m.cards and Hand.from_bits(m.main) in hand
        assert m.kind in rules.kinds


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
@given(data=st.data())
def test_fast_leading_path_equals_general_enumeration(rules, data):
    hand = data.draw(hands(rules, max_size=24))
    gen = generator(rules)
    everything = gen.collect(unpack(hand.bits))
    assert set(gen.leading(hand.bits)) == set(everything)
    rank = data.draw(st.sampled_from(rules.ranks))
    assert set(gen.collect(unpack(hand.bits), rank=rank)) == {m for m in everything if m.rank == rank}


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
@given(data=st.data())
def test_every_reply_beats_and_every_beating_move_is_a_reply(rules, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    deck = Hand.from_bits(rules.deck)
    first = random_hand(rng, rules, min(rules.hand_size + 3, len(deck)))
    options = legal_moves(first, rules)
    to_beat = options[rng.integers(len(options))]
    hand = random_hand(rng, rules, min(20, len(deck))) if rules is not MINI else \
        Hand.from_ranks(rng.permutation((deck - first).ranks())[:12].tolist())
    replies = legal_moves(hand, rules, to_beat)
    assert replies[-1] is PASS and PASS not in replies[:-1]
    assert all(m.beats(to_beat) and m in hand for m in replies[:-1])
    # every leading move that beats to_beat reads (perhaps as a plane) among the replies
    reply_cards = {m.cards for m in replies}
    for m in legal_moves(hand, rules):
        if m.beats(to_beat):
            assert m.cards in reply_cards, (str(hand), str(to_beat), str(m))


def test_standard_crafted_kickers():
    # B+R may be the two kickers of four+two and of a plane
    assert detect("2222BR").kind == Kind.FOUR_TWO_SOLO
    assert detect("333444BR").kind == Kind.PLANE_SOLO
    # a pair may serve as the two solo kickers; both pairs of 4+2 may not come from one bomb
    assert detect("333355").kind == Kind.FOUR_TWO_SOLO
    assert detect("33334444") is None
    assert detect("3333445566") is None
    assert detect("33334455").kind == Kind.FOUR_TWO_PAIR
    # planes whose kickers hold a whole bomb or a trio next to the chain are not moves
    assert detect("3334445556669999") is None
    assert detect("3334445556667779") is None
    # ... but three solo kickers of one rank are (three-trio plane)
    m = detect("333444555999")
    assert (m.kind, m.rank, m.length) == (Kind.PLANE_SOLO, 0, 3)
    assert detect("333444555666").kind == Kind.TRIO_CHAIN
    # kicker sharing a rank with the main part is not a trio + solo
    assert detect("3333").kind == Kind.BOMB and detect("33334") is None and detect("3334").kind == Kind.TRIO_SOLO
    # the longest solo chain, and 2 never chains
    assert detect("3456789TJQKA").length == 12
    assert detect("TJQKA2") is None
    assert detect("BR").kind == Kind.ROCKET and detect("2B") is None


def test_plane_follows_with_the_higher_reading():
    to_beat = detect("333444555789")
    replies = legal_moves(Hand("444555666777"), STANDARD, to_beat)
    planes = [m for m in replies if m.kind == Kind.PLANE_SOLO]
    assert [(str(m), m.rank_char) for m in planes] == [("444555666777", "5")]


def test_bombs_and_rocket_ordering():
    bomb3, bomb2, rocket = detect("3333"), detect("2222"), detect("BR")
    assert bomb2.beats(bomb3) and not bomb3.beats(bomb2)
    assert rocket.beats(bomb2) and not bomb2.beats(rocket)
    assert bomb3.beats(detect("3456789TJQKA"))
    assert legal_moves(Hand("2222BR"), STANDARD, rocket) == [PASS]
    assert cards(legal_moves(Hand("33332222BR"), STANDARD, detect("4444"))) == cards(
        [detect("2222"), rocket, PASS])


def test_mini_hand_checked_lists():
    got = cards(legal_moves(Hand("9999TTTTJQ"), MINI))
    expected = sorted(
        "9 T J Q 99 TT 999 TTT 9999 TTTT 999T 999J 999Q TTT9 TTTJ TTTQ 999TT TTT99 999TTT "
        "999TTTJQ 9999TT 9999TJ 9999TQ 9999JQ TTTT99 TTTT9J TTTT9Q TTTTJQ 9999TTTT 9999TTTTJQ".split())
    assert got == sorted(str(Hand(t)) for t in expected)
    assert cards(legal_moves(Hand("9TJQKA"), MINI)) == sorted(
        ["9", "T", "J", "Q", "K", "A", "9TJQK", "TJQKA", "9TJQKA"])
    # 航天飞机 with two pairs; four+two pairs still excludes both pairs from one quad
    ship = detect("9999TTTTJJQQ", MINI)
    assert (ship.kind, ship.rank, ship.length) == (Kind.QUAD_CHAIN_PAIR, 6, 2)
    assert detect("9999TTTT", MINI).kind == Kind.QUAD_CHAIN
    assert detect("9999TTTT", STANDARD) is None
    # mini has no trio chain of four: the twelve cards read as the higher plane
    m = detect("999TTTJJJQQQ", MINI)
    assert (m.kind, str(m.main)) == (Kind.PLANE_SOLO, str(Hand("TTTJJJQQQ").bits))
    # mini solo chains are 5-6 long
    assert detect("9TJQK", MINI).kind == Kind.SOLO_CHAIN and detect("9TJQKA2", MINI) is None
    with pytest.raises(RulesError, match="more 3, 4, 5, 6, 7, 8 than the mini deck"):
        detect("3456789", MINI)


def test_homework_gapped_chains():
    assert detect("3579J", HOMEWORK).kind == Kind.GAP_SOLO_CHAIN
    assert detect("3579JK", HOMEWORK).length == 6
    assert detect("3579JKA", HOMEWORK) is None
    assert detect("335577", HOMEWORK).kind == Kind.GAP_PAIR_CHAIN
    assert detect("333555", HOMEWORK).kind == Kind.GAP_TRIO_CHAIN
    assert detect("33344456", HOMEWORK) is None  # no planes with wings
    assert detect("3579J", STANDARD) is None


def test_bad_input_raises_named_errors():
    with pytest.raises(IllegalCombinationError, match="3456 is not a combination"):
        parse_move("3456")
    with pytest.raises(CardError, match="'Z'"):
        parse_move("33Z")
    with pytest.raises(RulesError, match="more 3, 4, 5 than the mini deck"):
        legal_moves(Hand("345"), MINI)
    with pytest.raises(RulesError, match="not a combination of the standard rules"):
        legal_moves(Hand("3456789"), STANDARD, detect("3579J", HOMEWORK))
    assert parse_move(" pass ") is PASS
    with pytest.raises(IllegalCombinationError, match="no cards given"):
        parse_move("   ")                       # empty text is not a pass
    with pytest.raises(RulesError, match="mini deck"):
        parse_move("3", MINI)
    assert find_move(legal_moves(Hand("3345")), "33") == detect("33")


def test_moves_are_immutable_values():
    m = detect("33344458")
    with pytest.raises(AttributeError):
        m.rank = 5
    assert m == parse_move("33344458") and hash(m) == hash(parse_move("3334 4458"))
    assert detect("") is PASS
