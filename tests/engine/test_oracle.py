"""ddzlab's rules against the independent oracle of tests/oracle.py (docs/rules.md).

The oracle classifies cards from the rule text and finds moves by brute force; nothing here
comes from `ddzlab.moves` except the answers under test. Hand-written tables give the
expected answers at every chain limit and for the bomb/rocket order.
"""
from __future__ import annotations

import numpy as np
import pytest

import oracle
from conftest import clumpy_hand, random_hand
from ddzlab.analysis import min_plays
from ddzlab.cards import Hand, pack, unpack
from ddzlab.moves import PASS, Move, detect, legal_moves
from ddzlab.rules import HOMEWORK, MINI, STANDARD, Kind, Rules

RULESETS = [STANDARD, MINI, HOMEWORK]
ids = lambda r: r.name  # noqa: E731


def reading(m: Move) -> tuple:
    return (m.kind, m.rank, m.length)


# -- the oracle's rule text agrees with ddzlab's rule data ---------------------------------------
@pytest.mark.parametrize("rules", RULESETS, ids=ids)
def test_rule_text_matches_rule_data(rules: Rules) -> None:
    rt = oracle.text_of(rules)
    assert pack(rt.deck) == rules.deck
    assert rt.chain_ranks == rules.chain_ranks and rt.rocket == rules.rocket
    text_chains = {(c.kind, c.width, c.step, rt.chain_lengths(c).start, rt.chain_lengths(c).stop - 1)
                   for c in rt.chains}
    data_chains = {(c.kind, c.width, c.step, c.min_len, c.max_len) for c in rules.chains}
    assert text_chains == data_chains
    text_carries = {(c.kind, c.width, c.links, c.kicker_width, tuple(c.kickers(n) for n in c.links))
                    for c in rt.carries}
    data_carries = set()
    for a in rules.attachments:
        width = 3 if a.base in (Kind.TRIO, Kind.TRIO_CHAIN) else 4
        links = tuple(range(a.min_units, a.max_units + 1))
        data_carries.add((a.kind, width, links, a.kicker_width, tuple(a.per_unit * n for n in links)))
    assert text_carries == data_carries
    kinds = ({Kind.SOLO, Kind.PAIR, Kind.TRIO, Kind.BOMB, Kind.ROCKET}
             | {c.kind for c in rt.chains} | {c.kind for c in rt.carries})
    assert kinds == set(rules.kinds)


# -- every chain spec at min-1, min, max, max+1 (explicit answers) -------------------------------
S, M, H = "standard", "mini", "homework"
K = Kind
# (rule set, cards, readings): the first reading is the one ddzlab leads with, the list is the
# oracle's full set; [] = not a combination.
LIMITS = [
    # standard solo chain 5..12
    (S, "3456", []), (S, "34567", [(K.SOLO_CHAIN, "3", 5)]),
    (S, "3456789TJQKA", [(K.SOLO_CHAIN, "3", 12)]), (S, "3456789TJQKA2", []),
    # pair chain 3..12 pairs
    (S, "3344", []), (S, "334455", [(K.PAIR_CHAIN, "3", 3)]),
    (S, "33445566778899TTJJQQKKAA", [(K.PAIR_CHAIN, "3", 12)]), (S, "33445566778899TTJJQQKKAA22", []),
    # trio chain 2..12
    (S, "333", [(K.TRIO, "3", 1)]), (S, "333444", [(K.TRIO_CHAIN, "3", 2)]),
    (S, "333444555666777888999TTTJJJQQQKKKAAA", [(K.TRIO_CHAIN, "3", 12)]),
    (S, "333444555666777888999TTTJJJQQQKKKAAA222", []),
    # plane + solos, 2.. trios (12 trios cannot carry 12 kickers from outside 3..A: 9 is the most)
    (S, "3334", [(K.TRIO_SOLO, "3", 1)]), (S, "33344456", [(K.PLANE_SOLO, "3", 2)]),
    (S, "333444555666777888999TTTJJJQQKKAA22B", [(K.PLANE_SOLO, "3", 9)]),
    (S, "333444555777", [(K.PLANE_SOLO, "3", 3)]),                 # three kickers may be a trio
    (S, "3334445556668889", []), (S, "3334445556669999", []),    # ... four may not; nor a bomb
    (S, "333444555666", [(K.TRIO_CHAIN, "3", 4), (K.PLANE_SOLO, "3", 3), (K.PLANE_SOLO, "4", 3)]),
    (S, "33344455", [(K.PLANE_SOLO, "3", 2)]), (S, "333444BR", [(K.PLANE_SOLO, "3", 2)]),
    # plane + pairs, 2.. trios (7 trios cannot carry 7 pairs of other ranks: 6 is the most)
    (S, "33344", [(K.TRIO_PAIR, "3", 1)]), (S, "3334445566", [(K.PLANE_PAIR, "3", 2)]),
    (S, "33344455566677788899TTJJQQKKAA", [(K.PLANE_PAIR, "3", 6)]),
    (S, "3334445555", []),                                        # two pairs of one rank
    # four + two
    (S, "3333", [(K.BOMB, "3", 1)]), (S, "333345", [(K.FOUR_TWO_SOLO, "3", 1)]),
    (S, "333344", [(K.FOUR_TWO_SOLO, "3", 1)]), (S, "3333BR", [(K.FOUR_TWO_SOLO, "3", 1)]),
    (S, "33334455", [(K.FOUR_TWO_PAIR, "3", 1)]), (S, "33334444", []), (S, "3333444", []),
    (S, "BR", [(K.ROCKET, "B", 1)]), (S, "2B", []), (S, "3579J", []), (S, "9999TTTT", []),
    # mini: solo chains 5..6, pair chains 3..6, trio chains 2..3, planes 2..3, quad chain 2
    (M, "9TJQ", []), (M, "9TJQK", [(K.SOLO_CHAIN, "9", 5)]), (M, "9TJQKA", [(K.SOLO_CHAIN, "9", 6)]),
    (M, "9TJQKA2", []),
    (M, "99TT", []), (M, "99TTJJ", [(K.PAIR_CHAIN, "9", 3)]),
    (M, "99TTJJQQKKAA", [(K.PAIR_CHAIN, "9", 6)]), (M, "99TTJJQQKKAA22", []),
    (M, "999", [(K.TRIO, "9", 1)]), (M, "999TTT", [(K.TRIO_CHAIN, "9", 2)]),
    (M, "999TTTJJJ", [(K.TRIO_CHAIN, "9", 3)]),
    (M, "999TTTJJJQQQ", [(K.PLANE_SOLO, "T", 3), (K.PLANE_SOLO, "9", 3)]),  # no trio chain of 4
    (M, "999J", [(K.TRIO_SOLO, "9", 1)]), (M, "999TTTQK", [(K.PLANE_SOLO, "9", 2)]),
    (M, "999TTTJJJKA2", [(K.PLANE_SOLO, "9", 3)]), (M, "999TTTJJJQQQKA2B", []),
    (M, "999KK", [(K.TRIO_PAIR, "9", 1)]), (M, "999TTTKKAA", [(K.PLANE_PAIR, "9", 2)]),
    (M, "999TTTJJJKKAA22", [(K.PLANE_PAIR, "9", 3)]),   # 4 trios + 4 pairs: not in a 30-card deck
    (M, "9999", [(K.BOMB, "9", 1)]), (M, "9999TTTT", [(K.QUAD_CHAIN, "9", 2)]),
    (M, "KKKKAAAA", [(K.QUAD_CHAIN, "K", 2)]), (M, "AAAA2222", []), (M, "9999TTTTJJJJ", []),
    (M, "9999JQ", [(K.FOUR_TWO_SOLO, "9", 1)]), (M, "9999TTTTJQ", [(K.QUAD_CHAIN_SOLO, "9", 2)]),
    (M, "9999TTTTJJ", [(K.QUAD_CHAIN_SOLO, "9", 2)]), (M, "9999TTTTBR", [(K.QUAD_CHAIN_SOLO, "9", 2)]),
    (M, "9999TTTTJJJJQK", []),
    (M, "9999JJQQ", [(K.FOUR_TWO_PAIR, "9", 1)]), (M, "9999TTTTJJQQ", [(K.QUAD_CHAIN_PAIR, "9", 2)]),
    (M, "9999TTTTJJJJQQKK", []),
    # homework: gapped solo chains 5..6, gapped pair chains 3..6, gapped trio chains 2..6
    (H, "3579", []), (H, "3579J", [(K.GAP_SOLO_CHAIN, "3", 5)]), (H, "3579JK", [(K.GAP_SOLO_CHAIN, "3", 6)]),
    (H, "468TQA", [(K.GAP_SOLO_CHAIN, "4", 6)]), (H, "3579JK2", []),
    (H, "3355", []), (H, "335577", [(K.GAP_PAIR_CHAIN, "3", 3)]),
    (H, "33557799JJ", [(K.GAP_PAIR_CHAIN, "3", 5)]), (H, "33557799JJKK", [(K.GAP_PAIR_CHAIN, "3", 6)]),
    (H, "33557799JJKK22", []),
    (H, "333555", [(K.GAP_TRIO_CHAIN, "3", 2)]),
    (H, "333555777999JJJKKK", [(K.GAP_TRIO_CHAIN, "3", 6)]), (H, "333555777999JJJKKK222", []),
    # ... the standard chains too, and no planes with wings
    (H, "3456", []), (H, "34567", [(K.SOLO_CHAIN, "3", 5)]),
    (H, "3456789TJQKA", [(K.SOLO_CHAIN, "3", 12)]), (H, "3456789TJQKA2", []),
    (H, "3344", []), (H, "334455", [(K.PAIR_CHAIN, "3", 3)]),
    (H, "33445566778899TTJJQQKKAA", [(K.PAIR_CHAIN, "3", 12)]), (H, "33445566778899TTJJQQKKAA22", []),
    (H, "333444", [(K.TRIO_CHAIN, "3", 2)]),
    (H, "333444555666777888999TTTJJJQQQKKKAAA", [(K.TRIO_CHAIN, "3", 12)]),
    (H, "333444555666", [(K.TRIO_CHAIN, "3", 4)]),
    (H, "33344456", []), (H, "3334445566", []), (H, "3334", [(K.TRIO_SOLO, "3", 1)]),
    (H, "33334455", [(K.FOUR_TWO_PAIR, "3", 1)]), (H, "2222BR", [(K.FOUR_TWO_SOLO, "2", 1)]),
]


def _expected(readings):
    return [(kind, oracle.RANKS.index(rank), n) for kind, rank, n in readings]


@pytest.mark.parametrize("name,text,want", LIMITS, ids=[f"{n}-{t}" for n, t, _ in LIMITS])
def test_chain_limits_and_kickers(name: str, text: str, want: list) -> None:
    rules = {r.name: r for r in RULESETS}[name]
    want = _expected(want)
    assert oracle.readings(oracle.counts(text), oracle.text_of(name)) == frozenset(want)
    got = detect(text, rules)
    if not want:
        assert got is None, f"{text} should be no {name} combination, ddzlab reads {got!r}"
    else:
        assert got is not None and reading(got) == want[0], (text, got)


def test_every_chain_spec_has_its_limits_in_the_table() -> None:
    """Each chain kind of each rule set appears at min-1 (or its unit), min, max and max+1."""
    for rules in RULESETS:
        rt = oracle.text_of(rules)
        rows = [oracle.readings(oracle.counts(t), rt) for n, t, _ in LIMITS if n == rules.name]
        for ch in rt.chains:
            lengths = rt.chain_lengths(ch)
            found = {n for rs in rows for k, _, n in rs if k == ch.kind}
            assert {lengths.start, lengths.stop - 1} <= found, (rules.name, ch.kind, found)


# -- random hands: leading moves, replies and detect -------------------------------------------
def check_leading(hand: Hand, rules: Rules, want: dict) -> None:
    moves = legal_moves(hand, rules)
    got = {m.cards: m for m in moves}
    assert len(got) == len(moves), f"{hand}: a card set is listed twice"
    missing, extra = set(want) - set(got), set(got) - set(want)
    assert not missing and not extra, (
        f"{rules.name} {hand}: ddzlab lacks {[str(Hand.from_bits(b)) for b in missing][:5]}, "
        f"has extra {[str(Hand.from_bits(b)) for b in extra][:5]}")
    for bits, m in got.items():
        assert reading(m) in want[bits], (str(hand), m, want[bits])


def hand_sizes(rules: Rules) -> list[int]:
    """Small hands (plain brute force) and full hands (the candidate enumeration)."""
    full = rules.hand_size + rules.kitty_size
    return list(range(0, 15 if rules is not MINI else 13)) + [rules.hand_size, full]


@pytest.mark.parametrize("rules", RULESETS, ids=ids)
def test_leading_moves_equal_the_oracle(rules: Rules) -> None:
    rng = np.random.default_rng(11 + len(rules.name))
    for i in range(5):
        for size in hand_sizes(rules):
            hand = (random_hand if i else clumpy_hand)(rng, rules, size)
            check_leading(hand, rules, oracle.leading_moves(hand, rules))


@pytest.mark.parametrize("rules", RULESETS, ids=ids)
def test_replies_equal_the_oracle(rules: Rules) -> None:
    """Replies to a random reading of a random move: same card sets as the oracle's (a set of
    cards may reply when any of its readings beats), each read as a reading that beats."""
    rng = np.random.default_rng(29 + len(rules.name))
    deck = Hand.from_bits(rules.deck)
    kinds = set()
    for i in range(100):
        opener = (random_hand if i % 2 else clumpy_hand)(rng, rules, int(rng.integers(4, 21 if rules is not MINI else 13)))
        leads = sorted(oracle.leading_moves(opener, rules).items())
        bits, found = leads[rng.integers(len(leads))]
        kind, rank, length = sorted(found)[rng.integers(len(found))]
        to_beat = Move(kind, rank, length, bits)
        kinds.add(kind)
        rest = deck - Hand.from_bits(bits)
        size = int(rng.integers(1, min(len(rest), 20) + 1))
        hand = Hand.from_ranks(rng.permutation(rest.ranks())[:size].tolist()) if i % 3 else \
            clumpy_hand(rng, rules, min(size, 14))
        want = oracle.replies(hand, rules, (kind, rank, length))
        moves = legal_moves(hand, rules, to_beat)
        assert moves[-1] is PASS
        got = {m.cards for m in moves}
        assert len(got) == len(moves)
        assert got == want, (f"{rules.name} {hand} vs {to_beat!r}: ddzlab lacks "
                             f"{[str(Hand.from_bits(b)) for b in want - got][:5]}, extra "
                             f"{[str(Hand.from_bits(b)) for b in got - want][:5]}")
        for m in moves[:-1]:
            assert oracle.beats(reading(m), (kind, rank, length))
            assert reading(m) in oracle.readings(tuple(unpack(m.cards)), oracle.text_of(rules))
    assert len(kinds) >= 6, kinds


@pytest.mark.parametrize("rules", RULESETS, ids=ids)
def test_detect_equals_the_oracle_on_every_subset(rules: Rules) -> None:
    """detect on every sub-multiset of a few small hands: None exactly for non-combinations."""
    rng = np.random.default_rng(5)
    rt = oracle.text_of(rules)
    checked = 0
    for _ in range(4):
        hand = clumpy_hand(rng, rules, 10)
        for sub in oracle.submultisets(hand.counts):
            want = oracle.readings(sub, rt)
            got = detect(pack(sub), rules)
            assert (got is None) == (not want), (Hand(sub), got, want)
            if got is not None:
                assert reading(got) in want
            checked += 1
    assert checked > 400


def test_candidate_enumeration_is_complete() -> None:
    """The oracle's fast path for big hands finds exactly what plain brute force finds."""
    rng = np.random.default_rng(3)
    for rules in RULESETS:
        for i in range(12):
            hand = (random_hand if i % 2 else clumpy_hand)(rng, rules, 11)
            assert oracle.leading_moves_candidates(hand, rules) == oracle.leading_moves_plain(hand, rules)


def test_wild_readings_try_every_rank() -> None:
    rt = oracle.STANDARD
    got = {(k, oracle.RANKS[r], n, took) for k, r, n, took in oracle.wild_readings(oracle.counts("4567"), 1, rt)}
    assert {(K.SOLO_CHAIN, "3", 5, (0,)), (K.SOLO_CHAIN, "4", 5, (5,))} <= got
    assert all(k == K.SOLO_CHAIN for k, *_ in got) and len(got) == 2
    three = oracle.wild_readings(oracle.counts("333"), 1, rt)
    assert {(k, r) for k, r, _, _ in three} == {(K.BOMB, 0)} | {(K.TRIO_SOLO, 0)}
    assert oracle.wild_readings(oracle.counts("3333"), 1, rt) == set()   # no five-card bombs


# -- bombs and the rocket ---------------------------------------------------------------------
# the highest move of every non-bomb kind of each rule set
TOP = {
    "standard": ["R", "22", "222", "222A", "222AA", "89TJQKA", "QQKKAA", "KKKAAA", "KKKAAA22",
                 "KKKAAA22QQ", "2222BR", "2222AAKK"],
    "mini": ["R", "22", "222", "222A", "222AA", "TJQKA", "QQKKAA", "KKKAAA", "KKKAAA22", "KKKAAA22QQ",
             "2222BR", "2222AAKK", "KKKKAAAA", "KKKKAAAA2B", "KKKKAAAA22QQ"],
    "homework": ["R", "22", "222", "222A", "222AA", "89TJQKA", "QQKKAA", "KKKAAA", "2222BR",
                 "2222AAKK", "68TQA", "TTQQAA", "QQQAAA"],
}


@pytest.mark.parametrize("rules", RULESETS, ids=ids)
def test_bomb_and_rocket_ordering_table(rules: Rules) -> None:
    rt = oracle.text_of(rules)
    bombs = [detect(oracle.RANKS[r] * 4, rules) for r in rt.deck_ranks if r < oracle.RB]
    rocket = detect("BR", rules)
    others = [detect(t, rules) for t in TOP[rules.name]]
    assert {m.kind for m in others} == set(rules.kinds) - {K.BOMB, K.ROCKET}
    assert all(len(oracle.readings(tuple(unpack(m.cards)), rt)) == 1 for m in others + bombs)
    assert len(bombs) == (13 if rules is not MINI else 7) and rocket.kind == K.ROCKET
    # the table as the rule text states it
    for a in bombs:
        for b in bombs:
            assert a.beats(b) == (a.rank > b.rank), (a, b)
        assert rocket.beats(a) and not a.beats(rocket)
        for x in others:
            assert a.beats(x) and not x.beats(a), (a, x)
    assert not rocket.beats(rocket)
    for x in others:
        assert rocket.beats(x) and not x.beats(rocket)
        for y in others:
            assert x.beats(y) == (x.kind == y.kind and x.length == y.length and x.rank > y.rank)
    # the same through legal_moves, and the oracle's order agrees on every pair
    everything = bombs + [rocket] + others
    holder = Hand.from_bits(sum(m.cards for m in bombs + [rocket]))
    for b in everything:
        replies = {m.cards for m in legal_moves(holder, rules, b)}
        assert replies == {m.cards for m in bombs + [rocket] if m.beats(b)} | {0}, b
        for a in everything:
            assert a.beats(b) == oracle.beats(reading(a), reading(b))


# -- fewest plays against a brute force on the oracle's moves ----------------------------------
FEWEST = [("32222B", STANDARD, 1), ("JJJJQQQKKKAR", HOMEWORK, 2), ("33334444", STANDARD, 2),
          ("22223B", HOMEWORK, 1), ("AAAA2222BR", STANDARD, 2), ("9999TTTTJQ", MINI, 1),
          ("33557799JJKK", HOMEWORK, 1), ("3334445556669999", STANDARD, 2)]


@pytest.mark.parametrize("text,rules,want", FEWEST, ids=[f"{t}-{r.name}" for t, r, _ in FEWEST])
def test_min_plays_crafted(text: str, rules: Rules, want: int) -> None:
    assert oracle.fewest_plays(text, rules) == want
    for h in ("zero", "ceil", "strong"):
        got = min_plays(text, rules, heuristic=h)
        assert got.plays == want and got.root_h <= want, (h, got.plays, got.root_h)


@pytest.mark.parametrize("rules", RULESETS, ids=ids)
def test_min_plays_equals_oracle_fewest_plays(rules: Rules) -> None:
    rng = np.random.default_rng(41 + len(rules.name))
    for i in range(60):
        hand = (random_hand if i % 3 == 0 else clumpy_hand)(rng, rules, int(rng.integers(1, 12)))
        want = oracle.fewest_plays(hand, rules)
        got = min_plays(hand, rules)
        assert got.plays == want and got.root_h <= want, (str(hand), got.plays, got.root_h, want)
