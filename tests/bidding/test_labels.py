"""Simulation labels: reproducible with a seed, independent of order and workers, resumable."""
import numpy as np
import pandas as pd
import pytest

from ddzlab.labels import COLUMNS, label_hands, random_deal, read_labels, simulate_hand
from ddzlab.cards import Hand
from ddzlab.rules import STANDARD

HANDS = ["3456789TJQKA2BR22", "334455667899TJQK3", "3334445556667772B", "33445566778899TTJ"]


def test_random_deal_completes_the_hand():
    hand = Hand(HANDS[0])
    deal = random_deal(hand, np.random.default_rng(0))
    assert deal.hands[0] == hand.bits
    deal.validate(STANDARD)                      # 17/17/17 + 3, no card twice
    assert sum(deal.hands) + deal.kitty == STANDARD.deck
    with pytest.raises(ValueError):
        random_deal(Hand("33"), np.random.default_rng(0))


def test_same_seed_same_label_other_seed_differs():
    a = simulate_hand(HANDS[1], n_deals=6, seed=1)
    b = simulate_hand(HANDS[1], n_deals=6, seed=1)
    assert a == b
    others = [simulate_hand(HANDS[1], n_deals=6, seed=s, agent="random") for s in range(2, 6)]
    assert len({(o["wins"], o["mean_points"]) for o in others}) > 1


def test_labels_do_not_depend_on_order_or_workers(tmp_path):
    a = label_hands(HANDS, tmp_path / "a.csv", n_deals=3, seed=7, progress=False)
    b = label_hands(HANDS[::-1], tmp_path / "b.csv", n_deals=3, seed=7, n_jobs=2,
                    chunk_size=1, progress=False)
    key = lambda d: d.sort_values("cards").reset_index(drop=True)
    pd.testing.assert_frame_equal(key(a), key(b))
    assert list(a.columns) == COLUMNS and len(a) == len(HANDS)


def test_resume_skips_done_rows(tmp_path, monkeypatch):
    path = tmp_path / "labels.csv"
    first = label_hands(HANDS[:2], path, n_deals=3, seed=7, progress=False)
    calls = []
    import ddzlab.labels as sim
    real = sim.simulate_hand
    monkeypatch.setattr(sim, "simulate_hand", lambda h, *a, **k: calls.append(str(h)) or real(h, *a, **k))
    full = label_hands(HANDS, path, n_deals=3, seed=7, progress=False)
    assert sorted(calls) == sorted(HANDS[2:])            # only the missing hands were simulated
    assert len(full) == len(HANDS) and full.cards.is_unique
    pd.testing.assert_frame_equal(full.iloc[:2], first)  # old rows untouched
    fresh = label_hands(HANDS, tmp_path / "fresh.csv", n_deals=3, seed=7, progress=False)
    pd.testing.assert_frame_equal(full.sort_values("cards").reset_index(drop=True),
                                  fresh.sort_values("cards").reset_index(drop=True))
    calls.clear()
    label_hands(HANDS, path, n_deals=3, seed=7, progress=False)
    assert calls == []                                   # all done: nothing to simulate


def test_resume_refuses_other_settings(tmp_path):
    path = tmp_path / "labels.csv"
    label_hands(HANDS[:1], path, n_deals=3, seed=7, progress=False)
    with pytest.raises(ValueError, match="other settings"):
        label_hands(HANDS, path, n_deals=4, seed=7, progress=False)
    with pytest.raises(ValueError, match="other settings"):
        label_hands(HANDS, path, n_deals=3, seed=8, progress=False)
    assert len(read_labels(path)) == 1


def test_dask_backend_gives_the_same_labels(tmp_path):
    a = label_hands(HANDS[:3], tmp_path / "a.csv", n_deals=2, seed=3, progress=False)
    b = label_hands(HANDS[:3], tmp_path / "b.csv", n_deals=2, seed=3, progress=False,
                    backend="dask", chunk_size=1)
    key = lambda d: d.sort_values("cards").reset_index(drop=True)
    pd.testing.assert_frame_equal(key(a), key(b))


def test_labels_count_landlord_wins(monkeypatch):
    """A deal the landlord wins at once (its 20 cards are one plane) is a win, worth 4 points
    (base 1, spring); and on random deals a win always comes with positive points."""
    import ddzlab.labels as sim
    hand = Hand("333444555666777" "89")
    kitty = Hand("TJQ")
    rest = Hand.from_bits(STANDARD.deck) - hand - kitty
    deal = sim.Deal((hand.bits, Hand.from_ranks(rest.ranks()[:17]).bits,
                     Hand.from_ranks(rest.ranks()[17:]).bits), kitty.bits)
    monkeypatch.setattr(sim, "random_deal", lambda h, rng: deal)
    got = simulate_hand(hand, n_deals=3, seed=0)
    assert (got["wins"], got["win_rate"], got["mean_points"]) == (3, 1.0, 4.0)
    monkeypatch.undo()
    outcomes = set()
    for seed in range(12):
        r = simulate_hand(HANDS[seed % len(HANDS)], n_deals=1, seed=seed, agent="random")
        assert (r["wins"] == 1) == (r["mean_points"] > 0), r
        outcomes.add(r["wins"])
    assert outcomes == {0, 1}


def test_the_game_playing_function_is_a_parameter(tmp_path):
    """``play`` plays every deal: wrapping the default changes no label, and another engine's
    results (here: the landlord wins iff the kitty holds the red joker) are what is counted."""
    from ddzlab.labels import play_as_landlord
    seen = []

    def recorded(deal, agent, seeds):
        seen.append(deal)
        return play_as_landlord(deal, agent, seeds)

    plain = label_hands(HANDS[:2], tmp_path / "plain.csv", n_deals=3, seed=5, progress=False)
    wrapped = label_hands(HANDS[:2], tmp_path / "wrapped.csv", n_deals=3, seed=5, progress=False,
                          play=recorded)
    pd.testing.assert_frame_equal(plain, wrapped)
    assert len(seen) == 6 and all(d.hands[0] == Hand(h).bits for d, h in zip(seen, [HANDS[0]] * 3 + [HANDS[1]] * 3))

    red = Hand("R").bits
    kitties = []

    def kitty_rule(deal, agent, seeds):
        kitties.append(deal.kitty)
        return bool(deal.kitty & red), 3

    got = simulate_hand(HANDS[3], n_deals=200, seed=5, play=kitty_rule)   # HANDS[3] holds no joker
    assert len(kitties) == 200 and got["wins"] == sum(bool(k & red) for k in kitties)
    assert got["mean_points"] == 3.0 and got["win_rate"] == got["wins"] / 200
    assert 0 < got["wins"] < 60                  # R is in the 3-card kitty of 3/37 completions
    assert simulate_hand(HANDS[0], n_deals=40, seed=5, play=kitty_rule)["wins"] == 0   # R is in the hand
