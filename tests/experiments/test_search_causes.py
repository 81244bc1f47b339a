"""How notebook 09 reads its experiments (`ddzlab.experiments.search_causes`): the label grammar
of one tree's configs (``PREFIX-OTHERS[EXTRA]-BUDGET``, worked out by hand below), the pilot
mark, the tiny grids played at test scale, and the definition of a full-size experiment (stored,
with at least ``full_size`` deals every pair has played)."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from ddzlab.experiments import CATALOG, ExperimentError
from ddzlab.experiments.catalog import CAUSE_DEALS
from ddzlab.experiments.search_causes import TEST_GRIDS, budget_labels, load_study, pilot_note


def test_budget_labels_pick_one_tree_by_its_prefix_mode_and_variant() -> None:
    exp = CATALOG["09_cheater_model"].with_agents(configs={
        "cheat-policy-400": "mcts_cheat:iterations=400,others=policy",
        "cheat-policy-6400": "mcts_cheat:iterations=6400,others=policy",
        "cheat-search-400": "mcts_cheat:iterations=400,others=search",
        "cheat-search-all-1600": "mcts_cheat:iterations=1600,others=search,moves=all",
        "ismcts-policy-400": "ismcts:iterations=400,others=policy"})
    assert budget_labels(exp, "cheat", "policy") == {400: "cheat-policy-400", 6400: "cheat-policy-6400"}
    assert budget_labels(exp, "cheat", "search") == {400: "cheat-search-400"}           # not the variant
    assert budget_labels(exp, "cheat", "search", "-all") == {1600: "cheat-search-all-1600"}
    assert budget_labels(exp, "ismcts", "policy") == {400: "ismcts-policy-400"}
    assert budget_labels(exp, "mcts", "policy") == {}


def test_a_pilot_is_marked_and_a_full_size_result_is_not() -> None:
    assert pilot_note(True) == ""
    assert "pilot" in pilot_note(False) and "not recorded" in pilot_note(False)
    tiny, stored = pd.DataFrame(), pd.DataFrame()
    tiny.attrs["tiny"] = True
    assert "no stored rows yet" in pilot_note(False, tiny) and "no stored rows yet" in pilot_note(True, tiny)
    assert pilot_note(False, stored) == pilot_note(False) and pilot_note(True, stored) == ""


def test_every_tiny_grid_is_of_a_catalog_experiment_and_searches_a_few_iterations() -> None:
    for name, grid in TEST_GRIDS.items():
        assert name in CATALOG
        budgets = [int(b) for spec in grid["configs"].values() for b in re.findall(r"iterations=(\d+)", spec)]
        assert len(budgets) == len(grid["configs"]) and max(budgets) <= 64
    # the H1 grid holds both trees at three budgets each, as the notebook reads them
    cheat = CATALOG["09_cheater_model"].with_agents(**TEST_GRIDS["09_cheater_model"])
    assert set(budget_labels(cheat, "cheat", "search")) == set(budget_labels(cheat, "cheat", "policy")) == {4, 16, 64}


def test_at_test_scale_the_tiny_grid_is_played_on_two_deals_and_is_a_pilot(tmp_path) -> None:
    games, exp, full = load_study("09_strongest", "test", tmp_path)
    assert not full and games.attrs["tiny"] is True
    assert exp.configs == TEST_GRIDS["09_strongest"]["configs"]
    assert games.attrs["deals_used"] == 2 and set(games["deal"]) == {0, 1}
    assert set(games["config"]) == set(exp.configs) and set(games["opponent"]) == set(exp.opponents)
    assert len(games) == 2 * 2 * len(exp.opponents)          # each deal twice, sides swapped, per opponent


def test_stored_rows_are_full_size_from_full_size_common_deals(tmp_path) -> None:
    games, exp, full = load_study("09_strongest", "quick", tmp_path)
    n = games.attrs["deals_used"]
    assert "tiny" not in games.attrs and exp is CATALOG["09_strongest"] and n >= 2
    assert full == (n >= CAUSE_DEALS)
    assert load_study("09_strongest", "quick", tmp_path, full_size=n)[2] is True
    assert load_study("09_strongest", "quick", tmp_path, full_size=n + 1)[2] is False
    assert not list(tmp_path.iterdir())                     # nothing played


@pytest.mark.parametrize("scale", ["test", "quick"])
def test_an_experiment_without_a_grid_is_refused_before_anything_is_read(tmp_path, scale) -> None:
    with pytest.raises(ExperimentError, match="'05_worlds' is not one of the search studies' experiments"):
        load_study("05_worlds", scale, tmp_path)
    assert not list(tmp_path.iterdir())
