"""The dashboard in a real browser (Debian's Chromium, driven by Playwright; nothing is
downloaded): ``referee replay --serve`` runs the sample hand, the page shows its scores and its
line of play, a click on Pass reaches the referee and its answer comes back; served for the
network, the page without the token may watch but its controls are refused and change nothing.
Ctrl-C then stops the referee within seconds, without a traceback."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.session.phrases import Phrases
from tests.helpers import REPO
from tests.test_web import SAMPLE, same_line, true_line, true_scores

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: CI sets this: there a missing browser fails instead of skipping.
REQUIRED = bool(os.environ.get("REFEREE_REQUIRE_BROWSER"))
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
EN = Phrases.load("en")


class Referee:
    """``referee ARGS`` running, its output read line by line as it comes."""

    def __init__(self, *args: str | Path) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        self.process = subprocess.Popen([sys.executable, "-m", "referee.cli", *map(str, args)], cwd=REPO, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.err: queue.Queue[str] = queue.Queue()
        self.err_lines: list[str] = []
        self.out_lines: list[str] = []
        self.out_changed = threading.Condition()
        threading.Thread(target=self._read, args=(self.process.stderr, True), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stdout, False), daemon=True).start()
        found = re.search(r"http://\S+", self.wait_err("the dashboard is at"))
        assert found
        self.url = found.group(0)
        self.port = int(re.search(r":(\d+)/", self.url).group(1))  # type: ignore[union-attr]

    def _read(self, stream: Any, is_err: bool) -> None:
        for line in stream:
            if is_err:
                self.err_lines.append(line)
                self.err.put(line)
            else:
                with self.out_changed:
                    self.out_lines.append(line)
                    self.out_changed.notify_all()

    def wait_err(self, needle: str, timeout: float = 30) -> str:
        """The next line on stderr holding ``needle``."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.err.get(timeout=left)
            except queue.Empty:
                break
            if needle in line:
                return line
        raise AssertionError(f"no {needle!r} on stderr: {''.join(self.err_lines)}")

    def wait_out(self, needle: str, timeout: float = 10) -> str:
        """A line on stdout holding ``needle`` (already printed or to come)."""
        with self.out_changed:
            self.out_changed.wait_for(lambda: any(needle in line for line in self.out_lines), timeout)
            return next((line for line in self.out_lines if needle in line), "")

    def interrupt(self) -> tuple[int, float]:
        """Ctrl-C: the exit code and how long stopping took."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=15)
        return code, time.monotonic() - started

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        if REQUIRED:
            pytest.fail("Chromium must be installed for the dashboard's browser test (apt-get install chromium)")
        pytest.skip("Chromium is not installed: apt-get install chromium (Debian) to run the dashboard's browser "
                    "test; CI sets REFEREE_REQUIRE_BROWSER so there it fails instead")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


def replay(*more: str) -> Referee:
    return Referee("replay", SAMPLE, "--from-json", "--opener", "1", "--lang", "en", "--serve", "--port", "0",
                   "--pace", "0", *more)


def shown_line(page: Any) -> dict[str, Any]:
    """The line of play as the page draws it, read back from the SVG's tiles."""
    tiles = page.locator("#line svg g.tile").evaluate_all(
        "els => els.map(e => [e.dataset.arm, Number(e.dataset.index), e.dataset.halves])")
    arms: dict[str, list[str]] = {"line": [], "up": [], "down": []}
    for arm, _, halves in sorted(tiles, key=lambda t: (t[0], t[1])):
        arms[arm].append(halves)
    count = int(page.locator("#ends").inner_text().rsplit("=", 1)[1])
    return {"line": arms["line"], "branches": {"up": arms["up"], "down": arms["down"]}, "count": count}


def test_the_page_shows_the_replayed_hand_and_a_pass_reaches_the_referee(browser: Any) -> None:
    from playwright.sync_api import expect
    referee = replay()
    try:
        referee.wait_err("the source has ended")
        page = browser.new_page()
        page.goto(referee.url, wait_until="domcontentloaded")
        for seat, score in enumerate(true_scores()):
            expect(page.locator(f'#scores tr[data-seat="{seat}"] .score')).to_have_text(str(score))
        assert same_line(shown_line(page), true_line())
        assert page.locator("#line svg g.tile").count() == 13
        illegal = page.locator("#log li.illegal")
        expect(illegal).to_have_count(1)
        expect(illegal).to_contain_text("6-5")
        page.wait_for_function("document.getElementById('camera').naturalWidth > 0")  # the annotated frame
        page.click("#pass")
        # The referee's own answer (only Referee.pass_turn says this): the hand is over, so the
        # pass is refused, and nothing is logged or said.
        expect(page.locator("#answer")).to_contain_text("the hand is over: nobody can pass")
        expect(illegal).to_have_count(1)
        # A play the camera could not read, typed in: it reaches the referee, who refuses it
        # (Referee.play_by_hand: the hand is over).
        page.fill("#play-tile", "6-6")
        page.select_option("#play-end", "left")
        page.click("#play")
        expect(page.locator("#answer")).to_contain_text("the hand is over: nothing can be played")
        expect(illegal).to_have_count(1)
        # A reveal typed in reaches the referee too (Referee.reveal_by_hand: this hand's reveal
        # was read and scored, so none is awaited).
        page.fill("#reveal-tiles", "5-3")
        page.fill("#reveal-player", "1")
        page.click("#reveal")
        expect(page.locator("#answer")).to_contain_text("no hand is waiting for its reveal")
        expect(illegal).to_have_count(1)
        page.close()
        code, took = referee.interrupt()
        assert code == 0 and took < 5
        assert "Traceback" not in "".join(referee.err_lines)
    finally:
        referee.kill()


def test_served_for_the_network_the_page_needs_the_token_to_control(browser: Any) -> None:
    from playwright.sync_api import expect
    referee = replay("--host", "0.0.0.0")
    try:
        token = re.search(r"\?token=([\w-]+)", referee.url)
        assert token, referee.url
        local = f"http://127.0.0.1:{referee.port}/"
        referee.wait_err("the source has ended")
        watcher = browser.new_context().new_page()
        watcher.goto(local, wait_until="domcontentloaded")
        expect(watcher.locator('#scores tr[data-seat="1"] .score')).to_have_text(str(true_scores()[1]))
        watcher.click("#pass")
        expect(watcher.locator("#answer")).to_contain_text("need the token")
        assert watcher.request.post(local + "api/control", data={"action": "pass"}).status == 403
        expect(watcher.locator("#log li.illegal")).to_have_count(1)  # nothing changed
        controller = browser.new_context().new_page()
        controller.goto(f"{local}?token={token.group(1)}", wait_until="domcontentloaded")
        expect(controller.locator("#log li.illegal")).to_have_count(1)
        controller.click("#pass")
        expect(controller.locator("#answer")).to_contain_text("the hand is over: nobody can pass")
        expect(watcher.locator("#answer")).to_contain_text("the hand is over")  # every page follows
        code, took = referee.interrupt()
        assert code == 0 and took < 5
        assert "Traceback" not in "".join(referee.err_lines)
    finally:
        referee.kill()
