"""Notebook 05's study of the search with card guessing: which rows it reads, and the tables it draws.

Notebook 05 asks five questions of the stored experiments ``05_*`` (`ddzlab.experiments.catalog`):
does a better guesser raise the WP of ``ismcts`` (F1), what could inference win at all (F2, the
noisy oracle), does the cheater's lead shrink with the budget (F3), how a budget is best shared
between worlds and iterations (F4), and which is the strongest search agent (F5, F5b, F5c).
This module holds everything the notebook computes; the notebook holds the calls, the figures
and the prose.

Families. A *family* is a set of tests Holm corrects together, read from one or more
experiments joined on the deals all of them have played (`FAMILIES`: the experiments a
family needs and those it joins once they have caught up). At test scale, or while a needed
experiment holds fewer than two common deals, a family is played instead as a tiny grid
(`TEST_GRIDS`: budgets of a few iterations, two deals) into a temporary folder, and marked a
pilot. A family is *full size* when it is stored and its common deals reach `FULL_SIZE` (or
all its planned deals).

Tables. Every test is a paired WP difference over deals (`ddzlab.experiments.tables`); each
table carries ``p (Holm)`` and ``significant`` over its family, read by
`ddzlab.stats.row_verdict` for the one wording of a result.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence, Union

import numpy as np
import pandas as pd

from .. import stats as S
from ..agents import make_agent, play_game
from ..agents.mcts import WeightsRollout, split_filter
from ..deals import Deal, generate_deals
from ..game import Game
from ..rules import get_rules
from .catalog import (CATALOG, CHEAT_BUDGETS, ORACLE_Q, PRIOR_LABEL, PRIOR_SPEC, STRONG_BUDGET, STRONG_TARGETS,
                      STRONGEST, WORLD_TOTALS, WORLDS, guess_experiments)
from .guessing import ACCURACY_STUDY, accuracy_games
from .runner import Experiment, common_deals, load_games, run_experiment
from .tables import holm_flags, paired_wp, wp_row

#: the families' sizes as the notebook's declaration states them (`planned_family_sizes` counts
#: them from the catalog: the two must agree)
DECLARED_SIZES = {"F1 guessers, standard": 28, "F1 guessers, mini": 28, "F2 oracle": 12, "F3 cheater gap": 7,
                  "F4 worlds": 18}
#: the test grids' budgets (iterations a move)
TINY = (4, 8)
#: common deals of a full-size family (or its planned deals, if fewer)
FULL_SIZE = 1000
#: the seed of the deals F5b's count plays: apart from every experiment's (they use 0-27)
PRIOR_COUNT_SEED = 99
#: the guess-accuracy curves' bins over the share of the cards played
ACCURACY_BINS = 5


# -- the plan -------------------------------------------------------------------------------
def power_text(what: str, sds: Sequence[float], n: int, stored: bool, effect: float = S.EFFECT_WP) -> str:
    """The power statement printed before a family's results (Markdown): the deals ``effect``
    needs at the SD of its paired per-deal differences (the median of the finite positive
    ``sds`` of its tests), and the effect its ``n`` deals can detect; ``stored`` False marks
    pilot numbers."""
    sds = [s for s in sds if np.isfinite(s) and s > 0]
    if not sds or n < 2:
        return f"**Power ({what}).** Not measurable yet ({n} common deals)."
    sd = float(np.median(sds))
    need, mde = S.n_needed(sd, effect), S.mde(sd, n)
    can = f"{mde:.3f} WP" if mde <= 1 else "no WP difference at all (the MDE exceeds 1)"
    return (f"**Power ({what}).** SD of the paired per-deal differences {sd:.2f} (median of {len(sds)} tests): "
            f"{effect} WP needs **{need:,} deals ({2 * need:,} games per configuration)** at 80% power; "
            f"{n:,} deals here detect {can}." + ("" if stored else " *Pilot numbers.*"))


def power_plan(effect: float = S.EFFECT_WP, sds: Sequence[float] = (0.3, 0.4, 0.5),
               deals: Sequence[int] = (1000, 2000)) -> pd.DataFrame:
    """For each plausible SD of the per-deal differences: the deals (and games per
    configuration) a paired test needs for ``effect`` at 80% power, and the effect each of
    ``deals`` detects."""
    return pd.DataFrame([{"SD of per-deal differences": sd,
                          f"deals for {effect} WP (80% power)": S.n_needed(sd, effect),
                          "games per configuration": 2 * S.n_needed(sd, effect),
                          **{f"effect {n:,} deals detect": S.mde(sd, n) for n in deals}} for sd in sds])


def f1_tests(rules: str) -> int:
    """F1's tests on one rule set, counted from the catalog: every guesser but uniform at each
    budget it runs at, against each opponent."""
    return sum(len(CATALOG[n].opponents) * sum(not c.startswith("ismcts-uniform-") for c in CATALOG[n].configs)
               for n in guess_experiments(rules))


def planned_family_sizes() -> dict[str, int]:
    """The tests of each family (F1 to F4) as the catalog plans them (compare `DECLARED_SIZES`)."""
    return {"F1 guessers, standard": f1_tests("standard"), "F1 guessers, mini": f1_tests("mini"),
            "F2 oracle": len(ORACLE_Q) * len(CATALOG["05_oracle"].opponents), "F3 cheater gap": len(CHEAT_BUDGETS),
            "F4 worlds": len(WORLD_TOTALS) * (len(WORLDS) - 1)}


# -- the stored games -------------------------------------------------------------------------
def tiny_ismcts(budgets: Sequence[int], guessers: Sequence[str]) -> dict[str, str]:
    """label -> spec of ``ismcts`` with each guesser at each budget, labelled as the catalog
    labels them (``ismcts-GUESSER-BUDGET``)."""
    return {f"ismcts-{g}-{b}": f"ismcts:iterations={b},guesser={g}" for b in budgets for g in guessers}


def _test_grids() -> dict[str, dict]:
    grids = {"05_oracle": dict(configs={f"ismcts-{g}-8": f"ismcts:iterations=8,guesser={g}"
                                        for g in ("oracle0.75", "oracle1.0")}, opponents=["greedy", "rulev1"]),
             "05_cheater": dict(configs={**{f"cheater-{b}": f"mcts_cheat:iterations={b}" for b in TINY},
                                         **{f"ismcts-uniform-{b}": f"ismcts:iterations={b}" for b in TINY}},
                                opponents=["greedy"]),
             "05_worlds": dict(configs={f"mcts-{t}-w{w}": f"mcts:iterations={t},worlds={w}" for t in (8, 16)
                                        for w in (1, 4, 8)}, opponents=["greedy"]),
             "05_strongest": dict(configs={STRONGEST: f"{STRONGEST}:iterations=8", "ismcts": "ismcts:iterations=8",
                                           PRIOR_LABEL: f"{PRIOR_SPEC},iterations=8"},
                                  opponents=list(STRONG_TARGETS)),
             "05_strong_budget": dict(configs={STRONGEST: f"{STRONGEST}:iterations=8",
                                               f"{STRONGEST}-{STRONG_BUDGET}": f"{STRONGEST}:iterations=24"},
                                      opponents=["weights"])}
    for rules in ("standard", "mini"):
        fast, policy, fast_big, policy_big = guess_experiments(rules)
        opps = CATALOG[fast].opponents
        grids.update({fast: dict(configs=tiny_ismcts(TINY, ("uniform", "bomb")), opponents=opps),
                      policy: dict(configs=tiny_ismcts(TINY, ("policy",)), opponents=opps),
                      fast_big: dict(configs=tiny_ismcts((12,), ("uniform", "bomb")), opponents=opps),
                      policy_big: dict(configs=tiny_ismcts((12,), ("policy",)), opponents=opps)})
    return grids


def _families() -> dict[str, tuple[list[str], list[str]]]:
    fams: dict[str, tuple[list[str], list[str]]] = {
        "05_oracle": (["05_oracle", "05_guessers"], []), "05_cheater": (["05_cheater"], []),
        "05_worlds": (["05_worlds"], []), "05_strongest": (["05_strongest"], []),
        "05_strong_budget": (["05_strong_budget"], [])}
    for rules in ("standard", "mini"):
        fast, policy, fast_big, policy_big = guess_experiments(rules)
        fams.update({fast: ([fast], [policy]), fast_big: ([fast_big], [policy_big])})
    return fams


#: experiment -> the tiny grid (``configs``, ``opponents``) played in its place at test scale
TEST_GRIDS = _test_grids()
#: family -> (the experiments it needs, the experiments it joins once they have caught up)
FAMILIES = _families()


@dataclass(frozen=True)
class Family:
    """One family's games: ``games`` of its experiments on the deals all of them played
    (``attrs``: ``deals_used``, ``members``, ``left_out``), the joined ``experiment``
    (every member's configs), ``full`` (stored and full size), ``source`` (``stored``,
    ``stored, small: pilot`` or ``tiny grid: pilot``) and ``members``: experiment ->
    (its games used, ``stored`` or ``pilot``)."""
    games: pd.DataFrame
    experiment: Experiment
    full: bool
    source: str
    members: dict


def load_family(key: str, run_scale: str, tmp: Union[str, Path], full_size: int = FULL_SIZE) -> Family:
    """The family ``key`` of `FAMILIES` at ``run_scale`` (``test``, ``quick`` or ``full``).

    Stored rows are used when every needed experiment has two common deals or more (at
    ``full`` scale each is first run to completion), else the tiny grids of `TEST_GRIDS` are
    played into ``tmp`` on two deals; a joined experiment takes part once it has as many
    common deals as the needed ones."""
    need, extra = FAMILIES[key]
    names, is_stored = need + extra, False
    games: dict[str, pd.DataFrame] = {}
    if run_scale != "test":
        for n in names:
            if run_scale == "full":
                run_experiment(CATALOG[n])
            games[n] = common_deals(load_games(CATALOG[n]))
        if all(games[n].attrs["deals_used"] >= 2 for n in need):
            base = min(games[n].attrs["deals_used"] for n in need)
            names = need + [n for n in extra if games[n].attrs["deals_used"] >= base]   # caught up: joins
            is_stored = True
    if not is_stored:
        for n in names:
            tiny = CATALOG[n].with_agents(**TEST_GRIDS[n])
            run_experiment(tiny, deals=2, root=tmp, progress=False)
            games[n] = common_deals(load_games(tiny, root=tmp))
    n_deals = min(games[m].attrs["deals_used"] for m in names)
    parts = {m: common_deals(games[m], n_deals) for m in names}
    exps = [CATALOG[m].with_agents(**({} if is_stored else TEST_GRIDS[m])) for m in names]
    exp = exps[0].with_agents(configs={k: v for e in exps for k, v in e.configs.items()}, name=key)
    joined = pd.concat(parts.values(), ignore_index=True)
    joined.attrs.update({"deals_used": n_deals, "members": names,
                         "left_out": [m for m in need + extra if m not in names]})
    full = is_stored and n_deals >= min(full_size, exp.n_deals)
    source = "stored" if full else ("stored, small: pilot" if is_stored else "tiny grid: pilot")
    return Family(joined, exp, full, source,
                  {m: (g, "stored" if is_stored else "pilot") for m, g in parts.items()})


def load_families(run_scale: str, tmp: Union[str, Path]) -> tuple[dict, dict, dict]:
    """Every family of `FAMILIES` (`load_family`), as the notebook reads them: (family ->
    (games, experiment, full size?), family -> source, experiment -> (games used, ``stored``
    or ``pilot``))."""
    fams = {key: load_family(key, run_scale, tmp) for key in FAMILIES}
    data = {k: (f.games, f.experiment, f.full) for k, f in fams.items()}
    source = {k: f.source for k, f in fams.items()}
    members = {m: v for f in fams.values() for m, v in f.members.items()}
    return data, source, members


def family_summary(data: Mapping, source: Mapping) -> pd.DataFrame:
    """One row per family: where its rows come from, its experiments (and those left out),
    configs, opponents, rules, deals used and planned, games, CPU seconds a game."""
    return pd.DataFrame([{"family": k, "source": source[k], "experiments": ", ".join(g.attrs["members"]),
                          "not caught up yet (left out)": ", ".join(g.attrs["left_out"]), "configs": len(e.configs),
                          "opponents": ", ".join(e.opponents), "rules": e.rules,
                          "deals used": g.attrs["deals_used"], "deals planned": e.n_deals, "games": len(g),
                          "CPU s a game (config side)": g.seconds.sum() / max(len(g), 1)}
                         for k, (g, e, _) in data.items()])


# -- F1: the guessers -------------------------------------------------------------------------
def parse_label(label: str) -> tuple[str, int]:
    """The guesser and budget of an ``ismcts`` label: ``'ismcts-policy64-800'`` ->
    ``('policy64', 800)``; a label without two dashes is a guesser at budget 0."""
    _, guesser, budget = label.rsplit("-", 2) if label.count("-") >= 2 else ("", label, "0")
    return guesser, int(budget)


def reported(rows: pd.DataFrame) -> pd.DataFrame:
    """The tests of a family that it corrects, states the power of and reports: its rows with a
    ΔWP, the stored ones only once any is stored (a tiny-grid pilot is never corrected,
    reported or plotted beside stored rows), else the pilot's."""
    tests = rows[rows["ΔWP"].notna()]
    return tests[tests.stored] if tests.stored.any() else tests


def guesser_family(rules: str, data: Mapping, source: Mapping, alpha: float = 0.05,
                   effect: float = S.EFFECT_WP) -> pd.DataFrame:
    """F1 on one rule set: a row per (experiment, opponent, config) of the fast guesser
    experiments (joined with the policy ones) with its WP; every guesser but uniform also
    has its paired ΔWP over uniform at the same budget and the deals ``effect`` needs,
    and the `reported` tests are Holm-corrected together."""
    fast, _, fast_big, _ = guess_experiments(rules)
    rows = []
    for name in (fast, fast_big):
        games, exp, is_stored = data[name]
        for opp in exp.opponents:
            for label in exp.configs:
                g, b = parse_label(label)
                r = {"rules": rules, "opponent": opp, "guesser": g, "budget": b, "stored": is_stored,
                     "tiny grid": source[name].startswith("tiny grid"), **wp_row(games, label, opp)}
                if g != "uniform":
                    d = paired_wp(games, label, f"ismcts-uniform-{b}", opp, deals=False)
                    r.update({**d, "deals for 0.03": S.n_needed(d["SD"], effect) if d["SD"] > 0 else 0})
                rows.append(r)
    out = pd.DataFrame(rows)
    return holm_flags(out, alpha, tests=reported(out).index)


def guesser_stop(guess: pd.DataFrame, data: Mapping, members: Mapping) -> dict:
    """Where the guesser experiments stopped, from F1's stored rows: ``used`` (fast guesser
    experiment -> deals used), ``n_used`` (the fewest), ``sd`` (the median of F1's finite
    positive SDs) and ``cpu_hours`` (the play the games used record, both sides)."""
    f1_all = reported(guess[guess["ΔWP"].notna()])
    used = {n: data[n][0].attrs["deals_used"] for r in ("standard", "mini") for n in guess_experiments(r)[::2]}
    names = [n for r in ("standard", "mini") for n in guess_experiments(r)]
    cpu_h = sum(float(members[n][0].seconds.sum() + members[n][0].opp_seconds.sum()) for n in names
                if n in members) / 3600
    return {"used": used, "n_used": min(used.values()),
            "sd": float(np.median([s for s in f1_all.SD if np.isfinite(s) and s > 0])), "cpu_hours": cpu_h}


# -- guess accuracy -----------------------------------------------------------------------------
def pilot_accuracy(rules: str, opponent: str) -> pd.DataFrame:
    """A one-deal pilot of an accuracy panel not stored: greedy as the searcher, two samples
    a decision, the fast and policy guessers and two oracles."""
    deals = generate_deals(1, seed=ACCURACY_STUDY["seed"], rules=get_rules(rules))
    return accuracy_games("greedy", opponent, deals, ["uniform", "bomb", "policy", "oracle0.75", "oracle1.0"],
                          rules=rules, seed=ACCURACY_STUDY["seed"], samples=2).assign(rules=rules, opponent=opponent)


def accuracy_curve(part: pd.DataFrame, bins: int = ACCURACY_BINS) -> pd.DataFrame:
    """Accuracy rows (`ddzlab.experiments.guessing`) binned by the share of the cards played
    (``bins`` equal bins, the last closed): per guesser and bin the mean progress, the mean
    accuracy and its 95% t interval over decisions (a bin of one decision: its value thrice)."""
    binned = part.assign(bin=np.minimum((part.progress * bins).astype(int), bins - 1))
    rows = []
    for (g, _), v in binned.groupby(["guesser", "bin"], sort=False):
        m, lo, hi = S.t_interval(v.accuracy) if len(v) > 1 else (v.accuracy.mean(),) * 3
        rows.append({"guesser": g, "progress": v.progress.mean(), "mean": m, "lo": lo, "hi": hi})
    return pd.DataFrame(rows, columns=["guesser", "progress", "mean", "lo", "hi"])


def accuracy_summary(acc: pd.DataFrame) -> pd.DataFrame:
    """Per (rules, opponent, guesser): mean accuracy over decisions, deals, decisions, and the
    mean, median and least effective sample size."""
    return acc.groupby(["rules", "opponent", "guesser"], sort=False).agg(
        accuracy=("accuracy", "mean"), deals=("deal", "nunique"), decisions=("accuracy", "size"),
        ess_mean=("ess", "mean"), ess_median=("ess", "median"), ess_min=("ess", "min")).reset_index()


# -- F2: the noisy oracle -------------------------------------------------------------------------
def oracle_tests(games: pd.DataFrame, exp: Experiment, alpha: float = 0.05) -> tuple[pd.DataFrame, int]:
    """(F2's table, its budget): per opponent the WP of uniform and of each noisy oracle at the
    oracle's budget (that of the experiment's first config), and each oracle's paired ΔWP over
    uniform, Holm-corrected together."""
    budget = parse_label(next(iter(exp.configs)))[1]             # the first configs are the oracle's
    labels = [f"ismcts-uniform-{budget}"] + [c for c in exp.configs if parse_label(c)[0].startswith("oracle")]
    rows = []
    for opp in exp.opponents:
        for label in labels:
            g, b = parse_label(label)
            r = {"opponent": opp, "guesser": g, **wp_row(games, label, opp)}
            if g != "uniform":
                r.update(paired_wp(games, label, f"ismcts-uniform-{b}", opp, deals=False))
            rows.append(r)
    out = pd.DataFrame(rows)
    return holm_flags(out, alpha, tests=out.index[out["ΔWP"].notna()]), budget


def at_budget(guess: pd.DataFrame, rules: str, budget: int) -> pd.DataFrame:
    """F1's rows of ``rules`` at ``budget``, or, when no row of F1 is at it, at F1's largest budget."""
    at = guess.budget == budget if (guess.budget == budget).any() else guess.budget == guess.budget.max()
    return guess[(guess.rules == rules) & at]


# -- F3: the cheater gap --------------------------------------------------------------------------
@dataclass(frozen=True)
class CheaterGap:
    """F3 on the games of ``05_cheater`` against greedy.

    ``gap``: per budget the cheater's paired lead over ``ismcts`` (Holm over the budgets);
    ``wp``: each search's WP by budget; ``shrink``: the change of the per-deal lead from the
    smallest budget ``lo_b`` to the largest ``hi_b`` (mean, lo, hi) and its ``shrink_mde``;
    ``cheat_wp``: the cheater's WP by budget, ``peak_b`` its best budget below ``hi_b``;
    ``decline`` / ``decline_first``: the cheater at ``hi_b`` minus at ``peak_b`` / ``lo_b``,
    ``rise``: ``ismcts`` at ``hi_b`` minus ``lo_b`` (rows of `ddzlab.stats.paired_diff`);
    ``landlord``: the cheater's WP as landlord per deal at ``peak_b`` and ``hi_b``, and
    ``landlord_change`` (mean, lo, hi) of its paired change; ``declines``: the decline's
    interval lies below 0."""
    budgets: list
    gap: pd.DataFrame
    wp: pd.DataFrame
    lo_b: int
    hi_b: int
    shrink: tuple
    shrink_mde: float
    cheat_wp: pd.Series
    peak_b: int
    decline: pd.Series
    decline_first: pd.Series
    rise: pd.Series
    landlord: dict
    landlord_change: tuple
    declines: bool


def landlord_wp(games: pd.DataFrame, label: str) -> pd.Series:
    """``label``'s result as landlord on each deal (1 won, 0 lost), indexed by deal."""
    g = games[(games.config == label) & (games.role == "landlord")].sort_values("deal")
    return g.set_index("deal").won.astype(float)


def cheater_gap(games: pd.DataFrame, exp: Experiment, alpha: float = 0.05, opponent: str = "greedy") -> CheaterGap:
    """F3 (`CheaterGap`) from the games of the cheater study ``exp`` (configs ``cheater-B``
    and ``ismcts-uniform-B`` at each budget B) against ``opponent``."""
    budgets = sorted({parse_label(c)[1] if c.startswith("ismcts") else int(c.split("-")[1]) for c in exp.configs})
    crow, wrow = [], []
    for b in budgets:
        crow.append({"budget": b, **paired_wp(games, f"cheater-{b}", f"ismcts-uniform-{b}", opponent, key="gap")})
        for who, label in (("cheater", f"cheater-{b}"), ("ismcts", f"ismcts-uniform-{b}")):
            wrow.append({"search": who, "iterations": b, **wp_row(games, label, opponent)})
    gap = holm_flags(pd.DataFrame(crow), alpha)
    wp = pd.DataFrame(wrow)
    lo_b, hi_b = budgets[0], budgets[-1]
    per = {b: S.per_deal(games, f"cheater-{b}", opponent) - S.per_deal(games, f"ismcts-uniform-{b}", opponent)
           for b in (lo_b, hi_b)}
    shrink = (per[hi_b] - per[lo_b]).dropna().to_numpy(float)
    shrink_mde = S.mde(float(shrink.std(ddof=1)), len(shrink)) if shrink.std(ddof=1) > 0 else 0.0
    cheat_wp = wp[wp.search == "cheater"].set_index("iterations").WP
    peak_b = int(cheat_wp.drop(index=hi_b).idxmax())
    own = {}
    for who, prefix in (("cheater", "cheater-"), ("ismcts", "ismcts-uniform-")):
        for b0 in dict.fromkeys([lo_b, peak_b] if who == "cheater" else [lo_b]):
            own[(who, b0)] = S.paired_diff(games, f"{prefix}{hi_b}", f"{prefix}{b0}", opponent=opponent).loc["WP"]
    ll = {b: landlord_wp(games, f"cheater-{b}") for b in (peak_b, hi_b)}
    ll_d = (ll[hi_b] - ll[peak_b]).dropna().to_numpy(float)
    dec = own[("cheater", peak_b)]
    return CheaterGap(budgets, gap, wp, lo_b, hi_b, S.t_interval(shrink), shrink_mde, cheat_wp, peak_b, dec,
                      own[("cheater", lo_b)], own[("ismcts", lo_b)], ll, S.t_interval(ll_d), bool(dec.hi < 0))


# -- F4: worlds against iterations ----------------------------------------------------------------
def worlds_tests(games: pd.DataFrame, exp: Experiment, alpha: float = 0.05, reference: int = 4,
                 opponent: str = "greedy") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(WP of each ``mcts-TOTAL-wWORLDS`` config, the tests): at each total budget, each number
    of worlds minus ``reference`` worlds, paired by deal, Holm-corrected together."""
    wrows = []
    for label in exp.configs:
        _, tot, w = label.split("-")
        wrows.append({"total": int(tot), "worlds": int(w[1:]), "label": label, **wp_row(games, label, opponent)})
    worlds = pd.DataFrame(wrows)
    tests = []
    for tot, part in worlds.groupby("total"):
        ref = part[part.worlds == reference]
        if ref.empty:
            continue
        for _, r in part[part.worlds != reference].iterrows():
            tests.append({"total": tot, "worlds": r.worlds, "iterations a world": tot // r.worlds,
                          **paired_wp(games, r.label, ref.label.iloc[0], opponent, key=f"ΔWP vs {reference}",
                                      deals=False)})
    return worlds, holm_flags(pd.DataFrame(tests), alpha)


# -- F5: the strongest agent ----------------------------------------------------------------------
def prior_dropped(deals: Sequence[Deal], width: int = 8) -> pd.Series:
    """Weights self-play (seat 0 landlord) on ``deals``: the positions where the split filter
    of width ``width`` drops moves, and those where it drops the move the weights agent plays
    there, for leads and follows."""
    weights_move = WeightsRollout().prior
    count: dict[str, int] = {}

    def watch(game: Game, seat: int) -> None:
        legal = game.legal_moves()
        kept = split_filter(game, legal, width) if len(legal) > width else legal
        if len(kept) == len(legal):
            return
        kind = "lead" if game.last_move is None else "follow"
        dropped = weights_move(game, legal) not in kept
        for key in (f"{kind}s filtered", f"{kind}s where it is dropped" if dropped else None):
            if key:
                count[key] = count.get(key, 0) + 1

    for deal in deals:
        play_game(Game(deal, landlord=0), [make_agent("weights") for _ in range(3)], watch=watch)
    return pd.Series(count, dtype=int).reindex(["leads filtered", "leads where it is dropped", "follows filtered",
                                                "follows where it is dropped"], fill_value=0)


def prior_tests(games: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """F5b: `PRIOR_LABEL` minus `STRONGEST` paired against each target opponent, Holm over
    the opponents."""
    rows = [{"opponent": opp, **paired_wp(games, PRIOR_LABEL, STRONGEST, opp)} for opp in STRONG_TARGETS]
    return holm_flags(pd.DataFrame(rows), alpha)


def strongest_choice(prior: pd.DataFrame) -> str:
    """The rule declared before F5b played: `PRIOR_LABEL` is the strongest agent if its gain
    is significant against one opponent and significantly negative against none, else
    `STRONGEST`."""
    gains, losses = prior.significant & (prior["ΔWP"] > 0), prior.significant & (prior["ΔWP"] < 0)
    return PRIOR_LABEL if gains.any() and not losses.any() else STRONGEST


def seconds_a_move(games: pd.DataFrame) -> pd.Series:
    """Each game's seconds a move (forced moves included; a game of no plays counts one)."""
    return games.seconds / games.plays.clip(lower=1)


def strongest_table(games: pd.DataFrame, alpha: float = 0.05,
                    agents: Sequence[str] = (STRONGEST, PRIOR_LABEL)) -> pd.DataFrame:
    """F5: per agent and target opponent its WP against the target (`ddzlab.stats.target_verdict`),
    the default ismcts' WP, its paired gain over ismcts (Holm over each agent's two tests) and
    the median game's seconds a move."""
    rows = []
    for agent in agents:
        for opp, target in STRONG_TARGETS.items():
            own = wp_row(games, agent, opp)
            mine = games[(games.config == agent) & (games.opponent == opp)]
            rows.append({"agent": agent, "opponent": opp, "target": target, **own,
                         "verdict": S.target_verdict(own["WP"], own["WP_lo"], target),
                         "ismcts WP": wp_row(games, "ismcts", opp)["WP"],
                         **paired_wp(games, agent, "ismcts", opp, key="ΔWP vs ismcts", deals=False),
                         "s a move": float(seconds_a_move(mine).median())})
    both = pd.DataFrame(rows)
    both["p (Holm)"] = both.groupby("agent").p.transform(S.holm)
    both["significant"] = both["p (Holm)"] < alpha
    return both


def budget_test(games: pd.DataFrame, alpha: float = 0.05) -> pd.Series:
    """F5c, a family of one: `STRONGEST` at `STRONG_BUDGET` iterations minus at its default
    against weights, paired, with both WPs."""
    big = f"{STRONGEST}-{STRONG_BUDGET}"
    d = paired_wp(games, big, STRONGEST, "weights")
    return pd.Series({**d, "significant": d["p"] < alpha, "p (Holm)": d["p"],
                      "WP default": wp_row(games, STRONGEST, "weights")["WP"],
                      "WP bigger budget": wp_row(games, big, "weights")["WP"]})


# -- time -----------------------------------------------------------------------------------------
def time_per_move(games: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: its plays, the median game's milliseconds a move, and the mean over
    all its moves (a pause of the run included)."""
    by = games.groupby("config")
    return pd.DataFrame({"plays": by.plays.sum(),
                         "ms a move (median game)": 1000 * seconds_a_move(games).groupby(games.config).median(),
                         "ms a move (mean, pauses included)": 1000 * by.seconds.sum() / by.plays.sum().clip(lower=1)})


__all__ = ["DECLARED_SIZES", "TINY", "FULL_SIZE", "PRIOR_COUNT_SEED", "ACCURACY_BINS", "TEST_GRIDS", "FAMILIES",
           "power_text", "power_plan", "f1_tests", "planned_family_sizes", "tiny_ismcts", "Family", "load_family",
           "load_families", "family_summary", "parse_label", "reported", "guesser_family", "guesser_stop",
           "pilot_accuracy", "accuracy_curve", "accuracy_summary", "oracle_tests", "at_budget", "CheaterGap",
           "landlord_wp", "cheater_gap", "worlds_tests", "prior_dropped", "prior_tests", "strongest_choice",
           "seconds_a_move", "strongest_table", "budget_test", "time_per_move"]
