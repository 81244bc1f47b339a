"""Dou Dizhu as a Gymnasium environment for one learning seat; the other seats are ddzlab agents.

``SingleSeatEnv(rules="standard", seat="landlord", opponents="random", ...)``: the learner
holds ``seat`` (``landlord``, ``landlord_down``, ``landlord_up``, or ``"random"`` for a
fresh draw each episode; a seat number in bidding mode) and the other two seats are played by
agents built with `ddzlab.agents.make_agent` from ``opponents`` (one spec for both, or a
pair), seeded from the environment's generator. `reset` and `step` let the opponents move
until it is the learner's turn or the game is over.

Observations are dicts like the PettingZoo environment's (``observation``, ``action_mask``);
the mask is also in ``info["action_mask"]`` and returned by `action_masks()` (what
sb3-contrib's ``MaskablePPO`` calls). The reward is the learner's, at the end.

A masked-out action raises `ddzlab.errors.IllegalMoveError` and changes nothing
(``illegal="raise"``, the default). ``illegal="lose"`` instead ends the episode as a loss
(−1 for ``wp``; for ``adp`` and ``score`` a loss at the stakes of the moment), PettingZoo's
``TerminateIllegalWrapper`` convention, for code that samples unmasked actions (Gymnasium's ``check_env`` does).
A step after the episode has ended raises `ddzlab.env.table.EpisodeOverError`, a ``reset``
seed other than None or a whole number >= 0 `ddzlab.errors.SeedError`; neither changes anything.

>>> env = SingleSeatEnv(seat="landlord_up", opponents="greedy")
>>> obs, info = env.reset(seed=0)
>>> obs["observation"].shape, bool(info["action_mask"].any()), info["role"]
((170,), True, 'up')
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
except ImportError as e:      # pragma: no cover - the message is the point
    raise ImportError("ddzlab's Gymnasium environment needs the env extra: pip install 'ddzlab[env]' "
                      f"(pettingzoo, gymnasium); {e}") from e

from ..agents import make_agent
from ..errors import IllegalMoveError
from ..game import Game, Phase
from ..rules import Rules
from .table import EnvError, EpisodeOverError, Table, check_seed

AgentSpecs = Union[Any, Sequence[Any]]


class SingleSeatEnv(gym.Env):
    """One learning seat against two ddzlab agents; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(self, rules: Union[Rules, str] = "standard", *, seat: Union[str, int] = "landlord",
                 opponents: AgentSpecs = "random", bidding: bool = False, reward: str = "wp",
                 encoding: str = "compact", illegal: str = "raise", render_mode: Optional[str] = None) -> None:
        self.table = Table(rules, bidding, reward, encoding)
        names = self.table.agents
        if seat != "random" and not (seat in names or (isinstance(seat, int) and 0 <= seat < 3)):
            raise EnvError(f"seat {seat!r}: choose one of {', '.join(names)}, 0..2 or 'random'")
        if encoding == "douzero" and seat == "random":
            raise EnvError("DouZero's features differ in size by role: fix the seat to use encoding='douzero'")
        if illegal not in ("raise", "lose"):
            raise EnvError(f"illegal={illegal!r}: choose 'raise' or 'lose'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(f"render_mode {render_mode!r}: choose from {self.metadata['render_modes']}")
        #: the learner's seat, or "random" (drawn at each reset)
        self.seat_choice: Union[int, str] = names.index(seat) if isinstance(seat, str) and seat in names else seat
        if isinstance(opponents, (list, tuple)) and len(opponents) == 2 and not _is_spec_pair(opponents):
            self.opponent_specs = tuple(opponents)
        else:
            self.opponent_specs = (opponents, opponents)
        self.illegal, self.render_mode = illegal, render_mode
        n = self.table.n_actions
        size = self.table.obs_size(0 if isinstance(self.seat_choice, str) else self.seat_choice)
        high = 1 if encoding == "douzero" else 4
        dtype = np.int8 if encoding == "douzero" else np.float32
        self.observation_space = spaces.Dict({"observation": spaces.Box(0, high, (size,), dtype),
                                              "action_mask": spaces.Box(0, 1, (n,), np.int8)})
        self.action_space = spaces.Discrete(n)
        self.game: Optional[Game] = None
        self.seat = 0
        self._legal: dict = {}
        self._forfeit = False

    # -- the episode ------------------------------------------------------------------
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Deal a new game and let the opponents act up to the learner's turn; ``seed`` (None
        or a whole number >= 0, else `ddzlab.errors.SeedError`) restarts the generator."""
        super().reset(seed=check_seed(seed))
        rng = self.np_random
        self.seat = int(rng.integers(3)) if self.seat_choice == "random" else int(self.seat_choice)
        self.game = self.table.new_game(rng)
        others = [s for s in range(3) if s != self.seat]
        self.opponents = {s: make_agent(spec, seed=int(rng.integers(2**63)))
                          for s, spec in zip(others, self.opponent_specs)}
        self._forfeit = False
        self._advance()
        return self._obs(), self._info()

    def step(self, action: Any):
        game = self.game
        if game is None or game.is_over or self._forfeit:
            raise EpisodeOverError("the episode is over (or was never started): call reset()")
        try:
            self.table.apply(game, action, self._legal, self.seat)
        except IllegalMoveError:
            if self.illegal == "raise":
                raise
            self._forfeit, self._legal = True, {}
            return self._obs(), self._loss(), True, False, self._info()
        self._advance()
        reward = self.table.rewards(game)[self.seat] if game.is_over else 0.0
        return self._obs(), reward, game.is_over, False, self._info()

    def _current(self) -> Game:
        """The game on (`reset` deals one)."""
        assert self.game is not None
        return self.game

    def _loss(self) -> float:
        """The learner's reward for losing now (``illegal="lose"``)."""
        game, reward = self._current(), self.table.reward
        if reward == "wp":
            return -1.0
        unit = float(2 ** game.bombs)
        if reward == "adp":
            return -unit
        return -unit * max(game.bid, 1) * (2 if game.landlord == self.seat else 1)

    def _advance(self) -> None:
        """Let the opponents act until it is the learner's turn or the game is over."""
        game = self._current()
        while not game.is_over and game.to_act != self.seat:
            s = game.to_act
            assert s is not None                       # someone acts until the game is over
            agent = self.opponents[s]
            obs = game.observation(s)
            if game.phase is Phase.BIDDING:
                game.make_bid(agent.bid(obs), s)
            else:
                game.play(agent.play(obs), s)
        self._legal = self.table.legal(game) if not game.is_over else {}

    def _obs(self) -> dict[str, np.ndarray]:
        return {"observation": self.table.observation(self._current(), self.seat), "action_mask": self.table.mask(self._legal)}

    def _info(self) -> dict:
        return {"action_mask": self.table.mask(self._legal), "role": self._current().role(self.seat),
                "seat": self.seat}

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (sb3-contrib's ``MaskablePPO`` convention)."""
        return self.table.mask(self._legal).astype(bool)

    def render(self) -> Optional[str]:
        """The position as text (``ansi`` returns it, ``human`` prints it)."""
        return self.table.show(self.game, self.render_mode)


#: the Gymnasium id: ``gymnasium.make("ddzlab.env.single:ddzlab/DouDizhuSingleSeat-v0", seat=...)``
#: (the module prefix makes Gymnasium import this module, which registers it)
ENV_ID = "ddzlab/DouDizhuSingleSeat-v0"
if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point=f"{__name__}:SingleSeatEnv")


def _is_spec_pair(x: Sequence[Any]) -> bool:
    """``("weights", {...})`` is one spec with keyword arguments, not two opponents."""
    return len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], dict)


__all__ = ["SingleSeatEnv", "ENV_ID"]
