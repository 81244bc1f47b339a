"""Mutation score of the compiled core: `make mutation-core` (tests/MUTATION.md).

mutmut skips decorated functions, so it cannot mutate the numba kernels (``@njit``).
cosmic-ray mutates a module's source whatever it holds; with ``NUMBA_DISABLE_JIT=1`` the
kernels run as the Python they are written in, so a mutated kernel needs no recompile. This
script copies ``ddzlab/`` and ``tests/`` into ``.mutation/core/`` (cosmic-ray edits the files
it mutates in place), builds a cosmic-ray session over the kernel modules (`MODULES`) with
the mutation operators of mutmut's kind (`OPERATORS`: an operator swapped for its neighbour,
a number changed, a condition negated, a loop emptied; not every operator for every other,
most of which any test kills), keeps a seeded random sample of them (`--sample`: the full
set takes a day here) and runs it against `tests/compiled_check.py` (the core against its
Python references, position by position) and, when the check passes, the compiled test
files (`STAGE_TWO`: rollout laws, search values, guessing, hand-built edge positions), all
with the JIT off. Prints the counts and the score, killed over
killed + survived (timeouts count as killed), for the sample and per module. The session
(``.mutation/core/session.sqlite``) is kept: run it again and it continues.

    python tests/mutation_core.py [--sample 320] [--seed 2026] [--positions 1500]
    python tests/mutation_core.py --group loops [--sample 100]

``--group loops`` mutates the search loops instead (`LOOPS`: the UCT and ISMCTS iterations,
world sampling, the likelihood guessers, the endgame solver), which the equality check does
not reach: each mutant runs the test files of the module it mutates (`LOOP_TESTS`, JIT off,
about three CPU minutes for all of them unmutated), in ``.mutation/loops/``.

The default check is the suite's (tests/search/test_compiled.py: 1,500 positions, seed 3, standard
and mini rules), about half a CPU minute a mutant; ``--positions 300`` is a screen on the
standard rules alone, several times cheaper but blind to much the suite sees (a lower bound).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the kernel modules compared by tests/compiled_check.py
MODULES = ["ddzlab/moves/compiled.py", "ddzlab/search/state.py", "ddzlab/search/policies.py",
           "ddzlab/search/power.py", "ddzlab/search/weights.py"]
#: the compiled tests a mutant that passes the check must also pass (run with the JIT off)
STAGE_TWO = ["tests/search/test_compiled.py", "tests/agents/test_weights_compiled.py", "tests/search/test_compiled_guessing.py",
             "tests/agents/test_mcts.py"]
#: the search loops and the test files that exercise each, run for a mutant of that module
LOOP_TESTS = {
    "ddzlab/search/tree.py": ["tests/agents/test_mcts_compiled_definitions.py", "tests/agents/test_mcts_bias.py",
                              "tests/search/test_compiled.py"],
    "ddzlab/search/sample.py": ["tests/search/test_compiled.py", "tests/search/test_compiled_guessing.py",
                                "tests/agents/test_mcts_compiled_definitions.py"],
    "ddzlab/search/likelihood.py": ["tests/search/test_compiled_guessing.py"],
    "ddzlab/search/endgame.py": ["tests/search/test_search_endgame.py"],
}
LOOPS = list(LOOP_TESTS)
#: cosmic-ray operators of mutmut's kind (neighbour swaps, numbers, negations, empty loops)
OPERATORS = {f"core/{name}" for name in (
    "ReplaceBinaryOperator_Add_Sub", "ReplaceBinaryOperator_Sub_Add", "ReplaceBinaryOperator_Mul_Div",
    "ReplaceBinaryOperator_Div_Mul", "ReplaceBinaryOperator_FloorDiv_Mul", "ReplaceBinaryOperator_Mod_FloorDiv",
    "ReplaceBinaryOperator_BitAnd_BitOr", "ReplaceBinaryOperator_BitOr_BitAnd",
    "ReplaceBinaryOperator_LShift_RShift", "ReplaceBinaryOperator_RShift_LShift",
    "ReplaceComparisonOperator_Lt_LtE", "ReplaceComparisonOperator_LtE_Lt", "ReplaceComparisonOperator_Gt_GtE",
    "ReplaceComparisonOperator_GtE_Gt", "ReplaceComparisonOperator_Eq_NotEq", "ReplaceComparisonOperator_NotEq_Eq",
    "ReplaceComparisonOperator_Is_IsNot", "ReplaceComparisonOperator_IsNot_Is", "NumberReplacer",
    "ReplaceAndWithOr", "ReplaceOrWithAnd", "AddNot", "ReplaceTrueWithFalse", "ReplaceFalseWithTrue",
    "ZeroIterationForLoop", "ReplaceBreakWithContinue", "ReplaceContinueWithBreak",
    "ReplaceUnaryOperator_USub_UAdd", "ReplaceUnaryOperator_Delete_USub", "ReplaceUnaryOperator_Delete_Not")}


def mutated(work: Path) -> str:
    """The module of `LOOPS` whose copy in ``work`` differs from the source (cosmic-ray
    mutates one file in place per mutant)."""
    for module in LOOPS:
        if (work / module).read_bytes() != (ROOT / module).read_bytes():
            return module
    raise SystemExit("no module of LOOPS differs from its source: nothing is mutated")


def check_loops(work: Path) -> int:
    """Run the test files of the mutated loop module with the JIT off (the mutant's check)."""
    tests = LOOP_TESTS[mutated(work)]
    env = {**os.environ, "PYTHONPATH": str(work), "NUMBA_DISABLE_JIT": "1", "PYTHONDONTWRITEBYTECODE": "1",
           "DDZLAB_SCALE": "test", "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:nbmake",
                           "-o", "addopts=", *tests], cwd=work, env=env).returncode


def setup(positions: int, group: str = "kernels") -> Path:
    """A fresh copy of the sources and tests in the group's work folder and the session's config."""
    work = work_dir(group)
    work.mkdir(parents=True, exist_ok=True)
    for name in ("ddzlab", "tests"):
        if not (work / name).exists():
            shutil.copytree(ROOT / name, work / name, ignore=shutil.ignore_patterns("__pycache__"))
    data = work / "data"
    if not data.is_symlink():
        data.symlink_to(ROOT / "data")
    rules = "standard mini" if positions >= 1500 else "standard"
    run = f"env PYTHONPATH={work} NUMBA_DISABLE_JIT=1 PYTHONDONTWRITEBYTECODE=1 {sys.executable}"
    steps = [f"{run} tests/compiled_check.py --positions {positions} --rules {rules} --seed 3"]
    if positions >= 1500:               # then what else the compiled tests assert, JIT off too
        steps.append(f"{run} -m pytest -q -x -p no:cacheprovider -p no:nbmake -o addopts= {' '.join(STAGE_TWO)}")
    if group == "loops":
        steps = [f"{sys.executable} {ROOT / 'tests' / 'mutation_core.py'} --check-loops {work}"]
    script = work / "check_mutant.sh"
    script.write_text("#!/bin/sh\nset -e\n" + "\n".join(steps) + "\n")
    command = f"sh {script}"
    config = work / "core.toml"
    config.write_text("[cosmic-ray]\n"
                      f"module-path = {GROUPS[group]!r}\n".replace("'", '"')
                      + "timeout = 1200.0\nexcluded-modules = []\n"
                      + f"test-command = {command!r}\n".replace("'", '"')
                      + '\n[cosmic-ray.distributor]\nname = "local"\n')
    return config


#: the module lists of the two groups
GROUPS = {"kernels": MODULES, "loops": LOOPS}


def work_dir(group: str) -> Path:
    """Where a group's copy and session live: ``.mutation/core/`` (kernels) or ``.mutation/loops/``."""
    return ROOT / ".mutation" / ("core" if group == "kernels" else group)


def sample(session: Path, size: int, seed: int) -> None:
    """Keep a seeded random sample of `size` mutants of `OPERATORS` in a new session."""
    db = sqlite3.connect(session)
    rows = db.execute("select job_id, operator_name, module_path, occurrence from mutation_specs").fetchall()
    # ordered by what defines a mutant (job ids are random): the same source, the same sample
    eligible = sorted((module, op, occurrence, job) for job, op, module, occurrence in rows if op in OPERATORS)
    keep = {m[-1] for m in random.Random(seed).sample(eligible, min(size, len(eligible)))}
    drop = [(job,) for job, *_ in rows if job not in keep]
    db.executemany("delete from mutation_specs where job_id = ?", drop)
    db.executemany("delete from work_items where job_id = ?", drop)
    db.commit()
    print(f"{len(keep)} of {len(eligible)} mutants of mutmut's kind ({len(rows)} of every kind), seed {seed}")


def report(session: Path, modules: list[str]) -> None:
    db = sqlite3.connect(session)
    rows = db.execute("select m.module_path, r.test_outcome from mutation_specs m "
                      "left join work_results r on r.job_id = m.job_id").fetchall()
    for module in [None, *modules]:
        part = [o for m, o in rows if module is None or m == module]
        killed = sum(o == "KILLED" for o in part)
        survived = sum(o == "SURVIVED" for o in part)
        left = sum(o is None for o in part)
        other = len(part) - killed - survived - left          # incompetent: no valid module
        done = killed + survived
        score = f"{killed}/{done} = {100 * killed / done:.1f} %" if done else "n/a"
        print(f"{module or 'the sample'}: killed {killed}, survived {survived}, not run {left}, "
              f"incompetent {other}; score {score}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=320)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--positions", type=int, default=1500)
    ap.add_argument("--group", choices=sorted(GROUPS), default="kernels")
    ap.add_argument("--check-loops", type=Path, help=argparse.SUPPRESS)   # one mutant's check (cosmic-ray runs it)
    args = ap.parse_args()
    if args.check_loops:
        sys.exit(check_loops(args.check_loops))
    work = work_dir(args.group)
    config, session = setup(args.positions, args.group), work / "session.sqlite"
    cr = [str(Path(sys.executable).parent / "cosmic-ray")]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    if not session.exists():
        subprocess.run([*cr, "init", str(config), str(session)], cwd=work, check=True, env=env)
        sample(session, args.sample, args.seed)
    subprocess.run(["nice", "-n", "15", *cr, "exec", str(config), str(session)], cwd=work, check=True, env=env)
    report(session, GROUPS[args.group])


if __name__ == "__main__":
    main()
