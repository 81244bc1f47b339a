"""The report: execute every numbered notebook in order, at a chosen run scale.

``notebooks/NN_*.ipynb`` are run with papermill (kernel ``python3``) in the notebooks
folder, with ``DDZLAB_SCALE`` set to ``quick`` (or ``full``) in the kernel's environment;
executed copies go to ``notebooks/executed/`` (git-ignored). The notebooks write their
own figures into ``figures/`` through `ddzlab.config.savefig`. A failing notebook stops
the run with a `ReportError` naming it and the error it raised.
"""
from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import Optional, Sequence, TextIO

from .config import NOTEBOOKS_DIR, SCALES

NOTEBOOK_PATTERN = re.compile(r"^(\d\d)_.*\.ipynb$")


class ReportError(RuntimeError):
    """A notebook of the report failed (or none matched the selection)."""


def find_notebooks(notebooks_dir: Path = NOTEBOOKS_DIR,
                   only: Optional[Sequence[str]] = None) -> list[Path]:
    """``NN_*.ipynb`` in ``notebooks_dir`` sorted by name, optionally only numbers ``only``."""
    found = sorted(p for p in Path(notebooks_dir).iterdir()
                   if p.is_file() and NOTEBOOK_PATTERN.match(p.name))
    if only:
        wanted = {str(o).zfill(2) for o in only}
        found = [p for p in found if NOTEBOOK_PATTERN.match(p.name).group(1) in wanted]
    return found


def run_report(full: bool = False, only: Optional[Sequence[str]] = None,
               notebooks_dir: Optional[Path] = None, out_dir: Optional[Path] = None,
               scale: Optional[str] = None, kernel: str = "python3",
               timeout: Optional[int] = None, out: Optional[TextIO] = None) -> list[Path]:
    """Execute the notebooks in order; return the executed copies' paths.

    ``scale`` overrides the run scale (``quick``, or ``full`` with ``full=True``).
    Raises `ReportError` naming the notebook that failed.
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError

    out = out or sys.stdout
    notebooks_dir = Path(notebooks_dir or NOTEBOOKS_DIR)
    out_dir = Path(out_dir or notebooks_dir / "executed")
    scale = scale or ("full" if full else "quick")
    if scale not in SCALES:
        raise ReportError(f"unknown scale {scale!r}; expected one of {', '.join(SCALES)}")
    notebooks = find_notebooks(notebooks_dir, only) if notebooks_dir.exists() else []
    if not notebooks:
        if only:
            raise ReportError(f"no notebook numbered {', '.join(only)} in {notebooks_dir}")
        print(f"no numbered notebooks (NN_*.ipynb) in {notebooks_dir}: nothing to run", file=out)
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    saved = {k: os.environ.get(k) for k in ("DDZLAB_SCALE", "MPLBACKEND")}
    os.environ["DDZLAB_SCALE"] = scale
    os.environ.setdefault("MPLBACKEND", "Agg")
    done: list[Path] = []
    try:
        for i, nb in enumerate(notebooks, 1):
            target = out_dir / nb.name
            print(f"[{i}/{len(notebooks)}] {nb.name} (scale {scale}) ...", end=" ", file=out,
                  flush=True)
            start = time.perf_counter()
            try:
                papermill.execute_notebook(str(nb), str(target), kernel_name=kernel,
                                           cwd=str(notebooks_dir), progress_bar=False,
                                           execution_timeout=timeout)
            except PapermillExecutionError as e:
                print("FAILED", file=out, flush=True)
                raise ReportError(f"notebook {nb.name} failed in cell {e.exec_count}: "
                                  f"{e.ename}: {e.evalue} (executed copy: {target})") from None
            except Exception as e:   # kernel died, bad JSON, missing kernel ...
                print("FAILED", file=out, flush=True)
                raise ReportError(f"notebook {nb.name} could not be run: "
                                  f"{type(e).__name__}: {e}") from None
            print(f"ok ({time.perf_counter() - start:.1f} s)", file=out, flush=True)
            done.append(target)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    print(f"report done: {len(done)} notebook(s), executed copies in {out_dir}", file=out)
    return done


__all__ = ["run_report", "find_notebooks", "ReportError", "NOTEBOOK_PATTERN"]
