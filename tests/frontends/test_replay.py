"""Game replays (`ddzlab.replay`): the text a record replays to, checked against the rules' tricks
and multiplier worked out by hand."""
from __future__ import annotations


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
