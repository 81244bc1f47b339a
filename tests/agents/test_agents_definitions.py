"""The agent registry and game loop against their documented definitions (the
survivors of `make mutation MODULE=agents/base`): option values, class references and
file specs, the seed of a (name, kwargs) spec, trainers, entry points, discovery in a
fresh interpreter, evaluations, and the all-pass limit of `play_game`."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import NeverBids
from ddzlab.agents import AgentError, make_agent, parse_spec, play_game
from ddzlab.agents import base
from ddzlab.deals import generate_deals
from ddzlab.game import Game

AGENT = '''
class FirstMove:
    """Always the first legal bid and move."""
    name = "first_move"

    def __init__(self, seed=None, depth=1):
        self.seed, self.depth = seed, depth

    def bid(self, obs):
        return obs.legal_bids[0]

    def play(self, obs):
        return obs.legal_moves[0]


class Outer:
    class Inner(FirstMove):
        name = "inner"
'''


def _plays(agent, n: int = 8) -> list:
    obs = Game(generate_deals(1, seed=0)[0], landlord=0).observation(0)
    return [agent.play(obs) for _ in range(n)]


def test_option_values_read_as_int_float_bool_none_or_text():
    assert parse_spec("x:a=3,b=0.5,c=false,d=FALSE,e=None,f=true,g=text") == (
        "x", {"a": 3, "b": 0.5, "c": False, "d": False, "e": None, "f": True, "g": "text"})
    # a value may hold "=" (split at the first one) and ":" (only the first colon is the name's)
    assert parse_spec("x:path=a=b,url=http://h:1") == ("x", {"path": "a=b", "url": "http://h:1"})


def test_a_malformed_option_names_the_whole_spec():
    with pytest.raises(AgentError, match=r"option 'seed' in 'random:seed' is not key=value"):
        make_agent("random:seed")
    with pytest.raises(AgentError, match=r"option 'depth' in 'pkg.mod:Cls:depth' is not key=value"):
        base.class_reference("pkg.mod:Cls:depth")


def test_class_references_split_at_the_first_two_colons():
    ref = base.class_reference
    assert ref("pkg.mod:Cls") == ("pkg.mod", "Cls", {})
    assert ref(" dir/agent.py:Outer.Inner:depth=3 ") == ("dir/agent.py", "Outer.Inner", {"depth": 3})
    assert ref("pkg.mod:Cls:url=http://h:1") == ("pkg.mod", "Cls", {"url": "http://h:1"})
    for options in ("random", "random:seed=3", "random:a=1,b=2", "mod:not-a-class", "mod:9lives"):
        assert ref(options) is None, options


def test_file_and_module_specs_build_the_named_class(tmp_path, monkeypatch):
    (tmp_path / "agent_file_for_test.py").write_text(AGENT)
    path = tmp_path / "agent_file_for_test.py"
    agent = make_agent(f"{path}:FirstMove:depth=4", seed=7)
    assert type(agent).__name__ == "FirstMove" and (agent.seed, agent.depth) == (7, 4)
    assert make_agent(f"{path}:Outer.Inner").name == "inner"
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = make_agent("agent_file_for_test:FirstMove:depth=2")
    assert type(agent).__module__ == "agent_file_for_test" and agent.depth == 2
    # a registered agent's name is never read as a module: random:seed is a bad option
    with pytest.raises(AgentError, match="key=value"):
        make_agent("random:seed")


@pytest.mark.parametrize("head", ["no_such_dir/agent", "no_such_dir\\agent", "no_such_agent.py"])
def test_a_path_head_is_read_as_a_file_not_a_module(head):
    with pytest.raises(AgentError, match=f"agent file {head!r} not found".replace("\\", "\\\\")):
        make_agent(f"{head}:Cls")


def test_a_name_kwargs_spec_takes_the_seed_from_either_place():
    reference = _plays(make_agent("random", seed=3))
    assert _plays(make_agent(("random", {}), seed=3)) == reference
    assert _plays(make_agent(("random", {"seed": 3}), seed=99)) == reference
    agent = make_agent(("ismcts", {"iterations": 17}), seed=1)
    assert agent.iterations == 17


def test_a_factory_spec_is_called_with_the_seed():
    def factory(seed=None):
        return make_agent("random", seed=seed)
    assert _plays(make_agent(factory, seed=3)) == _plays(make_agent("random", seed=3))
    with pytest.raises(AgentError, match="cannot build an agent from 42"):
        make_agent(42)


def test_unknown_names_list_the_available_ones_comma_separated():
    with pytest.raises(AgentError) as err:
        make_agent("nobody")
    listed = str(err.value).split("available: ")[1].split(" (or")[0].split(", ")
    assert listed == base.available_agents()


def test_trainers_are_registered_under_their_lower_case_name():
    def trainer(argv):
        return 0
    base.register_trainer("Trainer_For_Test")(trainer)
    try:
        assert base.available_trainers()["trainer_for_test"] is trainer
    finally:
        del base._TRAINERS["trainer_for_test"]


def test_installed_entry_points_are_found_by_lower_case_name(tmp_path, monkeypatch):
    """A real distribution on sys.path (a .dist-info with entry_points.txt), as pip leaves it."""
    (tmp_path / "ep_agents_for_test.py").write_text(AGENT)
    info = tmp_path / "ep_agents_for_test-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-agents-for-test\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[{base.ENTRY_POINT_GROUP}]\nFirst_Move_EP = ep_agents_for_test:FirstMove\n"
        "[some.other.group]\nnot_an_agent = ep_agents_for_test:FirstMove\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "first_move_ep" in base.available_agents()
    assert "not_an_agent" not in base.available_agents()
    assert make_agent("first_move_ep", depth=5).depth == 5
    # an installed agent's name is never read as a module either: a bad option, not an import
    with pytest.raises(AgentError, match="key=value"):
        make_agent("first_move_ep:depth")


def _same_ddzlab() -> dict:
    """The environment of a child interpreter that imports the ddzlab under test."""
    import os

    import ddzlab
    return {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(ddzlab.__file__))}


def test_a_fresh_interpreter_finds_agents_of_modules_not_yet_imported():
    """`make_agent` alone (no `available_agents` first) imports the module that registers
    a name; a file agent is built without importing every ddzlab agent."""
    code = ("import sys; from ddzlab.agents import make_agent; "
            "print(type(make_agent('rulev1')).__name__, 'ddzlab.agents.mcts' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_same_ddzlab())
    assert out.stdout.split() == ["RuleV1Agent", "True"], out.stderr


def test_a_file_agent_does_not_import_the_whole_agent_package(tmp_path):
    (tmp_path / "lone_agent.py").write_text(AGENT)
    assert make_agent(f"{tmp_path / 'lone_agent.py'}:FirstMove").name == "first_move"     # here too
    code = (f"import sys; from ddzlab.agents import make_agent; "
            f"make_agent({str(tmp_path / 'lone_agent.py') + ':FirstMove'!r}); "
            "print('ddzlab.agents.mcts' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_same_ddzlab())
    assert out.stdout.split() == ["False"], out.stderr


def test_last_evaluation_is_a_copy_and_none_without_one():
    class Plain:
        pass

    class Says:
        last_eval = {"q": 1}

    assert base.last_evaluation(Plain()) is None
    assert base.last_evaluation(type("Odd", (), {"last_eval": [1]})()) is None
    agent = Says()
    value = base.last_evaluation(agent)
    assert value == {"q": 1} and value is not agent.last_eval


@pytest.mark.parametrize("limit", [0, 2, 5])
def test_play_game_allows_exactly_max_redeals_all_pass_auctions(limit):
    game = Game(seed=0)
    with pytest.raises(AgentError, match=f"{limit} all-pass auctions"):
        play_game(game, [NeverBids()] * 3, max_redeals=limit)
    assert game.redeals == limit + 1


def test_play_game_default_limit_is_100_redeals():
    class BidsAfter:
        """Passes through the first ``n`` auctions, then bids 3."""

        def __init__(self, n):
            self.n, self.calls = n, 0

        def bid(self, obs):
            self.calls += 1
            return 3 if self.calls > 3 * self.n else 0

        def play(self, obs):
            return obs.legal_moves[0]

    agent = BidsAfter(100)
    game = play_game(Game(seed=0), [agent] * 3)
    assert game.redeals == 100 and game.is_over
    with pytest.raises(AgentError, match="100 all-pass"):
        play_game(Game(seed=0), [BidsAfter(101)] * 3)


def test_two_agent_files_of_one_name_are_two_modules(tmp_path):
    """Files are imported under a name derived from their whole path: agent.py in two
    folders gives two classes, not the first one twice."""
    for folder, label in (("one", "first"), ("two", "second")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "agent.py").write_text(AGENT.replace('name = "first_move"', f'name = "{label}"'))
    one = make_agent(f"{tmp_path / 'one' / 'agent.py'}:FirstMove")
    two = make_agent(f"{tmp_path / 'two' / 'agent.py'}:FirstMove")
    assert (one.name, two.name) == ("first", "second")
    assert type(one) is not type(two)


def test_a_missing_class_is_named_with_its_file_or_module(tmp_path, monkeypatch):
    path = tmp_path / "agent_missing_for_test.py"
    path.write_text(AGENT)
    with pytest.raises(AgentError, match=r"file '.*agent_missing_for_test.py' has no 'Nope'"):
        make_agent(f"{path}:Nope")
    with pytest.raises(AgentError, match=r"has no 'FirstMove.Nope'"):
        make_agent(f"{path}:FirstMove.Nope")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentError, match=r"module 'agent_missing_for_test' has no 'Nope'"):
        make_agent("agent_missing_for_test:Nope")
