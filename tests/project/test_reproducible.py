"""Reproducible: a figure made twice is identical, byte for byte.

Every random process of a notebook takes a seed and `ddzlab.config.savefig` writes no
timestamp, so running a notebook again must rewrite its figures unchanged. Checked on the
notebooks that are cheap at test scale and draw from seeded searches and games (02: seeded
hands and the stored-study code on a tiny grid; 07: seeded hands and the experiment runner on
a few deals), each run twice through the report's own runner.
"""
import json

import pytest

from ddzlab.config import figures_dir
from ddzlab.report import run_report


def _figures_of_a_run(number: str, folder) -> dict[str, bytes]:
    """Run notebook ``number`` at test scale; the bytes of every figure it captioned."""
    with open(folder / "log.txt", "w") as log:
        executed = run_report(only=[number], scale="test", out_dir=folder, report_dir=folder / "report",
                              publish=False, progress=False, out=log)
    figures = json.loads(executed[0].with_suffix(".results.json").read_text())["figures"]
    return {f["file"]: (figures_dir(f["machine"]) / f["file"]).read_bytes() for f in figures}


@pytest.mark.parametrize("number", ["02", "07"])
def test_a_notebook_run_twice_draws_the_same_figures(number, tmp_path, monkeypatch):
    monkeypatch.setenv("DDZLAB_SCALE", "test")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _figures_of_a_run(number, tmp_path / "a")
    second = _figures_of_a_run(number, tmp_path / "b")
    assert first, f"notebook {number} captioned no figure"
    assert sorted(first) == sorted(second)
    changed = [name for name in first if first[name] != second[name]]
    assert not changed, f"drawn differently the second time: {changed}"
