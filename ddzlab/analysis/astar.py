"""Fewest plays to empty a hand (homework Q1): A* over the rank sweep.

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
from ..moves import Move, generator
from ..rules import STANDARD, Rules, get_rules
from ._core import hand_bits, moves_text, tables

HEURISTICS = ("zero", "ceil", "strong")


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


@lru_cache(maxsize=None)
def read_rules(rules: Rules) -> Rules:
    """The rules of a wildcard hand's cards *as read*: no flower card, and each rank it may
    stand for may hold a fifth copy (F read as a rank of which the hand holds all four)."""
    deck = rules.deck & ~(15 << (4 * rules.wildcard))
    for r in rules.wild_ranks:
        deck += 1 << (4 * r)
    return replace(rules, name=f"{rules.name} (read)", deck=deck, wildcard=None, wild_ranks=())


def _wild_min_plays(bits: int, rules: Rules, heuristic: str) -> PlaysResult:
    """Fewest plays of a hand that may hold the flower card: the best over the ranks F may
    stand for of the natural search on the cards so read (every split of the hand reads F
    as one rank; every split of the read cards puts that rank's extra copy in one play, which
    pays F for it).

    The readings share one bound: they are searched in the order of their root heuristic
    (then of rank), each with the best count found so far as an exclusive bound (plus one
    for a rank below the incumbent's, so that ties go to the lowest rank as in a plain loop
    over the ranks), and a reading whose root bound already reaches it is skipped. The
    answer, and the split returned, are those of the unbounded search of every reading."""
    t0 = time.perf_counter()
    read = read_rules(rules)
    f_bit = 1 << (4 * rules.wildcard)
    if not bits & f_bit:
        res = min_plays(Hand.from_bits(bits), read, heuristic)
        res.seconds = time.perf_counter() - t0
        return res
    tab = tables(read)
    nat = bits - f_bit
    start_r = tab.chain_ranks[0] if tab.chain_ranks else 0
    full = []                       # ranks of which the hand holds all four: no fifth copy
    order = []
    for x in rules.wild_ranks:
        if nat >> (4 * x) & 15 >= 4:
            full.append(x)
        else:
            b = nat + (1 << (4 * x))
            order.append((heuristic_value(tab, b, start_r, (), heuristic), x, b))
    order.sort()
    best, best_x = None, None
    expanded = generated = 0
    for h, x, b in order:
        bound = None
        if best is not None:
            bound = best.plays + (x < best_x)
            if h >= bound:
                if h > best.plays:
                    break           # sorted: no later reading can tie or win
                continue
        res = _astar(tab, b, heuristic, bound)
        expanded, generated = expanded + res.expanded, generated + res.generated
        if res.plays is not None:
            best, best_x = res, x
    gen = generator(rules)
    if full and (best is None or best.plays > 1):
        # F read as a rank the hand holds four of: try each such play of F, then the rest
        # (natural cards) by the natural search, bounded by the best so far minus that play
        for m in gen.leading(bits):
            if m.reading in full and (best is None or best.plays > 1):
                res = _astar(tab, bits - m.cards, heuristic, best and best.plays - 1)
                expanded, generated = expanded + res.expanded, generated + res.generated
                if res.plays is not None:
                    best = replace(res, plays=res.plays + 1, extra={**res.extra, "first": m})
                    best_x = None
    moves = _rebuild(tab, best)
    if best_x is None:
        moves = [best.extra["first"]] + moves
        reads = moves[0].reading
    else:
        moves, reads = gen.pay_with_flower(moves, best_x), best_x
    return PlaysResult(best.plays, moves, expanded, generated, time.perf_counter() - t0, heuristic,
                       best.root_h, {"flower_reads": reads})


def heuristic_value(tab, bits: int, r: int, pending: tuple, heuristic: str) -> int:
    """The chosen admissible lower bound at a sweep state."""
    if heuristic == "zero" or not bits:
        return 0
    cards = bits_size(bits) - tab.pending_slots(pending)[1]
    if cards <= 0:
        return 0
    longest = tab.longest_bound(bits, r)
    h = -(-cards // longest)
    if heuristic == "strong":
        f = tab.frozen_bound(bits, r, pending)
        if f > h:
            h = f
    return h


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
    for m in tab.pending_moves(bits, head):
        left = bits - m.kickers
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
    does not fit the rule set's deck.
    """
    rules = get_rules(rules)
    if heuristic not in HEURISTICS:
        raise ValueError(f"heuristic {heuristic!r}; choose from {', '.join(HEURISTICS)}")
    bits = hand_bits(hand, rules)
    if rules.wildcard is not None:
        return _wild_min_plays(bits, rules, heuristic)
    t0 = time.perf_counter()
    res = _astar(tables(rules), bits, heuristic)
    res.moves = _rebuild(tables(rules), res)
    res.seconds = time.perf_counter() - t0
    return res


def _astar(tab, bits: int, heuristic: str, bound: Optional[int] = None) -> PlaysResult:
    """The A* of `min_plays` on packed cards. With ``bound``, only splits of fewer than
    ``bound`` plays are sought: entries whose f (a lower bound) reaches it are not queued,
    and if none is left the result's ``plays`` is None. An optimum below ``bound`` is found
    as without it (the entries popped before it all have f at most the optimum, hence
    below the bound), so the bound changes neither the count nor the split. The moves are
    not rebuilt (`_rebuild` does that): ``extra`` holds the goal and the finishing memo."""
    if not bits:
        return PlaysResult(0, [], heuristic=heuristic, extra={"goal": (0, 0, (), None), "memo": {}})
    finish_memo: dict = {}
    # node key -> (g, r, bits, pending, link); link = (chain move, parent link) or None,
    # kept per entry so that the path always matches the entry's own cards
    nodes: dict = {}
    start_r = tab.chain_ranks[0] if tab.chain_ranks else 0
    root = tab.state_key(start_r, bits, ())
    h0 = heuristic_value(tab, bits, start_r, (), heuristic)
    if bound is None:
        bound = 10 ** 9
    nodes[root] = (0, start_r, bits, (), None)
    counter = 0
    heap = [(h0, 0, counter, root, False)] if h0 < bound else []
    expanded = generated = 0
    goal_parent = None
    while heap:
        f, neg_g, _, key, is_goal = heapq.heappop(heap)
        if is_goal:
            goal_parent = key
            break
        g, r, b, pending, link = nodes[key]
        if -neg_g != g:
            continue  # a cheaper path reached this state later
        if is_goal is not None:
            expanded += 1
        # finish here with flat plays: exact now if cheap, else queued lazily at g + h
        # (h never exceeds the finishing cost) and priced when it reaches the front
        if is_goal is None or not pending:
            cost, _ = finish_cost(tab, b, pending, finish_memo)
            counter += 1
            if g + cost < bound:
                heapq.heappush(heap, (g + cost, -(g + cost), counter, (g, b, pending, link), True))
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
        succ = [(s + 1, b, pending, g, None)]
        if g + 1 < bound:
            for item, cards in opts:
                if isinstance(item, Move):
                    succ.append((s, b - cards, pending, g + 1, item))
                else:
                    succ.append((s, b - cards, tuple(sorted(pending + (item,))), g + 1, item))
        for nr, nb, npend, ng, move in succ:
            nkey = tab.state_key(nr, nb, npend)
            old = nodes.get(nkey)
            if old is not None and old[0] <= ng:
                continue
            nodes[nkey] = (ng, nr, nb, npend, (move, link) if isinstance(move, Move) else link)
            h = heuristic_value(tab, nb, nr, npend, heuristic)
            generated += 1
            counter += 1
            if ng + h < bound:
                heapq.heappush(heap, (ng + h, -ng, counter, nkey, False))
    plays = None
    if goal_parent is not None:
        plays = goal_parent[0] + finish_cost(tab, goal_parent[1], goal_parent[2], finish_memo)[0]
    return PlaysResult(plays=plays, moves=[], expanded=expanded, generated=generated,
                       heuristic=heuristic, root_h=h0,
                       extra={"goal": goal_parent, "memo": finish_memo})


def _rebuild(tab, res: PlaysResult) -> list[Move]:
    """One optimal sequence of an `_astar` result: chain moves along the goal's path, then
    the pending planes and the flat split."""
    g, b, pending, link = res.extra.pop("goal")
    total, planes = finish_cost(tab, b, pending, res.extra.pop("memo"))
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


__all__ = ["min_plays", "PlaysResult", "HEURISTICS", "heuristic_value"]
