"""The compiled search core against its Python references, position by position.

Used by tests/search/test_compiled.py at a CI size and, at full size (100,000 positions per rule
set), as a script::

    python tests/compiled_check.py [--positions 100000] [--rules standard mini] [--seed 0]

Positions are random points of random games (every position of games played by uniformly
random legal moves), plus leads and replies of clumpy hands (many trios, bombs and planes:
the kicker enumeration's hard cases). At each position it checks

* the core's legal moves == ``ddzlab.legal_moves`` (the same list: moves and order);
* the core's greedy choice == ``greedy_choice`` (with the rollout's partner and threat facts),
  an index among the legal moves (a -1 would read the last move in Python, garbage in the
  core), and the same through ``choose`` (policy ``greedy``, no exploration);
* the core's split filter == ``ddzlab.agents.mcts.split_filter``, and the ``split+policy``
  filter with the greedy prior == the Python search's (``_legal`` of an ``ismcts`` on the
  Python backend);
* at every 20th position, a whole greedy rollout of the core (``rollout``) == the Python
  `GreedyRollout` played from there: the moves counted, the end state, who won per seat;
  twice, listing every step's moves and as the searches run it (leads from a memo kept over
  the whole check, replies to a unit off the hand's masks);

and each game, replayed in the core by the same choices, has the state `from_game` gives
after every move, and ends with the same scores and winning sides (``side_won``); so do
random two-player games (no landlord).

Under the wildcard rules the core lists a hand's moves in its own order (docs/core.md): the
lists are compared as sets (each move once, with its reading), the natural moves (no ``F``)
in order and pass last; and every Python policy (greedy, the split filter, the search's
``split+policy`` filter, the greedy rollout) is run on the core's order (the game's legal
list is set to it), so their choices compare one for one. Hands holding ``F`` of up to 10
cards are also compared with the rule-text oracle (tests/oracle.py: leads, replies, and
``F`` read as its lowest rank).

Then the compiled `weights` play (``ddzlab.search.weights``) against ``WeightsAgent.play``
at every position of games between mixed agents (weights, greedy, random, smallest, and
rulev1 on the standard rules), for the tuned weights, ablations (``off``), perturbed
`RuleWeights` and perturbed `PowerConstants`; and the compiled hand power and best split
against ``PowerSolver`` on the hand to act; with the tuned weights, the ``split+policy`` filter
with the weights prior == the Python search's; the follow threshold at its boundary (a
threshold equal to the value of the best reply: that reply is played); the power of the
empty hand after the memo was reset. Rule sets: all four. Under the wildcard rules the Python
agent and solver take the core's order (`CoreOrderWeights`: the legal list and the plays of the
hand power in the core's order, which decide ties, docs/core.md).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402
from conftest import clumpy_hand  # noqa: E402

from ddzlab.agents.base import make_agent  # noqa: E402
from ddzlab.agents.greedy import GreedyAgent, greedy_choice  # noqa: E402
from ddzlab.agents.mcts import GreedyRollout, ISMCTSAgent, side_won as py_side_won, split_filter  # noqa: E402
from ddzlab.agents.weights import RULES, RuleWeights, WeightsAgent, load_weights  # noqa: E402
from ddzlab.agents.weights_compiled import WeightsCore  # noqa: E402
from ddzlab.analysis.power import SEED_POWER, PowerConstants, PowerSolver  # noqa: E402
from ddzlab.game import Game, Observation  # noqa: E402
from ddzlab.moves import legal_moves  # noqa: E402
from ddzlab.cards import F_BIT, Hand  # noqa: E402
from ddzlab.moves import Move  # noqa: E402
from ddzlab.moves.compiled import MAX_MOVES, compiled_moves, core_table, decode, encode, scratch  # noqa: E402
from ddzlab.rules import Rules, get_rules  # noqa: E402
from ddzlab.search import from_game  # noqa: E402
from ddzlab.search.policies import POLICIES, choose, greedy_index, keep_prior, new_lead_memo, rollout  # noqa: E402
from ddzlab.search.policies import split_filter as core_split  # noqa: E402
from ddzlab.search.power import STARTS, context, hand_plays, power, split  # noqa: E402
from ddzlab.search.state import legal, play, scores, side_won  # noqa: E402
from ddzlab.search.weights import choose_weights, stand_in  # noqa: E402


@dataclass
class Report:
    """Counts of what was compared, and the first mismatches (as text)."""
    positions: int = 0
    greedy: int = 0
    splits: int = 0
    priors: int = 0
    rollouts: int = 0
    games: int = 0
    two_player: int = 0
    hands: int = 0
    weights: int = 0
    thresholds: int = 0
    powers: int = 0
    flower: int = 0          # positions whose hand to act holds F
    weights_flower: int = 0  # weights plays whose hand to act holds F
    oracle: int = 0          # move lists compared with the rule-text oracle
    progress: bool = False   # print a line every 10,000 positions (the script's runs)
    failures: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        if len(self.failures) < 20:
            self.failures.append(text)


def _random_start(rules, rng) -> Game:
    """A random deal at the start of the play: with bidding, a random first bidder takes it
    with a random bid (the scores use it)."""
    if not rules.bidding:
        return Game(rules=rules, seed=rng)
    game = Game(rules=rules, seed=rng, first_bidder=int(rng.integers(3)))
    game.make_bid(int(rng.integers(1, 4)))
    while game.landlord is None:
        game.make_bid(0)
    return game


def same_moves(got: list[Move], want: list[Move]) -> bool:
    """The core's list against the Python generator's under the wildcard rules: the same moves,
    each once, with the same readings; the natural moves in the same order; pass last."""
    return (len(got) == len(set(got)) == len(want) and set(got) == set(want)
            and [m for m in got if m.reading is None] == [m for m in want if m.reading is None]
            and (not want[-1].is_pass or got[-1] == want[-1]))


def _core_order(game: Game) -> None:
    """Make ``game.legal_moves()`` give the core's list (under the wildcard rules, the Python
    policies then break ties in the core's order, as the compiled ones do)."""
    if game.rules.wildcard is not None and not game.is_over:
        game._legal = compiled_moves(game.hands[game.to_act], game.rules, game.last_move)


def check_games(rules: Rules, positions: int, seed: int, report: Report, width: int = 8) -> None:
    """Random games until ``positions`` positions were compared (see module docstring)."""
    rng = np.random.default_rng(seed)
    t = core_table(rules)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    fc, fm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    rc, rm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    sc = scratch()
    pt, w = stand_in(rules)
    leads = new_lead_memo()
    prior_search = ISMCTSAgent(moves="split+policy", rollout="greedy", width=width, backend="python")
    while report.positions < positions:
        game = _random_start(rules, rng)
        st = from_game(game)
        wild = rules.wildcard is not None
        while not game.is_over:
            expect = game.legal_moves()
            n = legal(t, st, oc, om, sc)
            got = [(int(oc[i]), int(om[i])) for i in range(n)]
            report.positions += 1
            report.flower += bool(game.hands[game.to_act] & F_BIT)
            if report.progress and report.positions % 10_000 == 0:
                print(f"  {rules.name}: {report.positions:,} positions, {len(report.failures)} mismatches",
                      file=sys.stderr, flush=True)
            if not (same_moves([decode(*m) for m in got], expect) if wild else got == [encode(m) for m in expect]):
                report.fail(f"{rules.name} legal moves of {game.hand(game.to_act)} on {game.last_move}: "
                            f"{compiled_moves(game.hands[game.to_act], rules, game.last_move)} != {expect}")
                break
            if wild:
                _core_order(game)
                expect = game.legal_moves()
            s, last = game.to_act, game.last_seat
            following = game.last_move is not None
            partner = following and game.landlord is not None and s != game.landlord and last != game.landlord
            threat = following and game.sizes[last] <= 4
            want = greedy_choice(game.hands[s], expect, following, partner, threat)
            report.greedy += 1
            gi = greedy_index(st, oc, om, n)
            if not 0 <= gi < n or expect[gi] != want:
                report.fail(f"{rules.name} greedy of {game.hand(s)} on {game.last_move}: "
                            f"index {gi} of {n} != {expect.index(want)} ({want})")
            if choose(t, st, oc, om, n, POLICIES["greedy"], 0.0, pt, w) != gi:
                report.fail(f"{rules.name} choose(greedy) != greedy_index at {game.hand(s)}")
            if report.positions % 20 == 0:
                _check_rollout(t, game, st, rc, rm, pt, w, report, leads)
            if n > width:
                k = core_split(st, oc, om, n, width, fc, fm)
                report.splits += 1
                if [(int(fc[i]), int(fm[i])) for i in range(k)] != [encode(m) for m in
                                                                     split_filter(game, expect, width)]:
                    report.fail(f"{rules.name} split filter of {game.hand(s)} on {game.last_move}")
                if k < n:
                    _check_prior(t, game, st, oc, om, n, k, fc, fm, POLICIES["greedy"], pt, w, prior_search, report)
            i = int(rng.integers(n))
            if wild and rng.random() < 0.75:      # F moves are many: keep F in the hand for longer
                natural = [j for j in range(n) if not expect[j].cards & F_BIT]
                i = natural[int(rng.integers(len(natural)))] if natural else i
            game.push(expect[i])
            play(st, oc[i], om[i])
            if not np.array_equal(st, from_game(game)):
                report.fail(f"{rules.name} core state after {game.actions[-1]} of {game.actions}: "
                            f"{st.tolist()} != {from_game(game).tolist()}")
                break
        else:
            report.games += 1
            out = np.zeros(3, dtype=np.int64)
            scores(st, out)
            won = [bool(side_won(st, s)) for s in range(game.players)]
            if (not np.array_equal(st, from_game(game)) or tuple(out[:game.players]) != game.scores
                    or won != [py_side_won(game, s) for s in range(game.players)]):
                report.fail(f"{rules.name} game of {game.actions}: core state {st.tolist()} "
                            f"!= {from_game(game).tolist()} or scores {out} != {game.scores} "
                            f"or sides won {won}")


def _check_prior(t, game: Game, st, oc, om, n, k, fc, fm, policy, pt, w, search: ISMCTSAgent,
                 report: Report) -> None:
    """The core's ``split+policy`` filter (the ``k`` moves of the split filter in ``fc``/``fm``
    and the policy's own move) == the Python search's moves at ``game``."""
    k = keep_prior(t, st, oc, om, n, k, policy, pt, w, fc, fm)
    report.priors += 1
    if [(int(fc[i]), int(fm[i])) for i in range(k)] != [encode(m) for m in search._legal(game)]:
        report.fail(f"{game.rules.name} split+policy filter ({search.rollout.name}) of "
                    f"{game.hand(game.to_act)} on {game.last_move}")


def _check_rollout(t, game: Game, st: np.ndarray, oc, om, pt, w, report: Report, leads) -> None:
    """The core's greedy rollout from this position == the Python greedy rollout (no
    exploration, so both are deterministic): moves played, end state, winning sides; both
    the rollout that lists every step's moves and the searches' one, which takes its leads
    from ``leads`` (a memo kept over the whole check) and its unit replies off the masks."""
    g = game.copy()
    policy, never = GreedyRollout(epsilon=0.0), random.Random(0)     # epsilon 0: never explores
    moves = 0
    while not g.is_over:
        _core_order(g)
        g.push(policy.choose(g, g.legal_moves(), never))
        moves += 1
    for memo in (None, leads):
        end = st.copy()
        steps = rollout(t, end, POLICIES["greedy"], 0.0, oc, om, pt, w, memo)
        report.rollouts += 1
        if (steps != moves or not np.array_equal(end, from_game(g))
                or [bool(side_won(end, s)) for s in range(g.players)] != [py_side_won(g, s) for s in range(g.players)]):
            report.fail(f"{game.rules.name} greedy rollout ({'with' if memo is not None else 'without'} the lead "
                        f"memo) from {game.actions}: {steps} moves != {moves} or end state {end.tolist()} "
                        f"!= {from_game(g).tolist()}")


def check_two_player(rules: Rules, n: int, seed: int, report: Report) -> None:
    """``n`` random two-player games (no landlord, no auction): the same legal moves and
    state after every move, the same scores and winning sides at the end."""
    rng = np.random.default_rng(seed)
    t = core_table(rules)
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    sc = scratch()
    for _ in range(n):
        game = Game(rules=rules, players=2, seed=rng)
        st = from_game(game)
        while not game.is_over:
            expect = game.legal_moves()
            k = legal(t, st, oc, om, sc)
            got = [(int(oc[i]), int(om[i])) for i in range(k)]
            if rules.wildcard is not None and same_moves([decode(*m) for m in got], expect):
                _core_order(game)
                expect = game.legal_moves()
            elif got != [encode(m) for m in expect]:
                report.fail(f"{rules.name} two-player legal moves of {game.hand(game.to_act)} on {game.last_move}")
                break
            i = int(rng.integers(k))
            game.push(expect[i])
            play(st, oc[i], om[i])
        out = np.zeros(3, dtype=np.int64)
        scores(st, out)
        won = [bool(side_won(st, s)) for s in range(2)]
        report.two_player += 1
        if (not np.array_equal(st, from_game(game)) or tuple(out[:2]) != game.scores
                or won != [py_side_won(game, s) for s in range(2)]):
            report.fail(f"{rules.name} two-player game {game.actions}: scores {out[:2]} != {game.scores}, "
                        f"sides won {won}")


def check_hands(rules: Rules, n: int, seed: int, report: Report) -> None:
    """Leads of ``n`` clumpy hands, and their replies to a random lead of another and to a
    random bomb or rocket of it (a bomb met by a bomb is rare in random play)."""
    rng = np.random.default_rng(seed)
    wild = rules.wildcard is not None
    for i in range(n):
        size = int(rng.integers(1, 21 if rules.hand_size > 10 else 13))
        hand, other = clumpy_hand(rng, rules, size), clumpy_hand(rng, rules, size)
        if wild and i % 2 == 0:
            hand, other = _with_flower(hand), _with_flower(other)
        leads = legal_moves(other, rules)
        beat = leads[int(rng.integers(len(leads)))]
        bombs = [m for m in leads if m.is_bomb]
        for to_beat in (None, beat, *([bombs[int(rng.integers(len(bombs)))]] if bombs else [])):
            report.hands += 1
            got, want = compiled_moves(hand.bits, rules, to_beat), legal_moves(hand, rules, to_beat)
            if not (same_moves(got, want) if wild else got == want):
                report.fail(f"{rules.name} moves of clumpy hand {hand} on {to_beat}")


def _with_flower(hand: Hand) -> Hand:
    """The hand holding F: a hand without it trades its lowest card for it."""
    if hand.bits & F_BIT:
        return hand
    low = hand.bits & -hand.bits
    return Hand.from_bits(hand.bits - (1 << (4 * ((low.bit_length() - 1) // 4))) + F_BIT)


def check_oracle(rules: Rules, n: int, seed: int, report: Report) -> None:
    """``n`` hands of 2-10 cards holding F (random and clumpy): the core's leads, and its
    replies to a random lead of another such hand, against the rule-text oracle's moves
    (cards paid, kind, rank, length), each once, with F read as the lowest rank that makes
    the move."""
    rng = np.random.default_rng(seed)
    rt = oracle.text_of(rules)
    deck = [r for r in range(15) for _ in range((rules.deck >> (4 * r)) & 15)]
    for i in range(n):
        hands = []
        for _ in range(2):
            size = int(rng.integers(2, 11))
            if i % 2:
                h = clumpy_hand(rng, rules, size - 1)
            else:
                h = Hand.from_bits(sum(1 << (4 * r) for r in rng.permutation(deck)[:size - 1]))
            hands.append(h if h.bits & F_BIT else h + Hand("F"))
        hand, opener = hands
        got = compiled_moves(hand.bits, rules)
        seen = {(m.cards, m.kind, m.rank, m.length) for m in got}
        report.oracle += 1
        if len(seen) != len(got) or seen != oracle.wild_leading(hand, rules) or any(
                m.reading is not None and m.reading != oracle.lowest_reading(m.cards, (m.kind, m.rank, m.length), rt)
                for m in got):
            report.fail(f"{rules.name} leads of {hand} against the rule-text oracle")
            continue
        leads = sorted(oracle.wild_leading(opener, rules))
        cards, kind, rank, length = leads[int(rng.integers(len(leads)))]
        x = oracle.lowest_reading(cards, (kind, rank, length), rt) if cards & F_BIT else None
        replies = compiled_moves(hand.bits, rules, Move(kind, rank, length, cards, x))
        seen = {(m.cards, m.kind, m.rank, m.length) for m in replies}
        report.oracle += 1
        if (len(seen) != len(replies) or not replies[-1].is_pass
                or seen != oracle.wild_replies(hand, rules, (kind, rank, length))):
            report.fail(f"{rules.name} replies of {hand} to {Move(kind, rank, length, cards, x)} "
                        "against the rule-text oracle")


class CoreOrderGreedy(GreedyAgent):
    """`GreedyAgent` choosing from the core's list of the observation's legal moves: under the
    wildcard rules its order decides greedy's ties, in the compiled rollouts and likelihoods."""

    def play(self, obs: Observation) -> Move:
        if obs.rules.wildcard is not None and obs.legal_moves:
            obs = replace(obs, legal_moves=tuple(compiled_moves(obs.hand.bits, obs.rules, obs.last_move)))
        return super().play(obs)


class CoreOrderWeights(WeightsAgent):
    """`WeightsAgent` whose hand power takes the plays in the core's order (`lead_moves`): under
    the wildcard rules that order, not the Python generator's, decides the ties of the best
    split, as the legal list's order decides the ties of the choice (docs/core.md)."""

    def solver(self, hand: int, rules: Rules) -> PowerSolver:
        if rules.wildcard is None:
            return super().solver(hand, rules)
        return PowerSolver(hand, rules, self.power_constants, plays=compiled_moves(hand, rules))


def core_solver(hand: int, rules: Rules, constants: PowerConstants) -> PowerSolver:
    """`PowerSolver` of ``hand`` with its plays in the order the core's hand power takes them."""
    return CoreOrderWeights(power=constants).solver(hand, rules)


def weights_variants(rng: np.random.Generator) -> list[tuple[str, WeightsAgent, WeightsCore]]:
    """The tuned weights, three ablations, two perturbed weight sets, one perturbed power (the
    Python agents take their plays in the core's order under the wildcard rules)."""
    tuned = load_weights()
    out = [("tuned", tuned, frozenset(), SEED_POWER)]
    for _ in range(3):
        off = frozenset(str(x) for x in rng.choice(RULES, size=int(rng.integers(1, 4)), replace=False))
        out.append((f"off={','.join(sorted(off))}", tuned, off, SEED_POWER))
    for _ in range(2):
        w = RuleWeights(follow_threshold=float(rng.integers(-150, 100)), high_cost=float(rng.integers(0, 120)),
                        early_cards=int(rng.integers(2, 12)), partner_out=int(rng.integers(0, 5)),
                        partner_gain=float(rng.integers(0, 250)), partner_max_rank=int(rng.integers(5, 13)),
                        gate_ranks=tuple(sorted(int(x) for x in rng.integers(6, 13, size=2))),
                        gate_below=int(rng.integers(5, 12)), urgent_cards=int(rng.integers(1, 7)),
                        bomb_threat=int(rng.integers(1, 8)), bomb_rest_plays=int(rng.integers(0, 4)))
        out.append((f"weights {w}", w, frozenset(), SEED_POWER))
    power = PowerConstants(one_hand=-120.0, solo=(0.5, 0.017), chain=0.03, bomb=(-5.5, 0.2))
    out.append(("power constants", tuned, frozenset(), power))
    return [(name, CoreOrderWeights(w, off, p), WeightsCore(w, off, p)) for name, w, off, p in out]


def check_weights(rules: Rules, positions: int, seed: int, report: Report) -> None:
    """Games of mixed agents until ``positions`` positions were compared: at each, the
    compiled weights play == ``WeightsAgent.play`` (variant drawn per game), and the compiled
    hand power and split of the hand to act == ``PowerSolver``'s."""
    rng = np.random.default_rng(seed)
    t = core_table(rules)
    variants = weights_variants(rng)
    names = ["weights", "weights", "greedy", "random", "smallest"] + (["rulev1"] if rules.name == "standard" else [])
    oc, om = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    pc, pm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    pp, start = np.empty(MAX_MOVES, dtype=np.float64), np.empty(STARTS, dtype=np.int64)
    xc, xm = np.empty(64, dtype=np.int64), np.empty(64, dtype=np.int64)
    fc, fm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    sc = scratch()
    prior_search = ISMCTSAgent(moves="split+policy", rollout="weights", backend="python")
    prior_search.rollout._agent = CoreOrderWeights()     # its prior, on the core's order
    wild = rules.wildcard is not None
    done = 0
    while done < positions:
        name, ref, core = variants[0] if rng.random() < 0.5 else variants[int(rng.integers(len(variants)))]
        _, pt, w = core.tables(rules)
        game = _random_start(rules, rng)
        seats = [ref if (a := names[int(rng.integers(len(names)))]) == "weights"
                 else make_agent(a, seed=int(rng.integers(2**31))) for _ in range(game.players)]
        while not game.is_over:
            s = game.to_act
            _core_order(game)
            obs = game.observation(s)
            report.weights_flower += wild and bool(game.hands[s] & F_BIT)
            st = from_game(game)
            n = legal(t, st, oc, om, sc)
            want = ref.play(obs)
            wi = choose_weights(t, pt, w, st, oc, om, n)
            got = obs.legal_moves[wi] if 0 <= wi < n else f"index {wi} of {n}"
            done += 1
            report.weights += 1
            if choose(t, st, oc, om, n, POLICIES["weights"], 0.0, pt, w) != wi:
                report.fail(f"{rules.name} choose(weights) != choose_weights at {obs.hand}")
            if got != want:
                report.fail(f"{rules.name} weights ({name}) seat {s} hand {obs.hand} on {obs.last_move} "
                            f"(history {[str(m) for _, m in obs.history[-3:]]}): {got} != {want} "
                            f"({ref.explain(obs).rule})")
            if done % 7 == 0 and core.play(obs) != want:      # the Observation path
                report.fail(f"{rules.name} weights ({name}) from the observation, hand {obs.hand}")
            if name == "tuned" and n > prior_search.width:
                k = core_split(st, oc, om, n, prior_search.width, fc, fm)
                if k < n:
                    _check_prior(t, game, st, oc, om, n, k, fc, fm, POLICIES["weights"], pt, w, prior_search,
                                 report)
            if done % 5 == 0 and obs.last_move is not None and not want.is_pass:
                _check_threshold(rules, ref, core, obs, st, oc, om, n, report)
            if done % 3 == 0:
                hand = game.hands[s]
                solver = core_solver(hand, rules, core.power_constants)
                hand_plays(t, pt, hand, pc, pm, pp, start, sc)
                k = split(pt, hand, pc, pm, pp, start, xc, xm)
                report.powers += 1
                if (power(pt, hand, pc, pp, start) != solver.power(hand)
                        or [(int(xc[i]), int(xm[i])) for i in range(k)] != [encode(m) for m in solver.split(hand)]):
                    report.fail(f"{rules.name} power/split ({name}) of {game.hand(s)}")
            game.push(seats[s].play(obs) if seats[s] is not ref else want)


def _check_threshold(rules, ref, core, obs, st, oc, om, n, report: Report) -> None:
    """With ``follow_threshold`` set to the value of the reply the weights play chose by
    its base rule (``follow_power``), that reply is still played (the rule says value ≥
    threshold), in Python and in the core."""
    ex = ref.explain(obs)
    if ex.rule != "follow_power" or not isinstance(ref.w, RuleWeights):
        return
    value = dict(ex.values)[ex.move]
    edge = replace(ref.w, follow_threshold=value)
    agent, twin = type(ref)(edge, ref.off, ref.power_constants), WeightsCore(edge, core.off, core.power_constants)
    t, pt, w = twin.tables(rules)
    i = choose_weights(t, pt, w, st, oc, om, n)
    report.thresholds += 1
    if agent.play(obs) != ex.move or not 0 <= i < n or obs.legal_moves[i] != ex.move:
        report.fail(f"{rules.name} weights with follow_threshold = {value} (the reply's value) at {obs.hand} "
                    f"on {obs.last_move}: not {ex.move}")


def check_power_reset(rules: Rules, n: int, seed: int, report: Report) -> None:
    """A tiny memo (16 slots) resets often: hand powers stay PowerSolver's, the empty hand's
    power stays 0 after every reset."""
    rng = np.random.default_rng(seed)
    t = core_table(rules)
    pt = context(rules, memo_bits=4)
    pc, pm = np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64)
    pp, start = np.empty(MAX_MOVES, dtype=np.float64), np.empty(STARTS, dtype=np.int64)
    sc = scratch()
    for i in range(n):
        hand = clumpy_hand(rng, rules, int(rng.integers(1, 11)))
        if rules.wildcard is not None and i % 2:
            hand = _with_flower(hand)
        hand_plays(t, pt, hand.bits, pc, pm, pp, start, sc)
        report.powers += 1
        if power(pt, hand.bits, pc, pp, start) != PowerSolver(hand.bits, rules).power(hand.bits):
            report.fail(f"{rules.name} power of {hand} with a 16-slot memo")
        if power(pt, 0, pc, pp, start) != 0.0:
            report.fail(f"{rules.name} power of the empty hand after {hand}: not 0")


def check(rules: Rules, positions: int, seed: int = 0, weights: int | None = None,
          oracle_hands: int | None = None, progress: bool = False) -> Report:
    """Every comparison above; ``weights`` positions for the weights play (default ``positions``),
    ``oracle_hands`` hands against the rule-text oracle under the
    wildcard rules (default ``positions // 100``)."""
    report = Report(progress=progress)
    wild = rules.wildcard is not None
    check_games(rules, positions, seed, report)
    if progress:
        print(f"  {rules.name}: games done; clumpy hands", file=sys.stderr, flush=True)
    check_hands(rules, max(1, positions // 10), seed + 1, report)
    if progress:
        print(f"  {rules.name}: clumpy hands done, {len(report.failures)} mismatches", file=sys.stderr, flush=True)
    if wild:
        check_oracle(rules, max(1, positions // 100) if oracle_hands is None else oracle_hands, seed + 5, report)
    check_weights(rules, positions if weights is None else weights, seed + 2, report)
    check_power_reset(rules, max(1, positions // 20), seed + 3, report)
    check_two_player(rules, max(1, positions // 100), seed + 4, report)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=100_000)
    ap.add_argument("--rules", nargs="+", default=["standard", "mini", "homework", "wildcard"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--weights", type=int, default=None,
                    help="positions for the weights play (default: --positions)")
    ap.add_argument("--oracle", type=int, default=None,
                    help="wildcard hands against the rule-text oracle (default: --positions / 100)")
    args = ap.parse_args()
    bad = 0
    for name in args.rules:
        start = time.perf_counter()
        r = check(get_rules(name), args.positions, args.seed, args.weights, args.oracle, progress=True)
        print(f"{name}: {r.positions} positions (legal moves, leading and following), {r.greedy} greedy choices, "
              f"{r.splits} split filters, {r.rollouts} greedy rollouts, {r.games} whole games (end state, "
              f"scores, sides won), {r.two_player} two-player games, {r.hands} clumpy-hand move lists, {r.weights} weights plays (mixed-agent "
              f"games; tuned, ablated, perturbed), {r.thresholds} follow thresholds at the boundary, "
              f"{r.powers} hand powers and splits, {r.flower} positions with F to act ({r.weights_flower} of the weights plays), {r.oracle} wildcard "
              f"move lists against the rule-text oracle: {len(r.failures)} mismatches "
              f"({time.perf_counter() - start:,.0f} s wall)")
        for f in r.failures:
            print("  ", f)
        bad += len(r.failures)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
