"""Agents: protocol, registry, random and smallest agents."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ddzlab.agents import (Agent, AgentError, RandomAgent, SmallestAgent, available_agents,
                           make_agent, parse_spec, play_game, register_agent, smallest_key)
from ddzlab.cards import Hand
from ddzlab.deals import generate_deals
from ddzlab.game import Game, Phase
from ddzlab.moves import PASS, detect
from ddzlab.rules import MINI


def test_registry_builds_agents_by_name_and_spec():
    assert {"random", "smallest"} <= set(available_agents())
    assert isinstance(make_agent("random", seed=1), RandomAgent)
    assert isinstance(make_agent("SMALLEST"), SmallestAgent)
    assert parse_spec("random:seed=3,temp=0.5,flag=true") == (
        "random", {"seed": 3, "temp": 0.5, "flag": True})
    a = make_agent("random:seed=3")
    b = make_agent(("random", {"seed": 3}))
    obs = Game(generate_deals(1, seed=0)[0], landlord=0).observation(0)
    assert [a.play(obs) for _ in range(5)] == [b.play(obs) for _ in range(5)]
    with pytest.raises(AgentError, match="unknown agent 'nobody'.*random"):
        make_agent("nobody")
    with pytest.raises(AgentError, match="key=value"):
        make_agent("random:seed")
    with pytest.raises(AgentError):
        make_agent(42)


def test_register_a_new_agent():
    @register_agent("always-first-test")
    class First:
        name = "first"

        def bid(self, obs):
            return obs.legal_bids[-1]

        def play(self, obs):
            return obs.legal_moves[0]

    agent = make_agent("always-first-test", seed=5)      # no seed parameter: not passed
    assert isinstance(agent, Agent) and agent.name == "first"
    game = play_game(Game(seed=2), [agent, agent, agent])
    assert game.landlord == 0 and game.bid == 3 and game.is_over


def test_random_agent_is_reproducible_and_legal():
    deals = generate_deals(5, seed=9)
    def run(seed):
        agents = [RandomAgent(np.random.default_rng([seed, s])) for s in range(3)]
        return [play_game(Game(d, seed=1), agents).history for d in deals]
    assert run(1) == run(1)
    assert run(1) != run(2)


def test_smallest_agent_picks_the_smallest_legal_move():
    agent = SmallestAgent()
    game = Game(generate_deals(1, seed=0)[0], landlord=0)
    obs = game.observation(0)
    move = agent.play(obs)
    assert move.size == 1 and move.rank == obs.hand.ranks()[0]    # lowest single card
    # following: lowest non-bomb reply; a bomb only when nothing else beats; pass last
    moves = [detect("2"), detect("3333"), detect("BR"), PASS]
    fake = dataclasses.replace(obs, legal_moves=tuple(moves))
    assert agent.play(fake) == detect("2")
    fake = dataclasses.replace(obs, legal_moves=(detect("BR"), detect("3333"), PASS))
    assert agent.play(fake) == detect("3333")
    fake = dataclasses.replace(obs, legal_moves=(PASS,))
    assert agent.play(fake) is PASS
    assert sorted([detect("44"), detect("3"), detect("33")], key=smallest_key) == [
        detect("3"), detect("33"), detect("44")]


def test_smallest_agents_never_redeal_forever():
    agents = [SmallestAgent() for _ in range(3)]
    game = play_game(Game(seed=0, first_bidder=1), agents)
    assert game.redeals == 0 and game.landlord == 0 and game.bid == 1   # last bidder bids 1
    assert game.is_over


def test_play_game_on_mini_rules_and_bad_agents():
    game = play_game(Game(rules=MINI, seed=3), [make_agent("random", seed=s) for s in range(3)])
    assert game.is_over and sum(game.scores) == 0

    class Cheater:
        def bid(self, obs):
            return 0

        def play(self, obs):
            return detect("BR")

    game = Game(generate_deals(1, seed=0)[0], landlord=0)
    assert Hand("BR") not in game.hand(0)
    with pytest.raises(ValueError, match="not in seat 0's hand"):
        play_game(game, [Cheater(), Cheater(), Cheater()])
    assert game.history == [] and game.phase is Phase.PLAY

    class Never:
        def bid(self, obs):
            return 0

        def play(self, obs):
            return obs.legal_moves[0]

    with pytest.raises(AgentError, match="never bid"):
        play_game(Game(seed=0), [Never()] * 3, max_redeals=3)
    with pytest.raises(AgentError, match="2 agents"):
        play_game(Game(seed=0), [Never()] * 2)


def test_registry_finds_agents_registered_outside_the_agents_package():
    """In a fresh interpreter (nothing imported yet), the CLI's lookup finds the bidder."""
    import subprocess
    import sys
    code = "from ddzlab.agents import available_agents; print(available_agents())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "threshold_bidder" in out and "smallest" in out


@pytest.mark.parametrize("spec, keys", [
    ("weights", {"rule"}), ("ismcts:iterations=20", {"iterations", "top"}),
    ("mcts:iterations=20", {"iterations", "top"}), ("qlearning", {"action", "q", "visits"}),
    ("rulev1", {"rule"}), ("greedy", {"q", "top"}), ("split_random", {"action"})])
def test_every_play_agent_explains_its_moves(spec, keys):
    """Every play agent that decides something sets ``last_eval`` on its moves (greedy: on
    every move but a pass), so records and replays say why. The baselines `random` and
    `smallest` have nothing to explain and stay the examples of an agent without it."""
    from ddzlab.records import play_recorded
    agent = make_agent(spec, seed=1)          # rulev1 needs RLCard: installed by make setup (peers)
    game, evals = play_recorded(Game(generate_deals(1, seed=4)[0], landlord=0),
                                [agent, make_agent("greedy"), make_agent("greedy")])
    mine = [(i, m) for i, (seat, m) in enumerate(game.history) if seat == 0]
    explained = {i: evals["moves"].get(i) for i, _ in mine}
    assert mine and all(e is not None for i, e in explained.items()
                        if not (spec == "greedy" and dict(mine)[i].is_pass)), explained
    assert any(keys <= set(e) for e in explained.values() if e), explained
    if spec.startswith(("ismcts", "mcts")):
        top = next(e["top"] for e in explained.values() if e and "top" in e)
        visits = [v for v, _ in top.values()]
        assert visits == sorted(visits, reverse=True) and all(0 <= w <= 1 for _, w in top.values())


def test_rulev1_refuses_hands_bigger_than_its_game_with_a_clear_error():
    """RLCard's tables stop at 20-card hands: a bigger one used to end in a bare KeyError
    ('pair_chain_11'); now it is an AgentError that says why."""
    from ddzlab.widgets import leading_observation
    from ddzlab import Hand, STANDARD
    obs = leading_observation(Hand("33445566778899TTJJQQKKA").bits, STANDARD)
    with pytest.raises(AgentError, match="at most 20 cards"):
        make_agent("rulev1").play(obs)


def test_play_game_watch_sees_every_move_of_the_card_play_before_it_is_made():
    seen = []

    def watch(game, seat):
        assert game.to_act == seat and game.phase is Phase.PLAY
        seen.append((seat, len(game.history)))

    agents = [make_agent("greedy"), make_agent("random", seed=1), make_agent("smallest")]
    game = play_game(Game(seed=4, first_bidder=2), agents, watch=watch)
    plays = [i for i, _ in enumerate(game.history)]
    assert [n for _, n in seen] == plays and [s for s, _ in seen] == [s for s, _ in game.history]
    again = play_game(Game(seed=4, first_bidder=2), [make_agent("greedy"), make_agent("random", seed=1),
                                                     make_agent("smallest")])
    assert again.history == game.history            # watching changes nothing


def test_the_guess_accuracy_study_plays_the_arenas_games():
    """`ddzlab.experiments.guessing` replays a deal as the arena plays it (`seat_agents`,
    `play_game`): the game its guessers watch ends as `play_deal`'s row says."""
    from ddzlab.arena import play_deal, seat_agents
    deal = generate_deals(1, seed=9, rules=MINI)[0]
    rows = play_deal("greedy", "random", deal, 0, MINI, seed=5)
    for half, row in enumerate(rows):
        game = play_game(Game(deal, rules=MINI, landlord=0), seat_agents("greedy", "random", 0, half, 5),
                         watch=lambda g, s: None)
        assert (bool(game.landlord_won), len(game.history)) == (row[2], row[6])


def test_the_random_agent_picks_every_legal_move_alike():
    """Uniform over the legal moves: 3,000 leads from one position, each of its n moves
    drawn about 3,000/n times (a chi-square test at the 0.001 level; the survivor
    of `make mutation MODULE=agents/random_agent` always played the first move)."""
    from collections import Counter

    from scipy.stats import chisquare
    game = Game(seed=4, landlord=0)
    obs = game.observation(0)
    agent = make_agent("random", seed=1)
    counts = Counter(agent.play(obs) for _ in range(3000))
    assert set(counts) == set(obs.legal_moves)
    assert chisquare([counts[m] for m in obs.legal_moves]).pvalue > 0.001


# -- a misspelled option: the agent, the option and the valid options named -------
def _ddzlab_agents() -> list:
    """The agents ddzlab registers (not those a test registers in the same process)."""
    from ddzlab.agents.base import _factory
    return [n for n in available_agents() if (getattr(_factory(n), "__module__", "") or "").startswith("ddzlab.")]


@pytest.mark.parametrize("name", _ddzlab_agents())
def test_an_option_no_agent_takes_names_the_agent_and_its_options(name):
    from ddzlab.agents.base import AgentOptionError
    with pytest.raises(AgentOptionError) as exc:
        make_agent(f"{name}:no_such_option=1")
    message = str(exc.value)
    assert isinstance(exc.value, ValueError)
    assert f"agent {name!r}" in message and "'no_such_option'" in message and "its options:" in message
    assert "unexpected keyword" not in message


@pytest.mark.parametrize("name, options", [
    # ismcts and its presets take the search's keyword arguments (mcts.py `_Search.__init__`)
    ("ismcts", ["iterations", "seconds", "c", "guesser", "moves", "width", "rollout", "seed"]),
    ("ismcts_weights", ["iterations", "rollout", "moves"]),
    ("mcts", ["worlds", "iterations", "guesser"]),
    ("greedy", ["bomb_when"]),
])
def test_a_misspelled_option_lists_the_options_of_the_signature(name, options):
    from ddzlab.agents.base import AgentOptionError
    with pytest.raises(AgentOptionError, match=f"agent '{name}' has no option 'iteratons'") as exc:
        make_agent(f"{name}:iteratons=10")
    listed = str(exc.value).split("its options: ")[1].split(", ")
    assert set(options) <= set(listed)
    assert ("did you mean 'iterations'?" in str(exc.value)) == ("iterations" in listed)


def test_agent_options_follow_kwargs_and_never_refuse_an_open_factory(tmp_path):
    from ddzlab.agents.base import AgentOptionError, agent_options

    class Base:
        def __init__(self, depth: int = 1, seed=None) -> None:
            self.depth = depth

    class Child(Base):
        def __init__(self, width: int = 2, **kwargs) -> None:
            super().__init__(**kwargs)
            self.width = width

    def preset(**options) -> Child:
        return Child(**{"depth": 3, **options})

    def anything(**options):            # says nothing about what it accepts: never refused
        return SmallestAgent()

    assert agent_options(Child) == ["width", "depth", "seed"]
    assert agent_options(preset) == ["width", "depth", "seed"]
    assert agent_options(anything) is None
    assert make_agent(preset, depth=5).depth == 5 and make_agent(anything, whatever=1)
    with pytest.raises(AgentOptionError, match="'dpth' .did you mean 'depth'.*its options: width, depth, seed"):
        make_agent(preset, dpth=5)
    path = tmp_path / "mine.py"
    path.write_text("class Mine:\n    def __init__(self, depth=1):\n        self.depth = depth\n"
                    "    def bid(self, obs):\n        return 0\n    def play(self, obs):\n        return obs.legal_moves[0]\n")
    assert make_agent(f"{path}:Mine:depth=2").depth == 2
    with pytest.raises(AgentOptionError, match=r"mine.py:Mine' has no option 'deep'.*its options: depth$"):
        make_agent(f"{path}:Mine:deep=2")


def test_cli_duel_with_a_misspelled_option_names_the_valid_ones(capsys):
    from ddzlab.cli import main
    assert main(["duel", "ismcts:iteratons=10", "greedy", "--deals", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "agent 'ismcts' has no option 'iteratons'" in err and "iterations" in err
    assert "unexpected keyword" not in err
