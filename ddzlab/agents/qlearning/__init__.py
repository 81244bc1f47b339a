"""`QLearningAgent`: du-guai's tabular Q-learning player (docs/definitions.md#q-learning-player).

Two Q-tables over abstracted states and actions, as du-guai defines them:

* **lead** (the seat leads a trick): 12 features → 1,244,160 states × 17 actions;
* **follow** (the seat answers a move): 6 features → 20,736 states × 9 actions.

The abstraction rests on the greedy split (`ddzlab.analysis.greedy`): the cards below the 2
are cut into *segments* of consecutive ranks (du-guai's "连续的状态"); in each segment the
plays without kickers whose Q(S, a) is the segment's best are the hand's *good plays*, sorted
by rank into solos, pairs, trios, bombs, solo chains of five and other chains; 2s and jokers
join the list of their size (a lone 2 is a solo, 22 a pair ...; both jokers are the rocket).
A concrete move's split cost ``delta`` is the Q it loses against the best of every segment
it touches, plus 1 per 2 and 2 per joker it spends (du-guai's weights for high cards).

Lead actions (du-guai's table): 0 force the lowest card, 1–3 small/middle/large good solo,
4 force the highest card, 5–7 small/middle/large good pair, 8–9 small/large trio (with the
kickers of least ``delta``), 10–11 small/large bomb, 12 rocket, 13–14 small/large chain of
five, 15 another chain or plane, 16 four with two. Actions 0 and 4 are offered only to a
farmer in du-guai's situations (an opponent or the partner down to one card).

Follow actions: 0 pass, 1–4 the smallest/smaller/larger/largest reply of least ``delta``,
5 the highest reply whatever it breaks, 6 smallest bomb, 7 largest bomb, 8 rocket.

Every abstract action resolves to one of the legal moves ddzlab's generator lists
(`ddzlab.moves`): nothing here enumerates combinations.

Acting is ε-greedy on the table of the situation (ties broken at random). Learning
(`Learner`) uses du-guai's rewards: −1 per decision, −1 − 0.1 × (number of offered
actions) for its "bad" actions (lead 0, 4, 10, 11, 12; follow 0, 5, 6, 7, 8), ±40 at the
end, with α = 0.5, γ = 0.8, ε = 0.1 and tables starting at 0. The update is standard
Q-learning, ``Q += α(r + γ max Q′ − Q)``; ``rule="seed"`` gives du-guai's
``Q += α(r + γ(max Q′ − Q))``. The role feature is the seat's own (du-guai computed it
from seat −1; ``role_bug=True`` reproduces that).

``make_agent("qlearning")`` loads the table shipped in ``data/qlearning/`` (see
`DEFAULT_TABLE`); ``make_agent("qlearning:path=FILE")`` another one, and
``make_agent("qlearning:checkpoint=split_random-s0-10000")`` a table of notebook 04's
checkpoint study (`ddzlab.qstudy`). Tables loaded from files are played from their sparse
stored form (`SparseTables`).
``make_agent("qlearning_prior")`` is the untrained player: the same abstraction with the
ordered default alone (`QPriorAgent`, what an empty table with ``tie="prior"`` plays), the
baseline any trained table has to beat.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

from ...deals import SeedLike, as_rng
from ...game import Observation
from ...moves import Move
from ..base import AgentError, register_agent
from ..smallest import SmallestAgent
from .abstraction import (FOLLOW, FOLLOW_BAD, FOLLOW_NAMES, FOLLOW_PRIOR, LEAD, LEAD_BAD,
                          LEAD_NAMES, LEAD_PRIOR, N_FOLLOW_ACTIONS, N_FOLLOW_FEATURES,
                          N_FOLLOW_STATES, N_LEAD_ACTIONS, N_LEAD_FEATURES, N_LEAD_STATES,
                          PARTNER_PRIOR, Decision, FollowSplit, LeadSplit, decide, decide_obs,
                          follow_features, follow_index, follow_split, hand_to_state,
                          lead_actions, lead_features, lead_index, lead_split, move_delta,
                          resolve_follow, resolve_lead, segment_best, segments)
from .learning import (ALPHA, EPSILON, GAMMA, REWARDS, RULES, STEP_REWARD, TIES, WIN_REWARD,
                       Learner, bad_reward, choose, q_update)
from .tables import (CHECKPOINT_DIR, DEFAULT_TABLE, FORMAT_TAG, FORMAT_VERSION, TRAIN_COMMAND, QTables,
                     SparseTables, checkpoint_file, load_tables)

# -- agents ---------------------------------------------------------------------------
@register_agent("qlearning")
class QLearningAgent(SmallestAgent):
    """Plays the best action of a trained Q-table (ε-greedy if ``epsilon`` > 0).

    ``tables``: a `QTables` or `SparseTables`, or None to load ``path`` (default
    `DEFAULT_TABLE`) or the study checkpoint named ``checkpoint`` (`checkpoint_file`). ``tie``
    and ``role_bug`` default to the settings the table was trained with. Bidding is
    `SmallestAgent`'s: it is a play agent (du-guai's protocol bids with du-guai's SVM).
    """

    name = "qlearning"

    def __init__(self, tables: Union[QTables, SparseTables, None] = None,
                 path: Union[str, Path, None] = None, epsilon: float = 0.0,
                 seed: SeedLike = None, tie: Optional[str] = None,
                 role_bug: Optional[bool] = None, caution: Optional[float] = None,
                 min_visits: Optional[int] = None, checkpoint: Optional[str] = None) -> None:
        if checkpoint is not None:
            if tables is not None or path is not None:
                raise AgentError("qlearning: give one of tables, path and checkpoint, not several")
            path = checkpoint_file(checkpoint)
        self.tables = tables if tables is not None else load_tables(path)
        trained = self.tables.meta.get("config", {})
        self.epsilon = float(epsilon)
        self.rng = as_rng(seed)
        self.tie = tie if tie is not None else trained.get("tie", "random")
        if self.tie not in TIES:
            raise AgentError(f"qlearning: tie={self.tie!r}: use 'random' or 'prior'")
        self.role_bug = bool(role_bug if role_bug is not None else trained.get("role_bug", False))
        self.caution = float(caution if caution is not None else trained.get("caution", 0.0))
        self.min_visits = int(min_visits if min_visits is not None
                              else trained.get("min_visits", 0))

    last_eval: Optional[dict] = None

    def bid(self, obs: Observation) -> int:
        self.last_eval = None
        return super().bid(obs)

    def play(self, obs: Observation) -> Move:
        d = decide_obs(obs, self.role_bug)
        row, visits = self.tables.table(d.table)[d.state], self.tables.visits(d.table)[d.state]
        a = choose(row, d.actions, self.epsilon, self.rng, d.order if self.tie == "prior" else None,
                   visits, self.caution, self.min_visits)
        names = LEAD_NAMES if d.table == LEAD else FOLLOW_NAMES
        ranked = sorted(d.actions, key=lambda b: -float(row[b]))
        self.last_eval = {"action": names[a], "visits": int(visits[a]),
                          "q": {names[b]: round(float(row[b]), 3) for b in ranked}}
        return d.move(a)


@register_agent("qlearning_prior")
class QPriorAgent(SmallestAgent):
    """The untrained Q-learning player: in every situation the first offered action in the
    tie-break prior (`LEAD_PRIOR`, `FOLLOW_PRIOR`, `PARTNER_PRIOR`). It plays exactly as
    `QLearningAgent` over an empty table with ``tie="prior"`` (every value equal, so the
    prior decides), without allocating the tables. Deterministic: ``seed`` is accepted and
    unused."""

    name = "qlearning_prior"

    def __init__(self, seed: SeedLike = None) -> None:
        pass

    def play(self, obs: Observation) -> Move:
        d = decide_obs(obs)
        order = d.order
        return d.move(min(d.actions, key=order.__getitem__))


@register_agent("split_random")
class SplitRandomAgent(SmallestAgent):
    """du-guai's random player: uniform among the Q-learning agent's offered actions (so
    among the greedy split's candidate moves), each resolved like `QLearningAgent`'s."""

    name = "split_random"

    def __init__(self, seed: SeedLike = None) -> None:
        self.rng = as_rng(seed)

    def play(self, obs: Observation) -> Move:
        d = decide_obs(obs)
        a = d.actions[int(self.rng.random() * len(d.actions))]
        names = LEAD_NAMES if d.table == LEAD else FOLLOW_NAMES
        self.last_eval = {"rule": "uniform among the offered actions", "action": names[a],
                          "choices": len(d.actions)}
        return d.move(a)



__all__ = ["QLearningAgent", "QPriorAgent", "SplitRandomAgent", "QTables", "Learner", "Decision", "LeadSplit",
           "FollowSplit", "decide", "decide_obs", "lead_split", "lead_features", "lead_actions",
           "lead_index", "resolve_lead", "follow_split", "follow_features", "follow_index",
           "resolve_follow", "hand_to_state", "segments", "segment_best", "move_delta", "choose",
           "q_update", "bad_reward", "load_tables", "SparseTables", "checkpoint_file", "LEAD", "FOLLOW", "ALPHA", "GAMMA", "EPSILON",
           "STEP_REWARD", "WIN_REWARD", "TIES", "RULES", "REWARDS", "LEAD_BAD", "FOLLOW_BAD",
           "LEAD_PRIOR", "FOLLOW_PRIOR", "PARTNER_PRIOR", "DEFAULT_TABLE", "CHECKPOINT_DIR", "TRAIN_COMMAND",
           "FORMAT_TAG", "FORMAT_VERSION", "N_LEAD_FEATURES", "N_FOLLOW_FEATURES",
           "N_LEAD_STATES", "N_FOLLOW_STATES", "N_LEAD_ACTIONS", "N_FOLLOW_ACTIONS", "LEAD_NAMES",
           "FOLLOW_NAMES"]
