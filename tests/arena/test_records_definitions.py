"""Game records against the format's definition (the survivors of
`make mutation MODULE=records`): defaults of omitted fields, the stated kitty, the labels
of a bad card text, compact UTF-8 lines, blank lines, and a replay that starts from the
recorded rules, players and first bidder."""
from __future__ import annotations

import copy
import io
import json

import numpy as np
import pytest

from conftest import NeverBids
from ddzlab.agents import AgentError, make_agent
from ddzlab.arena import duel_games
from ddzlab.game import Game
from ddzlab.records import (FORMAT, VERSION, RecordError, RecordWriter, explaining, game_record,
                            play_recorded, read_header_dict, read_records, write_records)
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


# -- the format's keys, defaults and messages (survivors of the fresh run) ------

GAME_KEYS = {"game", "seats", "deal", "first_bidder", "fixed_landlord", "redeals", "bids", "landlord",
             "kitty", "moves", "bid", "bombs", "spring", "multiplier", "winner", "scores"}
HEADER_KEYS = {"format", "version", "rules", "players", "agents", "seed", "source"}


class _PassesFirst:
    """Passes through the first auction, then bids 3; plays the first legal move."""

    name = "passes_first"

    def __init__(self):
        self.calls = 0

    def bid(self, obs):
        self.calls += 1
        return 3 if self.calls > 1 else 0

    def play(self, obs):
        return obs.legal_moves[0]


def _redealt_game() -> Game:
    """A standard game whose first auction was all-pass (one redeal)."""
    game, _ = play_recorded(Game(seed=6), [_PassesFirst() for _ in range(3)])
    assert game.redeals == 1 and game.is_over
    return game


def _lines(tmp_path, records: list[dict], **header) -> tuple:
    path = tmp_path / "k.jsonl"
    write_records(path, records, rules="standard", agents=["a"], **header)
    return path, [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_a_record_has_exactly_the_documented_keys_and_reads_them_back(tmp_path):
    game = _redealt_game()
    record = game_record(game, ["x", "y", "z"], index=7, half=1)
    assert set(record) == GAME_KEYS | {"half"}
    assert (record["game"], record["redeals"], record["bid"], record["winner"]) == (7, 1, game.bid, game.winner)
    assert game_record(game, ["x", "y", "z"])["game"] == 0
    path, (head, line) = _lines(tmp_path, [record], seed=5, source="doc", note="n")
    assert set(head) == HEADER_KEYS | {"note"} and head["seed"] == 5 and head["source"] == "doc"
    header, (rec,) = read_records(path)
    assert (header.players, header.agents, header.seed, header.source, header.version) == (3, ("a",), 5, "doc", 1)
    assert header.extra == {"note": "n"} and rec.extra == {"half": 1}
    assert (rec.index, rec.redeals, rec.bid, rec.winner, rec.seats) == (7, 1, game.bid, game.winner, ("x", "y", "z"))


def test_a_two_player_header_is_written_to_a_stream_and_a_path_alike(tmp_path):
    buf = io.StringIO()
    write_records(buf, [], rules="standard", agents=["a"], seed=1, source="s", players=2, note="n")
    path = tmp_path / "two.jsonl"
    write_records(path, [], rules="standard", agents=["a"], seed=1, source="s", players=2, note="n")
    assert path.read_text(encoding="utf-8") == buf.getvalue()
    assert json.loads(buf.getvalue())["players"] == 2
    header, games = read_records(path)
    assert (header.players, header.seed, header.source, header.extra, games) == (2, 1, "s", {"note": "n"}, [])


def test_a_game_without_an_auction_records_first_bidder_0(tmp_path):
    game, _ = play_recorded(Game(seed=3, landlord=0, first_bidder=2), [make_agent("smallest") for _ in range(3)])
    record = game_record(game, ["s"] * 3)
    assert record["first_bidder"] == 0 and record["fixed_landlord"] == 0
    path, _ = _lines(tmp_path, [record])
    assert read_records(path)[1][0].first_bidder == 0


@pytest.mark.parametrize("key", ["landlord", "winner", "bid", "bombs", "spring", "multiplier", "scores"])
def test_every_stated_result_is_checked(tmp_path, key):
    game = _redealt_game()
    record = game_record(game, ["x", "y", "z"])
    wrong = {"landlord": (game.landlord + 1) % 3, "winner": (game.winner + 1) % 3, "bid": game.bid % 3 + 1,
             "bombs": game.bombs + 1, "spring": not game.spring, "multiplier": game.multiplier * 2,
             "scores": [s + 1 for s in game.scores]}[key]
    path, _ = _lines(tmp_path, [{**record, key: wrong}])
    with pytest.raises(RecordError, match=rf"k.jsonl:2: '{key}' is "):
        read_records(path)


def test_header_defaults_and_a_bad_agents_list():
    where = "h"
    got = read_header_dict({"format": FORMAT, "version": VERSION, "rules": "mini"}, where)
    assert (got.players, got.agents, got.seed, got.source, got.extra) == (3, (), None, "", {})
    for agents in ("ab", [1], None):
        with pytest.raises(RecordError, match=r"^h: 'agents' must be a list of names"):
            read_header_dict({"format": FORMAT, "version": VERSION, "rules": "mini", "agents": agents}, where)


def _bidding_record() -> dict:
    game, _ = play_recorded(Game(seed=4), [make_agent("greedy") for _ in range(3)])
    assert game.spec.first_bidder == 0
    return game_record(game, ["g"] * 3)


def _fixed_record() -> dict:
    game, _ = play_recorded(Game(seed=3, landlord=0), [make_agent("smallest") for _ in range(3)])
    return game_record(game, ["s"] * 3)


@pytest.mark.parametrize("value", [3, -1, True, "0"])
def test_every_seat_field_names_itself_when_it_is_not_a_seat(tmp_path, value):
    bidding, fixed = _bidding_record(), _fixed_record()
    cases = [
        ({**fixed, "fixed_landlord": value}, "fixed_landlord"),
        ({**bidding, "first_bidder": value}, "first_bidder"),
        ({**bidding, "bids": [{**bidding["bids"][0], "seat": value}, *bidding["bids"][1:]]}, "bid 0"),
        ({**fixed, "moves": [fixed["moves"][0], {**fixed["moves"][1], "seat": value}, *fixed["moves"][2:]]},
         "move 1"),
    ]
    for record, what in cases:
        path, _ = _lines(tmp_path, [record])
        with pytest.raises(RecordError, match=rf"k.jsonl:2: {what}: seat {value!r} is not a seat of a 3-player game"):
            read_records(path)


def test_an_omitted_first_bidder_is_seat_0(tmp_path):
    record = _bidding_record()
    path, _ = _lines(tmp_path, [{k: v for k, v in record.items() if k != "first_bidder"}])
    assert read_records(path)[1][0].first_bidder == 0


def test_entries_that_are_not_objects_are_named_with_their_shape(tmp_path):
    bidding, fixed = _bidding_record(), _fixed_record()
    cases = [({**fixed, "moves": [[0, "3"]]}, r'move 0: expected \{"seat": s, "move": cards\}, got \[0, \'3\'\]'),
             ({**bidding, "bids": [{"seat": 0}]}, r'bid 0: expected \{"seat": s, "bid": n\}, got'),
             ({**bidding, "bids": [{**bidding["bids"][0], "eval": 3}]}, r"bid 0: 'eval' must be an object, not 3"),
             ({**fixed, "moves": [fixed["moves"][0], {**fixed["moves"][1], "eval": [1]}]},
              r"move 1: 'eval' must be an object, not \[1\]"),
             ({**fixed, "deal": [1]}, r"k.jsonl:2: 'deal' must be \{\"hands\": \[...\], \"kitty\": ...\}$"),
             ({**fixed, "bids": None}, r"k.jsonl:2: 'bids' and 'moves' must be lists$"),
             ({k: v for k, v in fixed.items() if k not in ("seats", "deal")}, r"game line lacks 'seats', 'deal'$")]
    for record, message in cases:
        path, _ = _lines(tmp_path, [record])
        with pytest.raises(RecordError, match=message):
            read_records(path)


def test_an_all_pass_auction_is_refused_by_its_message(tmp_path):
    record = _bidding_record()
    passes = [{"seat": s, "bid": 0} for s in range(3)]
    path, _ = _lines(tmp_path, [{**record, "bids": passes, "moves": []}])
    with pytest.raises(RecordError, match=r"k.jsonl:2: the bids end in an all-pass auction: a record holds"):
        read_records(path)


def test_the_stated_kitty_is_read_in_any_card_order_and_named_when_bad(tmp_path):
    record = _bidding_record()
    shuffled = record["kitty"][::-1]
    assert shuffled != record["kitty"]
    path, _ = _lines(tmp_path, [{**record, "kitty": shuffled}])
    assert read_records(path)[1][0].landlord == record["landlord"]
    path, _ = _lines(tmp_path, [{**record, "kitty": "3Z"}])
    with pytest.raises(RecordError, match=r"k.jsonl:2: kitty: "):
        read_records(path)


def test_a_stream_without_a_name_is_called_record_in_errors():
    with pytest.raises(RecordError, match=r"^<record>:1: not valid JSON"):
        read_records(io.StringIO("{nope\n"))


def test_evaluations_with_numpy_numbers_and_objects_are_stored_as_plain_json():
    class Odd:
        def __str__(self):
            return "odd"

    class Says:
        name = "says"

        def bid(self, obs):
            self.last_eval = None
            return obs.legal_bids[-1]

        def play(self, obs):
            self.last_eval = {"q": np.int64(3), "p": np.float32(0.5), "o": Odd(), "t": (1, 2)}
            return obs.legal_moves[0]

    game, evals = play_recorded(Game(seed=3, landlord=0), [Says(), Says(), Says()])
    record = game_record(game, ["says"] * 3, evals)
    assert record["moves"][0]["eval"] == {"q": 3, "p": 0.5, "o": "odd", "t": [1, 2]}
    assert type(record["moves"][0]["eval"]["q"]) is int


def test_a_stale_evaluation_is_not_recorded_for_a_later_move():
    """An agent that explains its bid but not its moves (and does not reset ``last_eval``,
    against the protocol): the wrapper clears it before each call, so no move carries the
    bid's evaluation."""
    class BidOnly:
        name = "bid_only"
        last_eval = None

        def bid(self, obs):
            self.last_eval = {"bid": 1}
            return obs.legal_bids[-1]

        def play(self, obs):
            return obs.legal_moves[0]

    game, evals = play_recorded(Game(seed=5), [BidOnly(), BidOnly(), BidOnly()])
    assert evals["bids"] and not evals["moves"]


def test_the_wrapper_takes_the_agent_s_name_or_class_name_and_copies():
    class Nameless:
        def bid(self, obs):
            return 0

        def play(self, obs):
            return obs.legal_moves[0]

    (named, nameless), _ = explaining([make_agent("greedy"), Nameless()])
    assert named.name == "greedy" and nameless.name == "Nameless"
    twin = copy.copy(named)
    assert twin.agent is named.agent and twin.name == "greedy"


@pytest.mark.parametrize("limit", [0, 2])
def test_play_recorded_allows_exactly_max_redeals(limit):
    game = Game(seed=0)
    with pytest.raises(AgentError, match=f"{limit} all-pass auctions"):
        play_recorded(game, [NeverBids()] * 3, max_redeals=limit)
    assert game.redeals == limit + 1
    game = Game(seed=0)
    with pytest.raises(AgentError, match="100 all-pass auctions"):
        play_recorded(game, [NeverBids()] * 3)
    assert game.redeals == 101


def test_records_are_utf8_whatever_the_locale(tmp_path):
    """Under an ASCII locale (no UTF-8 mode), non-ASCII names are still written and read as
    UTF-8: by a new writer, by a writer appending to the file, and by `write_records`."""
    import os
    import subprocess
    import sys
    code = (
        "import sys\n"
        "from ddzlab.agents import make_agent\n"
        "from ddzlab.game import Game\n"
        "from ddzlab.records import RecordWriter, game_record, play_recorded, read_records, write_records\n"
        "name = '\\u5730\\u4e3b'\n"
        "game, _ = play_recorded(Game(seed=3, landlord=0), [make_agent('smallest') for _ in range(3)])\n"
        "rec = game_record(game, [name] * 3)\n"
        "folder = sys.argv[1]\n"
        "for _ in range(2):\n"
        "    with RecordWriter(folder + '/w.jsonl', rules='standard', agents=[name]) as w:\n"
        "        w.write(rec)\n"
        "write_records(folder + '/p.jsonl', [rec], rules='standard', agents=[name])\n"
        "for f in ('w', 'p'):\n"
        "    header, games = read_records(folder + '/' + f + '.jsonl')\n"
        "    assert header.agents == (name,) and all(g.seats == (name,) * 3 for g in games)\n"
        "    print(f, len(games))\n")
    # the same calls in this process first (a mutation tool links a test to the code it runs here)
    game, _ = play_recorded(Game(seed=3, landlord=0), [make_agent("smallest") for _ in range(3)])
    for _ in range(2):
        with RecordWriter(tmp_path / "here.jsonl", rules="standard", agents=["a"]) as w:
            w.write(game_record(game, ["a"] * 3))
    write_records(tmp_path / "here2.jsonl", [game_record(game, ["a"] * 3)], rules="standard", agents=["a"])
    import ddzlab
    here = os.path.dirname(os.path.dirname(ddzlab.__file__))       # the ddzlab under test
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
           "PYTHONPATH": here}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-1500:]
    assert out.stdout.split() == ["w", "2", "p", "1"]
    assert "\u5730\u4e3b" in (tmp_path / "w.jsonl").read_bytes().decode("utf-8")


def test_the_guard_against_a_missing_agent_names_it():
    bare = object.__new__(type(explaining([make_agent("greedy")])[0][0]))     # no __init__: no agent
    with pytest.raises(AttributeError, match="^agent$"):
        bare.agent
