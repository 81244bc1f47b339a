"""Mutation score of one module: `make mutation MODULE=records` (tests/MUTATION.md).

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

``--nice K`` runs mutmut at niceness K instead of 15 (the machine's other heavy jobs run at 10).

The numba kernels (`KERNELS`: the ``search/`` modules) are run the
same way with two differences. mutmut skips decorated functions, so for them mutmut is
started through `LAUNCH`, which lets it mutate a function whose only decorator is ``njit``
(the decorator itself is never mutated: it only says how to compile). And every test
process runs with ``NUMBA_DISABLE_JIT=1``: ``njit`` then returns the function unchanged, so
mutmut's trampolines, which are Python, can switch a kernel's mutant in and out, and every
mutant really runs, as its own source, with no compiled copy of the unmutated kernels to
load in its place (``NUMBA_CACHE_DIR`` points into the module's scratch directory, which
nothing is compiled into). tests/MUTATION.md says why that catches what a compiled run
catches.

``--sample N`` (large modules: `agents/mcts`, `agents/weights`) tests a simple random sample
of N mutants instead of all of them, drawn once with ``--seed`` (default 0) and kept in
``.mutation/<module>/sample.json``, so a second run continues the same sample. Drawn after a
full run was stopped, the sample is of the mutants that run left undecided (the rest), and the
module's score combines the decided part, counted in full, with the rest estimated from the
sample (a stratified estimate). mutmut runs mutants fastest first, so the rest of a stopped run
is the slow code: a score of the decided part alone would be biased. The interval is the
Wilson 95 % interval of the sample's kill rate carried to the module.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from ddzlab.stats import wilson  # noqa: E402  (the interval the project uses everywhere)

#: module (path under ddzlab/, no .py) -> the test files that exercise it (pytest arguments)
SELECTION: dict[str, list[str]] = {
    # (the parallel duel, 15 of its 28 s, is left out: loky workers per mutant)
    "records": ["tests/arena/test_records.py", "tests/arena/test_records_definitions.py",
                "--deselect", "tests/arena/test_records.py::test_parallel_duel_writes_the_same_record"],
    "arena": ["tests/arena/test_arena.py", "tests/arena/test_tournament.py", "tests/arena/test_arena_definitions.py"],
    "determinize": ["tests/search/test_determinize.py", "tests/search/test_guessers.py", "tests/search/test_determinize_definitions.py"],
    "stats": ["tests/stats/test_stats.py", "tests/stats/test_stats_definitions.py"],
    "agents/greedy": ["tests/agents/test_greedy.py"],
    "agents/smallest": ["tests/agents/test_greedy.py"],
    "agents/split_lead": ["tests/analysis/test_studies.py"],
    "agents/random_agent": ["tests/agents/test_agents.py"],
    "agents/base": ["tests/agents/test_agents.py", "tests/agents/test_agents_definitions.py", "tests/search/test_determinize.py",
                    "tests/search/test_guessers.py"],
    "agents/threshold_bidder": ["tests/agents/test_threshold_bidder.py", "tests/agents/test_threshold_bidder_definitions.py"],
    "agents/rulev1": ["tests/agents/test_rulev1.py", "tests/agents/test_rulev1_definitions.py"],
    "agents/weights": ["tests/agents/test_weights.py", "tests/agents/test_weights_definitions.py"],
    "agents/mcts": ["tests/agents/test_mcts.py", "tests/agents/test_mcts_definitions.py", "tests/agents/test_mcts_compiled_definitions.py"],
    "agents/mcts_compiled": ["tests/agents/test_mcts.py", "tests/search/test_compiled_guessing.py",
                             "tests/agents/test_mcts_compiled_definitions.py"],
    "agents/weights_compiled": ["tests/agents/test_weights_compiled.py", "tests/agents/test_weights.py"],
    "agents/weights_train": ["tests/agents/test_weights.py", "tests/agents/test_weights_train_definitions.py",
                             "tests/frontends/test_cli.py::test_train_weights_never_overwrites_the_shipped_file_by_accident"],
    "agents/bidder_train": ["tests/agents/test_bidder_train.py"],
}
# the experiments package: the stores, the runner, the protocols and the study tables
# (the kill-and-resume test is left out: its subprocesses import the unmutated package)
_EXPERIMENTS = ["tests/experiments/test_experiments.py", "tests/experiments/test_experiment_store.py",
                "--deselect", "tests/experiments/test_experiments.py::"
                "test_killed_at_random_points_then_resumed_loses_and_doubles_nothing"]
SELECTION.update({
    "experiments/tables": ["tests/experiments/test_mcts_ablations.py", "-k", "wp_row or paired_wp or holm_flags"],
    "experiments/store": ["tests/experiments/test_store_definitions.py", *_EXPERIMENTS],
    "experiments/runner": ["tests/experiments/test_runner_definitions.py", *_EXPERIMENTS],
    "experiments/protocols": ["tests/experiments/test_protocols.py",
                              "tests/experiments/test_duplicate.py::test_duplicate_table_from_the_rows_by_hand",
                              "tests/experiments/test_duplicate.py::test_bad_protocol_and_deals_are_refused_before_anything_is_stored"],
    "experiments/catalog": ["tests/experiments/test_catalog_definitions.py", "tests/experiments/test_mcts_ablations.py",
                            "tests/experiments/test_experiments.py::test_bad_experiments"],
})
# the environments: the move index, the observations, the table and its two wrappers
_ENV = ["tests/env/test_env.py", "tests/env/test_env_definitions.py"]
SELECTION.update({
    "env/index": _ENV,
    "env/encode": [*_ENV, "tests/env/test_env_douzero.py"],
    "env/table": _ENV,
    "env/single": _ENV,
    "env/aec": _ENV,
})
_COMPILED = "tests/search/test_compiled.py::"
_CHECK = [_COMPILED + "test_core_equals_python_on_random_positions[mini]",
          _COMPILED + "test_core_equals_python_on_random_positions[homework]"]
#: the numba kernels (run with the JIT off, through `LAUNCH`) -> the test files that exercise them
KERNELS: dict[str, list[str]] = {
    "search/draw": ["tests/search/test_draw.py"],
    "search/endgame": ["tests/search/test_search_endgame.py"],
    # (the wildcard posterior, 2 of the file's 3 minutes with the JIT off, is left out: the three
    # mini posteriors run the same MCMC kernel)
    "search/likelihood": ["tests/search/test_compiled_guessing.py", "--deselect",
                          "tests/search/test_compiled_guessing.py::test_mcmc_pool_follows_the_exact_posterior[wildcard-1]"],
    "search/sample": ["tests/search/test_compiled_guessing.py", "tests/agents/test_mcts_compiled_definitions.py"],
    "search/tree": ["tests/agents/test_mcts_compiled_definitions.py", "tests/agents/test_mcts_bias.py",
                    "tests/search/test_compiled.py::test_compiled_uct_values_match_the_python_loop",
                    "tests/search/test_compiled_guessing.py::test_compiled_search_values_match_the_python_loop",
                    "tests/agents/test_mcts_opponents.py::test_opponent_nodes_hold_only_the_policy_move",
                    "tests/agents/test_mcts_opponents.py::test_mixed_opponents_keep_one_child_per_move",
                    "tests/agents/test_mcts_opponents.py::test_backup_credits_the_side_of_each_move",
                    "tests/search/test_greedy_rollout.py::test_the_ismcts_root_has_one_child_per_move_of_its_filter"],
    # the equality check (tests/compiled_check.py, 1,500 positions) of the mini and homework rule sets
    # (3 and 8 s with the JIT off; the standard and wildcard checks, 22 s more, and the searches of
    # tests/search/test_compiled.py run the same kernels) and the tests that call these kernels by name
    "search/state": [*_CHECK, _COMPILED + "test_the_core_state_refuses_a_game_still_bidding",
                     "tests/search/test_kernels.py", "tests/agents/test_weights_compiled.py"],
    "search/policies": [*_CHECK, *(_COMPILED + t for t in (
        "test_greedy_rollout_bombs_only_a_player_down_to_four_cards",
        "test_split_filter_ranks_the_play_that_empties_the_hand_first",
        "test_the_core_numbers_every_move_filter_of_the_agents",
        "test_split_policy_filter_of_the_core_equals_the_python_search_where_it_adds_a_move",
        "test_rollout_steps_draw_as_their_definition[halfsolo-standard]",
        "test_rollout_steps_draw_as_their_definition[random-standard]",
        "test_rollout_steps_draw_as_their_definition[random-wildcard]")),
        "tests/search/test_greedy_rollout.py"],
    "search/power": ["tests/agents/test_weights_compiled.py", *_CHECK],
    # the move generator: the equality checks, the generator's own tests (docstring examples,
    # planes, encoding, the table's flower card and bomb tiers, the flower moves against the
    # Python generator and the rule text, the homework rules' gapped chains) and the drawn moves
    "moves/compiled": [*_CHECK, *(_COMPILED + t for t in (
        "test_docstring_examples_of_the_generator", "test_big_planes_and_their_kicker_conventions",
        "test_encode_decode_round_trip", "test_rule_sets_without_a_core_are_named",
        "test_the_table_reads_the_flower_card_and_the_bomb_tiers",
        "test_flower_moves_equal_the_python_generator_on_random_hands",
        "test_flower_moves_equal_the_rule_text_oracle", "test_encode_decode_carry_the_reading",
        "test_gapped_chains_of_the_homework_rules_against_the_rule_text")),
        "tests/search/test_draw.py"],
    "search/weights": ["tests/agents/test_weights_compiled.py", *_CHECK],
}
SELECTION.update(KERNELS)
#: mutmut's command line, started so that it also mutates a function decorated ``@njit``
#: only (mutmut skips every other decorated function); the trampoline keeps the decorator
LAUNCH = """
import sys
import libcst as cst
from mutmut.mutation import file_mutation as fm

_skip = fm.MutationVisitor._skip_node_and_children


def _njit(decorator):
    d = decorator.decorator
    d = d.func if isinstance(d, cst.Call) else d
    return isinstance(d, cst.Name) and d.value == "njit"


def _skip_kernel(self, node):
    if isinstance(node, cst.FunctionDef) and node.decorators and all(map(_njit, node.decorators)):
        position = self.get_metadata(fm.PositionProvider, node, None)
        if position and position.start.line in self._ignored_node_lines:
            self.ignored_functions.add(node.name.value)
            return True
        return False
    return _skip(self, node)


fm.MutationVisitor._skip_node_and_children = _skip_kernel
import json
from pathlib import Path
import mutmut.__main__ as mm

_store = mm.store_lines_covered_by_tests


def _store_once():
    # every `mutmut run` measures coverage again: minutes of kernels run as Python; the
    # mutants' lines are kept with the mutants instead (--fresh drops both)
    saved = Path("mutants") / "covered-lines.json"
    if saved.exists():
        covered, excluded = json.loads(saved.read_text())
        mm.state()._covered_lines = {f: set(v) for f, v in covered.items()}
        mm.state()._excluded_lines = {f: set(v) for f, v in excluded.items()}
        return
    _store()
    both = [{f: sorted(v) for f, v in (part or {}).items()}
            for part in (mm.state()._covered_lines, mm.state()._excluded_lines)]
    saved.write_text(json.dumps(both))


mm.store_lines_covered_by_tests = _store_once
sys.argv[0] = "mutmut"
mm.cli()
"""

# the Q-learning package, one module at a time (the same tests exercise all four)
for _part in ("__init__", "abstraction", "learning", "tables"):
    SELECTION[f"agents/qlearning/{_part}"] = ["tests/agents/qlearning/test_qlearning.py", "tests/agents/qlearning/test_qtables.py",
                                              "tests/agents/qlearning/test_qstudy.py",
                                              "tests/agents/qlearning/test_qlearning_agent_definitions.py",
                                              "tests/agents/qlearning/test_qlearning_learning_definitions.py",
                                              "tests/agents/qlearning/test_qtables_definitions.py",
                                              "tests/agents/qlearning/test_qlearning_abstraction_definitions.py"]


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


def sample_score(codes: dict[str, object], population: list[str], names: list[str]) -> str:
    """The module's score from the mutants outside ``population`` (counted in full) and a
    sample ``names`` of ``population`` (its killed share carried to the whole population)."""
    def tally(keys):
        got = [codes.get(k) for k in keys]
        return (sum(c in KILLED or c in TIMEOUT for c in got), sum(c in SURVIVED for c in got),
                sum(c is None for c in got))
    full = [k for k in codes if k not in set(population)]
    a, b, open_a = tally(full)
    k, sv, todo = tally(names)
    head = (f"{len(full)} counted in full ({a} killed, {b} survived, {open_a} undecided), "
            f"a sample of {len(names)} of the other {len(population)} ({k} killed, {sv} survived, {todo} to run)")
    if not k + sv:
        return head + ": no score yet"
    decided_rest = len(population) * (k + sv) / len(names)      # the rest's decided mutants, estimated
    est = [(a + decided_rest * q) / (a + b + decided_rest) for q in (k / (k + sv), *wilson(k, k + sv))]
    return head + f"; score {100 * est[0]:.1f} % (95 % [{100 * est[1]:.1f}, {100 * est[2]:.1f}] %)"


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in SELECTION:
        print(f"usage: mutation.py MODULE [--fresh] [--sample N [--seed S]] [--nice K] [mutant names...]; "
              f"MODULE one of {', '.join(SELECTION)}")
        return 2
    module, work = argv[0], scratch(argv[0])
    args = argv[1:]
    if "--fresh" in args:
        args.remove("--fresh")
        shutil.rmtree(work / "mutants", ignore_errors=True)
        (work / "sample.json").unlink(missing_ok=True)
    sample, seed = None, 0
    if "--sample" in args:
        i = args.index("--sample")
        sample = int(args[i + 1])
        del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    niceness = 15
    if "--nice" in args:                # a busier machine's share: 10 is what other heavy jobs run at
        i = args.index("--nice")
        niceness = int(args[i + 1])
        del args[i:i + 2]
    env = dict(os.environ, DDZLAB_SCALE="test", MPLBACKEND="Agg")
    mutmut = [str(Path(sys.executable).parent / "mutmut")]
    if module in KERNELS:               # the kernels as Python: mutable by mutmut, every mutant run as written
        mutmut = [sys.executable, "-c", LAUNCH]
        env.update(NUMBA_DISABLE_JIT="1", NUMBA_CACHE_DIR=str(work / "numba-cache"))
    run = ["nice", "-n", str(niceness), *mutmut, "run", "--max-children", "1"]
    if sample is None:
        rc = subprocess.run([*run, *args], cwd=work, env=env).returncode
        print(f"{module}: {score(work)}")
        return rc
    listed = work / "sample.json"
    if not listed.exists():
        if not exit_codes(work, module):
            subprocess.run([*run, NO_TEST], cwd=work, env=env, capture_output=True)  # fails: nothing matches
        codes = exit_codes(work, module)
        if not codes:
            raise SystemExit(f"mutmut generated no mutants of {module}")
        population = sorted(k for k, c in codes.items() if c is None)
        names = sorted(random.Random(seed).sample(population, min(sample, len(population))))
        listed.write_text(json.dumps({"seed": seed, "population": population, "sample": names}, indent=0))
    drawn = json.loads(listed.read_text())
    codes = exit_codes(work, module)
    todo = [n for n in drawn["sample"] if codes.get(n) is None]
    rc = subprocess.run([*run, *todo], cwd=work, env=env).returncode if todo else 0
    print(f"{module}: {sample_score(exit_codes(work, module), drawn['population'], drawn['sample'])}")
    return rc

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
