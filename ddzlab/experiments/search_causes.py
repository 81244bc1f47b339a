"""Counts behind notebook 09's hypotheses about the search (docs/search.md): does the move
filter hide the moves that win (H2), and is the move played the one of highest value (H5)?

H2. The tree of the MCTS agents keeps, at a position with many moves, only the ``width`` best by
the greedy split's value (`ddzlab.agents.mcts.split_filter`). If the moves that win were often
among the dropped ones, a deeper search could not find them, whatever its budget. This study
takes the positions of real games small enough to solve exactly (the open-hand solver,
`ddzlab.analysis.endgame`), finds the moves after which the side to move wins against perfect
play, and counts the positions where such moves exist but the filter keeps none of them.

The games are greedy self-play on generated deals (the searcher's positions come from games
like these: the same rules, the same kind of hands); each position is solved once per legal
move, so only positions of at most ``max_cards`` cards in all are taken.

Notebooks 09 and 07 (the strongest agent under the flower card) read the search agents'
experiments with `load_study`: the stored rows on the deals every pair
has played, or, at test scale and while an experiment holds fewer than two such deals, a tiny
grid of it (`TEST_GRIDS`: budgets of a few iterations) played on two deals into a temporary
folder. An experiment below `ddzlab.experiments.catalog.CAUSE_DEALS` common deals is a pilot
(`pilot_note`): shown, never recorded. `budget_labels` finds one tree's configs by budget.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Union

import pandas as pd
from tqdm.auto import tqdm

from .. import stats as S

from ..agents.base import make_agent
from ..agents.mcts import CheatingMCTSAgent, split_filter
from ..analysis.endgame import solve_endgame
from ..cards import Hand
from ..deals import generate_deals
from ..errors import DdzError
from ..game import Game, Phase
from ..moves import Move
from .catalog import (CATALOG, CAUSE_DEALS, DEV_PRIORS, HYPOTHESIS_OPTIONS, OTHERS_MODES, PRIOR_LABEL, PRIOR_SPEC,
                      STRONG_BUDGET_NEXT, STRONG_CANDIDATES, STRONG_CHOSEN)
from .runner import Experiment, ExperimentError, common_deals, load_games, run_experiment

#: experiment -> the tiny grid (``configs``) played in its place at test scale
TEST_GRIDS: dict[str, dict[str, dict[str, str]]] = {
    "09_cheater_model": dict(configs={f"cheat-{o}-{b}": f"mcts_cheat:iterations={b},others={o}"
                                      for o in OTHERS_MODES for b in (4, 16, 64)}),
    "09_cheater_hypotheses": dict(configs={f"cheat-search{k and '-'}{k}-{b}": f"mcts_cheat:iterations={b},others=search{v}"
                                           for k, v in {"": "", **HYPOTHESIS_OPTIONS}.items() for b in (16, 64)}),
    "09_ismcts_model": dict(configs={**{f"ismcts-{o}-{b}": f"ismcts:iterations={b},others={o}"
                                        for o in OTHERS_MODES for b in (4, 64)},
                                     **{f"mcts-{o}-64": f"mcts:iterations=64,others={o}" for o in OTHERS_MODES}}),
    "09_exact": dict(configs={f"cheat-policy-exact{n}-64": f"mcts_cheat:iterations=64,others=policy,exact={n}"
                              for n in (0, 12, 20)}),
    "09_strong_dev": dict(configs={k: f"{v},iterations=8" for k, v in STRONG_CANDIDATES.items()}),
    "09_prior_dev": dict(configs={f"{STRONG_CHOSEN}-{k}": f"{STRONG_CANDIDATES[STRONG_CHOSEN]},{v},iterations=8"
                                  for k, v in DEV_PRIORS.items()}),
    "09_strongest": dict(configs={STRONG_CHOSEN: f"{STRONG_CANDIDATES[STRONG_CHOSEN]},iterations=8"}),
    "09_strongest_budget": dict(configs={f"{STRONG_CHOSEN}-{STRONG_BUDGET_NEXT}":
                                         f"{STRONG_CANDIDATES[STRONG_CHOSEN]},iterations=16"}),
    "05_strongest": dict(configs={PRIOR_LABEL: f"{PRIOR_SPEC},iterations=8"}),
    "07_wildcard_strongest": dict(configs={STRONG_CHOSEN: f"{STRONG_CANDIDATES[STRONG_CHOSEN]},iterations=8"}),
}


def load_study(name: str, run_scale: str, tmp: Union[str, Path],
               full_size: int = CAUSE_DEALS) -> tuple[pd.DataFrame, Experiment, bool]:
    """(games on the deals every pair played, the experiment as played, full size?) of the
    experiment ``name`` of `TEST_GRIDS` at ``run_scale`` (``test``, ``quick`` or ``full``).

    The stored rows when they hold two common deals or more (at ``full`` scale the experiment
    is first run to completion); else its tiny grid, played on two deals into ``tmp`` and
    marked ``attrs["tiny"]`` (a test grid: its figure is not saved over the stored one).
    Full size: stored, with at least ``full_size`` common deals. `ExperimentError` for a name
    without a grid."""
    if name not in TEST_GRIDS:
        raise ExperimentError(f"{name!r} is not one of the search studies' experiments: {', '.join(TEST_GRIDS)}")
    exp = CATALOG[name]
    if run_scale != "test":
        if run_scale == "full":
            run_experiment(exp)
        games = common_deals(load_games(exp))
        if games.attrs["deals_used"] >= 2:
            return games, exp, games.attrs["deals_used"] >= full_size
    tiny = exp.with_agents(configs=TEST_GRIDS[name]["configs"])
    run_experiment(tiny, deals=2, root=tmp, progress=False)
    games = common_deals(load_games(tiny, root=tmp))
    games.attrs["tiny"] = True
    return games, tiny, False


def budget_labels(exp: Experiment, prefix: str, others: str, extra: str = "") -> dict[int, str]:
    """budget -> config label of one tree of ``exp``: the labels ``PREFIX-OTHERS[EXTRA]-BUDGET``
    (e.g. ``cheat-policy-400``; ``extra`` a variant's tag, such as ``-all``)."""
    out = {}
    for label in exp.configs:
        head, budget = label.rsplit("-", 1)
        if head == f"{prefix}-{others}{extra}":
            out[int(budget)] = label
    return out


def pilot_note(full: bool, games: Optional[pd.DataFrame] = None) -> str:
    """The mark after a result of an experiment below full size (empty when full size);
    when ``games`` is `load_study`'s tiny grid, the mark says the experiment has no rows yet."""
    if games is not None and games.attrs.get("tiny"):
        return " *(a test grid of a few iterations on two deals: the experiment has no stored rows yet)*"
    return "" if full else " *(pilot: not full size, not recorded)*"


def _positions(deals: int, seed: int, progress: bool, what: str):
    """(deal index, seat to act, game) at every move of greedy self-play on ``deals`` generated deals."""
    for index, deal in enumerate(tqdm(generate_deals(deals, seed=seed), disable=not progress, desc=what)):
        game = Game(deal, landlord=0)
        agents = [make_agent("greedy") for _ in range(3)]
        while game.phase is Phase.PLAY:
            seat = game.to_act
            assert seat is not None                  # (a seat during play)
            yield index, seat, game
            game.play(agents[seat].play(game.observation(seat)))


def _side_wins_after(game: Game, move: Move) -> bool:
    """Whether the side of the seat to act wins against perfect play after it plays ``move``."""
    seat, lord = game.to_act, game.landlord
    g = game.copy()
    g.play(move)
    if g.phase is not Phase.PLAY:
        return True                                  # the move emptied the hand
    assert g.to_act is not None and lord is not None     # (a seat to act; landlord 0 in these games)
    r = solve_endgame([Hand.from_bits(b) for b in g.hands], to_move=g.to_act, to_beat=g.last_move,
                      last_seat=g.last_seat, landlord=lord)
    return r.winner == (0 if seat == lord else 1)


def filter_misses(deals: int, seed: int, max_cards: int = 18, width: int = 8,
                  progress: bool = True) -> pd.DataFrame:
    """One row per position of greedy self-play (``deals`` generated from ``seed``) with at most
    ``max_cards`` cards left and more than ``width`` moves to choose from (where the filter
    drops moves): the moves, those kept, those that win against perfect play, and whether the
    filter keeps one of them (``kept_win``)."""
    rows = []
    for index, seat, game in _positions(deals, seed, progress, "H2 positions"):
        legal = game.legal_moves()
        plays = [m for m in legal if not m.is_pass]
        if sum(game.sizes) <= max_cards and len(plays) > width:
            kept = split_filter(game, legal, width)
            wins = [m for m in legal if _side_wins_after(game, m)]
            rows.append({"deal": index, "move_no": len(game.history), "seat": seat,
                         "role": "landlord" if seat == game.landlord else "farmer", "cards": sum(game.sizes),
                         "moves": len(legal), "kept": len(kept), "wins": len(wins),
                         "kept_win": any(m in kept for m in wins)})
    return pd.DataFrame(rows, columns=["deal", "move_no", "seat", "role", "cards", "moves", "kept", "wins",
                                       "kept_win"])


def choice_disagreement(deals: int, seed: int, budgets: tuple[int, ...] = (400, 6400), every: int = 4,
                        spec: str = "mcts_cheat:others=search", progress: bool = True) -> pd.DataFrame:
    """H5: at every ``every``-th position of greedy self-play with more than one move, the
    all-seeing search (``spec``) at each budget; one row per (position, budget): whether the
    most visited root move (the one played) differs from the root move of highest mean value,
    and the two values."""
    rows = []
    count = 0
    for index, seat, game in _positions(deals, seed, progress, "H5 positions"):
        if len(game.legal_moves()) < 2:
            continue
        count += 1
        if count % every:
            continue
        for budget in budgets:
            agent = make_agent(spec, seed=(seed, index, len(game.history)), iterations=budget)
            if not isinstance(agent, CheatingMCTSAgent):
                raise DdzError(f"choice_disagreement needs an all-seeing search (mcts_cheat), not {spec!r}")
            agent.see_all_hands(game)
            played = agent.play(game.observation(seat))
            searched = agent._eval_of                # the root's statistics, all of them
            assert searched is not None              # (set by every search: two moves or more here)
            stats = searched[0]
            best = max(stats, key=lambda m: stats[m][1] / stats[m][0] if stats[m][0] else -1.0)
            value = {m: r / v for m, (v, r) in stats.items() if v}
            rows.append({"deal": index, "move_no": len(game.history), "budget": budget,
                         "differs": best != played, "played_value": value.get(played, float("nan")),
                         "best_value": value[best]})
    return pd.DataFrame(rows, columns=["deal", "move_no", "budget", "differs", "played_value", "best_value"])




def budget_curve(games: pd.DataFrame, labels: dict[int, str], opponent: str) -> pd.DataFrame:
    """WP (both roles, the deal the unit: 95% t interval) of each budget's configuration
    (``labels``: budget -> config label) against ``opponent``."""
    rows = []
    for budget, label in sorted(labels.items()):
        x = S.per_deal(games, label, opponent).to_numpy(float)
        m, lo, hi = S.t_interval(x)
        rows.append({"budget": budget, "config": label, "opponent": opponent, "WP": m, "lo": lo, "hi": hi,
                     "deals": len(x)})
    return pd.DataFrame(rows)


def budget_pairs(games: pd.DataFrame, labels: dict[int, str], opponent: str) -> pd.DataFrame:
    """Every larger budget minus every smaller one (paired by deal, WP) against ``opponent``:
    the tests of "more search is never significantly worse" (p two-sided, uncorrected)."""
    rows = []
    budgets = sorted(labels)
    for i, small in enumerate(budgets):
        for large in budgets[i + 1:]:
            d = S.paired_diff(games, labels[large], labels[small], opponent=opponent).loc["WP"]
            rows.append({"opponent": opponent, "small": small, "large": large, "ΔWP": d.estimate, "lo": d.lo,
                         "hi": d.hi, "SD": d.sd, "p": d.p, "MDE": d.mde, "deals": int(d.n)})
    return pd.DataFrame(rows)


__all__ = ["filter_misses", "choice_disagreement", "budget_curve", "budget_pairs", "TEST_GRIDS", "load_study",
           "budget_labels", "pilot_note"]
