"""The catalog's builders (`ddzlab.experiments.catalog`) against the experiments as stored: the
committed ``data/experiments/NAME/experiment.json`` holds each experiment's labels and specs as
they were played, so a builder called now must give them again. The catalog itself is built at
import; these tests call the builders, so a change to one shows here (and not only in a store
check that reads the catalog built before the change)."""
from __future__ import annotations

import json

import pytest

from ddzlab.config import DATA_DIR
from ddzlab.experiments import catalog
from ddzlab.experiments.catalog import (CHEAT_BUDGETS, FAST_GUESSERS, OTHERS_MODES, POOL_GUESSERS,
                                        POOL_GUESSERS_3200, cheater, guess_experiments, ismcts)
from ddzlab.experiments.runner import Experiment


def stored_configs(name: str) -> dict[str, str]:
    """label -> spec of a committed experiment, as played."""
    return json.loads((DATA_DIR / "experiments" / name / "experiment.json").read_text())["configs"]


def test_the_cheater_labels_and_specs_are_those_stored() -> None:
    assert dict(cheater(b, o) for o in OTHERS_MODES for b in CHEAT_BUDGETS) == stored_configs("09_cheater_model")
    # an extra option: "=" dropped and "," turned into "-" in the label, the spec as written
    assert cheater(1600, "policy", ",exact=12") == ("cheat-policy-exact12-1600",
                                                    "mcts_cheat:iterations=1600,others=policy,exact=12")
    assert dict(cheater(1600, "policy", f",exact={n}") for n in (12, 16, 20)) == stored_configs("09_exact")
    assert cheater(400) == ("cheat-search-400", "mcts_cheat:iterations=400,others=search")


@pytest.mark.parametrize("name, budgets, guessers", [
    ("05_guessers", (200, 800), FAST_GUESSERS), ("05_guessers_policy", (200, 800), POOL_GUESSERS),
    ("05_guessers_3200", (3200,), FAST_GUESSERS), ("05_guessers_policy_3200", (3200,), POOL_GUESSERS_3200),
    ("05_guessers_mini", (200, 800), FAST_GUESSERS)])
def test_the_guesser_grids_are_those_stored(name, budgets, guessers) -> None:
    assert catalog._guessers(budgets, guessers) == stored_configs(name)
    assert ismcts(800, "bomb") == ("ismcts-bomb-800", "ismcts:iterations=800,guesser=bomb")
    assert ismcts(800) == ("ismcts-uniform-800", stored_configs("05_guessers")["ismcts-uniform-800"])  # the default


def test_guess_experiments_names_the_four_of_a_rule_set() -> None:
    standard = ["05_guessers", "05_guessers_policy", "05_guessers_3200", "05_guessers_policy_3200"]
    assert guess_experiments() == guess_experiments("standard") == standard
    assert guess_experiments("mini") == [n.replace("05_guessers", "05_guessers_mini") for n in standard]
    for rules in ("standard", "mini"):
        assert {catalog.CATALOG[n].rules for n in guess_experiments(rules)} == {rules}


def test_add_puts_an_experiment_in_the_catalog_once(monkeypatch) -> None:
    monkeypatch.setattr(catalog, "CATALOG", {})
    exp = Experiment("x_catalog_test", configs=["random", "greedy"])
    assert catalog.add(exp) is exp and catalog.CATALOG == {"x_catalog_test": exp}
    with pytest.raises(ValueError, match="'x_catalog_test' is already in the catalog"):
        catalog.add(Experiment("x_catalog_test", configs=["random", "smallest"]))
    assert catalog.CATALOG["x_catalog_test"] is exp
