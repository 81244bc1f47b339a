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

Agents from outside the package, by spec::

    make_agent("path/to/my_agent.py:MyAgent")          # a class in a Python file
    make_agent("my_package.agents:MyAgent:depth=3")     # a class in an importable module
    make_agent("my_agent")                              # an entry point of group ddzlab.agents

An agent whose factory names a ``spec_argument`` takes a bare first value as that option:
``douzero:models/dz`` is ``douzero:folder=models/dz`` (`ddzlab.env.douzero_agent`, offered
through the entry point: it lives above this layer).

A spec is text, so parallel workers (joblib, dask) rebuild the agent by importing the file
or module themselves: the arena sends workers `portable_spec` of each agent, never a class
that only exists in this process.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import pkgutil
import re
import sys
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence, Union, runtime_checkable

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


class AgentOptionError(AgentError):
    """An option an agent does not take (``ismcts:iteratons=10``): the message names the
    agent, the option and the options the agent takes (`agent_options`)."""


_REGISTRY: dict[str, Callable[..., Agent]] = {}
_DISCOVERED = False

#: an agent spec: a registered name (``"random"``, ``"random:seed=3"``), a class reference
#: (``"my_agent.py:MyAgent"``, ``"package.module:MyAgent:key=value"``), a (spec, kwargs)
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


#: the entry-point group through which installed packages offer agents by name
ENTRY_POINT_GROUP = "ddzlab.agents"


def _entry_points() -> dict[str, Any]:
    """Installed agents offered through `ENTRY_POINT_GROUP`: name -> entry point."""
    from importlib.metadata import entry_points
    return {ep.name.lower(): ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_agents() -> list[str]:
    """Names `make_agent` accepts (ddzlab's own and installed packages' entry points), sorted."""
    _discover()
    return sorted(set(_REGISTRY) | set(_entry_points()))


def _summary(doc: str) -> str:
    """The first sentence of a docstring, on one line, without pointers to other docs."""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    paragraph = re.sub(r"\s*\((see )?(the )?module docstring\)", "", paragraph).replace("``", "`")
    match = re.match(r"(.+?[.!?])(\s|$)", paragraph)
    return match.group(1) if match else paragraph


def describe_agents() -> dict[str, str]:
    """Every available agent name -> the first sentence of its docstring (what it is)."""
    out = {}
    for name in available_agents():
        try:
            doc = inspect.getdoc(_factory(name)) or ""
            out[name] = _summary(doc) if doc.strip() else "(no description)"
        except AgentError as e:
            out[name] = f"(cannot be loaded: {e})"
    return out


def _parse_value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def _options(rest: str, text: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise AgentError(f"agent option {item!r} in {text!r} is not key=value")
        kwargs[key.strip()] = _parse_value(value.strip())
    return kwargs


def class_reference(text: str) -> Optional[tuple[str, str, dict[str, Any]]]:
    """``"file.py:Class[:key=value,...]"`` or ``"package.module:Class[:...]"`` → (file or
    module, class name, kwargs); None for a registered-name spec such as ``"random:seed=3"``
    (what follows its colon is options, ``key=value``)."""
    head, sep, tail = text.strip().partition(":")
    if not sep:
        return None
    cls, _, rest = tail.partition(":")
    if not all(part.isidentifier() for part in cls.split(".")):     # options, not a class
        return None
    return head.strip(), cls, _options(rest, text)


def _spec_reference(text: str) -> Optional[tuple[str, str, dict[str, Any]]]:
    """`class_reference` of a spec, unless its head is an agent's name (``random:seed`` is
    the agent ``random`` with a malformed option, not the function ``seed`` of the module
    ``random``)."""
    ref = class_reference(text)
    if ref is None or _is_path(ref[0]):
        return ref
    name = ref[0].lower()
    if name in _REGISTRY:
        return None
    _discover()
    return None if name in _REGISTRY or name in _entry_points() else ref


def parse_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``"name:key=value,key=value"`` → (name, kwargs)."""
    name, _, rest = text.partition(":")
    return name.strip().lower(), _options(rest, text)


def _named_spec(text: str) -> tuple[str, dict[str, Any]]:
    """`parse_spec`, except that an agent whose factory names a ``spec_argument`` takes a
    bare first value as that option: ``douzero:models/dz`` is ``douzero:folder=models/dz``
    (a value holding ``=`` or ``,`` is written ``key=value``)."""
    name, _, rest = text.partition(":")
    first, _, others = rest.partition(",")
    if first.strip() and "=" not in first:
        try:
            key = getattr(_factory(name.strip().lower()), "spec_argument", None)
        except AgentError:
            key = None                         # an unknown name: parse_spec's message first
        if isinstance(key, str) and key:
            opts = _options(others, text)
            opts[key] = first.strip()
            return name.strip().lower(), opts
    return parse_spec(text)


_FILE_MODULE_PREFIX = "ddzlab_user_agents_"


def _is_path(target: str) -> bool:
    """Whether a class reference's head names a file (``dir/agent.py``), not a module."""
    return target.endswith(".py") or "/" in target or "\\" in target


def _import_file(path: str) -> Any:
    """Import the Python file ``path`` once per process (under a name derived from its
    absolute path, so two files called ``my_agent.py`` do not collide)."""
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise AgentError(f"agent file {path!r} not found (a spec is path/to/file.py:ClassName)")
    digest = hashlib.sha1(str(file).encode()).hexdigest()[:10]
    name = f"{_FILE_MODULE_PREFIX}{digest}_{''.join(c if c.isalnum() else '_' for c in file.stem)}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:         # not a Python source file
        raise AgentError(f"cannot import agent file {path!r}: not a Python file (a spec is path/to/file.py:ClassName)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise AgentError(f"cannot import agent file {path!r}: {type(e).__name__}: {e}") from e
    return module


def _load_class(target: str, cls: str) -> Callable[..., Agent]:
    """The class (or factory) ``cls`` of the file or module ``target``."""
    if _is_path(target):
        module = _import_file(target)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as e:
            raise AgentError(f"cannot import module {target!r} for agent {cls!r}: {e}") from e
    obj: Any = module
    for part in cls.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            where = f"file {target!r}" if target.endswith(".py") else f"module {target!r}"
            raise AgentError(f"{where} has no {cls!r}")
    if not callable(obj):
        raise AgentError(f"{target}:{cls} is not a class or factory")
    return obj


def _factory(name: str) -> Callable[..., Agent]:
    """The factory registered (or offered by an entry point) under ``name``."""
    factory = _REGISTRY.get(name)
    if factory is None:
        _discover()
        factory = _REGISTRY.get(name)
    if factory is None:
        ep = _entry_points().get(name)
        if ep is not None:
            try:
                factory = ep.load()
            except Exception as e:
                raise AgentError(f"agent {name!r} (entry point {ep.value}) cannot be loaded: "
                                 f"{type(e).__name__}: {e}") from e
    if factory is None:
        raise AgentError(f"unknown agent {name!r}; available: {', '.join(available_agents())} "
                         "(or path/to/file.py:Class, or package.module:Class)")
    return factory


def make_agent(spec: AgentSpec, seed: Any = None, **kwargs: Any) -> Agent:
    """Build an agent from a spec; ``seed`` (int, SeedSequence or Generator) is passed to
    agents whose constructor takes one, so random agents are reproducible. A seed written
    in the spec itself (``"random:seed=3"``) takes precedence."""
    if isinstance(spec, str):
        ref = _spec_reference(spec)
        if ref is not None:
            target, cls, opts = ref
            return _call(_load_class(target, cls), seed, {**opts, **kwargs}, f"{target}:{cls}")
        name, opts = _named_spec(spec)
        opts.update(kwargs)
        return _call(_factory(name), seed, opts, name)
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        opts = {**spec[1], **kwargs}
        return make_agent(spec[0], opts.pop("seed", seed), **opts)
    if callable(spec):
        return _call(spec, seed, kwargs)
    raise AgentError(f"cannot build an agent from {spec!r}: give a name, (name, kwargs) or a factory")


_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _parameters(func: Any, drop_first: bool = False) -> Optional[tuple[list[str], bool]]:
    """(the keyword parameters of ``func``, whether it also takes ``**kwargs``); None when
    its signature cannot be read (a builtin)."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    if drop_first:
        params = params[1:]
    return ([p.name for p in params if p.kind in _NAMED],
            any(p.kind is p.VAR_KEYWORD for p in params))


def _returned_class(func: Any) -> Optional[type]:
    """The class a factory function says it returns (its return annotation), if any."""
    try:
        annotation = inspect.signature(func).return_annotation
    except (TypeError, ValueError):
        return None
    if isinstance(annotation, str):        # postponed: look the name up where func sees it
        try:
            scope = inspect.getclosurevars(func)
        except TypeError:
            return None
        name = annotation.strip("'\"")
        annotation = scope.nonlocals.get(name, scope.globals.get(name, getattr(func, "__globals__", {}).get(name)))
    return annotation if inspect.isclass(annotation) and annotation is not inspect.Signature.empty else None


def agent_options(factory: Callable[..., Agent]) -> Optional[list[str]]:
    """The options (keyword arguments) an agent factory takes, in signature order, or None
    when they cannot be told (a factory that takes any keyword and says nothing more).

    ``**kwargs`` is followed: in a class, to the ``__init__`` of the next class of its MRO
    (``super().__init__(**kwargs)``); in a factory function, to the class its return
    annotation names (``def strong(**options) -> ISMCTSAgent``)."""
    names: list[str] = []
    if inspect.isclass(factory):
        for klass in factory.__mro__:
            init = klass.__dict__.get("__init__")
            if init is None:
                continue
            if klass is object:
                return names
            got = _parameters(init, drop_first=True)
            if got is None:
                return None
            names += [n for n in got[0] if n not in names]
            if not got[1]:
                return names
        return names
    got = _parameters(factory)
    if got is None:
        return None
    names = list(got[0])
    if got[1]:
        target = _returned_class(factory)
        more = None if target is None else agent_options(target)
        if more is None:
            return None
        names += [n for n in more if n not in names]
    return names


def _check_options(label: str, factory: Callable[..., Agent], kwargs: dict[str, Any]) -> None:
    """`AgentOptionError` for options ``factory`` does not take, naming the valid ones."""
    valid = agent_options(factory)
    if valid is None:
        return
    bad = [k for k in kwargs if k not in valid]
    if not bad:
        return
    import difflib
    hints = [f"{k!r} (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(k, valid, 1))
             else repr(k) for k in bad]
    raise AgentOptionError(f"agent {label!r} has no option{'s' * (len(bad) > 1)} {', '.join(hints)}; "
                           f"its options: {', '.join(valid) or 'none'}")


def _call(factory: Callable[..., Agent], seed: Any, kwargs: dict[str, Any],
          label: Optional[str] = None) -> Agent:
    """``factory(**kwargs)``, with ``seed`` added when the factory takes one; an option it
    does not take raises `AgentOptionError` (``label`` names the agent in the message)."""
    label = label or getattr(factory, "__name__", None) or str(factory)
    _check_options(label, factory, kwargs)
    params: Mapping[str, inspect.Parameter]
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
        raise AgentError(f"cannot build agent {label} with {kwargs}: {e}") from None


def agent_name(agent: Any) -> str:
    return getattr(agent, "name", None) or type(agent).__name__


def _importable_name(factory: Any) -> Optional[str]:
    """``file.py:Class`` or ``module:Class`` naming ``factory`` so that another process can
    import it; None when it only exists in this process (a notebook or an interactive
    session: joblib then sends it by value)."""
    module = sys.modules.get(getattr(factory, "__module__", None) or "")
    qualname = getattr(factory, "__qualname__", "")
    if module is None or not qualname or "<" in qualname:
        return None
    if module.__name__ == "__main__":      # a script or notebook: importing it elsewhere would rerun it
        return None
    if module.__name__.startswith(_FILE_MODULE_PREFIX):
        file = module.__file__          # (set: `_import_file` loaded it from a file)
        return None if file is None else f"{Path(file).resolve()}:{qualname}"
    return f"{module.__name__}:{qualname}"


def portable_spec(spec: AgentSpec) -> AgentSpec:
    """A spec a parallel worker can rebuild without this process's state: a name registered
    outside ddzlab (a user's file or notebook) or a class loaded from a file becomes
    ``file.py:Class`` / ``module:Class`` text (the worker imports it), or, for a factory that
    exists only here, the factory itself (sent by value); a file's relative path becomes
    absolute (workers may run in another folder). Other specs are returned as they are."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str):
        head = portable_spec(spec[0])
        return (head, spec[1]) if isinstance(head, str) else spec
    if isinstance(spec, str):
        ref = _spec_reference(spec)
        if ref is not None:
            target = ref[0]
            if _is_path(target):                        # a worker's folder may differ
                rest = spec.strip().partition(":")[2]
                return f"{Path(target).expanduser().resolve()}:{rest}"
            return spec
        name, opts = _named_spec(spec)
        factory = _REGISTRY.get(name)
        module = getattr(factory, "__module__", "") or ""
        if factory is None or module == "ddzlab" or module.startswith("ddzlab."):
            return spec
        where = _importable_name(factory)
        if where is None:
            return partial(factory, **opts) if opts else factory
        rest = spec.strip().partition(":")[2]
        return f"{where}:{rest}" if rest.strip() else where
    if _from_agent_file(spec):
        where = _importable_name(spec)
        if where is not None:
            return where
    return spec


def _from_agent_file(spec: object) -> bool:
    """Whether ``spec`` is a class or function defined in a file `_import_file` loaded."""
    module = getattr(spec, "__module__", "") or ""
    return (inspect.isclass(spec) or inspect.isfunction(spec)) and module.startswith(_FILE_MODULE_PREFIX)


def play_game(game: Game, agents: Sequence[Agent], max_redeals: int = 100,
              watch: Optional[Callable[[Game, int], None]] = None) -> Game:
    """Drive ``game`` to its end, asking ``agents[seat]`` for each bid and move.

    An agent's illegal answer raises (the game is unchanged). More than ``max_redeals``
    all-pass auctions in a row raise `AgentError` (agents that never bid). An agent that
    defines ``see_all_hands(game)`` (a cheater, e.g. ``mcts_cheat``) is shown the true
    game before each of its moves; other agents see only their `Observation`.
    ``watch(game, seat)``, when given, is called before each move of the card play is
    asked for: an observer that measures the game (the guess-accuracy study,
    `ddzlab.experiments.guessing`) without playing a second copy of this loop; it must not
    change the game.
    """
    if len(agents) != game.players:
        raise AgentError(f"{len(agents)} agents for a {game.players}-player game")
    observe = game.observation
    while game.phase is Phase.BIDDING:
        seat = game.to_act
        assert seat is not None                 # (a seat until the game is over)
        game.make_bid(int(agents[seat].bid(observe(seat))))
        if game.redeals > max_redeals:
            raise AgentError(f"{max_redeals} all-pass auctions in a row: the agents never bid")
    play = game.play
    while game.phase is Phase.PLAY:
        seat = game.to_act
        assert seat is not None
        if watch is not None:
            watch(game, seat)
        agent = agents[seat]
        cheat = getattr(agent, "see_all_hands", None)
        if cheat is not None:      # a cheating agent (the upper bound of a study) sees all hands
            cheat(game)
        play(agent.play(observe(seat)))
    return game


__all__ = ["Agent", "Evaluating", "last_evaluation", "AgentSpec", "AgentError", "AgentOptionError",
           "agent_options", "register_agent", "make_agent", "available_agents",
           "describe_agents", "class_reference", "portable_spec", "ENTRY_POINT_GROUP",
           "register_trainer", "available_trainers",
           "parse_spec", "agent_name", "play_game", "DEFAULT_PLAY_AGENT"]
