"""Fewest plays to empty a hand (the homework's first question, docs/rules.md#other-rule-sets): A* over the rank sweep.

`min_plays` searches the sweep of `ddzlab.analysis._core`: a state is (current rank,
remaining cards, pending planes); from it the search either starts one more chain main
at the lowest chain rank that has any (cost 1 play) or moves past that rank (cost 0);
at any state it may also finish the rest with flat plays, whose exact fewest count comes
from the cached histogram table (cost = that count). The goal is reached when the finish
is the cheapest entry on the open list, so the answer is exact for every rule set.

Heuristics (all admissible, i.e. never above the plays still needed):

``"zero"``
    h = 0: uniform-cost search.
``"ceil"``
    h = ceil(cards / longest), the homework's heuristic. ``cards`` counts the remaining
    cards minus those the pending planes will carry as kickers (they cost no play), and
    ``longest`` is an upper bound on the size of any play still possible from the state.
    Each of the remaining plays removes at most ``longest`` cards, so at least
    ``cards / longest`` plays remain: admissible. (Plays of a sub-hand are plays of the
    hand, so the bound computed now holds for every later state.)
``"strong"`` (default)
    max(ceil, frozen bound): the cards no chain can take any more (ranks the sweep has
    passed, 2s, jokers) need at least ``flat_plays(F) - slots(U) - quads(F)`` plays — see
    `Tables.frozen_bound` for the proof. At the end of the sweep it equals the exact cost.

Limits: natural hands finish on any size (0.3-3 s and under 2,000 expanded
states on 50-54 cards with the default heuristic; 173,000 with ``"zero"`` on 48 cards); a
hand holding the flower card F costs far more per state (a few seconds and 15,000 states on
50 cards, minutes and gigabytes on the whole 55-card deck), so such a hand of more than
`MAX_FLOWER_PLAYS_CARDS` cards is refused up front. A search stops with `SearchLimitError`
after `MAX_PLAYS_EXPANDED` expanded states (`MAX_FLOWER_PLAYS_EXPANDED` with F).

>>> r = min_plays("33344455667788")
>>> r.plays, [str(m) for m in r.moves]
(2, ['333444', '55667788'])
"""
from __future__ import annotations

import heapq
import time
from functools import lru_cache
from dataclasses import dataclass, field, replace
from typing import Optional, Union

from ..cards import Hand, bits_size
from ..moves import Move, WildcardGenerator, generator
from ..rules import STANDARD, Rules, get_rules
from ..errors import RulesError, SearchLimitError
from ._core import hand_bits, moves_text, refuse_over, tables

HEURISTICS = ("zero", "ceil", "strong")
#: the largest hand holding the flower card F whose fewest plays `min_plays` searches
MAX_FLOWER_PLAYS_CARDS = 50
#: the most states one A* expands before it raises `SearchLimitError` (natural cards; with
#: the flower card F, whose states cost ~100 times more: `MAX_FLOWER_PLAYS_EXPANDED`)
MAX_PLAYS_EXPANDED = 1_000_000
MAX_FLOWER_PLAYS_EXPANDED = 60_000


@dataclass
class PlaysResult:
    """Fewest plays, one optimal sequence and the search's effort."""
    plays: int
    moves: list[Move]
    expanded: int = 0
    generated: int = 0
    seconds: float = 0.0
    heuristic: str = "strong"
    root_h: int = 0
    extra: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.plays} plays: {moves_text(self.moves)}"


@dataclass
class _Run:
    """One `_astar` search: the fewest plays over its roots (None: no split below its bound),
    its effort, and where `_rebuild` finds the split (the root it starts from, the goal and
    the finishing memo)."""
    plays: Optional[int]
    expanded: int
    generated: int
    root_h: int = 0
    root: int = 0
    goal: Optional[tuple] = None
    memo: dict = field(default_factory=dict)

    def result(self, moves: list[Move], heuristic: str, seconds: float, extra: Optional[dict] = None) -> PlaysResult:
        """The search's answer with its split ``moves``; only for a search that found one."""
        if self.plays is None:
            raise AssertionError("no split below the bound")  # pragma: no cover - callers check
        return PlaysResult(self.plays, moves, self.expanded, self.generated, seconds, heuristic, self.root_h,
                           extra or {})


def flower(rules: Rules) -> tuple[int, WildcardGenerator]:
    """The flower card's rank in ``rules`` and their move generator; `RulesError` if they have none."""
    gen = generator(rules)
    if rules.wildcard is None or not isinstance(gen, WildcardGenerator):
        raise RulesError(f"the {rules.name} rules have no flower card")
    return rules.wildcard, gen


@lru_cache(maxsize=None)
def read_rules(rules: Rules) -> Rules:
    """The rules of a wildcard hand's cards *as read*: no flower card, and each rank it may
    stand for may hold a fifth copy (F read as a rank of which the hand holds all four)."""
    deck = rules.deck & ~(15 << (4 * flower(rules)[0]))
    for r in rules.wild_ranks:
        deck += 1 << (4 * r)
    return replace(rules, name=f"{rules.name} (read)", deck=deck, wildcard=None, wild_ranks=())


def _wild_min_plays(bits: int, rules: Rules, heuristic: str) -> PlaysResult:
    """Fewest plays of a hand that may hold the flower card: the best over the ranks F may
    stand for of the natural search on the cards so read (every split of the hand reads F
    as one rank; every split of the read cards puts that rank's extra copy in one play, which
    pays F for it).

    The readings are searched at once, by one A* from one root per reading (`_astar`):
    it expands no state whose f reaches the best reading's count, where a search per
    reading would go on up to that reading's own, and readings share the states where
    they meet (once the sweep has passed the extra card, two readings of ranks the hand
    holds equally often reach the same states). The plays of F read as a rank the hand
    holds four of are searched after, bounded by the best count found."""
    t0 = time.perf_counter()
    read = read_rules(rules)
    wild, gen = flower(rules)
    f_bit = 1 << (4 * wild)
    if bits & f_bit:
        n = bits_size(bits)
        refuse_over(n, MAX_FLOWER_PLAYS_CARDS, f"the fewest plays of {n} cards with the flower card F",
                    "each state tries F as every rank: seconds at 50 cards, minutes and gigabytes at 55")
    if not bits & f_bit:
        res = min_plays(Hand.from_bits(bits), read, heuristic)
        res.seconds = time.perf_counter() - t0
        return res
    tab = tables(read)
    nat = bits - f_bit
    full: list[int] = []            # ranks of which the hand holds all four: no fifth copy
    xs: list[int] = []
    for x in rules.wild_ranks:
        (full if nat >> (4 * x) & 15 >= 4 else xs).append(x)
    best = (_astar(tab, [(0, nat + (1 << (4 * x))) for x in xs], heuristic,
                   max_expanded=MAX_FLOWER_PLAYS_EXPANDED) if xs else None)
    expanded, generated = (best.expanded, best.generated) if best else (0, 0)
    best_x = xs[best.root] if best else None
    first: Optional[Move] = None
    if full and (best is None or best.plays is None or best.plays > 1):
        # F read as a rank the hand holds four of: each such play of F (cost 1), then the
        # rest (natural cards) by the natural search; wins only with fewer plays
        firsts = [m for m in gen.leading(bits) if m.reading in full]
        run = _astar(tab, [(1, bits - m.cards) for m in firsts], heuristic,
                     best.plays if best else None, MAX_FLOWER_PLAYS_EXPANDED)
        expanded, generated = expanded + run.expanded, generated + run.generated
        if run.plays is not None:
            best, best_x = run, None
            first = firsts[run.root]
    if best is None:
        raise AssertionError("no split found")  # pragma: no cover - some reading always splits
    moves = _rebuild(tab, best)
    reads = best_x
    if first is not None:
        moves, reads = [first] + moves, first.reading
    elif best_x is not None:
        moves = gen.pay_with_flower(moves, best_x)
    best.expanded, best.generated = expanded, generated
    return best.result(moves, heuristic, time.perf_counter() - t0, {"flower_reads": reads})


def heuristic_value(tab, bits: int, r: int, pending: tuple, heuristic: str) -> int:
    """The chosen admissible lower bound at a sweep state."""
    if heuristic == "zero" or not bits:
        return 0
    return tab.bound(bits, r, pending, heuristic == "strong")


def finish_cost(tab, bits: int, pending: tuple, memo: dict) -> tuple[int, list]:
    """Fewest plays to finish ``bits`` with flat plays after giving the pending planes
    their kickers; returns (plays, chosen plane moves)."""
    if not pending:
        return tab.flat_plays(tab.hist_key(bits)), []
    key = (bits, pending)
    got = memo.get(key)
    if got is not None:
        return got
    best: tuple[int, list] = (10 ** 9, [])
    head, rest = pending[0], pending[1:]
    seen: set[int] = set()
    base = bits + tab.pending_main(head)            # bits - kickers = base - cards
    for m in tab.pending_moves(bits, head):
        left = base - m.cards
        if rest:
            cost, chosen = finish_cost(tab, left, rest, memo)
        else:
            hk = tab.hist_key(left)
            if hk in seen:
                continue
            seen.add(hk)
            cost, chosen = tab.flat_plays(hk), []
        if cost < best[0]:
            best = (cost, [m] + chosen)
    memo[key] = best
    return best


def min_plays(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD,
              heuristic: str = "strong") -> PlaysResult:
    """Fewest plays that empty ``hand`` under ``rules``, with one optimal sequence.

    ``heuristic`` is ``"zero"``, ``"ceil"`` or ``"strong"`` (all exact; they differ in
    the number of expanded states). Raises `RulesError` (a `ValueError`) if the hand
    does not fit the rule set's deck, `SearchLimitError` past the module's limits.
    """
    rules = get_rules(rules)
    if heuristic not in HEURISTICS:
        raise ValueError(f"heuristic {heuristic!r}; choose from {', '.join(HEURISTICS)}")
    bits = hand_bits(hand, rules)
    if rules.wildcard is not None:
        return _wild_min_plays(bits, rules, heuristic)
    t0 = time.perf_counter()
    if not bits:
        return PlaysResult(0, [], heuristic=heuristic)
    run = _astar(tables(rules), [(0, bits)], heuristic)
    return run.result(_rebuild(tables(rules), run), heuristic, time.perf_counter() - t0)


def _astar(tab, roots: list[tuple[int, int]], heuristic: str,
           bound: Optional[int] = None, max_expanded: int = MAX_PLAYS_EXPANDED) -> _Run:
    """The A* of `min_plays`, from one or more roots ``(plays already made, packed cards)``
    at once: the fewest plays over the roots, with ``root`` the index of the root
    the split found starts from. States are shared by the roots (a state's cost to go
    depends on its key only); each keeps the root and path of its cheapest way in.

    With ``bound``, only splits of fewer than ``bound`` plays are sought: entries whose f
    (a lower bound) reaches it are not queued, and if none is left ``plays`` is None.
    Past ``max_expanded`` expansions it raises `SearchLimitError`.
    The moves are not rebuilt (`_rebuild` does that from the goal and the finishing memo)."""
    if bound is None:
        bound = 10 ** 9
    finish_memo: dict = {}
    # state key -> (g, r, bits, pending, link, root); link = (chain move, parent link) or
    # None, kept per entry so that the path always matches the entry's own cards
    nodes: dict = {}
    start_r = tab.chain_ranks[0] if tab.chain_ranks else 0
    heap: list[tuple] = []
    root_h: list[int] = []
    counter = 0
    for i, (g0, bits) in enumerate(roots):
        h0 = heuristic_value(tab, bits, start_r, (), heuristic)
        root_h.append(h0)
        if g0 + h0 < bound:
            root = tab.state_key(start_r, bits, ())
            old = nodes.get(root)
            if old is not None and old[0] <= g0:
                continue
            nodes[root] = (g0, start_r, bits, (), None, i)
            counter += 1
            heap.append((g0 + h0, -g0, counter, root, False))
    heapq.heapify(heap)
    expanded = generated = 0
    goal_parent = None
    while heap:
        f, neg_g, _, key, is_goal = heapq.heappop(heap)
        if is_goal:
            goal_parent = key
            break
        g, r, b, pending, link, i = nodes[key]
        if -neg_g != g:
            continue  # a cheaper path reached this state later
        if is_goal is not None:
            expanded += 1
            if expanded > max_expanded:
                raise SearchLimitError(f"the fewest-plays search expanded {max_expanded:,} "
                                       "states without an answer: the hand is too large for it")
        # finish here with flat plays: exact now if cheap, else queued lazily at g + h
        # (h never exceeds the finishing cost) and priced when it reaches the front
        if is_goal is None or not pending:
            cost, _ = finish_cost(tab, b, pending, finish_memo)
            counter += 1
            if g + cost < bound:
                heapq.heappush(heap, (g + cost, -(g + cost), counter, (i, g, b, pending, link), True))
            if is_goal is None:
                continue
        else:
            counter += 1
            heapq.heappush(heap, (f, neg_g, counter, key, None))
        # next rank where some chain can start
        s = tab.next_chain_rank(b, r)
        opts = []
        while s is not None:
            opts = tab.chain_options(b, s)
            if opts:
                break
            s = tab.next_chain_rank(b, s + 1)
        if s is None:
            continue
        succ: list[tuple[int, int, tuple, int, object]] = [(s + 1, b, pending, g, None)]
        if g + 1 < bound:
            for item, cards in opts:
                if isinstance(item, Move):
                    succ.append((s, b - cards, pending, g + 1, item))
                else:
                    succ.append((s, b - cards, tuple(sorted(pending + (item,))), g + 1, item))
        for nr, nb, npend, ng, move in succ:
            if ng + 1 >= bound and bits_size(nb) > tab.pending_slots(npend)[1]:
                continue    # cards beyond the pending kickers need one more play: f >= bound
            nkey = tab.state_key(nr, nb, npend)
            old = nodes.get(nkey)
            if old is not None and old[0] <= ng:
                continue
            nodes[nkey] = (ng, nr, nb, npend, (move, link) if isinstance(move, Move) else link, i)
            h = heuristic_value(tab, nb, nr, npend, heuristic)
            generated += 1
            counter += 1
            if ng + h < bound:
                heapq.heappush(heap, (ng + h, -ng, counter, nkey, False))
    if goal_parent is None:
        return _Run(plays=None, expanded=expanded, generated=generated)
    i, g, b, pending, _ = goal_parent
    plays = g + finish_cost(tab, b, pending, finish_memo)[0]
    return _Run(plays=plays, expanded=expanded, generated=generated, root_h=root_h[i], root=i,
                goal=goal_parent[1:], memo=finish_memo)


def _rebuild(tab, run: _Run) -> list[Move]:
    """One optimal sequence of an `_astar` run that found one: chain moves along the goal's
    path, then the pending planes and the flat split."""
    if run.goal is None:
        raise AssertionError("no split to rebuild")  # pragma: no cover - callers check
    g, b, pending, link = run.goal
    total, planes = finish_cost(tab, b, pending, run.memo)
    left = b
    for m in planes:
        left -= m.kickers
    chain_moves: list[Move] = []
    while link is not None:
        chain_moves.append(link[0])
        link = link[1]
    chain_moves.reverse()
    seq = chain_moves + planes + tab.flat_split(left)
    seq.sort(key=lambda m: (m.rank, -m.size))
    return seq


__all__ = ["MAX_FLOWER_PLAYS_CARDS", "MAX_PLAYS_EXPANDED", "MAX_FLOWER_PLAYS_EXPANDED", "min_plays", "PlaysResult", "HEURISTICS", "heuristic_value"]
