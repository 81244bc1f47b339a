"""`solve_report`: the text `ddzlab solve` prints for one hand."""
from __future__ import annotations

import math
from typing import Union

from ..cards import Hand
from ..rules import STANDARD, Rules, get_rules
from ._core import hand_bits, moves_text
from .astar import min_plays
from .dfs import best_score
from .greedy import greedy_q
from .power import hand_power, hints


def _fmt_score(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:.4f}"


def solve_report(hand: Union[Hand, str], rules: Union[Rules, str] = STANDARD,
                 n_hints: int = 5) -> str:
    """Fewest plays, best homework score, power split, greedy Q and hints for one hand.

    >>> print(solve_report("3334445BR"))          # doctest: +ELLIPSIS
    hand 3334445BR (9 cards, standard rules)
    fewest plays (A*): 2 ...
    """
    rules = get_rules(rules)
    bits = hand_bits(hand, rules)
    h = Hand.from_bits(bits)
    lines = [f"hand {h} ({len(h)} cards, {rules.name} rules)"]
    if not bits:
        return lines[0] + "\n(empty hand: nothing to analyse)"
    mp = min_plays(h, rules)
    lines.append(f"fewest plays (A*): {mp.plays}  {moves_text(mp.moves)}"
                 f"  [{mp.expanded} states expanded, {mp.seconds * 1e3:.1f} ms]")
    bs = best_score(h, rules)
    lines.append(f"best score (DFS): {_fmt_score(bs.score)} = ln {bs.value} / ln {bs.steps}  "
                 f"{moves_text(bs.moves)}  [{bs.seconds * 1e3:.1f} ms]")
    hp = hand_power(h, rules)
    lines.append(f"power split: {hp.power:.1f} in {len(hp.moves)} plays  {moves_text(hp.moves)}")
    g = greedy_q(h, rules)
    lines.append(f"greedy Q(S,a) best: {g.best} (Q = {g.max_q})")
    hs = hints(h, None, rules)[:n_hints]
    lines.append("hints: " + ", ".join(f"{m} ({p:.0f})" for m, p in hs))
    return "\n".join(lines)


__all__ = ["solve_report"]
