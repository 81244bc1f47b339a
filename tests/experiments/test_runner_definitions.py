"""The experiment runner's definitions on grids small enough to list by hand: labels of agent
specs, the pairs a grid plays, the deals complete for every pair, the stored rows read as
arena games, and deals written as ranges. No game is played here."""
from __future__ import annotations

import pandas as pd
import pytest

from ddzlab.deals import generate_deals
from ddzlab.experiments import Experiment, ExperimentError
from ddzlab.experiments import runner as R
from ddzlab.experiments.store import COLUMNS, DTYPES


def _rows(games: list[tuple[str, str, int]], won: int = 1, points: int = 2) -> pd.DataFrame:
    """Both rows (landlord, farmers) of each (config, opponent, deal)."""
    rows = [(c, o, d, role, won if role == "landlord" else 1 - won, points, 30, 0.5, 10, 0.25, 12)
            for c, o, d in games for role in ("landlord", "farmers")]
    return pd.DataFrame(rows, columns=COLUMNS).astype(DTYPES)


def test_a_spec_is_labelled_by_its_text_with_options_sorted():
    assert R._spec_label("weights:off=partner") == "weights:off=partner"
    assert R._spec_label(("ismcts", {"iterations": 200, "c": 0.5})) == "ismcts:c=0.5,iterations=200"
    assert R._spec_label(("greedy", {})) == "greedy"
    for bad in (3, ("greedy",), ("greedy", {}, 1), (1, {})):
        with pytest.raises(ExperimentError, match="spec strings"):
            R._spec_label(bad)


def test_labels_of_a_list_or_a_mapping_and_what_is_refused():
    assert R._labelled(None, "x") is None
    assert R._labelled(["greedy", ("weights", {"off": "partner"})], "x") == {
        "greedy": "greedy", "weights:off=partner": ("weights", {"off": "partner"})}
    assert R._labelled({1: "greedy"}, "x") == {"1": "greedy"}
    with pytest.raises(ExperimentError, match="listed twice"):
        R._labelled(["greedy", "greedy"], "x")
    with pytest.raises(ExperimentError, match="at least one agent"):
        R._labelled([], "x")
    with pytest.raises(ExperimentError, match="a list of specs or a dict"):
        R._labelled("greedy", "x")
    with pytest.raises(ExperimentError, match="a list of specs or a dict"):
        R._labelled(("greedy", {}), "x")
    with pytest.raises(ExperimentError, match="spec strings"):
        R._labelled({"a": 3}, "x")
    for label in ("a,b", 'a"b', "a\nb", ""):
        with pytest.raises(ExperimentError, match="comma, quote"):
            R._labelled({label: "greedy"}, "x")


def test_the_pairs_a_grid_plays():
    grid = Experiment("g", configs=["a", "b"], opponents=["b", "c"], deals=2)
    assert grid.pairs() == [("a", "b"), ("a", "c"), ("b", "c")]           # b never meets itself
    assert not grid.round_robin
    rr = Experiment("r", configs=["a", "b", "c"], deals=2)
    assert rr.round_robin and rr.pairs() == [("a", "b"), ("a", "c"), ("b", "c")]
    assert grid.spec("c") == "c" and grid.spec("a") == "a"
    with pytest.raises(ExperimentError, match="no agent labelled 'd'"):
        grid.spec("d")


@pytest.mark.parametrize("kwargs, match", [
    ({"name": "Bad"}, "lower-case"), ({"name": 3}, "lower-case"), ({"deals": 0}, "positive"),
    ({"deals": True}, "positive"), ({"deals": 2.0}, "positive"), ({"opponents": None}, "at least two configs")])
def test_bad_experiments_name_the_problem(kwargs, match):
    spec = {"name": "ok", "configs": ["a"], "opponents": ["b"], "deals": 1, **kwargs}
    with pytest.raises(ExperimentError, match=match):
        Experiment(**spec)


def test_generated_deals_come_from_the_deal_seed_else_the_seed():
    assert Experiment("x", ["a"], ["b"], deals=3, seed=4).deal_list() == generate_deals(3, seed=4)
    assert Experiment("x", ["a"], ["b"], deals=3, seed=4, deal_seed=9).deal_list() == generate_deals(3, seed=9)
    assert Experiment("x", ["a"], ["b"], deals=5, seed=4).n_deals == 5


def test_with_agents_keeps_labels_and_everything_else():
    exp = Experiment("x", configs={"strong": "weights"}, opponents=["greedy"], deals=3, seed=4, rules="standard")
    cheap = exp.with_agents(configs=["weights", "random"], name="y")
    assert cheap.name == "y" and cheap.configs == {"weights": "weights", "random": "random"}
    assert (cheap.deals, cheap.seed, cheap.rules, cheap.opponents) == (3, 4, "standard", {"greedy": "greedy"})
    kept = exp.with_agents(configs=["strong"])
    assert kept.configs == {"strong": "weights"} and kept.name == "x"
    assert exp.with_agents(opponents={"o": "random"}).opponents == {"o": "random"}


def test_the_spec_names_the_deals_by_count_and_checksum():
    exp = Experiment("x", configs=["a", ("b", {"k": 1})], opponents=None, deals=2, seed=1, description="d")
    got = exp.spec_json()
    assert got["configs"] == {"a": "a", "b:k=1": ["b", {"k": 1}]} and got["opponents"] is None
    assert got["round_robin"] is True and got["rules"] == "standard" and got["seed"] == 1
    assert got["deals"]["count"] == 2 and got["deals"]["source"] == 2 and got["deals"]["deal_seed"] is None
    assert len(got["deals"]["crc32"]) == 8 and got["columns"] == COLUMNS
    other = Experiment("x", configs=["a", "b"], deals=2, seed=2).spec_json()["deals"]["crc32"]
    assert other != got["deals"]["crc32"]                          # other deals, another checksum


def test_deals_as_ranges():
    assert R._deal_ranges([]) == ""
    assert R._deal_ranges([3]) == "3"
    assert R._deal_ranges([9, 7, 8, 3, 3]) == "3, 7-9"
    assert R._deal_ranges([0, 1, 3, 4, 6]) == "0-1, 3-4, 6"
    many = R._deal_ranges(range(0, 40, 2))                        # 20 single deals
    assert many == "0, 2, 4, 6, 8, 10, 12, 14 and 12 more ranges"
    assert R._deal_ranges(range(0, 16, 2)) == "0, 2, 4, 6, 8, 10, 12, 14"      # exactly 8: no tail


def test_deals_complete_counts_the_leading_deals_every_pair_finished():
    pairs = [("a", "x"), ("b", "x")]
    games = _rows([("a", "x", 0), ("b", "x", 0), ("a", "x", 1), ("b", "x", 1), ("a", "x", 2), ("b", "x", 3),
                   ("a", "x", 3), ("c", "x", 2)])                 # deal 2 lacks b; c is not in the grid
    assert R.deals_complete(games, pairs) == 2
    assert R.deals_complete(games, []) == 0 and R.deals_complete(games.iloc[:0], pairs) == 0
    twice = pd.concat([games, games.iloc[:2]])                     # a stored copy does not count twice
    assert R.deals_complete(twice, pairs) == 2
    one_role = games[~((games["deal"] == 1) & (games["config"] == "b") & (games["role"] == "farmers"))]
    assert R.deals_complete(one_role, pairs) == 1


def test_missing_deals_are_those_where_a_pair_lacks_a_game():
    exp = Experiment("m", configs=["a", "b"], opponents=["x"], deals=4)
    games = _rows([("a", "x", 0), ("b", "x", 0), ("a", "x", 1), ("b", "x", 2), ("a", "x", 2)])
    assert R._missing_deals(exp, games, 4) == [1, 3]
    assert R._missing_deals(exp, games.iloc[:0], 2) == [0, 1]
    half = games.iloc[:-1]                                          # deal 2 of (a, x) has one role
    assert R._missing_deals(exp, half, 3) == [1, 2]


def test_common_deals_cuts_at_the_complete_prefix():
    games = _rows([("a", "x", 0), ("a", "x", 1), ("a", "x", 2)])
    games.attrs["deals_complete"] = 2
    out = R.common_deals(games)
    assert sorted(set(out["deal"])) == [0, 1] and out.attrs["deals_used"] == 2
    assert out.attrs["deals_complete"] == 2 and list(out.index) == list(range(4))
    assert sorted(set(R.common_deals(games, 1)["deal"])) == [0]
    assert len(R.common_deals(games.iloc[:0].copy())) == 0
    # rows that do not say how many deals every pair completed: none is known complete
    bare = games.copy()
    bare.attrs.clear()
    none = R.common_deals(bare)
    assert len(none) == 0 and none.attrs["deals_used"] == 0


def test_stored_rows_as_arena_games():
    games = _rows([("a", "x", 5)], won=1, points=8)                 # a wins as landlord, loses as farmer
    games.loc[1, "points"] = -8
    games.attrs["k"] = 1
    out = R.arena_games(games)
    first, second = out.iloc[0], out.iloc[1]
    assert (first["a"], first["b"], first["deal"]) == ("a", "x", 5)
    assert bool(first["a_landlord"]) and bool(first["a_won"]) and bool(first["landlord_won"])
    assert not second["a_landlord"] and not second["a_won"] and bool(second["landlord_won"])
    assert list(out["bombs"]) == [3, 3]                              # points are ±2^bombs (base 1)
    assert list(out["a_points"]) == [8, -8] and list(out["moves"]) == [30, 30]
    assert list(out["a_seconds"]) == [0.5, 0.5] and list(out["a_moves"]) == [10, 10]
    assert list(out["b_seconds"]) == [0.25, 0.25] and list(out["b_moves"]) == [12, 12]
    assert out.attrs["k"] == 1


def test_the_code_version_is_the_git_commit_in_a_checkout():
    """The tests run from a git checkout: the version is its short commit (``+dirty`` when
    ddzlab/ has uncommitted changes), not the package version of an installed copy."""
    import re
    assert re.fullmatch(r"[0-9a-f]{7,40}(\+dirty)?", R.code_version())
