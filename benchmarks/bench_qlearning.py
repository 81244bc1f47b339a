"""Q-learning training speed: ddzlab's self-play trainer in games per second.

du-guai's own trainer is not run here: its speed, **17.1 training games/s**, is
quoted from docs/definitions.md#q-learning-player (measured on its code, on this kind of machine). The
run warms the greedy-split caches first (the steady state of a long run), then times
self-play with shared tables, and training against the seed's random players.

    python benchmarks/bench_qlearning.py [--games N] [--seed S]
"""
from __future__ import annotations

import argparse

from ddzlab.qtraining import TrainConfig, train

DUGUAI_GAMES_PER_S = 17.1      # docs/definitions.md#q-learning-player, quoted (not re-measured by this script)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    warm = train(TrainConfig(games=a.warmup, seed=a.seed + 1), progress=False)
    rows = []
    for opponents in ("self", "split_random"):
        res = train(TrainConfig(games=a.games, seed=a.seed, opponents=opponents), progress=False,
                    tables=warm.tables.copy())
        rows.append((opponents, res.games_per_second))
    print(f"Q-learning training, {a.games} games after {a.warmup} warm-up games (one process; "
          "the machine may be shared)")
    print(f"{'opponents':<14}{'games/s':>10}{'vs du-guai 17.1 (quoted, not measured)':>42}")
    for name, gps in rows:
        print(f"{name:<14}{gps:>10.1f}{gps / DUGUAI_GAMES_PER_S:>41.1f}x")


if __name__ == "__main__":
    main()
