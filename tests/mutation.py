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

``--sample N`` (large modules: `agents/mcts`, `agents/weights`) tests a simple random sample
of N of the module's mutants instead of all of them, drawn once with ``--seed`` (default 0)
and kept in ``.mutation/<module>/sample.txt``, so a second run continues the same sample;
the score is then the sample's, with a Wilson 95 % interval for the whole module's. mutmut
runs a full run's mutants fastest first, so the tail a stopped full run leaves is the slow
code; a sample has no such bias.
"""
from __future__ import annotations

import json
import math
import os
import random
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


#: mutmut's exit codes of a decided mutant (mutmut.stats.status_by_exit_code)
KILLED, SURVIVED, TIMEOUT = {1, 3}, {0}, {36, -24, 24, 152, 255}
NO_TEST = "__ddzlab_generate_only__"      # a mutant name that matches nothing: generate, then stop


def exit_codes(work: Path, module: str) -> dict[str, object]:
    """mutmut's exit code of every generated mutant of ``module`` (None: not run yet)."""
    meta = work / "mutants" / "ddzlab" / f"{module}.py.meta"
    return json.loads(meta.read_text())["exit_code_by_key"] if meta.exists() else {}


def sample_score(codes: dict[str, object], names: list[str]) -> str:
    """Counts over the sample and the module's score estimated from it (Wilson 95 %)."""
    got = [codes.get(n) for n in names]
    killed = sum(c in KILLED or c in TIMEOUT for c in got)
    survived = sum(c in SURVIVED for c in got)
    decided, z = killed + survived, 1.96
    if not decided:
        return f"sample of {len(names)}: nothing decided yet"
    p = killed / decided
    centre = (p + z * z / (2 * decided)) / (1 + z * z / decided)
    half = z * math.sqrt(p * (1 - p) / decided + z * z / (4 * decided ** 2)) / (1 + z * z / decided)
    return (f"sample of {len(names)}: {decided} decided, {sum(c is None for c in got)} to run, "
            f"{len(names) - decided - sum(c is None for c in got)} other (no tests, suspicious); "
            f"score {killed}/{decided} = {100 * p:.1f} % (95 % Wilson [{100 * (centre - half):.1f}, "
            f"{100 * (centre + half):.1f}] % for the module)")


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in SELECTION:
        print(f"usage: mutation.py MODULE [--fresh] [--sample N [--seed S]] [mutant names...]; "
              f"MODULE one of {', '.join(SELECTION)}")
        return 2
    module, work = argv[0], scratch(argv[0])
    args = argv[1:]
    if "--fresh" in args:
        args.remove("--fresh")
        shutil.rmtree(work / "mutants", ignore_errors=True)
        (work / "sample.txt").unlink(missing_ok=True)
    sample, seed = None, 0
    if "--sample" in args:
        i = args.index("--sample")
        sample = int(args[i + 1])
        del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    env = dict(os.environ, DDZLAB_SCALE="test", MPLBACKEND="Agg")
    run = ["nice", "-n", "15", str(Path(sys.executable).parent / "mutmut"), "run", "--max-children", "1"]
    if sample is None:
        rc = subprocess.run([*run, *args], cwd=work, env=env).returncode
        print(f"{module}: {score(work)}")
        return rc
    listed = work / "sample.txt"
    if not listed.exists():
        if not exit_codes(work, module):
            subprocess.run([*run, NO_TEST], cwd=work, env=env, capture_output=True)  # fails: nothing matches
        everything = sorted(exit_codes(work, module))
        if not everything:
            raise SystemExit(f"mutmut generated no mutants of {module}")
        names = sorted(random.Random(seed).sample(everything, min(sample, len(everything))))
        listed.write_text("\n".join(names) + "\n")
    names = listed.read_text().split()
    todo = [n for n in names if exit_codes(work, module).get(n) is None]
    rc = subprocess.run([*run, *todo], cwd=work, env=env).returncode if todo else 0
    print(f"{module}: {sample_score(exit_codes(work, module), names)}")
    return rc


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
