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
