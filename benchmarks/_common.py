"""Shared helpers for the benchmark scripts (timing, seeded hands, table printing)."""
from __future__ import annotations

import time
from typing import Callable, Sequence

import numpy as np

from ddzlab.cards import Hand
from ddzlab.rules import STANDARD, Rules


#: DouZero's card codes for ddzlab ranks 0..14 (3..A, 2, black joker, red joker)
DOUZERO_CODES = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]


def douzero_cards(bits: int) -> list[int]:
    """A packed hand as DouZero's sorted card-code list."""
    return [DOUZERO_CODES[r] for r in Hand.from_bits(bits).ranks()]


def distinct_hands(n: int, size: int, seed: int, rules: Rules = STANDARD) -> list[Hand]:
    """``n`` distinct random hands of ``size`` cards (seeded)."""
    rng = np.random.default_rng(seed)
    deck = Hand.from_bits(rules.deck).ranks()
    seen: dict[int, Hand] = {}
    while len(seen) < n:
        h = Hand.from_ranks(rng.choice(deck, size, replace=False).tolist())
        seen.setdefault(h.bits, h)
    return list(seen.values())


def rate(fn: Callable[[], object], items: int) -> float:
    """Items per second of one call of ``fn`` that processes ``items`` items."""
    t = time.perf_counter()
    fn()
    return items / (time.perf_counter() - t)


def table(rows: Sequence[tuple[str, float]], unit: str, reference: str) -> str:
    ref = dict(rows)[reference]
    width = max(len(name) for name, _ in rows)
    out = [f"{'':{width}}  {unit:>12}  ratio vs {reference}"]
    out += [f"{name:{width}}  {value:12,.0f}  {value / ref:6.2f}x" for name, value in rows]
    return "\n".join(out)
