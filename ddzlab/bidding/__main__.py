"""``python -m ddzlab.bidding`` — the CV table of bidders on call.csv (project folds).

    python -m ddzlab.bidding                         # every model x feature set, quick grids
    python -m ddzlab.bidding --models rbf_svc --features compact seed --grid full --jobs 2
"""
from __future__ import annotations

import argparse
import time

import pandas as pd

from .data import load_calls
from .features import FEATURE_SETS
from .models import MODELS, best_cv_score, default_grid, grid_search, make_bidder


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ddzlab.bidding", description=__doc__.split("\n")[0])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    p.add_argument("--features", nargs="+", default=list(FEATURE_SETS), choices=list(FEATURE_SETS))
    p.add_argument("--grid", default="quick", choices=["test", "quick", "full"])
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    df = load_calls()
    rows = []
    for fs in args.features:
        for m in args.models:
            t = time.perf_counter()
            gs = grid_search(make_bidder(m, fs), df, default_grid(m, args.grid), n_jobs=args.jobs)
            s = best_cv_score(gs, f"{m}/{fs}")
            rows.append({"model": m, "features": fs, "mean": round(s.mean, 4),
                         "std": round(s.std, 4), "best params": gs.best_params_,
                         "seconds": round(time.perf_counter() - t, 1)})
            print(f"{s}  {gs.best_params_}", flush=True)
    print(pd.DataFrame(rows).sort_values("mean", ascending=False).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
