"""`solve_report`: the text `ddzlab solve` prints for one hand.

First the legal leads (every move the hand may lead: how many, by kind, and the first
`LEADS_SHOWN`), then the searches below.

Every part finishes within seconds on any hand up to 54 cards, or is skipped with a note
that says so up front: fewest plays (A*) and the greedy split are fast on any hand, the
best score (DFS) takes up to a few seconds on 40–45 cards, and the exact hand-power split
(and the hints built on it) grows exponentially with the hand — about 0.2 s on 32 cards,
5 s on 36, minutes beyond — so it runs only up to `POWER_MAX_CARDS`.

Wildcard hands (docs/rules.md#other-rule-sets) get every part: fewest plays and the best score take the best
over the ranks the flower card F may stand for (one A* over all readings for the fewest
plays; for the best score a search per reading, each bounded by the best score so far),
hand power and hints search over every reading's plays at once. F read as a rank the hand
holds four times is tried play by play, so big hands with F cost more: the best score takes
up to a few seconds to 40 cards and 5–20 s at 45–50 (announced up front), the fewest plays
1–6 s at 50. A part whose search refuses the hand (`SearchLimitError`: over 50 cards with
F, e.g. the whole 55-card deck; see each search's limits) is reported as refused, with why.
"""
from __future__ import annotations

import math
from typing import Iterator, Union

from ..cards import Hand
from ..errors import SearchLimitError
from ..moves import legal_moves
from ..rules import STANDARD, Rules, get_rules
from ._core import hand_bits, moves_text
from .astar import min_plays
from .dfs import MAX_FLOWER_SCORE_CARDS, best_score
from .greedy import greedy_q
from .power import hand_power, hints


#: the largest hand whose hand power and hints `solve_report` computes (see module docstring)
POWER_MAX_CARDS = 30
#: how many legal leads `solve_lines` lists (it counts them all)
LEADS_SHOWN = 24
#: above this many cards `solve_lines` announces the best-score search before running it
SLOW_SCORE_CARDS = 36
#: the same for hands with the flower card F: its best score, and its fewest plays
SLOW_FLOWER_SCORE_CARDS = 40


def _score_line(bs) -> str:
    """The best homework score, with ddzlab's convention for the two infinite ends."""
    if bs.score == math.inf:
        why = (f"the whole hand is one play worth {bs.value}: ln {bs.value} / ln 1 is infinite, "
               "which ddzlab ranks best")
    elif bs.score == -math.inf:
        why = "no split earns any reward (value 0): ln 0 is minus infinity, ranked worst"
    else:
        return f"{bs.score:.4f} = ln {bs.value} / ln {bs.steps}"
    return f"{'+' if bs.score > 0 else '-'}inf ({why})"


def leads_lines(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD,
                shown: int = LEADS_SHOWN) -> list[str]:
    """Two lines on the moves ``hand`` may lead: how many, by kind (in the generator's
    order), then the first ``shown`` of them (``... (+N more)`` when there are more)."""
    rules = get_rules(rules)
    leads = legal_moves(Hand.from_bits(hand_bits(hand, rules)), rules)
    kinds: dict[str, int] = {}
    for move in leads:
        kinds[move.kind.label] = kinds.get(move.kind.label, 0) + 1
    listed = " ".join(str(m) for m in leads[:shown])
    more = f" ... (+{len(leads) - shown} more)" if len(leads) > shown else ""
    return [f"legal leads: {len(leads)} ({', '.join(f'{n} {k}' for k, n in kinds.items())})",
            f"  {listed}{more}"]


def solve_lines(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD,
                n_hints: int = 5) -> Iterator[str]:
    """The lines of `solve_report`, each yielded as soon as it is computed (so a slow part
    is announced before it runs)."""
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)
    h = Hand.from_bits(bits)
    yield f"hand {h} ({len(h)} cards, {rules.name} rules)"
    if not bits:
        yield "(empty hand: nothing to analyse)"
        return
    yield from leads_lines(h, rules)
    flower = rules.wildcard is not None and bits >> (4 * rules.wildcard) & 15
    try:
        mp = min_plays(h, rules)
        yield (f"fewest plays (A*): {mp.plays}  {moves_text(mp.moves)}"
               f"  [{mp.expanded} states expanded, {mp.seconds * 1e3:.1f} ms]")
    except SearchLimitError as e:
        yield f"fewest plays (A*): refused: {e}"
    g = greedy_q(h, rules)
    yield f"greedy Q(S,a) best: {g.best} (Q = {g.max_q})"
    if flower and SLOW_FLOWER_SCORE_CARDS < len(h) <= MAX_FLOWER_SCORE_CARDS:
        yield (f"(best score: searching {len(h)} cards over every rank the flower card F may "
               f"stand for: hands over {SLOW_FLOWER_SCORE_CARDS} cards can take from seconds to "
               "minutes)")
    elif not flower and len(h) > SLOW_SCORE_CARDS:
        yield (f"(best score: searching {len(h)} cards; hands over {SLOW_SCORE_CARDS} cards "
               "can take from a second to a minute: the exact search tries every split into chains "
               "and planes)")
    try:
        bs = best_score(h, rules)
        yield f"best score (DFS): {_score_line(bs)}  {moves_text(bs.moves)}  [{bs.seconds * 1e3:.1f} ms]"
    except SearchLimitError as e:
        yield f"best score (DFS): refused: {e}"
    if len(h) > POWER_MAX_CARDS:
        yield (f"power split and hints: skipped for {len(h)} cards (the exact power search grows "
               f"exponentially with the hand: seconds at 36 cards, minutes beyond; computed up to "
               f"{POWER_MAX_CARDS} cards)")
        return
    try:
        hp = hand_power(h, rules)
        hs = hints(h, None, rules)[:n_hints]
    except SearchLimitError as e:
        yield f"power split and hints: refused: {e}"
        return
    yield (f"power split: {hp.power:.1f} in {len(hp.moves)} plays  {moves_text(hp.moves)}"
           "  (hand power: -150 per play plus each play's own weight, docs/definitions.md#hand-power; "
           "higher is stronger, most hands score below 0)")
    yield ("hints: " + ", ".join(f"{m} ({p:.0f})" for m, p in hs)
           + "  (best first; in brackets the power of the cards left after the play)")


def solve_report(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD,
                 n_hints: int = 5) -> str:
    """Legal leads, fewest plays, greedy Q, best homework score, power split and hints for one hand.

    >>> print(solve_report("3334445BR"))          # doctest: +ELLIPSIS
    hand 3334445BR (9 cards, standard rules)
    legal leads: 24 (5 solo, 1 rocket, 2 pair, ...)
      3 4 5 B R BR 33 44 333 444 ...
    fewest plays (A*): 2 ...
    """
    return "\n".join(solve_lines(hand, rules, n_hints))


__all__ = ["solve_report", "solve_lines", "leads_lines", "LEADS_SHOWN", "POWER_MAX_CARDS", "SLOW_SCORE_CARDS",
           "SLOW_FLOWER_SCORE_CARDS"]
