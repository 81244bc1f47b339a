"""DouZero-format models in ddzlab's arena: the agent ``douzero:<folder>``.

DouZero (Zha et al. 2021) keeps one value network per position, each saved by ``torch.save``
as a plain ``state_dict``: ``landlord.ckpt``, ``landlord_up.ckpt`` and ``landlord_down.ckpt``
(the names of its released weights; its training run writes ``<position>_weights_<frames>.ckpt``
beside ``model.tar``). A network scores each legal move from DouZero's features
(`ddzlab.env.encode.douzero_obs`): an LSTM of 128 units reads the last 15 actions (5×162),
its last output is joined to the state-and-action vector (373 values for the landlord, 484
for a farmer), and five ReLU layers of 512 units lead to one value. The agent plays the move
of highest value, the first of ddzlab's legal order on a tie, as DouZero's ``DeepAgent``
does on its own order; with a single legal move no network is asked. A test checks, on
positions of games DouZero's own ``DeepAgent`` plays with checkpoints saved by DouZero's
model classes, that this agent chooses exactly DouZero's move.

Loading never runs code: every file is read by ``torch.load(..., weights_only=True)``,
which unpickles tensors and plain containers only; anything else (a pickled object, a file
that is not a checkpoint) raises `CheckpointError`, as do a missing position file, a key
another architecture has, and a tensor of the wrong shape. torch is an optional extra
(``pip install 'ddzlab[douzero]'``); without it the agent says how to install it.

**Where models live.** ``douzero:<folder>`` names a folder as given (absolute, or relative to
the working directory); a relative folder that is not there is looked up under
``data/models/`` (`ddzlab.config.MODELS_DIR`, ignored by git), so ``douzero:dmc_seed0`` is
``data/models/dmc_seed0`` from any working directory, and a user's released weights put in
``data/models/douzero_adp/`` play as ``douzero:douzero_adp``. ``digest=sha256-...`` (see
`weights_digest`) pins the weights themselves: a folder whose networks differ is refused, so a
stored experiment's spec names exactly the model that played its games.

Bidding is `SmallestAgent`'s (DouZero's networks play cards only), so the agent is meant for
DouZero's research setting: a fixed landlord, the standard rules.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from ..agents.base import AgentError
from ..agents.smallest import SmallestAgent
from ..config import MODELS_DIR
from ..errors import ModelFileError
from ..game import Observation
from ..moves import Move
from .encode import douzero_obs

#: DouZero's three positions, named as its checkpoint files are
POSITIONS = ("landlord", "landlord_up", "landlord_down")
#: ddzlab's role names (`Observation.role`) as DouZero's positions
ROLE_POSITION = {"landlord": "landlord", "down": "landlord_down", "up": "landlord_up"}
#: the state-and-action vector's size per position (DouZero's ``x_batch`` width)
X_SIZE = {"landlord": 373, "landlord_up": 484, "landlord_down": 484}
HIDDEN, LSTM_UNITS, Z_WIDTH = 512, 128, 162
#: how to get the CPU build of torch this agent is tested with
TORCH_INSTALL = ("pip install 'ddzlab[douzero]' (torch==2.13.0; elsewhere than this project's machines take "
                 "the CPU build with: pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu)")


class CheckpointError(ModelFileError):
    """A DouZero checkpoint that cannot be used: missing, not a weights file, a file that
    would run code when unpickled, another architecture, or a tensor of the wrong shape."""


def expected_shapes(position: str) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` keys of DouZero's network for ``position`` and their shapes."""
    if position not in X_SIZE:
        raise CheckpointError(f"unknown DouZero position {position!r}; one of {', '.join(POSITIONS)}")
    gates = 4 * LSTM_UNITS
    shapes = {"lstm.weight_ih_l0": (gates, Z_WIDTH), "lstm.weight_hh_l0": (gates, LSTM_UNITS),
              "lstm.bias_ih_l0": (gates,), "lstm.bias_hh_l0": (gates,),
              "dense1.weight": (HIDDEN, X_SIZE[position] + LSTM_UNITS), "dense1.bias": (HIDDEN,)}
    for i in range(2, 6):
        shapes[f"dense{i}.weight"], shapes[f"dense{i}.bias"] = (HIDDEN, HIDDEN), (HIDDEN,)
    shapes["dense6.weight"], shapes["dense6.bias"] = (1, HIDDEN), (1,)
    return shapes


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise AgentError(f"DouZero-format models need torch: {TORCH_INSTALL}") from None
    return torch


def model_folder(folder: Union[str, Path]) -> Path:
    """``folder`` as given if it is a folder, else (a relative name) ``data/models/<folder>``;
    `CheckpointError` naming both places when neither is."""
    base = Path(folder).expanduser()
    if base.is_dir():
        return base
    if not base.is_absolute() and (MODELS_DIR / base).is_dir():
        return MODELS_DIR / base
    where = f" nor {MODELS_DIR / base}" if not base.is_absolute() else ""
    raise CheckpointError(f"{folder}: no such folder{where} (douzero:<folder> names a folder holding "
                          f"{', '.join(p + '.ckpt' for p in POSITIONS)}; put released weights in "
                          f"{MODELS_DIR}/<name>/ and play them as douzero:<name>)")


def checkpoint_files(folder: Union[str, Path], frames: Optional[int] = None) -> dict[str, Path]:
    """The checkpoint file of each position in ``folder`` (`model_folder`): ``<position>.ckpt``,
    or with ``frames`` the files of a DouZero training run, ``<position>_weights_<frames>.ckpt``."""
    base = model_folder(folder)
    out = {}
    for position in POSITIONS:
        name = f"{position}.ckpt" if frames is None else f"{position}_weights_{frames}.ckpt"
        path = base / name
        if not path.is_file():
            present = sorted(p.name for p in base.glob("*.ckpt"))
            raise CheckpointError(f"{base}: no {name} (the {position} network); the folder holds "
                                  f"{', '.join(present) or 'no .ckpt file'}")
        out[position] = path
    return out


def load_state(path: Union[str, Path], position: str) -> dict:
    """The checked ``state_dict`` of one position's network, read without running code
    (``weights_only=True``): exactly the keys and shapes of `expected_shapes`, finite
    floating-point tensors; `CheckpointError` naming the file and the problem otherwise."""
    torch = _torch()
    path = Path(path)
    expected_shapes(position)                      # an unknown position is refused before reading
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no such file") from None
    except Exception as e:        # UnpicklingError (a global it refuses), RuntimeError (not a checkpoint), ...
        text = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        raise CheckpointError(f"{path}: refused: not a weights-only checkpoint (loading it would need "
                              f"more than tensors and plain containers, or it is not a torch file): {text}") from None
    if isinstance(state, dict) and "model_state_dict" in state:
        raise CheckpointError(f"{path}: a DouZero training checkpoint (model.tar); the agent reads the "
                              "per-position weight files (<position>.ckpt or <position>_weights_<frames>.ckpt)")
    return check_state(state, position, str(path))


def check_state(state: object, position: str, where: str) -> dict:
    """``state`` itself if it is DouZero's ``state_dict`` for ``position``: exactly the keys
    and shapes of `expected_shapes`, finite floating-point tensors; `CheckpointError`
    naming ``where`` (a file) and the problem otherwise."""
    torch = _torch()
    path = where
    want = expected_shapes(position)
    if not isinstance(state, dict):
        raise CheckpointError(f"{path}: holds a {type(state).__name__}, not a state_dict (a dict of tensors)")
    keys = set(state)
    if keys != set(want):
        missing, extra = sorted(set(want) - keys), sorted(str(k) for k in keys - set(want))
        raise CheckpointError(f"{path}: not DouZero's {position} network (another architecture): "
                              f"missing {missing[:6] or 'nothing'}, unexpected {extra[:6] or 'nothing'}")
    for key, shape in want.items():
        t = state[key]
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise CheckpointError(f"{path}: {key} is not a floating-point tensor")
        if tuple(t.shape) != shape:
            hint = ""
            if key == "dense1.weight" and t.shape[-1:] != shape[-1:]:
                other = "a farmer" if position == "landlord" else "the landlord"
                hint = f" (a file of {other}'s network in the {position} place?)"
            raise CheckpointError(f"{path}: {key} has shape {tuple(t.shape)}, DouZero's {position} network has "
                                  f"{shape}{hint}")
        if not bool(torch.isfinite(t).all()):
            raise CheckpointError(f"{path}: {key} holds NaN or infinite values")
    return state


_NET_CLASS: list = []


def _net_class() -> Any:
    """The torch module (defined on first use: torch is optional)."""
    if _NET_CLASS:
        return _NET_CLASS[0]
    torch = _torch()
    nn = torch.nn
    module: Any = nn.Module            # torch is imported on first use, so its classes are values here

    class DouZeroNet(module):
        """DouZero's value network: LSTM over the action history, then six dense layers."""

        def __init__(self, x_size: int) -> None:
            super().__init__()
            self.lstm = nn.LSTM(Z_WIDTH, LSTM_UNITS, batch_first=True)
            self.dense1 = nn.Linear(x_size + LSTM_UNITS, HIDDEN)
            self.dense2 = nn.Linear(HIDDEN, HIDDEN)
            self.dense3 = nn.Linear(HIDDEN, HIDDEN)
            self.dense4 = nn.Linear(HIDDEN, HIDDEN)
            self.dense5 = nn.Linear(HIDDEN, HIDDEN)
            self.dense6 = nn.Linear(HIDDEN, 1)

        def forward(self, z: Any, x: Any) -> Any:
            out, _ = self.lstm(z)
            h = torch.cat([out[:, -1, :], x], dim=-1)
            for layer in (self.dense1, self.dense2, self.dense3, self.dense4, self.dense5):
                h = torch.relu(layer(h))
            return self.dense6(h)

    _NET_CLASS.append(DouZeroNet)
    return DouZeroNet


def build_net(position: str, state: Optional[dict] = None) -> Any:
    """A network for ``position`` in inference mode, with ``state`` (a `load_state` dict)
    loaded, or freshly initialised by torch's current random state."""
    net = _net_class()(X_SIZE[position])
    if state is not None:
        net.load_state_dict(state, strict=True)
    net.eval()
    return net


#: loaded networks by (file, size, mtime): every game of a duel builds its agents anew
_CACHE: dict[tuple, Any] = {}


def load_nets(folder: Union[str, Path], frames: Optional[int] = None) -> dict[str, Any]:
    """The three checked networks of a checkpoint folder (`checkpoint_files`), cached while
    the files are unchanged."""
    out = {}
    for position, path in checkpoint_files(folder, frames).items():
        st = path.stat()
        key = (str(path.resolve()), position, st.st_size, st.st_mtime_ns)
        net = _CACHE.get(key)
        if net is None:
            net = build_net(position, load_state(path, position))
            if len(_CACHE) >= 32:
                _CACHE.clear()
                _DIGESTS.clear()
            _CACHE[key] = net
        out[position] = net
    return out


#: the prefix of a weights digest (never read as a number in a spec)
DIGEST_PREFIX = "sha256-"


def weights_digest(nets: dict[str, Any]) -> str:
    """A digest of three networks' weights (``sha256-`` and 16 hex digits): SHA-256 over the
    positions in `POSITIONS` order, each ``state_dict`` key in sorted order with its shape and
    its values as little-endian float32. It depends on the numbers only, not on how the files
    were written, so a model retrained bit for bit has the digest of the original."""
    import hashlib
    h = hashlib.sha256()
    for position in POSITIONS:
        state = nets[position].state_dict() if hasattr(nets[position], "state_dict") else nets[position]
        for key in sorted(state):
            t = state[key].detach().cpu().contiguous()
            h.update(f"{position}/{key}/{tuple(t.shape)}".encode())
            h.update(t.numpy().astype("<f4", copy=False).tobytes())
    return DIGEST_PREFIX + h.hexdigest()[:16]


#: digests of loaded models, by the cache keys of their three files
_DIGESTS: dict[tuple, str] = {}


def folder_digest(folder: Union[str, Path], frames: Optional[int] = None) -> str:
    """`weights_digest` of a checkpoint folder's networks (`load_nets`), cached while the files
    are unchanged."""
    key = []
    for position, path in checkpoint_files(folder, frames).items():
        st = path.stat()
        key.append((str(path.resolve()), position, st.st_size, st.st_mtime_ns))
    digest = _DIGESTS.get(tuple(key))
    if digest is None:
        digest = _DIGESTS[tuple(key)] = weights_digest(load_nets(folder, frames))
    return digest


class DouZeroAgent(SmallestAgent):
    """A DouZero-format model (douzero:<folder> with landlord.ckpt, landlord_up.ckpt, landlord_down.ckpt); needs torch.

    ``folder``: the checkpoint folder; ``frames``: read a DouZero training run's
    ``<position>_weights_<frames>.ckpt`` instead; ``digest``: refuse networks whose
    `weights_digest` differs; ``threads``: torch's CPU threads for this process (default:
    torch's own). ``last_eval`` holds the chosen move's value and the three best moves' values.
    """

    name = "douzero"
    #: a spec's bare first value is the folder: ``douzero:path/to/folder``
    spec_argument = "folder"
    last_eval: Optional[dict] = None

    def __init__(self, folder: Union[str, Path, None] = None, frames: Optional[int] = None,
                 threads: Optional[int] = None, digest: Optional[str] = None) -> None:
        if folder is None:
            raise CheckpointError("douzero needs the folder of a DouZero-format model: douzero:<folder>")
        if frames is not None and (isinstance(frames, bool) or not isinstance(frames, int) or frames < 0):
            raise CheckpointError(f"frames must be a whole number of frames, got {frames!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise AgentError(f"threads must be a whole number of at least 1, got {threads!r}")
        if digest is not None and not (isinstance(digest, str) and digest.startswith(DIGEST_PREFIX)):
            raise CheckpointError(f"digest is {DIGEST_PREFIX}<hex digits> (weights_digest), got {digest!r}")
        self.folder = os.fspath(folder)
        self.nets = load_nets(folder, frames)
        if digest is not None:
            found = folder_digest(folder, frames)
            if found != digest:
                which = f"{folder} at {frames:,} frames" if frames is not None else str(folder)
                raise CheckpointError(f"{which}: its weights have digest {found}, the spec asks for {digest}: another "
                                      "model (retrained elsewhere, or another run) than the one that was named")
        self._torch = _torch()
        if threads is not None:
            self._torch.set_num_threads(threads)

    def values(self, obs: Observation) -> np.ndarray:
        """The network's value of each of ``obs.legal_moves`` (float32, in their order)."""
        if obs.rules.name != "standard":
            raise AgentError(f"DouZero's networks play the standard rules, not {obs.rules.name!r}")
        feats = douzero_obs(obs)
        torch = self._torch
        with torch.no_grad():
            out = self.nets[ROLE_POSITION[obs.role]](torch.from_numpy(feats["z_batch"]),
                                                      torch.from_numpy(feats["x_batch"]))
        return out.numpy()[:, 0]

    def play(self, obs: Observation) -> Move:
        legal = obs.legal_moves
        if len(legal) == 1:
            self.last_eval = None
            return legal[0]
        v = self.values(obs)
        best = int(np.argmax(v))
        order = np.argsort(-v, kind="stable")[:3]
        self.last_eval = {"value": round(float(v[best]), 6),
                          "top": {str(legal[i]): round(float(v[i]), 6) for i in order}}
        return legal[best]

    def bid(self, obs: Observation) -> int:
        self.last_eval = None
        return super().bid(obs)


def save_random_checkpoints(folder: Union[str, Path], seed: int) -> dict[str, Path]:
    """Write three freshly initialised networks (torch seeded with ``seed``) as a checkpoint
    folder in DouZero's format: a small model for examples and tests."""
    torch = _torch()
    base = Path(folder)
    base.mkdir(parents=True, exist_ok=True)
    gen_state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        out = {}
        for position in POSITIONS:
            out[position] = base / f"{position}.ckpt"
            torch.save(build_net(position).state_dict(), out[position])
    finally:
        torch.random.set_rng_state(gen_state)
    return out


__all__ = ["DouZeroAgent", "CheckpointError", "POSITIONS", "expected_shapes", "checkpoint_files", "load_state",
           "check_state", "model_folder", "weights_digest", "folder_digest", "DIGEST_PREFIX",
           "load_nets", "build_net", "save_random_checkpoints", "TORCH_INSTALL"]
