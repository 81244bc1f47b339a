"""Feature transformers on hand-checked hands."""
import pytest
from sklearn.base import clone

from ddzlab.bidding.data import hands_frame
from ddzlab.bidding.features import (ChainFeatures, GroupCounts, RankCounts, SeedFeatures,
                                     longest_run, make_features)

# hand-checked: jokers R=2,B=1; bombs exclude the rocket; 2s
SEED_CASES = [
    ("3333456789TJQ22BR", (3, 1, 2)),
    ("34567899TTJQKKAAB", (1, 0, 0)),
    ("3456789TJQKA2222R", (2, 1, 4)),
    ("33334444555566667", (0, 4, 0)),
    ("3456789TJQKAA22BR", (3, 0, 2)),
]


@pytest.mark.parametrize("cards, expected", SEED_CASES)
def test_seed_features(cards, expected):
    assert SeedFeatures().fit_transform([cards]).tolist() == [list(map(float, expected))]


def test_seed_features_on_frame_keep_order_and_names():
    df = hands_frame([c for c, _ in SEED_CASES])
    tr = SeedFeatures().fit(df)
    assert tr.transform(df).tolist() == [list(map(float, e)) for _, e in SEED_CASES]
    assert list(tr.get_feature_names_out()) == ["jokers", "bombs", "twos"]
    assert tr.transform(df.iloc[:0]).shape == (0, 3)
    assert clone(tr).get_params() == {}


def test_rank_counts():
    row = RankCounts().fit_transform(["3334TTK2BR"])[0]
    assert row.tolist() == [3, 1, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 1, 1, 1]


def test_group_counts_hand_checked():
    names = list(GroupCounts().get_feature_names_out())
    row = dict(zip(names, GroupCounts().fit_transform(["3334567TTJQKKAA2B"])[0]))
    # 3334567 -> 7 low; TTJ -> 3 mid (8..J); QKK -> 3 high; AA; 2; B
    assert (row["low_3_7"], row["mid_8_J"], row["high_Q_K"], row["aces"], row["twos"]) == (7, 3, 3, 2, 1)
    assert (row["black_joker"], row["red_joker"], row["rocket"], row["control"]) == (1, 0, 0, 4)
    # shape over 3..2: singles 4,5,6,7,J,Q,2 ; pairs T,K,A ; trio 3
    assert (row["singles"], row["pairs"], row["trios"], row["quads"]) == (7, 3, 1, 0)
    assert row["distinct"] == 12


def test_chain_features_hand_checked():
    names = list(ChainFeatures().get_feature_names_out())
    f = lambda cards: dict(zip(names, ChainFeatures().fit_transform([cards])[0]))
    a = f("34567799JQK22BRAA")           # run 3..7; 9 pair; J Q K A run of 4
    assert (a["solo_run"], a["pair_run"], a["trio_run"], a["max_move"], a["loose_low"]) == (5, 0, 0, 5, 1)
    b = f("334455666777TJQKA")           # pairs 33 44 55 + trios 666 777; T..A run of 5... plus 3..7
    assert (b["solo_run"], b["pair_run"], b["trio_run"]) == (5, 5, 2)
    assert b["max_move"] == 10 and b["loose_low"] == 0
    c = f("3579JKA22BR" + "3579JK")      # nothing consecutive: no chain; singles none (all pairs)
    assert (c["solo_run"], c["pair_run"], c["max_move"], c["loose_low"]) == (0, 0, 2, 0)


def test_longest_run_ignores_twos_and_jokers():
    counts = [0] * 15
    for r in (8, 9, 10, 11, 12, 13, 14):  # J Q K A 2 B R
        counts[r] = 1
    assert longest_run(counts, 1) == 4


def test_feature_union_names_and_width():
    tr = make_features("shape").fit(["3"])
    X = tr.transform(hands_frame(["3456789TJQKA2BR22"]))
    assert X.shape == (1, len(tr.get_feature_names_out())) == (1, 3 + 15 + 14 + 5)
    with pytest.raises(ValueError, match="unknown feature set"):
        make_features("nope")


def test_compact_features_hand_checked():
    from ddzlab.bidding.features import CompactFeatures
    tr = CompactFeatures().fit(["3"])
    assert list(tr.get_feature_names_out()) == ["red_joker", "black_joker", "twos", "aces",
                                                 "bombs", "trios", "solo_run"]
    # 3333 bomb; 555 trio; 3..J all present: a run of 9
    assert tr.transform(["33334555678899TJAB"]).tolist() == [[0, 1, 0, 1, 1, 1, 9]]
    # no run of five (K A 2 do not chain past A): solo_run 0; two trios; rocket
    assert tr.transform(["QQQKKKAA22BR3579J"]).tolist() == [[1, 1, 2, 2, 0, 2, 0]]


def test_fewest_plays_feature_hand_checked():
    from ddzlab.bidding.features import FewestPlays
    tr = FewestPlays().fit(["3"])
    # 3..A chain, 222, BR: three plays, no small solos or pairs
    assert tr.transform(["3456789TJQKA222BR"]).tolist() == [[3, 0, 0]]
    assert tr.transform(["3579"]).tolist() == [[4, 4, 0]]        # four loose solos
    assert tr.transform(["3355"]).tolist() == [[2, 0, 2]]        # two pairs, no chain
    assert tr.transform(["AA22"]).tolist() == [[2, 0, 0]]        # A and 2 are not "small"


def test_power_and_greedy_features_are_wired_to_analysis():
    from ddzlab.analysis.greedy import greedy_q, greedy_split
    from ddzlab.analysis.power import hand_power
    from ddzlab.bidding.features import GreedySplitValue, HandPower
    hand = "3456789TJQKA222BR"
    p = HandPower().fit_transform([hand])[0]
    assert p[0] == hand_power(hand).power and p[1] == len(hand_power(hand).moves)
    g = GreedySplitValue().fit_transform([hand, "3"])
    assert g[0, 0] == len(greedy_split(hand)) and g[0, 1] == greedy_q(hand).max_q
    assert g[1].tolist() == [1, 1]   # a single card empties the hand: Q = MAX_Q + 1 - MAX_Q
    X = make_features("rich").fit_transform([hand])
    assert X.shape == (1, len(make_features("rich").get_feature_names_out()))
