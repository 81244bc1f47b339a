"""Deep Monte-Carlo training (`ddzlab.env.dmc`) from its definitions.

Oracles: a game worked by hand (the targets), DouZero's own model classes (the shapes),
DouZero's ``DeepAgent`` and its flags parser (the checkpoint files and the training state),
an uninterrupted run (resume), and the network's plain forward pass (the shared-parts
evaluation the actors use). Runs are tiny: a learner step of 4 × 5 frames.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ddzlab.agents import make_agent
from ddzlab.arena import duel
from ddzlab.deals import generate_deals, parse_deals
from ddzlab.env.encode import douzero_obs
from ddzlab.game import Game
from peers import DOUZERO_INSTALL, require_peer
from test_douzero_agent import TORCH_INSTALL, compare_with_deepagent

POSITIONS = ("landlord", "landlord_up", "landlord_down")
ROOT = Path(__file__).resolve().parents[2]


def _torch():
    return require_peer("torch", TORCH_INSTALL)


def _douzero():
    require_peer("douzero", DOUZERO_INSTALL)
    require_peer("git", "pip install 'ddzlab[peers]'  (GitPython: douzero.dmc imports it)")


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One torch thread: the runs are tiny, and threads only contend on a busy machine."""
    torch = _torch()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def tiny(seed=0, **kw):
    from ddzlab.env.dmc import DMCConfig
    return DMCConfig(seed=seed, unroll=4, batch=5, **kw)


def weights(folder):
    torch = _torch()
    return {p: torch.load(Path(folder) / f"{p}.ckpt", weights_only=True) for p in POSITIONS}


def same_weights(a, b):
    return all(set(a[p]) == set(b[p]) and all(bool((a[p][k] == b[p][k]).all()) for k in a[p]) for p in POSITIONS)


# -- targets: a game worked by hand --------------------------------------------------------------

#: landlord (seat 0): 3333 and the pairs 44..JJ (the kitty T J J completes them); landlord_down
#: (seat 1) and landlord_up (seat 2) hold no bomb and no rocket, so both must pass a bomb
HAND_DEAL = "3333445566778899T | 44556677QQKKAA22B | 8899TTJJQQKKAA22R | TJJ"
SCRIPT = ["3333", "pass", "pass", "445566778899TTJJ"]


@pytest.mark.parametrize("objective, unit", [("adp", 2.0), ("wp", 1.0), ("logadp", 2.0)])
def test_every_frame_is_labelled_with_the_return_of_the_position_that_acted(objective, unit):
    from ddzlab.env.dmc import play_episode
    deal = parse_deals(HAND_DEAL)[0]
    game = Game(deal, landlord=0)
    script = iter(SCRIPT)
    seen = []

    def choose(position, x, z, legal):
        want = next(script)
        obs = game.observation(game.to_act)        # the features, from the public observation
        ref = douzero_obs(obs)
        np.testing.assert_array_equal(x, ref["x_no_action"])
        np.testing.assert_array_equal(z, ref["z"])
        seen.append((position, len(legal)))
        return [str(m) for m in legal].index(want) if want != "pass" else [m.is_pass for m in legal].index(True)

    ep = play_episode(game, choose, objective)
    # by hand: the landlord bombs (1 bomb: ADP 2**1 = 2, log-ADP 1 + 1 = 2), both farmers are
    # forced to pass (their only legal move), the landlord goes out with its chain of pairs
    assert [p for p, _ in seen] == ["landlord", "landlord_down", "landlord_up", "landlord"]
    assert seen[1][1] == seen[2][1] == 1 and seen[0][1] > 1 and seen[3][1] > 1
    assert ep.positions == ["landlord", "landlord_down", "landlord_up", "landlord"]
    assert ep.targets == [unit, -unit, -unit, unit]
    assert ep.landlord_return == unit
    assert game.is_over and game.landlord_won and game.bombs == 1
    # the action vectors: the bomb's 4 threes, the passes as zeros, 16 cards of pairs
    assert [int(a.sum()) for a in ep.actions] == [4, 0, 0, 16]
    assert ep.actions[0][:4].tolist() == [1, 1, 1, 1] and ep.actions[0][4:].sum() == 0


def test_episode_return_by_objective_and_side():
    from ddzlab.env.dmc import DMCError, episode_return
    assert [episode_return(True, b, "adp") for b in (0, 1, 3)] == [1.0, 2.0, 8.0]
    assert [episode_return(False, b, "adp") for b in (0, 1, 3)] == [-1.0, -2.0, -8.0]
    assert [episode_return(False, b, "logadp") for b in (0, 2)] == [-1.0, -3.0]
    assert episode_return(True, 5, "wp") == 1.0 and episode_return(False, 5, "wp") == -1.0
    with pytest.raises(DMCError, match="unknown objective 'score'"):
        episode_return(True, 0, "score")


# -- the networks ------------------------------------------------------------------------------

def test_shapes_are_those_of_douzeros_model_classes():
    _torch()
    _douzero()
    from douzero.dmc.models import model_dict
    from ddzlab.env.dmc import initial_nets
    nets = initial_nets(0)
    for p in POSITIONS:
        ours = {k: tuple(v.shape) for k, v in nets[p].state_dict().items()}
        theirs = {k: tuple(v.shape) for k, v in model_dict[p]().state_dict().items()}
        assert ours == theirs, p


def test_the_actors_evaluation_is_the_networks_forward_pass():
    torch = _torch()
    from ddzlab.env.dmc import SEAT_POSITION, action_values, initial_nets
    nets = initial_nets(4)
    checked = 0
    for deal in generate_deals(3, seed=8):
        game = Game(deal, landlord=0)
        rng = np.random.default_rng(1)
        while not game.is_over:
            obs = game.observation(game.to_act)
            feats = douzero_obs(obs)
            net = nets[SEAT_POSITION[game.to_act]]
            with torch.no_grad():
                full = net(torch.from_numpy(feats["z_batch"]), torch.from_numpy(feats["x_batch"]))[:, 0].numpy()
            mine = action_values(net, feats["x_no_action"], feats["z"], feats["x_batch"][:, -54:].copy())
            np.testing.assert_allclose(mine, full, rtol=1e-4, atol=1e-5)
            checked += 1
            game.play(obs.legal_moves[int(rng.integers(len(obs.legal_moves)))])
    assert checked > 60


# -- checkpoints: DouZero's format ----------------------------------------------------------------

@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    _torch()
    from ddzlab.env.dmc import train
    out = tmp_path_factory.mktemp("dmc") / "run"
    res = train(out, 120, tiny(seed=5, epsilon=0.2), checkpoint_every=60, progress=False, threads=1)
    return out, res


def test_a_run_writes_douzeros_files_and_counts_frames_as_douzero(trained):
    out, res = trained
    assert res.frames == 120 and res.frames_now == 120 and res.episodes > 0
    names = {p.name for p in out.iterdir()}
    for p in POSITIONS:
        assert {f"{p}.ckpt", f"{p}_weights_60.ckpt", f"{p}_weights_120.ckpt"} <= names
    assert "model.tar" in names and not [n for n in names if n.endswith(".tmp")]
    torch = _torch()
    state = torch.load(out / "model.tar", weights_only=True)
    assert state["frames"] == 120 and sum(state["position_frames"].values()) == 120
    assert all(v % 20 == 0 for v in state["position_frames"].values())
    # the latest position files are the last checkpoint's
    assert same_weights(weights(out), {p: torch.load(out / f"{p}_weights_120.ckpt", weights_only=True)
                                       for p in POSITIONS})
    assert same_weights(weights(out), state["model_state_dict"])
    # training moved the weights away from the seed's initialisation
    from ddzlab.env.dmc import initial_nets
    init = {p: n.state_dict() for p, n in initial_nets(5).items()}
    assert not same_weights(weights(out), init)


def test_a_checkpoint_plays_in_ddzlab_and_in_douzeros_deepagent(trained):
    out, _ = trained
    _douzero()
    from ddzlab.env.douzero_agent import DouZeroAgent
    df = duel(f"douzero:{out}", "random", 2, progress=False)
    assert int(df.loc["combined", "n"]) == 4
    earlier = DouZeroAgent(out, frames=60)
    obs = Game(generate_deals(1, seed=3)[0], landlord=0).observation(0)
    assert earlier.play(obs) in obs.legal_moves
    # DouZero's own DeepAgent loads the files and chooses ddzlab's agent's move at every position
    asked, mismatches = compare_with_deepagent(out, generate_deals(3, seed=12))
    assert not mismatches, mismatches[:3]
    assert all(asked[p] > 0 for p in POSITIONS), asked


# -- seeds and resume ----------------------------------------------------------------------------

def test_same_seed_same_weights_other_seed_other_weights(tmp_path):
    torch = _torch()
    from ddzlab.env.dmc import train
    before = torch.random.get_rng_state()
    runs = {}
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        res = train(tmp_path / name, 60, tiny(seed=seed, epsilon=0.3), progress=False, threads=1)
        runs[name] = (res, weights(tmp_path / name))
    assert torch.equal(torch.random.get_rng_state(), before)     # torch's global generator untouched
    train(tmp_path / "d", 20, tiny(seed=7), progress=False, threads=2)
    assert torch.get_num_threads() == 1                           # and its thread count restored
    assert same_weights(runs["a"][1], runs["b"][1]) and runs["a"][0].episodes == runs["b"][0].episodes
    assert not any(bool((runs["a"][1][p][k] == runs["c"][1][p][k]).all()) for p in POSITIONS
                   for k in ("dense1.weight", "dense6.weight"))


def test_a_resumed_run_ends_where_an_uninterrupted_one_does(tmp_path):
    torch = _torch()
    from ddzlab.env.dmc import train
    cfg = tiny(seed=3, epsilon=0.25)
    whole = train(tmp_path / "whole", 140, cfg, progress=False, threads=1)
    first = train(tmp_path / "split", 60, cfg, progress=False, threads=1)
    assert first.frames == 60
    rest = train(tmp_path / "split", 140, resume=True, progress=False, threads=1)
    assert rest.frames == 140 and rest.frames_now == 80
    assert rest.episodes == whole.episodes
    assert same_weights(weights(tmp_path / "whole"), weights(tmp_path / "split"))
    a = torch.load(tmp_path / "whole" / "model.tar", weights_only=True)
    b = torch.load(tmp_path / "split" / "model.tar", weights_only=True)
    for p in POSITIONS:
        sa, sb = a["optimizer_state_dict"][p]["state"], b["optimizer_state_dict"][p]["state"]
        assert all(torch.equal(sa[i]["square_avg"], sb[i]["square_avg"]) for i in sa)
    assert a["position_frames"] == b["position_frames"]
    # asking for frames already reached trains nothing
    again = train(tmp_path / "split", 100, resume=True, progress=False, threads=1)
    assert again.frames == 140 and again.frames_now == 0


def test_ctrl_c_saves_and_the_run_resumes_from_the_saved_frames(tmp_path):
    torch = _torch()
    from ddzlab.env.dmc import train

    def interrupt(frames, _t):
        if frames == 40:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train(tmp_path / "run", 200, tiny(seed=2), progress=False, threads=1, on_step=interrupt)
    assert torch.load(tmp_path / "run" / "model.tar", weights_only=True)["frames"] == 40
    res = train(tmp_path / "run", 80, resume=True, progress=False, threads=1)
    assert res.frames == 80 and res.frames_now == 40


def test_a_killed_process_resumes_from_its_last_checkpoint(tmp_path):
    torch = _torch()
    from ddzlab.env.dmc import train
    out = tmp_path / "run"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-c", "import sys; from ddzlab.env.dmc import main; sys.exit(main(sys.argv[1:]))",
           str(out), "--frames", "100000", "--unroll", "4", "--batch", "5", "--seed", "1",
           "--checkpoint-every", "20", "--threads", "1", "--no-progress"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240
        while not (out / "landlord_weights_40.ckpt").exists():
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "no checkpoint within 240 s"
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    saved = torch.load(out / "model.tar", weights_only=True)["frames"]
    assert saved >= 20
    res = train(out, saved + 40, resume=True, progress=False, threads=1)
    assert res.frames == saved + 40 and res.frames_now == 40


def test_local_actor_processes_train_and_resume(tmp_path):
    torch = _torch()
    from ddzlab.env.dmc import train
    out = tmp_path / "workers"
    res = train(out, 40, tiny(seed=4, epsilon=0.5), progress=False, threads=1, workers=1)
    assert res.frames == 40 and res.episodes >= 1
    state = torch.load(out / "model.tar", weights_only=True)
    assert state["frames"] == 40 and sum(state["position_frames"].values()) == 40
    res = train(out, 80, resume=True, progress=False, threads=1, workers=2)
    assert res.frames == 80 and res.frames_now == 40
    assert make_agent(f"douzero:{out}").play(Game(generate_deals(1, seed=1)[0], landlord=0).observation(0))


def test_resume_from_douzeros_own_training_state(tmp_path):
    torch = _torch()
    _douzero()
    from douzero.dmc.arguments import parser
    from douzero.dmc.models import Model
    from douzero.dmc.utils import create_optimizers
    from ddzlab.env.dmc import train
    flags = parser.parse_args(["--unroll_length", "4", "--batch_size", "5", "--objective", "wp"])
    torch.manual_seed(0)
    model = Model(device="cpu")
    opts = create_optimizers(flags, model)
    out = tmp_path / "douzero"
    out.mkdir()
    # the dict DouZero's checkpoint() writes to model.tar
    torch.save({"model_state_dict": {k: m.state_dict() for k, m in model.get_models().items()},
                "optimizer_state_dict": {k: o.state_dict() for k, o in opts.items()},
                "stats": {}, "flags": vars(flags), "frames": 3200,
                "position_frames": {"landlord": 1200, "landlord_up": 1000, "landlord_down": 1000}},
               out / "model.tar")
    res = train(out, 3240, resume=True, progress=False, threads=1)
    assert res.frames == 3240
    state = torch.load(out / "model.tar", weights_only=True)
    assert state["flags"]["objective"] == "wp" and state["flags"]["unroll"] == 4 and state["flags"]["batch"] == 5
    assert state["flags"]["lr"] == flags.learning_rate and state["flags"]["epsilon"] == flags.exp_epsilon
    assert sum(state["position_frames"].values()) == 3240
    assert (out / "landlord_weights_3240.ckpt").is_file()


# -- bad input -----------------------------------------------------------------------------------

def test_bad_settings_and_files_are_refused(tmp_path, trained):
    torch = _torch()
    from ddzlab.env.dmc import DMCConfig, DMCError, train
    from ddzlab.env.douzero_agent import CheckpointError
    for frames in (0, -5, 2.5, True):
        with pytest.raises(DMCError, match="frames must be"):
            train(tmp_path / "x", frames, tiny(), progress=False)
    with pytest.raises(DMCError, match="workers must be"):
        train(tmp_path / "x", 20, tiny(), progress=False, workers=-1)
    for bad, match in ((dict(objective="score"), "unknown objective"), (dict(epsilon=1.5), "epsilon"),
                       (dict(unroll=0), "unroll"), (dict(lr=-1.0), "lr"), (dict(seed=-1), "seed")):
        with pytest.raises(DMCError, match=match):
            train(tmp_path / "x", 20, DMCConfig(**bad), progress=False)
    assert not (tmp_path / "x").exists()
    with pytest.raises(CheckpointError, match="no model.tar to resume from"):
        train(tmp_path / "x", 20, resume=True, progress=False)
    out, _ = trained
    with pytest.raises(DMCError, match="already holds a run"):
        train(out, 200, tiny(seed=5), progress=False)
    with pytest.raises(DMCError, match=r"keeps its settings: seed 5 \(not 6\)"):
        train(out, 200, tiny(seed=6, epsilon=0.2), resume=True, progress=False)
    # a training state that would run code when unpickled is refused, and the code does not run
    marker = tmp_path / "code_ran"

    class Payload:
        def __reduce__(self):
            return (os.makedirs, (str(marker),))

    hostile = tmp_path / "hostile"
    hostile.mkdir()
    torch.save({"model_state_dict": Payload(), "optimizer_state_dict": {}, "frames": 0}, hostile / "model.tar")
    with pytest.raises(CheckpointError, match="refused: not a weights-only training state"):
        train(hostile, 20, resume=True, progress=False)
    assert not marker.exists()
    # another architecture in the landlord's place
    state = torch.load(out / "model.tar", weights_only=True)
    state["model_state_dict"]["landlord"] = state["model_state_dict"]["landlord_up"]
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    torch.save(state, wrong / "model.tar")
    with pytest.raises(CheckpointError, match=r"\[landlord\]: dense1.weight has shape \(512, 612\)"):
        train(wrong, 200, resume=True, progress=False)


def test_the_command_line(tmp_path, capsys):
    _torch()
    from ddzlab.cli import main
    out = tmp_path / "cli"
    assert main(["train", "dmc", str(out), "--frames", "20", "--unroll", "4", "--batch", "5", "--seed", "2",
                 "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "trained to 20 frames" in said and f"douzero:{out}" in said
    assert main(["train", "dmc", str(out), "--frames", "40", "--resume", "--no-progress"]) == 0
    assert "trained to 40 frames" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["train", "dmc", str(out), "--frames", "60", "--resume", "--seed", "3"])
    assert "--resume keeps the saved run's settings; drop --seed" in capsys.readouterr().err
    assert main(["train", "dmc", str(out), "--frames", "60", "--no-progress"]) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert main(["train"]) == 0 and "dmc" in capsys.readouterr().out


def test_importing_the_trainer_needs_no_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "import ddzlab.env.dmc as d, ddzlab.cli\n"
            "from ddzlab.agents.base import AgentError\n"
            "try:\n    d.train('unused', 10)\nexcept AgentError as e:\n    print('refused:', e)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: DouZero-format models need torch: pip install 'ddzlab[douzero]'" in done.stdout


def test_a_list_of_checkpoints_is_the_run_trained_at_once(tmp_path):
    """`train_checkpoints`: a file set at each listed number (0: the seed's initial networks),
    the last one the weights of one uninterrupted run; stopped and started again, the same files."""
    torch = _torch()
    from ddzlab.env.dmc import initial_nets, train, train_checkpoints
    cfg = tiny(seed=4, epsilon=0.2)
    whole = train(tmp_path / "whole", 100, cfg, progress=False, threads=1)
    reached = train_checkpoints(tmp_path / "list", [60, 0, 100, 40], cfg, progress=False)
    assert reached == {0: 0, 40: 40, 60: 60, 100: 100} and whole.frames == 100
    out = tmp_path / "list"
    at = {f: {p: torch.load(out / f"{p}_weights_{f}.ckpt", weights_only=True) for p in POSITIONS} for f in reached}
    assert same_weights(at[100], weights(tmp_path / "whole"))
    assert same_weights(at[0], {p: n.state_dict() for p, n in initial_nets(4).items()})
    assert not same_weights(at[40], at[60]) and not same_weights(at[0], at[40])
    # stopped after 40 frames, then the same list again: the same files
    part = tmp_path / "part"
    train_checkpoints(part, [40], cfg, progress=False)
    train_checkpoints(part, [0, 40, 60, 100], cfg, progress=False)
    for f in reached:
        assert same_weights(at[f], {p: torch.load(part / f"{p}_weights_{f}.ckpt", weights_only=True) for p in POSITIONS})
    # a step is 20 frames: a number between steps ends at the next step
    odd = train_checkpoints(tmp_path / "odd", [30], tiny(seed=4), progress=False)
    assert odd == {30: 40}


def test_checkpoints_from_the_command_line_and_bad_lists(tmp_path, capsys):
    _torch()
    from ddzlab.cli import main
    from ddzlab.env.dmc import DMCError, train_checkpoints
    out = tmp_path / "cli"
    args = ["train", "dmc", str(out), "--unroll", "4", "--batch", "5", "--seed", "2", "--no-progress"]
    assert main([*args, "--checkpoints", "0,20,40"]) == 0
    assert "checkpoints at 0, 20, 40 frames" in capsys.readouterr().out
    assert all((out / f"{p}_weights_{f}.ckpt").is_file() for p in POSITIONS for f in (0, 20, 40))
    with pytest.raises(SystemExit):
        main([*args, "--checkpoints", "20,x"])
    assert "comma-separated list of frame counts" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*args])
    assert "give --frames N or --checkpoints" in capsys.readouterr().err
    # the run in OUT keeps its settings
    assert main(["train", "dmc", str(out), "--checkpoints", "60", "--no-progress"]) == 2
    assert "a resumed run keeps its settings" in capsys.readouterr().err
    with pytest.raises(DMCError, match="whole numbers of frames"):
        train_checkpoints(tmp_path / "bad", [10, -1])
    with pytest.raises(DMCError, match="whole numbers of frames"):
        train_checkpoints(tmp_path / "bad", [])


# -- actors on a dask cluster ------------------------------------------------------------
def test_a_dask_actor_task_plays_the_games_a_local_actor_plays():
    """`_actor_games` with the initial networks' weights sent as numpy arrays and a seed
    plays, game for game, what the in-process actor plays with the networks themselves and a
    generator of the same seed: the weights arrive whole, in the right networks."""
    _torch()
    from ddzlab.deals import deal_cards
    from ddzlab.env.dmc import _actor_games, greedy_chooser, initial_nets, play_episode
    from ddzlab.rules import get_rules
    cfg = tiny(seed=6, epsilon=0.3)
    nets = initial_nets(cfg.seed)
    sent = {p: {k: v.numpy().copy() for k, v in net.state_dict().items()} for p, net in nets.items()}
    remote = _actor_games(sent, [9, 1], cfg, 2)
    rng = np.random.default_rng([9, 1])
    choose, rules = greedy_chooser(nets, cfg.epsilon, rng), get_rules("standard")
    for item in remote:
        ep = play_episode(Game(deal_cards(rules, rng), rules=rules, landlord=0), choose, cfg.objective)
        assert [int(c) for c in item[0]] == [["landlord", "landlord_up", "landlord_down"].index(p) for p in ep.positions]
        assert np.array_equal(item[2], np.stack(ep.actions)) and item[5] == ep.landlord_return
    other = _actor_games({p: {k: v * 0 for k, v in w.items()} for p, w in sent.items()}, [9, 1], cfg, 2)
    assert any(not np.array_equal(a[2], b[2]) for a, b in zip(remote, other)), "the weights sent are not used"


def test_actors_on_a_dask_cluster_train_and_resume(tmp_path):
    torch = _torch()
    from distributed import LocalCluster

    from ddzlab.env.dmc import train
    out = tmp_path / "dask"
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        res = train(out, 40, tiny(seed=4, epsilon=0.5), progress=False, threads=1, dask=cluster.scheduler_address)
        assert res.frames == 40 and res.episodes >= 1
        assert torch.load(out / "model.tar", weights_only=True)["frames"] == 40
        res = train(out, 80, resume=True, progress=False, threads=1, workers=1, dask=cluster.scheduler_address)
        assert res.frames == 80 and res.frames_now == 40
    assert make_agent(f"douzero:{out}").play(Game(generate_deals(1, seed=1)[0], landlord=0).observation(0))


def test_a_dask_run_without_a_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    _torch()
    from ddzlab.env import dmc
    monkeypatch.setattr(dmc, "DASK_CONNECT_SECONDS", 2)
    with pytest.raises(dmc.DMCError, match="no dask scheduler at 'tcp://127.0.0.1:9'"):
        dmc.train(tmp_path / "x", 20, tiny(), progress=False, dask="tcp://127.0.0.1:9")
    assert not (tmp_path / "x" / "model.tar").exists()


def test_the_command_line_names_an_unreachable_scheduler(tmp_path, monkeypatch, capsys):
    _torch()
    from ddzlab.env import dmc
    monkeypatch.setattr(dmc, "DASK_CONNECT_SECONDS", 2)
    assert dmc.main([str(tmp_path / "x"), "--frames", "20", "--dask", "tcp://127.0.0.1:9", "--no-progress"]) == 2
    assert "no dask scheduler at 'tcp://127.0.0.1:9'" in capsys.readouterr().err
