"""MCTS agents: forced wins in hand-made endgames, reproducibility, budgets, components."""
from __future__ import annotations

import itertools
import math
import re

import pytest

from ddzlab.agents import make_agent, play_game
from ddzlab.agents.greedy import GreedyAgent
from ddzlab.agents.mcts import (HalfSoloRollout, MCTSConfigError, side_won, split_filter)
from ddzlab.cards import Hand
from ddzlab.deals import Deal, generate_deals
from ddzlab.determinize import hidden_sizes
from ddzlab.game import Game, Phase
from ddzlab.rules import MINI, STANDARD, WILDCARD

SEARCHERS = ["mcts", "ismcts"]
COMPONENTS = [{}, {"rollout": "halfsolo"}, {"rollout": "greedy"}, {"moves": "split", "width": 3},
              {"guesser": "bomb"}, {"guesser": "policy"}]


def solve(game: Game, seat: int) -> bool:
    """Perfect-information oracle: can ``seat``'s side force a win from here?"""
    if game.phase is Phase.FINISHED:
        return side_won(game, seat)
    mine = (game.to_act == seat if game.landlord is None
            else (game.to_act == game.landlord) == (seat == game.landlord))
    results = []
    for m in game.legal_moves():
        game.push(m)
        results.append(solve(game, seat))
        game.undo()
        if results[-1] == mine:            # our side found a win / theirs found a refutation
            return mine
    return not mine


def winning_everywhere(game: Game, seat: int) -> set[str]:
    """Moves of ``seat`` (to act) that force a win in every deal of the hidden cards the
    opponent of a two-player game might hold (every hand of its size)."""
    obs = game.observation(seat)
    (other,) = [s for s in hidden_sizes(obs) if s >= 0]
    pool = obs.unseen.ranks()
    winners = None
    for combo in set(itertools.combinations(pool, game.sizes[other])):
        world = Game(Deal((game.hands[0], Hand.from_ranks(combo).bits) if seat == 0
                          else (Hand.from_ranks(combo).bits, game.hands[1])),
                     rules=game.rules, players=2)
        ok = set()
        for m in world.legal_moves():
            world.push(m)
            if solve(world, seat):
                ok.add(str(m))
            world.undo()
        winners = ok if winners is None else winners & ok
    return winners


@pytest.mark.parametrize("hands, expect", [
    (("KK3", "4"), {"KK"}),              # the pair first: a single K can be beaten
    (("BR3", "5"), {"B", "R", "BR"}),    # anything unbeatable first, never the 3
    (("QQQ4", "5"), {"4QQQ", "QQQ"}),    # one card cannot beat a trio: out at once or next
])
@pytest.mark.parametrize("kind", ["mcts", "ismcts"])
def test_finds_the_forced_win_with_hidden_cards(kind, hands, expect):
    """1v1 endgames (seat 0 to lead, the opponent's card unknown among 50+ unseen): the
    searcher must pick a move that wins whatever the opponent holds."""
    game = Game(Deal((Hand(hands[0]).bits, Hand(hands[1]).bits)), players=2)
    assert winning_everywhere(game, 0) == expect          # the oracle agrees with the comment
    agent = make_agent(kind, seed=1, iterations=200)
    assert str(agent.play(game.observation(0))) in expect


def test_cheater_finds_forced_wins_in_three_player_endgames():
    """Mini games played by greedy agents, stopped at the first position (10 cards or
    fewer left) where the side to act can force a win but some moves lose: the cheater
    (which sees all hands) must play a winning move."""
    checked = 0
    greedy = GreedyAgent()
    for seed in range(40):
        game = Game(rules=MINI, seed=seed)
        while game.phase is Phase.PLAY:
            seat = game.to_act
            if sum(game.sizes) <= 10 and len(game.legal_moves()) >= 2:
                wins = []
                for m in game.legal_moves():
                    game.push(m)
                    wins.append(solve(game, seat))
                    game.undo()
                if any(wins) and not all(wins):
                    agent = make_agent("mcts_cheat", seed=seed, iterations=400)
                    agent.see_all_hands(game)
                    move = agent.play(game.observation(seat))
                    assert wins[game.legal_moves().index(move)], (seed, str(move))
                    checked += 1
                    break
            game.play(greedy.play(game.observation(seat)), seat)
    assert checked >= 3


def test_cheater_needs_the_hook():
    game = Game(generate_deals(1, seed=3, rules=MINI)[0], rules=MINI)
    agent = make_agent("mcts_cheat", seed=0, iterations=20)
    with pytest.raises(MCTSConfigError, match="see_all_hands"):
        agent.play(game.observation(0))
    # play_game calls the hook: a whole game runs
    done = play_game(game, [agent, make_agent("random", seed=1), make_agent("random", seed=2)])
    assert done.phase is Phase.FINISHED


@pytest.mark.parametrize("kind", SEARCHERS + ["mcts_cheat"])
@pytest.mark.parametrize("rules", [MINI, STANDARD, WILDCARD])
def test_same_seed_same_move_and_exact_iterations(kind, rules):
    game = Game(generate_deals(1, seed=7, rules=rules)[0], rules=rules, landlord=0)
    game.play(game.legal_moves()[2])
    obs = game.observation(1)
    moves = []
    for _ in range(2):
        agent = make_agent(kind, seed=11, iterations=37)
        if kind == "mcts_cheat":
            agent.see_all_hands(game)
        moves.append(agent.play(obs))
        assert agent.last_iterations == 37
        assert agent.last_simulations > 0
    assert moves[0] == moves[1] and moves[0] in obs.legal_moves


@pytest.mark.parametrize("kind", SEARCHERS)
@pytest.mark.parametrize("opts", COMPONENTS)
def test_every_component_plays_whole_games(kind, opts):
    rules = MINI
    agents = [make_agent(kind, seed=s, iterations=12, **opts) for s in range(3)]
    game = play_game(Game(generate_deals(1, seed=5, rules=rules)[0], rules=rules), agents)
    assert game.phase is Phase.FINISHED
    assert all(a.last_iterations in (0, 12) for a in agents)


class StepClock:
    """A fake clock that advances one tick per reading."""

    def __init__(self) -> None:
        self.t = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.t += 1.0
        return self.t


@pytest.mark.parametrize("kind", SEARCHERS)
def test_time_budget_reads_the_clock(kind):
    """A budget of 10 ticks with a clock that ticks at every reading (it reads 1, 2, ...):
    the start reads 1, so the deadline is 11 and each iteration first reads the clock.
    ismcts iterates at the readings 2..10 and stops at 11: 9 iterations, 11 readings. mcts
    with 2 worlds splits the time cumulatively: world 0 until 1 + 5 = 6 (readings 2..5: 4
    iterations), world 1 until 11 (readings 7..10: 4 more): 8 iterations, 11 readings."""
    game = Game(generate_deals(1, seed=2, rules=MINI)[0], rules=MINI)
    clock = StepClock()
    agent = make_agent(kind, seed=0, iterations=None, seconds=10, clock=clock, worlds=2) \
        if kind == "mcts" else make_agent(kind, seed=0, iterations=None, seconds=10, clock=clock)
    agent.play(game.observation(0))
    assert agent.last_iterations == {"mcts": 8, "ismcts": 9}[kind]
    assert clock.reads == 11
    capped = make_agent(kind, seed=0, iterations=3, seconds=1e9)
    capped.play(game.observation(0))
    assert capped.last_iterations == 3


def test_bad_configs_are_refused():
    for opts in ({"iterations": None}, {"iterations": 0}, {"seconds": -1}, {"moves": "some"},
                 {"rollout": "smart"}, {"guesser": "psychic"}):
        with pytest.raises(MCTSConfigError):
            make_agent("mcts", **opts)
    with pytest.raises(MCTSConfigError):
        make_agent("mcts", worlds=0)


@pytest.mark.parametrize("spec", [
    "ismcts:width=0",            # compiled: a node without moves, the kernel looped for ever
    "ismcts:width=-3", "ismcts:width=0,backend=python",    # python: a bare "max() arg is empty"
    "ismcts:iterations=1.5",     # compiled: TypeError sizing the tree
    "ismcts:iterations=True",    # accepted as one iteration
    "mcts:worlds=2.5",           # TypeError in range()
    "mcts:worlds=True", "ismcts:c=-1", "ismcts:c=nan", "ismcts:seconds=nan", "ismcts:seconds=inf"])
def test_bad_numbers_are_refused_when_the_agent_is_built(spec):
    """Found by the review of the compiled-core diff: each of these was accepted (or failed
    with a TypeError mid-search, or hung) instead of an `MCTSConfigError` naming the option."""
    with pytest.raises(MCTSConfigError, match=spec.split(":")[1].split("=")[0]):
        make_agent(spec, seed=0)


def test_split_filter_keeps_the_best_split_moves_and_pass():
    game = Game(generate_deals(1, seed=4)[0], landlord=0)
    legal = game.legal_moves()
    kept = split_filter(game, legal, 5)
    assert 5 <= len(kept) < len(legal) and all(m in legal for m in kept)
    game.play(kept[0])
    follow = game.legal_moves()
    if len(follow) > 4:
        assert split_filter(game, follow, 3)[-1].is_pass


def test_halfsolo_rollout_drops_half_of_the_solos():
    """With many moves, the chance of a solo falls from k/n to (k - k//2)/(n - k//2)."""
    import random
    game = Game(generate_deals(1, seed=4)[0], landlord=0)
    legal = game.legal_moves()
    n, k = len(legal), sum(m.kind.name == "SOLO" for m in legal)
    rng = random.Random(0)
    policy = HalfSoloRollout(over=5)
    draws = [policy.choose(game, legal, rng) for _ in range(4000)]
    share = sum(m.kind.name == "SOLO" for m in draws) / len(draws)
    expect = (k - k // 2) / (n - k // 2)
    assert abs(share - expect) < 0.03 and abs(share - k / n) > 0.05


# -- search accounting and memo keys, each from its definition ------------------------
def test_per_world_deadlines_are_cumulative():
    """``mcts`` with 4 worlds and 40 seconds: world w runs until start + 40 (w + 1) / 4. With a
    clock that ticks at every reading (start = 1; one reading per budget check), world w
    iterates at the readings 10w + 2 ... 10w + 10 and stops at 10w + 11: 4 x 9 = 36."""
    game = Game(generate_deals(1, seed=2, rules=MINI)[0], rules=MINI)
    agent = make_agent("mcts", seed=0, iterations=None, seconds=40, clock=StepClock(), worlds=4,
                       backend="python")
    agent.play(game.observation(0))
    assert agent.last_iterations == 36


MEMO_DEAL = Deal.parse("3334445678AAA2222 | 5566778899TTJJQQK | 34567899TTJJQQKKK | ABR")


def _facing(lead: str) -> Game:
    """Seat 1, holding 5566778899TTJJQQK, to answer seat 0's ``lead``."""
    game = Game(MEMO_DEAL, landlord=0)
    game.play(lead)
    return game


def test_split_filter_memo_keys_on_the_move_to_beat():
    """The same hand facing a solo and then a pair: each filtered list is the filter of that
    position's own legal moves (a memo keyed on the hand alone returned the solos again)."""
    agent = make_agent("ismcts", seed=0, iterations=10, moves="split", width=3, backend="python")
    for lead in ("3", "33", "3", "33"):
        game = _facing(lead)
        legal = game.legal_moves()
        assert len(legal) > 4
        assert agent._legal(game) == split_filter(game, legal, 3)


@pytest.mark.parametrize("lead", [None, "345678"], ids=["leading", "following"])
def test_split_policy_filter_adds_the_weights_move_before_the_pass(lead):
    """``moves=split+policy``: the split filter's moves, in their order, and the move the
    rollout policy plays without exploration where the filter dropped it, before the pass.
    Width 2 drops it in both positions: leading with 3334445678AAA2222 the weights agent plays
    the quad 2222 with kickers 7 and 8; facing 345678, seat 1 (5566778899TTJJQQK) answers 89TJQK."""
    agent = make_agent("ismcts", seed=0, moves="split+policy", rollout="weights", width=2, backend="python")
    game = Game(MEMO_DEAL, landlord=0)
    if lead:
        game.play(lead)
    legal = game.legal_moves()
    split = split_filter(game, legal, 2)
    want = "89TJQK" if lead else "782222"
    assert str(agent.rollout.prior(game, legal)) == want and want not in map(str, split)
    kept = [str(m) for m in agent._legal(game)]
    assert kept == ([str(m) for m in split[:-1]] + [want, "pass"] if lead else [str(m) for m in split] + [want])


def test_split_policy_filter_keeps_the_split_list_when_it_holds_the_policy_move():
    """Facing a solo 3 (width 2), the split filter keeps 5, K and pass; greedy and weights both
    answer K, so nothing is added."""
    for rollout in ("greedy", "weights"):
        agent = make_agent("ismcts", seed=0, moves="split+policy", rollout=rollout, width=2, backend="python")
        game = _facing("3")
        assert [str(m) for m in agent._legal(game)] == ["5", "K", "pass"]


@pytest.mark.parametrize("spec, says", [
    ("ismcts:moves=split+policy,rollout=random", "rollout 'random' has none"),
    ("ismcts:moves=split+policy,rollout=halfsolo", "rollout 'halfsolo' has none"),
    ("ismcts:moves=prior", "unknown move filter 'prior': all, split, split+policy")])
def test_a_filter_without_its_policy_is_refused(spec, says):
    with pytest.raises(MCTSConfigError, match=re.escape(says)):
        make_agent(spec, seed=0)


def test_greedy_rollout_memo_keys_on_the_move_to_beat():
    from ddzlab.agents.mcts import GreedyRollout, _following_facts
    from ddzlab.agents.greedy import greedy_choice
    import random
    rollout = GreedyRollout(epsilon=0.0)
    rng = random.Random(0)
    for lead in ("3", "33", "3", "33"):
        game = _facing(lead)
        legal = game.legal_moves()
        want = greedy_choice(game.hands[1], legal, *_following_facts(game))
        got = rollout.choose(game, legal, rng)
        assert got == want and got in legal


def test_debug_mode_catches_an_illegal_move_from_a_memo(monkeypatch):
    """A split memo poisoned with a move seat 1 cannot play here: the checked path raises."""
    from ddzlab.agents import mcts
    from ddzlab.errors import IllegalMoveError
    from ddzlab.moves import parse_move
    monkeypatch.setattr(mcts, "CHECK_MOVES", True)
    game = _facing("3")
    agent = make_agent("ismcts", seed=0, iterations=20, moves="split", width=3, backend="python")
    agent._split_memo[(game.hands[1], game.last_move)] = [parse_move("55"), parse_move("pass")]
    with pytest.raises(IllegalMoveError):
        agent.play(game.observation(1))


def test_ismcts_scores_children_by_availability(monkeypatch):
    """SO-ISMCTS's UCB uses ln(availability), not ln(parent visits). At the root, whose L
    legal moves are the same in every world, the first L iterations expand one child each;
    iteration L + 1 selects, raising every child's availability to 1: the first L logarithms
    taken are ln 1 (the parent's visits would give ln L). After n iterations each root
    child's availability is n - L."""
    from ddzlab.agents import mcts
    logs, nodes = [], []

    class Math:
        inf, sqrt = math.inf, math.sqrt

        @staticmethod
        def log(x):
            logs.append(x)
            return math.log(x)

    class Recorded(mcts.Node):
        __slots__ = ()

        def __init__(self, *args):
            super().__init__(*args)
            nodes.append(self)
    monkeypatch.setattr(mcts, "math", Math)
    monkeypatch.setattr(mcts, "Node", Recorded)
    game = Game(generate_deals(1, seed=2, rules=MINI)[0], rules=MINI, landlord=0)
    obs = game.observation(0)
    n_legal = len(obs.legal_moves)
    assert n_legal > 3
    agent = make_agent("ismcts", seed=0, iterations=n_legal + 6, moves="all", backend="python")
    agent.play(obs)
    root = nodes[0]
    assert len(root.children) == n_legal
    assert logs[:n_legal] == [1] * n_legal
    assert [ch.avail for ch in root.children.values()] == [6] * n_legal


def test_ismcts_weights_is_ismcts_with_weights_rollouts():
    """`ismcts_weights`: the ismcts agent with weights rollouts and 4,000 iterations a move;
    an option given overrides a default; it plays whole games."""
    from ddzlab.agents.mcts import ISMCTSAgent, WeightsRollout
    agent = make_agent("ismcts_weights", seed=1)
    assert type(agent) is ISMCTSAgent and type(agent.rollout) is WeightsRollout and agent.iterations == 4000
    small = make_agent("ismcts_weights:iterations=12,rollout=greedy", seed=1)
    assert small.iterations == 12 and type(small.rollout) is not WeightsRollout
    seats = [make_agent("ismcts_weights:iterations=12", seed=s) for s in range(3)]
    game = play_game(Game(generate_deals(1, seed=5)[0], landlord=0), seats)
    assert game.is_over and seats[0].last_backend == "numba"


def test_the_strongest_search_agent_is_ismcts_weights_with_the_weights_prior():
    """`ismcts_weights_prior` is the agent 05_strongest played as ``ismcts_weights:moves=split+policy``:
    the same options, and with the same seed the same moves, in a whole game."""
    from ddzlab.experiments.catalog import PRIOR_LABEL, PRIOR_SPEC
    agent, spec = make_agent(PRIOR_LABEL, seed=1), make_agent(PRIOR_SPEC, seed=1)
    assert (agent.moves, agent.rollout.name, agent.iterations) == ("split+policy", "weights", 4000)
    assert (spec.moves, spec.rollout.name, spec.iterations) == ("split+policy", "weights", 4000)
    played = []
    for name in (f"{PRIOR_LABEL}:iterations=50", f"{PRIOR_SPEC},iterations=50"):
        seats = [make_agent(name, seed=s) for s in range(3)]
        played.append(play_game(Game(generate_deals(1, seed=8)[0], landlord=0), seats).history)
    assert played[0] == played[1] and len(played[0]) > 6


def test_the_registered_modelled_agent_is_the_one_09_strongest_evaluates():
    """`ismcts_modelled` is the candidate 09_strongest plays (``ismcts_weights_prior:others=policy``):
    the same options, the same moves with the same seed in a whole game, and not the moves of
    `ismcts_weights_prior`, whose tree searches the opponents' moves."""
    from ddzlab.experiments.catalog import STRONG_CANDIDATES, STRONG_CHOSEN
    agent, spec = make_agent("ismcts_modelled", seed=1), make_agent(STRONG_CANDIDATES[STRONG_CHOSEN], seed=1)
    for a in (agent, spec):
        assert (a.moves, a.rollout.name, a.iterations, a.follow) == ("split+policy", "weights", 4000, 1.0)
    played = []
    for name in ("ismcts_modelled:iterations=60", STRONG_CANDIDATES[STRONG_CHOSEN] + ",iterations=60",
                 "ismcts_weights_prior:iterations=60"):
        seats = [make_agent(name, seed=s) for s in range(3)]
        played.append([m for _, m in play_game(Game(generate_deals(3, seed=8)[2], landlord=0), seats).history])
    assert played[0] == played[1] and len(played[0]) > 6
    assert played[0] != played[2]
