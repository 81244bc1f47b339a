"""Game records: written by the arena and `ddzlab play`, read back by replaying every game;
malformed or foreign records are refused with the line named."""
from __future__ import annotations

import io
import json

import pytest

from ddzlab.agents import make_agent
from ddzlab.agents.base import Evaluating, last_evaluation
from ddzlab.arena import duel_games
from ddzlab.cli import main
from ddzlab.game import Game, Phase
from ddzlab.records import (FORMAT, VERSION, RecordError, RecordWriter, game_record, play_recorded,
                            read_records, write_records)


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_duel_record_replays_to_the_duel_rows(tmp_path):
    path = tmp_path / "duel.jsonl"
    games = duel_games("greedy", "random", 3, seed=4, progress=False, record=path)
    header, recs = read_records(path, rules="standard")
    assert header.agents == ("greedy", "random") and header.seed == 4 and header.source == "duel"
    assert len(recs) == len(games) == 6
    for rec, row in zip(recs, games.itertuples()):
        assert rec.extra["deal_no"] == row.deal and (rec.extra["half"] == 0) == row.a_landlord
        assert rec.landlord == 0 and rec.finished
        assert (rec.winner == 0) == row.landlord_won
        assert len(rec.moves) == row.moves and rec.bombs == row.bombs
        a_seats = {0} if row.a_landlord else {1, 2}
        assert rec.seats == tuple("greedy" if s in a_seats else "random" for s in range(3))
        # the greedy agent explains every non-forced play, the random agent never does
        evals = [(s, e) for s, _, e in rec.moves if e is not None]
        assert evals and all(s in a_seats for s, _ in evals)
        assert all("q" in e or e.get("finishes") for _, e in evals)
        last = rec.states()[-1]
        assert last.is_over and last.scores == rec.scores
    # lines are numbered from the header (line 1)
    assert [r.line for r in recs] == list(range(2, 8))


def test_resumed_duel_appends_to_its_record_and_refuses_another(tmp_path):
    rec, res = tmp_path / "r.jsonl", tmp_path / "r.csv"
    duel_games("smallest", "random", 3, seed=1, progress=False, results=res, record=rec)
    full = rec.read_text()
    for path in (rec, res):           # as if interrupted after deal 1: drop deal 2's games
        path.write_text("".join(path.read_text().splitlines(keepends=True)[:-2]))
    duel_games("smallest", "random", 3, seed=1, progress=False, results=res, record=rec)
    _, recs = read_records(rec)
    assert sorted(r.extra["deal_no"] for r in recs) == [0, 0, 1, 1, 2, 2]
    assert rec.read_text() == full
    with pytest.raises(RecordError, match="holds another run .seed=1"):
        RecordWriter(rec, rules="standard", agents=["smallest", "random"], seed=2, source="duel")
    # without --results the same duel starts its own record afresh
    duel_games("smallest", "random", 1, seed=1, progress=False, record=rec)
    assert len(read_records(rec)[1]) == 2


def test_duel_record_into_a_file_of_another_duel_is_refused_and_the_file_kept(tmp_path, capsys):
    """records.py: an existing record is appended to only by the same run; another duel's
    file is refused with an error naming it, resumed (--results) or not, and left as it was."""
    rec = tmp_path / "games.jsonl"
    assert main(["duel", "smallest", "random", "--deals", "1", "--quiet", "--record", str(rec)]) == 0
    before = rec.read_bytes()
    capsys.readouterr()
    for extra in ([], ["--results", str(tmp_path / "new.csv")]):
        code = main(["duel", "greedy", "random", "--deals", "1", "--quiet", "--record", str(rec), *extra])
        err = capsys.readouterr().err
        assert code == 2 and str(rec) in err and "another run" in err and "another file" in err
        assert rec.read_bytes() == before
        assert not (tmp_path / "new.csv").exists()      # refused before any file is written
    # the same duel again, not resumed: its own record, written afresh (same games)
    assert main(["duel", "smallest", "random", "--deals", "1", "--quiet", "--record", str(rec)]) == 0
    assert len(read_records(rec)[1]) == 2


def test_tournament_record_into_a_file_of_a_duel_is_refused_and_the_file_kept(tmp_path):
    from ddzlab.arena import tournament
    rec = tmp_path / "games.jsonl"
    duel_games("smallest", "random", 1, seed=0, progress=False, record=rec)
    before = rec.read_bytes()
    with pytest.raises(RecordError, match=f"{rec.name} holds another run .* use another file"):
        tournament(["smallest", "random", "greedy"], 1, progress=False, record=rec)
    assert rec.read_bytes() == before


def test_play_record_appends_games_of_the_same_set_up(tmp_path):
    """``play --help`` says "append": two scripted games into one file are games 0 and 1."""
    rec = tmp_path / "play.jsonl"
    for _ in range(2):
        assert main(["play", "--seed", "1", "--record", str(rec)], stdin=io.StringIO("quit\n"),
                    stdout=io.StringIO()) == 1
    header, games = read_records(rec)
    assert header.source == "play" and [g.index for g in games] == [0, 1]


def test_bidding_game_record_with_evaluations():
    agents = [make_agent("threshold_bidder", seed=0), make_agent("greedy"), make_agent("random", seed=1)]
    game, evals = play_recorded(Game(seed=11), agents)
    buf = io.StringIO()
    write_records(buf, [game_record(game, ["tb", "greedy", "random"], evals)], rules="standard",
                  agents=["tb", "greedy", "random"])
    header, (rec,) = read_records(io.StringIO(buf.getvalue()))
    assert [(s, b) for s, b, _ in rec.bids] == game.bids
    assert rec.bids[0][2]["level"] in (0, 1, 2, 3)      # the bidder's score and level
    assert all(e is None for s, _, e in rec.bids if s != 0)
    assert rec.landlord == game.landlord and rec.scores == game.scores
    assert rec.multiplier == game.multiplier and rec.bid == game.bid
    assert rec.deal == game.deal and rec.n_actions == len(game.bids) + len(game.history)


def test_evaluating_protocol_is_optional():
    greedy, smallest = make_agent("greedy"), make_agent("smallest")
    assert isinstance(greedy, Evaluating) and not isinstance(smallest, Evaluating)
    assert last_evaluation(smallest) is None
    game = Game(seed=2, landlord=0)
    greedy.play(game.observation(0))
    ev = last_evaluation(greedy)
    assert ev["q"] == max(ev["top"].values())


def _record_text(tmp_path):
    path = tmp_path / "g.jsonl"
    duel_games("greedy", "smallest", 1, seed=0, progress=False, record=path)
    return path.read_text().splitlines()


def _bad(tmp_path, lines, name="bad.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("edit, problem", [
    (lambda h, g: (h, "{not json"), r"bad.jsonl:2: not valid JSON"),
    (lambda h, g: (h, json.dumps({**g, "moves": g["moves"][:3] + [{"seat": 0, "move": "3Z"}]})),
     r"bad.jsonl:2: move 3 .'3Z'.: unknown card symbol 'Z'"),
    (lambda h, g: (h, json.dumps({**g, "moves": [{"seat": 1, "move": "3"}]})),
     r"bad.jsonl:2: move 0 .'3'.: seat 1 cannot play now"),
    (lambda h, g: (h, json.dumps({**g, "scores": [9, 9, 9]})), r"bad.jsonl:2: 'scores' is \[9, 9, 9\] but"),
    (lambda h, g: (h, json.dumps({k: v for k, v in g.items() if k != "moves"})), r"lacks 'moves'"),
    (lambda h, g: (h, json.dumps({**g, "seats": ["a"]})), r"'seats' must name 3 agents"),
    (lambda h, g: ({**h, "version": VERSION + 1}, json.dumps(g)), r"bad.jsonl:1: record format version 2"),
    (lambda h, g: ({**h, "format": "other"}, json.dumps(g)), r"bad.jsonl:1: not a ddzlab game record"),
    (lambda h, g: ({**h, "rules": "chess"}, json.dumps(g)), r"bad.jsonl:1: unknown rule set 'chess'"),
    (lambda h, g: ({**h, "rules": "mini"}, json.dumps(g)), r"bad.jsonl:2: deal: .*mini"),
    # the stated result must be the replayed one, every field of it
    (lambda h, g: (h, json.dumps({**g, "spring": not g["spring"]})), r"bad.jsonl:2: 'spring' is"),
    (lambda h, g: (h, json.dumps({**g, "bombs": g["bombs"] + 1})), r"bad.jsonl:2: 'bombs' is"),
    (lambda h, g: (h, json.dumps({**g, "multiplier": 2 * g["multiplier"]})), r"'multiplier' is"),
    (lambda h, g: (h, json.dumps({**g, "bid": 3})), r"bad.jsonl:2: 'bid' is 3"),
    # the same value of another JSON type is not the stated result (Python's 0 == False)
    (lambda h, g: (h, json.dumps({**g, "spring": int(g["spring"])})), r"bad.jsonl:2: 'spring' is [01] but"),
    (lambda h, g: (h, json.dumps({**g, "landlord": bool(g["landlord"])})), r"'landlord' is (true|false|True|False)"),
    (lambda h, g: (h, json.dumps({**g, "scores": [float(x) for x in g["scores"]]})), r"'scores' is \["),
    (lambda h, g: (h, json.dumps({**g, "bombs": bool(g["bombs"]) if g["bombs"] < 2 else "2"})), r"'bombs' is"),
    # a duel game has a fixed landlord: no auction, so no redeals and no first bidder
    (lambda h, g: (h, json.dumps({**g, "redeals": 1})), r"'redeals' is 1 in a game without an auction"),
    (lambda h, g: (h, json.dumps({**g, "first_bidder": 2})), r"'first_bidder' is 2 in a game without"),
    (lambda h, g: (h, json.dumps({**g, "redeals": "x"})), r"bad.jsonl:2: 'redeals' must be an integer"),
    (lambda h, g: (h, json.dumps({**g, "redeals": True})), r"'redeals' must be an integer"),
    (lambda h, g: (h, json.dumps({**g, "redeals": -1})), r"'redeals' must be an integer"),
    (lambda h, g: (h, json.dumps({**g, "game": 1e400})), r"bad.jsonl:2: 'game' must be an integer"),
    (lambda h, g: (h, json.dumps({**g, "game": "3"})), r"'game' must be an integer"),
    (lambda h, g: (h, "[" * 100_000), r"bad.jsonl:2: JSON nested too deeply"),
])
def test_malformed_records_name_the_line(tmp_path, edit, problem):
    header, game = (json.loads(x) for x in _record_text(tmp_path)[:2])
    h, g = edit(header, game)
    path = _bad(tmp_path, [json.dumps(h), g])
    with pytest.raises(RecordError, match=problem):
        read_records(path)
    assert issubclass(RecordError, ValueError)


def test_a_bidding_record_checks_its_auction_fields(tmp_path):
    """In a game with an auction the first bidder is replayed: another one makes the bids
    out of turn; an all-pass auction cannot be the recorded one."""
    game, evals = play_recorded(Game(seed=3), [make_agent("greedy")] * 3)
    path = tmp_path / "b.jsonl"
    write_records(path, [game_record(game, ["greedy"] * 3, evals, 0)], rules="standard",
                  agents=["greedy"], seed=3)
    header, good = (json.loads(x) for x in path.read_text().splitlines())
    read_records(path)
    for edit, problem in ((lambda g: {**g, "first_bidder": (g["first_bidder"] + 1) % 3}, "bid 0"),
                          (lambda g: {**g, "bids": [{"seat": (g["first_bidder"] + i) % 3, "bid": 0}
                                                    for i in range(3)]}, "all-pass auction")):
        bad = _bad(tmp_path, [json.dumps(header), json.dumps(edit(good))])
        with pytest.raises(RecordError, match=f"bad.jsonl:2: .*{problem}"):
            read_records(bad)


def test_unreadable_record_files_name_the_file_and_line(tmp_path):
    lines = _record_text(tmp_path)
    path = tmp_path / "latin.jsonl"
    path.write_bytes((lines[0] + "\n").encode() + b'{"seats": "\xe9"}\n')
    with pytest.raises(RecordError, match=r"latin.jsonl:2: not UTF-8"):
        read_records(path)
    with pytest.raises(RecordError, match=r"cannot read the record file"):
        read_records(tmp_path)


def test_record_of_another_rule_set_is_refused(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(_record_text(tmp_path)) + "\n")
    read_records(path, rules="standard")
    with pytest.raises(RecordError, match="g.jsonl:1: a record of the standard rules, not homework"):
        read_records(path, rules="homework")
    with pytest.raises(RecordError, match="empty file"):
        read_records(_bad(tmp_path, [""], "empty.jsonl"))
    with pytest.raises(RecordError, match="no such record file"):
        read_records(tmp_path / "missing.jsonl")


def test_cli_duel_and_play_write_records(tmp_path, capsys):
    duel_path = tmp_path / "d.jsonl"
    assert main(["duel", "greedy", "random", "--deals", "2", "--quiet", "--record", str(duel_path)]) == 0
    assert len(read_records(duel_path)[1]) == 4
    play_path = tmp_path / "p.jsonl"
    out = io.StringIO()
    # a scripted human who passes the auction, then quits at the first move asked
    code = main(["play", "--seed", "5", "--landlord", "1", "--record", str(play_path)],
                stdin=io.StringIO("quit\n"), stdout=out)
    assert code == 1 and "Game recorded" in out.getvalue()
    header, (rec,) = read_records(play_path)
    assert header.source == "play" and rec.seats[0] == "human" and not rec.finished
    assert rec.extra["seed"] == 5 and rec.landlord == 1
    assert _lines(play_path)[0]["format"] == FORMAT
    # a second game is appended to the same file
    main(["play", "--seed", "6", "--landlord", "1", "--record", str(play_path)],
         stdin=io.StringIO("quit\n"), stdout=io.StringIO())
    assert [r.extra["seed"] for r in read_records(play_path)[1]] == [5, 6]


def test_tournament_record_names_each_pair(tmp_path):
    from ddzlab.arena import tournament_games
    path = tmp_path / "t.jsonl"
    games = tournament_games(["greedy", "smallest", "random"], 1, seed=2, progress=False, record=path)
    header, recs = read_records(path)
    assert header.source == "tournament" and header.agents == ("greedy", "smallest", "random")
    assert len(recs) == len(games) == 6 and [r.index for r in recs] == list(range(6))
    for rec, row in zip(recs, games.itertuples()):
        assert (rec.extra["a"], rec.extra["b"]) == (row.a, row.b)
        assert rec.seats[0] == (row.a if row.a_landlord else row.b)
        assert (rec.winner == 0) == row.landlord_won and len(rec.moves) == row.moves


def test_parallel_duel_writes_the_same_record(tmp_path):
    serial, parallel = tmp_path / "s.jsonl", tmp_path / "p.jsonl"
    duel_games("greedy", "random", 4, seed=6, progress=False, record=serial)
    duel_games("greedy", "random", 4, seed=6, progress=False, record=parallel, n_jobs=2, chunk_size=1)
    # the same lines; games are written as chunks finish, so their order may differ
    assert sorted(serial.read_text().splitlines()) == sorted(parallel.read_text().splitlines())
    assert [r.index for r in read_records(serial)[1]] == list(range(8))


# -- from the mutation run (tests/MUTATION.md): replay steps, two players, writer defaults --
def _round_trip(game, seats, evals=None):
    buf = io.StringIO()
    write_records(buf, [game_record(game, seats, evals)], rules=game.rules, agents=sorted(set(seats)))
    return read_records(io.StringIO(buf.getvalue()))


def test_actions_and_states_replay_a_bidding_game_step_by_step():
    """`GameRecord.actions` is the auction then the play, and `states` the game before and
    after each step, checked against the game the record was made from."""
    game, evals = play_recorded(Game(seed=11), [make_agent("greedy") for _ in range(3)])
    nb = len(game.bids)
    assert nb == 3 and game.history
    _, (rec,) = _round_trip(game, ["greedy"] * 3, evals)
    acts = rec.actions()
    assert [a[0] for a in acts] == ["bid"] * nb + ["move"] * len(game.history)
    assert [(s, b) for _, s, b, _ in acts[:nb]] == list(game.bids)
    assert [(s, m) for _, s, m, _ in acts[nb:]] == list(game.history)
    states = rec.states()
    assert len(states) == rec.n_actions + 1 == nb + len(game.history) + 1
    assert states[0].phase is Phase.BIDDING and not states[0].bids
    assert [list(st.bids) for st in states[:nb + 1]] == [list(game.bids[:i]) for i in range(nb + 1)]
    assert states[nb].phase is Phase.PLAY and states[nb].landlord == game.landlord
    assert [list(st.history) for st in states[nb:]] == [list(game.history[:i])
                                                        for i in range(len(game.history) + 1)]
    assert states[-1].scores == game.scores


def test_a_two_player_record_replays_as_a_two_player_game(tmp_path):
    game, _ = play_recorded(Game(seed=5, players=2), [make_agent("greedy") for _ in range(2)])
    path = tmp_path / "two.jsonl"
    with RecordWriter(path, rules="standard", agents=["greedy"], players=2) as w:
        w.write(game_record(game, ["greedy", "greedy"]))
    assert _lines(path)[0]["players"] == 2
    header, (rec,) = read_records(path)
    assert header.players == 2 and rec.players == 2 and rec.landlord is None
    assert rec.new_game().players == 2 and rec.states()[-1].scores == game.scores


def test_the_writer_fills_an_empty_file_and_names_its_defaults(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    game, _ = play_recorded(Game(seed=3, landlord=0), [make_agent("smallest") for _ in range(3)])
    with RecordWriter(path, rules="standard", agents=["smallest"]) as w:
        w.write(game_record(game, ["smallest"] * 3))
    head = _lines(path)[0]
    assert (head["source"], head["players"], head["seed"]) == ("ddzlab", 3, None)
    with RecordWriter(path, rules="standard", agents=["smallest"]) as again:    # same run: appends
        assert again.count == 1
    blank = tmp_path / "blank.jsonl"        # not empty, but no header: not a record to extend
    blank.write_text("\n")
    with pytest.raises(RecordError, match="blank.jsonl: empty file, no record header"):
        RecordWriter(blank, rules="standard", agents=["smallest"])
    assert blank.read_text() == "\n"


def test_a_record_of_another_rule_set_and_first_bidder_replays_as_played():
    game, _ = play_recorded(Game(seed=12, rules="wildcard", first_bidder=1),
                            [make_agent("greedy") for _ in range(3)])
    assert game.bids[0][0] == 1
    header, (rec,) = _round_trip(game, ["greedy"] * 3)
    assert header.rules.name == "wildcard" and rec.first_bidder == 1
    start = rec.new_game()
    assert start.rules.name == "wildcard" and start.to_act == 1
    assert rec.states()[-1].scores == game.scores


def test_the_writer_makes_missing_folders_and_refuses_a_header_it_could_not_read(tmp_path):
    path = tmp_path / "a" / "b" / "r.jsonl"
    with RecordWriter(path, rules="standard", agents=["x"]):
        pass
    assert _lines(path)[0]["format"] == FORMAT
    for target in (tmp_path / "new.jsonl", path):       # a new file, and one with a header
        with pytest.raises(RecordError, match=f"{target} .new header.: players must be 2 or 3, not 4"):
            RecordWriter(target, rules="standard", agents=["x"], players=4)
    assert not (tmp_path / "new.jsonl").exists() and len(_lines(path)) == 1


def test_the_writer_and_write_records_write_the_same_bytes(tmp_path):
    """The two writers of the format agree byte for byte, names outside ASCII included
    (kept as text: the file is UTF-8)."""
    game, evals = play_recorded(Game(seed=3, landlord=0), [make_agent("greedy") for _ in range(3)])
    seats = ["贪心", "greedy", "greedy"]
    rec = game_record(game, seats, evals)
    path = tmp_path / "w.jsonl"
    with RecordWriter(path, rules="standard", agents=seats[:2], seed=3) as w:
        w.write(rec)
    buf = io.StringIO()
    write_records(buf, [rec], rules="standard", agents=seats[:2], seed=3)
    assert path.read_bytes() == buf.getvalue().encode("utf-8")
    assert read_records(path)[0].source == "ddzlab"          # the documented default
    assert "贪心" in path.read_text(encoding="utf-8")
    assert read_records(path)[1][0].seats == tuple(seats)
