"""Deep Monte-Carlo on CPU: train DouZero-format models through ddzlab's engine.

This is DouZero's training method (Zha et al. 2021) written for ddzlab; the small numpy
learner of `ddzlab.env.learn` stays the minimal teaching example, this module is the one
that trains models in DouZero's format. What it does, in DouZero's terms:

* **Networks**: one value network per position (landlord, landlord_up, landlord_down),
  DouZero's shapes (`ddzlab.env.douzero_agent.build_net`): an LSTM over the last 15 actions,
  then five ReLU layers of 512 units and one output, ``Q(s, a)``.
* **Actors** play whole games of ddzlab's `Game` (a fixed landlord, seat 0, the standard
  rules) with DouZero's features (`ddzlab.env.encode`): every seat plays its position's
  network greedily, a uniformly random legal move with probability ``epsilon`` (DouZero:
  0.01). Every decision is a *frame*, forced ones (a single legal move) included.
* **Targets**: every frame of a game is labelled with the game's return for the position
  that acted: for the landlord ``+u`` if it won, ``-u`` if it lost; for a farmer the
  opposite. ``u`` is the objective: ``adp`` ``2**bombs`` (DouZero's default: bombs and
  rockets played, spring not counted), ``wp`` 1, ``logadp`` ``bombs + 1``.
* **Learner**: per position, frames are queued in play order; each time ``unroll × batch``
  (DouZero: 100 × 32) are waiting, one RMSprop step (lr 1e-4, alpha 0.99, eps 1e-5, no
  momentum) on their mean squared error, gradient norm clipped at 40. The run's frame count
  is the number of frames the learner has consumed (DouZero counts the same way).

By default actors and learner share one process and take turns: a game, then every learner
step that is ready. ``workers=N`` (``--workers N``) runs N local actor processes instead,
as DouZero does: they play with shared copies of the networks while the learner learns.
``dask=ADDRESS`` (``--dask``) plays the games as tasks on a dask.distributed cluster's
workers, for a user with a cluster: each task gets the weights of when it was sent.
In one process, with a seed, the whole run is reproducible (deals and exploration from one
numpy generator, initial weights from a seeded torch generator), and a run that reached its
frames and is resumed to more ends with the weights of one run to the larger number at once.
A run killed, or stopped by Ctrl-C (which saves; the game in progress is dropped), resumes
from its last save.

**Files** (``out`` folder), DouZero's format: ``model.tar`` (the training state: networks,
optimisers, frames, statistics, settings, and under ``"ddzlab"`` the generator state and
the queued frames), ``<position>_weights_<frames>.ckpt`` at each checkpoint and
``<position>.ckpt``, the latest, so ``douzero:<out>`` plays the newest model. Everything is
read back with ``torch.load(weights_only=True)``: no file runs code when loaded. A run
resumes from a ``model.tar`` of DouZero's own training too (without the generator state it
continues from a fresh generator).

torch is the optional ``douzero`` extra; importing this module needs only numpy.
``ddzlab train dmc OUT --frames N --seed S`` is the command line (`main`); ``--checkpoints
F1,F2,...`` instead of ``--frames`` keeps the networks at each of a list of frame counts
(`train_checkpoints`), which is how a stored experiment's model is regenerated.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import deque
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union, cast

import numpy as np

from ..agents.base import register_trainer
from ..deals import deal_cards
from ..errors import DdzError
from ..game import Game
from ..moves import Move
from ..rules import get_rules
from .douzero_agent import POSITIONS, CheckpointError, _torch, build_net, check_state
from .encode import douzero_cards, douzero_x_parts, douzero_z_parts

#: DouZero's position of each seat (the landlord is seat 0)
SEAT_POSITION = ("landlord", "landlord_down", "landlord_up")
OBJECTIVES = ("adp", "wp", "logadp")
#: the width of DouZero's x_no_action per position
X_WIDTH = {"landlord": 319, "landlord_up": 430, "landlord_down": 430}
#: the training state's file name (DouZero's)
STATE_FILE = "model.tar"


class DMCError(DdzError):
    """A bad training setting (frames, objective, a rate out of range, a resume that does
    not match the saved run)."""


@dataclass(frozen=True)
class DMCConfig:
    """The settings of a run; the defaults are DouZero's (its ``arguments.py``)."""
    seed: int = 0
    objective: str = "adp"
    epsilon: float = 0.01           # exploration: a uniform legal move with this probability
    unroll: int = 100               # T: frames per rollout
    batch: int = 32                 # B: rollouts per learner step
    lr: float = 1e-4                # RMSprop
    alpha: float = 0.99
    momentum: float = 0.0
    rms_eps: float = 1e-5
    max_grad_norm: float = 40.0

    def check(self) -> "DMCConfig":
        """Itself, or `DMCError` naming the first bad setting."""
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise DMCError(f"seed must be a whole number of at least 0, not {self.seed!r}")
        if self.objective not in OBJECTIVES:
            raise DMCError(f"unknown objective {self.objective!r}; one of {', '.join(OBJECTIVES)}")
        if not 0.0 <= self.epsilon <= 1.0:
            raise DMCError(f"epsilon must lie in [0, 1], not {self.epsilon!r}")
        for name in ("unroll", "batch"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise DMCError(f"{name} must be a whole number of at least 1, not {v!r}")
        for name in ("lr", "alpha", "rms_eps", "max_grad_norm"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise DMCError(f"{name} must be a positive number, not {v!r}")
        if not (isinstance(self.momentum, (int, float)) and 0 <= self.momentum < 1):
            raise DMCError(f"momentum must lie in [0, 1), not {self.momentum!r}")
        return self

    @property
    def step_frames(self) -> int:
        """Frames one learner step consumes (``unroll × batch``)."""
        return self.unroll * self.batch


# -- one game -------------------------------------------------------------------------------

def episode_return(landlord_won: bool, bombs: int, objective: str) -> float:
    """The landlord's return of a finished game (a farmer's is its negative)."""
    if objective == "adp":
        unit = float(2 ** bombs)
    elif objective == "logadp":
        unit = bombs + 1.0
    elif objective == "wp":
        unit = 1.0
    else:
        raise DMCError(f"unknown objective {objective!r}; one of {', '.join(OBJECTIVES)}")
    return unit if landlord_won else -unit


@dataclass
class Episode:
    """The frames of one game, in play order: the acting position, DouZero's x_no_action,
    the chosen action's 54-vector and the history matrix z (int8), and the target."""
    positions: list
    x: list
    actions: list
    z: list
    targets: list
    landlord_return: float


#: ``choose(position, x_no_action, z, legal moves) -> index of the move to play``
Chooser = Callable[[str, np.ndarray, np.ndarray, Sequence[Move]], int]


def play_episode(game: Game, choose: Chooser, objective: str = "adp") -> Episode:
    """Play ``game`` (three players in play, landlord known) to the end, asking ``choose``
    at every decision (forced ones too), and label every frame with its position's return."""
    if game.players != 3 or game.landlord is None:
        raise DMCError("DouZero's training plays three-player games with the landlord known")
    lord, deck = game.landlord, game.rules.deck
    ep = Episode([], [], [], [], [], 0.0)
    while not game.is_over:
        seat = cast(int, game.to_act)              # a seat while the game is on
        position = SEAT_POSITION[(seat - lord) % 3]
        x = douzero_x_parts(seat, lord, deck, game.hands[seat], game.played, game.last_move, game.history,
                            game.sizes, game.bombs)
        z = douzero_z_parts(game.history)
        legal = game._legal_list()
        k = choose(position, x, z, legal)
        move = legal[k]
        ep.positions.append(position)
        ep.x.append(x)
        ep.actions.append(douzero_cards(move.cards))
        ep.z.append(z)
        game.push(move)
    r = episode_return(bool(game.landlord_won), game.bombs, objective)
    ep.landlord_return = r
    ep.targets = [r if p == "landlord" else -r for p in ep.positions]
    return ep


# -- the networks -----------------------------------------------------------------------------

def action_values(net: Any, x: np.ndarray, z: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """``Q(s, a)`` of each row of ``actions`` (n × 54) from one position's network: the same
    function as the network's forward pass on DouZero's ``x_batch`` / ``z_batch``, with the
    parts every action shares (the LSTM over ``z``, the state's share of the first layer)
    computed once."""
    torch = _torch()
    with torch.no_grad():
        zt = torch.from_numpy(z.astype(np.float32)).reshape(1, 5, 162)
        out, _ = net.lstm(zt)
        w = net.dense1.weight
        shared = torch.cat([out[0, -1], torch.from_numpy(x.astype(np.float32))])
        base = torch.nn.functional.linear(shared, w[:, :-54], net.dense1.bias)
        h = torch.relu(base + torch.from_numpy(actions) @ w[:, -54:].T)
        for layer in (net.dense2, net.dense3, net.dense4, net.dense5):
            h = torch.relu(layer(h))
        return net.dense6(h)[:, 0].numpy()


def initial_nets(seed: int) -> dict[str, Any]:
    """The three networks as initialised by a torch generator seeded with ``seed`` (torch's
    global generator is left as it was)."""
    torch = _torch()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return {p: build_net(p) for p in POSITIONS}


def greedy_chooser(nets: dict[str, Any], epsilon: float, rng: np.random.Generator) -> Chooser:
    """The actors' policy: a forced move as is; else with probability ``epsilon`` a uniform
    legal move (from ``rng``), otherwise the move of highest value under ``nets``."""
    def choose(position: str, x: np.ndarray, z: np.ndarray, legal: Sequence[Move]) -> int:
        n = len(legal)
        if n == 1:
            return 0
        if epsilon > 0 and rng.random() < epsilon:
            return int(rng.integers(n))
        acts = np.stack([douzero_cards(m.cards) for m in legal]).astype(np.float32)
        return int(np.argmax(action_values(nets[position], x, z, acts)))
    return choose


def _actor_process(worker: int, seed: list, cfg: DMCConfig, shared: dict[str, dict], queue: Any, stop: Any) -> None:
    """One actor process: games with the networks' latest weights (``shared``: a state_dict
    per position in shared memory, read before each game), each episode put on ``queue`` (as
    plain numpy arrays) until ``stop`` is set."""
    import queue as queue_module

    torch = _torch()
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    rules = get_rules("standard")
    nets = {p: build_net(p) for p in POSITIONS}
    choose = greedy_chooser(nets, cfg.epsilon, rng)
    try:
        while not stop.is_set():
            for p in POSITIONS:
                nets[p].load_state_dict(shared[p])
            ep = play_episode(Game(deal_cards(rules, rng), rules=rules, landlord=0), choose, cfg.objective)
            # x_no_action differs in width between the landlord and the farmers: a list
            item = (np.array([POSITIONS.index(q) for q in ep.positions], np.int8), ep.x, np.stack(ep.actions),
                    np.stack(ep.z), np.array(ep.targets, np.float32), ep.landlord_return)
            while not stop.is_set():
                try:
                    queue.put(item, timeout=0.5)
                    break
                except queue_module.Full:
                    continue
    except KeyboardInterrupt:
        pass


def _episode_from(item: tuple) -> Episode:
    codes, xs, actions, zs, targets, r = item
    return Episode([POSITIONS[int(c)] for c in codes], list(xs), list(actions), list(zs),
                   [float(t) for t in targets], float(r))


class _Actors:
    """``workers`` local actor processes and the shared-memory weights the learner copies
    into after every step (DouZero's scheme: an actor may read weights mid-copy)."""

    def __init__(self, workers: int, cfg: DMCConfig, learner: "_Learner", seed: list) -> None:
        torch = _torch()
        import torch.multiprocessing as mp
        ctx = mp.get_context("spawn")
        self.shared = {p: {k: v.detach().clone().share_memory_() for k, v in learner.nets[p].state_dict().items()}
                       for p in POSITIONS}
        self.queue = ctx.Queue(maxsize=4 * workers)
        self.stop = ctx.Event()
        self.torch = torch
        self.procs = [ctx.Process(target=_actor_process, args=(i, [*seed, i], cfg, self.shared, self.queue, self.stop),
                                  daemon=True) for i in range(workers)]
        for proc in self.procs:
            proc.start()

    def sync(self, learner: "_Learner", position: str) -> None:
        shared = self.shared[position]
        with self.torch.no_grad():
            for k, v in learner.nets[position].state_dict().items():
                shared[k].copy_(v)

    def episode(self) -> Episode:
        import queue as queue_module
        while True:
            try:
                return _episode_from(self.queue.get(timeout=1.0))
            except queue_module.Empty:
                dead = [p.exitcode for p in self.procs if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"an actor process ended (exit codes {dead})") from None

    def close(self) -> None:
        self.stop.set()
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        self.queue.cancel_join_thread()
        self.queue.close()


#: seconds a dask run waits to reach its scheduler before `DMCError`
DASK_CONNECT_SECONDS = 30


def _actor_games(weights: dict[str, dict[str, np.ndarray]], seed: list, cfg: DMCConfig, games: int) -> list[tuple]:
    """One actor task of a dask run: ``games`` games with the networks' weights as sent
    (``weights``: a state_dict per position, as numpy arrays), each episode as `_actor_process`
    queues it. The same weights and seed give the same episodes."""
    torch = _torch()
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    rules = get_rules("standard")
    nets = {p: build_net(p) for p in POSITIONS}
    for p in POSITIONS:
        nets[p].load_state_dict({k: torch.from_numpy(v) for k, v in weights[p].items()})
    choose = greedy_chooser(nets, cfg.epsilon, rng)
    out = []
    for _ in range(games):
        ep = play_episode(Game(deal_cards(rules, rng), rules=rules, landlord=0), choose, cfg.objective)
        out.append((np.array([POSITIONS.index(q) for q in ep.positions], np.int8), ep.x, np.stack(ep.actions),
                    np.stack(ep.z), np.array(ep.targets, np.float32), ep.landlord_return))
    return out


class _DaskActors:
    """Actor tasks on a dask.distributed cluster (the scheduler at ``address``): ``tasks`` at a
    time, each `_actor_games` with the weights the learner had when it was sent; as a task
    finishes, its episodes go to the learner and a new task goes out with the newest weights.
    Same interface as `_Actors`. Not reproducible: the learner takes the games in the order
    the tasks finish."""

    def __init__(self, address: str, tasks: int, cfg: DMCConfig, learner: "_Learner", seed: list,
                 games: int = 2) -> None:
        from dask.distributed import Client
        try:
            self.client = Client(address, timeout=DASK_CONNECT_SECONDS, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as e:
            raise DMCError(f"no dask scheduler at {address!r}: {type(e).__name__}: {e}") from None
        self.cfg, self.games, self.seed, self.sent = cfg, games, seed, 0
        self.weights = {p: self._numpy(learner, p) for p in POSITIONS}
        self.shipped: Any = None                  # the weights on the cluster (scattered once a version)
        self.buffer: deque = deque()
        self.running = {self._submit() for _ in range(tasks)}

    @staticmethod
    def _numpy(learner: "_Learner", position: str) -> dict[str, np.ndarray]:
        return {k: v.detach().cpu().numpy().copy() for k, v in learner.nets[position].state_dict().items()}

    def _submit(self) -> Any:
        if self.shipped is None:
            self.shipped = self.client.scatter([dict(self.weights)], hash=False)[0]
        self.sent += 1
        return self.client.submit(_actor_games, self.shipped, [*self.seed, self.sent], self.cfg, self.games,
                                  pure=False)

    def sync(self, learner: "_Learner", position: str) -> None:
        self.weights[position] = self._numpy(learner, position)
        self.shipped = None

    def episode(self) -> Episode:
        from distributed import KilledWorker, wait
        while not self.buffer:
            try:
                with self.client.as_current():           # wait's client, never made the default one
                    done, self.running = wait(self.running, return_when="FIRST_COMPLETED")
                for future in sorted(done, key=lambda f: f.key):
                    self.buffer.extend(future.result())
                    self.running.add(self._submit())
            except KilledWorker as e:
                raise DMCError(f"dask gave up on an actor task whose workers kept dying: {e}") from None
            except OSError as e:
                raise DMCError(f"lost the dask scheduler: {type(e).__name__}: {e}") from None
        return _episode_from(self.buffer.popleft())

    def close(self) -> None:
        try:
            self.client.cancel(list(self.running))
        except OSError:
            pass                                  # a lost scheduler: nothing to cancel
        self.client.close()


class _Learner:
    """The three networks, their optimisers and the queued frames of each position."""

    def __init__(self, cfg: DMCConfig, nets: dict[str, Any]) -> None:
        torch = _torch()
        self.cfg, self.nets, self.torch = cfg, nets, torch
        self.opts = {p: torch.optim.RMSprop(nets[p].parameters(), lr=cfg.lr, alpha=cfg.alpha, eps=cfg.rms_eps,
                                            momentum=cfg.momentum) for p in POSITIONS}
        self.queue: dict[str, list] = {p: [] for p in POSITIONS}      # (x, action, z, target) per frame
        self.frames = 0
        self.position_frames = {p: 0 for p in POSITIONS}
        self.loss = {p: float("nan") for p in POSITIONS}

    def add(self, ep: Episode) -> None:
        for p, x, a, z, t in zip(ep.positions, ep.x, ep.actions, ep.z, ep.targets):
            self.queue[p].append((x, a, z, t))

    def ready(self, position: str) -> bool:
        return len(self.queue[position]) >= self.cfg.step_frames

    def step(self, position: str) -> float:
        """One DMC update of ``position``'s network on its oldest ``unroll × batch`` frames."""
        torch, n = self.torch, self.cfg.step_frames
        rows, self.queue[position] = self.queue[position][:n], self.queue[position][n:]
        x = torch.from_numpy(np.concatenate([np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])],
                                            axis=1).astype(np.float32))
        z = torch.from_numpy(np.stack([r[2] for r in rows]).astype(np.float32))
        target = torch.tensor([r[3] for r in rows], dtype=torch.float32)
        net, opt = self.nets[position], self.opts[position]
        loss = ((net(z, x)[:, 0] - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), self.cfg.max_grad_norm)
        opt.step()
        self.frames += n
        self.position_frames[position] += n
        self.loss[position] = float(loss.item())
        return self.loss[position]


# -- files --------------------------------------------------------------------------------------

def _atomic_save(torch: Any, obj: Any, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def _queue_tensors(torch: Any, rows: list, position: str) -> dict:
    n = len(rows)
    if not n:
        return {"x": torch.zeros((0, X_WIDTH[position]), dtype=torch.int8),
                "action": torch.zeros((0, 54), dtype=torch.int8),
                "z": torch.zeros((0, 5, 162), dtype=torch.int8), "target": torch.zeros(0)}
    return {"x": torch.from_numpy(np.stack([r[0] for r in rows])),
            "action": torch.from_numpy(np.stack([r[1] for r in rows])),
            "z": torch.from_numpy(np.stack([r[2] for r in rows])),
            "target": torch.tensor([r[3] for r in rows], dtype=torch.float32)}


def save_checkpoint(out: Union[str, Path], learner: _Learner, rng: np.random.Generator, episodes: int,
                    returns: dict[str, deque]) -> Path:
    """Write ``model.tar`` and the three position files (see the module docstring)."""
    torch, base = learner.torch, Path(out)
    base.mkdir(parents=True, exist_ok=True)
    frames = learner.frames
    stats: dict[str, float] = {}
    for p in POSITIONS:
        stats[f"mean_episode_return_{p}"] = float(np.mean(returns[p])) if returns[p] else 0.0
        stats[f"loss_{p}"] = learner.loss[p]
    state = {
        "model_state_dict": {p: learner.nets[p].state_dict() for p in POSITIONS},
        "optimizer_state_dict": {p: learner.opts[p].state_dict() for p in POSITIONS},
        "stats": stats, "flags": asdict(learner.cfg), "frames": frames,
        "position_frames": dict(learner.position_frames),
        "ddzlab": {"format": 1, "episodes": episodes, "rng": rng.bit_generator.state,
                   "returns": {p: [float(v) for v in returns[p]] for p in POSITIONS},
                   "queue": {p: _queue_tensors(torch, learner.queue[p], p) for p in POSITIONS}},
    }
    path = base / STATE_FILE
    _atomic_save(torch, state, path)            # first: a run killed while saving resumes from it
    for p in POSITIONS:
        sd = learner.nets[p].state_dict()
        _atomic_save(torch, sd, base / f"{p}_weights_{frames}.ckpt")
        _atomic_save(torch, sd, base / f"{p}.ckpt")
    return path


def _load_training_state(path: Path) -> dict:
    torch = _torch()
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:            # UnpicklingError (a global it refuses), RuntimeError (not a torch file), ...
        text = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
        raise CheckpointError(f"{path}: refused: not a weights-only training state: {text}") from None
    need = ("model_state_dict", "optimizer_state_dict", "frames")
    if not isinstance(state, dict) or any(k not in state for k in need):
        raise CheckpointError(f"{path}: not a DMC training state (a dict with {', '.join(need)})")
    for p in POSITIONS:
        check_state(state["model_state_dict"].get(p) if isinstance(state["model_state_dict"], dict) else None,
                    p, f"{path} [{p}]")
    if isinstance(state["frames"], bool) or not isinstance(state["frames"], int) or state["frames"] < 0:
        raise CheckpointError(f"{path}: frames is {state['frames']!r}, not a count")
    return state


def _config_from(flags: object, path: Path) -> DMCConfig:
    """The settings saved in a training state (ddzlab's, or DouZero's own flags)."""
    if not isinstance(flags, dict):
        return DMCConfig()
    douzero = {"exp_epsilon": "epsilon", "unroll_length": "unroll", "batch_size": "batch", "learning_rate": "lr",
               "epsilon": "rms_eps"} if "exp_epsilon" in flags else {}
    names = {f.name for f in fields(DMCConfig)}
    values = {}
    for key, value in flags.items():
        key = douzero.get(key, key)
        if key in names:
            values[key] = value
    try:
        return DMCConfig(**values).check()
    except (DMCError, TypeError) as e:
        raise CheckpointError(f"{path}: its saved settings are not usable: {e}") from None


# -- the loop -----------------------------------------------------------------------------------

@dataclass
class TrainResult:
    """What a call of `train` did: the frames reached, games played in all, this call's
    frames and seconds, and the last statistics."""
    out: Path
    frames: int
    episodes: int
    frames_now: int
    seconds: float
    stats: dict

    @property
    def fps(self) -> float:
        """Frames per second of this call."""
        return self.frames_now / self.seconds if self.seconds > 0 else float("nan")


def train(out: Union[str, Path], frames: int, config: Optional[DMCConfig] = None, *, resume: bool = False,
          checkpoint_every: int = 200_000, progress: bool = True, threads: Optional[int] = 1,
          workers: int = 0, dask: Optional[str] = None,
          on_step: Optional[Callable[[int, float], None]] = None) -> TrainResult:
    """Train until the learner has consumed ``frames`` frames; checkpoints in ``out``.

    ``config``: the settings (`DMCConfig`, DouZero's by default). ``resume``: continue the run
    saved in ``out/model.tar`` (its settings are kept; a ``config`` that differs is refused).
    ``checkpoint_every``: frames between checkpoints (one is always written at the end, and on
    Ctrl-C). ``threads``: torch's CPU threads in this process (default 1: an actor's
    matrices are small, and more threads mostly wait on each other on a busy machine; None
    leaves torch's setting). ``workers``: 0 (the
    default) plays the games in this process, taking turns with the learner, reproducibly;
    ``workers=N`` runs N local actor processes that play while the learner learns (faster on
    several cores, not bit-reproducible: the learner takes their games as they arrive and
    they act with whatever weights they last read). ``dask``: the address of a
    dask.distributed scheduler (``tcp://host:8786``): the games are played by actor tasks on
    its workers instead, ``workers`` of them at a time (default 0: as many as the cluster has
    threads), each with the weights of when it was sent (not reproducible either; the workers
    need ddzlab and torch installed). ``on_step(frames,
    time.perf_counter())`` is called after every learner step (the benchmark's clock).
    """
    torch = _torch()
    if isinstance(frames, bool) or not isinstance(frames, int) or frames < 1:
        raise DMCError(f"frames must be a whole number of at least 1, not {frames!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise DMCError(f"workers must be a whole number of at least 0, not {workers!r}")
    if isinstance(checkpoint_every, bool) or not isinstance(checkpoint_every, int) or checkpoint_every < 1:
        raise DMCError(f"checkpoint_every must be a whole number of frames, at least 1, not {checkpoint_every!r}")
    base = Path(out)
    state_path = base / STATE_FILE
    if resume:
        if not state_path.is_file():
            raise CheckpointError(f"{base}: no {STATE_FILE} to resume from")
        state = _load_training_state(state_path)
        saved = _config_from(state.get("flags"), state_path)
        if config is not None and config != saved:
            diff = [f"{f.name} {getattr(saved, f.name)!r} (not {getattr(config, f.name)!r})" for f in fields(DMCConfig)
                    if getattr(saved, f.name) != getattr(config, f.name)]
            raise DMCError(f"{state_path}: a resumed run keeps its settings: {', '.join(diff)}")
        cfg = saved
    else:
        if state_path.exists():
            raise DMCError(f"{base} already holds a run ({STATE_FILE}): resume it, or choose another folder")
        cfg = (config or DMCConfig()).check()
        state = None

    learner = _Learner(cfg, initial_nets(cfg.seed))
    rng = np.random.default_rng(cfg.seed)
    episodes = 0
    returns: dict[str, deque] = {p: deque(maxlen=100) for p in POSITIONS}
    if state is not None:
        for p in POSITIONS:
            learner.nets[p].load_state_dict(state["model_state_dict"][p])
            try:
                learner.opts[p].load_state_dict(state["optimizer_state_dict"][p])
            except (KeyError, ValueError, TypeError) as e:
                raise CheckpointError(f"{state_path}: the {p} optimiser state does not fit: {e}") from None
        learner.frames = state["frames"]
        pf = state.get("position_frames")
        if isinstance(pf, dict):
            learner.position_frames.update({p: int(pf.get(p, 0)) for p in POSITIONS})
        extra = state.get("ddzlab")
        if isinstance(extra, dict):
            try:
                rng.bit_generator.state = extra["rng"]
                episodes = int(extra["episodes"])
                for p in POSITIONS:
                    returns[p].extend(extra["returns"][p])
                    q = extra["queue"][p]
                    learner.queue[p] = [(x, a, zz, float(t)) for x, a, zz, t in
                                        zip(q["x"].numpy(), q["action"].numpy(), q["z"].numpy(), q["target"].tolist())]
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                raise CheckpointError(f"{state_path}: its ddzlab part is damaged: {e}") from None
        else:       # DouZero's own model.tar: no generator state; continue from a fresh one
            rng = np.random.default_rng([cfg.seed, learner.frames])

    rules = get_rules("standard")
    choose = greedy_chooser(learner.nets, cfg.epsilon, rng)
    actor_seed = [cfg.seed, learner.frames, episodes]
    actors: Optional[Union[_Actors, _DaskActors]] = None
    if dask is not None:
        actors = _DaskActors(dask, workers or _cluster_threads(dask), cfg, learner, actor_seed)
    elif workers:
        actors = _Actors(workers, cfg, learner, actor_seed)

    from tqdm.auto import tqdm
    start_frames, last_saved, t0 = learner.frames, learner.frames, time.perf_counter()
    threads_before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    bar = tqdm(total=frames, initial=min(learner.frames, frames), unit="frame", unit_scale=True,
               disable=not progress, desc="DMC", dynamic_ncols=True)
    try:
        while True:
            for p in POSITIONS:
                while learner.frames < frames and learner.ready(p):
                    learner.step(p)
                    if actors is not None:
                        actors.sync(learner, p)
                    bar.update(cfg.step_frames)
                    if on_step is not None:
                        on_step(learner.frames, time.perf_counter())
            if learner.frames >= frames:
                break
            if learner.frames - last_saved >= checkpoint_every:
                save_checkpoint(base, learner, rng, episodes, returns)
                last_saved = learner.frames
                bar.set_postfix(saved=learner.frames, refresh=False)
            if actors is None:
                ep = play_episode(Game(deal_cards(rules, rng), rules=rules, landlord=0), choose, cfg.objective)
            else:
                ep = actors.episode()
            learner.add(ep)
            episodes += 1
            returns["landlord"].append(ep.landlord_return)
            returns["landlord_up"].append(-ep.landlord_return)
            returns["landlord_down"].append(-ep.landlord_return)
    except KeyboardInterrupt:
        # the game in progress is dropped; its frames were not queued yet
        save_checkpoint(base, learner, rng, episodes, returns)
        raise
    finally:
        if actors is not None:
            actors.close()
        bar.close()
        torch.set_num_threads(threads_before)
    save_checkpoint(base, learner, rng, episodes, returns)
    seconds = time.perf_counter() - t0
    stats = {f"loss_{p}": learner.loss[p] for p in POSITIONS}
    stats.update({f"mean_episode_return_{p}": float(np.mean(returns[p])) if returns[p] else 0.0 for p in POSITIONS})
    return TrainResult(base, learner.frames, episodes, learner.frames - start_frames, seconds, stats)


def _cluster_threads(address: str) -> int:
    """Threads of the workers of the dask cluster at ``address`` (at least 1)."""
    from dask.distributed import Client
    try:
        with Client(address, timeout=DASK_CONNECT_SECONDS, set_as_default=False) as client:
            return max(1, sum(client.nthreads().values()))
    except (OSError, TimeoutError, ValueError) as e:
        raise DMCError(f"no dask scheduler at {address!r}: {type(e).__name__}: {e}") from None


def train_checkpoints(out: Union[str, Path], checkpoints: Sequence[int], config: Optional[DMCConfig] = None, *,
                      progress: bool = True, threads: Optional[int] = 1,
                      on_checkpoint: Optional[Callable[[int, TrainResult], None]] = None) -> dict[int, int]:
    """Train one run through a list of checkpoints: ``<position>_weights_<frames>.ckpt`` in
    ``out`` at each, by training (in this process, reproducibly) to each number of frames in
    turn, resuming the run saved in ``out`` if there is one. The learner stops at the first
    step that reaches a number (frames grow by ``unroll × batch`` a step), so a checkpoint
    lands on the number itself when it is a multiple of that. ``0`` writes the seed's initial
    networks as ``<position>_weights_0.ckpt``. A resumed run is the run trained at once
    (`train`), so the files depend on the settings and the list only, not on where the run was
    stopped. Returns {asked: frames reached}; ``on_checkpoint(asked, result)`` after each."""
    torch = _torch()
    asked = sorted(set(checkpoints))
    if not asked or any(isinstance(f, bool) or not isinstance(f, int) or f < 0 for f in asked):
        raise DMCError(f"checkpoints are whole numbers of frames, at least 0, got {list(checkpoints)!r}")
    base = Path(out)
    resume = (base / STATE_FILE).exists()
    cfg = (config or DMCConfig()).check()
    if resume:
        cfg = _config_from(_load_training_state(base / STATE_FILE).get("flags"), base / STATE_FILE)
        if config is not None and config != cfg:
            raise DMCError(f"{base / STATE_FILE}: a resumed run keeps its settings ({cfg}), not {config}")
    done: dict[int, int] = {}
    if asked[0] == 0:
        base.mkdir(parents=True, exist_ok=True)
        for position, net in initial_nets(cfg.seed).items():
            _atomic_save(torch, net.state_dict(), base / f"{position}_weights_0.ckpt")
        done[0] = 0
    for frames in asked:
        if frames == 0:
            continue
        res = train(base, frames, None if resume else cfg, resume=resume, checkpoint_every=max(frames, 1),
                    progress=progress, threads=threads)
        resume = True
        if res.frames_now == 0 and res.frames > frames and not (base / f"landlord_weights_{frames}.ckpt").exists():
            raise DMCError(f"{base}: the run is at {res.frames:,} frames, past the checkpoint {frames:,}, whose "
                           "files are not there: train the run again from the start in another folder")
        done[frames] = res.frames
        if on_checkpoint is not None:
            on_checkpoint(frames, res)
    return done


# -- command line -------------------------------------------------------------------------------

@register_trainer("dmc")
def main(argv: list[str]) -> int:
    """``ddzlab train dmc OUT --frames N --seed S``: train (or ``--resume``) DouZero-format models."""
    d = DMCConfig()
    p = argparse.ArgumentParser(prog="ddzlab train dmc",
                                description="Deep Monte-Carlo (DouZero's method) on CPU; checkpoints in DouZero's "
                                            "format in OUT (play them as douzero:OUT). Needs torch: "
                                            "pip install 'ddzlab[douzero]'.")
    p.add_argument("out", help="checkpoint folder (model.tar, <position>.ckpt, <position>_weights_<frames>.ckpt)")
    p.add_argument("--frames", type=int, default=None,
                   help="train until the learner has consumed this many frames")
    p.add_argument("--checkpoints", default=None, metavar="F1,F2,...",
                   help="instead of --frames: train to each of these frame counts in turn, keeping the "
                        "<position>_weights_<F>.ckpt files of each (0: the initial networks drawn from the training seed)")
    p.add_argument("--resume", action="store_true", help="continue the run saved in OUT (its settings are kept)")
    p.add_argument("--seed", type=int, default=None, help=f"(default {d.seed})")
    p.add_argument("--objective", choices=OBJECTIVES, default=None, help=f"(default {d.objective})")
    p.add_argument("--epsilon", type=float, default=None, help=f"exploration (default {d.epsilon})")
    p.add_argument("--unroll", type=int, default=None, help=f"frames per rollout, T (default {d.unroll})")
    p.add_argument("--batch", type=int, default=None, help=f"rollouts per learner step, B (default {d.batch})")
    p.add_argument("--lr", type=float, default=None, help=f"RMSprop learning rate (default {d.lr})")
    p.add_argument("--checkpoint-every", type=int, default=200_000, metavar="FRAMES")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads of the learner's process (default 1)")
    p.add_argument("--workers", type=int, default=0,
                   help="local actor processes (default 0: the games are played in this process, reproducibly); "
                        "with --dask, actor tasks at a time (default: the cluster's threads)")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="play the games on the workers of this dask scheduler (tcp://host:8786)")
    p.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    if (a.frames is None) == (a.checkpoints is None):
        p.error("give --frames N or --checkpoints F1,F2,... (one of them)")
    given = {k: getattr(a, k) for k in ("seed", "objective", "epsilon", "unroll", "batch", "lr")
             if getattr(a, k) is not None}
    if a.resume and given:
        p.error(f"--resume keeps the saved run's settings; drop {', '.join('--' + k for k in given)}")
    try:
        cfg = None if a.resume else replace(d, **given).check()
        if a.checkpoints is not None:
            try:
                asked = [int(f) for f in a.checkpoints.split(",") if f.strip()]
            except ValueError:
                p.error(f"--checkpoints is a comma-separated list of frame counts, not {a.checkpoints!r}")
            if a.resume:
                p.error("--checkpoints resumes the run in OUT by itself; drop --resume")
            reached = train_checkpoints(a.out, asked, cfg, progress=not a.no_progress, threads=a.threads)
            print(f"checkpoints at {', '.join(f'{f:,}' for f in reached.values())} frames in {a.out} (play one as "
                  f"douzero:{a.out},frames=F)")
            return 0
        res = train(a.out, a.frames, cfg, resume=a.resume, checkpoint_every=a.checkpoint_every,
                    progress=not a.no_progress, threads=a.threads, workers=a.workers, dask=a.dask)
    except DdzError as e:
        print(f"ddzlab train dmc: error: {e}", file=sys.stderr)
        return 2
    print(f"trained to {res.frames:,} frames ({res.episodes:,} games in all; {res.fps:,.0f} frames/s this run); "
          f"saved in {res.out} (play it as douzero:{res.out})")
    return 0


__all__ = ["DMCConfig", "DMCError", "Episode", "TrainResult", "train", "train_checkpoints", "play_episode", "episode_return",
           "action_values", "greedy_chooser", "initial_nets", "save_checkpoint", "SEAT_POSITION", "OBJECTIVES", "STATE_FILE", "main"]
