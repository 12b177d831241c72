"""A first run, as a new player meets it: the server started on an empty numba cache, and a match
played at once, in Debian's Chromium.

The rest of the suite runs on the cache the session's warm-up filled (conftest.py), so only here
does the server compile the simulator itself, as it does on a fresh install.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Response, Route, expect

from browsing import DESKTOP, button, open_page, press, settle
from live import HANG_S, LiveServer

HANG_MS = HANG_S * 1000  # Playwright counts in milliseconds
FIRST_START_S = 5.0
"""From the launch of `cardwar serve` to its address printed, on an empty numba cache (about
2.5 s on this machine at rest)."""
LOADED = 3.0
"""On a machine too busy for that, the most it may take against the web stack's own import
timed just after it (1.6 s at a load of 5): a start that compiled the simulator first took
about 30 import times."""


COMPILING_S = 4 * HANG_S
"""The longest a first start's compiler may take on a machine busy with other work: it says
nothing while it runs, so the server is asked whether it still compiles (GET /api/simulator)."""


def until_prepared(server: LiveServer) -> bool:
    """Wait until the server says the simulator is ready (True), or its output ends (False):
    past each HANG_S with no line, only while the server says it is not ready yet, COMPILING_S
    in all."""
    assert server.output is not None
    deadline = time.monotonic() + COMPILING_S
    while True:
        try:
            return server.output.wait_for("cardwar: the simulator is ready")
        except TimeoutError:
            with server.client() as http:
                ready = http.get("/api/simulator").json()["ready"]
            if ready or time.monotonic() > deadline:  # ready, and not said: a hang
                raise


def import_seconds() -> float:
    """How long a fresh interpreter takes now to import the app, which every start does."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import cardwar.web.app"], check=True)
    return time.perf_counter() - started


@pytest.fixture
def first_run_server(tmp_path: Path) -> Iterator[LiveServer]:
    """`cardwar serve` with a numba cache of its own, empty: it compiles every kernel."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    server = LiveServer(tmp_path / "live.db", env={"NUMBA_CACHE_DIR": str(cache)}).start()
    yield server
    server.stop()


def test_a_match_on_a_fresh_install_is_played_to_its_decision(
    browser: Browser, first_run_server: LiveServer
) -> None:
    """On an empty numba cache: the server gives its address within FIRST_START_S of its
    launch, and prepares the simulator in the background, which it says once, with how long
    that takes; the page says the statistics are getting ready meanwhile. Then House rules →
    Match: best of 3 → Close → New round → Play to end, round after round, decides the match
    (while the simulator may still be compiling), and the server never answers the page 429
    (its draw estimate for the panel yields to the player's battles)."""
    took = first_run_server.took_to_url
    if took >= FIRST_START_S:  # a busy machine: against its own pace, timed now
        assert took < LOADED * import_seconds(), f"{took:.1f} s to the address"
    page, watch = open_page(browser, first_run_server, DESKTOP)
    status = page.get_by_test_id("stats-status")
    expect(status).to_contain_text("Getting the simulator ready")  # compiling: 20 s at least
    assert first_run_server.output is not None
    assert first_run_server.output.wait_for("preparing the simulator in the background")
    said = first_run_server.output.text
    assert said.find("cardwar: open http://") < said.find("first start only: about 20 s in all")
    refused: list[str] = []

    def look(response: Response) -> None:
        if response.status == 429:
            refused.append(response.url)

    page.on("response", look)
    # The panel's own draw estimate is asked once the simulator is ready (simulator.js): the
    # server, compiling still, is not sent asks that would wait.
    button(page, "House rules").click()
    dialog = page.get_by_role("dialog", name="House rules")
    with page.expect_response("**/api/me/house-rules"):
        dialog.get_by_label("Match", exact=True).select_option("3")
    # Closed at once, while the estimate is still under way on the server.
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    press(page, "New round")
    line = page.get_by_test_id("match")
    expect(line).to_have_text("Best of 3 · round 1 · You 0 – 0 Computer")
    page.select_option("#auto-speed", "instant")
    outcome = page.get_by_test_id("outcome")
    for played in range(1, 12):
        button(page, "Play to end").click()
        expect(outcome).to_be_visible(timeout=HANG_MS)
        settle(page)
        if "won the match" in line.inner_text():
            break
        press(page, "New round")
        expect(line).to_contain_text(f"round {played + 1}")
    else:
        raise AssertionError("no match of best of 3 takes eleven rounds here")
    expect(line).to_contain_text("won the match")
    assert until_prepared(first_run_server)
    expect(status).to_be_empty(timeout=HANG_MS)  # and the page stops saying it is getting ready
    assert refused == []
    expect(page.get_by_test_id("message")).not_to_contain_text("presses")
    watch.check(first_run_server)
    page.context.close()


def test_a_press_turned_away_once_is_sent_again_and_twice_is_worded(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A press the server answers 429 (it changed nothing) is sent once more after Retry-After,
    and plays; turned away twice, the page says the server is busy, in the server's words, and
    never blames presses the player did not make."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    refusals = {"left": 1}

    def busy(route: Route) -> None:
        if refusals["left"] == 0:
            route.continue_()
            return
        refusals["left"] -= 1
        route.fulfill(
            status=429,
            headers={"Retry-After": "1", "Content-Type": "application/json"},
            body='{"detail": "battles: the server is busy with other long runs"}',
        )

    page.route("**/api/rounds/*/battles", busy)
    press(page, "Turn cards")
    number = page.get_by_test_id("battle-number")
    expect(number).to_have_text("Battle 1 of 500")
    assert refusals["left"] == 0
    refusals["left"] = 2
    press(page, "Turn cards")
    message = page.get_by_test_id("message")
    expect(message).to_contain_text("The game server has too much to do right now (battles)")
    expect(message).not_to_contain_text("presses")
    expect(number).to_have_text("Battle 1 of 500")  # nothing played, nothing lost
    assert refusals["left"] == 0
    page.unroute("**/api/rounds/*/battles")
    # Chromium logs each 429 as a resource that failed to load: the three this test made.
    told = [error for error in watch.errors if "status of 429" in error]
    assert len(told) == 3
    watch.errors = [error for error in watch.errors if error not in told]
    watch.check(shared_server)
    page.context.close()
