"""Shared helpers for the benchmark scripts (fair timing, seeded hands, table printing).

Fairness rules every script follows:

* every engine runs through its public entry point, in this process, on the same inputs;
* results are treated the same way by every engine: dropped as soon as they are made (the
  default) or all kept until the round ends (``keep=True``);
* the garbage collector is in the same state for every engine: ``gc.collect()`` before each
  timed round, and the round runs with ``gc.disable()`` (``gc_off=True``, the default) or
  with the collector on for everyone;
* engines are timed in interleaved rounds (A, B, C, A, B, C, ...), so a load change on a
  shared machine hits them alike; best and median of the rounds are reported;
* the clock is this process's CPU time (`time.process_time`) by default: on a machine shared
  with other jobs, wall time also counts the time the process waits for a core
  (``clock=time.perf_counter`` for wall time).
"""
from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Callable, Optional, Sequence

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


def each(fn: Callable[[object], object], items: Sequence, keep: bool) -> Callable[[], object]:
    """A round: ``fn(x)`` for every item, results dropped at once or kept in one list."""
    if keep:
        return lambda: [fn(x) for x in items]

    def run() -> None:
        for x in items:
            fn(x)
    return run


class Engine:
    """One timed contender: a round function, an optional untimed setup run before every
    round (e.g. clearing tables for a cold measurement) and the items a round processes."""

    def __init__(self, name: str, run: Callable[[], object], items: int,
                 setup: Optional[Callable[[], object]] = None) -> None:
        self.name, self.run, self.items, self.setup = name, run, items, setup
        self.seconds: list[float] = []

    @property
    def best(self) -> float:
        return self.items / min(self.seconds)

    @property
    def median(self) -> float:
        return self.items / statistics.median(self.seconds)


def time_rounds(engines: Sequence[Engine], rounds: int, gc_off: bool = True,
                clock: Callable[[], float] = time.process_time) -> Sequence[Engine]:
    """Time every engine ``rounds`` times, interleaved, under the same GC state (module doc)."""
    for _ in range(rounds):
        for e in engines:
            if e.setup is not None:
                e.setup()
            gc.collect()
            if gc_off:
                gc.disable()
            try:
                t = clock()
                out = e.run()
                e.seconds.append(clock() - t)
            finally:
                gc.enable()
            del out              # kept results are freed outside the timed region
    return engines


def timing_args(ap: argparse.ArgumentParser, rounds: int = 5) -> argparse.ArgumentParser:
    """The options every timing script takes: ``--rounds``, ``--seed``, ``--wall``."""
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--wall", action="store_true", help="wall-clock time instead of this process's CPU time")
    return ap


def warm_and_time(engines: Sequence[Engine], args: argparse.Namespace) -> str:
    """One untimed warm-up round per engine (imports, lazily built tables), then
    `time_rounds` with the clock ``args`` asks for; returns the clock's name for the header."""
    for e in engines:
        e.run()
    time_rounds(engines, args.rounds, clock=time.perf_counter if args.wall else time.process_time)
    return "wall" if args.wall else "CPU"


class DouZeroRandom:
    """A DouZero agent uniform over ``infoset.legal_actions`` (drawn as ddzlab's
    `RandomAgent` draws: ``actions[int(rng.random() * len(actions))]``)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, infoset):
        actions = infoset.legal_actions
        return actions[int(self.rng.random() * len(actions))]


def table(engines: Sequence[Engine], unit: str, reference: str) -> str:
    """Best and median rate of each engine, and its ratio to ``reference`` (best / best,
    median / median)."""
    ref = next(e for e in engines if e.name == reference)
    width = max(len(e.name) for e in engines)
    out = [f"{'':{width}}  {unit + ' best':>14}  {'median':>10}  ratio best  ratio median  (vs {reference})"]
    out += [f"{e.name:{width}}  {e.best:14,.0f}  {e.median:10,.0f}  {e.best / ref.best:9.2f}x"
            f"  {e.median / ref.median:11.2f}x" for e in engines]
    return "\n".join(out)
