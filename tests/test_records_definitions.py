"""Game records against the format's definition (issue 22: the survivors of
`make mutation MODULE=records`): defaults of omitted fields, the stated kitty, the labels
of a bad card text, compact UTF-8 lines, blank lines, and a replay that starts from the
recorded rules, players and first bidder."""
from __future__ import annotations

import json

import pytest

from ddzlab.agents import make_agent
from ddzlab.arena import duel_games
from ddzlab.game import Game
from ddzlab.records import (RecordError, RecordWriter, explaining, game_record, play_recorded,
                            read_records)
from ddzlab.rules import MINI


def _duel(tmp_path) -> tuple[dict, list[dict]]:
    """The header and the two games of a one-deal duel record."""
    path = tmp_path / "duel.jsonl"
    duel_games("greedy", "smallest", 1, seed=0, progress=False, record=path)
    header, *games = (json.loads(x) for x in path.read_text().splitlines() if x.strip())
    return header, games


def _read(tmp_path, lines: list[str]):
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_records(path)


def test_blank_lines_between_games_are_skipped(tmp_path):
    header, games = _duel(tmp_path)
    _, recs = _read(tmp_path, [json.dumps(header), json.dumps(games[0]), "", "  ", json.dumps(games[1])])
    assert len(recs) == 2 and [r.line for r in recs] == [2, 5]


def test_omitted_game_and_redeals_are_zero(tmp_path):
    header, (game, _) = _duel(tmp_path)
    bare = {k: v for k, v in game.items() if k not in ("game", "redeals")}
    _, (rec,) = _read(tmp_path, [json.dumps(header), json.dumps(bare)])
    assert rec.index == 0 and rec.redeals == 0


def test_a_count_may_reach_ten_to_the_ninth(tmp_path):
    header, (game, _) = _duel(tmp_path)
    _, (rec,) = _read(tmp_path, [json.dumps(header), json.dumps({**game, "game": 10**9})])
    assert rec.index == 10**9
    with pytest.raises(RecordError, match=r"'game' must be an integer 0\.\.10\^9, not 1000000001"):
        _read(tmp_path, [json.dumps(header), json.dumps({**game, "game": 10**9 + 1})])


def test_the_stated_kitty_must_be_the_dealt_one(tmp_path):
    header, (game, _) = _duel(tmp_path)
    assert game["kitty"] == game["deal"]["kitty"]             # the record states the kitty it dealt
    wrong = game["deal"]["hands"][0][:3]                      # three other cards
    with pytest.raises(RecordError, match=r"'kitty' is"):
        _read(tmp_path, [json.dumps(header), json.dumps({**game, "kitty": wrong})])


def test_a_bad_card_text_is_named_by_where_it_is(tmp_path):
    header, (game, _) = _duel(tmp_path)
    hands = list(game["deal"]["hands"])
    hands[1] = "3Z"
    with pytest.raises(RecordError, match=r"r.jsonl:2: deal hand 1: "):
        _read(tmp_path, [json.dumps(header), json.dumps({**game, "deal": {**game["deal"], "hands": hands}})])
    with pytest.raises(RecordError, match=r"r.jsonl:2: deal kitty: "):
        _read(tmp_path, [json.dumps(header), json.dumps({**game, "deal": {**game["deal"], "kitty": "3Z"}})])


def test_a_deal_without_a_kitty_reads_as_an_empty_kitty(tmp_path):
    header, (game, _) = _duel(tmp_path)
    lines = []
    for deal in ({k: v for k, v in game["deal"].items() if k != "kitty"}, {**game["deal"], "kitty": ""}):
        with pytest.raises(RecordError) as e:
            _read(tmp_path, [json.dumps(header), json.dumps({**game, "deal": deal})])
        lines.append(str(e.value))
    assert lines[0] == lines[1]


@pytest.mark.parametrize("field", ["bids", "moves"])
def test_bids_and_moves_must_be_lists(tmp_path, field):
    header, (game, _) = _duel(tmp_path)
    with pytest.raises(RecordError, match=r"list"):
        _read(tmp_path, [json.dumps(header), json.dumps({**game, field: "none"})])


def test_a_header_of_another_format_says_what_it_found(tmp_path):
    header, (game, _) = _duel(tmp_path)
    with pytest.raises(RecordError, match=r"r.jsonl:1: not a ddzlab game record \(format 'list', expected"):
        _read(tmp_path, ["[1, 2]", json.dumps(game)])
    with pytest.raises(RecordError, match=r"\(format 'chess', expected"):
        _read(tmp_path, [json.dumps({**header, "format": "chess"}), json.dumps(game)])


def test_lines_are_compact_utf8_json(tmp_path):
    """One compact JSON object a line (no spaces after separators), non-ASCII text as it is."""
    game, _ = play_recorded(Game(seed=3, landlord=0), [make_agent("smallest") for _ in range(3)])
    path = tmp_path / "u.jsonl"
    with RecordWriter(path, rules="standard", agents=["地主"]) as w:
        w.write(game_record(game, ["地主"] * 3))
    raw = path.read_bytes().decode("utf-8")
    assert "地主" in raw and "\\u" not in raw
    for line in raw.splitlines():
        assert json.loads(line) and ", " not in line and '": ' not in line
    header, (rec,) = read_records(path)
    assert rec.seats == ("地主",) * 3


def test_a_replay_starts_from_the_recorded_rules_players_and_first_bidder(tmp_path):
    """A standard game whose auction starts at seat 2, and a mini game: each replay's first
    state has the recorded rules, three players and the recorded seat to act first, and its
    last the recorded scores."""
    for rules, first in (("standard", 2), ("mini", 0)):
        game = Game(rules=rules, seed=4, first_bidder=first)
        game, evals = play_recorded(game, [make_agent("greedy") for _ in range(3)])
        path = tmp_path / f"{rules}.jsonl"
        with RecordWriter(path, rules=rules, agents=["greedy"]) as w:
            w.write(game_record(game, ["greedy"] * 3, evals))
        _, (rec,) = read_records(path)
        start = rec.new_game()
        assert start.rules.name == rules and start.players == 3 and start.to_act == first
        assert rec.states()[-1].scores == game.scores
        if rules == "standard":
            assert rec.actions()[0][:2] == ("bid", 2)
        else:
            assert start.rules is MINI and not rec.bids


def test_the_wrapped_agent_answers_for_the_agent():
    """`explaining` wraps an agent for a game: anything else asked of it is the agent's."""
    agent = make_agent("mcts_cheat:iterations=4", seed=0)
    (wrapped,), _ = explaining([agent])
    assert wrapped.see_all_hands == agent.see_all_hands and wrapped.iterations == 4


def test_an_evaluation_that_is_not_json_is_named():
    """A self-referencing evaluation cannot be written: the error names it."""
    game, _ = play_recorded(Game(seed=3, landlord=0), [make_agent("smallest") for _ in range(3)])
    loop: dict = {"q": 1}
    loop["self"] = loop
    with pytest.raises(RecordError, match=r"^evaluation \{'q': 1, 'self': .*cannot be written as JSON"):
        game_record(game, ["smallest"] * 3, {"bids": {}, "moves": {0: loop}})
