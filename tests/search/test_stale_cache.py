"""The core's cached kernels are dropped when any of its sources changed, also where
``NUMBA_CACHE_DIR`` puts them (numba checks only each kernel's own file, while a kernel's
cached code holds the kernels it calls from other files)."""
from __future__ import annotations

import hashlib

from numba.core import config

from ddzlab import search


def test_stale_kernels_under_numba_cache_dir_are_dropped_and_fresh_ones_kept(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    src = next(p for p in search.SOURCES if p.name == "compiled.py")
    folder = search.cache_folders(src)[-1]
    assert tmp_path in folder.parents and folder.name.startswith("moves_")
    folder.mkdir(parents=True)
    stale = folder / f"{src.stem}.lead_moves-120.py311.nbi"
    other = folder / "unrelated.f-1.py311.nbi"           # not a core source's kernel: never touched
    stale.write_bytes(b"old")
    other.write_bytes(b"x")
    (folder / "core-sources.sha1").write_text("0" * 40)    # cached under other sources
    search._drop_stale_cache()
    assert not stale.exists() and other.exists()
    digest = hashlib.sha1(b"".join(p.read_bytes() for p in search.SOURCES)).hexdigest()
    assert (folder / "core-sources.sha1").read_text() == digest
    stale.write_bytes(b"new")                              # cached under these sources: kept
    search._drop_stale_cache()
    assert stale.exists()


def test_without_numba_cache_dir_the_cache_is_beside_the_sources(monkeypatch) -> None:
    monkeypatch.setattr(config, "CACHE_DIR", "")
    for src in search.SOURCES:
        assert search.cache_folders(src) == [src.parent / "__pycache__"]
