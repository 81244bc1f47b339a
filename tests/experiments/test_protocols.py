"""``ddzlab evaluate --protocol douzero`` (`ddzlab.experiments.protocols`) and the restricted
reader of DouZero's evaluation deal files (`ddzlab.evaldata`, `ddzlab.deals.douzero_deals`).

Oracles: DouZero's file format as its ``generate_eval_data.py`` writes it (rebuilt here with
``pickle`` and numpy, as that script does), DouZero's scoring (2 × 2^bombs to the winning
side), and the arena's own duel on the same deals and seed (the protocol plays the arena's
games, so every stored game must match a duel game).
"""
from __future__ import annotations

import io
import os
import pickle

import numpy as np
import pandas as pd
import pytest

from ddzlab import cli
from ddzlab.arena import duel_games
from ddzlab.deals import douzero_deals, read_deals
from ddzlab.errors import DealFileError
from ddzlab.evaldata import read_douzero_file
from ddzlab.experiments import load_games
from ddzlab.experiments.protocols import cross_play, cross_play_runs, douzero_table, evaluate, protocol_experiment
from ddzlab.game import Game

DECK = [c for c in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]


def douzero_file(path, n, seed=0, numpy_values=False):
    """A deal file as DouZero's generate_eval_data.py writes one (list of dicts of sorted lists)."""
    rng = np.random.default_rng(seed)
    data = []
    for _ in range(n):
        deck = list(DECK)
        rng.shuffle(deck)
        rec = {"landlord": deck[:20], "landlord_up": deck[20:37], "landlord_down": deck[37:54],
               "three_landlord_cards": deck[17:20]}
        for k in rec:
            rec[k] = sorted(int(c) for c in rec[k])
            if numpy_values:
                rec[k] = np.array(rec[k], dtype=np.int64)
        data.append(rec)
    path.write_bytes(pickle.dumps(data, pickle.HIGHEST_PROTOCOL))
    return data


def test_douzero_deal_files_become_ddzlab_deals(tmp_path):
    data = douzero_file(tmp_path / "eval_data.pkl", 5)
    deals = read_deals(tmp_path / "eval_data.pkl")
    assert len(deals) == 5
    codes = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30]
    for rec, deal in zip(data, deals):
        def as_codes(bits):
            from ddzlab.cards import Hand
            return sorted(codes[r] for r in Hand.from_bits(bits).ranks())
        assert as_codes(deal.hands[0] + deal.kitty) == rec["landlord"]
        assert as_codes(deal.kitty) == sorted(rec["three_landlord_cards"])
        assert as_codes(deal.hands[1]) == rec["landlord_down"]       # seat 1 plays after the landlord
        assert as_codes(deal.hands[2]) == rec["landlord_up"]
        game = Game(deal, landlord=0)
        assert game.role(1) == "down" and len(game.hand(0)) == 20
    # numpy arrays of card codes (a variant of the script) read the same
    data = douzero_file(tmp_path / "np.pkl", 5, numpy_values=True)
    assert douzero_deals(tmp_path / "np.pkl") == deals
    for protocol in (2, 4):                             # older protocols store arrays' bytes otherwise
        (tmp_path / "old.pkl").write_bytes(pickle.dumps(data, protocol))
        assert douzero_deals(tmp_path / "old.pkl") == deals


class Payload:
    """Would create a folder when unpickled by plain pickle."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.makedirs, (self.marker,))


def test_a_hostile_deal_file_is_refused_without_running_code(tmp_path):
    marker = tmp_path / "code_ran"
    path = tmp_path / "eval_data.pkl"
    data = douzero_file(path, 2)
    data[1]["landlord"] = Payload(str(marker))
    path.write_bytes(pickle.dumps(data))
    pickle.loads(path.read_bytes())                     # plain pickle runs it: the file is hostile
    assert marker.is_dir()
    marker.rmdir()
    with pytest.raises(DealFileError, match=r"refers to posix.makedirs|refers to os.makedirs"):
        read_douzero_file(path)
    with pytest.raises(DealFileError, match="refused without building it"):
        read_deals(path)
    assert not marker.exists()
    # a reference to any other global, even a harmless one, is refused too
    path.write_bytes(pickle.dumps([{"landlord": pd.DataFrame()}]))
    with pytest.raises(DealFileError, match="refers to pandas"):
        read_douzero_file(path)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.__setitem__(0, {"landlord": []}), r"deal 0: expected the keys"),
    (lambda d: d[0].__setitem__("landlord_up", d[0]["landlord_up"][:-1]), r"landlord_up has 16 cards"),
    (lambda d: d[0]["landlord"].__setitem__(0, 99), r"99 is not a DouZero card code"),
    (lambda d: d[0]["landlord"].__setitem__(0, True), r"True is not a DouZero card code"),
    (lambda d: d[0].__setitem__("landlord_down", list(d[0]["landlord"][:17])), r"not one deck"),
    (lambda d: d[0].__setitem__("three_landlord_cards", [min(set(DECK) - set(d[0]["landlord"]))] * 3),
     r"not all among"),
    (lambda d: d.clear(), r"holds no deals"),
])
def test_malformed_deal_files_name_the_problem(tmp_path, change, message):
    path = tmp_path / "eval_data.pkl"
    data = douzero_file(path, 2)
    change(data)
    path.write_bytes(pickle.dumps(data))
    with pytest.raises(DealFileError, match=message):
        read_douzero_file(path)


def test_not_a_pickle_and_too_large(tmp_path, monkeypatch):
    path = tmp_path / "x.pkl"
    path.write_bytes(b"\x80\x05garbage")
    with pytest.raises(DealFileError, match="not a readable DouZero deal file"):
        read_douzero_file(path)
    from ddzlab import evaldata
    douzero_file(path, 1)
    monkeypatch.setattr(evaldata, "MAX_BYTES", 100)
    with pytest.raises(DealFileError, match="more than a DouZero deal file"):
        read_douzero_file(path)


def test_protocol_douzero_plays_the_arena_games_and_scores_them_douzeros_way(tmp_path):
    root = tmp_path / "exp"
    table = evaluate("greedy", "random", deals=8, seed=3, root=root, progress=False, name="t")
    games = load_games(protocol_experiment("greedy", "random", deals=8, seed=3, name="t"), root=root, into="t")
    assert len(games) == 16
    # the same games as the arena's duel with the same deals and seed
    arena = duel_games("greedy", "random", 8, seed=3, progress=False)
    mine = games.assign(a_landlord=games.role == "landlord").sort_values(["deal", "a_landlord"])
    assert list(mine.won) == list(arena.sort_values(["deal", "a_landlord"]).a_won.astype(int))
    # DouZero's scoring: 2 x 2^bombs to the winner's side
    lord = arena[arena.a_landlord]
    assert table.loc["A landlord", "ADP"] == pytest.approx(
        np.mean([2 * (2 ** b) * (1 if w else -1) for b, w in zip(lord.bombs, lord.a_won)]))
    assert table.loc["A farmers", "WP"] == pytest.approx(arena[~arena.a_landlord].a_won.mean())
    assert table.loc["combined", "WP"] == pytest.approx(arena.a_won.mean())
    assert table.loc["combined", "deals"] == 8 and table.loc["combined", "games"] == 16
    assert 0 <= table.loc["combined", "WP_lo"] <= table.loc["combined", "WP"] <= table.loc["combined", "WP_hi"] <= 1
    # resumable: the same call plays nothing more and returns the same table
    again = evaluate("greedy", "random", deals=8, seed=3, root=root, progress=False, name="t")
    pd.testing.assert_frame_equal(again, table)
    # the cross-play table reads the same rows from both sides
    cp = cross_play(games)
    assert set(cp.A) == {"greedy", "random"} and len(cp) == 6
    rev = cp[(cp.A == "random") & (cp.role == "combined")].iloc[0]
    assert rev.WP == pytest.approx(1 - table.loc["combined", "WP"])
    pd.testing.assert_frame_equal(douzero_table(games, "greedy", "random"), table)


def test_cli_evaluate_on_a_douzero_deal_file(tmp_path, monkeypatch):
    monkeypatch.setenv("DDZLAB_USER_EXPERIMENTS", str(tmp_path / "user"))
    douzero_file(tmp_path / "eval_data.pkl", 3, seed=1)
    out = io.StringIO()
    code = cli.main(["evaluate", "smallest", "random", "--deal-file", str(tmp_path / "eval_data.pkl"),
                     "--quiet", "--name", "dzfile"], stdout=out)
    text = out.getvalue()
    assert code == 0, text
    assert "protocol douzero: 3 deals x 2" in text and "combined" in text
    assert (tmp_path / "user" / "dzfile" / "games.csv.gz").exists()
    err = io.StringIO()
    hostile = tmp_path / "bad.pkl"
    hostile.write_bytes(pickle.dumps([Payload(str(tmp_path / "ran"))]))
    code = cli.main(["evaluate", "smallest", "random", "--deal-file", str(hostile), "--quiet"], stdout=err)
    assert code == 2 and not (tmp_path / "ran").exists()


def test_cross_play_runs_stores_one_run_per_pair_and_reads_them_back(tmp_path):
    agents = ["random", "smallest", "greedy"]
    table = cross_play_runs(agents, deals=3, seed=1, root=tmp_path, progress=False)
    assert len(table) == 3 * 2 * 3                          # pairs x orientations x roles
    assert set(table.role) == {"A landlord", "A farmers", "combined"}
    read = cross_play_runs(agents, deals=3, seed=1, root=tmp_path, play=False)
    pd.testing.assert_frame_equal(read, table)
    comb = table[table.role == "combined"].set_index(["A", "B"])
    for a in agents:
        for b in agents:
            if a != b:
                assert comb.loc[(a, b), "WP"] == pytest.approx(1 - comb.loc[(b, a), "WP"])
                assert comb.loc[(a, b), "ADP"] == pytest.approx(-comb.loc[(b, a), "ADP"])
    with pytest.raises(Exception, match="no stored games"):
        cross_play_runs(["random", "weights"], deals=3, seed=1, root=tmp_path, play=False)


# -- definitions, worked out by hand ---------------------------------------------------------
def _rows(points_by_deal):
    """Stored rows of A ("a") against B ("b"): per deal, A's points as landlord then as farmers
    (ddzlab's ±2^bombs; a game is won when its points are positive)."""
    rows = []
    for deal, pair in enumerate(points_by_deal):
        for role, pts in zip(("landlord", "farmers"), pair):
            rows.append({"config": "a", "opponent": "b", "deal": deal, "role": role, "won": int(pts > 0),
                         "points": pts})
    return pd.DataFrame(rows)


def test_douzero_table_doubles_the_points_and_their_intervals_by_hand():
    # A's points per deal (landlord, farmers): (1, 1), (1, -1), (2, 2); per-deal means 1, 0, 2:
    # mean 1, SD 1, three deals: t(0.975, 2) = 4.302652729911275, half-width 4.3027 / sqrt(3)
    t2 = 4.302652729911275
    table = douzero_table(_rows([(1, 1), (1, -1), (2, 2)]), "a", "b")
    half = t2 / np.sqrt(3)
    assert table.loc["combined", "ADP"] == pytest.approx(2 * 1.0)
    assert table.loc["combined", "ADP_lo"] == pytest.approx(2 * (1 - half))
    assert table.loc["combined", "ADP_hi"] == pytest.approx(2 * (1 + half))
    # as landlord: DouZero's points 2, 2, 4: mean 8/3, SD 2/sqrt(3), half-width t2 * (2/sqrt(3)) / sqrt(3)
    lord_half = t2 * (2 / np.sqrt(3)) / np.sqrt(3)
    assert table.loc["A landlord", "ADP"] == pytest.approx(8 / 3)
    assert (table.loc["A landlord", "ADP_lo"], table.loc["A landlord", "ADP_hi"]) == pytest.approx(
        (8 / 3 - lord_half, 8 / 3 + lord_half))
    assert table.loc["A farmers", "WP"] == pytest.approx(2 / 3) and table.loc["combined", "deals"] == 3


def test_the_default_run_name_depends_on_both_agents_and_what_they_play():
    names = {protocol_experiment(a, b, "douzero", 10, s).name
             for a, b, s in [("greedy", "random", 0), ("smallest", "random", 0), ("greedy", "smallest", 0),
                             ("greedy", "random", 1)]}
    assert len(names) == 4
    assert protocol_experiment("greedy", "random", "douzero", 10, 0).name == \
        protocol_experiment("greedy", "random", "douzero", 10, 0).name


def test_evaluate_deals_from_deal_seed_quietly_and_limit_counts_the_first_deals(tmp_path, capsys):
    from ddzlab.deals import generate_deals
    root = tmp_path / "exp"
    table = evaluate("greedy", "random", deals=3, seed=3, deal_seed=7, root=root, progress=False, name="t")
    assert capsys.readouterr().err == ""                    # progress=False: no progress bar
    games = load_games(protocol_experiment("greedy", "random", deals=3, seed=3, deal_seed=7, name="t"),
                       root=root, into="t")
    # the deals are generated from deal_seed, the games seeded from seed: the arena's duel on those deals
    arena = duel_games("greedy", "random", generate_deals(3, seed=7), seed=3, progress=False)
    mine = games.assign(a_landlord=games.role == "landlord").sort_values(["deal", "a_landlord"])
    assert list(mine.won) == list(arena.sort_values(["deal", "a_landlord"]).a_won.astype(int))
    assert table.loc["combined", "deals"] == 3
    # limit=2: the first two deals of the stored three, nothing more played
    first = evaluate("greedy", "random", deals=3, seed=3, deal_seed=7, root=root, progress=False, name="t", limit=2)
    assert (first.loc["combined", "deals"], first.loc["combined", "games"]) == (2, 4)
    assert first.loc["combined", "WP"] == pytest.approx(arena[arena.deal < 2].a_won.mean())


def test_the_protocols_pass_the_number_of_workers_to_the_runner(tmp_path, monkeypatch):
    from ddzlab.experiments import protocols
    asked = []

    class Stop(Exception):
        pass

    def runner(exp, **kwargs):
        asked.append(kwargs["n_jobs"])
        raise Stop
    monkeypatch.setattr(protocols, "run_experiment", runner)
    with pytest.raises(Stop):
        evaluate("greedy", "random", deals=2, root=tmp_path, n_jobs=3)
    with pytest.raises(Stop):
        cross_play_runs(["greedy", "random"], deals=2, root=tmp_path, n_jobs=4)
    assert asked == [3, 4]
