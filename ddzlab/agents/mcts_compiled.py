"""The MCTS agents' compiled backend: their searches run by `ddzlab.search`'s kernels.

`ddzlab.agents.mcts` decides per decision which backend runs (`plan`) and calls `search`
here for ``numba``. The search is the agent's own, with the same components (guesser, move
filter, rollout, budget, exploration constant); only the loop is compiled. Its randomness
comes from numba's generator, seeded from the agent's generator once per decision, so a
seeded agent still plays reproducibly, though not the same moves as the Python backend
(the two draw differently; their strength is compared in benchmarks/README.md).

Importing this module imports numba: `ddzlab.agents.mcts` does so only when it runs.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from ..determinize import BombGuesser, NoisyOracleGuesser, UniformGuesser, check_position
from ..game import Game, Observation
from ..moves import Move
from ..moves.compiled import core_table, supports
from ..kernels import POLICIES as POLICY_CODES
from ..search import Tree, View, from_game, view_of
from ..search.policies import new_lead_memo
from ..search.sample import sample_world
from ..search.tree import FILTERS, ismcts, seed, uct
from ..search.weights import stand_in

if TYPE_CHECKING:
    from .mcts import _Search

#: the most iterations per kernel call under a time budget (the clock is read between calls)
CHUNK = 256
#: the untried-move pool a UCT tree starts with (it grows when needed)
POOL = 1 << 15


def plan(agent: "_Search", obs: Observation) -> Optional[str]:
    """Why this decision cannot run compiled (None: it can). Remembered per agent for its
    rules, rollout and guesser (the same objects from decision to decision)."""
    return _memo(agent, obs)[1]


def _memo(agent: "_Search", obs: Observation) -> tuple[tuple, Optional[str], Optional[tuple]]:
    """The agent's `core_plan` for ``obs``, made anew when its rules, rollout or guesser changed."""
    key = (obs.rules, agent.rollout, agent.guesser)
    memo = agent.core_plan
    if memo is None or any(a is not b for a, b in zip(memo[0], key)):
        memo = agent.core_plan = (key, _plan(agent, obs), None)
    return memo


def _kernel_inputs(agent: "_Search", obs: Observation) -> tuple:
    """(move table, policy number, epsilon, weights tables, weights parameters, greedy-lead
    memo) of the agent's search under ``obs``' rules (a decision `plan` found compiled); the
    tables and the memo (one per rules table, kept from decision to decision:
    `ddzlab.search.policies.new_lead_memo`) are kept with `plan`'s memo."""
    rules = obs.rules
    choice = _policy(agent)
    if choice is None:
        raise ValueError(f"the rollout of {agent.name} has no compiled twin (see `plan`)")
    policy, epsilon = choice
    key, why, tables = _memo(agent, obs)
    if tables is None or tables[0] is not rules:
        tables = (rules, core_table(rules), *_weights_tables(agent, rules), new_lead_memo())
        agent.core_plan = (key, why, tables)
    return tables[1], policy, epsilon, tables[2], tables[3], tables[4]


def _plan(agent: "_Search", obs: Observation) -> Optional[str]:
    if not supports(obs.rules):
        return f"the {obs.rules.name} rules have no compiled core (standard, mini, homework and wildcard have)"
    if _policy(agent) is None:
        return (f"the rollout {getattr(agent.rollout, 'name', type(agent.rollout).__name__)!r} has no compiled "
                "twin (random, halfsolo with over=10, greedy, weights have)")
    if obs.rules.wildcard is not None and agent.exact:
        return f"the exact endgame leaves are not compiled under the {obs.rules.name} rules"
    if agent.name != "mcts_cheat" and _guessing(agent) is None:
        return (f"the guesser {getattr(agent.guesser, 'name', type(agent.guesser).__name__)!r} has no compiled "
                "twin (uniform, bomb, the noisy oracle and pool guessers such as policy have)")
    return None


def _policy(agent: "_Search") -> Optional[tuple[int, float]]:
    """(policy number, epsilon) of the compiled twin the agent's rollout names (None: none)."""
    r = agent.rollout
    name = r.core_policy() if callable(getattr(r, "core_policy", None)) else None
    if name is None:
        return None
    return POLICY_CODES.code(name), float(getattr(r, "epsilon", 0.0))


def _weights_tables(agent: "_Search", rules) -> tuple:
    """(power tables, parameters) for the kernels: the weights rollout's, or (None, a small
    unused parameter array) for the other rollouts, so their kernels never compile the
    weights policy (`ddzlab.search.policies.policy_index`)."""
    from .mcts import WeightsRollout
    if type(agent.rollout) is WeightsRollout:
        _, pt, w = agent.rollout.core().tables(rules)
        return pt, w
    return stand_in(rules)


def _exact(agent: "_Search") -> Optional[int]:
    """The agent's ``exact`` for the kernels: None when 0 (never), so they never compile the
    endgame solver (`ddzlab.search.tree.uct`)."""
    return agent.exact or None


def _others(agent: "_Search") -> tuple[Optional[float], Optional[float]]:
    """The agent's ``follow`` and ``bias`` for the kernels: each None when 0 (off), so they
    never compile the opponents' modelled moves or the rollout policy's prior move
    (`ddzlab.search.tree.uct`)."""
    return agent.follow or None, agent.bias or None


def _guessing(agent: "_Search") -> Optional[str]:
    """How the core deals the agent's worlds: ``uniform``, ``bomb``, ``oracle`` or ``pool``
    (the guesser builds candidate deals, `ddzlab.search.sample`); None: it cannot."""
    g = agent.guesser
    for kind, cls in (("uniform", UniformGuesser), ("bomb", BombGuesser), ("oracle", NoisyOracleGuesser)):
        if type(g) is cls:
            return kind
    return "pool" if callable(getattr(g, "pool", None)) else None


def _view(agent: "_Search", obs: Observation) -> tuple[View, float]:
    """The decision's `View` and bomb probability for the agent's guesser (a pool guesser
    builds its candidate deals here, from the agent's generator as its ``guess`` would)."""
    g = agent.guesser
    if type(g) is BombGuesser:
        return view_of(obs, bombs=g.p > 0), float(g.p)
    if type(g) is NoisyOracleGuesser:
        return view_of(obs, oracle=(g.truth(obs), g.q)), 0.0
    pool = getattr(g, "pool", None)         # a pool guesser (`_guessing`)
    if callable(pool):
        return view_of(obs, pool=pool(obs, agent.rng)), 0.0
    return view_of(obs), 0.0


class _Budget:
    """The agent's budget as kernel calls: `next_chunk` says how many iterations to run next.

    Without a time limit, all of them at once. With one (``end``, on the agent's clock),
    first one iteration, then chunks of about an eighth of the time left at the rate seen
    so far (at most `CHUNK`), so the clock is read often enough near the end and rarely
    otherwise.
    """

    def __init__(self, agent: "_Search", cap: Optional[float], end: Optional[float]) -> None:
        self.cap = math.inf if cap is None else cap
        self.clock = agent.clock
        self.end = end
        self.start: Optional[tuple[float, int]] = None

    def next_chunk(self, done: int) -> int:
        left = self.cap - done
        if left <= 0:
            return 0
        if self.end is None:
            return int(left)
        now = self.clock()
        if now >= self.end:
            return 0
        if self.start is None:
            self.start = (now, done)
            return 1
        t0, d0 = self.start
        per = (now - t0) / max(done - d0, 1)
        chunk = CHUNK if per <= 0 else int((self.end - now) / per / 8)
        return int(max(1, min(left, chunk, CHUNK)))


def _tree(agent: "_Search", nodes: int, pool: int) -> Tree:
    """The agent's tree, emptied, with room for ``nodes`` nodes (kept from search to search:
    allocating a tree for every decision cost more than a late position's whole search)."""
    tree = agent.core_tree
    if tree is None or (pool and not len(tree.pool_cards)):
        tree = agent.core_tree = Tree(nodes, pool)
    else:
        tree.reset(nodes)
    return tree


def _stats(legal: Sequence[Move], rows: list[tuple[list[int], list[int], list[float]]]
           ) -> dict[Move, tuple[int, float]]:
    """{move: (visits, reward)} of the root's children of one tree or several (`Tree.root_stats`
    rows: indices into ``legal``), added up by move."""
    if len(rows) == 1:
        index, visits, reward = rows[0]
        return {legal[i]: (v, r) for i, v, r in zip(index, visits, reward)}
    stats: dict[Move, list] = {}
    for index, visits, reward in rows:
        for i, v, r in zip(index, visits, reward):
            st = stats.setdefault(legal[i], [0, 0.0])
            st[0] += v
            st[1] += r
    return {m: (v, r) for m, (v, r) in stats.items()}


def _run_uct(agent: "_Search", table, world: np.ndarray, budget: _Budget, done: int,
             policy: int, epsilon: float, pt, wp, leads) -> tuple[tuple[list[int], list[int], list[float]], int]:
    tree = _tree(agent, 512 if budget.cap == math.inf else Tree.nodes_for(int(budget.cap - done)), POOL)
    follow, bias = _others(agent)
    while True:
        todo = budget.next_chunk(done)
        if todo <= 0:
            break
        d, sims = uct(table, world, tree.ints, tree.reward, tree.pool_cards, tree.pool_meta, tree.used, todo,
                      agent.c, FILTERS[agent.moves], agent.width, policy, epsilon, pt, wp, follow,
                      _exact(agent), bias, leads)
        done += d
        agent.last_simulations += sims
        if d < todo:
            tree.grow()
    return tree.root_stats(table, world), done


def _end(agent: "_Search") -> Optional[float]:
    return None if agent.seconds is None else agent.clock() + agent.seconds


def search(agent: "_Search", obs: Observation, game: Optional[Game], iterations: Optional[int]
           ) -> dict[Move, tuple[int, float]]:
    """The agent's search of ``obs`` on the compiled core, at most ``iterations`` (None: the
    time budget alone): {move: (visits, reward)} of the root's children (``game``: the true
    game, for the cheater)."""
    table, policy, epsilon, pt, wp, leads = _kernel_inputs(agent, obs)
    moves, width, c = FILTERS[agent.moves], agent.width, agent.c
    if agent.name == "mcts_cheat":
        if game is None:
            raise ValueError("the cheating search plays the true game: none was given")
        seed(int(agent.rng.integers(2**62)))
        root, done = _run_uct(agent, table, from_game(game), _Budget(agent, iterations, _end(agent)), 0,
                              policy, epsilon, pt, wp, leads)
        agent.last_iterations = done
        return _stats(obs.legal_moves, [root])
    # the kernels trust the view: a position that is no legal game (a 19-card landlord hand)
    # is refused first, as the Python backend's worlds refuse it
    check_position(obs)
    view, p = _view(agent, obs)
    seed(int(agent.rng.integers(2**62)))
    if agent.name == "ismcts":
        budget = _Budget(agent, iterations, _end(agent))
        tree = _tree(agent, 4096 if iterations is None else Tree.nodes_for(iterations), 0)
        follow, bias = _others(agent)
        done = 0
        while True:
            todo = budget.next_chunk(done)
            if todo <= 0:
                break
            d, sims = ismcts(table, *view, p, tree.ints, tree.reward, tree.used, todo, c, moves, width, policy,
                             epsilon, pt, wp, follow, _exact(agent), bias, agent.widen, leads)
            done += d
            agent.last_simulations += sims
            if d < todo:
                tree.grow()
        agent.last_iterations = done
        return _stats(obs.legal_moves, [tree.root_stats(table, view.template)])
    # determinized UCT: `worlds` deals, the budget shared equally, root visits added up
    from .mcts import MCTSAgent
    if not isinstance(agent, MCTSAgent):
        raise ValueError(f"no compiled search for the agent {agent.name!r}")
    rows: list[tuple[list[int], list[int], list[float]]] = []
    done, k = 0, agent.worlds
    start = agent.clock() if agent.seconds is not None else 0.0
    world = np.empty_like(view.template)
    for w in range(k):
        sample_world(*view, p, world)
        share = iterations * (w + 1) // k if iterations is not None else None
        budget = _Budget(agent, share, start + agent.seconds * (w + 1) / k if agent.seconds is not None else None)
        more, done = _run_uct(agent, table, world.copy(), budget, done, policy, epsilon, pt, wp, leads)
        rows.append(more)
    agent.last_iterations = done
    return _stats(obs.legal_moves, rows)


__all__ = ["plan", "search", "CHUNK"]
