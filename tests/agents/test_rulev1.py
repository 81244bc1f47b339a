"""rulev1: RLCard 1.2.0's rule agent inside ddzlab, checked against RLCard itself.

The oracle is RLCard (the `peers` extra, which `make test` installs): without it these tests
fail, they do not skip. (a) RLCard's own games replayed move by move in a ddzlab `Game`:
at every decision the state the translation builds equals RLCard's, and the agent answers
as RLCard's, random fallbacks included (same RNG state). (b) RLCard's published fixed-landlord
win rates (docs/definitions.md#peer-figures) lie in our 95% Wilson intervals. Plus the moves RLCard cannot
represent (B+R kickers), seeding, and the error without RLCard.
"""
import dataclasses
import subprocess
import sys
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest
import rlcard
from rlcard.games.doudizhu.utils import CARD_TYPE, TYPE_CARD, cards2str
from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

from conftest import random_hand
from ddzlab.agents import AgentError, SmallestAgent, make_agent, play_game
from ddzlab.agents import rulev1
from ddzlab.agents.rulev1 import RuleV1Agent, rlcard_actions, rlcard_state, rlcard_type
from ddzlab.arena import duel_games
from ddzlab.cards import Hand, format_bits, pack, parse_counts
from ddzlab.deals import Deal, generate_deals
from ddzlab.game import Game
from ddzlab.moves import detect, legal_moves
from ddzlab.rules import STANDARD, Kind, get_rules
from ddzlab.stats import wilson
from peers import rlcard_following, rlcard_leading

PLANES = (Kind.TRIO_CHAIN, Kind.PLANE_SOLO, Kind.PLANE_PAIR)


def bits(text: str) -> int:
    return pack(parse_counts(text))


@lru_cache(maxsize=None)
def ddzlab_reads(text: str) -> bool:
    """ddzlab's reading of RLCard's action ``text`` is RLCard's (type, chain length, rank)."""
    if text == "pass":
        return True
    move = detect(text)
    return move is not None and rulev1._tables().info(move).same


def same_rng_state(a, b) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and tuple(a[2:]) == tuple(b[2:])


@pytest.fixture
def global_rng():
    """Tests that seed numpy's global RNG (RLCard's agents draw from it) restore it after."""
    saved = np.random.get_state()
    yield
    np.random.set_state(saved)


def test_every_rlcard_action_reads_as_in_ddzlab_but_planes_with_a_trio_of_kickers():
    """RLCard's action table, read by ddzlab's `detect`: the same type, chain length and rank,
    except the 4- and 5-trio planes whose solo kickers hold three of a kind, which ddzlab's
    (DouZero's) rules forbid. (All other plane strings are sampled, 1 in 5, for time.)"""
    differ = Counter()
    for type_name, by_weight in TYPE_CARD.items():
        strings = [s for group in by_weight.values() for s in group]
        step = 5 if type_name.startswith("trio_solo_chain_") else 1
        for s in strings[::step]:
            if not ddzlab_reads(s):
                assert type_name in ("trio_solo_chain_4", "trio_solo_chain_5"), s
                assert 3 in Counter(Counter(s).values()) and max(Counter(s).values()) == 3
                assert sum(1 for c in set(s) if s.count(c) == 3) == int(type_name[-1]) + 1, s
                differ[type_name] += 1
    assert differ["trio_solo_chain_4"] > 0 and differ["trio_solo_chain_5"] > 0


def rlcard_deal(env, lord: int = 0) -> Deal:
    """The deal of RLCard's current game with RLCard's player k at seat (k + lord) % 3: its
    landlord is player 0 and takes the deck's last three cards; players 0, 1, 2 took the
    deck's 17-card slices in play order."""
    deck = env.game.round.dealer.deck
    hands = [bits(cards2str(deck[17 * k:17 * (k + 1)])) for k in range(3)]
    return Deal(tuple(hands[(seat - lord) % 3] for seat in range(3)), bits(cards2str(deck[-3:])))


def replay(seed: int, random_seats: tuple, stats: Counter, lord: int = 0) -> None:
    """One RLCard game replayed in ddzlab with RLCard's player k at seat (k + lord) % 3 (its
    landlord at seat ``lord``), every decision of every seat compared."""
    env = rlcard.make("doudizhu", config={"seed": seed})
    rule = DouDizhuRuleAgentV1()
    mine = RuleV1Agent(seed=0)
    mine.random_state = np.random.RandomState()
    chooser = np.random.default_rng(seed)
    np.random.seed(seed)
    state, pid = env.reset()
    game = Game(rlcard_deal(env, lord), landlord=lord)
    for k, player in enumerate(env.game.players):
        assert format_bits(game.hands[(k + lord) % 3]) == player.initial_hand
    while not env.is_over():
        raw = state["raw_obs"]
        obs = game.observation((pid + lord) % 3)
        full = rlcard_state(obs)
        built = full["raw_obs"]
        assert set(full) == {"raw_obs", "raw_legal_actions"} and full["raw_legal_actions"] == built["actions"]
        assert sorted(full["raw_legal_actions"]) == sorted(a for a in state["raw_legal_actions"] if ddzlab_reads(a))
        assert set(built) == set(raw)
        for key in raw:
            if key != "actions":
                assert built[key] == raw[key], (seed, key)
        listed = [a for a in raw["actions"] if ddzlab_reads(a)]   # less planes ddzlab forbids
        stats["rlcard actions ddzlab forbids"] += len(raw["actions"]) - len(listed)
        if obs.last_move is None:   # RLCard lists a set when leading: its order is the hash's
            assert sorted(built["actions"]) == sorted(listed) and len(set(listed)) == len(listed)
        else:
            assert built["actions"] == listed, seed
        # the same RNG state for both agents; ours must leave numpy's global one alone
        before = np.random.get_state()
        answer = rule.step(state)
        after = np.random.get_state()
        np.random.set_state(before)
        mine.random_state.set_state(before)
        move = mine.play(obs)
        assert same_rng_state(np.random.get_state(), before)
        assert str(move) == answer, (seed, answer, move)
        assert same_rng_state(mine.random_state.get_state(), after)
        np.random.set_state(after)
        drew = not same_rng_state(before, after)
        stats["random fallbacks"] += drew
        stats["leads" if obs.last_move is None else "follows"] += 1
        stats["passes"] += move.is_pass
        stats["bombs and rockets"] += move.is_bomb
        stats["follows of trio chains and planes"] += obs.last_move is not None and obs.last_move.kind in PLANES
        if pid in random_seats:     # a random player, among the moves both engines allow
            choices = sorted(a for a in raw["actions"] if ddzlab_reads(a))
            answer = choices[int(chooser.integers(len(choices)))]
            move = next(m for m in obs.legal_moves if str(m) == answer)
        state, pid = env.step(answer, raw_action=True)
        game.play(move)
    assert game.is_over and game.winner == (env.game.winner_id + lord) % 3
    stats["games"] += 1


def test_replays_rlcards_games_decision_by_decision(global_rng):
    """200 RLCard games (all rule agents, or one or two seats random): at every decision of
    every seat the translated state equals RLCard's, and rulev1 answers as RLCard's agent
    from the same RNG state."""
    stats = Counter()
    for seed in range(200):
        replay(seed, [(), (1,), (0,), (1, 2)][seed % 4], stats)
    assert stats["games"] == 200
    assert stats["leads"] > 1000 and stats["follows"] > 4000 and stats["passes"] > 1000
    assert stats["bombs and rockets"] > 20 and stats["follows of trio chains and planes"] > 10
    assert stats["random fallbacks"] > 20


def enriched_hand(rng: np.random.Generator, size: int = 20) -> Hand:
    """Half the time a uniform hand, else one crowded into low ranks plus the jokers
    (planes, four-with-two, B+R kickers)."""
    if rng.random() < 0.5:
        return random_hand(rng, STANDARD, size)
    pool = [r for r in range(6) for _ in range(4)] + [r for r in range(6, 13) for _ in range(1)]
    ranks = rng.choice(pool, size - 2, replace=False).tolist() + [13, 14]
    return Hand.from_ranks(ranks)


def test_replays_with_the_landlord_in_any_seat(global_rng):
    """The same replay with RLCard's players moved round the table (its landlord at seat 1,
    then 2): the state rulev1 builds is RLCard's whoever sits where (``self``, the order of
    ``played_cards`` and ``num_cards_left`` count from the landlord), and the answers agree."""
    stats = Counter()
    for seed in range(24):
        replay(seed, [(), (1,), (0,), (1, 2)][seed % 4], stats, lord=1 + seed % 2)
    assert stats["games"] == 24 and stats["random fallbacks"] > 0 and stats["passes"] > 100


def test_leading_actions_are_rlcards_list():
    """On 500 hands: `actions` when leading is RLCard's own list, less only the planes ddzlab
    forbids; ddzlab's moves left out are exactly the ones with B+R kickers."""
    rng = np.random.default_rng(11)
    obs0 = Game(generate_deals(1, seed=0)[0], landlord=0).observation(0)
    dropped = Counter()
    for _ in range(500):
        hand = enriched_hand(rng)
        obs = dataclasses.replace(obs0, hand=hand, legal_moves=tuple(legal_moves(hand)))
        actions = rlcard_actions(obs)[0]
        assert set(actions) == {a for a in rlcard_leading(hand) if ddzlab_reads(a)}
        assert len(actions) == len(set(actions))
        for m in obs.legal_moves:
            if str(m) not in actions:
                assert m.kind in (Kind.FOUR_TWO_SOLO, Kind.PLANE_SOLO) and bits("BR") & m.kickers == bits("BR")
                dropped[m.kind] += 1
    assert dropped[Kind.FOUR_TWO_SOLO] > 0 and dropped[Kind.PLANE_SOLO] > 0


def test_following_actions_are_rlcards_list_in_its_order():
    """On 600 positions: the move to beat is shown as itself when RLCard can show it, else as
    a stand-in of the same type, chain length and rank; `actions` is RLCard's reply list to
    what is shown (`get_gt_cards`, same order), less only the planes ddzlab forbids."""
    rng = np.random.default_rng(12)
    game = Game(generate_deals(1, seed=0)[0], landlord=0)
    game.play(game.legal_moves()[0])
    obs1 = game.observation(1)
    kinds, stand_ins = Counter(), Counter()
    for _ in range(600):
        lead = legal_moves(enriched_hand(rng))
        by_kind = {}
        for m in lead:
            by_kind.setdefault(m.kind, []).append(m)
        kind = list(by_kind)[int(rng.integers(len(by_kind)))]
        some = by_kind[kind]
        with_br = [m for m in some if m.kickers & bits("BR") == bits("BR")]
        if with_br and rng.random() < 0.5:
            some = with_br
        target = some[int(rng.integers(len(some)))]
        hand = enriched_hand(rng, 17)
        obs = dataclasses.replace(obs1, hand=hand, history=((0, target),), last_move=target,
                                  legal_moves=tuple(legal_moves(hand, to_beat=target)))
        shown = rlcard_state(obs)["raw_obs"]["trace"][-1][1]
        read = detect(shown)
        assert (read.kind, read.length, read.rank) == (target.kind, target.length, target.rank)
        if shown != str(target):
            assert "BR" in str(target) or target.kind is Kind.PLANE_SOLO
            stand_ins[target.kind] += 1
        expected = [a for a in rlcard_following(hand, shown) if ddzlab_reads(a)]
        assert rlcard_actions(obs)[0] == expected
        kinds[target.kind] += 1
    assert len(kinds) == 14 and stand_ins[Kind.FOUR_TWO_SOLO] > 0 and stand_ins[Kind.PLANE_SOLO] > 0


def deal_with(*hands: str) -> Deal:
    """A deal whose seats 0, 1, 2 hold at least these cards; the rest of the deck, in rank
    order, fills seat 0 (17), seat 1, seat 2, then the kitty."""
    rest = Hand.from_bits(STANDARD.deck - sum(bits(h) for h in hands)).ranks()
    out = []
    for h in hands:
        need = 17 - len(h)
        out.append(bits(h) + pack(np.bincount(rest[:need], minlength=15).tolist()))
        rest = rest[need:]
    return Deal(tuple(out), pack(np.bincount(rest, minlength=15).tolist()))


def test_an_opponents_br_kickers_are_shown_as_rlcards_first_move_of_that_type_and_rank():
    game = Game(deal_with("333444BR", "555666789", ""), landlord=0)   # the landlord leads 333444BR
    game.play("333444BR")
    obs = game.observation(1)
    raw = rlcard_state(obs)["raw_obs"]
    shown = raw["trace"][0][1]
    assert shown == TYPE_CARD["trio_solo_chain_2"]["1"][0] != "333444BR"
    assert CARD_TYPE[0][shown] == CARD_TYPE[0]["33344456"]          # type and weight
    assert raw["played_cards"][0] == "333444BR" and "B" not in raw["others_hand"]
    assert raw["actions"] == [a for a in rlcard_following(obs.hand, shown) if ddzlab_reads(a)]
    move = make_agent("rulev1", seed=0).play(obs)
    assert move.kind is Kind.PLANE_SOLO and move.rank_char == "5"    # its lowest plane reply


def test_it_never_plays_its_own_br_kickers(global_rng):
    """Its own moves with B+R kickers are not in `actions`, so neither its split (leading) nor
    its random fallback (here: the landlord cannot reply in kind to 4+2) ever plays them."""
    game = Game(deal_with("5555BR33", "4444", ""), landlord=0)
    lead = game.observation(0)
    assert "5555BR" in {str(m) for m in lead.legal_moves}
    assert not any("BR" in a and len(a) > 2 for a in rlcard_actions(lead)[0])
    target = detect("444436")
    hand = Hand("5555BR")
    obs = dataclasses.replace(lead, hand=hand, history=((1, target),), last_move=target, last_seat=1,
                              legal_moves=tuple(legal_moves(hand, to_beat=target)))
    assert "5555BR" in {str(m) for m in obs.legal_moves}
    assert rlcard_actions(obs)[0] == ["pass", "BR", "5555"]
    np.random.seed(0)
    before = np.random.get_state()
    played = Counter(str(make_agent("rulev1", seed=s).play(obs)) for s in range(60))
    assert set(played) == {"pass", "BR", "5555"}
    assert same_rng_state(np.random.get_state(), before)


def test_same_seed_same_game_and_numpys_global_rng_untouched(global_rng):
    def games(seeds):
        out = []
        for i, deal in enumerate(generate_deals(30, seed=5)):
            agents = [make_agent("rulev1", seed=seeds * 100 + 3 * i + s) for s in range(3)]
            out.append([str(m) for _, m in play_game(Game(deal, landlord=0), agents).history])
        return out

    np.random.seed(1)
    before = np.random.get_state()
    first = games(0)
    assert same_rng_state(np.random.get_state(), before)
    assert games(0) == first
    assert games(1) != first            # the seed drives the random fallbacks


def test_bids_like_smallest_agent():
    for deal in generate_deals(10, seed=2):
        game = Game(deal)
        agents = [make_agent("rulev1", seed=s) for s in range(3)]
        while game.phase.name == "BIDDING":
            obs = game.observation(game.to_act)
            bid = agents[game.to_act].bid(obs)
            assert bid == SmallestAgent().bid(obs)
            game.make_bid(bid)
        play_game(game, agents)
        assert game.is_over


def test_other_rule_sets_are_refused():
    obs = Game(generate_deals(1, seed=0)[0], landlord=0).observation(0)
    with pytest.raises(AgentError, match="standard rules"):
        make_agent("rulev1").play(dataclasses.replace(obs, rules=get_rules("mini")))
    assert rlcard_type(detect("34567")) == "solo_chain_5"


def test_without_rlcard_building_it_names_the_extra(monkeypatch):
    monkeypatch.setattr(rulev1, "_TABLES", None)
    for name in ("rlcard.games.doudizhu.utils", "rlcard.models"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(AgentError, match=r"pip install 'ddzlab\[peers\]'"):
        make_agent("rulev1")


def test_ddzlab_imports_and_lists_agents_without_rlcard():
    code = ("import sys; sys.modules['rlcard'] = None\n"
            "import ddzlab, ddzlab.agents as a\n"
            "assert 'rulev1' in a.available_agents() and 'rlcard' not in [m.split('.')[0] for m in sys.modules if sys.modules[m]]\n"
            "try:\n    a.make_agent('rulev1')\nexcept a.AgentError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ddzlab[peers]" in out.stdout


def test_fixed_landlord_win_rates_match_rlcards():
    """docs/definitions.md#peer-figures, RLCard's env, 5,000 games each: a rule-v1 landlord beats two random
    farmers 0.93 of the time; a random landlord beats two rule-v1 farmers 0.047. One
    seat-swapped duel on 2,000 deals plays both: each figure must lie in our 95% interval."""
    df = duel_games("rulev1", "random", 2000, seed=2024, progress=False)
    rule_lord = df[df.a_landlord]
    random_lord = df[~df.a_landlord]
    assert len(rule_lord) == len(random_lord) == 2000
    lo, hi = wilson(int(rule_lord.landlord_won.sum()), len(rule_lord))
    assert lo <= 0.93 <= hi, (lo, hi)
    lo, hi = wilson(int(random_lord.landlord_won.sum()), len(random_lord))
    assert lo <= 0.047 <= hi, (lo, hi)


def test_threads_give_the_sequential_games_and_leave_rlcards_module_as_it_was():
    """Four threads playing rulev1 games with forced thread switches: the same games as one
    after another, and RLCard's module sees plain numpy afterwards (one
    agent's RNG used to stay installed, and 1 game in 600 differed)."""
    import threading
    deals = generate_deals(24, seed=9)

    def game(i):
        agents = [make_agent("rulev1", seed=7 * i + s) for s in range(3)]
        return [str(m) for _, m in play_game(Game(deals[i], landlord=0), agents).history]
    sequential = [game(i) for i in range(len(deals))]
    threaded: dict[int, list] = {}
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=lambda k=k: threaded.update(
            {i: game(i) for i in range(k, len(deals), 4)})) for k in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(switch)
    assert [threaded[i] for i in range(len(deals))] == sequential
    assert rulev1._tables().module.np is np
