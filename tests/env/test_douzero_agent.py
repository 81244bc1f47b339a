"""The agent ``douzero:<folder>`` (`ddzlab.env.douzero_agent`) against DouZero's own ``DeepAgent``,
and its loader against hostile and wrong checkpoint files.

The oracle is DouZero itself: checkpoints are written by DouZero's model classes
(``douzero.dmc.models``; one set as initialised from a seed, one after a short training run
on random targets), DouZero's ``GameEnv`` plays real games with DouZero's ``DeepAgent`` in
all three seats, and at every position ddzlab's `Game` (replaying the same actions) asks
ddzlab's agent for its move: it must be the cards DouZero chose.
"""
from __future__ import annotations

import os
import pickle
from collections import Counter

import numpy as np
import pytest

from ddzlab.agents import AgentError, make_agent
from ddzlab.arena import duel
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from peers import DOUZERO_INSTALL, require_peer, to_douzero
from test_env_douzero import to_bits

TORCH_INSTALL = "pip install 'ddzlab[douzero]'  (torch==2.13.0, the CPU build)"
POSITIONS = ("landlord", "landlord_up", "landlord_down")


def _torch():
    return require_peer("torch", TORCH_INSTALL)


def douzero_checkpoints(folder, seed: int, train_steps: int = 0):
    """Checkpoints written by DouZero's own model classes: seeded initialisation, then
    ``train_steps`` Adam steps towards random targets on random 0/1 inputs."""
    torch = _torch()
    require_peer("douzero", DOUZERO_INSTALL)
    require_peer("git", "pip install 'ddzlab[peers]'  (GitPython: douzero.dmc imports it)")
    from douzero.dmc.models import model_dict
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    for position in POSITIONS:
        model = model_dict[position]()
        width = 373 if position == "landlord" else 484
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        for _ in range(train_steps):
            z = (torch.rand(32, 5, 162) < 0.1).float()
            x = (torch.rand(32, width) < 0.2).float()
            loss = ((model.forward(z, x, return_value=True)["values"] - torch.randn(32, 1)) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        torch.save(model.state_dict(), folder / f"{position}.ckpt")
    return folder


def compare_with_deepagent(folder, deals):
    """(positions where ddzlab's agent was asked with more than one legal move, by DouZero
    position; mismatches as (position, DouZero's move, ddzlab's move))."""
    from douzero.env.game import GameEnv
    from douzero.evaluation.deep_agent import DeepAgent

    class Recording:
        def __init__(self, agent):
            self.agent, self.last = agent, None

        def act(self, infoset):
            self.last = self.agent.act(infoset)
            return self.last

    players = {p: Recording(DeepAgent(p, str(folder / f"{p}.ckpt"))) for p in POSITIONS}
    ours = make_agent(f"douzero:{folder}")
    asked, mismatches = Counter(), []
    for deal in deals:
        env = GameEnv(players)
        env.card_play_init({"landlord": sorted(to_douzero(deal.hands[0] + deal.kitty)),
                            "landlord_down": sorted(to_douzero(deal.hands[1])),
                            "landlord_up": sorted(to_douzero(deal.hands[2])),
                            "three_landlord_cards": sorted(to_douzero(deal.kitty))})
        game = Game(deal, landlord=0)
        while not env.game_over:
            position = env.acting_player_position
            obs = game.observation(game.to_act)
            mine = ours.play(obs)
            env.step()                                  # DouZero's DeepAgent chooses
            theirs = players[position].last
            theirs_bits = to_bits(theirs) if theirs else 0
            if len(obs.legal_moves) > 1:
                asked[position] += 1
            if (mine.cards if not mine.is_pass else 0) != theirs_bits:
                mismatches.append((position, theirs, str(mine)))
            game.play(game.hand(game.to_act).from_bits(theirs_bits) if theirs else "pass")
        assert game.is_over and bool(game.landlord_won) == (env.get_winner() == "landlord")
    return asked, mismatches


def test_douzero_agent_chooses_deepagents_move_at_3000_positions(tmp_path):
    torch = _torch()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        asked, mismatches = Counter(), []
        for seed, steps, deals in ((11, 0, generate_deals(40, seed=39)), (12, 30, generate_deals(40, seed=40))):
            folder = douzero_checkpoints(tmp_path / f"set{seed}", seed, steps)
            got, bad = compare_with_deepagent(folder, deals)
            asked.update(got)
            mismatches += bad
    finally:
        torch.set_num_threads(threads)
    assert not mismatches, mismatches[:5]
    assert sum(asked.values()) >= 3000, asked
    assert min(asked[p] for p in POSITIONS) >= 600, asked


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    _torch()
    from ddzlab.env.douzero_agent import save_random_checkpoints
    folder = tmp_path_factory.mktemp("dz") / "model"
    save_random_checkpoints(folder, seed=3)
    return folder


def test_spec_forms_and_the_arena(model):
    a = make_agent(f"douzero:{model}")
    b = make_agent(f"douzero:folder={model}")
    obs = Game(generate_deals(1, seed=5)[0], landlord=0).observation(0)
    assert a.play(obs) == b.play(obs)
    assert set(a.last_eval) == {"value", "top"} and len(a.last_eval["top"]) == 3
    np.testing.assert_array_equal(a.values(obs), b.values(obs))
    assert a.last_eval["value"] == pytest.approx(float(np.max(a.values(obs))), abs=1e-6)
    df = duel(f"douzero:{model}", "random", 3, progress=False)
    assert int(df.loc["combined", "n"]) == 6
    with pytest.raises(AgentError, match="has no option 'depth'"):
        make_agent(f"douzero:{model},depth=3")


def test_cli_duel_tournament_and_play(model):
    from frontends.test_cli import run_main, scripted
    code, out = run_main(["duel", f"douzero:{model}", "greedy", "--deals", "2", "--quiet"])
    assert code == 0 and "combined" in out, out
    code, out = run_main(["tournament", f"douzero:{model}", "random", "smallest", "--deals", "1", "--quiet"])
    assert code == 0 and f"douzero:{model}" in out, out
    code, out = run_main(["play", "--seed", "2", "--landlord", "1", "--agents", f"douzero:{model}"], scripted([]))
    assert code == 0 and "Game over" in out and "(douzero)" in out, out
    code, out = run_main(["agents"])
    assert "douzero" in out and "DouZero-format model" in out


def test_a_checkpoint_that_would_run_code_is_refused(tmp_path, model):
    torch = _torch()
    from ddzlab.env.douzero_agent import CheckpointError, load_state
    marker = tmp_path / "code_ran"

    class Payload:
        def __reduce__(self):
            return (os.makedirs, (str(marker),))

    folder = tmp_path / "hostile"
    folder.mkdir()
    for p in POSITIONS:
        (folder / f"{p}.ckpt").write_bytes((model / f"{p}.ckpt").read_bytes())
    torch.save({"dense1.weight": Payload()}, folder / "landlord.ckpt")
    # the file is hostile: unpickled without the restriction, it runs os.makedirs
    torch.load(folder / "landlord.ckpt", weights_only=False)
    assert marker.is_dir()
    marker.rmdir()
    with pytest.raises(CheckpointError, match="refused: not a weights-only checkpoint"):
        load_state(folder / "landlord.ckpt", "landlord")
    with pytest.raises(CheckpointError, match="landlord.ckpt: refused"):
        make_agent(f"douzero:{folder}")
    # the same payload as a plain pickle (not torch's zip format)
    (folder / "landlord.ckpt").write_bytes(pickle.dumps({"x": Payload()}))
    with pytest.raises(CheckpointError, match="refused"):
        make_agent(f"douzero:{folder}")
    assert not marker.exists()
    assert issubclass(CheckpointError, ValueError)


def test_missing_file_wrong_architecture_wrong_shape(tmp_path, model):
    torch = _torch()
    from ddzlab.env.douzero_agent import CheckpointError

    def copy(name):
        folder = tmp_path / name
        folder.mkdir()
        for p in POSITIONS:
            (folder / f"{p}.ckpt").write_bytes((model / f"{p}.ckpt").read_bytes())
        return folder

    with pytest.raises(CheckpointError, match="no such folder"):
        make_agent(f"douzero:{tmp_path / 'nowhere'}")
    missing = copy("missing")
    (missing / "landlord_up.ckpt").unlink()
    with pytest.raises(CheckpointError, match=r"no landlord_up.ckpt .*holds landlord.ckpt, landlord_down.ckpt"):
        make_agent(f"douzero:{missing}")
    other = copy("other")
    state = torch.load(other / "landlord.ckpt", weights_only=True)
    state["dense7.weight"] = torch.zeros(1, 1)
    del state["dense6.bias"]
    torch.save(state, other / "landlord.ckpt")
    with pytest.raises(CheckpointError, match=r"another architecture.*missing \['dense6.bias'\].*dense7.weight"):
        make_agent(f"douzero:{other}")
    swapped = copy("swapped")
    (swapped / "landlord.ckpt").write_bytes((model / "landlord_up.ckpt").read_bytes())
    with pytest.raises(CheckpointError, match=r"dense1.weight has shape \(512, 612\).*\(512, 501\).*farmer"):
        make_agent(f"douzero:{swapped}")
    full = copy("full")
    torch.save({"model_state_dict": {}, "frames": 1}, full / "landlord_down.ckpt")
    with pytest.raises(CheckpointError, match="training checkpoint"):
        make_agent(f"douzero:{full}")
    nan = copy("nan")
    state = torch.load(nan / "landlord_down.ckpt", weights_only=True)
    state["dense3.bias"][0] = float("nan")
    torch.save(state, nan / "landlord_down.ckpt")
    with pytest.raises(CheckpointError, match="dense3.bias holds NaN"):
        make_agent(f"douzero:{nan}")
    garbage = copy("garbage")
    (garbage / "landlord.ckpt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="refused"):
        make_agent(f"douzero:{garbage}")


def test_training_run_files_by_frames(tmp_path, model):
    for p in POSITIONS:
        (tmp_path / f"{p}_weights_3200.ckpt").write_bytes((model / f"{p}.ckpt").read_bytes())
    agent = make_agent(f"douzero:{tmp_path},frames=3200")
    obs = Game(generate_deals(1, seed=8)[0], landlord=0).observation(0)
    np.testing.assert_array_equal(agent.values(obs), make_agent(f"douzero:{model}").values(obs))


def test_without_torch_the_agent_says_how_to_install(monkeypatch, model):
    import sys
    from ddzlab.env import douzero_agent
    monkeypatch.setitem(sys.modules, "torch", None)          # import torch raises ImportError
    monkeypatch.setattr(douzero_agent, "_CACHE", {})
    with pytest.raises(AgentError, match=r"need torch: pip install 'ddzlab\[douzero\]'"):
        make_agent(f"douzero:{model}")


def test_a_douzero_agent_without_a_folder_says_what_it_needs():
    """`douzero` alone (as the widgets and `ddzlab agents` build every registered agent) is refused
    with a message naming the missing folder, not a Python signature error."""
    from ddzlab.agents import make_agent
    from ddzlab.errors import DdzError
    with pytest.raises(DdzError, match=r"douzero:<folder>"):
        make_agent("douzero")


def test_a_relative_folder_is_found_under_data_models(tmp_path, model, monkeypatch):
    """``douzero:<name>``: the folder as given first (the working directory), then under the
    models folder; neither names both places."""
    from ddzlab.env import douzero_agent
    from ddzlab.env.douzero_agent import CheckpointError
    models = tmp_path / "models"
    (models / "mine").mkdir(parents=True)
    for p in POSITIONS:
        (models / "mine" / f"{p}.ckpt").write_bytes((model / f"{p}.ckpt").read_bytes())
    monkeypatch.setattr(douzero_agent, "MODELS_DIR", models)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    obs = Game(generate_deals(1, seed=4)[0], landlord=0).observation(0)
    np.testing.assert_array_equal(make_agent("douzero:mine").values(obs), make_agent(f"douzero:{model}").values(obs))
    # a folder of that name in the working directory comes first
    (work / "mine").mkdir()
    with pytest.raises(CheckpointError, match=r"mine: no landlord.ckpt"):
        make_agent("douzero:mine")
    with pytest.raises(CheckpointError, match=rf"nowhere: no such folder nor {models / 'nowhere'}"):
        make_agent("douzero:nowhere")


def _sha256_by_hand(folder):
    """The digest as its docstring defines it, from the files read by torch."""
    import hashlib
    torch = _torch()
    h = hashlib.sha256()
    for p in POSITIONS:
        state = torch.load(folder / f"{p}.ckpt", weights_only=True)
        for key in sorted(state):
            h.update(f"{p}/{key}/{tuple(state[key].shape)}".encode())
            h.update(np.asarray(state[key].numpy(), dtype="<f4").tobytes())
    return "sha256-" + h.hexdigest()[:16]


def test_a_digest_pins_the_weights(tmp_path, model):
    torch = _torch()
    from ddzlab.env.douzero_agent import CheckpointError, folder_digest
    digest = folder_digest(model)
    assert digest == _sha256_by_hand(model) and len(digest) == len("sha256-") + 16
    # the same numbers written another way (a fresh save, other file bytes) keep the digest
    again = tmp_path / "again"
    again.mkdir()
    for p in POSITIONS:
        state = torch.load(model / f"{p}.ckpt", weights_only=True)
        torch.save({k: v.clone() for k, v in reversed(list(state.items()))}, again / f"{p}.ckpt")
    assert folder_digest(again) == digest
    agent = make_agent(f"douzero:{again},digest={digest}")
    assert agent.play(Game(generate_deals(1, seed=2)[0], landlord=0).observation(0))
    # one weight changed: another digest, and the pinned spec is refused
    state = torch.load(again / "landlord_up.ckpt", weights_only=True)
    state["dense6.bias"] += 1e-6
    torch.save(state, again / "landlord_up.ckpt")
    changed = folder_digest(again)
    assert changed != digest and changed == _sha256_by_hand(again)
    with pytest.raises(CheckpointError, match=rf"digest {changed}, the spec asks for {digest}"):
        make_agent(f"douzero:{again},digest={digest}")
    with pytest.raises(CheckpointError, match="digest is sha256-"):
        make_agent(f"douzero:{again},digest=12345")
