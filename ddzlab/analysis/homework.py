"""The homework assignment's own formulations, reproduced to compare with ddzlab's searches.

`homework_astar` is the homework's A* for the fewest plays: a state is the whole remaining
hand, one step is one legal play (`ddzlab.moves.legal_moves`), and the heuristic is
``h = ceil(cards / longest available move)`` (``"ceil"``) or 0 (``"zero"``, uniform-cost
search). It is admissible: every later play is a legal play of a sub-hand, hence of the
current hand, so it removes at most ``longest`` cards. ddzlab's `min_plays` searches a much
smaller space (the rank sweep); both must return the same number.

`homework_dfs` is the homework's depth-first search for the best score ln(Value)/ln(step),
with the pruning rule its author considered but "could not prove" (the report says he
could not show that the score decreases as plays are added, so he left it out):
``partial_bound=True`` cuts a branch as soon as the score of the plays made so far (two
or more) falls below the best complete score found. The rule is not valid — a later play
can raise the score (a solo, then a trio chain: ln 0 → ln 7 / ln 2) — and notebook 03
counts how often it loses the optimum. Without it the DFS is exhaustive and exact.

The homework's A* itself expands every legal play (``every_order=True``), so it reaches
each split in every order of its plays. By default both searches here expand only the plays
that hold a card of the hand's lowest rank (the canonical variant): every split has exactly
one such play, so each split is generated once, in one order, and the answer is unchanged.
Notebook 02 measures what each formulation costs.

Both have budgets: `homework_astar` gives up after ``max_expanded`` states
(default `HOMEWORK_MAX_EXPANDED`), `homework_dfs` after ``max_nodes`` (default
`HOMEWORK_MAX_NODES`), raising `BudgetExceeded`, a `SearchLimitError` (ValueError).

>>> homework_astar("33344455", "homework").plays
2
>>> r = homework_dfs("3334445566789")
>>> r.steps, r.value, round(r.score, 4)
(3, 11, 2.1827)
"""
from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Optional, TypedDict, Union

from ..cards import Hand, bits_size, lowest_rank
from ..moves import Move, legal_moves
from ..rules import HOMEWORK, Rules, get_rules
from ..errors import SearchLimitError
from ._core import hand_bits
from .score import homework_score, reward

HOMEWORK_HEURISTICS = ("zero", "ceil")
#: the default expansion budget of `homework_astar` (notebook 02's study uses its own)
HOMEWORK_MAX_EXPANDED = 500_000
#: the default node budget of `homework_dfs`
HOMEWORK_MAX_NODES = 1_000_000


class BudgetExceeded(SearchLimitError):
    """`homework_astar` or `homework_dfs` reached its budget before the answer (a study
    records the hand as unfinished, with the effort spent)."""

    def __init__(self, expanded: int, seconds: float, what: str = "expansions") -> None:
        super().__init__(f"no answer within {expanded:,} {what} ({seconds:.1f} s): the hand is "
                         "too large for this search's budget")
        self.expanded = expanded
        self.seconds = seconds


def _leads(bits: int, rules: Rules) -> list[Move]:
    """Legal plays of ``bits`` (no pass)."""
    return [m for m in legal_moves(Hand.from_bits(bits), rules) if not m.is_pass]


def ceil_heuristic(bits: int, rules: Union[Rules, str] = HOMEWORK) -> int:
    """The homework's h: ceil(cards / size of the longest legal play of the hand); 0 for
    an empty hand. Never above the fewest plays (see the module docstring)."""
    if not bits:
        return 0
    rules = get_rules(rules)
    longest = max(m.size for m in _leads(bits, rules))
    return -(-bits_size(bits) // longest)


@dataclass
class HomeworkPlays:
    """Fewest plays found by the homework's A*, and its effort."""
    plays: int
    moves: list[Move]
    expanded: int
    generated: int
    seconds: float
    root_h: int
    heuristic: str


def homework_astar(hand: Union[Hand, str], rules: Union[Rules, str] = HOMEWORK,
                   heuristic: str = "ceil", every_order: bool = False,
                   max_expanded: Optional[int] = HOMEWORK_MAX_EXPANDED) -> HomeworkPlays:
    """Fewest plays by A* over whole hands, one legal play per step (the homework's
    formulation). ``heuristic``: ``"ceil"`` or ``"zero"``. Raises ValueError on an
    unknown heuristic or a hand the rule set's deck cannot hold, and `BudgetExceeded`
    when ``max_expanded`` states have been expanded without reaching the goal."""
    if heuristic not in HOMEWORK_HEURISTICS:
        raise ValueError(f"heuristic must be one of {HOMEWORK_HEURISTICS}, not {heuristic!r}")
    rules = get_rules(rules)
    start_bits = hand_bits(hand, rules)
    t0 = time.perf_counter()
    h = (lambda b: ceil_heuristic(b, rules)) if heuristic == "ceil" else (lambda b: 0)
    root_h = h(start_bits)
    best_g = {start_bits: 0}
    parent: dict[int, tuple[int, Move]] = {}
    heap = [(root_h, 0, 0, start_bits)]
    tie = 0
    expanded = generated = 0
    closed: set[int] = set()
    while heap:
        _, _, g, bits = heapq.heappop(heap)   # entries hold -g; ties: first pushed first
        g = -g
        if bits in closed:
            continue
        if not bits:
            moves = []
            while bits != start_bits:
                bits, m = parent[bits]
                moves.append(m)
            return HomeworkPlays(g, moves[::-1], expanded, generated, time.perf_counter() - t0,
                                 root_h, heuristic)
        if max_expanded is not None and expanded >= max_expanded:
            raise BudgetExceeded(expanded, time.perf_counter() - t0)
        closed.add(bits)
        expanded += 1
        r = lowest_rank(bits)
        for m in _leads(bits, rules):
            if not every_order and not (m.cards >> (4 * r)) & 15:
                continue
            child = bits - m.cards
            generated += 1
            if child in closed or best_g.get(child, math.inf) <= g + 1:
                continue
            best_g[child] = g + 1
            parent[child] = (bits, m)
            tie += 1
            heapq.heappush(heap, (g + 1 + h(child), tie, -(g + 1), child))
    raise AssertionError("unreachable: every hand can be emptied")   # pragma: no cover


class _Best(TypedDict):
    """The best complete path of the DFS so far."""
    score: float
    value: int
    moves: list[Move]


@dataclass
class HomeworkScore:
    """Best score found by the homework's DFS, and its effort."""
    score: float
    value: int
    steps: int
    moves: list[Move]
    nodes: int
    pruned: int
    seconds: float
    extra: dict = field(default_factory=dict)


def homework_dfs(hand: Union[Hand, str], rules: Union[Rules, str] = HOMEWORK,
                 partial_bound: bool = False, max_nodes: int = HOMEWORK_MAX_NODES) -> HomeworkScore:
    """Best homework score by depth-first search over whole hands, plays of higher reward
    first. ``partial_bound=True`` adds the homework author's unproven cut (a partial split
    of two or more plays scoring below the best complete one is abandoned): faster, and
    sometimes wrong. Raises `BudgetExceeded` after ``max_nodes`` nodes."""
    rules = get_rules(rules)
    bits0 = hand_bits(hand, rules)
    t0 = time.perf_counter()
    best: _Best = {"score": -math.inf, "value": 0, "moves": []}
    stats = {"nodes": 0, "pruned": 0}
    path: list[Move] = []

    def dfs(bits: int, value: int) -> None:
        stats["nodes"] += 1
        if stats["nodes"] > max_nodes:
            raise BudgetExceeded(max_nodes, time.perf_counter() - t0, "nodes")
        k = len(path)
        if not bits:
            s = homework_score(value, k)
            if s > best["score"] or not best["moves"]:
                best["score"], best["value"], best["moves"] = s, value, list(path)
            return
        if partial_bound and k >= 2 and best["moves"] and homework_score(value, k) < best["score"]:
            stats["pruned"] += 1
            return
        r = lowest_rank(bits)
        options = [m for m in _leads(bits, rules) if (m.cards >> (4 * r)) & 15]
        options.sort(key=lambda m: (-reward(m.kind), -m.size, m.cards))
        for m in options:
            path.append(m)
            dfs(bits - m.cards, value + reward(m.kind))
            path.pop()

    if bits0:
        dfs(bits0, 0)
    return HomeworkScore(best["score"], best["value"], len(best["moves"]), best["moves"],
                         stats["nodes"], stats["pruned"], time.perf_counter() - t0)


__all__ = ["BudgetExceeded", "homework_astar", "homework_dfs", "ceil_heuristic", "HomeworkPlays", "HomeworkScore",
           "HOMEWORK_HEURISTICS", "HOMEWORK_MAX_EXPANDED", "HOMEWORK_MAX_NODES"]
