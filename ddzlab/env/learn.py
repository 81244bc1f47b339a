"""A small learner trained through the Gymnasium environment: Deep Monte-Carlo in miniature.

DouZero's method (Zha et al. 2021) without its scale: a network scores each legal action,
``Q(s, a)``, from the seat's observation and the action's features; the agent plays the best
one (a random legal action with probability ``epsilon`` while training), and every decision
of an episode is regressed on the episode's final reward. Here the network is one hidden
layer of ReLUs over ddzlab's compact observation and a 39-value description of the move
(rank counts / 4, kind one-hot, chain length / 12, cards / 20), trained with Adam on the mean
squared error, in numpy. It is meant to show that the loop through `SingleSeatEnv` is real
and fast, not to be strong: the minimal teaching example of notebook 08. The trainer of
DouZero-format models (DouZero's networks, targets and optimiser, checkpoints that
``douzero:<folder>`` plays, resumable) is `ddzlab.env.dmc`.

`QLearner.agent_factory()` turns the current network into a ddzlab agent factory for the
arena (`ddzlab.arena.duel`); `save` / `load` write plain ``.npz`` arrays (no pickle).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence, Union

import numpy as np

from ..errors import DdzError, ModelFileError
from ..game import Observation
from ..moves import Move
from ..npyheader import NpyHeaderError, npy_header
from ..rules import Kind
from .encode import COMPACT_SIZE, compact_obs
from .index import MoveIndex, move_index

if TYPE_CHECKING:
    import pandas as pd

N_KINDS = len(Kind)
ACTION_FEATURES = 15 + N_KINDS + 2


def action_features(index: MoveIndex) -> np.ndarray:
    """One row per move of the index: rank counts / 4, kind one-hot, length / 12, size / 20."""
    n = len(index)
    out = np.zeros((n, ACTION_FEATURES), np.float32)
    shifts = np.arange(0, 60, 4, dtype=np.int64)
    cards = np.array([m.cards for m in index.moves], np.int64)
    out[:, :15] = ((cards[:, None] >> shifts) & 15) / 4
    out[np.arange(n), 15 + np.array([int(m.kind) for m in index.moves])] = 1
    out[:, -2] = [m.length / 12 for m in index.moves]
    out[:, -1] = [m.size / 20 for m in index.moves]
    return out


@dataclass
class Batch:
    """Decisions waiting for a gradient step: state row, chosen action index, return."""
    states: list
    actions: list
    returns: list


class QLearner:
    """Q(s, a) = w2 · relu(Ws s + Wa a + b1) + b2, trained on Monte-Carlo returns."""

    def __init__(self, rules: str = "standard", hidden: int = 128, lr: float = 1e-3, seed: int = 0) -> None:
        self.index = move_index(rules)
        self.features = _features(self.index.rules.name)
        rng = np.random.default_rng(seed)
        self.params = {
            "Ws": rng.normal(0, 1 / np.sqrt(COMPACT_SIZE), (COMPACT_SIZE, hidden)).astype(np.float32),
            "Wa": rng.normal(0, 1 / np.sqrt(ACTION_FEATURES), (ACTION_FEATURES, hidden)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden).astype(np.float32),
            "b2": np.zeros(1, np.float32),
        }
        self.lr = lr
        self._m = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._v = {k: np.zeros_like(v) for k, v in self.params.items()}
        self._t = 0

    # -- acting -----------------------------------------------------------------------
    def q_values(self, state: np.ndarray, actions: Union[Sequence[int], np.ndarray]) -> np.ndarray:
        p = self.params
        h = np.maximum(state @ p["Ws"] + self.features[actions] @ p["Wa"] + p["b1"], 0)
        return h @ p["w2"] + p["b2"][0]

    def act(self, state: np.ndarray, mask: np.ndarray, epsilon: float = 0.0,
            rng: Optional[np.random.Generator] = None) -> int:
        """The legal action with the highest Q (a uniform legal one with probability epsilon)."""
        legal = np.flatnonzero(mask.view(bool) if mask.dtype == np.int8 else mask)
        if epsilon and rng is not None and rng.random() < epsilon:
            return int(legal[int(rng.integers(len(legal)))])
        return int(legal[int(np.argmax(self.q_values(state, legal)))])

    # -- learning ---------------------------------------------------------------------
    def fit(self, batch: Batch, epochs: int = 1, minibatch: int = 256,
            rng: Optional[np.random.Generator] = None) -> float:
        """Adam steps on the squared error of Q against the returns; the mean loss."""
        s = np.asarray(batch.states, np.float32)
        a = np.asarray(batch.actions)
        g = np.asarray(batch.returns, np.float32)
        rng = rng or np.random.default_rng(0)
        losses = []
        for _ in range(epochs):
            order = rng.permutation(len(g))
            for start in range(0, len(g), minibatch):
                idx = order[start:start + minibatch]
                losses.append(self._step(s[idx], self.features[a[idx]], g[idx]))
        return float(np.mean(losses)) if losses else float("nan")

    def _step(self, s: np.ndarray, x: np.ndarray, g: np.ndarray) -> float:
        p = self.params
        pre = s @ p["Ws"] + x @ p["Wa"] + p["b1"]
        h = np.maximum(pre, 0)
        q = h @ p["w2"] + p["b2"][0]
        err = q - g
        n = len(g)
        dq = 2 * err / n
        dh = np.outer(dq, p["w2"]) * (pre > 0)
        grads = {"w2": h.T @ dq, "b2": np.array([dq.sum()], np.float32), "Ws": s.T @ dh, "Wa": x.T @ dh,
                 "b1": dh.sum(0)}
        self._t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        for k, grad in grads.items():
            self._m[k] = b1 * self._m[k] + (1 - b1) * grad
            self._v[k] = b2 * self._v[k] + (1 - b2) * grad * grad
            mhat = self._m[k] / (1 - b1 ** self._t)
            vhat = self._v[k] / (1 - b2 ** self._t)
            p[k] -= (self.lr * mhat / (np.sqrt(vhat) + eps)).astype(np.float32)
        return float(np.mean(err * err))

    # -- as an agent --------------------------------------------------------------------
    def agent_factory(self) -> "LearnedAgentFactory":
        """A picklable factory of agents that play this network's greedy choice (a copy)."""
        return LearnedAgentFactory(self.index.rules.name, {k: v.copy() for k, v in self.params.items()})

    def save(self, path: Union[str, Path]) -> None:
        np.savez_compressed(path, rules=np.array(self.index.rules.name), allow_pickle=False, **self.params)

    @classmethod
    def load(cls, path: Union[str, Path]) -> "QLearner":
        """A learner saved by `save`. Every array's name, dtype, shape and declared size is
        checked from the file's headers before anything is unpacked (a hidden layer of at
        most `MAX_HIDDEN` units), then its values (no NaN or infinity): a corrupt, foreign or
        crafted file raises `ModelFileError` naming the file and the problem."""
        rules, hidden, params = _read_saved(Path(path))
        learner = cls(rules, hidden=hidden)
        learner.params = params
        return learner


#: the widest hidden layer `QLearner.load` accepts (a wider one means a corrupt or crafted
#: file; the notebooks use 128)
MAX_HIDDEN = 4096
#: the arrays of a saved learner and their dimensions (``h``: the hidden layer's width)
_SAVED = {"rules": (), "Ws": (COMPACT_SIZE, "h"), "Wa": (ACTION_FEATURES, "h"), "b1": ("h",),
          "w2": ("h",), "b2": (1,)}
#: deflate never unpacks more than about 1,032 bytes from one byte (plus a little room)
_MAX_RATIO = 1100


def _read_saved(path: Path) -> tuple[str, int, dict[str, np.ndarray]]:
    """(rules, hidden width, float32 arrays) of a saved learner, checked (see `QLearner.load`)."""
    import zipfile

    def refuse(problem: str) -> ModelFileError:
        return ModelFileError(f"{path} is not a saved QLearner: {problem}")

    try:
        size = path.stat().st_size
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            names = [i.filename[:-4] for i in infos if i.filename.endswith(".npy")]
            if len(infos) != len(_SAVED) or sorted(names) != sorted(_SAVED):
                raise refuse(f"arrays {sorted(i.filename for i in infos)}, expected "
                             f"{sorted(n + '.npy' for n in _SAVED)}")
            headers = {}
            for info, name in zip(infos, names):
                if info.compress_size > size or info.file_size > _MAX_RATIO * info.compress_size + 1024:
                    raise refuse(f"array {name!r} declares {info.file_size:,} bytes unpacked from "
                                 f"{info.compress_size:,} in a file of {size:,}")
                try:
                    shape, dtype, offset = npy_header(zf, info)
                except NpyHeaderError as e:
                    raise refuse(f"array {name!r}: {e}") from None
                headers[name] = (shape, dtype, offset, info.file_size)
            rules_shape, rules_dtype = headers["rules"][:2]
            if rules_shape != () or rules_dtype.kind != "U" or rules_dtype.itemsize > 4 * 32:
                raise refuse(f"'rules' is {rules_dtype} of shape {rules_shape}, not a rule set's name")
            b1 = headers["b1"][0]
            hidden = b1[0] if len(b1) == 1 else 0
            if not 1 <= hidden <= MAX_HIDDEN:
                raise refuse(f"'b1' has shape {b1}: the hidden layer must have 1..{MAX_HIDDEN} units")
            for name, dims in _SAVED.items():
                shape, dtype, offset, declared = headers[name]
                want = tuple(hidden if d == "h" else d for d in dims)
                if name != "rules" and (dtype.kind != "f" or shape != want):
                    raise refuse(f"array {name!r} is {dtype} of shape {shape}, expected floats of shape {want}")
                if declared != offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
                    raise refuse(f"array {name!r} declares {declared:,} bytes, not the size of its "
                                 f"{dtype} {shape}")
        with np.load(path, allow_pickle=False) as f:
            data = {k: f[k] for k in _SAVED}
    except ModelFileError:
        raise
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
        raise refuse(str(e) or type(e).__name__) from None
    rules = str(data.pop("rules"))
    try:
        move_index(rules)
    except DdzError as e:
        raise refuse(f"rules {rules!r}: {e}") from None
    params = {}
    for name, value in data.items():
        with np.errstate(over="ignore"):              # beyond float32 becomes inf: refused below
            value = value.astype(np.float32)
        bad = int(np.count_nonzero(~np.isfinite(value)))
        if bad:
            raise refuse(f"array {name!r} holds {bad} NaN or infinite value{'s' * (bad > 1)} "
                         "(as float32)")
        params[name] = value
    return rules, hidden, params


def train(learner: QLearner, episodes: int, opponents: Sequence = ("random", "greedy"), epsilon: float = 0.1,
          batch_episodes: int = 50, epochs: int = 2, seed: int = 0, progress: bool = True) -> "pd.DataFrame":
    """Train ``learner`` for ``episodes`` games of `SingleSeatEnv` (a random seat each game),
    cycling through ``opponents`` (each spec plays both other seats of its games), with a
    gradient pass every ``batch_episodes`` games. Returns one row per game: opponent, role,
    reward, and the loss of the pass that game fed (NaN before it)."""
    import pandas as pd
    from tqdm.auto import tqdm

    from .single import SingleSeatEnv
    rules = learner.index.rules
    envs = [SingleSeatEnv(rules, seat="random", opponents=o) for o in opponents]
    rng = np.random.default_rng(seed)
    seeds = np.random.SeedSequence(seed).generate_state(episodes)
    batch, rows = Batch([], [], []), []
    for ep in tqdm(range(episodes), disable=not progress, desc="training"):
        k = ep % len(envs)
        env = envs[k]
        obs, info = env.reset(seed=int(seeds[ep]))
        states, actions = [], []
        done, reward = False, 0.0
        while not done:
            state = obs["observation"]
            a = learner.act(state, obs["action_mask"], epsilon, rng)
            states.append(state)
            actions.append(a)
            obs, reward, done, _, info = env.step(a)
        batch.states += states
        batch.actions += actions
        batch.returns += [reward] * len(states)
        rows.append({"episode": ep, "opponent": str(opponents[k]), "role": info["role"], "reward": reward,
                     "loss": np.nan})
        if (ep + 1) % batch_episodes == 0:
            loss = learner.fit(batch, epochs=epochs, rng=rng)
            for r in rows[-batch_episodes:]:
                r["loss"] = loss
            batch = Batch([], [], [])
    return pd.DataFrame(rows)


class LearnedAgentFactory:
    """Builds `LearnedAgent`s from fixed network weights (what the arena rebuilds per game)."""

    def __init__(self, rules: str, params: dict) -> None:
        self.rules, self.params = rules, params

    def __call__(self, seed: object = None) -> "LearnedAgent":
        learner = QLearner.__new__(QLearner)
        learner.index = move_index(self.rules)
        learner.features = _features(self.rules)
        learner.params = self.params
        return LearnedAgent(learner)


_FEATURES: dict = {}


def _features(rules: str) -> np.ndarray:
    if rules not in _FEATURES:
        _FEATURES[rules] = action_features(move_index(rules))
    return _FEATURES[rules]


class LearnedAgent:
    """A ddzlab agent (`ddzlab.agents.base.Agent`) playing a learner's greedy choice.

    It has not learnt to bid: it passes (the arena's games have a fixed landlord)."""

    name = "dmc"

    def __init__(self, learner: QLearner) -> None:
        self.learner = learner

    def bid(self, obs: Observation) -> int:
        return 0

    def play(self, obs: Observation) -> Move:
        legal = obs.legal_moves
        q = self.learner.q_values(compact_obs(obs), self.learner.index.indices(legal))
        return legal[int(np.argmax(q))]


__all__ = ["QLearner", "MAX_HIDDEN", "train", "LearnedAgent", "LearnedAgentFactory", "Batch", "action_features", "ACTION_FEATURES"]
