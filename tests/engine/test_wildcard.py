"""The wildcard rule set (花牌, docs/rules.md#other-rule-sets) against the independent oracle of tests/oracle.py.

The oracle tries each of the 12 ranks the flower card ``F`` may stand for, classifies the
natural cards plus that rank from the rule text and de-duplicates (`oracle.wild_leading`);
nothing here comes from `ddzlab.moves` except the answers under test. Crafted cases pin the
notation (``45678F=9``), the two readings of ``45678F`` and ``333F``, the bomb order (soft
bombs below natural ones) and the plane wings of distinct ranks.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import oracle
from conftest import clumpy_hand, hands, random_hand
from ddzlab.cards import F_BIT, Hand, pack, unpack
from ddzlab.errors import AmbiguousMoveError, CardError, IllegalCombinationError, RulesError
from ddzlab.game import Game
from ddzlab.moves import PASS, Move, detect, generator, legal_moves, parse_move, readings, wildcard
from ddzlab.rules import STANDARD, WILDCARD, Kind

K = Kind
W = WILDCARD


def key(m: Move) -> tuple:
    return (m.cards, m.kind, m.rank, m.length)


def strs(moves) -> set[str]:
    return {str(m) for m in moves}


# -- notation and representation ---------------------------------------------------------------
def test_flower_card_notation() -> None:
    h = Hand("34f")
    assert str(h) == "34F" and len(h) == 3 and h.bits >> 60 == 1 and h.ranks() == [0, 1, 15]
    assert Hand.from_ranks(h.ranks()) == h and str(h - Hand("F")) == "34" and Hand("3") + Hand("F") == Hand("3F")
    with pytest.raises(CardError, match="flower"):
        Hand("3FF")
    with pytest.raises(RulesError, match="F"):
        legal_moves("34F", STANDARD)
    assert Hand.from_bits(W.deck).ranks().count(15) == 1 and W.deck_size == 55


def test_45678F_has_two_readings() -> None:
    got = readings("45678F", W)
    assert strs(got) == {"45678F=3", "45678F=9"}
    assert {(m.kind, m.rank, m.length, m.reading) for m in got} == {(K.SOLO_CHAIN, 0, 6, 0), (K.SOLO_CHAIN, 1, 6, 6)}
    with pytest.raises(AmbiguousMoveError, match="45678F=3.*45678F=9") as err:
        parse_move("45678F", W)
    assert isinstance(err.value, ValueError) and len(err.value.readings) == 2
    nine = parse_move("45678F=9", W)
    assert str(nine) == "45678F=9" and nine.rank == 1 and nine.read_cards == Hand("456789").bits
    assert repr(nine) == "Move('45678F=9', SOLO_CHAIN, rank='4', length=6)"
    assert nine == detect("45678F", W, reading=6) and nine != parse_move("45678F=3", W)
    assert pickle.loads(pickle.dumps(nine)) == nine and hash(pickle.loads(pickle.dumps(nine))) == hash(nine)
    with pytest.raises(IllegalCombinationError):
        parse_move("45678F=K", W)
    with pytest.raises(CardError, match="only 3..A"):
        parse_move("45678F=2", W)
    # both readings are moves of a hand holding the cards, and each beats what it should
    moves = legal_moves("45678F", W)
    assert {"45678F=3", "45678F=9"} <= strs(moves)
    replies = strs(legal_moves("45678F", W, detect("345678", W)))
    assert "45678F=9" in replies and "45678F=3" not in replies
    # standard moves print exactly as before
    assert str(detect("34567")) == "34567" and repr(detect("33")) == "Move('33', PAIR, rank='3')"


def test_333F_is_a_soft_bomb_or_a_trio_with_a_solo() -> None:
    got = readings("333F", W)
    assert {(m.kind, m.rank) for m in got} == {(K.SOFT_BOMB, 0), (K.TRIO_SOLO, 0)}
    soft, trio = parse_move("333F=3", W), parse_move("333F=7", W)
    assert soft.kind == K.SOFT_BOMB and soft.is_bomb and trio.kind == K.TRIO_SOLO
    assert str(trio) == "333F=4"        # a kicker F is read as the lowest rank it may be
    with pytest.raises(AmbiguousMoveError, match="soft bomb"):
        parse_move("333F", W)


def test_soft_bombs_against_natural_bombs() -> None:
    soft3, soft_a, bomb3 = parse_move("333F=3", W), parse_move("AAAF=A", W), detect("3333", W)
    rocket, pair = detect("BR", W), detect("22", W)
    assert [k.name for k in W.bomb_order] == ["SOFT_BOMB", "BOMB", "ROCKET"]
    assert bomb3.beats(soft_a, W) and not soft_a.beats(bomb3, W)
    assert soft_a.beats(soft3, W) and not soft3.beats(soft_a, W)
    assert soft3.beats(pair, W) and rocket.beats(soft_a, W) and not soft_a.beats(rocket, W)
    assert all(oracle.beats((a.kind, a.rank, a.length), (b.kind, b.rank, b.length)) == a.beats(b, W)
               for a in (soft3, soft_a, bomb3, rocket, pair) for b in (soft3, soft_a, bomb3, rocket, pair))
    # replies: natural bombs beat any soft bomb, soft bombs only lower soft bombs
    assert strs(legal_moves("5555F", W, soft_a)) == {"5555", "pass"}
    assert strs(legal_moves("5555F", W, bomb3)) == {"5555", "pass"}
    assert strs(legal_moves("555F", W, soft3)) == {"555F=5", "pass"}
    assert strs(legal_moves("333F", W, parse_move("444F=4", W))) == {"pass"}


def test_plane_wings_of_distinct_ranks() -> None:
    assert detect("33344455", STANDARD).kind == K.PLANE_SOLO
    assert detect("33344455", W) is None               # the wings would be a pair
    assert str(detect("3334445F", W)) == "3334445F=6"  # F a wing of another rank
    assert detect("33344456", W).kind == K.PLANE_SOLO
    assert detect("3333BR", W).kind == K.FOUR_TWO_SOLO and detect("333344", W).kind == K.FOUR_TWO_SOLO
    assert "33344455" not in strs(legal_moves("33344455", W))
    assert oracle.readings(oracle.counts("33344455"), oracle.WILDCARD) == frozenset()


def first_game(want) -> tuple[Game, Move]:
    """The first seeded fixed-landlord game whose landlord can lead a move ``want`` accepts."""
    for seed in range(500):
        g = Game(rules=W, seed=seed, landlord=0)
        found = [m for m in g.legal_moves() if want(g, m)]
        if found:
            return g, found[0]
    raise AssertionError("no such deal in 500 seeds")


def test_soft_bomb_doubles_the_stakes() -> None:
    g, soft = first_game(lambda g, m: m.kind == K.SOFT_BOMB)
    assert g.multiplier == 1 and len(g.hand(0)) == 21 and len(g.kitty) == 4
    g.play(soft)
    assert g.multiplier == 2 and g.bombs == 1


# -- the rule text and the data agree -----------------------------------------------------------
def test_wildcard_rule_text_matches_rule_data() -> None:
    rt = oracle.text_of(W)
    assert pack(rt.deck) | oracle.FLOWER == W.deck and W.wild_ranks == oracle.FLOWER_STANDS_FOR
    assert {(c.kind, c.distinct) for c in rt.carries} == {(a.kind, a.distinct) for a in W.attachments}
    assert set(W.kinds) == set(STANDARD.kinds) | {K.SOFT_BOMB}


# -- random hands against the oracle -----------------------------------------------------------
def check_moves(hand: Hand, moves: list[Move], want: set[tuple], rt) -> None:
    got = [key(m) for m in moves]
    assert len(set(got)) == len(got), f"{hand}: a move is listed twice"
    missing, extra = want - set(got), set(got) - want
    assert not missing and not extra, (f"{hand}: ddzlab lacks {sorted(missing)[:3]}, "
                                       f"has extra {sorted(extra)[:3]}")
    for m in moves:
        if m.reading is not None:
            assert m.reading == oracle.lowest_reading(m.cards, (m.kind, m.rank, m.length), rt), m
        else:
            assert not m.cards & F_BIT


def wild_hand(rng: np.random.Generator, size: int, i: int) -> Hand:
    """A random wildcard hand holding F (most of the time), clumpy every third time."""
    h = (clumpy_hand if i % 3 == 0 else random_hand)(rng, STANDARD, size - 1)
    return h + Hand("F") if i % 5 else (random_hand(rng, W, size))


@pytest.mark.parametrize("size", [5, 9, 17, 21])
def test_leading_moves_equal_the_rule_text_oracle(size: int) -> None:
    """Brute force from the rule text (slow: a few dozen hands)."""
    rng = np.random.default_rng(70 + size)
    rt = oracle.text_of(W)
    for i in range({5: 30, 9: 15, 17: 5, 21: 4}[size]):
        hand = wild_hand(rng, size, i)
        check_moves(hand, legal_moves(hand, W), oracle.wild_leading(hand, W), rt)


def fast_natural(d: tuple) -> dict:
    """Natural readings from ddzlab's *standard* generator (validated against DouZero and the
    rule-text oracle elsewhere), every reading, less the plane wings the wildcard rules forbid: fast enough
    for thousands of hands."""
    out: dict = {}
    for m in generator(STANDARD).collect(list(d), leading=False):
        if m.kind == K.PLANE_SOLO and any(c > 1 for c in unpack(m.kickers)):
            continue
        out.setdefault(m.cards, set()).add((m.kind, m.rank, m.length))
    return out


def test_leading_and_replies_equal_the_expansion_on_thousands_of_hands() -> None:
    """1,200 hands of 17 and 21 cards leading, 900 following a random reading of a random move."""
    rng = np.random.default_rng(2026)
    rt = oracle.text_of(W)
    kinds = set()
    for i in range(1200):
        size = 17 if i % 2 else 21
        hand = wild_hand(rng, size, i)
        want = oracle.wild_leading(hand, W, fast_natural)
        moves = legal_moves(hand, W)
        check_moves(hand, moves, want, rt)
        if i % 4 == 0:
            continue
        opener = wild_hand(rng, 21, i + 1)
        leads = sorted(oracle.wild_leading(opener, W, fast_natural))
        paid, kind, rank, length = leads[rng.integers(len(leads))]
        x = oracle.lowest_reading(paid, (kind, rank, length), rt) if paid & F_BIT else None
        to_beat = Move(kind, rank, length, paid, x)
        kinds.add(kind)
        rest = Hand.from_bits(W.deck) - Hand.from_bits(paid)
        other = Hand.from_ranks(rng.permutation(rest.ranks())[:size].tolist())
        replies = legal_moves(other, W, to_beat)
        assert replies[-1] is PASS
        want = oracle.wild_replies(other, W, (kind, rank, length), fast_natural)
        check_moves(other, replies[:-1], want - {(0, K.PASS, -1, 0)}, rt)
    assert {K.SOFT_BOMB, K.PLANE_SOLO, K.SOLO_CHAIN, K.FOUR_TWO_SOLO} <= kinds


def test_replies_equal_the_rule_text_oracle() -> None:
    rng = np.random.default_rng(31)
    rt = oracle.text_of(W)
    for i in range(12):
        opener = wild_hand(rng, 12, i)
        leads = sorted(oracle.wild_leading(opener, W))
        paid, kind, rank, length = leads[rng.integers(len(leads))]
        x = oracle.lowest_reading(paid, (kind, rank, length), rt) if paid & F_BIT else None
        rest = Hand.from_bits(W.deck) - Hand.from_bits(paid)
        hand = Hand.from_ranks(rng.permutation(rest.ranks())[:int(rng.integers(5, 15))].tolist())
        replies = legal_moves(hand, W, Move(kind, rank, length, paid, x))
        want = oracle.wild_replies(hand, W, (kind, rank, length))
        check_moves(hand, replies[:-1], want - {(0, K.PASS, -1, 0)}, rt)


# -- hypothesis properties, as for the other rule sets -----------------------------------------
@settings(max_examples=60)
@given(hands(W, 1, 21))
def test_every_move_is_detected_as_itself_and_leaves_a_valid_hand(hand: Hand) -> None:
    for m in legal_moves(hand, W):
        assert detect(m.cards, W, m.reading) == m, m
        assert parse_move(str(m), W) == m
        rest = hand - m.hand()
        W.check_hand(rest.bits)
        assert len(rest) == len(hand) - m.size


@settings(max_examples=40)
@given(hands(W, 1, 21), st.integers(0, 2**32 - 1))
def test_replies_beat(hand: Hand, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rest = Hand.from_bits(W.deck) - hand
    opener = Hand.from_ranks(rng.permutation(rest.ranks())[:12].tolist())
    leads = legal_moves(opener, W)
    to_beat = leads[rng.integers(len(leads))]
    replies = legal_moves(hand, W, to_beat)
    assert replies[-1] is PASS
    for m in replies[:-1]:
        assert m.beats(to_beat, W) and m.hand() in hand
        assert oracle.beats((m.kind, m.rank, m.length), (to_beat.kind, to_beat.rank, to_beat.length))


@settings(max_examples=25)
@given(st.integers(0, 2**32 - 1))
def test_random_games_end_with_zero_sum_scores(seed: int) -> None:
    rng = np.random.default_rng(seed)
    g = Game(rules=W, seed=seed)
    while not g.is_over:
        if g.legal_bids():
            g.make_bid(int(rng.choice(g.legal_bids())))
            continue
        moves = g.legal_moves()
        g.play(moves[rng.integers(len(moves))])
    assert sum(g.scores) == 0 and len(g.hand(g.landlord)) + sum(
        m.size for s, m in g.history if s == g.landlord) == 21
    bombs = sum(m.kind in (K.BOMB, K.SOFT_BOMB, K.ROCKET) for _, m in g.history)
    assert g.multiplier in (2 ** bombs, 2 ** (bombs + 1))


def test_typed_moves_in_a_game_need_their_reading() -> None:
    g, move = first_game(lambda g, m: m.reading is not None and m.kind == K.SOLO_CHAIN
                         and sum(x.cards == m.cards for x in g.legal_moves()) > 1)
    text = Hand.from_bits(move.cards)
    with pytest.raises(AmbiguousMoveError, match="reading"):
        g.play(str(text))
    with pytest.raises(AmbiguousMoveError):
        g.play(text)
    assert g.play(str(move)) == move and g.history[-1][1] == move and "=" in str(g.history[-1][1])


# -- analysis layers refuse the flower card clearly -------------------------------------------
def test_rank_sweep_refuses_the_wildcard() -> None:
    with pytest.raises(RulesError, match="flower card"):
        generator(W).collect([0] * 15)


def test_cli_play_and_solve_with_the_wildcard() -> None:
    import io

    from ddzlab import cli
    out = io.StringIO()
    code = cli.main(["play", "--rules", "wildcard", "--seed", "3", "--landlord", "1", "--seat", "0"],
                    stdin=io.StringIO("moves\n" * 3), stdout=out)
    text = out.getvalue()
    assert code == 1 and "wildcard rules" in text and "F=6" in text   # a reading is shown
    out = io.StringIO()
    code = cli.main(["solve", "345678FQQ", "--rules", "wildcard"], stdin=io.StringIO(), stdout=out)
    text = out.getvalue()
    assert code == 0 and "fewest plays (A*): 2" in text and "345678F=9" in text
    assert "best score (DFS)" in text and "power split" in text and "hints: " in text


def test_min_plays_equals_the_oracle_fewest_plays() -> None:
    from ddzlab.analysis import min_plays
    rng = np.random.default_rng(8)
    for i in range(40):
        hand = wild_hand(rng, int(rng.integers(2, 10)), i)
        want = oracle.wild_fewest_plays(hand, W)
        got = min_plays(hand, W)
        assert got.plays == want, (str(hand), got.plays, want)
        assert sum(m.cards for m in got.moves) == hand.bits and len(got.moves) == want
        assert all(detect(m.cards, W, m.reading) == m for m in got.moves)
    assert min_plays("3333F", W).plays == 2 and min_plays("45678F", W).plays == 1
    assert min_plays("33344455F", W).plays == 1 and str(min_plays("3334445F", W).moves[0]) == "3334445F=6"
    for text in ("34567777F89", "3333F4", "33334444F", "7777AAAAF2", "3456F89TJ7777"):   # F beside a bomb
        hand = Hand(text)
        assert min_plays(hand, W).plays == oracle.wild_fewest_plays(hand, W), text


def test_best_score_reads_the_flower_card() -> None:
    from ddzlab.analysis import best_score
    r = best_score("345678FQQ", W)          # 345678F=9 | QQ, or 345678 | QQF=Q (a trio)
    assert r.steps == 2 and sum(m.cards for m in r.moves) == Hand("345678FQQ").bits
    assert any(m.reading is not None for m in r.moves)


def test_duels_and_game_records_with_the_wildcard(tmp_path) -> None:
    """The arena plays wildcard deals; records keep each move's reading and replay it."""
    from ddzlab.agents.base import AgentError
    from ddzlab.arena import duel_games
    from ddzlab.records import read_records
    path = tmp_path / "wild.jsonl"
    games = duel_games("greedy", "random", 6, rules="wildcard", progress=False, seed=3, record=path)
    assert len(games) == 12
    header, recs = read_records(path)
    recs = list(recs)
    moves = [m for r in recs for _, m, _ in r.moves]
    assert header.rules == W and len(recs) == 12
    assert any(m.reading is not None for m in moves)        # F was played, reading and all
    for r in recs:
        assert r.finished and sum(r.scores) == 0
    with pytest.raises(AgentError):
        duel_games("rulev1", "random", 1, rules="wildcard", progress=False)
    weighted = duel_games("weights", "random", 2, rules="wildcard", progress=False, seed=4)
    assert len(weighted) == 4 and (weighted["moves"] > 0).all()   # the hand-power agent reads F too


def test_fast_leading_equals_the_twelve_reading_expansion() -> None:
    """`WildcardGenerator.leading` (tables keyed by rank patterns, shared by all hands) and
    ``following`` (natural moves once, plus per reading only the moves that need the extra
    copy) list exactly what expanding F over its 12 readings lists, with the same readings,
    each move once (800 hands of 9 to 21 cards, clumpy ones too, with and without F, all
    through one generator so later hands meet tables filled by earlier ones; replies to a
    random lead)."""
    gen = generator(W)
    rng = np.random.default_rng(808)
    for i in range(800):
        hand = wild_hand(rng, (21, 20, 17, 12, 9)[i % 5], i)
        fast = gen.leading(hand.bits)
        slow = gen._expand(hand.bits, gen.natural.leading)
        assert len(set(fast)) == len(fast), hand
        assert set(fast) == set(slow), (hand, strs(fast) ^ strs(slow))
        assert {(key(m), m.reading) for m in fast} == {(key(m), m.reading) for m in slow}
        # replies: the same against the expansion of the natural replies and bombs
        opener = wild_hand(rng, 17, i + 1)
        leads = gen.leading(opener.bits)
        to_beat = leads[int(rng.integers(len(leads)))]
        got = gen.following(hand.bits, to_beat)
        assert got[-1] is PASS and len(set(got)) == len(got)
        nat = gen.natural
        want = [] if to_beat.is_bomb else gen._expand(
            hand.bits, lambda b: nat.collect(unpack(b), to_beat.kind, to_beat.length, to_beat.rank,
                                             leading=False))
        want += [m for m in gen._expand(hand.bits, lambda b: nat.collect(unpack(b), K.BOMB))
                 if m.beats(to_beat, W)]
        if hand.bits >> 52 & 1 and hand.bits >> 56 & 1 and to_beat.kind != K.ROCKET:
            want.append(nat.rocket)
        assert {(key(m), m.reading) for m in got[:-1]} == {(key(m), m.reading) for m in want}, (hand, to_beat)


def test_the_move_tables_stay_bounded_and_correct_across_resets(monkeypatch) -> None:
    """The tables grew without bound over a long run (516 MB after 3 million
    hands). Capped at 3,000 entries and counted every 16 calls here, they stay within three
    times the cap (what 16 calls add on a cold table) over 500 hands that make an uncapped
    generator hold over 24,000 entries, and every answer equals the uncapped one's."""
    monkeypatch.setattr(wildcard, "CHECK_EVERY", 16)
    capped, free = wildcard.WildcardGenerator(W, max_entries=3000), wildcard.WildcardGenerator(W, 10 ** 9)
    rng = np.random.default_rng(22)
    peak = 0
    for i in range(500):
        hand = wild_hand(rng, int(rng.integers(5, 21)), i)
        moves = capped.leading(hand.bits)
        assert [key(m) for m in moves] == [key(m) for m in free.leading(hand.bits)]
        plays = [m for m in moves if not m.is_pass]
        to_beat = plays[int(rng.integers(len(plays)))]
        other = wild_hand(rng, 17, i + 1).bits
        assert [key(m) for m in capped.following(other, to_beat)] == \
            [key(m) for m in free.following(other, to_beat)]
        peak = max(peak, capped.table_entries())
    assert free.table_entries() > 24000 and free.resets == 0
    assert capped.resets >= 2
    assert peak <= 3 * 3000
