#!/usr/bin/env python3
"""Screenshots of the moments of a round, at the four sizes the table is looked at, to look at.

usage: .venv/bin/python screens/moments.py [BASE_URL] [OUT_DIR]
       (defaults: http://127.0.0.1:8000 and screens/; start `cardwar serve` first)

At a phone upright and sideways (375x740, 740x375, touch), a desktop (1280x800) and a wide dark
screen (1920x1080), each moment from a known deal dealt through the API: a first visit (the hint
on your pile), a war, a round you win (the party), a round you lose (the kind words), the chance
meter with Peek open, four seats with extra-large cards, the replay, and the table after a reload
with the server out of reach. Files are named `<size>-moment-<n>-<name>.png`. Prints each file
and any console error or request that left the server. Needs the dev extras (Playwright) and
Debian's Chromium.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect, sync_playwright

SIZES: dict[str, dict[str, Any]] = {
    "phone": {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True},
    "phone-sideways": {
        "viewport": {"width": 740, "height": 375},
        "is_mobile": True,
        "has_touch": True,
    },
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "wide-dark": {"viewport": {"width": 1920, "height": 1080}, "color_scheme": "dark"},
}
# A war at the first battle, which you win; then you take the rest (piles top card first).
WAR_YOU_WIN = [["9S", "2C", "KD", "AH"], ["9H", "3C", "7S", "2D"]]
YOU_LOSE = [["2H", "3D"], ["AS", "KS", "QS"]]
CHROMIUM = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")


class Moments:
    """One screen size's page, and the shots taken of it."""

    def __init__(self, browser: Browser, base: str, out: Path, size: str) -> None:
        self.base, self.out, self.size = base, out, size
        self.context = browser.new_context(**SIZES[size])
        self.page = self.context.new_page()
        self.trouble: list[str] = []
        self.page.on("console", self._console)
        self.page.on("request", self._request)

    def _console(self, message: Any) -> None:
        if message.type == "error" and "ERR_INTERNET_DISCONNECTED" not in message.text:
            self.trouble.append(f"{self.size}: console {message.text}")

    def _request(self, request: Any) -> None:
        if not request.url.startswith((self.base, "data:")):
            self.trouble.append(f"{self.size}: left the server: {request.url}")

    def shot(self, name: str) -> None:
        path = self.out / f"{self.size}-moment-{name}.png"
        self.page.screenshot(path=str(path))
        print(path)

    def deal(self, **body: Any) -> None:
        """Deal `body` as this page's round, then reload: the page resumes it."""
        answer = self.page.request.post(self.base + "/api/rounds", data=body)
        assert answer.status == 201, answer.text()
        self.page.reload()
        expect(self.page.get_by_test_id("battle-number")).not_to_have_text("Dealing…")
        self.page.evaluate("scrollTo(0, 0)")

    def tap_pile(self) -> None:
        self.page.locator('.seat[data-seat="0"] .stack').click()

    def idle(self) -> None:
        """Wait until the table has shown what the last press played."""
        expect(self.page.locator("#table")).to_have_attribute("aria-busy", "false")

    def until_over(self) -> None:
        for _ in range(30):
            if self.page.get_by_test_id("outcome").is_visible():
                return
            self.page.get_by_role("button", name="Play 10 battles").click()
            self.idle()


def first_visit(m: Moments) -> None:
    m.page.goto(m.base)
    expect(m.page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    m.idle()
    m.shot("1-first-visit")


def war(m: Moments) -> None:
    m.deal(deal=WAR_YOU_WIN)
    m.tap_pile()
    expect(m.page.locator("#burst")).to_be_visible()
    m.page.wait_for_timeout(350)  # a look, not a wait for an event: the WAR! at its peak
    m.shot("2-war")
    m.idle()


def win(m: Moments) -> None:
    m.until_over()
    m.page.wait_for_timeout(900)  # the party under way
    m.shot("3-you-win")


def loss(m: Moments) -> None:
    m.deal(deal=YOU_LOSE)
    m.until_over()
    m.page.wait_for_timeout(600)
    m.shot("4-you-lose")


def chance(m: Moments) -> None:
    m.deal(seed=8)
    for _ in range(3):
        m.tap_pile()
        m.idle()
    m.page.locator("#chance-peek").click()
    m.page.locator("#chance").scroll_into_view_if_needed()
    m.shot("5-chance-peek")
    m.page.locator("#chance-peek").click()


def extra_large(m: Moments) -> None:
    m.page.evaluate("localStorage.setItem('cardwar.cards', 'large')")
    m.deal(rules={"players": 4}, seed=3)
    for _ in range(4):
        m.tap_pile()
        m.idle()
    m.page.evaluate("scrollTo(0, 0)")
    m.shot("6-four-seats-extra-large")
    m.page.evaluate("localStorage.removeItem('cardwar.cards')")


def replay(m: Moments) -> None:
    m.deal(deal=WAR_YOU_WIN)
    m.until_over()
    m.page.get_by_role("button", name="Watch the replay").click()
    expect(m.page.locator(".replay-cards .card").first).to_be_visible()
    m.shot("7-replay")
    m.page.keyboard.press("Escape")


def offline(m: Moments) -> None:
    m.deal(seed=8)
    for _ in range(5):
        m.tap_pile()
        m.idle()
    m.context.set_offline(True)
    m.page.reload()
    expect(m.page.get_by_test_id("message")).to_contain_text("reach the game")
    m.page.evaluate("scrollTo(0, 0)")
    m.shot("8-offline-reload")
    m.context.set_offline(False)


MOMENTS: list[Callable[[Moments], None]] = [
    first_visit,
    war,
    win,
    loss,
    chance,
    extra_large,
    replay,
    offline,
]


def main() -> int:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
    out = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).parent)
    out.mkdir(parents=True, exist_ok=True)
    trouble: list[str] = []
    with sync_playwright() as playwright:
        exe = next(path for path in CHROMIUM if Path(path).exists())
        browser = playwright.chromium.launch(executable_path=exe)
        for size in SIZES:
            moments = Moments(browser, base, out, size)
            for moment in MOMENTS:
                moment(moments)
            trouble += moments.trouble
            moments.context.close()
        browser.close()
    for line in trouble:
        print(line, file=sys.stderr)
    return 1 if trouble else 0


if __name__ == "__main__":
    sys.exit(main())
