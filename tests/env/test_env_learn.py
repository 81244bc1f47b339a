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


# -- crafted files: refused from the headers, before the network is allocated --------
def _saved(tmp_path, **arrays):
    """A file laid out as `QLearner.save` writes one, with ``arrays`` replacing its own."""
    learner = QLearner("mini", hidden=4, seed=0)
    path = tmp_path / "crafted.npz"
    np.savez_compressed(path, **{"rules": np.array("mini"), **learner.params, **arrays})
    return path


def test_load_refuses_a_huge_declared_network_without_allocating_it(tmp_path):
    """A 400,000-unit hidden layer of zeros packs into a few KB, but the network it declares
    (170 x 400,000 weights and more) would take over half a GB: refused from the headers."""
    import tracemalloc
    h = 400_000
    path = _saved(tmp_path, b1=np.zeros(h, np.float32), w2=np.zeros(h, np.float32),
                  Ws=np.zeros((1, 1), np.float32), Wa=np.zeros((1, 1), np.float32))
    assert path.stat().st_size < 20_000
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=r"crafted.npz is not a saved QLearner: .*b1.* 1..\d+ units"):
            QLearner.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, f"{peak / 2**20:.0f} MB allocated before refusing"


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e39])   # 1e39 is beyond float32
def test_load_refuses_nan_and_infinite_weights(tmp_path, value):
    w2 = QLearner("mini", hidden=4, seed=0).params["w2"].astype(np.float64)
    w2[2] = value
    with pytest.raises(ModelFileError, match="array 'w2' holds 1 NaN or infinite value"):
        QLearner.load(_saved(tmp_path, w2=w2))


def test_load_refuses_declared_sizes_the_file_cannot_hold(tmp_path):
    import zipfile
    good = _saved(tmp_path)
    assert QLearner.load(good).params["b1"].shape == (4,)
    # an array whose .npy header declares more values than its bytes hold
    header = bytearray(zipfile.ZipFile(good).read("b1.npy"))
    cut = tmp_path / "cut.npz"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(cut, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info.filename, bytes(header[:-8]) if info.filename == "b1.npy" else data)
    with pytest.raises(ModelFileError, match="'b1' declares .* bytes, not the size of its"):
        QLearner.load(cut)
    # arrays of the wrong dimensions, an unknown array, a rule set that does not exist
    for bad, problem in [({"Wa": np.zeros((5, 4), np.float32)}, "'Wa' is float32 of shape .5, 4."),
                         ({"extra": np.zeros(1)}, "extra.npy"),
                         ({"rules": np.array("chess")}, "rules 'chess'")]:
        with pytest.raises(ModelFileError, match=problem):
            QLearner.load(_saved(tmp_path, **bad))
