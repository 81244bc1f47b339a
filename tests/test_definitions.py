"""Numbers and rules checked against their definitions, worked out by hand (issue 22: the
mutants that relation-only tests let through). Each test names the definition it checks."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from ddzlab.deals import generate_deals
from ddzlab.game import Game


def test_eval_summary_adp_interval_is_1_96_sd_over_root_n():
    """ADP ± 1.96·s/√n with the sample standard deviation: points 1, -1, 2, -2, 4 have
    mean 0.8, s² = (0.04+3.24+1.44+7.84+10.24)/4 = 5.7, half-width 1.96·√5.7/√5."""
    from ddzlab.qtraining import eval_summary
    df = pd.DataFrame({"landlord": [True, True, False, False, True],
                       "won": [True, False, True, False, True], "points": [1, -1, 2, -2, 4]})
    out = eval_summary(df)
    half = 1.96 * math.sqrt(5.7) / math.sqrt(5)
    assert out["adp_combined"] == pytest.approx(0.8)
    assert out["adp_combined_lo"] == pytest.approx(0.8 - half, abs=1e-12)
    assert out["adp_combined_hi"] == pytest.approx(0.8 + half, abs=1e-12)
    assert out["wp_combined"] == pytest.approx(3 / 5) and out["wp_landlord"] == pytest.approx(2 / 3)


def test_a_recorded_bool_stays_a_bool():
    from ddzlab import report
    assert report.record("safe_flag_test", True, "a flag") is True
    entry = report._state["numbers"].pop("safe_flag_test")
    assert entry["value"] is True and entry["shown"] in ("True", "true", "yes")


def test_mcts_picks_the_most_visited_move_and_breaks_ties_by_legal_order():
    """'most visits, then best mean; ties to legal order' (ddzlab.agents.mcts)."""
    from ddzlab.agents.mcts import MCTSAgent
    obs = Game(generate_deals(1, seed=3)[0], landlord=0).observation(0)
    legal = obs.legal_moves
    a, b, c = legal[1], legal[2], legal[3]
    agent = MCTSAgent(iterations=1, seed=0)
    for stats, want in (({a: (5, 2.0), b: (5, 2.0), c: (4, 4.0)}, a),   # full tie: first listed
                        ({c: (5, 2.0), b: (5, 2.0)}, b),                  # order of legal, not of stats
                        ({a: (5, 1.0), b: (5, 3.0)}, b),                  # same visits: better mean
                        ({a: (6, 0.0), b: (5, 5.0)}, a)):                 # visits first
        agent._run_search = lambda o, s=stats: s   # the choice in play(), whichever backend searched
        assert agent.play(obs) == want


def test_decide_reads_previous_and_next_hand_sizes_and_the_partner_flag():
    """`decide`: hand_p is the previous seat's size, hand_n the next seat's; following, the
    partner flag is set for a farmer answering the other farmer only."""
    from ddzlab.agents.qlearning.abstraction import (decide, hand_to_state, lead_features,
                                                     lead_index, lead_split)
    game = Game(generate_deals(1, seed=3)[0], landlord=0)
    bits = game.hands[1]
    sizes = (20, 17, 3)                              # seat 1: previous is 0, next is 2
    d = decide(bits, [], 1, 0, sizes, None, None)
    assert d.state == lead_index(lead_features(lead_split(bits), 1, 20, 3))
    assert hand_to_state(20) != hand_to_state(3)     # so a swap would change the row
    assert d.state != lead_index(lead_features(lead_split(bits), 1, 3, 20))
    game.play(game.legal_moves()[0])                 # landlord leads
    for seat, last_seat, partner in ((1, 0, False), (2, 1, True), (0, 1, False), (0, 2, False)):
        moves = game.legal_moves()
        d = decide(game.hands[seat], moves, seat, 0, (20, 17, 17), game.last_move, last_seat)
        assert d.partner is partner, (seat, last_seat)


def test_weights_control_cost_counts_the_twos():
    """The control cost: ``high_cost`` per 2 or joker spent following while it is early
    (every enemy holds more than ``early_cards``). Seat 1 answers the landlord's 33: the
    value of 22 drops by exactly 2 × high_cost when high_cost goes from 0 to 50; the
    value of 44 (no 2, no joker) does not move."""
    import dataclasses

    from ddzlab.agents.weights import RuleWeights, WeightsAgent
    from ddzlab.cards import Hand
    from ddzlab.deals import Deal
    from ddzlab.rules import STANDARD
    seat1 = Hand("3456789TJQKA22BR4")
    rest = Hand.from_bits(STANDARD.deck - seat1.bits).ranks()    # ascending: 3 3 3 4 4 ...
    seat0 = Hand.from_ranks(rest[0::2][:17])                     # holds 33
    seat2 = Hand.from_ranks(rest[1::2][:17])
    left = Hand.from_bits(STANDARD.deck - seat1.bits - seat0.bits - seat2.bits)
    game = Game(Deal((seat0.bits, seat1.bits, seat2.bits), left.bits), landlord=0)
    game.play("33")
    obs = game.observation(1)
    values = {}
    for cost in (0.0, 50.0):
        ex = WeightsAgent(dataclasses.replace(RuleWeights(), high_cost=cost)).explain(obs, full=True)
        values[cost] = {str(m): v for m, v in ex.values}
    assert values[0.0]["22"] - values[50.0]["22"] == pytest.approx(2 * 50.0)
    assert values[0.0]["44"] == pytest.approx(values[50.0]["44"])


def test_a_resumed_tournament_numbers_its_games_on_and_refuses_another_runs_record(tmp_path):
    """Record lines of a tournament are numbered 0, 1, 2... in the order written, across a
    resume (not from 0 again); a record of other agents is refused, not appended to."""
    from ddzlab.arena import tournament
    from ddzlab.records import RecordError, read_records
    deals = generate_deals(3, seed=2)
    res, rec = tmp_path / "t.csv", tmp_path / "t.jsonl"
    tournament(["random", "smallest"], deals[:3], progress=False, results=res, record=rec)
    lines = res.read_text().splitlines()
    res.write_text("\n".join(lines[:1 + 4]) + "\n")           # deals 0 and 1 kept
    text = rec.read_text().splitlines()
    rec.write_text("\n".join(text[:1 + 4]) + "\n")
    tournament(["random", "smallest"], deals[:3], progress=False, results=res, record=rec)
    header, games = read_records(rec)
    assert [g.index for g in games] == list(range(6))
    assert sorted((g.extra["deal_no"], g.extra["half"]) for g in games) == [
        (d, h) for d in range(3) for h in (0, 1)]
    with pytest.raises(RecordError, match="holds another run"):
        tournament(["random", "greedy"], deals[:3], progress=False, results=tmp_path / "u.csv",
                   record=rec)


# -- front ends (issue 22): replay, the ADP colour scale, merge_results ---------------------------
SPRING_DEAL = "BR22223456789TJQK | 34445556667778889 | 99TTTJJJQQQKKKAAA | A33"


def test_replay_marks_each_trick_and_the_spring_multiplier(tmp_path):
    """The landlord (seat 0) plays the rocket, the bomb 2222, the straight 3..A and 33; the
    farmers pass every time. By the rules: three tricks end (after two passes each; the last
    play ends the game, not a trick), and the multiplier is 2 (rocket) x 2 (bomb) x 2 (spring)
    = 8, so the landlord wins 2 x 8 = 16 and each farmer loses 8."""
    import io

    from ddzlab.deals import Deal
    from ddzlab.game import Game
    from ddzlab.records import game_record, read_records, write_records
    from ddzlab.replay import replay_lines
    game = Game(Deal.parse(SPRING_DEAL), landlord=0)
    for play in ("BR", "2222", "3456789TJQKA", "33"):
        game.play(play)
        if not game.is_over:
            game.play("pass")
            game.play("pass")
    buf = io.StringIO()
    write_records(buf, [game_record(game, ["a", "b", "c"])], rules="standard", agents=["a", "b", "c"])
    buf.seek(0)
    (rec,) = read_records(buf)[1]
    lines = list(replay_lines(rec))
    steps = [i for i, line in enumerate(lines) if line.startswith("  seat ") or line == "  -- trick over"]
    kinds = ["over" if lines[i] == "  -- trick over" else "pass" if "passes" in lines[i] else "play"
             for i in steps]
    assert kinds == ["play", "pass", "pass", "over"] * 3 + ["play"]
    assert all("leads, plays" in lines[i] for i, k in zip(steps, kinds) if k == "play")   # each opens a trick
    assert lines[-1].endswith("bombs 2, multiplier x8; scores [16, -8, -8]")


def test_adp_colour_scale_covers_every_interval_end():
    """ADP's colour scale is symmetric around 0 and reaches the largest |value| among the
    values and both interval ends: here the lower end -3.1 (the values alone reach 0.5)."""
    import numpy as np

    from ddzlab import plots
    value, lo, hi = np.array([[np.nan, 0.5], [-0.5, np.nan]]), np.array([[np.nan, -3.1], [-1.2, np.nan]]), \
        np.array([[np.nan, 2.3], [0.2, np.nan]])
    norm = plots._norm("ADP", (value, lo, hi))
    assert (norm.vmin, norm.vcenter, norm.vmax) == (-3.1, 0.0, 3.1)
    norm = plots._norm("ADP", (value, lo * 0.1, hi))
    assert (norm.vmin, norm.vmax) == (-2.3, 2.3)


def test_merge_results_keeps_existing_notebooks_and_drops_removed_ones(tmp_path):
    """Notebooks run now replace their entries, notebooks not run keep theirs, and a notebook
    that no longer exists is dropped; only quick-scale numbers are merged."""
    import json

    from ddzlab.report import ReportError, merge_results
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"scale": "quick", "notebooks": {
        "01_a": {"x": {"value": 1}}, "02_b": {"y": {"value": 2}}, "09_gone": {"z": {"value": 3}}}}))
    merged = merge_results(path, {"scale": "quick", "notebooks": {"02_b": {"y": {"value": 20}}}},
                           ["01_a", "02_b"])
    assert merged["notebooks"] == {"01_a": {"x": {"value": 1}}, "02_b": {"y": {"value": 20}}}
    assert json.loads(path.read_text())["notebooks"] == merged["notebooks"]
    with pytest.raises(ReportError, match="quick-scale"):
        merge_results(path, {"scale": "full", "notebooks": {}}, ["01_a"])
