"""The rulev1 adapter's own bookkeeping against its definitions (the survivors of
`make mutation MODULE=agents/rulev1`): the tables it reads from RLCard (built fresh here:
the process-wide copy is made once, before a mutation test runs), the order of bombs and the
rocket among the replies, the 20-card limit, the trace memo within a game, across games and
after taken-back moves, and the explanation of each move. RLCard is the oracle."""
from __future__ import annotations

import dataclasses
from itertools import chain

import numpy as np
import pytest
from rlcard.games.doudizhu.utils import ACTION_2_ID, TYPE_CARD
from rlcard.models import doudizhu_rule_models

from ddzlab.agents import AgentError, make_agent
from ddzlab.agents.rulev1 import RULES_TOLD, RuleV1Agent, _Tables, rlcard_actions, rlcard_state, rlcard_trace
from ddzlab.cards import Hand
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves import PASS, detect, legal_moves
from peers import rlcard_following


def test_the_tables_follow_rlcard_s_type_card_order():
    t = _Tables()
    assert t.module is doudizhu_rule_models and t.agent_class is doudizhu_rule_models.DouDizhuRuleAgentV1
    position: dict[str, int] = {}          # a string's place in the first type that lists it
    for type_name, by_weight in TYPE_CARD.items():
        listed = list(chain.from_iterable(by_weight.values()))      # get_gt_cards' iteration
        for s in listed:
            position.setdefault(s, listed.index(s))
        for weight, strings in by_weight.items():
            assert t.first[(type_name, int(weight))] == strings[0]
    assert t.order == position
    solos = list(chain.from_iterable(TYPE_CARD["solo"].values()))
    assert [t.order[s] for s in solos[:5]] == [0, 1, 2, 3, 4]
    pairs = list(chain.from_iterable(TYPE_CARD["pair"].values()))
    assert [t.order[s] for s in pairs[:3]] == [0, 1, 2]


@pytest.mark.parametrize("target, expected", [
    ("3333", ["pass", "5555", "6666", "BR"]),                            # bombs, then the rocket
    ("3", ["pass", "4", "5", "6", "7", "B", "R", "BR", "5555", "6666"]),  # the rocket, then bombs
])
def test_bombs_and_the_rocket_come_in_rlcards_order(target, expected):
    """RLCard lists the replies to a bomb as bigger bombs, then the rocket; to anything else
    as the replies in kind, the rocket, then every bomb (`get_gt_cards`). The random hands of
    test_agent_rulev1 never held two bombs and the rocket against a bomb."""
    obs0 = Game(generate_deals(1, seed=0)[0], landlord=0).observation(1)
    hand, move = Hand("4555566667BR"), detect(target)
    obs = dataclasses.replace(obs0, hand=hand, history=((0, move),), last_move=move, last_seat=0,
                              legal_moves=tuple(legal_moves(hand, to_beat=move)))
    assert rlcard_following(hand, target) == expected          # the oracle, as written above
    assert rlcard_actions(obs)[0] == expected


def test_a_hand_of_more_than_20_cards_is_refused_by_name():
    """RLCard's game deals at most 20 cards to a hand: 20 is played, 21 is refused."""
    obs = Game(generate_deals(1, seed=0)[0], landlord=0).observation(0)
    assert len(obs.hand) == 20 and "B" not in str(obs.hand)
    assert rlcard_state(obs)["raw_obs"]["current_hand"] == str(obs.hand)
    big = dataclasses.replace(obs, hand=Hand.from_bits(obs.hand.bits + Hand("B").bits))
    assert len(big.hand) == 21
    with pytest.raises(AgentError, match=r"^rulev1 plays RLCard's game, whose hands have at most 20 cards "
                                         r"\(this one has 21\)$"):
        rlcard_state(big)
    with pytest.raises(AgentError, match="at most 20 cards"):
        make_agent("rulev1", seed=0).play(big)


def test_how_rlcard_sees_a_pass_and_a_move():
    """`_Tables.info`: a move RLCard can show is its own string, read as itself, at its place
    in RLCard's type table and with RLCard's action id; the pass is 'pass' with RLCard's id for
    it and no place in a type table (-1); a move RLCard cannot show keeps its string, is shown
    as RLCard's first move of its type and rank, and has neither place nor id (-1)."""
    t = _Tables()
    got = t.info(PASS)
    assert (got.text, got.same, got.shown, got.order, got.action_id) == ("pass", True, "pass", -1,
                                                                          ACTION_2_ID["pass"])
    for text in ("3", "TTJJQQ", "3334", "BR", "5555", "34567"):
        got = t.info(detect(text))
        assert (got.text, got.same, got.shown, got.order, got.action_id) == (text, True, text, t.order[text],
                                                                              ACTION_2_ID[text]), text
    got = t.info(detect("333444BR"))          # a plane with B+R kickers: RLCard cannot show it
    assert (got.text, got.same, got.shown, got.order, got.action_id) == (
        "333444BR", False, TYPE_CARD["trio_solo_chain_2"]["1"][0], -1, -1)


def _positions(seed: int, moves: int):
    game = Game(generate_deals(1, seed=seed)[0], landlord=seed % 3)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = game.legal_moves()
        game.push(legal[int(rng.integers(len(legal)))])
    return game.observation(game.to_act)


def test_the_trace_memo_starts_again_for_another_game_or_moves_taken_back():
    """The agent extends its RLCard trace move by move within a game; for another game
    (same landlord, as long a history, other moves), another game with another landlord, or
    a shorter history it starts again: its trace is always the one built from the whole
    history."""
    agent = RuleV1Agent(seed=0)
    first = _positions(3, 12)
    assert agent._rlcard_trace(first) == rlcard_trace(first)
    for obs in (_positions(6, 14),      # another game, landlord 0 again, longer history
                _positions(4, 14),      # another landlord
                _positions(3, 5)):      # moves taken back
        assert agent._rlcard_trace(obs) == rlcard_trace(obs), obs.history


def test_the_trace_memo_grows_with_the_game():
    """Within one game the memo extends the trace by the moves since the last call, and is
    at every point the trace of the whole history (RLCard's state), never a repeat of it."""
    agent = RuleV1Agent(seed=0)
    game = Game(generate_deals(1, seed=8)[0], landlord=1)
    rng = np.random.default_rng(8)
    lengths = []
    while not game.is_over and len(lengths) < 25:
        obs = game.observation(game.to_act)
        assert agent._rlcard_trace(obs) == rlcard_trace(obs)
        lengths.append(len(obs.history))
        for _ in range(1 + len(lengths) % 2):           # one or two moves between the calls
            if not game.is_over:
                legal = game.legal_moves()
                game.push(legal[int(rng.integers(len(legal)))])
    assert len(lengths) == 25 and lengths[-1] > 30


def test_a_position_without_a_landlord_is_refused_by_name():
    """RLCard's game starts after the auction: during the bidding (no landlord yet) rulev1
    has no state to build and says so."""
    obs = Game(generate_deals(1, seed=0)[0]).observation(0)
    assert obs.landlord is None and obs.players == 3 and obs.rules.name == "standard"
    with pytest.raises(AgentError, match=r"^rulev1 plays RLCard's game: standard rules, three seats, a landlord "
                                         r"\(this game: standard rules, 3 seats, landlord None\)$"):
        rlcard_state(obs)


def test_every_seed_gets_its_own_stream():
    """Agent seeds 0..999 give 1,000 different random streams (each agent's generator is
    seeded from the whole 63-bit range), so no two seats of a run share their draws."""
    firsts = {tuple(RuleV1Agent(seed=s).random_state.randint(2**31, size=2)) for s in range(1000)}
    assert len(firsts) == 1000


def test_a_bid_has_no_explanation():
    agent = make_agent("rulev1", seed=0)
    agent.last_eval = {"stale": 1}
    agent.bid(Game(seed=0).observation(0))
    assert agent.last_eval is None



def test_the_explanation_names_the_rule_that_chose_each_move():
    """Over whole seeded games, each move's ``last_eval["rule"]`` is one of the four rules
    and agrees with the situation (RLCard's `step`): a lead exactly when nobody is to beat; a
    follow plays a move of the kind to beat; a farmer passes by rule when the seat that acted
    just before it (the last entry of the history, pass included) is the other farmer; else,
    without a reply of the type, the random fallback, which draws from the agent's own
    generator unless pass is its only move. Every seat is the landlord in a third of the games."""
    told, pass_only = [], set()
    for i, deal in enumerate(generate_deals(18, seed=4)):
        lord = i % 3
        game = Game(deal, landlord=lord)
        agents = [make_agent("rulev1", seed=s) for s in range(3)]
        while not game.is_over:
            seat, obs = game.to_act, game.observation(game.to_act)
            before = agents[seat].random_state.get_state()[2]
            move = agents[seat].play(obs)
            drew = agents[seat].random_state.get_state()[2] != before
            key = next(k for k, v in RULES_TOLD.items() if v == agents[seat].last_eval["rule"])
            told.append(key)
            partner_acted = seat != lord and bool(game.history) and game.history[-1][0] not in (lord, seat)
            assert (key == "lead") == (obs.last_move is None)
            if key == "follow":
                assert not move.is_pass and move.kind == obs.last_move.kind and not drew
            if key == "pass":
                assert move.is_pass and partner_acted and not drew
            if key == "random":
                assert drew or (move.is_pass and not partner_acted and game.legal_moves() == [move])
                if not drew:
                    pass_only.add((lord, seat))
            if drew:
                assert key == "random"
            game.push(move)
    assert set(told) == set(RULES_TOLD)
    assert {lord for lord, _ in pass_only} == {0, 1, 2}      # the pass-only fallback, each landlord
