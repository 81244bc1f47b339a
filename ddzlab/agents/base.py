"""The agent protocol, the registry of agents by name, and the loop that plays a game.

An agent is anything with ``bid(obs) -> int`` and ``play(obs) -> Move`` (plus an optional
``name``). It sees only the `Observation` of its own seat. An agent may also explain its
decisions (optional, see `Evaluating`): after each ``bid`` or ``play`` it sets ``last_eval``
to a small JSON-friendly dict of the values it decided on; game records
(`ddzlab.records`) and the widgets show it, and agents without it work unchanged. Agents are registered by name
so the CLI and the arena can build them from a short spec::

    make_agent("random", seed=3)          # by name
    make_agent("random:seed=3")           # the same, as one string (CLI-friendly)

Other modules of `ddzlab.agents` register themselves with ``@register_agent("name")``
(trainers for ``ddzlab train NAME`` with ``@register_trainer``); an unknown name triggers one
import of every module in the package, so a new agent only has to live in its own module.
Only this package is searched: every agent and trainer lives in `ddzlab.agents`.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any, Callable, Optional, Protocol, Sequence, Union, runtime_checkable

from ..errors import DdzError
from ..game import Game, Observation, Phase
from ..moves import Move


@runtime_checkable
class Agent(Protocol):
    """What the game asks of a player: a bid during bidding, a move during play."""

    def bid(self, obs: Observation) -> int:
        """0 to pass, or a bid from ``obs.legal_bids``."""
        ...

    def play(self, obs: Observation) -> Move:
        """One of ``obs.legal_moves``."""
        ...


@runtime_checkable
class Evaluating(Protocol):
    """Optional part of the protocol: an agent that says how it valued its last decision.

    Right after ``bid(obs)`` or ``play(obs)`` returns, ``last_eval`` holds that decision's
    evaluation as a dict of JSON-friendly values (str keys; numbers, strings, lists or
    dicts), e.g. ``{"q": 31, "top": {"3334": 31, "5": 12}}`` or ``{"score": 0.8}``; None
    when the agent has nothing to say about that call. The agent must reset it on every
    call it does not evaluate, so a value never describes an older decision. Read it with
    `last_evaluation`.
    """

    last_eval: Optional[dict]


def last_evaluation(agent: Any) -> Optional[dict]:
    """The agent's evaluation of its last decision (`Evaluating`), or None if it has none."""
    value = getattr(agent, "last_eval", None)
    return dict(value) if isinstance(value, dict) else None


class AgentError(DdzError):
    """An unknown agent name or a bad agent spec."""


_REGISTRY: dict[str, Callable[..., Agent]] = {}
_DISCOVERED = False

#: an agent spec: a registered name (``"random"``, ``"random:seed=3"``), a (name, kwargs)
#: pair, or a callable ``factory(seed) -> Agent``
AgentSpec = Union[str, tuple, Callable[..., Agent]]


def register_agent(name: str) -> Callable[[Callable[..., Agent]], Callable[..., Agent]]:
    """Class decorator: make an agent available to `make_agent` under ``name``."""
    def deco(factory: Callable[..., Agent]) -> Callable[..., Agent]:
        _REGISTRY[name.lower()] = factory
        return factory
    return deco


_TRAINERS: dict[str, Callable[[list[str]], int]] = {}


def register_trainer(name: str) -> Callable[[Callable[[list[str]], int]], Callable[[list[str]], int]]:
    """Decorator: make ``trainer(argv) -> exit code`` available as ``ddzlab train NAME``."""
    def deco(func: Callable[[list[str]], int]) -> Callable[[list[str]], int]:
        _TRAINERS[name.lower()] = func
        return func
    return deco


def available_trainers() -> dict[str, Callable[[list[str]], int]]:
    """Registered trainers by name (modules of `ddzlab.agents` register them)."""
    _discover()
    return dict(sorted(_TRAINERS.items()))


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    pkg = importlib.import_module("ddzlab.agents")
    for info in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"ddzlab.agents.{info.name}")


#: the play agent other tools use when none is named (simulation labels, the card play of
#: ``threshold_bidder``): the strongest fast registered agent
DEFAULT_PLAY_AGENT = "greedy"


def available_agents() -> list[str]:
    """Names `make_agent` accepts, sorted."""
    _discover()
    return sorted(_REGISTRY)


def _parse_value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def parse_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``"name:key=value,key=value"`` → (name, kwargs)."""
    name, _, rest = text.partition(":")
    kwargs: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise AgentError(f"agent option {item!r} in {text!r} is not key=value")
        kwargs[key.strip()] = _parse_value(value.strip())
    return name.strip().lower(), kwargs


def make_agent(spec: AgentSpec, seed: Any = None, **kwargs: Any) -> Agent:
    """Build an agent from a spec; ``seed`` (int, SeedSequence or Generator) is passed to
    agents whose constructor takes one, so random agents are reproducible. A seed written
    in the spec itself (``"random:seed=3"``) takes precedence."""
    if isinstance(spec, str):
        name, opts = parse_spec(spec)
        opts.update(kwargs)
        factory = _REGISTRY.get(name)
        if factory is None:
            _discover()
            factory = _REGISTRY.get(name)
        if factory is None:
            raise AgentError(f"unknown agent {name!r}; available: {', '.join(available_agents())}")
        return _call(factory, seed, opts)
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        opts = {**spec[1], **kwargs}
        return make_agent(spec[0], opts.pop("seed", seed), **opts)
    if callable(spec):
        return _call(spec, seed, kwargs)
    raise AgentError(f"cannot build an agent from {spec!r}: give a name, (name, kwargs) or a factory")


def _call(factory: Callable[..., Agent], seed: Any, kwargs: dict[str, Any]) -> Agent:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    takes_seed = "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
    if takes_seed and "seed" not in kwargs:
        kwargs = {**kwargs, "seed": seed}
    try:
        return factory(**kwargs)
    except TypeError as e:
        raise AgentError(f"cannot build agent {getattr(factory, '__name__', factory)} "
                         f"with {kwargs}: {e}") from None


def agent_name(agent: Any) -> str:
    return getattr(agent, "name", None) or type(agent).__name__


def play_game(game: Game, agents: Sequence[Agent], max_redeals: int = 100) -> Game:
    """Drive ``game`` to its end, asking ``agents[seat]`` for each bid and move.

    An agent's illegal answer raises (the game is unchanged). More than ``max_redeals``
    all-pass auctions in a row raise `AgentError` (agents that never bid). An agent that
    defines ``see_all_hands(game)`` (a cheater, e.g. ``mcts_cheat``) is shown the true
    game before each of its moves; other agents see only their `Observation`.
    """
    if len(agents) != game.players:
        raise AgentError(f"{len(agents)} agents for a {game.players}-player game")
    observe = game.observation
    while game.phase is Phase.BIDDING:
        seat = game.to_act
        game.make_bid(int(agents[seat].bid(observe(seat))), seat)
        if game.redeals > max_redeals:
            raise AgentError(f"{max_redeals} all-pass auctions in a row: the agents never bid")
    play = game.play
    while game.phase is Phase.PLAY:
        seat = game.to_act
        agent = agents[seat]
        cheat = getattr(agent, "see_all_hands", None)
        if cheat is not None:      # a cheating agent (the upper bound of a study) sees all hands
            cheat(game)
        play(agent.play(observe(seat)), seat)
    return game


__all__ = ["Agent", "Evaluating", "last_evaluation", "AgentSpec", "AgentError", "register_agent", "make_agent", "available_agents",
           "register_trainer", "available_trainers",
           "parse_spec", "agent_name", "play_game", "DEFAULT_PLAY_AGENT"]
