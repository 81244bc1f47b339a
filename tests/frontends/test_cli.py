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
    """Each of these once printed a traceback."""
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


# -- a newcomer's first hour: agents from files, and commands that used to surprise ----------
AGENT_FILE = '''
"""A user's agent, outside the package."""


class MostCards:
    """Sheds the most cards it can."""
    name = "most_cards"

    def __init__(self, seed=None):
        self.seed = seed

    def bid(self, obs):
        return 0

    def play(self, obs):
        return max(obs.legal_moves, key=lambda m: (m.size, -m.rank))
'''


def _tournament_frame(text):
    return [line for line in text.splitlines() if line.strip().startswith(("most_cards", "greedy"))]


def test_duel_with_an_agent_from_a_file_on_two_workers(tmp_path, monkeypatch, capsys):
    """The spec path/to/file.py:Class works in-process and in joblib workers, which import
    the file themselves, with the same games (the same table) either way."""
    path = tmp_path / "my_agent.py"
    path.write_text(AGENT_FILE)
    monkeypatch.chdir(tmp_path)
    one = run_main(["duel", "my_agent.py:MostCards", "greedy", "--deals", "6", "--seed", "3", "--quiet"])
    two = run_main(["duel", "my_agent.py:MostCards", "greedy", "--deals", "6", "--seed", "3", "--quiet",
                    "--jobs", "2"])
    assert one[0] == two[0] == 0, capsys.readouterr().err
    assert "my_agent.py:MostCards (A) vs greedy (B), 6 deals" in one[1]
    assert one[1] == two[1]
    bad = run_main(["duel", "my_agent.py:Nope", "greedy", "--deals", "2"])
    assert bad[0] == 2 and "file 'my_agent.py' has no 'Nope'" in capsys.readouterr().err
    bad = run_main(["duel", "missing.py:MostCards", "greedy", "--deals", "2"])
    assert bad[0] == 2 and "agent file 'missing.py' not found" in capsys.readouterr().err


def test_agent_registered_by_name_in_a_user_file_reaches_the_workers(tmp_path):
    """A name registered by a user's file (not by ddzlab) is sent to workers as the file's
    class reference, so n_jobs=2 finds it (it used to fail with 'unknown agent')."""
    path = tmp_path / "dumper.py"
    path.write_text("from ddzlab.agents import register_agent\n" + AGENT_FILE.replace(
        "class MostCards:", '@register_agent("dumper_for_test")\nclass MostCards:'))
    from ddzlab.agents import make_agent
    from ddzlab.agents.base import portable_spec
    from ddzlab.arena import duel
    make_agent(f"{path}:MostCards")                  # importing the file registers the name
    assert portable_spec("dumper_for_test") == f"{path.resolve()}:MostCards"
    assert portable_spec("greedy") == "greedy"
    serial = duel("dumper_for_test", "greedy", 4, seed=1, progress=False)
    parallel = duel("dumper_for_test", "greedy", 4, seed=1, progress=False, n_jobs=2)
    assert serial.equals(parallel) and serial.attrs["A"] == "dumper_for_test"


def test_module_class_specs_and_entry_points(tmp_path, monkeypatch):
    from ddzlab.agents import base, make_agent
    pkg = tmp_path / "user_agents_pkg_for_test"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(AGENT_FILE)
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = make_agent("user_agents_pkg_for_test:MostCards", seed=5)
    assert agent.name == "most_cards" and agent.seed == 5
    assert base.class_reference("random:seed=3") is None
    assert base.class_reference("pkg.mod:Cls:a=1") == ("pkg.mod", "Cls", {"a": 1})

    class EntryPoint:                                   # what importlib.metadata returns
        name, value = "third_party", "user_agents_pkg_for_test:MostCards"

        def load(self):
            import user_agents_pkg_for_test
            return user_agents_pkg_for_test.MostCards
    monkeypatch.setattr(base, "_entry_points", lambda: {"third_party": EntryPoint()})
    assert "third_party" in base.available_agents()
    assert make_agent("third_party").name == "most_cards"
    assert base.describe_agents()["third_party"] == "Sheds the most cards it can."


def test_agents_lists_every_agent_with_a_line(capsys):
    from ddzlab.agents import available_agents
    code, out = run_main(["agents"])
    assert code == 0
    for name in available_agents():
        line = next(line for line in out.splitlines() if line.split()[:1] == [name])
        assert len(line.split()) > 2, line                  # a name and a description
    assert "file.py:Class" in out


def test_tournament_of_an_agent_against_itself(capsys):
    code, out = run_main(["tournament", "greedy", "greedy", "--deals", "2", "--quiet"])
    assert code == 0, capsys.readouterr().err
    assert "greedy#2" in out


def test_tournament_out_into_a_missing_folder_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    import ddzlab.arena
    monkeypatch.setattr(ddzlab.arena, "tournament", lambda *a, **k: pytest.fail("the run started"))
    code, _ = run_main(["tournament", "random", "greedy", "--deals", "2", "--out", str(tmp_path / "no" / "t.csv")])
    assert code == 2 and "does not exist" in capsys.readouterr().err
    code, _ = run_main(["tournament", "random", "greedy", "--deals", "2", "--out", str(tmp_path)])
    assert code == 2 and "is a folder" in capsys.readouterr().err


def test_play_agents_count_is_checked(capsys):
    code, _ = run_main(["play", "--players", "2", "--agents", "random", "greedy", "smallest"], "quit\n")
    assert code == 2 and "--agents got 3 specs for the 1 other seats" in capsys.readouterr().err
    code, out = run_main(["play", "--seed", "1", "--agents", "random", "greedy"], "quit\n")
    assert code == 1 and "Game abandoned" in out


def test_solve_a_flower_card_without_the_wildcard_rules_suggests_them(capsys):
    code, _ = run_main(["solve", "345678F"])
    assert code == 2 and "add --rules wildcard" in capsys.readouterr().err
    code, out = run_main(["solve", "345678F", "--rules", "wildcard"])
    assert code == 0 and out


def test_solve_into_a_closed_pipe_stops_quietly():
    proc = subprocess.run(f"{sys.executable} -m ddzlab.cli solve 33445566789TJQKA2BR | head -1",
                          shell=True, capture_output=True, text=True, timeout=120)
    assert proc.stdout.count("\n") == 1 and "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_every_error_has_the_same_prefix(capsys):
    for argv, words in ((["duel", "nobody", "greedy", "--deals", "1"], "ddzlab duel: error: unknown agent"),
                        (["train", "nope"], "ddzlab train: error: unknown trainer"),
                        (["solve", "33Z"], "ddzlab solve: error: unknown card symbol")):
        assert run_main(argv)[0] == 2
        assert capsys.readouterr().err.startswith(words), argv


def test_train_weights_never_overwrites_the_shipped_file_by_accident(tmp_path, capsys, monkeypatch):
    from ddzlab.agents.weights import TUNED_FILE
    before = TUNED_FILE.read_bytes()
    with pytest.raises(SystemExit) as exc:
        cli.main(["train", "weights", "--deals", "2", "--candidates", "1", "--out", str(TUNED_FILE)])
    assert exc.value.code == 2 and "--replace-shipped" in capsys.readouterr().err
    assert TUNED_FILE.read_bytes() == before
    monkeypatch.chdir(tmp_path)
    import ddzlab.agents.weights_train as wt
    monkeypatch.setattr(wt, "tune", lambda deals, candidates, seed, opponents: {
        "weights": wt.RuleWeights(), "search_score": 0.5, "validation_best": 0.5, "validation_start": 0.5,
        "trials": []})
    assert cli.main(["train", "weights", "--deals", "2", "--candidates", "1"]) == 0
    assert (tmp_path / "weights.json").exists() and TUNED_FILE.read_bytes() == before
    assert "weights:weights=weights.json" in capsys.readouterr().out


def test_train_qlearning_refuses_zero_games(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["train", "qlearning", "--games", "0", "--out", str(tmp_path / "q.npz")])
    assert exc.value.code == 2 and "--games must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "q.npz").exists()


def test_help_and_version_import_no_scikit_learn():
    code = ("import sys; from ddzlab import cli\n"
            "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('sklearn' in sys.modules, 'ddzlab.bidding' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert out.strip().splitlines()[-1] == "False False"


def test_rule_names_in_the_help_are_the_rule_sets():
    from ddzlab.rules import RULESETS
    assert tuple(cli.RULE_NAMES) == tuple(RULESETS)


def test_replay_a_recorded_duel_in_the_terminal(tmp_path, capsys):
    record = tmp_path / "games.jsonl"
    assert run_main(["duel", "weights", "greedy", "--deals", "2", "--quiet", "--record", str(record)])[0] == 0
    code, listing = run_main(["replay", str(record), "--list"])
    assert code == 0 and len(listing.splitlines()) == 4 and listing.startswith("game 0: weights, greedy, greedy")
    code, full = run_main(["replay", str(record), "--game", "1"])
    assert code == 0 and full.startswith("game 1: standard rules") and "result: seat" in full
    assert "rule=" in full                                     # the weights agent says which rule chose
    code, view = run_main(["replay", str(record), "--game", "1", "--seat", "1"])
    hands = [line for line in view.splitlines() if line.startswith("    seat ")]
    assert all(line.endswith("cards") for line in hands if not line.startswith("    seat 1 "))
    assert any(not line.endswith("cards") for line in hands if line.startswith("    seat 1 "))
    code, stepped = run_main(["replay", str(record), "--step"], "\n\nq\n")
    assert code == 0 and len([line for line in stepped.splitlines() if line.startswith("  seat ")]) == 3
    assert run_main(["replay", str(record), "--game", "9"])[0] == 2
    assert "has no game 9" in capsys.readouterr().err


def test_ctrl_c_while_the_command_line_imports_is_one_line(monkeypatch, capsys):
    """The console script imports `ddzlab.cli` inside a guard (`ddzlab.console`): a Ctrl-C
    during that import prints one line and exits 130, not a traceback."""
    import builtins
    import sys

    from ddzlab import console
    real = builtins.__import__

    def interrupted(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "cli" and level == 1 or name == "ddzlab.cli":
            raise KeyboardInterrupt
        return real(name, globals, locals, fromlist, level)
    monkeypatch.delitem(sys.modules, "ddzlab.cli", raising=False)
    monkeypatch.setattr(builtins, "__import__", interrupted)
    assert console.main() == 130
    assert capsys.readouterr().err == "\nddzlab: interrupted\n"


def test_experiment_status_name_shows_that_experiment_only(tmp_path, monkeypatch, capsys):
    """``ddzlab experiment status NAME``: NAME filters the table to its one row; a name that
    is neither in the catalog nor on disk is an error naming it (exit 2), not the whole table."""
    from ddzlab.experiments import CATALOG
    monkeypatch.setenv("DDZLAB_EXPERIMENTS", str(tmp_path))
    assert "06_tournament" in CATALOG and "05_strongest" in CATALOG
    assert cli.main(["experiment", "status", "06_tournament"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 2 and rows[1].split()[0] == "06_tournament"      # header and one row
    assert cli.main(["experiment", "status", "no_such_experiment"]) == 2
    captured = capsys.readouterr()
    assert "no experiment 'no_such_experiment'" in captured.err and "06_tournament" in captured.err
    assert captured.out == ""


def test_solve_prints_the_legal_leads():
    """README: `ddzlab solve` prints the legal leads. 3345 may lead 3, 4, 5 (solos) and 33
    (a pair): no chain (five ranks needed), trio or bomb."""
    code, out = run_main(["solve", "3345"])
    assert code == 0
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("legal leads:"))
    assert lines[i] == "legal leads: 4 (3 solo, 1 pair)"
    assert sorted(lines[i + 1].split()) == ["3", "33", "4", "5"]
    # 3456789TJQKA: 12 solos and the chains of 5 to 12 ranks within 3..A (8 + 7 + ... + 1 = 36)
    code, out = run_main(["solve", "3456789TJQKA"])
    line, listed = next((a, b) for a, b in zip(out.splitlines(), out.splitlines()[1:])
                        if a.startswith("legal leads:"))
    assert line == "legal leads: 48 (12 solo, 36 solo chain)"
    from ddzlab.analysis.report import LEADS_SHOWN
    shown = listed.split(" ... ")[0].split()
    assert len(shown) == LEADS_SHOWN and listed.endswith(f"... (+{48 - LEADS_SHOWN} more)")
