"""Best homework score (Q2): exact depth-first search with memoisation and bounds.

The score ln(Value)/ln(step) is not additive, but for a fixed number of plays it only
grows with the value. So `best_score` asks, for step counts s = s_min, s_min + 1, ...,
for V*(s), the largest total reward of a split into exactly s plays, and keeps the best
ln V*(s) / ln s. It stops as soon as even the most generous value for s plays
(7 per play, 7/6 per card) cannot beat the best score found; this bound decreases in s.
s_min is the fewest plays (`min_plays`).

V*(s) is a depth-first search over the rank sweep of `ddzlab.analysis._core` with a
budget of plays. It is memoised on (sweep state, budget) — states whose passed ranks
have the same histogram share one entry — and it cuts every state whose admissible lower
bound on the plays still needed (the A* "strong" heuristic) exceeds the budget. Flat plays
are finished from the cached table "plays -> best reward" of the hand's histogram.

Limits: one search (one reading of F) stops with `SearchLimitError` after
`MAX_SCORE_NODES` nodes (natural hands take at most 85,000 and about 10 s up to 54 cards);
a hand holding the flower card F of more than `MAX_FLOWER_SCORE_CARDS` cards is refused up
front (5-20 s at 45-50 cards, far more beyond).

>>> r = best_score("3334445566789")
>>> r.steps, r.value, round(r.score, 4), [str(m) for m in r.moves]
(3, 11, 2.1827, ['3335', '4446', '56789'])
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Optional, Union

from ..cards import Hand, bits_size
from ..moves import Move
from ..rules import HOMEWORK, Rules, get_rules
from ..errors import SearchLimitError
from ._core import hand_bits, moves_text, refuse_over, tables
from .astar import _astar, flower, heuristic_value, read_rules
from .score import MAX_REWARD, homework_score, reward

#: the most nodes one best-score search (one reading of F) visits before `SearchLimitError`
MAX_SCORE_NODES = 400_000
#: the largest hand holding the flower card F whose best score `best_score` searches
MAX_FLOWER_SCORE_CARDS = 50


@dataclass
class ScoreResult:
    """The best score, its split, and the search's effort."""
    score: float
    value: int
    steps: int
    moves: list[Move]
    nodes: int = 0
    seconds: float = 0.0
    values: dict = field(default_factory=dict)   # steps -> V*(steps) for the steps tried

    def __str__(self) -> str:
        return (f"score {self.score:.4f} (value {self.value}, {self.steps} plays): "
                f"{moves_text(self.moves)}")


class _Search:
    """V*(budget) by memoised DFS; one instance per hand."""

    def __init__(self, rules: Rules, prune: bool, memo: bool) -> None:
        self.tab = tables(rules)
        self.prune = prune
        self.memo = memo
        self.cache: dict = {}
        self.leaf_cache: dict = {}
        self.nodes = 0

    def leaf(self, bits: int, pending: tuple, b: int) -> int:
        """Largest reward of finishing with exactly ``b`` flat plays (-1 if impossible)."""
        tab = self.tab
        if not pending:
            return tab.flat_profile(tab.hist_key(bits), reward).get(b, -1)
        key = (bits, pending, b)
        got = self.leaf_cache.get(key)
        if got is None:
            got = -1
            head, rest = pending[0], pending[1:]
            base = bits + tab.pending_main(head)    # bits - kickers = base - cards
            for m in tab.pending_moves(bits, head):
                v = self.leaf(base - m.cards, rest, b)
                if v > got:
                    got = v
            self.leaf_cache[key] = got
        return got

    def options(self, bits: int, r: int):
        tab = self.tab
        s = tab.next_chain_rank(bits, r)
        while s is not None:
            opts = tab.chain_options(bits, s)
            if opts:
                return s, opts
            s = tab.next_chain_rank(bits, s + 1)
        return None, []

    def item_reward(self, item) -> int:
        if isinstance(item, Move):
            return reward(item.kind)
        return reward(self.tab.pending_specs[item[0]].spec.kind)

    def value(self, r: int, bits: int, pending: tuple, b: int) -> int:
        """V* of this state with exactly ``b`` plays to go (-1: impossible)."""
        if b < 0:
            return -1
        if not bits:
            return self.leaf(bits, pending, b)
        key = None
        if self.memo:
            key = (self.tab.state_key(r, bits, pending), b)
            got = self.cache.get(key)
            if got is not None:
                return got
        self.nodes += 1
        if self.nodes > MAX_SCORE_NODES:
            raise SearchLimitError(f"the best-score search visited {MAX_SCORE_NODES:,} nodes "
                                   "without an answer: the hand is too large for it")
        if self.prune and heuristic_value(self.tab, bits, r, pending, "strong") > b:
            best = -1
        else:
            best = self.leaf(bits, pending, b)
            s, opts = self.options(bits, r)
            if s is not None:
                v = self.value(s + 1, bits, pending, b)
                if v > best:
                    best = v
                for item, cards in opts:
                    npend = pending if isinstance(item, Move) else tuple(sorted(pending + (item,)))
                    v = self.value(s, bits - cards, npend, b - 1)
                    if v >= 0:
                        v += self.item_reward(item)
                        if v > best:
                            best = v
        if key is not None:
            self.cache[key] = best
        return best

    def rebuild(self, r: int, bits: int, pending: tuple, b: int, target: int) -> list[Move]:
        """One split reaching ``target`` with ``b`` plays from this state."""
        tab = self.tab
        if self.leaf(bits, pending, b) == target:
            out: list[Move] = []
            for i, item in enumerate(pending):
                rest = pending[i + 1:]
                for m in tab.pending_moves(bits, item):
                    if self.leaf(bits - m.kickers, rest, b) == target:
                        out.append(m)
                        bits -= m.kickers
                        break
            return out + tab.flat_split_for(bits, b, target, reward)
        s, opts = self.options(bits, r)
        if self.value(s + 1, bits, pending, b) == target:
            return self.rebuild(s + 1, bits, pending, b, target)
        for item, cards in opts:
            w = self.item_reward(item)
            npend = pending if isinstance(item, Move) else tuple(sorted(pending + (item,)))
            if self.value(s, bits - cards, npend, b - 1) == target - w:
                head = [item] if isinstance(item, Move) else []
                return head + self.rebuild(s, bits - cards, npend, b - 1, target - w)
        raise AssertionError("best-score reconstruction failed")  # pragma: no cover


def _beaten(bound: float, above: float, ties: bool) -> bool:
    """Whether a score of at most ``bound`` cannot beat ``above`` (nor tie it, with ``ties``)."""
    return bound < above if ties else bound <= above


def _bound(s: int, cards: int, extra: tuple) -> float:
    """An upper bound on the score of ``s`` plays of ``cards`` cards after ``extra`` =
    (plays, reward) already made: at most 7 per play and 7/6 per card (`score_bound`,
    which it equals without ``extra``); decreasing in ``s``."""
    s0, w0 = extra
    return homework_score(w0 + min(MAX_REWARD * s, MAX_REWARD * cards // 6), s + s0)


def _cut(cards: int, above: float, extra: tuple, ties: bool = False) -> Optional[int]:
    """The fewest plays ``s`` from which `_bound` cannot beat ``above``; None: no such cut."""
    if above == -math.inf:
        return None
    for s in range(1, cards + 1):
        if _beaten(_bound(s, cards, extra), above, ties):
            return s
    return None


def _natural_best(bits: int, rules: Rules, prune: bool, memo: bool,
                  above: float = -math.inf, extra: tuple = (0, 0), ties: bool = False,
                  s_min: Optional[int] = None) -> Optional[ScoreResult]:
    """The best score of natural cards ``bits`` (rules without F) after ``extra`` = (plays,
    reward) already made. With ``prune`` and an incumbent score ``above``, the play
    counts that cannot beat it (or tie it, with ``ties``) are not searched (`_bound`), and
    None means no split does; ``s_min``, if known, is the fewest plays of ``bits``. With
    ``prune=False`` every count is searched and the best is returned."""
    tab = tables(rules)
    search = _Search(rules, prune, memo)
    r0 = tab.chain_ranks[0] if tab.chain_ranks else 0
    s0, w0 = extra
    cards = bits_size(bits)
    if prune:
        cut = _cut(cards, above, extra, ties)
        if s_min is None:
            s_min = _astar(tab, [(0, bits)], "strong", cut).plays
        if s_min is None or (cut is not None and s_min >= cut):
            return None
    else:
        s_min = 1
    best = (-math.inf, 0, 0)
    values: dict[int, int] = {}
    for s in range(s_min, cards + 1):
        if prune:
            bound = _bound(s, cards, extra)
            if best[2] and bound <= best[0] or above > -math.inf and _beaten(bound, above, ties):
                break
        v = search.value(r0, bits, (), s)
        values[s] = v
        if v < 0:
            continue
        sc = homework_score(v + w0, s + s0)
        if sc > best[0] or best[2] == 0:
            best = (sc, v, s)
        if sc == math.inf:
            break
    score, value, steps = best
    if steps == 0:
        if prune and above > -math.inf:
            return None
        raise AssertionError("no split found")  # pragma: no cover - solos always split
    moves = search.rebuild(r0, bits, (), steps, value)
    moves.sort(key=lambda m: (m.rank, -m.size))
    return ScoreResult(score, value + w0, steps + s0, moves, nodes=search.nodes, values=values)


def _wild_best_score(bits: int, rules: Rules, prune: bool, memo: bool) -> ScoreResult:
    """The best score of a hand that may hold the flower card: the best over the ranks F
    may stand for of the natural search on the cards so read (as `min_plays` does; a soft
    bomb earns what a bomb does). F read as a rank the hand holds four of: each such play
    of F, then the natural cards left by the budgeted search.

    With ``prune``, the readings are searched in the order of their fewest plays (then of
    rank), and every search after the first gets the best score so far as a bound: its
    play counts that cannot beat it are skipped, and a reading (or a play of F) whose
    fewest plays (found by the A* bounded the same way) cannot is dropped at once. The
    answer, and the split, are those of a plain loop over the ranks: the best score, ties
    to the lowest rank (a reading below the best one's may tie it, one above must beat
    it), then the plays of F, which must beat it."""
    read = read_rules(rules)
    wild, gen = flower(rules)
    f_bit = 1 << (4 * wild)
    if not bits & f_bit:
        return best_score(Hand.from_bits(bits), read, prune, memo)
    nat = bits - f_bit
    tab = tables(read)
    full: list[int] = []
    order: list[tuple[Optional[int], int, int]] = []
    for x in rules.wild_ranks:
        if nat >> (4 * x) & 15 >= 4:
            full.append(x)
        else:
            b = nat + (1 << (4 * x))
            order.append((_astar(tab, [(0, b)], "strong").plays if prune else None, x, b))
    if prune:
        order.sort()
    best: Optional[ScoreResult] = None
    best_x: Optional[int] = None            # (set with ``best`` by a reading, None after a play of F)
    nodes = 0
    for s_min, x, b in order:
        above = best.score if best is not None else -math.inf
        ties = best_x is not None and x < best_x
        res = _natural_best(b, read, prune, memo, above, ties=ties, s_min=s_min)
        if res is None:
            continue
        nodes += res.nodes
        if best is None or best_x is None or res.score > best.score or res.score == best.score and x < best_x:
            best, best_x = res, x
    if full:
        for m in gen.leading(bits):
            if m.reading not in full:
                continue
            rest = bits - m.cards
            if not rest:
                w = reward(m.kind)
                res = ScoreResult(homework_score(w, 1), w, 1, [])
            else:
                above = best.score if best is not None else -math.inf
                res = _natural_best(rest, read, prune, memo, above, (1, reward(m.kind)))
                if res is None:
                    continue
                nodes += res.nodes
            if best is None or res.score > best.score:
                res.moves = [m] + res.moves
                best, best_x = res, None
    if best is None:
        raise AssertionError("no split found")  # pragma: no cover - the first reading always splits
    if best_x is not None:
        best.moves = gen.pay_with_flower(best.moves, best_x)
    best.moves.sort(key=lambda m: (m.rank, -m.size))
    best.nodes = nodes
    return best


def best_score(hand: Union[Hand, str], rules: Union[Rules, str] = HOMEWORK,
               prune: bool = True, memo: bool = True) -> ScoreResult:
    """The split of ``hand`` with the best homework score (exact).

    ``prune=False`` drops the play-count bound and the early stop, ``memo=False`` the
    memo table (both for the ablation study; the answer does not change). Raises
    `RulesError` if the hand does not fit the rule set, `SearchLimitError` past the
    module's limits. An empty hand has no split: score -inf with zero plays.
    """
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)
    t0 = time.perf_counter()
    if not bits:
        return ScoreResult(-math.inf, 0, 0, [])
    if rules.wildcard is not None:
        n = bits_size(bits)
        if bits >> (4 * rules.wildcard) & 15:
            refuse_over(n, MAX_FLOWER_SCORE_CARDS, f"the best score of {n} cards with the flower card F",
                        "one search per rank F may stand for: 5-20 s at 45-50 cards, far more beyond")
        res = _wild_best_score(bits, rules, prune, memo)
    else:
        found = _natural_best(bits, rules, prune, memo)
        if found is None:
            raise AssertionError("no split found")  # pragma: no cover - no bound: solos always split
        res = found
    res.seconds = time.perf_counter() - t0
    return res


__all__ = ["best_score", "ScoreResult", "MAX_SCORE_NODES", "MAX_FLOWER_SCORE_CARDS"]
