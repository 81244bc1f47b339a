"""Training frames per second: ddzlab's DMC loop (`ddzlab.env.dmc`) against DouZero's own
training loop (``douzero.dmc.dmc.train``), same network, same number of actors, on CPU.

A *frame* is one decision the learner trains on (both loops count frames the same way: a
learner step consumes ``unroll × batch`` of them). Each contender runs in its own fresh
subprocess for ``--frames`` frames with the same ``--unroll`` and ``--batch``, one actor,
DouZero's network, optimiser and exploration (epsilon 0.01), the ADP objective, and
``OMP_NUM_THREADS=1`` / one torch thread per process:

* ``ddzlab`` -- ``ddzlab.env.dmc.train``: the actor and the learner take turns in one process
  (games through ddzlab's engine and DouZero's features, then every learner step that is ready).
  With ``--workers 1`` ddzlab's actor runs in its own process instead (``workers=1``), the
  structure DouZero's loop has.
* ``DouZero`` -- ``douzero.dmc.dmc.train`` with ``--actor_device_cpu --training_device cpu
  --num_actors 1`` (its defaults otherwise: 4 learner threads per position, 50 buffers): one
  actor process (DouZero's ``GameEnv`` and ``get_obs``) feeding the learner's threads through
  shared-memory buffers, so actor and learner can run at the same time on two cores.

The clock: the wall time of each learner step (``on_step`` for ddzlab, a wrapper of DouZero's
``learn`` for DouZero); a run's rate is the frames of its steps after the first divided by the
time from the first step to the last, so start-up (imports, spawning the actor) and the
first rollouts are left out. Wall time, not CPU time: DouZero's work is spread over two
processes. Rounds alternate (ddzlab, DouZero, ddzlab, ...), so a load change on a shared
machine hits both; the ratio is reported per round and as a geometric mean with a 95%
t-interval over the rounds.

    python benchmarks/bench_dmc.py [--frames N] [--unroll T] [--batch B] [--rounds R] [--seed S] [--workers W]

The defaults (T = 20, B = 8: a learner step of 160 frames) are smaller than DouZero's
(100 × 32) so that a round takes a minute on a loaded machine; acting dominates the time
either way (a learner step costs about as much as a few hundred decisions).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DDZLAB = r"""
import json, sys, time
from ddzlab.env.dmc import DMCConfig, train
out, frames, unroll, batch, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
workers = int(sys.argv[6])
stamps = []
if __name__ == "__main__":
    train(out, frames, DMCConfig(seed=seed, unroll=unroll, batch=batch), checkpoint_every=10**12, progress=False,
          threads=1, workers=workers, on_step=lambda f, t: stamps.append((f, t)))
    print("STAMPS " + json.dumps(stamps))
"""

DOUZERO = r"""
import json, multiprocessing, os, sys, time, types
import numpy as np, torch
import douzero.dmc.dmc as D
from douzero.dmc.arguments import parser
out, frames, unroll, batch, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
torch.set_num_threads(1)
np.random.seed(seed)
torch.manual_seed(seed)
stamps, step = [], unroll * batch
learn = D.learn
def timed_learn(*args, **kwargs):
    stats = learn(*args, **kwargs)
    stamps.append((step * (len(stamps) + 1), time.perf_counter()))
    return stats
D.learn = timed_learn
D.time = types.SimpleNamespace(sleep=lambda s: time.sleep(min(s, 0.2)))   # its monitor loop polls every 5 s
flags = parser.parse_args(["--actor_device_cpu", "--training_device", "cpu", "--num_actors", "1",
                           "--unroll_length", str(unroll), "--batch_size", str(batch), "--total_frames", str(frames),
                           "--savedir", out, "--xpid", "bench", "--disable_checkpoint", "--objective", "adp"])
D.train(flags)
print("STAMPS " + json.dumps(stamps), flush=True)
for child in multiprocessing.active_children():     # its actors never stop by themselves
    child.terminate()
os._exit(0)
"""


def run(kind: str, frames: int, unroll: int, batch: int, seed: int, workers: int = 0) -> float:
    """Frames per second of one run (see the module docstring)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-c", DDZLAB if kind == "ddzlab" else DOUZERO, str(Path(tmp) / "run"),
                               str(frames), str(unroll), str(batch), str(seed), str(workers)],
                              env=env, capture_output=True, text=True, timeout=3600)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("STAMPS ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{kind} run failed ({done.returncode}):\n{done.stderr[-3000:]}")
    stamps = json.loads(lines[-1][len("STAMPS "):])
    if len(stamps) < 3:
        raise RuntimeError(f"{kind}: only {len(stamps)} learner steps; give more --frames")
    (f0, t0), (f1, t1) = stamps[0], stamps[-1]
    return (f1 - f0) / (t1 - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=4000)
    p.add_argument("--unroll", type=int, default=20)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=0,
                   help="ddzlab's actors: 0 = in the learner's process (default), 1 = one actor process as DouZero's")
    a = p.parse_args()
    from scipy import stats
    where = "in the learner's process" if a.workers == 0 else f"{a.workers} actor process(es)"
    print(f"DMC training loop, 1 actor (ddzlab: {where}), T={a.unroll} B={a.batch}, {a.frames:,} frames per run, "
          f"{a.rounds} rounds; "
          f"load average {os.getloadavg()[0]:.1f} at start")
    ours, theirs, ratios = [], [], []
    for r in range(a.rounds):
        x = run("ddzlab", a.frames, a.unroll, a.batch, a.seed + r, a.workers)
        y = run("douzero", a.frames, a.unroll, a.batch, a.seed + r)
        ours.append(x)
        theirs.append(y)
        ratios.append(x / y)
        print(f"round {r + 1}: ddzlab {x:,.0f} frames/s, DouZero {y:,.0f} frames/s, ratio {x / y:.2f}  "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    logs = [math.log(v) for v in ratios]
    mean = statistics.mean(logs)
    if len(logs) > 1:
        half = stats.t.ppf(0.975, len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
        interval = f"95% CI {math.exp(mean - half):.2f}-{math.exp(mean + half):.2f}"
    else:
        interval = "one round: no interval"
    print(f"ddzlab median {statistics.median(ours):,.0f} frames/s, DouZero median {statistics.median(theirs):,.0f} "
          f"frames/s; ratio ddzlab/DouZero: geometric mean {math.exp(mean):.2f} ({interval})")


if __name__ == "__main__":
    main()
