"""Leading-move enumeration throughput: ddzlab vs DouZero's MovesGener vs RLCard's judger.

Every engine enumerates all leading moves of the same distinct random hands; ddzlab returns
its own `Move` values. ddzlab runs first in a fresh process, so its "cold" figure includes
filling its lazily built tables; "warm" repeats the same hands. Run:
``python benchmarks/bench_moves.py [--hands 20000]``.
"""
import argparse

from _common import distinct_hands, douzero_cards, rate, table

from ddzlab.moves import generator
from ddzlab.rules import STANDARD


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=20_000)
    args = parser.parse_args()
    gen = generator(STANDARD)
    for size in (20, 17):
        hands = distinct_hands(args.hands, size, seed=size)
        bits = [h.bits for h in hands]
        rows = [("ddzlab (cold)", rate(lambda: [gen.leading(b) for b in bits], len(bits))),
                ("ddzlab (warm)", rate(lambda: [gen.leading(b) for b in bits], len(bits)))]
        try:
            from douzero.env.move_generator import MovesGener
            dz = [douzero_cards(h.bits) for h in hands]
            rows.append(("DouZero MovesGener", rate(lambda: [MovesGener(h).gen_moves() for h in dz], len(dz))))
        except ImportError:
            print("DouZero not installed: pip install --no-deps douzero==1.1.0")
        try:
            from rlcard.games.doudizhu.judger import DoudizhuJudger
            rl = [str(h) for h in hands]
            rows.append(("RLCard judger", rate(lambda: [DoudizhuJudger.playable_cards_from_hand(h) for h in rl],
                                               len(rl))))
        except ImportError:
            print("RLCard not installed: pip install rlcard==1.2.0")
        ref = "DouZero MovesGener" if any(n.startswith("DouZero") for n, _ in rows) else rows[0][0]
        print(f"\nleading moves of {len(hands):,} distinct random {size}-card hands")
        print(table(rows, "hands/s", ref))


if __name__ == "__main__":
    main()
