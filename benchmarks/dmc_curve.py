"""A short learning curve of `ddzlab.env.dmc`: train for a fixed wall-clock budget, then
measure each checkpoint's WP against ``random``.

Training runs in chunks of ``--every`` frames (one checkpoint each, DouZero's files in
``OUT``) until ``--minutes`` of wall time are spent; the seed's initial networks are written
to ``OUT/init`` as the frame-0 point. Each checkpoint then plays ``douzero:OUT,frames=F``
against ``random`` on the same ``--deals`` deals, sides swapped (`ddzlab.arena.duel`), and
one CSV row per checkpoint records frames, training seconds so far, and the combined WP
and its 95% interval (paired by deal), also as landlord and as farmers.

    python benchmarks/dmc_curve.py OUT --minutes 20 --every 1600 --deals 50 --csv FILE

A curve over minutes on a shared CPU shows whether the loop learns, not how strong DMC gets:
DouZero trains for days on GPUs.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--minutes", type=float, default=20.0)
    p.add_argument("--every", type=int, default=1600, help="frames between checkpoints")
    p.add_argument("--deals", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--unroll", type=int, default=20)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--objective", default="adp")
    p.add_argument("--csv", default=None, help="where to write the curve (default OUT/curve.csv)")
    a = p.parse_args()

    import torch

    from ddzlab.arena import duel
    from ddzlab.env.dmc import DMCConfig, initial_nets, train

    torch.set_num_threads(1)
    out = Path(a.out)
    cfg = DMCConfig(seed=a.seed, unroll=a.unroll, batch=a.batch, objective=a.objective)
    (out / "init").mkdir(parents=True, exist_ok=True)
    for position, net in initial_nets(a.seed).items():
        torch.save(net.state_dict(), out / "init" / f"{position}.ckpt")
    points = [(0, 0.0, f"douzero:{out / 'init'}")]
    spent, frames = 0.0, 0
    while spent < a.minutes * 60:
        frames += a.every
        res = train(out, frames, None if points[1:] else cfg, resume=bool(points[1:]), checkpoint_every=a.every,
                    progress=False, threads=1)
        spent += res.seconds
        points.append((res.frames, spent, f"douzero:{out},frames={res.frames}"))
        print(f"{res.frames:,} frames after {spent / 60:.1f} min of training ({res.fps:.0f} frames/s)", flush=True)
    rows = []
    for f, seconds, spec in points:
        df = duel(spec, "random", a.deals, progress=False, seed=a.seed)
        c, lord, farm = df.loc["combined"], df.loc["A landlord"], df.loc["A farmers"]
        rows.append({"frames": f, "train_seconds": round(seconds, 1), "wp": c.WP, "wp_lo": c.WP_lo,
                     "wp_hi": c.WP_hi, "wp_landlord": lord.WP, "wp_farmers": farm.WP, "games": int(c.n)})
        print(f"{f:>8,} frames: WP vs random {c.WP:.3f} ({c.WP_lo:.3f}-{c.WP_hi:.3f}); landlord {lord.WP:.3f}, "
              f"farmers {farm.WP:.3f}", flush=True)
    path = Path(a.csv) if a.csv else out / "curve.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path, index=False)
    print(f"wrote {path} ({time.strftime('%Y-%m-%d')}, seed {a.seed}, T={a.unroll} B={a.batch}, {a.objective})")


if __name__ == "__main__":
    main()
