"""The `weights` agent on the compiled core: its play as a kernel, and whole self-play games.

`WeightsAgent` plays at Python speed (about 0.2 ms a move in a game, a millisecond for a cold
first move; benchmarks/bench_weights_compiled.py, bench_weights.py). `WeightsCore` runs the
same play compiled (`ddzlab.search.weights`): the same hand power, rules, tie-breaks and
float sums, move for move equal (tests/compiled_check.py, tests/agents/test_weights_compiled.py).
It is what the ``weights`` rollout of the MCTS agents (``ismcts:rollout=weights``) and the
simulation labels of `ddzlab.labels` (``agent="weights"``) run on.

It covers every rule set the compiled core plays (`ddzlab.moves.compiled.supports`: standard,
mini, homework, wildcard), any `RuleWeights`, any ``off`` ablation and any `PowerConstants`;
other rule sets raise `WeightsError` (use `WeightsAgent`). Under the wildcard rules the core
lists a hand's moves in its own order (docs/core.md), and ties go to the first in that order:
the play equals `WeightsAgent`'s run on the core's lists (its legal moves and the plays of its
hand power), which is how the checks compare them. Bidding is not compiled (`WeightsAgent.bid`).
Importing this module imports numba.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, Union

import numpy as np

from ..analysis.power import SEED_POWER, PowerConstants
from ..game import Game, Observation
from ..moves import Move
from ..moves.compiled import MAX_MOVES, SCRATCH, core_table, decode, encode, supports
from ..rules import Rules
from ..search import from_game, view_of
from ..search.power import PowerTables, context
from ..search.state import S_WINNER, legal, scores
from ..kernels import PARAMS, WEIGHTS_RULES
from ..search.weights import N_PARAMS, choose_weights, play_out
from .weights import RuleWeights, WeightsError, load_weights, parse_off

#: room for every action of a game (each play is followed by at most two passes)
MAX_ACTIONS = 1024


def params(weights: RuleWeights, off: frozenset[str] = frozenset()) -> np.ndarray:
    """The kernel's parameter array of ``weights`` with the rules ``off`` switched off."""
    w = weights
    values = {"follow_threshold": w.follow_threshold, "high_cost": w.high_cost, "early_cards": w.early_cards,
              "partner_out": w.partner_out, "partner_gain": w.partner_gain, "partner_max_rank": w.partner_max_rank,
              "gate_lo": w.gate_ranks[0], "gate_hi": w.gate_ranks[1], "gate_below": w.gate_below,
              "urgent_cards": w.urgent_cards, "bomb_threat": w.bomb_threat, "bomb_rest_plays": w.bomb_rest_plays,
              "off": WEIGHTS_RULES.mask(off)}
    p = np.zeros(N_PARAMS, dtype=np.float64)
    for name, value in values.items():
        p[PARAMS.offset(name)] = value
    return p


class WeightsCore:
    """`WeightsAgent`'s play (``weights``, ``off``, ``power`` as there) on the compiled core.

    ``tables(rules)`` gives the kernel's inputs: the core table, the power tables (with this
    object's memo of hand powers: keep one `WeightsCore` per worker) and the parameters.
    """

    def __init__(self, weights: Union[RuleWeights, str, Path, None] = None,
                 off: Union[str, Iterable[str], None] = None, power: PowerConstants = SEED_POWER) -> None:
        self.weights = weights if isinstance(weights, RuleWeights) else load_weights(weights)
        self.off = parse_off(off)
        self.power_constants = power
        self.params = params(self.weights, self.off)
        self._tables: dict[Rules, tuple[np.ndarray, PowerTables]] = {}

    def tables(self, rules: Rules) -> tuple[np.ndarray, PowerTables, np.ndarray]:
        """(core table, power tables, parameters) for ``rules``; `WeightsError` for a rule set
        the compiled core does not play."""
        got = self._tables.get(rules)
        if got is None:
            if not supports(rules):
                raise WeightsError(f"the compiled weights play covers the rule sets of the compiled core "
                                   f"(standard, mini, homework, wildcard), not {rules.name}: use WeightsAgent")
            got = self._tables[rules] = (core_table(rules), context(rules, self.power_constants))
        return (*got, self.params)

    def play(self, obs: Observation) -> Move:
        """The move `WeightsAgent.play` chooses in ``obs`` (the seat to act's observation)."""
        if not obs.legal_moves:
            raise WeightsError(f"seat {obs.seat} has no legal move to choose (not its turn?)")
        t, pt, w = self.tables(obs.rules)
        st = view_of(obs).template
        oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
        n = legal(t, st, oc, om, np.empty(SCRATCH, dtype=np.int64))
        i = choose_weights(t, pt, w, st, oc, om, n)
        if obs.rules.wildcard is not None:      # the core's list is in its own order
            return decode(int(oc[i]), int(om[i]))
        return obs.legal_moves[i]

    def play_out(self, game: Game) -> Game:
        """Play ``game`` (in its card play) to the end with this agent in every seat; returns it,
        finished, with every move pushed (so its record is the Python agents' record)."""
        t, pt, w = self.tables(game.rules)
        st = from_game(game)
        moves = np.empty((MAX_ACTIONS, 2), dtype=np.int64)
        k = play_out(t, pt, w, st, moves)
        for cards, meta in moves[:k].tolist():
            game.push(next(m for m in game.legal_moves() if encode(m) == (cards, meta)))
        return game

    def result(self, game: Game) -> tuple[int, tuple[int, ...]]:
        """(winner, scores) of ``game`` played to the end by this agent in every seat, without
        building the moves in Python (``game`` itself is not changed): the fast path of
        `ddzlab.labels`."""
        t, pt, w = self.tables(game.rules)
        st = from_game(game)
        out = np.zeros(3, dtype=np.int64)
        play_out(t, pt, w, st, np.empty((MAX_ACTIONS, 2), dtype=np.int64))
        scores(st, out)
        return int(st[S_WINNER]), tuple(int(x) for x in out[:game.players])


__all__ = ["WeightsCore", "params"]
