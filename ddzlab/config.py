"""Paths and run scale, named once (as cookiecutter-data-science does).

``DDZLAB_SCALE`` selects how big the notebooks' and report's runs are:
``test`` (seconds, used by the test suite), ``quick`` (the default report, minutes) or
``full`` (paper scale). Notebooks call `scaled` instead of hard-coding sizes.
``DDZLAB_SCALE_FACTOR`` (``ddzlab report --factor F``) multiplies the quick sizes, up to the
full ones: a run between quick and full without editing a notebook.

Only quick-scale runs write the committed `FIGURES_DIR`; full and scaled runs write beside
it, under `run_dir` (``report/full``, ``report/x4``: git-ignored).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar, cast

T = TypeVar("T")

ROOT = Path(os.environ.get("DDZLAB_ROOT", Path(__file__).resolve().parents[1]))
DATA_DIR = ROOT / "data"
DEALS_DIR = DATA_DIR / "deals"
MODELS_DIR = DATA_DIR / "models"
CACHE_DIR = DATA_DIR / "cache"
FIGURES_DIR = ROOT / "figures"
#: the collected report (`ddzlab report`), git-ignored
REPORT_DIR = ROOT / "report"
#: figures whose content depends on the machine (wall-clock panels): kept out of the
#: committed `figures/` so that `make report` leaves the tree clean (git-ignored)
MACHINE_FIGURES_DIR = ROOT / "report" / "machine"
NOTEBOOKS_DIR = ROOT / "notebooks"

SCALES = ("test", "quick", "full")


def scale() -> str:
    """The current run scale, from ``DDZLAB_SCALE`` (default ``quick``)."""
    value = os.environ.get("DDZLAB_SCALE", "quick")
    if value not in SCALES:
        raise ValueError(f"DDZLAB_SCALE={value!r}; expected one of {', '.join(SCALES)}")
    return value


def scale_factor() -> float:
    """The multiplier of quick sizes, from ``DDZLAB_SCALE_FACTOR`` (default 1)."""
    text = os.environ.get("DDZLAB_SCALE_FACTOR", "1")
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value != value or value == float("inf"):
        raise ValueError(f"DDZLAB_SCALE_FACTOR={text!r}; expected a number > 0")
    return value


def scaled(test: T, quick: T, full: T) -> T:
    """Pick a size by run scale: ``n_games = scaled(20, 500, 10_000)``. With a scale factor
    (quick scale only) a numeric quick size is multiplied by it, but never beyond ``full``."""
    s = scale()
    factor = scale_factor() if s == "quick" else 1.0
    if factor == 1.0 or isinstance(quick, bool) or not isinstance(quick, (int, float)):
        return {"test": test, "quick": quick, "full": full}[s]
    q = float(quick)
    value = q * factor
    if isinstance(full, (int, float)) and not isinstance(full, bool) and q <= full < value:
        value = full
    return cast(T, int(round(value)) if isinstance(quick, int) else value)


#: set to read the user runs of the stored experiments instead of the published stores
#: (``ddzlab report --user-runs``; `ddzlab.experiments.load_games`)
USER_RUNS_ENV = "DDZLAB_USER_RUNS"


def run_dir() -> Path:
    """Where a run's report goes: `REPORT_DIR` at quick scale, ``report/full`` at full scale,
    ``report/xF`` for a quick run scaled by F, ``report/user`` for a quick run that reads the
    user runs of the experiments (``DDZLAB_USER_RUNS``, ``ddzlab report --user-runs``)."""
    s = scale()
    if s == "full":
        return REPORT_DIR / "full"
    factor = scale_factor() if s == "quick" else 1.0
    if factor != 1.0:
        return REPORT_DIR / f"x{factor:g}"
    return REPORT_DIR / "user" if os.environ.get(USER_RUNS_ENV) else REPORT_DIR


def figures_dir(machine: bool = False) -> Path:
    """Where figures go: `FIGURES_DIR` (or `MACHINE_FIGURES_DIR` for machine-dependent
    ones) at quick scale; beside them, in `run_dir`, for full and scaled runs; test-scale
    runs write to the cache so the test suite never overwrites the report's figures."""
    if scale() == "test":
        return CACHE_DIR / "figures-test"
    if run_dir() != REPORT_DIR:
        return run_dir() / ("machine" if machine else "figures")
    return MACHINE_FIGURES_DIR if machine else FIGURES_DIR


def savefig(fig, name: str, machine: bool = False) -> Path:
    """Save a matplotlib figure byte-for-byte reproducibly (no timestamps) into `figures_dir`.

    ``machine=True`` marks a figure that shows wall-clock times (it differs from machine to
    machine and run to run): it goes to `MACHINE_FIGURES_DIR`, outside the committed tree."""
    folder = figures_dir(machine)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    meta = {"Software": None} if path.suffix == ".png" else {"Creator": None, "CreationDate": None}
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata=meta)
    return path
