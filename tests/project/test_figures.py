"""Committed figures are legible at the width a reader sees them: none is wider than a page.

A figure's printed width is its pixel width over its resolution (the dpi matplotlib writes
into the PNG; a browser screenshot has none and is taken at CSS pixels, 96 per inch). A
figure wider than `MAX_INCHES` is shrunk to fit a page or a notebook column, and its text
with it: the 06 heatmaps of 2,739 and 3,645 px at 110 dpi (25 and 33 inches) printed their
cell labels at a third of their size.
"""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from ddzlab.config import FIGURES_DIR

#: a landscape page's text width, or a wide notebook column (inches)
MAX_INCHES = 12.0
SCREEN_DPI = 96.0
#: figures known to be too wide whose notebook is being rewritten by another issue (name ->
#: why): the test asserts each is still committed and still too wide, so an entry fails (and
#: must go) the day its figure fits or is removed. Empty: every committed figure fits.
TOO_WIDE_PENDING: dict[str, str] = {}


def png_width_inches(path: Path) -> tuple[int, float, float]:
    """(pixel width, dpi, width in inches) of a PNG, read from its IHDR and pHYs chunks."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG file")
    width = struct.unpack(">I", data[16:20])[0]
    dpi = SCREEN_DPI
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"pHYs":
            ppu_x, _, unit = struct.unpack(">IIB", data[pos + 8:pos + 17])
            if unit == 1:                       # pixels per metre
                dpi = ppu_x * 0.0254
            break
        if kind == b"IDAT":                     # pHYs must come before the image data
            break
        pos += 12 + length
    return width, dpi, width / dpi


FIGURES = sorted(FIGURES_DIR.glob("*.png"))


def test_there_are_committed_figures() -> None:
    assert len(FIGURES) >= 10, f"expected the report's figures in {FIGURES_DIR}"


def test_every_pending_figure_still_exists() -> None:
    """A pending entry whose figure is gone would excuse nothing and never fail: refuse it."""
    gone = [name for name in TOO_WIDE_PENDING if not (FIGURES_DIR / name).exists()]
    assert not gone, f"{gone} are no longer figures: remove them from TOO_WIDE_PENDING"


@pytest.mark.parametrize("path", FIGURES, ids=[p.name for p in FIGURES])
def test_figure_fits_a_page(path: Path) -> None:
    width, dpi, inches = png_width_inches(path)
    if path.name in TOO_WIDE_PENDING:
        assert inches > MAX_INCHES, f"{path.name} fits a page now: remove it from TOO_WIDE_PENDING"
        return
    assert inches <= MAX_INCHES, (f"{path.name} is {width} px wide at {dpi:.0f} dpi = {inches:.1f} inches, "
                                  f"wider than a page ({MAX_INCHES:.0f} inches): shrink its figsize or stack "
                                  f"its panels")


def test_width_reader_on_figures_made_here(tmp_path: Path) -> None:
    """The reader against matplotlib's own output (a figure of known size and dpi), and a
    file without pHYs read at screen resolution."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = plt.figure(figsize=(5, 2))
    fig.savefig(tmp_path / "a.png", dpi=110)
    plt.close(fig)
    width, dpi, inches = png_width_inches(tmp_path / "a.png")
    assert width == 550 and abs(dpi - 110) < 0.1 and abs(inches - 5) < 0.01
    raw = (tmp_path / "a.png").read_bytes()
    pos = raw.index(b"pHYs") - 4
    length = struct.unpack(">I", raw[pos:pos + 4])[0]
    (tmp_path / "b.png").write_bytes(raw[:pos] + raw[pos + 12 + length:])     # drop the chunk
    assert png_width_inches(tmp_path / "b.png") == (550, SCREEN_DPI, 550 / SCREEN_DPI)
