"""``ddzlab evaluate --protocol duplicate``: Botzone's duplicate format for two agents
(`ddzlab.experiments.duplicate`, the store's duplicate layout, `duplicate_table`).

Oracles: the definition of the seatings (every way of filling the three seats in which both
agents sit, worked out by hand below), Botzone's scoring applied by hand to made-up games,
the arena's own two games of a deal (the first two seatings are `ddzlab.arena.play_deal`'s
games with the same seeds), and a clean run that the interrupted and resumed one must equal.
"""
from __future__ import annotations

import io
import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from ddzlab import cli
from ddzlab.arena import duel_games
from ddzlab.errors import DealFileError
from ddzlab.experiments import Experiment, ExperimentError, load_games, run_experiment, store
from ddzlab.experiments.duplicate import (SEATINGS, DuplicateError, agent_scores, botzone_scores, move_points,
                                          seat_agents_of)
from ddzlab.experiments.protocols import duplicate_table, evaluate, protocol_experiment
from ddzlab.moves import PASS, hand_bits, parse_move
from ddzlab.moves.move import Move
from ddzlab.rules import HOMEWORK, MINI, Kind

PLAYED = ["config", "opponent", "deal", "seats", "landlord_won", "bombs", "moves", "points0", "points1", "points2",
          "plays", "opp_plays"]


# -- the seatings ------------------------------------------------------------------------------
def test_the_six_seatings_are_every_seating_in_which_both_agents_sit():
    assert len(SEATINGS) == len(set(SEATINGS)) == 6
    both = {"".join(s) for s in itertools.product("AB", repeat=3)} - {"AAA", "BBB"}
    assert set(SEATINGS) == both
    # the distinct orderings of the entrants (A, B, B) and (A, A, B): Botzone's permutations
    perms = {"".join(p) for p in itertools.permutations("ABB")} | {"".join(p) for p in itertools.permutations("AAB")}
    assert set(SEATINGS) == perms
    # by hand: seat 0 holds A, B, A, B, A, B; seat 1 B, A, A, B, B, A; seat 2 B, A, B, A, A, B
    assert ["".join(s[seat] for s in SEATINGS) for seat in range(3)] == ["ABABAB", "BAABBA", "BABAAB"]
    for seat in range(3):                           # so each agent holds each seat three times
        assert sum(s[seat] == "A" for s in SEATINGS) == 3 and sum(s[seat] == "B" for s in SEATINGS) == 3
    assert sorted(s.count("A") for s in SEATINGS) == [1, 1, 1, 2, 2, 2]     # A holds 1 or 2 seats
    swap = str.maketrans("AB", "BA")
    for k in range(0, 6, 2):                        # each seating is followed by its mirror
        assert SEATINGS[k + 1] == SEATINGS[k].translate(swap)
    assert SEATINGS[:2] == ("ABB", "BAA")           # the arena's two games come first
    assert seat_agents_of("AAB") == ("A", "A", "B")
    for bad in ("AAA", "BBB", "abb", "AB", 3):
        with pytest.raises(DuplicateError, match="seating"):
            seat_agents_of(bad)


# -- the scoring -------------------------------------------------------------------------------
@pytest.mark.parametrize("text, points", [
    ("3", 1), ("33", 2), ("333", 4), ("3334", 4), ("33344", 4), ("34567", 6), ("3456789TJQKA", 6),
    ("334455", 6), ("333444", 8), ("33344456", 8), ("3334445566", 8), ("333345", 8), ("33334455", 8),
    ("3333", 10), ("BR", 16),
])
def test_each_kind_of_move_earns_botzones_hundredths(text, points):
    assert move_points(parse_move(text)) == points


def test_chains_of_fours_earn_10_for_two_and_20_for_three_and_passes_nothing():
    assert move_points(PASS) == 0
    two = parse_move("9999TTTT", MINI)                                    # two consecutive fours
    assert two.kind == Kind.QUAD_CHAIN and two.length == 2 and move_points(two) == 10
    three = Move(Kind.QUAD_CHAIN, two.rank, 3, hand_bits("9999TTTTJJJJ", MINI))    # no rule set has it yet
    assert move_points(three) == 20
    with pytest.raises(DuplicateError, match="no move of Botzone"):
        move_points(parse_move("3579J", HOMEWORK))                        # a gapped chain


def test_botzone_scores_of_made_up_games():
    # the landlord goes out: 2 + its move points; the farmers 0 + the mean of theirs
    assert botzone_scores(True, (20, 4, 3)) == pytest.approx((2.20, 0.035, 0.035))
    # the farmers go out: 2 each plus the mean of their move points; the landlord its points
    assert botzone_scores(False, (11, 16, 0)) == pytest.approx((0.11, 2.08, 2.08))
    assert botzone_scores(0, (0, 0, 0)) == (0.0, 2.0, 2.0)
    # an agent's score is the sum over its seats
    assert agent_scores("ABB", True, (20, 4, 3)) == pytest.approx((2.20, 0.07))
    assert agent_scores("BAA", True, (20, 4, 3)) == pytest.approx((0.07, 2.20))
    assert agent_scores("AAB", True, (20, 4, 3)) == pytest.approx((2.235, 0.035))
    assert agent_scores("BAB", False, (11, 16, 0)) == pytest.approx((2.08, 0.11 + 2.08))
    assert agent_scores("ABA", np.int8(0), (np.int64(11), np.int64(16), np.int64(0))) == pytest.approx((2.19, 2.08))


@pytest.mark.parametrize("won, points, match", [
    (2, (0, 0, 0), "landlord_won"), (0.5, (0, 0, 0), "landlord_won"), ("yes", (0, 0, 0), "landlord_won"),
    (True, (1, 2), "three whole numbers"), (True, (1, -1, 0), "three whole numbers"),
    (True, (1.5, 0, 0), "three whole numbers"), (True, None, "three whole numbers"),
])
def test_bad_game_results_are_refused(won, points, match):
    with pytest.raises(DuplicateError, match=match) as e:
        botzone_scores(won, points)
    assert isinstance(e.value, ValueError)


# -- a tiny run: stored, resumed, reloaded -------------------------------------------------------
def _exp(name="dup", deals=2, seed=4):
    return Experiment(name, configs=["greedy"], opponents=["random"], deals=deals, seed=seed, layout="duplicate")


def test_a_duplicate_run_stores_six_games_a_deal_and_contains_the_arenas_games(tmp_path):
    exp = _exp()
    games = run_experiment(exp, root=tmp_path, progress=False)
    assert len(games) == 12 and games.attrs["deals_complete"] == 2
    assert list(games.columns) == store.DUPLICATE_COLUMNS
    for deal in (0, 1):
        assert list(games[games.deal == deal].seats) == list(SEATINGS)     # each seating once, in order
    assert (games.plays > 0).all() and (games.opp_plays > 0).all()
    # plays: A's play calls over its seats, B's over its; together every move of the game
    assert ((games.plays + games.opp_plays) == games.moves).all()
    # the seatings ABB and BAA are the arena's two games of the deal (same seeds)
    arena = duel_games("greedy", "random", exp.deal_list(), seed=4, progress=False)
    for seating, a_landlord in (("ABB", True), ("BAA", False)):
        mine = games[games.seats == seating].reset_index(drop=True)
        ref = arena[arena.a_landlord == a_landlord].reset_index(drop=True)
        assert list(mine.landlord_won) == list(ref.landlord_won.astype(int))
        assert list(mine.moves) == list(ref.moves) and list(mine.bombs) == list(ref.bombs)
    meta = json.loads((tmp_path / "dup" / "experiment.json").read_text())
    assert meta["layout"] == "duplicate" and meta["columns"] == store.DUPLICATE_COLUMNS
    # a sides experiment of the same name is refused, and a sides spec names no layout
    with pytest.raises(store.StoreError, match="'duplicate' layout"):
        run_experiment(Experiment("dup", configs=["greedy"], opponents=["random"], deals=2, seed=4),
                       root=tmp_path, progress=False)
    assert "layout" not in Experiment("s", configs=["greedy"], opponents=["random"], deals=2).spec_json()


def test_an_interrupted_duplicate_run_resumes_without_duplicates(tmp_path):
    clean = run_experiment(_exp(deals=3), root=tmp_path / "clean", progress=False)
    root = tmp_path / "run"
    first = run_experiment(_exp(deals=3), deals=1, root=root, progress=False)
    assert len(first) == 6
    path = root / "dup" / "games.csv.gz"
    # a run stopped while appending deal 1: its block is cut short
    rows = list(clean[clean.deal == 1][store.DUPLICATE_COLUMNS].itertuples(index=False, name=None))
    store.append(path, rows, 6, store.DUPLICATE)
    path.write_bytes(path.read_bytes()[:-15])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = run_experiment(_exp(deals=3), root=root, progress=False)
    assert any("incomplete block" in str(w.message) for w in caught)
    assert len(resumed) == 18 and not resumed.duplicated(store.DUPLICATE.key).any()
    pd.testing.assert_frame_equal(resumed[PLAYED], clean[PLAYED])
    again = load_games(_exp(deals=3), root=root)                       # reloaded as stored
    pd.testing.assert_frame_equal(again, resumed)
    meta = json.loads((root / "dup" / "experiment.json").read_text())
    assert [r["games_added"] for r in meta["runs"]] == [6, 12]


def test_a_deal_missing_a_seating_is_refused_and_repair_drops_it(tmp_path):
    games = run_experiment(_exp(), root=tmp_path, progress=False)
    path = tmp_path / "dup" / "games.csv.gz"
    store.write(path, games[~((games.deal == 1) & (games.seats == "ABA"))])
    with pytest.raises(store.BadRowsError, match="not all six seatings"):
        load_games(_exp(), root=tmp_path)
    from ddzlab.experiments import repair_experiment
    done = repair_experiment(_exp(), root=tmp_path)
    assert done.kept == 6 and done.dropped == {"games of a deal missing some of its six seatings": 5}
    # rows of the duplicate layout are not read as the sides layout, nor the other way round
    with pytest.raises(store.StoreError, match="'duplicate' layout"):
        store.read_store(path, store.GAMES)
    assert store.read_store(path).schema is store.DUPLICATE


def test_duplicate_table_from_the_rows_by_hand(tmp_path):
    table = evaluate("greedy", "random", protocol="duplicate", deals=3, seed=2, root=tmp_path, progress=False,
                     name="t")
    games = load_games(protocol_experiment("greedy", "random", "duplicate", deals=3, seed=2, name="t"),
                       root=tmp_path, into="t")
    assert len(games) == 18
    # Botzone's score written out again from the rule text, seat by seat
    lw = games.landlord_won.to_numpy()
    lord = 2 * lw + games.points0.to_numpy() / 100
    farmer = 2 * (1 - lw) + (games.points1.to_numpy() + games.points2.to_numpy()) / 200
    seat_scores = np.stack([lord, farmer, farmer], axis=1)
    is_a = np.array([[c == "A" for c in s] for s in games.seats])
    a = (seat_scores * is_a).sum(axis=1)
    b = (seat_scores * ~is_a).sum(axis=1)
    per_a = pd.Series(a).groupby(games.deal.to_numpy()).sum()
    per_b = pd.Series(b).groupby(games.deal.to_numpy()).sum()
    assert table.loc["A", "score"] == pytest.approx(a.sum()) and table.loc["B", "score"] == pytest.approx(b.sum())
    assert table.loc["A", "per_deal"] == pytest.approx(per_a.mean())
    diff = (per_a - per_b).to_numpy()
    from scipy.stats import t
    half = t.ppf(0.975, len(diff) - 1) * diff.std(ddof=1) / np.sqrt(len(diff))
    assert table.loc["A - B", "per_deal"] == pytest.approx(diff.mean())
    assert (table.loc["A - B", "lo"], table.loc["A - B", "hi"]) == pytest.approx((diff.mean() - half,
                                                                                  diff.mean() + half))
    seats0 = games.seats.str[0]
    assert table.loc["A", "landlord_WP"] == pytest.approx(games.landlord_won[seats0 == "A"].mean())
    assert table.loc["B", "landlord_WP"] == pytest.approx(games.landlord_won[seats0 == "B"].mean())
    assert (table.deals == 3).all() and (table.games == 18).all()
    # resumable: the same call plays nothing and returns the same table
    pd.testing.assert_frame_equal(evaluate("greedy", "random", protocol="duplicate", deals=3, seed=2, root=tmp_path,
                                           progress=False, name="t"), table)
    evaluate("greedy", "random", deals=2, root=tmp_path, progress=False, name="s")
    sides = load_games(protocol_experiment("greedy", "random", deals=2, name="s"), root=tmp_path, into="s")
    with pytest.raises(ValueError, match="sides layout"):
        duplicate_table(sides, "greedy", "random")
    with pytest.raises(ValueError, match="no duplicate games"):
        duplicate_table(games, "random", "greedy")


@pytest.mark.parametrize("kwargs, error, match", [
    ({"protocol": "botzone"}, ExperimentError, "unknown protocol 'botzone'"),
    ({"protocol": "duplicate", "deals": 0}, ExperimentError, "deals must be a positive number"),
    ({"protocol": "duplicate", "deals": -3}, ExperimentError, "deals must be a positive number"),
    ({"protocol": "duplicate", "deals": 2.5}, ExperimentError, "deals must be a positive number"),
    ({"protocol": "duplicate", "deals": "no_such_deal_set"}, DealFileError, "no_such_deal_set"),
])
def test_bad_protocol_and_deals_are_refused_before_anything_is_stored(tmp_path, kwargs, error, match):
    with pytest.raises(error, match=match) as e:
        evaluate("greedy", "random", root=tmp_path, progress=False, name="bad", **kwargs)
    assert isinstance(e.value, ValueError)
    assert not (tmp_path.with_name(tmp_path.name + "-user") / "bad" / "games.csv.gz").exists()
    with pytest.raises(ExperimentError, match="layout 'triple'"):
        Experiment("x", configs=["greedy"], opponents=["random"], deals=2, layout="triple")


def test_a_bad_deal_file_is_refused_naming_the_problem(tmp_path):
    bad = tmp_path / "deals.txt"
    bad.write_text("3333444455556666 not a deal\n")
    with pytest.raises(DealFileError, match="deals.txt"):
        evaluate("greedy", "random", protocol="duplicate", deals=str(bad), root=tmp_path, progress=False)


def test_cli_evaluate_duplicate(tmp_path, monkeypatch):
    monkeypatch.setenv("DDZLAB_USER_EXPERIMENTS", str(tmp_path / "user"))
    out = io.StringIO()
    code = cli.main(["evaluate", "smallest", "random", "--protocol", "duplicate", "--deals", "2", "--quiet",
                     "--name", "dupcli"], stdout=out)
    text = out.getvalue()
    assert code == 0, text
    assert "protocol duplicate: 2 deals x 6 seatings" in text and "A - B" in text
    rows = load_games(protocol_experiment("smallest", "random", "duplicate", deals=2, name="dupcli"),
                      root=tmp_path / "exp", into="dupcli")
    assert len(rows) == 12


def test_committed_stores_of_the_sides_layout_read_and_rewrite_byte_for_byte(tmp_path):
    from pathlib import Path

    from ddzlab.experiments import CATALOG
    root = Path(__file__).resolve().parents[2] / "data" / "experiments"
    checked = 0
    for name in ("09_prior_dev", "09_strong_dev", "09_exact"):
        path = root / name / "games.csv.gz"
        if name not in CATALOG or not path.exists():
            continue
        got = store.read_store(path)
        assert got.schema is store.GAMES and got.sealed and not got.damaged, name
        assert store.encode(got.rows) == path.read_bytes(), name
        copy = tmp_path / f"{name}.csv.gz"
        copy.write_bytes(path.read_bytes())
        store.compact(copy)
        assert copy.read_bytes() == path.read_bytes(), name
        meta = json.loads((root / name / "experiment.json").read_text())
        spec = CATALOG[name].spec_json()
        assert "layout" not in meta and "layout" not in spec and spec["columns"] == meta["columns"], name
        checked += 1
    assert checked >= 1
