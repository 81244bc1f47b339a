"""The catalog: every stored experiment of the notebooks, by name (``CATALOG[name]``).

A study adds its experiment here (one `Experiment` each, named after its notebook), runs
it with ``ddzlab experiment run NAME`` and commits ``data/experiments/NAME/``; its notebook
reads the rows with `ddzlab.experiments.load_games`. Adding an agent to a grid is one line:
the stored games of the other pairs stay valid (a pair's games do not depend on the rest
of the grid) and the next run plays only the new pairs.
"""
from __future__ import annotations

from .runner import Experiment

#: the held-out deal set of the arena studies (the weights' tuning never saw it)
ARENA_DEALS = "standard_1000"

#: every cheap agent that plays fairly (no bidder, no cheater): milliseconds a move
CHEAP_AGENTS = ["random", "smallest", "split_random", "greedy", "qlearning_prior", "qlearning",
                "rulev1", "weights"]
#: the search agents join the round robin once they are fast enough (the compiled core):
#: add their specs here, e.g. "mcts", "ismcts"
SEARCH_AGENTS: list[str] = []

#: the role-aware rules of `weights` that notebook 06 switches off one at a time
WEIGHTS_RULES = ("spare_partner", "gatekeeper", "keep_lead", "one_card_guard", "split_vs_two",
                 "feed_partner", "urgent_block", "bomb")

CATALOG: dict[str, Experiment] = {}


def add(exp: Experiment) -> Experiment:
    """Put an experiment in the catalog (a name may be used once)."""
    if exp.name in CATALOG:
        raise ValueError(f"experiment {exp.name!r} is already in the catalog")
    CATALOG[exp.name] = exp
    return exp


add(Experiment(
    "06_tournament", configs=CHEAP_AGENTS + SEARCH_AGENTS, deals=ARENA_DEALS, seed=0,
    description="Notebook 06: round robin of every cheap agent, 1,000 held-out deals x 2 (sides "
                "swapped) per pair; Bradley-Terry ratings and the paired matrix."))

add(Experiment(
    "06_ablation", configs=["weights"] + [f"weights:off={rule}" for rule in WEIGHTS_RULES],
    opponents=["greedy", "rulev1"], deals=ARENA_DEALS, seed=0,
    description="Notebook 06: weights with each role-aware rule switched off alone, paired with "
                "the full agent on the same deals and seeds, against greedy and rulev1."))


#: notebook 03: leading from the best-score split against the fewest-plays split
add(Experiment(
    "03_split_lead", configs=["split_lead:split=score", "split_lead:split=fewest"],
    opponents=["greedy", "weights"], deals=2000, deal_seed=3, seed=0,
    description="Notebook 03: split_lead leading from the best-score split vs the fewest-plays split, "
                "2,000 deals x 2 against greedy and weights, paired by deal."))

#: notebook 07: the agents under the wildcard rules; add "ismcts" here once it is fast
WILDCARD_AGENTS = ["weights"]
add(Experiment(
    "07_wildcard", configs=WILDCARD_AGENTS, opponents=["greedy"], deals="wildcard_2000", rules="wildcard", seed=0,
    description="Notebook 07: wildcard deals as dealt (F with whoever drew it), 2,000 deals x 2."))
add(Experiment(
    "07_wildcard_swapped", configs=WILDCARD_AGENTS, opponents=["greedy"], deals="wildcard_2000_swapped",
    rules="wildcard", seed=0,
    description="Notebook 07: the same deals with F exchanged for a random natural card of the other "
                "side (ddzlab.deals.swap_flower), 2,000 deals x 2."))
add(Experiment(
    "07_standard", configs=WILDCARD_AGENTS, opponents=["greedy"], deals=2000, deal_seed=7, seed=0,
    description="Notebook 07: the same agents under the standard rules, 2,000 deals x 2 (landlord WP, ranking)."))


__all__ = ["CATALOG", "add", "WILDCARD_AGENTS", "ARENA_DEALS", "CHEAP_AGENTS", "SEARCH_AGENTS", "WEIGHTS_RULES"]
