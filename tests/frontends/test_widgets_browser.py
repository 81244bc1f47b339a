"""The tour notebook in a real browser: Voilà serves ``notebooks/00_hand_inspector.ipynb``
on 127.0.0.1 and headless Chromium, driven by Playwright, uses the widgets as a person would.

Needs the Debian package ``chromium`` (``/usr/bin/chromium``; ``make browser`` or
``apt-get install -y chromium``) and the dev extra's ``voila`` and ``playwright``. Playwright's
own browser download is never used. If the browser cannot start the test fails -- it never
skips. A screenshot goes to ``ddzlab.config.figures_dir()`` (the test cache at test scale;
``make screenshot`` refreshes the committed ``figures/00_hand_inspector.png``).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ddzlab.analysis import min_plays
from ddzlab.cards import Hand
from ddzlab.config import NOTEBOOKS_DIR, figures_dir
from ddzlab.moves import legal_moves
from ddzlab.rules import STANDARD

CHROMIUM = os.environ.get("DDZLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
NOTEBOOK = NOTEBOOKS_DIR / "00_hand_inspector.ipynb"
FIX = ("install it with `make browser` (runs `apt-get install -y chromium`, as root) or set "
       "DDZLAB_CHROMIUM to a Chromium binary")
TOUR_HAND = "344456789JQQQKKKAAA2"   # HAND in the notebook (standard rules)
VIEW_WIDTH = 1000         # px: the screenshot fits a page (tests/project/test_figures.py)
TIMEOUT = 90_000          # ms: the page appears once the notebook has run


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def voila_url(tmp_path_factory):
    port = _free_port()
    log = tmp_path_factory.mktemp("voila") / "voila.log"
    env = {**os.environ, "DDZLAB_SCALE": os.environ.get("DDZLAB_SCALE", "test")}
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "voila", str(NOTEBOOK), f"--port={port}",
                                 "--no-browser", "--Voila.ip=127.0.0.1"],
                                stdout=out, stderr=subprocess.STDOUT, env=env, cwd=NOTEBOOK.parent)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"voila exited with code {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(url + "static/", timeout=2):
                    break
            except urllib.error.HTTPError:          # any HTTP answer: the server is up
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"voila did not answer on {url} within 60 s:\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _launch(p):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"the browser test needs Chromium at {CHROMIUM}, which is missing: {FIX}")
    try:
        return p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    except Exception as e:
        pytest.fail(f"Chromium at {CHROMIUM} did not start ({e}); {FIX}")


def test_tour_notebook_in_a_browser(voila_url):
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    assert f'HAND = "{TOUR_HAND}"' in "".join("".join(c["source"]) for c in cells)
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.fail("the browser test needs Playwright: pip install -e '.[dev]' (never `playwright install`)")
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": VIEW_WIDTH, "height": 1000})
            page.goto(voila_url, timeout=TIMEOUT)
            insp = page.locator(".ddz-inspector")
            tour = str(min_plays(TOUR_HAND, STANDARD).plays)     # the notebook opens on TOUR_HAND
            expect(insp.locator(".ddz-fewest-n")).to_have_text(tour, timeout=TIMEOUT)

            # type a hand: the fewest-plays answer appears
            hand = "3334447TJQKA"
            box = insp.locator(".ddz-hand-text input")
            box.fill(hand)
            box.press("Enter")
            expect(insp.locator(".ddz-fewest-n")).to_have_text(str(min_plays(hand, STANDARD).plays),
                                                               timeout=20_000)
            n_moves = len(legal_moves(Hand(hand), STANDARD))
            expect(insp.locator(".ddz-moves-n")).to_have_text(str(n_moves), timeout=20_000)

            # click a rank button: the legal-move list changes
            insp.locator("button.ddz-rank-9").click()
            more = len(legal_moves(Hand(hand + "9"), STANDARD))
            assert more != n_moves
            expect(insp.locator(".ddz-moves-n")).to_have_text(str(more), timeout=20_000)
            expect(insp.locator(".ddz-hand-text input")).to_have_value(str(Hand(hand + "9")))

            # bad text: the engine's message, nothing else changes
            box.fill("33Z")
            box.press("Enter")
            expect(insp.locator(".ddz-error-box .ddz-error")).to_contain_text("unknown card symbol", timeout=20_000)
            expect(insp.locator(".ddz-moves-n")).to_have_text(str(more))

            # step the replay
            replay = page.locator(".ddz-replay")
            expect(replay.locator(".ddz-step")).to_have_text("0", timeout=TIMEOUT)
            replay.locator("button.ddz-replay-forward").click()
            expect(replay.locator(".ddz-step")).to_have_text("1", timeout=20_000)
            expect(replay.locator(".ddz-last")).to_contain_text("plays")
            replay.locator("button.ddz-replay-forward").click()
            expect(replay.locator(".ddz-step")).to_have_text("2", timeout=20_000)
            replay.locator("button.ddz-replay-back").click()
            expect(replay.locator(".ddz-step")).to_have_text("1", timeout=20_000)

            # the figure: the inspector on the tour's hand, all its parts computed
            box.fill(TOUR_HAND)
            box.press("Enter")
            expect(insp.locator(".ddz-fewest-n")).to_have_text(tour, timeout=20_000)
            expect(insp.locator(".ddz-busy")).to_have_count(0, timeout=TIMEOUT)
            expect(insp.locator(".ddz-agent-table")).to_be_visible()
            # every agent that can judge one seat's view chooses a lead; none fails in red
            expect(insp.locator(".ddz-agent-table .ddz-error")).to_have_count(0)
            page.set_viewport_size({"width": VIEW_WIDTH, "height": 3000})   # Voilà scrolls inside a
            insp.scroll_into_view_if_needed()                           # container: fit it all in
            page.wait_for_timeout(300)          # let the last update paint
            folder = figures_dir()
            folder.mkdir(parents=True, exist_ok=True)
            insp.screenshot(path=str(folder / "00_hand_inspector.png"))
        finally:
            browser.close()
