import pytest
from hypothesis import given, strategies as st

from ddzlab.cards import FULL_DECK_BITS, Hand, bits_contain, format_bits, pack, unpack
from ddzlab.errors import CardError


def test_parse_notations_agree():
    assert Hand("3 3 4 10 J q k A 2 x D") == Hand("334TJQKA2BR")
    assert Hand("bR") == Hand("XD") == Hand("BR")
    assert str(Hand("R B 2 3")) == "32BR"


@pytest.mark.parametrize("text, word", [("33Z", "'Z'"), ("1", "'1'"), ("3*", "'*'")])
def test_unknown_symbol_is_named(text, word):
    with pytest.raises(CardError, match=word):
        Hand(text)


def test_too_many_copies_named():
    with pytest.raises(CardError, match="5 copies of '3'"):
        Hand("33333")
    with pytest.raises(CardError, match="2 copies of 'B'"):
        Hand("BB")


def test_subtract_missing_cards_is_an_error_and_names_them():
    with pytest.raises(CardError, match="missing 55"):
        Hand("3345") - Hand("555")
    assert Hand("3345") - Hand("35") == Hand("34")


def test_hand_is_immutable_and_hashable():
    h = Hand("345")
    with pytest.raises(AttributeError):
        h.bits = 0
    assert {h: 1}[Hand("543")] == 1


counts_st = st.tuples(*[st.integers(0, 4)] * 13, st.integers(0, 1), st.integers(0, 1))


@given(counts_st)
def test_pack_unpack_and_text_round_trip(counts):
    h = Hand(counts)
    assert tuple(unpack(h.bits)) == counts
    assert Hand(str(h)) == h
    assert len(h) == sum(counts)
    assert h in Hand.from_bits(FULL_DECK_BITS)


@given(counts_st, counts_st)
def test_swar_containment_matches_counts(a, b):
    expected = all(x >= y for x, y in zip(a, b))
    assert bits_contain(pack(a), pack(b)) == expected
    if expected:
        assert unpack(pack(a) - pack(b)) == [x - y for x, y in zip(a, b)]
        assert format_bits(pack(a) - pack(b)) == str(Hand(a) - Hand(b))
