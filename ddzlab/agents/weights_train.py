"""``ddzlab train weights``: a small seeded random search over `RuleWeights`.

    ddzlab train weights --deals 300 --candidates 24 --seed 0 --vs greedy,rulev1 --out w.json

The search plays on *training* deals only: ``training_deals(n, seed)`` draws them from
``SeedSequence([seed, TRAIN_TAG])``, a stream no evaluation set uses (the evaluation files
in ``data/deals`` and ``generate_deals(n, seed=int)`` draw from plain integer seeds).

Method: the defaults and ``candidates`` random perturbations of them (each changes a few
weights, drawn from `SPACE` by a generator seeded with ``seed``) play every opponent on the
same search deals, sides swapped (common random numbers); the score is the mean WP. The
best candidate and the defaults then replay on a second, fresh set of training deals (the
validation half, so the winner's selection luck does not count) and the better of the two
there is written, with both scores, to ``--out`` (JSON that `load_weights` reads). The
shipped ``weights_tuned.json`` is this command's output (see its ``command`` field).
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..deals import Deal, generate_deals
from ..game import Game
from .base import AgentSpec, make_agent, play_game, register_trainer
from .weights import TUNED_FILE, WEIGHTS_FORMAT, WEIGHTS_VERSION, RuleWeights, WeightsAgent, describe

TRAIN_TAG = 0x7EA1_11     # mixed into the training deals' seed: no evaluation set uses it

#: the search space: weight -> sampler(rng, current value)
SPACE: dict[str, Callable[[np.random.Generator, Any], Any]] = {
    "follow_threshold": lambda g, v: float(round(g.uniform(-150, 100))),
    "high_cost": lambda g, v: float(round(g.uniform(0, 160))),
    "early_cards": lambda g, v: int(g.integers(4, 13)),
    "partner_out": lambda g, v: int(g.integers(1, 5)),
    "partner_gain": lambda g, v: float(round(g.uniform(0, 260))),
    "partner_max_rank": lambda g, v: int(g.integers(5, 13)),
    "gate_ranks": lambda g, v: (lambda lo: (lo, int(g.integers(lo, 13))))(int(g.integers(7, 12))),
    "gate_below": lambda g, v: int(g.integers(5, 11)),
    "urgent_cards": lambda g, v: int(g.integers(1, 7)),
    "bomb_threat": lambda g, v: int(g.integers(1, 9)),
    "bomb_rest_plays": lambda g, v: int(g.integers(0, 4)),
}


def training_deals(n: int, seed: int = 0, part: int = 0) -> list[Deal]:
    """``n`` training deals (``part`` 0: search, 1: validation), never an evaluation set."""
    return generate_deals(n, seed=np.random.SeedSequence([seed, TRAIN_TAG, part]))


def win_rate(weights: RuleWeights, opponent: AgentSpec, deals: Sequence[Deal],
             seed: int = 0) -> float:
    """WP of `WeightsAgent` with ``weights`` against ``opponent``, every deal played twice
    (weights as landlord, then as the two farmers); fixed landlord, seat 0."""
    wins = 0
    for i, deal in enumerate(deals):
        for half in (0, 1):
            ours = WeightsAgent(weights)
            theirs = make_agent(opponent, seed=np.random.SeedSequence([seed, i, half]))
            seats = [ours, theirs, theirs] if half == 0 else [theirs, ours, ours]
            game = play_game(Game(deal, landlord=0), seats)
            wins += bool(game.landlord_won) == (half == 0)
    return wins / (2 * len(deals))


def perturb(w: RuleWeights, rng: np.random.Generator, k: int = 3) -> RuleWeights:
    """``w`` with ``k`` weights (chosen at random) redrawn from `SPACE`."""
    names = list(SPACE)
    chosen = rng.choice(len(names), size=min(k, len(names)), replace=False)
    return replace(w, **{names[i]: SPACE[names[i]](rng, getattr(w, names[i])) for i in chosen})


def tune(n_deals: int = 200, candidates: int = 16, seed: int = 0,
         opponents: Sequence[AgentSpec] = ("greedy",), start: Optional[RuleWeights] = None,
         progress: bool = True) -> dict:
    """The search of the module docstring; returns a dict with the chosen weights
    (``weights``), every trial (``trials``: weights and score) and the validation scores."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, TRAIN_TAG, 2]))
    start = start or RuleWeights()
    search, valid = training_deals(n_deals, seed, 0), training_deals(n_deals, seed, 1)

    def score(w: RuleWeights, deals: Sequence[Deal]) -> float:
        return float(np.mean([win_rate(w, o, deals, seed) for o in opponents]))

    pool = [start] + [perturb(start, rng) for _ in range(candidates)]
    it: Any = pool
    if progress:
        from tqdm.auto import tqdm
        it = tqdm(pool, desc="weights search", unit="candidate")
    trials = [(w, score(w, search)) for w in it]
    best_w, best_s = max(trials, key=lambda t: t[1])
    v_best, v_start = score(best_w, valid), score(start, valid)
    chosen = best_w if v_best > v_start else start
    return {"weights": chosen, "search_score": best_s, "validation_best": v_best,
            "validation_start": v_start, "trials": [(asdict(w), s) for w, s in trials]}


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def train_weights(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="ddzlab train weights", description=__doc__.split("\n")[0])
    p.add_argument("--deals", type=_positive, default=200, help="training deals per half (search, validation)")
    p.add_argument("--candidates", type=_positive, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vs", default="greedy", help="comma-separated opponents (agent specs)")
    p.add_argument("--out", default="weights.json",
                   help="where to write the tuned weights (default weights.json here); play them "
                        "with the agent spec weights:weights=FILE")
    p.add_argument("--replace-shipped", action="store_true",
                   help=f"allow --out to be the shipped {TUNED_FILE.name}, which every `weights` agent loads")
    args = p.parse_args(argv)
    if Path(args.out).resolve() == TUNED_FILE.resolve() and not args.replace_shipped:
        p.error(f"--out {args.out} is the shipped weights file that every `weights` agent loads; "
                "write elsewhere, or add --replace-shipped to change it on purpose")
    if Path(args.out).is_dir() or not Path(args.out).resolve().parent.is_dir():
        p.error(f"--out {args.out}: not a file in an existing folder")
    opponents = [s.strip() for s in args.vs.split(",") if s.strip()]
    for o in opponents:
        make_agent(o)                      # an unknown opponent fails here, before the search
    t0 = time.perf_counter()
    res = tune(args.deals, args.candidates, args.seed, opponents)
    w: RuleWeights = res["weights"]
    out = {"format": WEIGHTS_FORMAT, "version": WEIGHTS_VERSION, **asdict(w), "_meta": {
        "command": "ddzlab train weights " + " ".join(argv),
        "search_score": res["search_score"], "validation_best": res["validation_best"],
        "validation_start": res["validation_start"], "opponents": opponents,
        "seconds": round(time.perf_counter() - t0, 1), "trials": res["trials"]}}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"search WP {res['search_score']:.3f}; validation: best {res['validation_best']:.3f}, "
          f"start {res['validation_start']:.3f}\n{describe(w)}\nsaved {args.out}; play it with the "
          f"agent spec weights:weights={args.out}")
    return 0


# registered by a call, not a decorator: a mutation tool skips decorated functions
register_trainer("weights")(train_weights)

__all__ = ["tune", "training_deals", "win_rate", "perturb", "SPACE", "TRAIN_TAG", "train_weights"]
