"""Monte Carlo tree search with card guessing: determinized UCT, SO-ISMCTS and a cheater.

The seat to act cannot see the other hands, so every search plays in *worlds*: full games
sampled from its `Observation` by a `ddzlab.determinize` guesser.

* `MCTSAgent` (``mcts``): determinized UCT (Whitehouse, Powley & Cowling 2011, listed
  in docs/rules.md#sources). It samples ``worlds`` deals, runs plain UCT in each with an equal share of the
  iterations, and adds the root visits of every move over the worlds; the most visited
  move is played.
* `ISMCTSAgent` (``ismcts``): single-observer information-set MCTS. One tree whose nodes
  are move sequences; every iteration samples a fresh world, descends only through moves
  legal in it, and scores a child by UCB with its *availability* count instead of the
  parent's visits.
* `CheatingMCTSAgent` (``mcts_cheat``): UCT on the true deal, the upper bound of guessing.
  An `Observation` holds no other hands, so the play loop (`ddzlab.agents.base.play_game`)
  hands the true game to any agent that defines ``see_all_hands(game)`` right before
  asking it to play. Only cheaters define it; the agent protocol is unchanged.

Pluggable parts (strings, so a CLI spec works: ``mcts:rollout=greedy,guesser=bomb``):

* ``guesser``: ``uniform``, ``bomb`` (the seed's "nobody splits a bomb"), ``policy``
  (importance resampling of the opponents' plays under the greedy agent, 16 candidate
  deals; ``policy64``, ``policy256``: more candidates; the partner's plays are not scored,
  `ddzlab.determinize.PolicyGuesser` says why), ``mcmc`` (the same posterior sampled by
  Metropolis chains on the compiled core, 64 samples; ``mcmcN``: N samples;
  `ddzlab.search.likelihood.PosteriorGuesser`), ``oracleQ`` (e.g. ``oracle0.85``: the
  study's noisy oracle, each hidden card right with probability Q; it sees the true deal
  through ``see_all_hands``, so it is a yardstick, not a fair agent) or any `Guesser`;
* ``moves`` (the tree's move filter): ``all``, or ``split``: the ``width`` legal moves
  with the best greedy-split Q (`ddzlab.analysis.greedy.q_value`, the seed's pruning: it
  also penalises breaking a bomb), plus every move that empties the hand, plus pass;
  ``split+policy``: those and the move the rollout policy (greedy or weights) plays there
  without exploration, the *prior* (in weights self-play the split filter drops the
  `weights` agent's own move at 30% of the positions it filters, nearly all of them leads;
  notebook 05, F5b);
* ``rollout``: ``random``; ``halfsolo`` (the seed's: with more than ``over`` = 10 legal
  moves, half the solos, chosen at random, are dropped first); ``greedy`` (the greedy
  agent's choice, `greedy_choice`, with probability ``1 - epsilon``, else random);
  ``weights`` (the `weights` agent's play, `ddzlab.agents.weights.WeightsAgent`, each seat
  on its own observation of the world, with probability ``1 - epsilon``, else random;
  compiled: `ddzlab.agents.weights_compiled`);
* ``others`` (how the tree picks the opponents' moves): ``search`` (the default: by the same
  UCB rule as the searcher's own, so a deep tree plays against opponents who see the world's
  every card and play perfectly) or ``policy`` (drawn from the rollout policy, with its
  epsilon: the tree is a best response to opponents who play like it; the partner is still
  searched), or a number p strictly between 0 and 1 (each time the tree passes an opponent's
  node, its move is drawn from the policy with probability p, else chosen by UCB: opponents
  who mostly play like the policy but may find the best reply). The old default made the
  all-seeing player worse with more iterations (docs/search.md, notebook 09);
* ``exact``: the most cards left in all (0, the default: never) at which a leaf is decided by
  the exact open-hand endgame solver instead of a rollout, when it answers within
  `ddzlab.analysis.endgame.LEAF_NODES` positions. A win for the searcher's side is a win
  against any opponents; a loss is used only when the tree models the opponents as perfect
  (``others=search``), else the rollout decides (compiled: `ddzlab.search.endgame`);
* ``bias``: the progressive bias towards the rollout policy's own move (0, the default:
  none). At a node where the tree chooses by UCB, the child whose move the policy (greedy
  or weights) plays there without exploration, the *prior*, gets ``bias / (visits + 1)`` on
  top of its UCB value, and among the untried moves it is expanded first: a prior that
  steers the first visits and fades as the visits grow (docs/search.md, "Priors");
* ``widen`` (``ismcts`` only): progressive widening of the move filter (0, the default: the
  filter alone). At a node the descent has passed N times, the tree's moves are the
  filter's and the first ``floor(N ** widen)`` of the legal moves it left out, in legal
  order, so a node visited often comes to consider every move (docs/search.md, "Priors");
* budget: ``iterations`` (reproducible: same seed, same move) or ``seconds`` (either
  caps; both may be set). ``clock`` is the time source, replaceable in tests;
* ``backend``: ``numba`` (the default when numba imports) runs the search loop compiled
  (`ddzlab.search`, via `ddzlab.agents.mcts_compiled`), about 50-80x the iterations per
  second of ``python``, today's loops below. The compiled core plays the standard, mini,
  homework and wildcard rules with the uniform, bomb and oracle guessers, any *pool* guesser (one with a
  ``pool(obs, rng)`` method giving candidate deals and weights, as ``policy``: it builds
  the pool in Python once per decision, the kernel draws each world from it) and the four
  rollouts above (under wildcard the tie-breaks of the greedy and weights policies, in the
  rollouts and in the policy guessers' likelihoods, follow the core's move order, docs/core.md;
  the exact endgame leaves are not compiled there); a search it cannot play (a custom guesser
  without a pool, a custom rollout) runs on the Python backend and a warning says so once (``backend=numba`` asked explicitly
  raises instead). ``last_backend`` names the backend of the last search. Both backends
  search alike (same tree, same components) but draw different random numbers, so a
  seed gives the same move within a backend, not across them.

Defaults: uniform guesses, the split filter (width 8), greedy rollouts, 4 worlds for
``mcts``, and per move 8,000 iterations compiled (`COMPILED_ITERATIONS`), 200 on the
Python backend (`DEFAULT_ITERATIONS`, also when a search falls back to it): about the same
CPU time per move on both, since an iteration costs about 1/50 compiled (an ``ismcts``
decision on the standard rules: about 55 ms on average at 200 Python iterations, 0.12 s at
worst; 200 compiled iterations take under 1 ms; `benchmarks/bench_search.py`,
`benchmarks/bench_mcts.py`; a shared machine). On the Python backend the split filter and
the greedy rollout choice are memoised per agent (they depend only on the hand and the
move to beat). Debug mode: with `CHECK_MOVES` true (environment ``DDZLAB_CHECK_SEARCH=1``;
the test suite sets it) the Python loops play every move on a world through the checked
`Game.play` instead of `Game.push`, so a memo that returns a move illegal there (a key
missing the move to beat) raises `IllegalMoveError` instead of corrupting the world.
Against `rulev1`, 200 iterations beat 100 by +0.15 WP (paired, 95% CI ±0.12, 31 deals). Filters and rollouts only choose among `Game.legal_moves`; worlds
are played forward with `Game.copy` and the unchecked `Game.push`.

A rollout's reward is 1 for every seat of the winning side, 0 for the others; each node
keeps the reward of the seat that made its move. With one legal move the agent plays it
without searching (``last_iterations`` is then 0).
"""
from __future__ import annotations

import math
import numbers
import os
import random
import re
import time
import warnings
from typing import TYPE_CHECKING, Callable, ClassVar, Optional, Sequence, Union

import numpy as np


from ..analysis.endgame import LEAF_NODES, MAX_ENDGAME_CARDS, solve_endgame
from ..analysis.greedy import q_value
from ..cards import Hand
from ..deals import SeedLike, as_rng
from ..determinize import (BombGuesser, Guesser, NoisyOracleGuesser, PolicyGuesser, UniformGuesser,
                           determinize)
from ..errors import DdzError, SearchLimitError
from ..game import Game, Observation, Phase
from ..kernels import FILTERS
from ..moves import Move
from ..rules import Kind
from .base import register_agent
from .greedy import GreedyAgent, greedy_choice
from .smallest import SmallestAgent

if TYPE_CHECKING:
    from ..search import Tree
    from .weights import WeightsAgent
    from .weights_compiled import WeightsCore

#: iterations per move by default on the Python backend: a move stays under 0.25 s of CPU
#: (benchmarks/bench_mcts.py)
DEFAULT_ITERATIONS = 200
#: iterations per move by default on the compiled backend: about the CPU time per move of
#: `DEFAULT_ITERATIONS` on the Python backend (benchmarks/README.md)
COMPILED_ITERATIONS = 8000


#: the tree's move filters (the module docstring)
MOVE_FILTERS = FILTERS.names
#: how the tree picks the opponents' moves (the module docstring): the probability that an
#: opponent's move is drawn from the rollout policy; a number strictly between 0 and 1 mixes
OTHERS = {"search": 0.0, "policy": 1.0}


class MCTSConfigError(DdzError):
    """An unknown component name or an impossible budget."""


# -- components -----------------------------------------------------------------------------
_POLICY_NAME = re.compile(r"^policy(\d+)?$")
_ORACLE_NAME = re.compile(r"^oracle(0(\.\d+)?|1(\.0*)?)$")
_MCMC_NAME = re.compile(r"^mcmc(\d+)?$")
#: the MCMC guesser's chains per sample and steps (`ddzlab.search.likelihood.PosteriorGuesser`):
#: a chain per 4 samples, 200 steps of burn-in, a sample every 8 steps
MCMC_SETTINGS = {"per_chain": 4, "burn": 200, "thin": 8}


def make_guesser(spec: Union[str, Guesser, None]) -> Guesser:
    """A guesser from its name (``uniform``, ``bomb``, ``policy``/``policyN`` with N
    candidates, ``mcmc``/``mcmcN`` with N samples, ``oracleQ`` with 0 <= Q <= 1) or as given."""
    if spec is None or spec == "uniform":
        return UniformGuesser()
    if spec == "bomb":
        return BombGuesser()
    if isinstance(spec, str):
        policy, oracle, mcmc = _POLICY_NAME.match(spec), _ORACLE_NAME.match(spec), _MCMC_NAME.match(spec)
        if policy:
            n = int(policy.group(1) or 16)
            if n < 1:
                raise MCTSConfigError(f"guesser {spec!r}: need at least one candidate")
            return PolicyGuesser(GreedyAgent(), candidates=n, partner="skip", likelihoods=greedy_likelihoods)
        if oracle:
            return NoisyOracleGuesser(float(oracle.group(1)))
        if mcmc:
            n, per = int(mcmc.group(1) or 64), MCMC_SETTINGS["per_chain"]
            if n < per or n % per:
                raise MCTSConfigError(f"guesser {spec!r}: samples must be a positive multiple of {per}")
            if numba_error() is not None:
                raise MCTSConfigError(f"guesser {spec!r} runs on the compiled core: {numba_error()}")
            from ..search.likelihood import PosteriorGuesser
            return PosteriorGuesser(samples=n, chains=n // per, burn=MCMC_SETTINGS["burn"],
                                    thin=MCMC_SETTINGS["thin"])
        raise MCTSConfigError(f"unknown guesser {spec!r}: uniform, bomb, policy, policyN "
                              "(N candidates), mcmc, mcmcN (N samples) or oracleQ (0 <= Q <= 1)")
    return spec


def greedy_likelihoods(obs: Observation, deals: Sequence[dict[int, int]], scored: set[int],
                       eps: float) -> Optional[np.ndarray]:
    """`PolicyGuesser.log_likelihood` of the greedy agent for a pool of candidate deals on
    the compiled core (`ddzlab.search.likelihood`: the same numbers, about 100x faster);
    None where the core cannot (no numba, rules without a core): the Python replay runs."""
    if numba_error() is not None:
        return None
    from ..moves.compiled import supports
    if not supports(obs.rules):
        return None
    from ..search.likelihood import greedy_log_likelihoods
    return greedy_log_likelihoods(obs, deals, scored, eps)


def split_filter(game: Game, legal: list[Move], width: int) -> list[Move]:
    """The seed's pruning: the ``width`` best moves by greedy-split Q, every move that
    empties the hand, and pass (kept last)."""
    s = game.to_act
    assert s is not None                    # (a seat while the game is in play)
    hand = game.hands[s]
    plays = [m for m in legal if not m.is_pass]
    if len(plays) <= width:
        return legal
    best = sorted(plays, key=lambda m: -q_value(hand, m))[:width]
    keep = set(best)
    out = [m for m in plays if m in keep or m.cards == hand]
    if legal[-1].is_pass:
        out.append(legal[-1])
    return out


def _following_facts(game: Game) -> tuple[bool, bool, bool]:
    """(following, the move to beat is the partner's, its player holds ≤ 4 cards)."""
    last = game.last_seat
    if game.last_move is None:
        return False, False, False
    lord = game.landlord
    s = game.to_act
    partner = lord is not None and s != lord and last != lord
    assert last is not None                 # (the seat of the move to beat)
    return True, partner, game.sizes[last] <= 4


class Rollout:
    """A rollout policy: ``choose(game, legal, rng) -> Move``; a policy that has a move of
    its own (greedy, weights) also gives it without exploration: ``prior(game, legal)``."""

    name = "random"
    #: the compiled twin of this class's play: a name of `ddzlab.kernels.POLICIES` (None: none).
    #: Read from the class that declares it only (`core_policy`): a subclass that plays
    #: differently has no twin until it names one
    kernel: ClassVar[Optional[str]] = "random"

    def core_policy(self) -> Optional[str]:
        """The compiled twin of this rollout (`kernel`, if this object's own class declares it)."""
        return type(self).__dict__.get("kernel")

    def choose(self, game: Game, legal: list[Move], rng: random.Random) -> Move:
        return legal[int(rng.random() * len(legal))]

    def prior(self, game: Game, legal: list[Move]) -> Optional[Move]:
        """The policy's own move at ``game`` (None: a random policy has none)."""
        return None


class HalfSoloRollout(Rollout):
    """The seed's rollout: with more than ``over`` legal moves, drop half of the solos."""

    name = "halfsolo"
    kernel = "halfsolo"

    def __init__(self, over: int = 10) -> None:
        self.over = over

    def core_policy(self) -> Optional[str]:
        """The compiled twin plays the default threshold only (``over=10``, docs/search.md)."""
        return super().core_policy() if self.over == 10 else None

    def choose(self, game: Game, legal: list[Move], rng: random.Random) -> Move:
        n = len(legal)
        if n <= self.over:
            return legal[int(rng.random() * n)]
        solos = [m for m in legal if m.kind is Kind.SOLO]
        k = len(solos)
        if k < 2:
            return legal[int(rng.random() * n)]
        # dropping k // 2 random solos, then picking uniformly, gives each other move
        # 1 / (n - k // 2) and each solo the rest equally: draw that directly
        u = rng.random() * (n - k // 2)
        if u < n - k:
            others = [m for m in legal if m.kind is not Kind.SOLO]
            return others[int(u)]
        return solos[int(rng.random() * k)]


#: debug mode (module docstring): worlds are played forward through the checked `Game.play`
CHECK_MOVES = os.environ.get("DDZLAB_CHECK_SEARCH") == "1"


def _pusher() -> Callable[[Game, Move], object]:
    """How a search applies a move to a world: unchecked, or checked in debug mode."""
    return Game.play if CHECK_MOVES else Game.push


class GreedyRollout(Rollout):
    """The greedy agent's choice (`greedy_choice`), a random move with prob. ``epsilon``.

    The choice depends only on the hand, the move to beat and who played it, so it is
    memoised (rollouts of one search revisit the same hands often)."""

    name = "greedy"
    kernel = "greedy"

    def __init__(self, epsilon: float = 0.1, memo: int = 200_000) -> None:
        self.epsilon = epsilon
        self.memo = memo
        self._cache: dict[tuple, Move] = {}

    def choose(self, game: Game, legal: list[Move], rng: random.Random) -> Move:
        if rng.random() < self.epsilon:
            return legal[int(rng.random() * len(legal))]
        return self.prior(game, legal)

    def prior(self, game: Game, legal: list[Move]) -> Move:
        following, partner, threat = _following_facts(game)
        s = game.to_act
        assert s is not None
        hand = game.hands[s]
        last = game.last_move
        key = (hand, last, partner, threat)
        move = self._cache.get(key)
        if move is None:
            if len(self._cache) >= self.memo:
                self._cache.clear()
            move = self._cache[key] = greedy_choice(hand, legal, following, partner, threat)
        return move


class WeightsRollout(Rollout):
    """The `weights` agent's play (`WeightsAgent`, tuned weights), a random move with prob.
    ``epsilon``. The Python backend asks a `WeightsAgent` for every step (about a millisecond
    each); the compiled backend runs its twin, `ddzlab.agents.weights_compiled.WeightsCore`."""

    name = "weights"
    kernel = "weights"

    def __init__(self, epsilon: float = 0.1) -> None:
        self.epsilon = epsilon
        self._agent: Optional[WeightsAgent] = None
        self._core: Optional[WeightsCore] = None

    def choose(self, game: Game, legal: list[Move], rng: random.Random) -> Move:
        if rng.random() < self.epsilon:
            return legal[int(rng.random() * len(legal))]
        return self.prior(game, legal)

    def prior(self, game: Game, legal: list[Move]) -> Move:
        if self._agent is None:
            from .weights import WeightsAgent
            self._agent = WeightsAgent()
        s = game.to_act
        assert s is not None
        return self._agent.play(game.observation(s))

    def core(self) -> "WeightsCore":
        """The compiled twin (`WeightsCore`, with its memo of hand powers), built on first use."""
        if self._core is None:
            from .weights_compiled import WeightsCore
            self._core = WeightsCore()
        return self._core


def make_rollout(spec: Union[str, Rollout]) -> Rollout:
    """A rollout policy from its name (``random``, ``halfsolo``, ``greedy``, ``weights``:
    the module docstring) or as given; an unknown name raises `MCTSConfigError`."""
    if isinstance(spec, Rollout):
        return spec
    table = {"random": Rollout, "halfsolo": HalfSoloRollout, "greedy": GreedyRollout, "weights": WeightsRollout}
    if spec not in table:
        raise MCTSConfigError(f"unknown rollout {spec!r}: {', '.join(table)}")
    return table[spec]()


def side_won(game: "Game | _Decided", seat: int) -> bool:
    """Whether ``seat``'s side won the finished ``game``."""
    w = game.winner
    if game.landlord is None:
        return w == seat
    return (w == game.landlord) == (seat == game.landlord)


class _Decided:
    """A leaf decided by the exact endgame: the winner and landlord `side_won` reads."""

    __slots__ = ("winner", "landlord")

    def __init__(self, winner: int, landlord: Optional[int]) -> None:
        self.winner, self.landlord = winner, landlord


def _opponent(game: Game, seat: int) -> bool:
    """Whether the seat to act in ``game`` plays against ``seat`` (the other side)."""
    lord = game.landlord
    if lord is None:
        return game.to_act != seat
    return (game.to_act == lord) != (seat == lord)


def _whole(x: object) -> bool:
    """An integer that is not a bool (a budget or a count given as 1.5 or True is refused)."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_))


def _number(x: object) -> bool:
    """A real number that is not a bool (NaN fails the range checks that follow)."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


# -- backends -------------------------------------------------------------------------------
BACKENDS = ("numba", "python")
_NOTED: set[str] = set()


def _note_once(text: str) -> None:
    """Tell the user once per process which backend runs and why (a warning)."""
    if text not in _NOTED:
        _NOTED.add(text)
        warnings.warn(text, stacklevel=3)


def numba_error() -> Optional[str]:
    """Why the compiled core cannot run in this process (None: it can)."""
    try:
        import ddzlab.search  # noqa: F401  (imports numba)
    except ImportError as e:
        return f"numba does not import ({e})"
    return None


def resolve_backend(backend: Optional[str]) -> str:
    """The backend an agent asked for (None: numba when it imports, else python with a
    warning saying so)."""
    if backend is not None and backend not in BACKENDS:
        raise MCTSConfigError(f"unknown backend {backend!r}: numba or python")
    if backend == "python":
        return "python"
    why = numba_error()
    if why is None:
        return "numba"
    if backend == "numba":
        raise MCTSConfigError(f"backend=numba is not available: {why}; pip install numba, or use backend=python")
    _note_once(f"MCTS runs on the Python backend (about 50x slower per iteration): {why}; pip install numba")
    return "python"


def search_eval(stats: dict[Move, tuple[int, float]], iterations: int, top: int = 4) -> dict:
    """``last_eval`` of a search (`ddzlab.agents.base.Evaluating`): the iterations run and,
    for the ``top`` most visited root moves, [visits, share of those visits' games won]."""
    ranked = sorted(stats.items(), key=lambda kv: (-kv[1][0], -(kv[1][1] / kv[1][0] if kv[1][0] else 0.0)))
    return {"iterations": int(iterations),
            "top": {str(m): [int(v), round(r / v, 3) if v else 0.0] for m, (v, r) in ranked[:top]}}


# -- the tree -------------------------------------------------------------------------------
class Node:
    """One tree node: the move that led here, who made it, and its statistics."""

    __slots__ = ("move", "parent", "seat", "children", "untried", "visits", "reward", "avail")

    def __init__(self, move: Optional[Move], parent: Optional["Node"], seat: int) -> None:
        self.move = move
        self.parent = parent
        self.seat = seat                  # the seat that played ``move``
        self.children: dict[Move, Node] = {}
        self.untried: Optional[list[Move]] = None
        self.visits = 0
        self.reward = 0.0
        self.avail = 0

    def mean(self) -> float:
        return self.reward / self.visits if self.visits else 0.0


class _Search(SmallestAgent):
    """What the MCTS agents share: components, budget, rollouts and the decision rule."""

    name = "mcts"
    #: whether the tree recomputes a node's moves at every visit (ISMCTS), so it can widen them
    widens = False

    def __init__(self, iterations: Union[int, None, str] = "default",
                 seconds: Optional[float] = None, c: float = 0.7,
                 guesser: Union[str, Guesser, None] = "uniform", moves: str = "split",
                 width: int = 8, rollout: Union[str, Rollout] = "greedy",
                 seed: SeedLike = None, clock: Callable[[], float] = time.perf_counter,
                 backend: Optional[str] = None, others: Union[str, float] = "search", exact: int = 0,
                 bias: float = 0.0, widen: float = 0.0) -> None:
        self.default_iterations = isinstance(iterations, str) and iterations == "default"
        if self.default_iterations:
            iterations = DEFAULT_ITERATIONS
        if iterations is None and seconds is None:
            raise MCTSConfigError("give a budget: iterations, seconds or both")
        if iterations is not None and not (_whole(iterations) and int(iterations) >= 1):
            raise MCTSConfigError(f"iterations={iterations!r}: a whole number, at least 1")
        if seconds is not None and not (_number(seconds) and 0 < seconds < math.inf):
            raise MCTSConfigError(f"seconds={seconds!r}: must be a positive number")
        if not (_number(c) and 0 <= c < math.inf):
            raise MCTSConfigError(f"c={c!r}: the exploration constant is a number >= 0")
        if moves not in MOVE_FILTERS:
            raise MCTSConfigError(f"unknown move filter {moves!r}: {', '.join(MOVE_FILTERS)}")
        if not (isinstance(others, str) and others in OTHERS or _number(others) and 0 < float(others) < 1):
            raise MCTSConfigError(f"unknown others={others!r}: {', '.join(OTHERS)} or the probability "
                                  "(strictly between 0 and 1) of drawing an opponent's move from the policy")
        if not (_whole(exact) and 0 <= exact <= MAX_ENDGAME_CARDS):
            raise MCTSConfigError(f"exact={exact!r}: the most cards left in all for an exact endgame, a whole "
                                  f"number from 0 (never) to {MAX_ENDGAME_CARDS}")
        if not (_number(bias) and 0 <= bias < math.inf):
            raise MCTSConfigError(f"bias={bias!r}: the progressive bias is a number >= 0")
        if not (_number(widen) and 0 <= widen <= 1):
            raise MCTSConfigError(f"widen={widen!r}: the widening exponent is a number from 0 (none) to 1")
        if widen and not self.widens:
            raise MCTSConfigError(f"widen={widen!r}: {self.name} fixes a node's moves at its first visit; "
                                  "progressive widening needs ismcts")
        if widen and moves == "all":
            raise MCTSConfigError(f"widen={widen!r} widens a move filter: moves=all has none")
        if not (_whole(width) and width >= 1):       # 0 left a node without moves: the search hung
            raise MCTSConfigError(f"width={width!r}: the split filter keeps a whole number >= 1 of moves")
        #: the iteration cap (None: the time budget alone)
        self.iterations: Optional[int] = None if iterations is None else int(iterations)
        self.seconds, self.c = seconds, c
        self.guesser = make_guesser(guesser)
        see = getattr(self.guesser, "see", None)
        if see is not None:               # an oracle guesser is shown the true game
            self.see_all_hands = see
        self.moves, self.width, self.others = moves, width, others
        #: the probability that an opponent's move in the tree comes from the rollout policy
        self.follow = OTHERS[others] if isinstance(others, str) else float(others)
        self.exact = int(exact)
        self.bias = float(bias)
        self.widen = float(widen)
        self.rollout = make_rollout(rollout)
        for asked, what in ((moves == "split+policy", "moves=split+policy keeps"), (bias > 0, "bias favours")):
            if asked and type(self.rollout).prior is Rollout.prior:
                raise MCTSConfigError(f"{what} the rollout policy's own move: the rollout "
                                      f"{self.rollout.name!r} has none (greedy and weights have)")
        self.rng = as_rng(seed)            # numpy: for the guessers
        self.rand = random.Random(int(self.rng.integers(2**63)))   # fast draws in the tree
        self.clock = clock
        self._split_memo: dict[tuple, list[Move]] = {}
        self.last_iterations = 0          # iterations spent on the last decision
        self.last_simulations = 0         # rollout moves played on the last decision
        self.backend_asked = backend
        self.backend = resolve_backend(backend)
        self.last_backend: Optional[str] = None   # the backend that ran the last search
        self.core_tree: Optional[Tree] = None   # the compiled backend's tree arrays, reused (`mcts_compiled`)
        #: and its plan and kernel inputs, kept (`mcts_compiled.plan`): (rules, rollout, guesser), why it
        #: cannot run (None: it can), (rules, kernel inputs) once built
        self.core_plan: Optional[tuple[tuple, Optional[str], Optional[tuple]]] = None

    def _run_search(self, obs: Observation) -> dict[Move, tuple[int, float]]:
        """The search on this agent's backend: the compiled core when it can play this
        decision (`ddzlab.agents.mcts_compiled.plan`), else the Python loops."""
        if self.backend == "numba":
            from . import mcts_compiled
            why = mcts_compiled.plan(self, obs)
            if why is None:
                self.last_backend = "numba"
                game = self.true_game(obs) if isinstance(self, CheatingMCTSAgent) else None
                iterations = COMPILED_ITERATIONS if self.default_iterations else self.iterations
                return mcts_compiled.search(self, obs, game, iterations)
            if self.backend_asked == "numba":
                raise MCTSConfigError(f"backend=numba cannot run this search: {why}; use backend=python")
            _note_once(f"{self.name} runs on the Python backend here: {why}")
        self.last_backend = "python"
        return self._search(obs)

    # budget
    def _budget(self, share: float = 1.0) -> Callable[[int], bool]:
        """``more(done)``: whether another iteration fits the budget (``share`` of the
        seconds from now on, when there is a time budget)."""
        cap = self.iterations if self.iterations is not None else math.inf
        if self.seconds is None:
            return lambda done: done < cap
        end = self.clock() + self.seconds * share
        clock = self.clock
        return lambda done: done < cap and clock() < end

    def _legal(self, game: Game, extra: int = 0) -> list[Move]:
        """The tree's moves at ``game``: the filter's, then up to ``extra`` of those it left
        out, in legal order (``widen``)."""
        legal = game.legal_moves()
        if self.moves == "all" or len(legal) <= self.width:
            return legal
        # the split filter depends only on the hand and the move to beat: memoised per agent
        s = game.to_act
        assert s is not None
        key = (game.hands[s], game.last_move)
        kept = self._split_memo.get(key)
        if kept is None:
            if len(self._split_memo) >= 100_000:
                self._split_memo.clear()
            kept = self._split_memo[key] = split_filter(game, legal, self.width)
        if self.moves == "split+policy" and len(kept) < len(legal):
            prior = self.rollout.prior(game, legal)
            if prior is not None and prior not in kept:       # (a policy with a move: checked in __init__)
                kept = kept[:-1] + [prior, kept[-1]] if kept[-1].is_pass else kept + [prior]
        if extra:
            left_out = set(kept)
            kept = kept + [m for m in legal if m not in left_out][:extra]
        return kept

    def _prior(self, game: Game) -> Optional[Move]:
        """The rollout policy's own move at ``game`` when the tree has a ``bias``, else None."""
        return self.rollout.prior(game, game.legal_moves()) if self.bias else None

    def _rollout(self, game: Game) -> None:
        choose, rng, push = self.rollout.choose, self.rand, _pusher()
        n = 0
        while game.phase is Phase.PLAY:
            push(game, choose(game, game.legal_moves(), rng))
            n += 1
        self.last_simulations += n

    def _modelled_step(self, game: Game, node: Node) -> tuple[Node, bool]:
        """An opponent's move drawn from the rollout policy (``others=policy``), played on
        ``game``: (the node reached, whether it is new; a new node ends the descent)."""
        move = self.rollout.choose(game, game.legal_moves(), self.rand)
        seat = game.to_act
        assert seat is not None
        _pusher()(game, move)
        child = node.children.get(move)
        if child is not None:
            return child, False
        child = node.children[move] = Node(move, node, seat)
        return child, True

    def _settle(self, game: Game, me: int) -> Optional[_Decided]:
        """The leaf decided exactly (``exact``: `ddzlab.search.tree._settle`'s rule, with the
        Python solver): a finished stand-in game whose winner is the side that wins with
        perfect play, or None (too many cards, no answer within the budget, or a loss that
        only perfect opponents would inflict)."""
        if not self.exact or game.phase is not Phase.PLAY or sum(game.sizes) > self.exact:
            return None
        lord = 0 if game.landlord is None else game.landlord
        s = game.to_act
        assert s is not None
        try:
            r = solve_endgame([Hand.from_bits(b) for b in game.hands], rules=game.rules, to_move=s,
                              to_beat=game.last_move, last_seat=game.last_seat, landlord=lord,
                              max_nodes=LEAF_NODES)
        except SearchLimitError:
            return None
        mover_side = s if game.landlord is None else int(s != game.landlord)
        wins = r.winner == mover_side
        if wins == _opponent(game, me) and self.follow > 0.0:
            return None
        winner = s if wins else ((s + 1) % game.players if game.landlord is None or s == game.landlord
                                 else game.landlord)
        return _Decided(winner, game.landlord)

    @staticmethod
    def _backprop(node: Optional[Node], game: "Game | _Decided") -> None:
        while node is not None:
            node.visits += 1
            if node.parent is not None and side_won(game, node.seat):
                node.reward += 1.0
            node = node.parent

    _eval: Optional[dict] = None
    _eval_of: Optional[tuple[dict, int]] = None

    @property
    def last_eval(self) -> Optional[dict]:
        """`ddzlab.agents.base.Evaluating`: made from the last search's statistics when first
        read (`search_eval`), not after every search: most games never read it."""
        if self._eval_of is not None:
            self._eval, self._eval_of = search_eval(*self._eval_of), None
        return self._eval

    @last_eval.setter
    def last_eval(self, value: Optional[dict]) -> None:
        self._eval, self._eval_of = value, None

    def bid(self, obs: Observation) -> int:
        self.last_eval = None
        return super().bid(obs)

    def play(self, obs: Observation) -> Move:
        self.last_iterations = self.last_simulations = 0
        legal = obs.legal_moves
        if len(legal) == 1:
            self.last_eval = {"only": "one legal move"}
            return legal[0]
        stats = self._run_search(obs)
        best, key = legal[-1], (-1, -1.0)
        for m in legal:                   # most visits, then best mean; ties to legal order
            v, r = stats.get(m, (0, 0.0))
            k = (v, r / v if v else 0.0)
            if k > key:
                best, key = m, k
        self._eval_of = (stats, self.last_iterations)
        return best

    def _search(self, obs: Observation) -> dict[Move, tuple[int, float]]:
        raise NotImplementedError

    # one UCT tree on a fixed world (determinized UCT and the cheater)
    def _uct(self, world: Game, more: Callable[[int], bool], done: int) -> tuple[Node, int]:
        root = Node(None, None, -1)
        c = self.c
        rng, push = self.rand, _pusher()
        me, follow = world.to_act, self.follow
        assert me is not None
        while more(done):
            game = world.copy()
            node = root
            while True:                    # selection
                if follow and game.phase is Phase.PLAY and _opponent(game, me) and (
                        follow >= 1.0 or rng.random() < follow):
                    node, new = self._modelled_step(game, node)
                    if new:
                        break
                    continue
                if node.untried is None:
                    node.untried = list(self._legal(game)) if game.phase is Phase.PLAY else []
                if node.untried or not node.children:
                    break
                log_n = math.log(node.visits)
                prior = self._prior(game)
                node = max(node.children.values(),
                           key=lambda ch: ch.reward / ch.visits + c * math.sqrt(log_n / ch.visits)
                           + (self.bias / (ch.visits + 1) if ch.move == prior else 0.0))
                assert node.move is not None        # (every node but the root has its move)
                push(game, node.move)
            if node.untried:               # expansion (the policy's move first, with a bias)
                prior = self._prior(game)
                at = node.untried.index(prior) if prior in node.untried else int(rng.random() * len(node.untried))
                move = node.untried.pop(at)
                seat = game.to_act
                assert seat is not None
                push(game, move)
                child = node.children.get(move)            # a mixed tree may have drawn it already
                if child is None:
                    child = node.children[move] = Node(move, node, seat)
                node = child
            decided = self._settle(game, me)
            if decided is None:
                self._rollout(game)
            self._backprop(node, decided or game)
            done += 1
        return root, done


@register_agent("mcts")
class MCTSAgent(_Search):
    """Determinized UCT: ``worlds`` sampled deals, the iterations shared equally, root
    visits added by move over the worlds (see the module docstring)."""

    name = "mcts"

    def __init__(self, worlds: int = 4, **kwargs) -> None:
        super().__init__(**kwargs)
        if not (_whole(worlds) and worlds >= 1):
            raise MCTSConfigError(f"worlds={worlds!r}: a whole number, at least one")
        self.worlds = worlds

    def _search(self, obs: Observation) -> dict[Move, tuple[int, float]]:
        stats: dict[Move, list] = {}
        done, cap, k = 0, self.iterations, self.worlds
        start = self.clock()
        for w in range(k):
            world = determinize(obs, self.rng, self.guesser)
            # this world's share: of the iterations, and of the seconds
            share = cap * (w + 1) // k if cap is not None else math.inf
            end = start + self.seconds * (w + 1) / k if self.seconds is not None else math.inf
            clock = self.clock
            more = (lambda d, s=share, e=end: d < s and (e == math.inf or clock() < e))
            root, done = self._uct(world, more, done)
            for m, ch in root.children.items():
                st = stats.setdefault(m, [0, 0.0])
                st[0] += ch.visits
                st[1] += ch.reward
        self.last_iterations = done
        return {m: (v, r) for m, (v, r) in stats.items()}


@register_agent("ismcts")
class ISMCTSAgent(_Search):
    """Single-observer ISMCTS: one tree, a fresh world every iteration (module docstring)."""

    name = "ismcts"
    widens = True

    def _search(self, obs: Observation) -> dict[Move, tuple[int, float]]:
        root = Node(None, None, -1)
        more = self._budget()
        c, rng, push = self.c, self.rand, _pusher()
        follow = self.follow
        done = 0
        while more(done):
            game = determinize(obs, self.rng, self.guesser)
            node = root
            while game.phase is Phase.PLAY:
                if follow and _opponent(game, obs.seat) and (follow >= 1.0 or rng.random() < follow):
                    node, new = self._modelled_step(game, node)
                    if new:
                        break
                    continue
                legal = self._legal(game, int(node.visits ** self.widen) if self.widen else 0)
                children = node.children
                untried = [m for m in legal if m not in children]
                prior = self._prior(game)
                if untried:                                    # expansion (the policy's move first, with a bias)
                    move = prior if prior in untried else untried[int(rng.random() * len(untried))]
                    seat = game.to_act
                    assert seat is not None
                    push(game, move)
                    node = children[move] = Node(move, node, seat)
                    break
                kids = [children[m] for m in legal]
                for ch in kids:
                    ch.avail += 1
                node = max(kids, key=lambda ch: ch.reward / ch.visits
                           + c * math.sqrt(math.log(ch.avail) / ch.visits)
                           + (self.bias / (ch.visits + 1) if ch.move == prior else 0.0))
                assert node.move is not None        # (every node but the root has its move)
                push(game, node.move)
            decided = self._settle(game, obs.seat)
            if decided is None:
                self._rollout(game)
            self._backprop(node, decided or game)
            done += 1
        self.last_iterations = done
        return {m: (ch.visits, ch.reward) for m, ch in root.children.items()}


#: the options of `ismcts_weights` (the base of notebook 05's strongest search agent)
STRONG_OPTIONS = {"rollout": "weights", "iterations": 4000}


def strong_ismcts(**options) -> ISMCTSAgent:
    """ISMCTS whose rollouts play the `weights` agent (the base of the strongest, `ismcts_weights_prior`).

    The registered `ismcts` (uniform guesses, the split filter) with the `weights` agent as
    every seat's rollout policy instead of greedy, and 4,000 iterations a move: about 0.2 s
    of CPU a move on average on the compiled core, under 1 s on every move measured (a
    weights rollout costs about eight greedy ones; `benchmarks/bench_strongest.py`).
    Chosen on a small pilot against `weights` (deals apart from the evaluation's, not
    stored), too small to rank the candidates: it is no evidence that weights rollouts beat
    greedy ones. Options as `ismcts`; any option given overrides these. Its WP against `rulev1` and
    `weights` is the stored experiment `05_strongest` (notebook 05)."""
    return ISMCTSAgent(**{**STRONG_OPTIONS, **options})


register_agent("ismcts_weights")(strong_ismcts)    # a call: a mutation tool skips decorated functions

#: the options of `ismcts_weights_prior`: `ismcts_weights` with the weights prior in its tree
PRIOR_OPTIONS = {**STRONG_OPTIONS, "moves": "split+policy"}


def prior_ismcts(**options) -> ISMCTSAgent:
    """`ismcts_weights` whose tree also keeps the `weights` agent's own move (the base of `ismcts_modelled`).

    ``moves=split+policy``: at every node the split filter's moves and the move the weights
    agent plays there (the split filter alone drops it at 30% of the positions it filters).
    4,000 iterations a move, about 0.15 s of CPU a move on average, under 0.5 s on every move
    measured (`benchmarks/bench_strongest.py`). Tried as the one candidate against
    `ismcts_weights` on the held-out deals with a rule declared before it played (notebook 05,
    F5b), it gained there against `weights` and not against `rulev1`; its WP against both is
    the stored experiment `05_strongest` (label ``ismcts_weights_prior``). Options as `ismcts`;
    any option given overrides these."""
    return ISMCTSAgent(**{**PRIOR_OPTIONS, **options})


register_agent("ismcts_weights_prior")(prior_ismcts)

#: the options of `ismcts_modelled`: `ismcts_weights_prior` whose tree draws the opponents'
#: moves from its rollout policy (``others=policy``) instead of searching them
MODELLED_OPTIONS = {**PRIOR_OPTIONS, "others": "policy"}


def modelled_ismcts(**options) -> ISMCTSAgent:
    """`ismcts_weights_prior` with its opponents modelled as the `weights` policy: the strongest search agent.

    The tree searches the agent's own moves and its partner's, and draws each opponent's move
    from the weights rollout policy (``others=policy``), so its values are those of a best
    response to opponents who play like `weights`, not to opponents who see every card and
    search the same tree (docs/search.md, "Opponent models"). Chosen among three opponent
    models on development deals (stored experiment `09_strong_dev`) by a rule declared before
    they played; its WP against `rulev1` and `weights` on the held-out deals is the stored
    experiment `09_strongest` (notebook 09). CPU seconds a move: `benchmarks/bench_strongest.py`.
    Options as `ismcts`; any option given overrides these."""
    return ISMCTSAgent(**{**MODELLED_OPTIONS, **options})


register_agent("ismcts_modelled")(modelled_ismcts)


@register_agent("mcts_cheat")
class CheatingMCTSAgent(_Search):
    """UCT on the true deal: the upper bound of card guessing. It needs the play loop to
    call ``see_all_hands(game)`` before each move (`ddzlab.agents.base.play_game` does)."""

    name = "mcts_cheat"

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("guesser", None)
        super().__init__(**kwargs)
        self._game: Optional[Game] = None

    def see_all_hands(self, game: Game) -> None:
        """The hook: the true game this agent is about to move in (copied)."""
        self._game = game.copy()

    def true_game(self, obs: Observation) -> Game:
        """The game given by `see_all_hands`, checked to be at ``obs``'s point."""
        game = self._game
        if game is None or len(game.history) != len(obs.history) or game.to_act != obs.seat \
                or game.hands[obs.seat] != obs.hand.bits:
            raise MCTSConfigError("mcts_cheat needs see_all_hands(game) before each move: "
                                  "play it through ddzlab.agents.play_game")
        return game

    def _search(self, obs: Observation) -> dict[Move, tuple[int, float]]:
        root, done = self._uct(self.true_game(obs), self._budget(), 0)
        self.last_iterations = done
        return {m: (ch.visits, ch.reward) for m, ch in root.children.items()}


__all__ = ["MCTSAgent", "ISMCTSAgent", "CheatingMCTSAgent", "strong_ismcts", "STRONG_OPTIONS", "prior_ismcts",
           "PRIOR_OPTIONS", "modelled_ismcts", "MODELLED_OPTIONS", "Node", "Rollout",
           "HalfSoloRollout", "GreedyRollout", "WeightsRollout", "make_rollout", "make_guesser", "split_filter", "MOVE_FILTERS", "side_won",
           "MCTSConfigError", "DEFAULT_ITERATIONS", "COMPILED_ITERATIONS", "BACKENDS", "resolve_backend",
           "search_eval", "CHECK_MOVES"]
