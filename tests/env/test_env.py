"""ddzlab.env: the move index, the encodings, the PettingZoo and Gymnasium environments.

The environments need the ``env`` extra (pettingzoo, gymnasium). These tests import them
directly: without the extra they fail (``make test`` installs it), they are never skipped.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from ddzlab.deals import generate_deals
from ddzlab.env import (COMPACT_LAYOUT, COMPACT_SIZE, DouDizhuEnv, SingleSeatEnv, compact_obs, douzero_obs,
                        move_index)
from ddzlab.env import env as wrapped_env
from ddzlab.env.index import CHECKSUMS, INDEX_VERSION, MoveIndex
from ddzlab.env.table import EnvError, Table
from ddzlab.errors import IllegalMoveError, OutOfTurnError, RulesError
from ddzlab.game import Game, Phase
from ddzlab.moves import PASS, detect
from ddzlab.rules import MINI, STANDARD, Kind

GAMES = {"standard": 1000, "mini": 1500}


# -- the move index --------------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["standard", "mini"])
def test_index_is_stable_and_versioned(rules):
    ix = MoveIndex(rules)                       # rebuilt, not the cached one
    assert INDEX_VERSION == 1
    assert (len(ix), ix.checksum) == CHECKSUMS[rules]
    assert ix.moves[0] == PASS and ix.index_of("pass") == 0


@pytest.mark.parametrize("rules", [STANDARD, MINI])
def test_index_round_trips_and_every_entry_is_a_combination(rules):
    ix = move_index(rules)
    most = rules.hand_size + rules.kitty_size
    assert len(set(ix.moves)) == len(ix)
    for i, m in enumerate(ix.moves):
        assert ix.index_of(m) == i and ix.move(i) is m
        if m.kind is not Kind.PASS:
            assert detect(m.cards, rules) is not None, m     # the rule text's detector agrees
            assert 1 <= m.size <= most
    kinds = {m.kind for m in ix.moves}
    assert kinds == rules.kinds | {Kind.PASS}


def random_games(rules, n, seed, bidding=False):
    """Every position of ``n`` random games through the AEC env: (env, agent, observation)."""
    env = DouDizhuEnv(rules, bidding=bidding)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(n):
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            yield env, agent, obs
            legal = np.flatnonzero(obs["action_mask"].view(bool))
            env.step(int(legal[rng.integers(len(legal))]))
        env.reset()


@pytest.mark.parametrize("rules", ["standard", "mini"])
def test_mask_equals_legal_moves_and_index_round_trips_every_legal_move(rules):
    ix = move_index(rules)
    steps = 0
    for env, agent, obs in random_games(rules, GAMES[rules], seed=7):
        game = env.game
        legal = game.legal_moves()
        picked = [ix.moves[i] for i in np.flatnonzero(obs["action_mask"].view(bool))]
        assert set(picked) == set(legal) and len(picked) == len(legal)
        for m in legal:
            assert ix.moves[ix.index_of(m)] == m
        steps += 1
    assert steps > 10 * GAMES[rules]


def test_bidding_mode_masks_bids_then_moves():
    ix = move_index("standard")
    bids = moves = 0
    for env, agent, obs in random_games("standard", 300, seed=3, bidding=True):
        game = env.game
        mask = obs["action_mask"]
        assert agent == f"player_{game.to_act}"
        if game.phase is Phase.BIDDING:
            assert not mask[:len(ix)].any()
            assert [int(i) - len(ix) for i in np.flatnonzero(mask)] == game.legal_bids()
            bids += 1
        else:
            assert not mask[len(ix):].any()
            assert {ix.moves[i] for i in np.flatnonzero(mask)} == set(game.legal_moves())
            moves += 1
    assert bids > 300 and moves > 3000


# -- the encodings -----------------------------------------------------------------------------

def test_compact_layout_adds_up():
    assert sum(n for _, n in COMPACT_LAYOUT) == COMPACT_SIZE == 170


@pytest.mark.parametrize("bidding", [False, True])
def test_compact_from_the_game_equals_compact_of_the_observation(bidding):
    table = Table("standard", bidding=bidding)
    for env, agent, obs in random_games("standard", 40, seed=11, bidding=bidding):
        game = env.game
        for seat in range(3):
            expected = compact_obs(game.observation(seat))
            np.testing.assert_array_equal(table.observation(game, seat), expected)
        np.testing.assert_array_equal(obs["observation"], compact_obs(game.observation(game.to_act)))


def test_douzero_observation_of_the_env_is_douzero_obs():
    table = Table("standard", encoding="douzero")
    env = DouDizhuEnv(encoding="douzero")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = env.game
        seat = env.possible_agents.index(agent)
        d = douzero_obs(game.observation(seat))
        expected = np.concatenate((d["x_no_action"], d["z"].ravel()))
        np.testing.assert_array_equal(obs["observation"], expected)
        np.testing.assert_array_equal(table.observation(game, (seat + 1) % 3),
                                      np.concatenate((douzero_obs(game.observation((seat + 1) % 3))["x_no_action"],
                                                      douzero_obs(game.observation((seat + 1) % 3))["z"].ravel())))
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_compact_reads_the_view():
    g = Game(generate_deals(1, seed=0)[0], landlord=0)
    g.play("3")
    v = compact_obs(g.observation(1))
    at = dict(zip([n for n, _ in COMPACT_LAYOUT], np.cumsum([0] + [n for _, n in COMPACT_LAYOUT])))
    assert v[at["hand"]:at["hand"] + 15].sum() == 17
    assert v[at["to_beat"]] == 1 and v[at["to_beat"] + 1:at["to_beat"] + 15].sum() == 0   # a 3 to beat
    assert v[at["played_prev"]] == 1                        # the landlord (previous seat) played it
    assert v[at["role"] + 1] == 1 and v[at["landlord"] + 2] == 1
    assert v[at["unseen"]:at["unseen"] + 15].sum() == 54 - 17 - 1
    assert v[at["kitty"]:at["kitty"] + 15].sum() == 3
    assert v[at["last_prev"]] == 1 and v[at["passed"]:at["passed"] + 3].sum() == 0
    assert list(v[at["cards_left"]:at["cards_left"] + 3]) == pytest.approx([17 / 20, 17 / 20, 19 / 20])
    assert v[at["bid"]] == pytest.approx(1 / 3) and v[at["bombs"]] == 0
    assert v[at["phase"]] == 0 and v[at["leading"]] == 0
    g.play("pass")
    w = compact_obs(g.observation(0))                         # the landlord: down passed
    assert v[at["to_beat"]] == 1 and w[at["passed"] + 1] == 1 and w[at["role"]] == 1 and w[at["landlord"]] == 1
    g.play("pass")
    x = compact_obs(g.observation(0))                         # both passed: the landlord leads
    assert x[at["leading"]] == 1 and x[at["to_beat"]:at["to_beat"] + 15].sum() == 0
    bidding = Game(generate_deals(1, seed=0)[0])
    bidding.make_bid(2)
    y = compact_obs(bidding.observation(1))
    assert y[at["phase"]] == 1 and y[at["role"] + 3] == 1 and y[at["bids"] + 2] == pytest.approx(3 / 4)
    assert y[at["bid"]] == pytest.approx(2 / 3) and y[at["landlord"]:at["landlord"] + 3].sum() == 0


# -- the PettingZoo environment ----------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"encoding": "douzero"}, {"bidding": True, "reward": "score"},
                                    {"rules": "mini", "reward": "adp"}])
def test_pettingzoo_api_test(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # api_test warns, e.g. about per-role observation sizes
        api_test(DouDizhuEnv(**kwargs), num_cycles=300)
        api_test(wrapped_env(**kwargs), num_cycles=100)


@pytest.mark.parametrize("kwargs", [{}, {"bidding": True}])
def test_pettingzoo_seed_test(kwargs):
    seed_test(lambda: DouDizhuEnv(**kwargs), num_cycles=200)


def test_reset_seed_reproduces_the_deal():
    a, b = DouDizhuEnv(), DouDizhuEnv()
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.game.deal == b.game.deal
    b.reset(seed=6)
    assert a.game.deal != b.game.deal


@pytest.mark.parametrize("reward", ["wp", "adp", "score"])
def test_rewards_are_the_arenas(reward):
    env = DouDizhuEnv(reward=reward)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(30):
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            totals[agent] += r
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        game = env.game
        lord_won = game.winner == 0
        unit = {"wp": 1.0, "adp": 2.0 ** game.bombs}.get(reward)
        if reward == "score":
            expected = dict(zip(env.possible_agents, game.scores))
        else:
            expected = {"landlord": unit if lord_won else -unit,
                        "landlord_down": -unit if lord_won else unit, "landlord_up": -unit if lord_won else unit}
        assert totals == expected
        env.reset()


def test_bad_actions_raise_and_leave_the_game_unchanged():
    env = DouDizhuEnv()
    env.reset(seed=2)
    obs = env.observe("landlord")
    env.step(int(np.flatnonzero(obs["action_mask"])[-1]))      # the landlord leads
    agent = env.agent_selection
    before = (env.game.history[:], env.game.hands[:], agent, env.observe(agent)["action_mask"].copy())
    masked = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[5])
    with pytest.raises(IllegalMoveError, match="masked out"):
        env.step(masked)
    with pytest.raises(IllegalMoveError, match="outside the action space"):
        env.step(len(move_index()))
    with pytest.raises(IllegalMoveError, match="integer index"):
        env.step("33")
    with pytest.raises(OutOfTurnError, match="it is landlord_down's turn"):
        env.step(0, agent="landlord_up")
    with pytest.raises(OutOfTurnError, match="no agent"):
        env.step(0, agent="nobody")
    after = (env.game.history, env.game.hands, env.agent_selection, env.observe(agent)["action_mask"])
    assert before[0] == after[0] and before[1] == after[1] and before[2] == after[2]
    np.testing.assert_array_equal(before[3], after[3])
    env.step(0, agent="landlord_down")                                  # pass is legal: the game goes on
    assert env.game.history[-1] == (1, PASS)


def test_pass_when_leading_and_moves_while_bidding_are_refused():
    env = DouDizhuEnv()
    env.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="as a lead"):
        env.step(0)
    bidder = DouDizhuEnv(bidding=True)
    bidder.reset(seed=0)
    with pytest.raises(IllegalMoveError, match="is bidding"):
        bidder.step(1)
    assert bidder.game.phase is Phase.BIDDING and not bidder.game.bids


def test_bad_configurations_are_refused():
    with pytest.raises(RulesError, match="no bidding"):
        DouDizhuEnv("mini", bidding=True)
    with pytest.raises(EnvError, match="card play only"):
        DouDizhuEnv(bidding=True, encoding="douzero")
    with pytest.raises(EnvError, match="unknown reward"):
        DouDizhuEnv(reward="elo")
    with pytest.raises(EnvError, match="render_mode"):
        DouDizhuEnv(render_mode="rgb_array")
    assert issubclass(EnvError, ValueError)
    with pytest.raises(RulesError, match="flower card"):
        DouDizhuEnv("wildcard")


def test_render_as_text():
    env = DouDizhuEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "landlord:" in text and "<- to act" in text and "[20]" in text


# -- the Gymnasium environment -----------------------------------------------------------------

def test_gymnasium_check_env():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # "not able to test alternative render modes" (no spec)
        check_env(SingleSeatEnv(illegal="lose"))
        check_env(SingleSeatEnv(seat="random", opponents="greedy", illegal="lose"))
        check_env(SingleSeatEnv(bidding=True, seat=1, reward="score", illegal="lose"))


def test_gymnasium_make_builds_the_registered_env():
    import gymnasium
    env = gymnasium.make("ddzlab.env.single:ddzlab/DouDizhuSingleSeat-v0", seat="landlord_up", opponents="greedy")
    obs, info = env.reset(seed=3)
    assert info["role"] == "up" and obs["action_mask"].any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make("ddzlab.env.single:ddzlab/DouDizhuSingleSeat-v0", illegal="lose").unwrapped)


def play_episode(env, seed, rng):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        mask = obs["action_mask"]
        np.testing.assert_array_equal(mask, info["action_mask"])
        np.testing.assert_array_equal(mask.astype(bool), env.action_masks())
        assert env.game.to_act == env.seat
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += r
        steps += 1
        if term or trunc:
            return total, steps


def test_single_seat_plays_whole_games_against_agents():
    env = SingleSeatEnv(seat="random", opponents=("greedy", "random"))
    rng = np.random.default_rng(0)
    seats = set()
    for seed in range(30):
        total, steps = play_episode(env, seed, rng)
        game = env.game
        assert game.is_over and steps == sum(1 for s, _ in game.history if s == env.seat)
        won = (game.winner == 0) == (env.seat == 0)
        assert total == (1.0 if won else -1.0)
        seats.add(env.seat)
    assert seats == {0, 1, 2}
    a = play_episode(env, 99, np.random.default_rng(1))
    first = env.game.history[:]
    b = play_episode(env, 99, np.random.default_rng(1))
    assert a == b and env.game.history == first                 # seeded: the same episode


def test_single_seat_bad_action_raises_or_loses():
    env = SingleSeatEnv(seat="landlord_down", opponents="greedy")
    obs, _ = env.reset(seed=4)
    history = env.game.history[:]
    with pytest.raises(IllegalMoveError, match="masked out"):
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[3]))
    assert env.game.history == history
    losing = SingleSeatEnv(seat="landlord_down", opponents="greedy", illegal="lose")
    obs, _ = losing.reset(seed=4)
    _, r, term, _, info = losing.step(int(np.flatnonzero(obs["action_mask"] == 0)[3]))
    assert (r, term) == (-1.0, True) and not info["action_mask"].any()
    with pytest.raises(IllegalMoveError, match="episode is over"):
        losing.step(0)


def test_single_seat_refuses_bad_seats():
    with pytest.raises(EnvError, match="seat"):
        SingleSeatEnv(seat="dealer")
    with pytest.raises(EnvError, match="illegal"):
        SingleSeatEnv(illegal="ignore")
    with pytest.raises(EnvError, match="fix the seat"):
        SingleSeatEnv(seat="random", encoding="douzero")


# -- after the end, and odd seeds: ddzlab's errors, nothing changed ---------------------
def _played_out(env):
    """Play the AEC environment's game to its end (first legal action), every agent leaving."""
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))


def test_aec_step_after_the_episode_raises_a_ddzlab_error_and_changes_nothing():
    from ddzlab.env.table import EpisodeOverError
    env = DouDizhuEnv("mini")
    with pytest.raises(EpisodeOverError, match="call reset"):       # never reset
        env.step(0)
    env.reset(seed=3)
    while not env.game.is_over:                 # to the end, before the agents leave
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    history, selected = list(env.game.history), env.agent_selection
    with pytest.raises(EpisodeOverError, match="only step None"):    # a done agent steps None only
        env.step(0)
    assert env.agent_selection == selected and env.game.history == history and len(env.agents) == 3
    _played_out(env)
    assert env.agents == []
    rewards = dict(env.rewards)
    for action in (0, None):
        with pytest.raises(EpisodeOverError, match="the episode is over.*reset") as exc:
            env.step(action)
        assert isinstance(exc.value, ValueError) and not isinstance(exc.value, KeyError)
    assert env.agents == [] and env.game.history == history and env.rewards == rewards


def test_single_seat_step_after_the_episode_raises_a_ddzlab_error():
    from ddzlab.env.table import EpisodeOverError
    env = SingleSeatEnv("mini", opponents="smallest")
    with pytest.raises(EpisodeOverError):
        env.step(0)
    env.reset(seed=1)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    history = list(env.game.history)
    with pytest.raises(EpisodeOverError, match="call reset"):
        env.step(0)
    assert env.game.history == history


BAD_SEEDS = [-1, -2**70, 1.5, 1e30, float("nan"), "7", b"7", True, np.float64(1.0), np.int64(-3), [1, 2], object()]


def _seed_id(seed: object) -> str:
    """A test id that is the same in every process (an object's repr holds its address)."""
    return "object()" if type(seed) is object else repr(seed)


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=_seed_id)
@pytest.mark.parametrize("make", [lambda: DouDizhuEnv("mini"), lambda: SingleSeatEnv("mini")],
                         ids=["aec", "single"])
def test_a_reset_seed_gymnasium_would_refuse_raises_seed_error_naming_it(make, seed):
    from ddzlab.errors import SeedError
    env = make()
    env.reset(seed=5)
    deal = env.game.deal
    with pytest.raises(SeedError, match="a reset seed is None or a whole number of at least 0") as exc:
        env.reset(seed=seed)
    assert repr(seed) in str(exc.value)
    assert env.game.deal == deal                                    # nothing was dealt


@pytest.mark.parametrize("make", [lambda: DouDizhuEnv("mini"), lambda: SingleSeatEnv("mini")],
                         ids=["aec", "single"])
def test_reset_takes_none_and_whole_numbers_at_least_zero(make):
    env = make()
    deals = []
    for seed in (0, 2**70, np.int64(9), np.uint8(9), 9):
        env.reset(seed=seed)
        deals.append(env.game.deal)
    assert deals[2] == deals[3] == deals[4]          # a numpy integer is its value
    env.reset(seed=None)
