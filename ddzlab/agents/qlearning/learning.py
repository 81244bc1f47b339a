"""Acting and learning: ε-greedy choice (with du-guai's random ties or ddzlab's prior and
caution), du-guai's rewards, the update rules, and one seat's `Learner`."""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from .abstraction import FOLLOW_BAD, LEAD, LEAD_BAD, Decision
from .tables import QTables

#: du-guai's hyper-parameters and rewards
ALPHA, GAMMA, EPSILON = 0.5, 0.8, 0.1
STEP_REWARD, WIN_REWARD = -1.0, 40.0

TIES = ("random", "prior")
#: "standard" Q-learning, the "seed"'s variant, or "mc": every decision of a game moves
#: toward its discounted return (no bootstrapping, so no overestimation from max Q′)
RULES = ("standard", "seed", "mc")
#: "seed": −1 per decision, −1 − 0.1 n for a "bad" action, ±40 at the end;
#: "outcome": only the ±40 at the end (with γ = 1, Q estimates the chance of winning)
REWARDS = ("seed", "outcome")


def choose(q_row: np.ndarray, actions: Sequence[int], epsilon: float,
           rng: np.random.Generator, order: Optional[Sequence[int]] = None,
           counts: Optional[np.ndarray] = None, caution: float = 0.0,
           min_visits: int = 0) -> int:
    """ε-greedy: a uniform action with probability ε, else a best one. Ties go to a random
    one (du-guai's way) or, with ``order`` (a rank per action, ``tie="prior"``), to the
    lowest rank.

    With ``caution`` > 0 and the state's visit ``counts`` per action, an action is judged
    by its value less ``caution / √visits`` (a lower confidence bound; never-tried actions
    come last), so a value seen a few times cannot outbid one seen hundreds of times.
    With ``order``, ``counts`` and ``min_visits`` > 0 only the prior's first action and the
    actions tried at least ``min_visits`` times in this state are candidates.
    """
    if epsilon > 0 and rng.random() < epsilon:
        return actions[int(rng.random() * len(actions))]
    if len(actions) == 1:
        return actions[0]
    if min_visits > 0 and counts is not None and order is not None:
        first = min(actions, key=order.__getitem__)
        actions = [a for a in actions if a == first or counts[a] >= min_visits]
        if len(actions) == 1:
            return actions[0]
    vals = q_row[actions].tolist()
    if caution > 0 and counts is not None:
        ns = counts[actions].tolist()
        vals = [v - caution / n ** 0.5 if n else -math.inf for v, n in zip(vals, ns)]
    best = max(vals)
    top = [a for a, v in zip(actions, vals) if v == best]
    if len(top) == 1:
        return top[0]
    if order is not None:
        return min(top, key=order.__getitem__)
    return top[int(rng.random() * len(top))]


def bad_reward(table: int, action: int, n_actions: int) -> float:
    """du-guai's reward of one decision: −1, or −1 − 0.1 n for its "bad" actions."""
    bad = LEAD_BAD if table == LEAD else FOLLOW_BAD
    return STEP_REWARD - 0.1 * n_actions if action in bad else STEP_REWARD


def q_update(q: np.ndarray, state: int, action: int, reward: float, target_max: Optional[float],
             alpha: float = ALPHA, gamma: float = GAMMA, rule: str = "standard") -> None:
    """One update of ``q[state, action]``. ``target_max`` is max Q′ over the next decision's
    actions, or None at the end of the game (then Q += α(r − Q) under both rules).

    standard: Q += α(r + γ max Q′ − Q);  seed: Q += α(r + γ(max Q′ − Q)).
    """
    old = float(q[state, action])
    if target_max is None:
        new = old + alpha * (reward - old)
    elif rule == "standard":
        new = old + alpha * (reward + gamma * target_max - old)
    elif rule == "seed":
        new = old + alpha * (reward + gamma * (target_max - old))
    else:
        raise ValueError(f"update rule {rule!r}: with a next state use 'standard' or 'seed'")
    q[state, action] = new


class Learner:
    """One seat's learning state: the pending (table, state, action, reward) of its last
    decision, updated when it decides again or when the game ends. ``rewards`` picks the
    seed's shaped rewards or the outcome alone (`REWARDS`)."""

    __slots__ = ("tables", "alpha", "gamma", "epsilon", "rule", "rng", "pending", "prior",
                 "shaped", "episode", "caution", "average", "min_visits")

    def __init__(self, tables: QTables, rng: np.random.Generator, alpha: float = ALPHA,
                 gamma: float = GAMMA, epsilon: float = EPSILON, rule: str = "standard",
                 tie: str = "random", rewards: str = "seed", caution: float = 0.0,
                 average: bool = False, min_visits: int = 0) -> None:
        if rewards not in REWARDS:
            raise ValueError(f"rewards={rewards!r}: use 'seed' or 'outcome'")
        if rule not in RULES:
            raise ValueError(f"update rule {rule!r}: use one of {', '.join(RULES)}")
        if tie not in TIES:
            raise ValueError(f"tie={tie!r}: use 'random' or 'prior'")
        self.tables, self.rng = tables, rng
        self.alpha, self.gamma, self.epsilon, self.rule = alpha, gamma, epsilon, rule
        self.prior = tie == "prior"
        self.caution = float(caution)
        self.average = bool(average)
        self.min_visits = int(min_visits)
        self.shaped = rewards == "seed"
        self.episode: list[tuple[int, int, int, float]] = []
        self.pending: Optional[tuple[int, int, int, float]] = None

    def act(self, d: Decision) -> int:
        t = self.tables
        q = t.table(d.table)
        row = q[d.state]
        if self.pending is not None:
            if self.rule == "mc":
                self.episode.append(self.pending)
            else:
                pt, ps, pa, pr = self.pending
                q_update(t.table(pt), ps, pa, pr, float(row[d.actions].max()),
                         self._alpha(pt, ps, pa), self.gamma, self.rule)
        a = choose(row, d.actions, self.epsilon, self.rng, d.order if self.prior else None,
                   t.visits(d.table)[d.state], self.caution, self.min_visits)
        t.visits(d.table)[d.state, a] += 1
        r = bad_reward(d.table, a, len(d.actions)) if self.shaped else 0.0
        self.pending = (d.table, d.state, a, r)
        return a

    def _alpha(self, table: int, state: int, action: int) -> float:
        """α, or with ``average`` max(α, 1/visits): a running mean until 1/visits < α."""
        if not self.average:
            return self.alpha
        return max(self.alpha, 1.0 / max(1, int(self.tables.visits(table)[state, action])))

    def finish(self, won: bool) -> None:
        """The end of the game: the last decision (every decision, for ``rule="mc"``)
        moves toward the final reward (for "mc" the discounted return from it)."""
        if self.pending is None:
            return
        final = WIN_REWARD if won else -WIN_REWARD
        if self.rule == "mc":
            ret = final
            for pt, ps, pa, pr in reversed(self.episode):
                ret = pr + self.gamma * ret
                q_update(self.tables.table(pt), ps, pa, ret, None, self._alpha(pt, ps, pa))
            self.episode = []
        pt, ps, pa, _ = self.pending
        q_update(self.tables.table(pt), ps, pa, final, None, self._alpha(pt, ps, pa), self.gamma,
                 "standard" if self.rule == "mc" else self.rule)
        self.pending = None


