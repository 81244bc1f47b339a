"""The widgets without a browser: set values, press buttons, read what they display."""
from __future__ import annotations

import io
import re

import pytest

from ddzlab.agents import make_agent
from ddzlab.agents.smallest import smallest_key
from ddzlab.analysis import min_plays
from ddzlab.arena import duel_games
from ddzlab.cards import Hand
from ddzlab.game import Game
from ddzlab.moves import legal_moves, parse_move
from ddzlab.rules import HOMEWORK
from ddzlab.records import game_record, play_recorded, read_records, write_records
from ddzlab.widgets import BUSY, GameReplay, HandInspector, leading_observation

HAND = "33445566789TJQKA2BR"


def _n_moves(insp: HandInspector) -> int:
    shown = int(re.search(r'ddz-moves-n">(\d+)<', insp.moves_html.value).group(1))
    assert shown == insp.moves_html.value.count('class="ddz-move"')     # every move is drawn
    return shown


def _fewest(insp: HandInspector) -> int:
    return int(re.search(r'ddz-fewest-n">(\d+)<', insp.fewest_html.value).group(1))


def test_text_input_shows_fewest_plays_and_moves():
    insp = HandInspector(rules="homework", agents=[], background=False)
    insp.text.value = HAND
    assert str(insp.hand) == HAND and insp.rules.name == "homework"
    assert _fewest(insp) == min_plays(HAND, "homework").plays == 4
    assert insp.fewest_html.value.count("ddz-play") == 4
    assert _n_moves(insp) == len(legal_moves(Hand(HAND), HOMEWORK))
    assert "score <b" in insp.score_html.value and "ln 11 / ln 4" in insp.score_html.value
    assert "power <b" in insp.power_html.value and "hints:" in insp.power_html.value


def test_bad_input_shows_the_engine_error_and_changes_nothing():
    insp = HandInspector(HAND, agents=["smallest"], background=False)
    before = (insp.hand_html.value, insp.moves_html.value, insp.fewest_html.value, insp.agents_html.value)
    insp.text.value = "33Z"
    assert "unknown card symbol &#x27;Z&#x27;" in insp.error.value
    assert str(insp.hand) == HAND
    assert (insp.hand_html.value, insp.moves_html.value, insp.fewest_html.value, insp.agents_html.value) == before
    insp.text.value = "33333"                       # five 3s: not in any deck
    assert "3" in insp.error.value and str(insp.hand) == HAND
    insp.beat_text.value = "34"                     # no combination
    assert "34 is not a combination of the standard rules" in insp.error.value
    assert insp.to_beat is None and insp.moves_html.value == before[1]
    insp.rules_box.value = "mini"                   # mini has no 3..8: refused, back to standard
    assert "mini" in insp.error.value or "deck" in insp.error.value
    assert insp.rules_box.value == "standard" and insp.rules.name == "standard"
    insp.text.value = "9TJQK"                       # a good input clears the error
    assert insp.error.value == "" and _fewest(insp) == 1


def test_rank_buttons_change_the_hand_and_the_move_list():
    insp = HandInspector("3456", agents=[], background=False)
    n = _n_moves(insp)
    insp.rank_buttons[4].click()                    # a 7: 34567 becomes a chain
    assert str(insp.hand) == "34567" and insp.text.value == "34567"
    assert _n_moves(insp) == len(legal_moves(Hand("34567"))) > n
    assert _fewest(insp) == 1
    for _ in range(4):
        insp.rank_buttons[0].click()                # 3 x2, x3, x4, then back to none
    assert str(insp.hand) == "4567" and insp.rank_buttons[0].description == "3"
    insp.rank_buttons[0].click()
    assert insp.rank_buttons[0].description == "3×1"
    insp.clear_button.click()
    assert str(insp.hand) == "" and _n_moves(insp) == 0


def test_kind_filter_and_move_to_beat():
    insp = HandInspector("3344556677", agents=[], background=False)
    pairs = [m for m in legal_moves(Hand("3344556677")) if m.kind.name == "PAIR"]
    pair_option = next(v for label, v in insp.kind_box.options if label.startswith("pair"))
    insp.kind_box.value = pair_option
    assert _n_moves(insp) == len(pairs) == 5
    insp.beat_text.value = "55"
    to_beat = parse_move("55")
    assert insp.to_beat == to_beat
    replies = legal_moves(Hand("3344556677"), to_beat=to_beat)
    assert insp.kind_box.value == pair_option and _n_moves(insp) == 2        # 66, 77
    insp.kind_box.value = "all"
    assert _n_moves(insp) == len(replies) and "replies to" in insp.moves_html.value
    insp.beat_text.value = ""
    assert insp.to_beat is None and "moves to lead" in insp.moves_html.value
    insp.text.value = "99TTJJQQKK"
    insp.beat_text.value = "334455"                 # a pair chain; the homework rules have it too
    insp.rules_box.value = "homework"
    assert insp.to_beat == parse_move("334455") and insp.error.value == ""
    insp.rules_box.value = "standard"
    insp.beat_text.value = "33344456"               # a plane with wings: not in the homework rules
    insp.rules_box.value = "homework"
    assert insp.rules.name == "homework" and insp.to_beat is None
    assert "cleared" in insp.error.value and "moves to lead" in insp.moves_html.value


def test_deal_random_is_reproducible_by_seed():
    insp = HandInspector(agents=[], background=False)
    insp.seed_box.value, insp.size_box.value = 7, 20
    insp.deal_button.click()
    first = str(insp.hand)
    assert len(insp.hand) == 20 and _fewest(insp) == min_plays(first).plays
    insp.seed_box.value = 8
    insp.deal_button.click()
    assert str(insp.hand) != first
    insp.seed_box.value = 7
    insp.deal_button.click()
    assert str(insp.hand) == first
    insp.rules_box.value = "mini"                   # this hand has 3s: refused
    assert insp.rules.name == "standard" and "mini" in insp.error.value
    insp.clear_button.click()
    insp.rules_box.value = "mini"
    insp.deal_button.click()                        # 20 cards drawn from the 30-card deck
    assert len(insp.hand) == 20 and set(str(insp.hand)) <= set("9TJQKA2BR")


def test_slow_parts_run_in_the_background_and_stale_results_are_dropped():
    insp = HandInspector(agents=[], background=True)
    big = Hand.from_bits(Game(seed=3).rules.deck)   # the whole deck: 54 cards
    insp.text.value = str(big)
    assert insp.fewest_html.value == BUSY and insp.score_html.value == BUSY   # returned at once
    insp.text.value = "334455"                      # changed before the big job finished
    insp.wait(120)
    assert _fewest(insp) == 1 and insp.fewest.plays == 1
    assert "334455" in insp.score_html.value.replace('<span class="ddz-c">', "").replace("</span>", "")
    insp.text.value = str(big)
    insp.wait(120)
    assert _fewest(insp) == min_plays(big).plays
    assert "not computed: 54 cards" in insp.score_html.value
    assert "not computed: 54 cards" in insp.power_html.value


def test_bidding_model_and_agents():
    from ddzlab.agents.threshold_bidder import ThresholdBidder
    hand = "3456789TJQKA2BR22"
    insp = HandInspector(hand, agents=["greedy", "smallest", "nosuchagent"], background=False)
    value = ThresholdBidder().score(hand)            # the seed SVM, scored independently
    assert insp.bid_value == pytest.approx(value)
    assert ("call" if value > 0 else "do not call") in insp.bid_html.value
    assert f"{value:+.3f}" in insp.bid_html.value
    obs = leading_observation(Hand(hand).bits, insp.rules)
    assert insp.agent_moves["smallest"] == min([m for m in obs.legal_moves], key=smallest_key)
    assert insp.agent_moves["greedy"] == make_agent("greedy").play(obs)
    assert "q = " in insp.agents_html.value                  # the greedy agent's evaluation
    assert "unknown agent &#x27;nosuchagent&#x27;" in insp.agents_html.value
    insp.beat_text.value = "BR"                       # nothing beats the rocket: everyone passes
    assert all(m.is_pass for k, m in insp.agent_moves.items() if k != "nosuchagent")
    insp.beat_text.value = "2222"                     # needs cards this hand holds
    assert "uses cards this hand holds" in insp.agents_html.value


def test_agent_rows_are_labelled_by_the_name_asked_for():
    """Three registered names build an `ISMCTSAgent` (whose own name is ``ismcts``): each row
    says which was asked for, and the agent's own name when it differs."""
    insp = HandInspector("345678", agents=["ismcts:iterations=20", "ismcts_weights:iterations=20",
                                           "ismcts_weights_prior:iterations=20", "greedy"], background=False)
    labels = re.findall(r"<tr><td>([^<]*)</td>", insp.agents_html.value)
    assert labels == ["ismcts:iterations=20 (ismcts)", "ismcts_weights:iterations=20 (ismcts)",
                      "ismcts_weights_prior:iterations=20 (ismcts)", "greedy"]


@pytest.fixture(scope="module")
def duel_record(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "duel.jsonl"
    duel_games("greedy", "smallest", 1, seed=3, progress=False, record=path)
    return path


def test_replay_steps_forward_back_and_jumps(duel_record):
    _, recs = read_records(duel_record)
    rec = recs[0]
    rep = GameReplay(duel_record)
    assert rep.n_steps == len(rec.moves) and "step <span class=\"ddz-step\">0</span>" in rep.status_html.value
    assert "the cards are dealt" in rep.status_html.value
    rep.forward.click()
    seat, move, ev = rec.moves[0]
    assert rep.step == 1 and "seat 0 (greedy, landlord) plays" in rep.status_html.value
    assert f"q = {ev['q']}" in rep.status_html.value          # the agent's evaluation
    # seat 0's hand (20 cards with the kitty) shrank by its first move
    assert rep.state.sizes[0] == 20 - move.size
    assert rep.hands_html.value.split("ddz-seat-1")[0].count("ddz-c") == 20 - move.size
    assert "trick 1: s0" in rep.tricks_html.value
    rep.back.click()
    assert rep.step == 0
    rep.slider.value = 5
    assert rep.state.history == [(s, m) for s, m, _ in rec.moves[:5]]
    rep.end.click()
    assert rep.step == rep.n_steps and "over:" in rep.status_html.value
    assert ", ".join(f"{p:+d}" for p in rec.scores) in rep.status_html.value
    assert "multiplier ×" + str(rec.multiplier) in rep.status_html.value
    rep.start.click()
    assert rep.step == 0
    rep.back.click()                                       # clipped at the start
    assert rep.step == 0


def test_replay_seat_view_hides_other_hands_and_evaluations(duel_record):
    rep = GameReplay(duel_record)
    rep.goto(1)
    rep.view.value = 1                                     # a farmer's view
    seat0 = re.search(r'ddz-seat-0">(.*?)</div>', rep.hands_html.value).group(1)
    assert seat0.endswith("cards") and "ddz-c" not in seat0
    assert "q = " not in rep.status_html.value              # seat 0's evaluation is private
    rep.view.value = 0
    assert "q = " in rep.status_html.value
    rep.game_box.value = 1                                 # the second game: sides swapped
    assert rep.step == 0 and rep.record.seats == ("smallest", "greedy", "greedy")


def test_bidding_value_reads_the_flower_card():
    from ddzlab.agents.threshold_bidder import ThresholdBidder
    hand = "33345678TJQKAA2BF"                        # F as a 3 makes a bomb
    insp = HandInspector(hand, rules="wildcard", agents=[], background=False)
    assert insp.bid_value == pytest.approx(ThresholdBidder().score(hand))
    assert insp.bid_value > ThresholdBidder().score(hand.replace("F", ""))


def test_replay_of_a_bidding_game_shows_bids():
    agents = [make_agent("threshold_bidder", seed=0), make_agent("smallest"), make_agent("smallest")]
    game, evals = play_recorded(Game(seed=4), agents)
    buf = io.StringIO()
    write_records(buf, [game_record(game, ["tb", "smallest", "smallest"], evals)], rules="standard",
                  agents=["tb", "smallest"])
    (rec,) = read_records(io.StringIO(buf.getvalue()))[1]
    rep = GameReplay(rec)
    assert rep.n_steps == len(game.bids) + len(game.history)
    assert "none yet" in rep.bids_html.value
    rep.goto(len(game.bids))
    s, b = game.bids[0]
    assert f"seat {s}: {b or 'pass'} " in rep.bids_html.value + " " and "score = " in rep.bids_html.value
    assert f"bid {game.bid}" in rep.status_html.value
    rep.goto(rep.n_steps)
    assert rep.state.scores == game.scores


def test_replay_of_a_two_player_game_and_of_an_empty_one():
    game = Game(seed=9, players=2)
    game.play(game.legal_moves()[0])
    buf = io.StringIO()
    write_records(buf, [game_record(game, ["human", "smallest"]), game_record(Game(seed=1, players=2),
                                                                              ["a", "b"])],
                  rules="standard", players=2, agents=["human", "smallest"], source="play")
    recs = read_records(io.StringIO(buf.getvalue()))[1]
    rep = GameReplay(recs[0])
    rep.end.click()
    assert rep.step == 1 and "none (two players)" in rep.status_html.value
    assert "seat 0 (human) plays" in rep.status_html.value and not recs[0].finished
    empty = GameReplay(recs[1])
    empty.slider.value = 1                       # the slider's minimum span: clipped to step 0
    assert empty.step == 0 and "the cards are dealt" in empty.status_html.value


def test_a_failing_part_shows_its_error_in_place(monkeypatch):
    import ddzlab.widgets as w

    def broken(bits):
        raise RuntimeError("model file unreadable")
    monkeypatch.setattr(w, "_bidding", broken)
    insp = HandInspector("34567", agents=[], background=True)
    insp.wait()
    assert "model file unreadable" in insp.bid_html.value and w.BUSY not in insp.bid_html.value
    assert _fewest(insp) == 1


def test_every_panel_answers_or_refuses_big_hands_quickly():
    """The whole deck: the agents are not asked (no game deals 54 cards), the power and score
    searches are refused with a note, and nothing is left computing."""
    import time
    t0 = time.process_time()
    insp = HandInspector("3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222BR", agents=["weights", "rulev1"],
                         background=False)
    assert time.process_time() - t0 < 30
    assert "not asked: agents play dealt hands, at most 20 cards" in insp.agents_html.value
    assert "not computed" in insp.power_html.value and "not computed" in insp.score_html.value
    assert insp.agent_moves == {}
    assert all("computing" not in w.value for w in (insp.fewest_html, insp.power_html, insp.score_html,
                                                    insp.bid_html, insp.agents_html))


def test_an_agent_that_does_not_apply_says_why_in_a_note():
    insp = HandInspector("3456789TJQKA2BR2234", agents=["ismcts:iterations=5", "greedy"], background=False)
    assert "does not apply" in insp.agents_html.value and "ddz-error" not in insp.agents_html.value
    assert "power" in insp.power_html.value and "less 150 per play" in insp.power_html.value


def test_close_cancels_background_work():
    insp = HandInspector(agents=["greedy"], background=True)
    insp.set_text("3456789TJQKA2BR2234")
    insp.close()
    assert insp._pool is None
    insp.wait(60) if insp._future and not insp._future.cancelled() else None
    assert insp._future is None or insp._future.cancelled() or insp._future.done()


def test_replay_view_is_never_blank_and_a_fixed_landlord_has_no_bid(duel_record):
    rep = GameReplay(duel_record)
    assert rep.view.value == "all" and rep.view.label == "all hands"
    assert "base score 1 (fixed landlord, no bidding)" in rep.status_html.value
    assert "bid 1" not in rep.status_html.value and "none (fixed landlord)" in rep.bids_html.value
