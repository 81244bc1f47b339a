"""Paths and run scale, named once (as cookiecutter-data-science does).

``DDZLAB_SCALE`` selects how big the notebooks' and report's runs are:
``test`` (seconds, used by the test suite), ``quick`` (the default report, minutes) or
``full`` (paper scale). Notebooks call `scaled` instead of hard-coding sizes.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

ROOT = Path(os.environ.get("DDZLAB_ROOT", Path(__file__).resolve().parents[1]))
DATA_DIR = ROOT / "data"
DEALS_DIR = DATA_DIR / "deals"
MODELS_DIR = DATA_DIR / "models"
CACHE_DIR = DATA_DIR / "cache"
FIGURES_DIR = ROOT / "figures"
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


def scaled(test: T, quick: T, full: T) -> T:
    """Pick a size by run scale: ``n_games = scaled(20, 500, 10_000)``."""
    return {"test": test, "quick": quick, "full": full}[scale()]


def figures_dir(machine: bool = False) -> Path:
    """Where figures go: `FIGURES_DIR` (or `MACHINE_FIGURES_DIR` for machine-dependent
    ones), except test-scale runs, which write to the cache so the test suite never
    overwrites the report's figures."""
    if scale() == "test":
        return CACHE_DIR / "figures-test"
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
