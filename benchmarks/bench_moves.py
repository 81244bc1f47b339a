"""Leading-move enumeration throughput: ddzlab vs DouZero's MovesGener vs RLCard's judger.

Every engine lists all leading moves of the same distinct random hands through its public
entry point, under the rules of `_common` (same GC state, results dropped by all or kept by
all, interleaved rounds, best and median):

* ``ddzlab legal_moves`` — `ddzlab.moves.legal_moves(hand)`: checks the hand against the
  deck and returns each legal move once (the set the differential test compares).
  *cold*: the rule set's move tables are rebuilt before every round (`generator.cache_clear`),
  so the round pays for building the tables and filling the per-rank-pattern caches from
  these hands; *warm*: the same hands again with the caches filled.
* ``DouZero gen_moves`` — ``MovesGener(cards).gen_moves()``, what DouZero's own ``GameEnv``
  lists for a lead: it repeats some moves and includes the few its detector calls WRONG,
  so it does *less* work than ddzlab (no de-duplication, no filtering). The headline ratio.
* ``DouZero + detector`` (``--detector``) — the same list de-duplicated and filtered by its
  ``move_detector`` (docs/rules.md#the-standard-game): the exact set the differential test compares, and
  DouZero's cost of producing it.
* ``RLCard judger`` — ``DoudizhuJudger.playable_cards_from_hand(text)``: RLCard's leading set
  as strings (it forbids B+R kickers; its own caches warm over the rounds).

Run: ``python benchmarks/bench_moves.py [--hands 20000] [--rounds 5] [--keep] [--gc-on] [--wall]``.
"""
import argparse
import time

from _common import Engine, distinct_hands, douzero_cards, each, table, time_rounds

from ddzlab.moves import generator, legal_moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 17])
    parser.add_argument("--keep", action="store_true", help="keep every result until the round ends")
    parser.add_argument("--gc-on", action="store_true", help="leave the garbage collector on (for all)")
    parser.add_argument("--detector", action="store_true",
                        help="also time DouZero's list filtered by its detector (slow)")
    parser.add_argument("--no-rlcard", action="store_true")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of this process's CPU time")
    args = parser.parse_args()
    for size in args.sizes:
        hands = distinct_hands(args.hands, size, seed=size)
        n = len(hands)
        lm = legal_moves
        engines = [Engine("ddzlab legal_moves (cold)", each(lm, hands, args.keep), n,
                          setup=generator.cache_clear),
                   Engine("ddzlab legal_moves (warm)", each(lm, hands, args.keep), n)]
        ref = engines[0].name
        try:
            from douzero.env import move_detector as md
            from douzero.env.move_generator import MovesGener
            dz = [douzero_cards(h.bits) for h in hands]
            engines.append(Engine("DouZero gen_moves", each(lambda c: MovesGener(c).gen_moves(), dz, args.keep), n))
            ref = engines[-1].name
            if args.detector:
                wrong, move_type = md.TYPE_15_WRONG, md.get_move_type

                def filtered(c):
                    return [m for m in {tuple(sorted(m)) for m in MovesGener(c).gen_moves()}
                            if move_type(list(m))["type"] != wrong]
                engines.append(Engine("DouZero + detector", each(filtered, dz, args.keep), n))
        except ImportError:
            print("DouZero not installed: pip install --no-deps douzero==1.1.0")
        if not args.no_rlcard:
            try:
                from rlcard.games.doudizhu.judger import DoudizhuJudger
                rl = [str(h) for h in hands]
                engines.append(Engine("RLCard judger", each(DoudizhuJudger.playable_cards_from_hand, rl, args.keep), n))
            except ImportError:
                print("RLCard not installed: pip install rlcard==1.2.0")
        time_rounds(engines, args.rounds, gc_off=not args.gc_on,
                    clock=time.perf_counter if args.wall else time.process_time)
        print(f"\nleading moves of {n:,} distinct random {size}-card hands, {args.rounds} rounds, "
              f"GC {'on' if args.gc_on else 'off'}, results {'kept' if args.keep else 'dropped'}, "
              f"{'wall' if args.wall else 'CPU'} time")
        print(table(engines, "hands/s", ref))


if __name__ == "__main__":
    main()
