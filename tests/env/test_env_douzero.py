"""`ddzlab.env.encode.douzero_obs` against DouZero's own ``get_obs``, on positions of DouZero's GameEnv.

DouZero drives: its `GameEnv` is dealt a ddzlab deal (seat 0 landlord, seat 1 landlord_down,
seat 2 landlord_up), plays a random action from its own legal list (less the few its detector
calls WRONG, which ddzlab does not allow), and ddzlab's `Game` replays each action. At every
position every field of DouZero's dict must equal ddzlab's, and its legal set ddzlab's.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ddzlab.cards import pack
from ddzlab.deals import generate_deals
from ddzlab.env.encode import douzero_obs
from ddzlab.game import Game
from peers import DOUZERO_CODES, DOUZERO_INSTALL, require_peer, to_douzero

CODE_RANK = {c: r for r, c in enumerate(DOUZERO_CODES)}
GAMES = 100


def to_bits(codes: list[int]) -> int:
    c = Counter(CODE_RANK[x] for x in codes)
    return pack([c.get(r, 0) for r in range(15)])


def douzero_positions(n_games: int, seed: int):
    """(DouZero's get_obs dict, ddzlab's observation) at every position of ``n_games`` games."""
    require_peer("douzero", DOUZERO_INSTALL)
    from douzero.env import move_detector as md
    from douzero.env.env import Env, get_obs

    rng = np.random.default_rng(seed)
    for deal in generate_deals(n_games, seed=seed):
        env = Env("wp")
        env._env.reset()
        env._env.card_play_init({
            "landlord": sorted(to_douzero(deal.hands[0] + deal.kitty)),
            "landlord_down": sorted(to_douzero(deal.hands[1])),
            "landlord_up": sorted(to_douzero(deal.hands[2])),
            "three_landlord_cards": sorted(to_douzero(deal.kitty)),
        })
        env.infoset = env._game_infoset
        game = Game(deal, landlord=0)
        done = False
        while not done:
            theirs = get_obs(env.infoset)
            yield theirs, game.observation(game.to_act)
            allowed = [a for a in env.infoset.legal_actions
                       if not a or md.get_move_type(a)["type"] != md.TYPE_15_WRONG]
            action = allowed[int(rng.integers(len(allowed)))]
            _, _, done, _ = env.step(action)
            game.play(game.hand(game.to_act).from_bits(to_bits(action)) if action else "pass")
        assert game.is_over


def test_douzero_encoding_equals_douzero_get_obs():
    positions = 0
    roles = Counter()
    for theirs, obs in douzero_positions(GAMES, seed=2026):
        ours = douzero_obs(obs)
        assert ours["position"] == theirs["position"]
        for key in ("x_no_action", "z"):
            assert ours[key].dtype == theirs[key].dtype, key
            np.testing.assert_array_equal(ours[key], theirs[key], err_msg=f"{key} at {obs.history}")
        # the legal sets agree (DouZero lists some moves twice and a few its detector rejects)
        from douzero.env import move_detector as md
        dz = {to_bits(a) if a else -1: j for j, a in enumerate(theirs["legal_actions"])
              if not a or md.get_move_type(a)["type"] != md.TYPE_15_WRONG}
        mine = {(m.cards if m.kind else -1): j for j, m in enumerate(obs.legal_moves)}
        assert set(dz) == set(mine)
        # and each legal action's row of x_batch / z_batch is DouZero's row for the same cards
        assert ours["x_batch"].dtype == theirs["x_batch"].dtype == np.float32
        assert ours["z_batch"].dtype == theirs["z_batch"].dtype == np.float32
        for cards, j in mine.items():
            np.testing.assert_array_equal(ours["x_batch"][j], theirs["x_batch"][dz[cards]])
            np.testing.assert_array_equal(ours["z_batch"][j], theirs["z_batch"][dz[cards]])
        positions += 1
        roles[ours["position"]] += 1
    assert positions >= 3000, positions
    assert min(roles.values()) >= 500, roles


def test_douzero_encoding_refuses_bidding():
    from ddzlab.errors import RulesError
    game = Game(generate_deals(1, seed=1)[0])           # standard rules: bidding first
    with pytest.raises(RulesError, match="landlord is known"):
        douzero_obs(game.observation(0))
