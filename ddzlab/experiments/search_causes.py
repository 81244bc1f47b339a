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
"""
from __future__ import annotations

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


__all__ = ["filter_misses", "choice_disagreement", "budget_curve", "budget_pairs"]
