"""Dou Dizhu as a PettingZoo AEC environment (the convention of PettingZoo's classic card games).

Three agents act in turn. With a fixed landlord (DouZero's protocol, the default) they are
``landlord``, ``landlord_down`` and ``landlord_up`` (seats 0, 1, 2); with ``bidding=True``
(standard rules) they are ``player_0..2`` and the role is part of the observation. Each
observation is a dict: ``observation`` (the `ddzlab.env.encode` vector: ``compact`` or
``douzero``) and ``action_mask`` (int8, 1 for each legal action). Actions are indices of the
rule set's `ddzlab.env.index.MoveIndex` (then the bids, in bidding mode). Rewards come at the
end (``wp``, ``adp`` or ``score``: `ddzlab.env.table`).

A masked-out action, a non-integer, ``step(action, agent=...)`` for an agent whose turn it
is not, or a step after the episode has ended raises an `ddzlab.errors.IllegalMoveError`
(`OutOfTurnError`; `ddzlab.env.table.EpisodeOverError` for the last) naming the problem and
leaves the game as it was; a bad ``reset`` seed raises `ddzlab.errors.SeedError`.

>>> env = DouDizhuEnv()
>>> env.reset(seed=0)
>>> env.agent_selection, env.observe("landlord")["action_mask"].sum() > 0
('landlord', np.True_)
"""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as e:      # pragma: no cover - the message is the point
    raise ImportError("ddzlab's PettingZoo environment needs the env extra: pip install 'ddzlab[env]' "
                      f"(pettingzoo, gymnasium); {e}") from e

from ..errors import OutOfTurnError
from ..game import Game
from ..rules import Rules
from .table import EnvError, EpisodeOverError, Table, check_seed


class DouDizhuEnv(AECEnv):
    """PettingZoo AEC Dou Dizhu on ddzlab's engine; see the module docstring.

    ``DouDizhuEnv(rules="standard", *, bidding=False, reward="wp", encoding="compact",
    render_mode=None)``.
    """

    _RENDER_MODES = ["human", "ansi"]
    metadata = {"render_modes": _RENDER_MODES, "name": "ddzlab_doudizhu_v0", "is_parallelizable": False}

    def __init__(self, rules: Union[Rules, str] = "standard", *, bidding: bool = False, reward: str = "wp",
                 encoding: str = "compact", render_mode: Optional[str] = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self._RENDER_MODES:
            raise EnvError(f"render_mode {render_mode!r}: choose from {self._RENDER_MODES}")
        self.table = Table(rules, bidding, reward, encoding)
        self.render_mode = render_mode
        self.possible_agents = list(self.table.agents)
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        n = self.table.n_actions
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        high = 1 if encoding == "douzero" else 4
        dtype = np.int8 if encoding == "douzero" else np.float32
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0, high, (self.table.obs_size(s),), dtype),
                "action_mask": spaces.Box(0, 1, (n,), np.int8),
            }) for s, a in enumerate(self.possible_agents)}
        self._rng = np.random.default_rng()
        self.game: Optional[Game] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the game ---------------------------------------------------------------------
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Deal a new game; ``seed`` (None or a whole number >= 0, else `SeedError`) restarts
        the environment's generator (deals, redeals)."""
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game = self.table.new_game(self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._legal = self.table.legal(self.game)
        self.agent_selection = self.possible_agents[self._to_act(self.game)]
        if self.render_mode == "human":
            self.render()

    @staticmethod
    def _to_act(game: Game) -> int:
        """The seat to act in a game not over."""
        seat = game.to_act
        assert seat is not None
        return seat

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        game = self.game
        assert game is not None                        # PettingZoo observes after reset()
        legal = self._legal if seat == game.to_act else {}
        return {"observation": self.table.observation(game, seat), "action_mask": self.table.mask(legal)}

    def step(self, action: Any, agent: Optional[str] = None) -> None:
        """The selected agent takes ``action`` (an index; None once it is terminated).
        ``agent`` (optional) names who is meant to act: another agent raises `OutOfTurnError`.
        Once the game has ended, each agent steps ``None`` in turn; any other action, or a
        step after the last agent has left, raises `EpisodeOverError` (nothing changes)."""
        if self.game is None or not getattr(self, "agents", None):
            raise EpisodeOverError("the episode is over (or was never started): call reset()")
        current = self.agent_selection
        if self.terminations[current] or self.truncations[current]:
            if action is not None:
                raise EpisodeOverError(f"the game is over: {current} may only step None "
                                       f"(PettingZoo's convention), not {action!r}; then reset()")
            return self._was_dead_step(action)
        seat = self._seat[current] if agent is None else self._seat_of(agent)
        game = self.game
        self.table.apply(game, action, self._legal, seat)
        self._cumulative_rewards[current] = 0.0
        if game.is_over:
            self._legal = {}
            self.rewards = dict(zip(self.possible_agents, self.table.rewards(game)))
            self.terminations = {a: True for a in self.agents}
            self._accumulate_rewards()
            self._deads_step_first()
        else:
            self._legal = self.table.legal(game)
            self.agent_selection = self.possible_agents[self._to_act(game)]
            self._clear_rewards()
        if self.render_mode == "human":
            self.render()

    def _seat_of(self, agent: str) -> int:
        if agent not in self._seat:
            raise OutOfTurnError(f"no agent {agent!r}: the agents are {', '.join(self.possible_agents)}")
        return self._seat[agent]

    def render(self) -> Optional[str]:
        """The position as text (``ansi`` returns it, ``human`` prints it)."""
        return self.table.show(self.game, self.render_mode)

    def close(self) -> None:
        self.game = None


def raw_env(**kwargs: Any) -> DouDizhuEnv:
    """The environment itself (PettingZoo's ``raw_env`` convention)."""
    return DouDizhuEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's own environments are: `OrderEnforcingWrapper`
    (no action before ``reset``). Illegal actions still raise; nothing is silently replaced."""
    return wrappers.OrderEnforcingWrapper(DouDizhuEnv(**kwargs))


__all__ = ["DouDizhuEnv", "raw_env", "env"]
