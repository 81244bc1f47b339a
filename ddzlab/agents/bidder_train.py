"""``ddzlab train bidder``: grid-search a bidder on call.csv (project folds) and save it.

    ddzlab train bidder                                   # RBF SVC on the compact features
    ddzlab train bidder --model linear_svc --features seed --grid full --out my.json

The saved file (JSON: data only, never a pickle) loads with `ddzlab.bidding.load_bidder` and plugs into
`ThresholdBidder(path)` (`ddzlab.agents.threshold_bidder`), whose module this trainer serves.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..bidding.data import load_calls
from ..bidding.features import FEATURE_SETS
from ..bidding.models import MODELS, best_cv_score, default_grid, grid_search, make_bidder, save_bidder
from ..config import MODELS_DIR
from .base import register_trainer


def train_bidder(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="ddzlab train bidder", description=__doc__.split("\n")[0])
    p.add_argument("--model", default="rbf_svc", choices=MODELS)
    p.add_argument("--features", default="compact", choices=list(FEATURE_SETS))
    p.add_argument("--grid", default="quick", choices=["test", "quick", "full"])
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", default=None, help="model file, or a folder to put it in "
                   "(default data/models/bidder_MODEL_FEATURES.json)")
    args = p.parse_args(argv)
    name = f"bidder_{args.model}_{args.features}.json"
    out = Path(args.out) if args.out else MODELS_DIR / name
    if out.is_dir():                     # decided before training, not after it
        out = out / name
    gs = grid_search(make_bidder(args.model, args.features), load_calls(),
                     default_grid(args.model, args.grid), n_jobs=args.jobs)
    score = best_cv_score(gs, f"{args.model}/{args.features}")
    path = save_bidder(gs.best_estimator_, out, cv_mean=score.mean, cv_std=score.std,
                       params=dict(gs.best_params_))
    print(f"{score}  {gs.best_params_}\nsaved {path}")
    return 0


# registered by a call, not a decorator: a mutation tool skips decorated functions
register_trainer("bidder")(train_bidder)
