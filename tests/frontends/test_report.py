"""The report: key numbers recorded by notebooks, the collected document, the README block."""
from __future__ import annotations

import io
import json
import re

import nbformat
import pytest

from ddzlab import report
from ddzlab.config import FIGURES_DIR, ROOT
from ddzlab.report import (README_BEGIN, README_END, RESULTS_FILE, KeyNumberError, ReportError, readme_block,
                           readme_numbers, record, run_report)


def _notebook(path, *sources, intro="# title\n\nThe question."):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(intro)] + [nbformat.v4.new_code_cell(s) for s in sources]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))


def test_record_validates_and_writes_json(tmp_path, monkeypatch):
    import numpy as np
    target = tmp_path / "r.json"
    monkeypatch.setenv(report.RESULTS_ENV, str(target))
    monkeypatch.setattr(report, "_state", {"numbers": {}, "figures": [], "conclusion": None})
    assert record("acc", np.float64(0.93264), "accuracy", fmt=".3f") == 0.93264
    record("n_hands", np.int64(4048), "hands")
    report.caption("01_x.png", "A caption.")
    record("seconds", 1.25, "wall clock", machine=True)
    data = json.loads(target.read_text())
    assert data["numbers"]["seconds"]["machine"] is True
    collected = {"scale": "quick", "notebooks": [{"name": "01_x", **data}]}
    assert set(report.numbers_only(collected, machine=False)["notebooks"]["01_x"]) == {"acc", "n_hands"}
    assert set(report.numbers_only(collected)["notebooks"]["01_x"]) == {"acc", "n_hands", "seconds"}
    assert data["numbers"]["acc"] == {"value": 0.93264, "text": "accuracy", "fmt": ".3f", "shown": "0.933"}
    assert data["numbers"]["n_hands"]["shown"] == "4,048" and isinstance(data["numbers"]["n_hands"]["value"], int)
    assert data["figures"] == [{"file": "01_x.png", "caption": "A caption.", "machine": False}]
    for bad in (("Bad Key", 1, "x"), ("k", float("nan"), "x"), ("k", [1], "x"), ("k", 1, " "),
                ("k", "text", "x", ".3f")):
        with pytest.raises(KeyNumberError):
            record(*bad)
    assert isinstance(KeyNumberError("x"), ValueError)


def test_report_collects_numbers_figures_and_names_the_failing_cell(tmp_path):
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    _notebook(nbdir / "01_first.ipynb",
              "from ddzlab.report import record, conclusion\nx = record('answer', 6 * 7, 'the answer', fmt='d')",
              "conclusion(f'The answer is **{x}**.')", intro="# 01 First\n\nWhat is the answer?")
    _notebook(nbdir / "02_second.ipynb", "x = 1", "y = 2\nraise ValueError('deliberate failure')")
    log = io.StringIO()
    run_report(only=["01"], notebooks_dir=nbdir, out=log, progress=False)
    page = (tmp_path / "report" / "index.html").read_text()
    assert "What is the answer?" in page and "<strong>42</strong>" in page
    assert re.search(r"<td>the answer</td><td class='v'>42</td>", page)
    results = json.loads((tmp_path / "report" / "results.json").read_text())
    assert results["notebooks"]["01_first"]["answer"]["value"] == 42 and results["scale"] == "quick"
    with pytest.raises(ReportError, match=r"notebook 02_second.ipynb failed in cell 2 \('y = 2'\): "
                                          r"ValueError: deliberate failure"):
        run_report(only=["02"], notebooks_dir=nbdir, out=io.StringIO(), progress=False)
    assert not (tmp_path / "data").exists()      # tests never publish


def test_readme_block_matches_the_committed_results_file():
    """The README's generated block is exactly what `ddzlab report` writes from
    data/results.json (run `ddzlab report` at quick scale to refresh both)."""
    results = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    assert results["scale"] == "quick"
    assert readme_numbers(ROOT / "README.md") == readme_block(results)
    for name, numbers in results["notebooks"].items():
        assert (ROOT / "notebooks" / f"{name}.ipynb").exists(), f"{name} has no notebook"
        for key, entry in numbers.items():
            assert not entry.get("machine"), f"{key}: wall-clock numbers stay out of the committed file"
            assert entry["shown"] == report.format_value(entry["value"], entry["fmt"]), key


def test_readme_block_is_rewritten_in_place(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{README_BEGIN}\nold\n{README_END}\n\nafter\n")
    entry = {"value": 1.5, "text": "a | b", "fmt": None, "shown": "1.5"}
    results = {"scale": "quick", "notebooks": {"01_a": {"k": {**entry, "headline": True},
                                                        "other": {**entry, "text": "not a headline"}},
                                               "02_b": {"j": entry}}}
    assert report.update_readme(readme, results)
    text = readme.read_text()
    assert "| [01_a](docs/results.md#01_a) | a \\| b | 1.5 |" in text and "old" not in text
    assert "not a headline" not in text and text.endswith("after\n")
    assert "| [02_b](docs/results.md#02_b) | 1 numbers, none marked as a headline | |" in text
    assert not report.update_readme(readme, results)
    readme.write_text("no block")
    with pytest.raises(ReportError, match="no generated results block"):
        report.update_readme(readme, results)


def test_results_page_matches_the_committed_results_file():
    """docs/results.md holds every committed number and figure (`ddzlab report --regenerate`)."""
    results = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert page == report.results_page(results, FIGURES_DIR)
    for nums in results["notebooks"].values():
        for entry in nums.values():
            assert f"| {report._cell(entry['text'])} | {report._cell(entry['shown'])} |" in page


def test_committed_values_are_rounded_to_what_they_mean():
    results = json.loads(RESULTS_FILE.read_text(encoding="utf-8"))
    for nums in results["notebooks"].values():
        for key, entry in nums.items():
            assert entry["value"] == report.rounded(entry["value"]), key
    assert report.rounded(0.30000000000000004) == 0.3 and report.rounded(1178) == 1178


def test_only_one_notebook_updates_its_part_and_keeps_the_others(tmp_path):
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    code = "from ddzlab.report import record, conclusion\nrecord('x', {v}, 'the value')\nconclusion('Answer {v}.')"
    _notebook(nbdir / "01_a.ipynb", code.format(v=1), intro="# 01 A\n\nQuestion A?")
    _notebook(nbdir / "02_b.ipynb", code.format(v=2), intro="# 02 B\n\nQuestion B?")
    run_report(notebooks_dir=nbdir, out=io.StringIO(), progress=False)
    _notebook(nbdir / "02_b.ipynb", code.format(v=3), intro="# 02 B\n\nQuestion B?")
    run_report(only=["02"], notebooks_dir=nbdir, out=io.StringIO(), progress=False)
    page = (tmp_path / "report" / "index.html").read_text()
    assert "Answer 1." in page and "Answer 3." in page and "Answer 2." not in page
    assert page.index("Questions and answers") < page.index("Question A?") < page.index("Key numbers")
    results = json.loads((tmp_path / "report" / "results.json").read_text())
    assert [n["x"]["value"] for n in results["notebooks"].values()] == [1, 3]


def test_figures_are_numbered_through_the_document_and_captions_render_code(tmp_path):
    (tmp_path / "figures").mkdir()
    for name in ("01_a.png", "02_b.png"):
        (tmp_path / "figures" / name).write_bytes(b"png")
    nbs = [{"name": n, "intro": f"# {n}", "numbers": {}, "conclusion": None,
            "figures": [{"file": f"{n}.png", "caption": "Uses `code` here.", "machine": False}]}
           for n in ("01_a", "02_b")]
    page = report.write_html({"scale": "quick", "notebooks": nbs}, tmp_path / "i.html", tmp_path).read_text()
    assert "<b>Figure 1</b> <code>01_a.png</code>" in page and "<b>Figure 2</b> <code>02_b.png</code>" in page
    assert "Uses <code>code</code> here." in page and "`code`" not in page


def test_bigger_runs_write_beside_the_quick_report(tmp_path):
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    _notebook(nbdir / "01_a.ipynb", "from ddzlab.config import scaled\nfrom ddzlab.report import record\n"
                                    "record('n', scaled(1, 10, 100), 'games')")
    run_report(notebooks_dir=nbdir, out=io.StringIO(), progress=False)
    run_report(notebooks_dir=nbdir, out=io.StringIO(), progress=False, factor=4)
    quick = json.loads((tmp_path / "report" / "results.json").read_text())
    bigger = json.loads((tmp_path / "report" / "x4" / "results.json").read_text())
    assert quick["notebooks"]["01_a"]["n"]["value"] == 10 and bigger["notebooks"]["01_a"]["n"]["value"] == 40
    with pytest.raises(ReportError, match="cannot be combined with --full"):
        run_report(notebooks_dir=nbdir, out=io.StringIO(), progress=False, factor=4, full=True)


def test_a_recorded_bool_stays_a_bool():
    from ddzlab import report
    assert report.record("safe_flag_test", True, "a flag") is True
    entry = report._state["numbers"].pop("safe_flag_test")
    assert entry["value"] is True and entry["shown"] in ("True", "true", "yes")


def test_merge_results_keeps_existing_notebooks_and_drops_removed_ones(tmp_path):
    """Notebooks run now replace their entries, notebooks not run keep theirs, and a notebook
    that no longer exists is dropped; only quick-scale numbers are merged."""
    import json

    from ddzlab.report import ReportError, merge_results
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"scale": "quick", "notebooks": {
        "01_a": {"x": {"value": 1}}, "02_b": {"y": {"value": 2}}, "09_gone": {"z": {"value": 3}}}}))
    merged = merge_results(path, {"scale": "quick", "notebooks": {"02_b": {"y": {"value": 20}}}},
                           ["01_a", "02_b"])
    assert merged["notebooks"] == {"01_a": {"x": {"value": 1}}, "02_b": {"y": {"value": 20}}}
    assert json.loads(path.read_text())["notebooks"] == merged["notebooks"]
    with pytest.raises(ReportError, match="quick-scale"):
        merge_results(path, {"scale": "full", "notebooks": {}}, ["01_a"])
