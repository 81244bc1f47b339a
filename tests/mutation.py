"""Mutation score of one module: `make mutation MODULE=records` (issue 22; tests/MUTATION.md).

mutmut reads its settings from ./pyproject.toml only, and its first pass runs every selected
test, so a run over the whole package against the whole suite takes hours on two cores.
This script gives each module its own scratch directory, ``.mutation/<module>/``: links to
ddzlab/, tests/ and data/ and a pyproject.toml whose ``[tool.mutmut]`` mutates that module
only, against only the test files that exercise it (`SELECTION`, found by grep and
coverage). There it runs ``mutmut run`` niced with one child; mutmut keeps its results in
``.mutation/<module>/mutants/``, so a second run continues where the first stopped (and
reruns nothing already decided; name mutants after the module to rerun them:
``make mutation MODULE=records ARGS="ddzlab.records.x_read_game__mutmut_3"``). Naming
mutants is for new tests against an unchanged module: after the module's source changed,
mutmut regenerates its mutants from the coverage of the named ones only (a partial set), so
start afresh with ``ARGS=--fresh`` (drops ``.mutation/<module>/mutants``).
Prints the counts and the score: killed (timeouts counted as killed) over killed + survived;
"no tests" (lines no selected test executes) are reported apart.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: module (path under ddzlab/, no .py) -> the test files that exercise it (pytest arguments)
SELECTION: dict[str, list[str]] = {
    # (the parallel duel, 15 of its 28 s, is left out: loky workers per mutant)
    "records": ["tests/test_records.py", "tests/test_records_definitions.py",
                "--deselect", "tests/test_records.py::test_parallel_duel_writes_the_same_record"],
    "arena": ["tests/test_arena.py", "tests/test_tournament.py", "tests/test_arena_definitions.py"],
    "determinize": ["tests/test_determinize.py", "tests/test_guessers.py", "tests/test_determinize_definitions.py"],
    "stats": ["tests/test_stats.py", "tests/test_definitions.py", "tests/test_stats_definitions.py"],
    "agents/greedy": ["tests/test_agent_greedy.py"],
    "agents/smallest": ["tests/test_agent_greedy.py"],
    "agents/split_lead": ["tests/test_studies.py"],
    "agents/random_agent": ["tests/test_agents.py"],
    "agents/base": ["tests/test_agents.py", "tests/test_agents_definitions.py", "tests/test_determinize.py",
                    "tests/test_guessers.py"],
    "agents/threshold_bidder": ["tests/test_bidding_agents.py", "tests/test_threshold_bidder_definitions.py"],
    "agents/rulev1": ["tests/test_agent_rulev1.py", "tests/test_rulev1_definitions.py"],
    "agents/weights": ["tests/test_agent_weights.py"],
    "agents/mcts": ["tests/test_mcts.py"],
    "agents/mcts_compiled": ["tests/test_mcts.py", "tests/test_compiled_guessing.py"],
    "agents/weights_compiled": ["tests/test_weights_compiled.py", "tests/test_agent_weights.py"],
    "agents/weights_train": ["tests/test_agent_weights.py", "tests/test_cli.py::test_train_weights_never_overwrites_the_shipped_file_by_accident"],
    "agents/bidder_train": ["tests/test_train_cli.py"],
}


def config(module: str) -> str:
    """The project's pyproject.toml with a ``[tool.mutmut]`` for ``module`` alone."""
    text = (ROOT / "pyproject.toml").read_text()
    section = "\n".join([
        "[tool.mutmut]",
        'source_paths = ["ddzlab/"]',
        f'only_mutate = ["ddzlab/{module}.py"]',
        f"pytest_add_cli_args_test_selection = {SELECTION[module]!r}".replace("'", '"'),
        'also_copy = ["data/", "tests/"]',
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-p", "no:nbmake", "-o", "addopts=", "-q", "-x"]',
        "mutate_only_covered_lines = true",
        # forked once warm; a child the tests leave (a loky worker) does not stop the run
        'process_isolation = "forkserver"',
        "",
    ])
    out, n = re.subn(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[|\Z)", section + "\n", text)
    if n != 1:
        raise SystemExit("pyproject.toml has no [tool.mutmut] section to replace")
    return out


def scratch(module: str) -> Path:
    """``.mutation/<module>/``: links to the sources and tests, the module's own settings."""
    work = ROOT / ".mutation" / module.replace("/", "_")
    work.mkdir(parents=True, exist_ok=True)
    for name in ("ddzlab", "tests", "data"):
        link = work / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    (work / "pyproject.toml").write_text(config(module))
    return work


def score(work: Path) -> str:
    """Counts by status and the score, from ``mutmut results --all true``."""
    out = subprocess.run([str(Path(sys.executable).parent / "mutmut"), "results", "--all", "true"],
                         cwd=work, capture_output=True, text=True, check=True).stdout
    counts = Counter(line.rsplit(": ", 1)[1].strip() for line in out.splitlines() if ": " in line)
    killed = counts["killed"] + counts["timeout"]
    decided = killed + counts["survived"]
    pct = f"{100 * killed / decided:.1f} %" if decided else "n/a"
    return f"{dict(sorted(counts.items()))}; score {killed}/{decided} = {pct} (timeouts as killed)"


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in SELECTION:
        print(f"usage: mutation.py MODULE [--fresh] [mutant names...]; MODULE one of {', '.join(SELECTION)}")
        return 2
    work = scratch(argv[0])
    if "--fresh" in argv:
        argv = [a for a in argv if a != "--fresh"]
        shutil.rmtree(work / "mutants", ignore_errors=True)
    env = dict(os.environ, DDZLAB_SCALE="test", MPLBACKEND="Agg")
    mutmut = str(Path(sys.executable).parent / "mutmut")
    rc = subprocess.run(["nice", "-n", "15", mutmut, "run", "--max-children", "1", *argv[1:]],
                        cwd=work, env=env).returncode
    print(f"{argv[0]}: {score(work)}")
    return rc


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
