"""The documents a newcomer reads: links that resolve, a conda file that matches pyproject,
an agent template that plays."""
from __future__ import annotations

import re
import tomllib

from ddzlab.config import ROOT


def test_readme_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert {"docs/rules.md", "docs/results.md", "benchmarks/README.md", "LICENSE"} <= set(links)
    missing = [link for link in links if not link.startswith("http") and not (ROOT / link).exists()]
    assert not missing, missing
    assert "REFERENCE" not in text and "seed 00" not in text


def test_environment_yml_lists_every_dependency_and_no_torch():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extra in ("dev", "notebooks", "peers", "env"):
        wanted += project["optional-dependencies"][extra]
    names = {re.split(r"[<>=\[ ;]", req, maxsplit=1)[0].lower() for req in wanted}
    env = (ROOT / "environment.yml").read_text(encoding="utf-8")
    listed = {m.lower() for m in re.findall(r"^\s+- ([A-Za-z0-9_.-]+)", env, re.M)}
    assert names - listed == set(), f"in pyproject, not in environment.yml: {sorted(names - listed)}"
    assert "pytorch" not in listed and "torch" not in listed


def test_the_agent_template_plays_a_duel():
    from ddzlab.arena import duel
    table = duel(str(ROOT / "docs" / "my_agent.py") + ":MostCards", "greedy", 2, progress=False)
    assert int(table.loc["combined", "n"]) == 4


def test_constraints_pin_every_dependency():
    """make setup installs with -c constraints.txt: a dependency missing there would make the
    committed figures depend on whatever version a fresh install picks."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extras in project["optional-dependencies"].values():
        wanted += extras

    def norm(name):
        return re.sub(r"[-_.]+", "-", name).lower()
    names = {norm(re.split(r"[<>=\[ ;]", req, maxsplit=1)[0]) for req in wanted}
    pinned = {norm(line.split("==")[0]) for line in (ROOT / "constraints.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    assert names <= pinned, f"not pinned in constraints.txt (run `make constraints`): {sorted(names - pinned)}"


def test_the_agent_template_plays_in_the_terminal_and_is_named_by_its_file(tmp_path, capsys):
    import io

    from ddzlab import cli
    from ddzlab.records import read_records
    spec = str(ROOT / "docs" / "my_agent.py") + ":MostCards"
    out = io.StringIO()
    assert cli.main(["play", "--seed", "1", "--agents", spec, "greedy"], stdin=io.StringIO("quit\n"), stdout=out) == 1
    assert "Game abandoned" in out.getvalue(), capsys.readouterr().err
    record = tmp_path / "g.jsonl"
    assert cli.main(["duel", spec, "greedy", "--deals", "1", "--quiet", "--record", str(record)],
                    stdout=io.StringIO()) == 0
    header, games = read_records(record)
    assert header.agents[0] == "my_agent.py:MostCards" and games[0].seats[0] == "my_agent.py:MostCards"


# -- cited paths exist; no internal words ---------------------------------------------
#: occurrences in files this branch may not edit (their owner fixes them): file -> the text still
#: there. The test fails once the text is gone, so the entry is removed with the fix.
PENDING: dict[str, str] = {}
_TOP = ("ddzlab", "docs", "tests", "benchmarks", "data", "notebooks", "figures")
_CITED = re.compile(r"(?<![\w/.:-])((?:%s)/[\w./-]*\.\w+)(#[\w-]+)?(?![\w*<{])" % "|".join(_TOP))


def _documents() -> list:
    files = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]
    for pattern in ("ddzlab/**/*.py", "docs/*.md", "docs/*.py", "benchmarks/*.py", "tests/**/*.py", "tests/**/*.md"):
        files += sorted(ROOT.glob(pattern))
    return files


def _anchors(path) -> set:
    """GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to -."""
    heads = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def _problems(text: str, where: str, base) -> list:
    out = []
    for m in _CITED.finditer(text):
        path, anchor = m.group(1).rstrip("."), m.group(2)
        target = ROOT / path
        if re.search(r"(^|[/_])[A-Z]{2,}[_./]", path) and not target.exists():
            continue                                          # a placeholder: data/models/bidder_MODEL.json
        if "/__pycache__/" in path:
            continue                                          # made by a run, never in a clone
        if not target.exists():
            out.append(f"{where}: {path} does not exist")
        elif anchor and target.suffix == ".md" and not where.startswith("tests/") \
                and anchor[1:] not in _anchors(target):             # (tests' anchors are made-up data)
            out.append(f"{where}: {path}{anchor}: no such heading")
    if where.endswith(".md"):                                 # relative Markdown links
        for link, anchor in re.findall(r"\]\(([^)#:\s]+\.md)(#[^)]*)?\)", text):
            target = (base / link).resolve()
            if not target.exists():
                out.append(f"{where}: link {link} does not exist")
            elif anchor and anchor[1:] not in _anchors(target):
                out.append(f"{where}: link {link}{anchor}: no such heading")
    return out


def test_every_repository_path_a_doc_or_docstring_cites_exists():
    """A path such as ``tests/compiled_check.py`` or ``docs/definitions.md#greedy-split`` in a
    docstring, comment or document names a file of the repository (and, for Markdown, one of
    its headings); globs and placeholders (``bench_*.py``, ``NAME``) are not paths."""
    problems = []
    for file in _documents():
        rel = file.relative_to(ROOT).as_posix()
        if rel == "tests/project/test_docs.py":                       # this file's made-up examples
            continue
        text = file.read_text(encoding="utf-8")
        pending = PENDING.get(rel)
        if pending and _CITED.search(pending):
            assert pending in text, f"{rel} no longer cites {pending}: remove it from PENDING"
            text = text.replace(pending, "")
        problems += _problems(text, rel, file.parent)
    assert not problems, "\n".join(problems)


def test_no_document_or_docstring_names_a_file_outside_the_repository():
    """The package, docs and README say things in the project's own words and link to
    docs/ for definitions; they never point at REFERENCE (a file not in the repository)."""
    files = [ROOT / "README.md", *sorted(ROOT.glob("ddzlab/**/*.py")), *sorted(ROOT.glob("docs/*"))]
    found = []
    for file in files:
        rel = file.relative_to(ROOT).as_posix()
        text = file.read_text(encoding="utf-8")
        if PENDING.get(rel) == "REFERENCE":
            assert re.search(r"\bREFERENCE\b", text), f"{rel} no longer says REFERENCE: remove it from PENDING"
            continue
        found += [f"{rel}:{text[:m.start()].count(chr(10)) + 1}" for m in re.finditer(r"\bREFERENCE\b", text)]
    assert not found, found
    assert (ROOT / "docs" / "definitions.md").exists()


def test_the_doc_path_checker_finds_what_it_should():
    """The checker itself, on made-up text: a missing file, a missing heading, and what it skips."""
    text = ("see tests/compiled_check.py and docs/rules.md#sources; not benchmarks/check_compiled.py, "
            "nor docs/rules.md#no-such-part; skipped: benchmarks/bench_*.py, data/models/bidder_MODEL.json, "
            "ddzlab/search/__pycache__/not-made-yet.sha1")
    assert _problems(text, "ddzlab/x.py", ROOT) == [
        "ddzlab/x.py: benchmarks/check_compiled.py does not exist",
        "ddzlab/x.py: docs/rules.md#no-such-part: no such heading"]


def test_the_readme_defines_every_agent_in_one_sentence():
    """The README named agents (`rulev1`, `weights`, ...) without saying what they
    do. Its agent table has one row per agent `ddzlab agents` lists, each one sentence, and
    every agent name the README mentions is among them."""
    from ddzlab.agents import available_agents
    from ddzlab.agents.base import _factory
    ours = {n for n in available_agents()                     # not those other tests register
            if (getattr(_factory(n), "__module__", "") or "").startswith("ddzlab.")}
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z_0-9]+)` \| (.+?) \|$", text, re.M))
    assert len(ours) >= 15 and set(rows) == ours
    for name, sentence in rows.items():
        plain = re.sub(r"\]\([^)]*\)", "]", sentence)          # a link's target is not prose
        assert plain.endswith(".") and plain.count(". ") == 0, f"{name}: {sentence}"
    named = set(re.findall(r"`([a-z_0-9]+)(?::[^`]*)?`", text)) & ours
    assert named <= set(rows)


def test_every_notebook_is_valid_nbformat_with_cell_ids():
    """Notebooks are nbformat 4.5 documents: every cell has a unique ``id`` (a cell added
    without one makes nbformat warn on every run, and fail in its future versions)."""
    import json

    import nbformat
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        ids = [cell.get("id") for cell in raw["cells"]]
        assert None not in ids, f"{path.name}: cell {ids.index(None)} has no id"
        assert len(set(ids)) == len(ids), f"{path.name}: duplicate cell ids"
        nbformat.validate(raw)
