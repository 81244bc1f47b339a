"""Notebook 07's strongest-agent study under the wildcard rules (`07_wildcard_strongest`): declared
on 07's deals with 09_strongest's agent, and that agent searches on the compiled core there."""
import warnings

from ddzlab.agents import make_agent
from ddzlab.deals import read_deals
from ddzlab.experiments import CATALOG, load_games, run_experiment
from ddzlab.game import Game
from ddzlab.rules import WILDCARD


def test_declared_on_07s_deals_with_09s_agent_against_weights():
    exp, std, wild = CATALOG["07_wildcard_strongest"], CATALOG["09_strongest"], CATALOG["07_wildcard"]
    assert exp.rules == "wildcard" and exp.games_per_deal == 2 and exp.n_deals == 1000
    assert exp.deal_list() == read_deals("wildcard_2000", WILDCARD)[:1000] == wild.deal_list()[:1000]
    assert exp.configs == std.configs and exp.seed == std.seed       # the same agent and agent seeds
    assert exp.opponents == {"weights": "weights"} and "weights" in std.opponents
    assert exp.pairs() == [(next(iter(std.configs)), "weights")]


def test_the_agent_searches_compiled_under_wildcard_and_plays_a_paired_deal(tmp_path):
    exp = CATALOG["07_wildcard_strongest"]
    label, spec = next(iter(exp.configs.items()))
    deal = exp.deal_list()[0]
    agent = make_agent(f"{spec},iterations=40", seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # a fallback to the Python loops warns
        move = agent.play(Game(deal, rules=WILDCARD, landlord=0).observation(0))
    assert agent.last_backend == "numba" and agent.last_iterations == 40
    assert move in Game(deal, rules=WILDCARD, landlord=0).legal_moves()
    small = exp.with_agents(configs={label: f"{spec},iterations=20"})
    run_experiment(small, deals=1, root=tmp_path, progress=False)
    games = load_games(small, root=tmp_path)
    assert sorted(games.role) == ["farmers", "landlord"] and set(games.deal) == {0}
    assert set(games.config) == {label} and set(games.opponent) == {"weights"}
