"""CONTRIBUTING.md, traced: each kind of addition the guide describes is made here once, small,
through the same entry points the guide names, so the guide fails a test when it goes stale.

A new agent (registered, then played in a duel), a rule variant (a `Rules` value built from
data, checked against the rule text by hand), a combination kind (every place the guide lists
covers every kind there is), a rollout (a Python policy in the tree search, and the compiled
backend's refusal until a twin exists), an experiment (declared, run on 2 deals into a tmp
folder, read back) and a notebook (the name the report collects, a key number recorded).
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import replace

import pytest

import oracle
from ddzlab.agents import base, make_agent, play_game
from ddzlab.arena import duel
from ddzlab.config import ROOT
from ddzlab.deals import generate_deals
from ddzlab.game import Game
from ddzlab.moves import detect, legal_moves
from ddzlab.rules import KIND_SHAPE, RULESETS, STANDARD, ChainSpec, Kind

def test_the_guide_names_the_files_it_sends_a_contributor_to():
    """Every section of the guide exists, and so does every file it names (the doc path test
    in tests/project/test_docs.py checks the paths; here: the sections and this file)."""
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for section in ("A new agent", "A rule variant", "A combination kind", "A compiled rollout",
                    "An experiment", "A notebook", "Where tests go"):
        assert re.search(rf"^## {section}$", guide, re.M), section
    assert "tests/contributing/test_examples.py" in guide


# -- a new agent ---------------------------------------------------------------------------
class FewestLeft:
    """Plays the legal move that leaves its hand with the fewest cards (the lowest among
    equals; pass only when it must); never bids."""

    name = "fewest_left"

    def __init__(self, seed=None) -> None:
        self.rng = random.Random(seed)

    def bid(self, obs) -> int:
        return 0

    def play(self, obs):
        return max(obs.legal_moves, key=lambda m: (m.size, -m.rank))


def test_a_new_agent_registers_and_plays_a_duel(monkeypatch):
    base.available_agents()            # ddzlab's own agents register lazily: all of them before the copy
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))      # the registry as it was, after
    base.register_agent("fewest_left")(FewestLeft)
    assert "fewest_left" in base.available_agents()
    table = duel("fewest_left", "smallest", 2, progress=False, seed=1)
    assert int(table.loc["combined", "n"]) == 4                          # 2 deals, sides swapped
    # it plays what it says: on a fresh deal, its first lead sheds the most cards
    game = Game(generate_deals(1, seed=5)[0], landlord=0)
    obs = game.observation(0)
    move = make_agent("fewest_left").play(obs)
    assert move.size == max(m.size for m in obs.legal_moves)


# -- a rule variant ------------------------------------------------------------------------
def test_a_rule_variant_is_data():
    """Solo chains of at most 6 cards: ``345678`` is one, ``3456789`` is not (it is under the
    standard rules), and a whole game plays out under the variant."""
    chains = tuple(replace(c, max_len=6) if c.kind == Kind.SOLO_CHAIN else c for c in STANDARD.chains)
    short = replace(STANDARD, name="short_chains", chains=chains,
                    description="standard, with solo chains of 5 or 6 cards")
    assert short.chain(Kind.SOLO_CHAIN) == ChainSpec(Kind.SOLO_CHAIN, 1, 1, 5, 6)
    assert detect("3456789", STANDARD).kind == Kind.SOLO_CHAIN
    assert detect("3456789", short) is None
    assert detect("345678", short).kind == Kind.SOLO_CHAIN
    assert not [m for m in legal_moves("3456789TJQKA", rules=short) if m.size > 6 and m.kind == Kind.SOLO_CHAIN]
    game = Game(generate_deals(1, seed=2, rules=short)[0], rules=short, landlord=0)
    play_game(game, [make_agent("greedy"), make_agent("random", seed=1), make_agent("smallest")])
    assert game.is_over
    assert all(not (m.kind == Kind.SOLO_CHAIN and m.size > 6) for _, m in game.history)


# -- a combination kind --------------------------------------------------------------------
def test_every_kind_is_declared_in_every_place_the_guide_lists():
    """What a new `Kind` must be added to: its shape, the rule sets that use it and the rule
    text oracle of tests/oracle.py, which must list the same kinds for every rule set."""
    for kind in Kind:
        assert kind.label and kind.name.lower().replace("_", " ") == kind.label
        if kind not in (Kind.PASS, Kind.ROCKET):
            assert kind in KIND_SHAPE, kind
    for name, text in oracle.TEXTS.items():
        rules = RULESETS[name]
        said = ({c.kind for c in text.chains} | {c.kind for c in text.carries}
                | {Kind.SOLO, Kind.PAIR, Kind.TRIO, Kind.BOMB} | ({Kind.ROCKET} if text.rocket else set()))
        if rules.wildcard is not None:
            said.add(Kind.SOFT_BOMB)
        assert set(rules.kinds) == said, name


# -- a compiled rollout --------------------------------------------------------------------
def test_a_new_rollout_runs_in_python_and_the_compiled_backend_refuses_it_until_it_has_a_twin():
    from ddzlab.agents.mcts import ISMCTSAgent, MCTSConfigError, Rollout

    class LowestFirst(Rollout):
        """Plays the first legal move (the generator lists low ranks first)."""
        name = "lowest_first"

        def choose(self, game, legal, rng):
            return legal[0]

    obs = Game(generate_deals(1, seed=4)[0], landlord=0).observation(0)
    agent = ISMCTSAgent(rollout=LowestFirst(), iterations=30, seed=0, backend="python")
    assert agent.play(obs) in obs.legal_moves and agent.last_backend == "python"
    with pytest.raises(MCTSConfigError, match="no compiled twin"):
        ISMCTSAgent(rollout=LowestFirst(), iterations=30, seed=0, backend="numba").play(obs)


# -- an experiment -------------------------------------------------------------------------
def test_an_experiment_is_declared_run_on_two_deals_and_read_back(tmp_path):
    from ddzlab.experiments import Experiment, load_games, run_experiment

    exp = Experiment("contrib_example", configs=["smallest"], opponents=["random"], deals=2, seed=1,
                     description="CONTRIBUTING.md's example: smallest against random on 2 deals.")
    games = run_experiment(exp, root=tmp_path, progress=False)
    assert len(games) == 2 * 2 and set(games.role) == {"landlord", "farmers"}
    assert games.equals(load_games(exp, root=tmp_path))
    meta = json.loads((tmp_path / "contrib_example" / "experiment.json").read_text())
    assert meta["deals"]["count"] == 2


# -- a notebook ----------------------------------------------------------------------------
def test_a_notebook_is_named_for_the_report_and_records_its_numbers():
    from ddzlab import report
    from ddzlab.report import NOTEBOOK_PATTERN, KeyNumberError

    names = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert names and all(NOTEBOOK_PATTERN.match(n) for n in names)
    assert NOTEBOOK_PATTERN.match("10_my_study.ipynb") and not NOTEBOOK_PATTERN.match("my_study.ipynb")
    try:
        assert report.record("contrib_example_share", 0.25, "a share, recorded by a notebook", fmt=".2f") == 0.25
        with pytest.raises(KeyNumberError):
            report.record("Not A Key", 1, "keys are lower_snake_case")
    finally:
        report._state["numbers"].pop("contrib_example_share", None)
