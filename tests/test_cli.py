"""The command line: play driven through stdin, duel, solve, train, report."""
from __future__ import annotations

import io
import subprocess
import sys

import nbformat
import pytest

from ddzlab import cli
from ddzlab.agents import register_trainer
from ddzlab.report import ReportError, find_notebooks, run_report

CYCLE = ["pass", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "B", "R"]


def scripted(first: list[str], cycles: int = 60) -> str:
    """Some fixed lines, then 'pass' and every single card again and again: at every
    turn one of them is accepted (pass when following, a held card when leading)."""
    return "\n".join(first + CYCLE * cycles) + "\n"


def run_main(argv, stdin_text="", capsys=None):
    out = io.StringIO()
    code = cli.main(argv, stdin=io.StringIO(stdin_text), stdout=out)
    return code, out.getvalue()


def test_play_fixed_landlord_with_rejected_inputs():
    code, out = run_main(["play", "--seed", "3", "--landlord", "0", "--agents", "random", "smallest"],
                         scripted(["pass", "ZZ", "3333", "", "moves"]))
    assert code == 0, out
    assert "you are seat 0" in out and "Your hand (20 cards): 333 444 5 77 88 9 TT J QQ KK A" in out
    assert "Landlord: you are the landlord, base score 1. Kitty:" in out
    assert "Rejected: seat 0 cannot pass: it leads this trick and must play." in out
    assert "Rejected: unknown card symbol 'Z'" in out
    assert "Rejected: 3333 is not in seat 0's hand" in out and "missing 3" in out
    assert "Rejected: empty input" in out
    assert "legal: 3, 4, 5" in out                         # 'moves' lists the legal moves
    assert "does not beat" in out
    assert "You play 3" in out and "seat 2 (smallest)" in out and "seat 1 (random)" in out
    assert "Game over" in out and "multiplier x" in out
    scores = [int(line.rsplit(":", 1)[1]) for line in out.splitlines() if line.startswith("  seat ")]
    assert len(scores) == 3 and sum(scores) == 0


def test_play_with_bidding():
    code, out = run_main(["play", "--seed", "5", "--agents", "smallest"],
                         scripted(["4", "x", "3"]))
    assert code == 0, out
    assert "Your bid (0 / 1 / 2 / 3; 0 = pass): " in out
    assert "Rejected: seat 0 cannot bid 4: bid 0 (pass) or 1..3." in out
    assert "Rejected: 'x' is not a number" in out
    assert "Landlord: you are the landlord, base score 3. Kitty:" in out
    assert "Your hand (20 cards)" not in out.split("Landlord:")[0]   # 17 cards before the kitty


def test_play_one_v_one():
    code, out = run_main(["play", "--seed", "4", "--players", "2", "--rules", "homework",
                          "--agents", "smallest"], scripted([]))
    assert code == 0, out
    assert "Landlord" not in out and "Game over" in out
    scores = [int(line.rsplit(":", 1)[1]) for line in out.splitlines() if line.startswith("  seat ")]
    assert len(scores) == 2 and sum(scores) == 0 and "player" in out


def test_play_subprocess_stdin_ends_early():
    proc = subprocess.run([sys.executable, "-m", "ddzlab.cli", "play", "--seed", "1",
                           "--landlord", "0"], input="pass\n3Z\n", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert "cannot pass" in proc.stdout and "unknown card symbol" in proc.stdout
    assert "Game abandoned (end of input)" in proc.stdout


def test_duel_prints_the_table():
    code, out = run_main(["duel", "random", "smallest", "--deals", "6", "--seed", "2", "--quiet"])
    assert code == 0
    assert "random (A) vs smallest (B), 6 deals x 2 sides" in out
    for word in ("A landlord", "A farmers", "combined", "WP", "ADP", "WP_lo"):
        assert word in out


def test_duel_unknown_agent(capsys):
    code, _ = run_main(["duel", "random", "nobody", "--deals", "2", "--quiet"])
    assert code == 2 and "unknown agent 'nobody'" in capsys.readouterr().err


def test_solve_prints_the_analysis(capsys):
    code, out = run_main(["solve", "33445566789TJQKA2BR", "--rules", "homework"])
    assert code == 0
    assert "fewest plays (A*): 4" in out and "best score (DFS): 1.7297" in out and "hints:" in out
    code, _ = run_main(["solve", "33Z"])
    assert code == 2 and "unknown card symbol" in capsys.readouterr().err
    code, _ = run_main(["solve", "99999"])
    assert code == 2 and "copies" in capsys.readouterr().err
    code, _ = run_main(["solve", "3456", "--rules", "mini"])
    assert code == 2 and "mini deck" in capsys.readouterr().err


def test_train_lists_and_dispatches(capsys):
    seen = []

    @register_trainer("unit-test-trainer")
    def trainer(argv):
        seen.append(argv)
        return 0

    code, out = run_main(["train"])
    assert code == 0 and "unit-test-trainer" in out
    assert run_main(["train", "unit-test-trainer", "--games", "3"])[0] == 0
    assert seen == [["--games", "3"]]
    assert run_main(["train", "nope"])[0] == 2
    assert "unknown trainer 'nope'" in capsys.readouterr().err


def _notebook(path, source):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


def test_report_runs_numbered_notebooks_in_order(tmp_path):
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    _notebook(nbdir / "01_first.ipynb",
              "import os\nopen('scale.txt', 'a').write(os.environ['DDZLAB_SCALE'] + '\\n')")
    _notebook(nbdir / "02_second.ipynb", "open('scale.txt', 'a').write('second\\n')")
    _notebook(nbdir / "03_broken.ipynb", "raise RuntimeError('deliberate failure')")
    (nbdir / "scratch.ipynb").write_text("not a numbered notebook: ignored")
    assert [p.name for p in find_notebooks(nbdir)] == ["01_first.ipynb", "02_second.ipynb",
                                                         "03_broken.ipynb"]
    log = io.StringIO()
    done = run_report(only=["1", "02"], notebooks_dir=nbdir, out=log)
    assert [p.name for p in done] == ["01_first.ipynb", "02_second.ipynb"]
    assert (nbdir / "executed" / "01_first.ipynb").exists()
    assert (nbdir / "scale.txt").read_text() == "quick\nsecond\n"
    assert "[1/2] 01_first.ipynb (scale quick) ... ok" in log.getvalue()
    with pytest.raises(ReportError, match=r"notebook 03_broken.ipynb failed.*"
                                          r"RuntimeError: deliberate failure"):
        run_report(full=True, only=["03"], notebooks_dir=nbdir, out=io.StringIO())
    with pytest.raises(ReportError, match="no notebook numbered 07"):
        run_report(only=["07"], notebooks_dir=nbdir, out=io.StringIO())


def test_report_command_fails_clearly(capsys):
    code, _ = run_main(["report", "--only", "99"])
    assert code == 1 and "no notebook numbered 99" in capsys.readouterr().err


def test_bad_arguments_get_a_message_not_a_traceback(capsys):
    for argv, words in ((["duel", "random", "random", "--deals", "0"], "must be at least 1, not 0"),
                        (["duel", "random", "random", "--deals", "-5"], "must be at least 1, not -5"),
                        (["duel", "random", "random", "--jobs", "0"], "must be at least 1, not 0"),
                        (["duel", "random", "random", "--deals", "x"], "'x' is not a whole number")):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv, stdout=io.StringIO())
        assert exc.value.code == 2 and words in capsys.readouterr().err
    for seat in ("5", "-1"):
        code, _ = run_main(["play", "--seat", seat, "--landlord", "0"], "")
        assert code == 2
        assert f"--seat {seat} is not a seat of this 3-player game: choose 0..2" in capsys.readouterr().err


def test_the_reviews_bad_inputs_get_a_message_not_a_traceback(capsys, tmp_path):
    """Issue 22 item 8: each of these printed a traceback."""
    for argv, words in ((["duel", "random", "random", "--seed", "-1"], "a seed is a whole number of at least 0"),
                        (["tournament", "random", "smallest", "--seed", "-3"], "at least 0, not -3"),
                        (["play", "--seed", "-1"], "at least 0, not -1")):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv, stdout=io.StringIO())
        assert exc.value.code == 2 and words in capsys.readouterr().err
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "w.json").write_text('{"follow_threshold": 1}')
    (tmp_path / "q.npz").write_bytes(b"PK\x03\x04 not really")
    duel = ["duel", "random", "smallest", "--deals", "2", "--quiet"]
    for argv, words in ((duel + ["--backend", "nosuch"], "unknown backend 'nosuch'; one of loky"),
                        (["duel", "random", "smallest", "--deal-file", str(tmp_path / "empty.txt")],
                         "holds no deals"),
                        (duel + ["--results", str(tmp_path)], "is a folder"),
                        (["duel", f"threshold_bidder:model={tmp_path / 'none.json'}", "random",
                          "--deals", "2", "--quiet"], "no such bidder file"),
                        (["duel", f"weights:weights={tmp_path / 'w.json'}", "random", "--deals", "2",
                          "--quiet"], "no format version"),
                        (["duel", f"qlearning:path={tmp_path / 'q.npz'}", "random", "--deals", "2",
                          "--quiet"], "q.npz")):
        code, _ = run_main(argv)
        err = capsys.readouterr().err
        assert code == 2 and words in err and "Traceback" not in err, (argv, err)


def test_ctrl_c_while_the_parser_loads_the_agents(monkeypatch, capsys):
    def interrupted():
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["duel", "random", "random"]) == 130
    assert "ddzlab: interrupted" in capsys.readouterr().err


def test_version(capsys):
    from ddzlab import __version__
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"ddzlab {__version__}"


class _Interrupting(io.StringIO):
    def readline(self, *args):
        raise KeyboardInterrupt


def test_ctrl_c_in_play_and_duel(monkeypatch, capsys):
    out = io.StringIO()
    code = cli.main(["play", "--seed", "1", "--landlord", "0"], stdin=_Interrupting(), stdout=out)
    assert code == 130 and "Game abandoned (interrupted)." in out.getvalue()
    import ddzlab.arena

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(ddzlab.arena, "duel", interrupted)
    code, _ = run_main(["duel", "random", "random", "--deals", "3", "--results", "x.csv"])
    err = capsys.readouterr().err
    assert code == 130 and "interrupted; finished deals are saved in x.csv" in err


def test_solve_explains_infinite_scores_and_skips_what_would_not_finish():
    code, out = run_main(["solve", "333444555BR"])
    assert code == 0 and "higher is stronger" in out and "power of the cards left" in out
    code, out = run_main(["solve", "33344"])          # one trio+pair: one play worth 3
    assert "+inf (the whole hand is one play worth 3: ln 3 / ln 1 is infinite" in out
    code, out = run_main(["solve", "34"])
    assert "-inf (no split earns any reward" in out
    deck = "3456789TJQKA" * 4 + "2222BR"
    code, out = run_main(["solve", deck, "--rules", "homework"])    # homework: no planes, fast
    assert code == 0 and "fewest plays (A*): " in out
    assert "(best score: searching 54 cards" in out
    assert "power split and hints: skipped for 54 cards" in out and "\nhints:" not in out
