"""ddzlab.env.learn: the small Deep Monte-Carlo learner of notebook 08."""
from __future__ import annotations

import numpy as np
import pytest

from ddzlab.arena import duel
from ddzlab.deals import generate_deals
from ddzlab.env import move_index
from ddzlab.env.learn import ACTION_FEATURES, Batch, QLearner, action_features, train
from ddzlab.errors import ModelFileError
from ddzlab.game import Game
from ddzlab.rules import MINI, Kind


def test_action_features_describe_each_move():
    ix = move_index("mini")
    f = action_features(ix)
    assert f.shape == (len(ix), ACTION_FEATURES)
    i = ix.index_of("99TTJJ")
    assert f[i, 0:15].tolist() == [0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5] + [0] * 6
    assert f[i, 15 + int(Kind.PAIR_CHAIN)] == 1 and f[i, 15:15 + len(Kind)].sum() == 1
    assert f[0].sum() == 1                       # pass: only its kind


def test_fit_lowers_the_loss_on_a_fixed_batch():
    learner = QLearner("mini", hidden=16, lr=1e-2, seed=1)
    rng = np.random.default_rng(0)
    states = rng.random((200, learner.params["Ws"].shape[0])).astype(np.float32)
    actions = rng.integers(len(learner.index), size=200)
    returns = np.where(learner.features[actions, 15 + int(Kind.SOLO)] > 0, 1.0, -1.0)
    batch = Batch(list(states), list(actions), list(returns))
    first = learner.fit(batch, epochs=1, rng=rng)
    for _ in range(30):
        last = learner.fit(batch, epochs=1, rng=rng)
    assert last < first / 2


def test_train_runs_games_and_the_agent_plays_legal_moves(tmp_path):
    learner = QLearner("mini", hidden=8, seed=0)
    history = train(learner, 12, batch_episodes=4, seed=0, progress=False)
    assert len(history) == 12 and set(history.reward) <= {-1.0, 1.0}
    assert history.loss.notna().all() and set(history.opponent) == {"random", "greedy"}
    agent = learner.agent_factory()(seed=0)
    game = Game(generate_deals(1, seed=3, rules=MINI)[0], rules="mini")
    while not game.is_over:
        obs = game.observation(game.to_act)
        assert agent.play(obs) in obs.legal_moves
        game.play(agent.play(obs))
    df = duel(learner.agent_factory(), "random", generate_deals(3, seed=4, rules=MINI), rules="mini",
              progress=False)
    assert int(df.loc["combined", "n"]) == 6
    path = tmp_path / "q.npz"
    learner.save(path)
    back = QLearner.load(path)
    for k, v in learner.params.items():
        np.testing.assert_array_equal(back.params[k], v)
    state = np.ones(learner.params["Ws"].shape[0], np.float32)
    np.testing.assert_array_equal(back.q_values(state, [0, 5, 9]), learner.q_values(state, [0, 5, 9]))


def test_load_refuses_other_files(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, rules=np.array("mini"), Ws=np.zeros(3))
    with pytest.raises(ModelFileError, match="not a saved QLearner"):
        QLearner.load(bad)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ModelFileError):
        QLearner.load(tmp_path / "junk.npz")
