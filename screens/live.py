#!/usr/bin/env python3
"""Screenshots of a live table, two devices at once, to look at.

usage: .venv/bin/python screens/live.py [BASE_URL] [OUT_DIR]
       (defaults: http://127.0.0.1:8000 and screens/; start `cardwar serve` first)

Two pairs of devices, each a host and a guest on their own screens: a desktop hosting a phone
upright, and a wide dark screen hosting a phone sideways. For each pair: the invite (on the
host's), the join (on the guest's), the table waiting for the guest (both), a battle played
(both), and the guest's connection cut (both: "Reconnecting…" on each). Files are named
`<size>-live-<n>-<name>.png`. Prints each file and any console error or request that left the
server. Needs the dev extras (Playwright) and Debian's Chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, WebSocketRoute, expect, sync_playwright

from moments import CHROMIUM, SIZES

PAIRS = (("desktop", "phone"), ("wide-dark", "phone-sideways"))


class Device:
    """One size's page, its shots, and the socket route a test of a cut connection needs."""

    def __init__(self, browser: Browser, base: str, out: Path, size: str) -> None:
        self.base, self.out, self.size = base, out, size
        self.context = browser.new_context(**SIZES[size])
        self.page: Page = self.context.new_page()
        self.trouble: list[str] = []
        self.cut = False
        self.routes: list[WebSocketRoute] = []
        self.page.on("console", self._console)
        self.page.on("request", self._request)
        self.page.route_web_socket("**/live", self._socket)

    def _socket(self, socket: WebSocketRoute) -> None:
        if self.cut:
            socket.close()
            return
        socket.connect_to_server()
        self.routes.append(socket)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.trouble.append(f"{self.size}: console {message.text}")

    def _request(self, request: Any) -> None:
        if not request.url.startswith((self.base, "data:")):
            self.trouble.append(f"{self.size}: left the server: {request.url}")

    def shot(self, number: int, name: str) -> None:
        path = self.out / f"{self.size}-live-{number}-{name}.png"
        self.page.evaluate("scrollTo(0, 0)")  # the table, as a tap lower down left it
        self.page.screenshot(path=str(path))
        print(path)

    def idle(self) -> None:
        expect(self.page.locator("#table")).to_have_attribute("aria-busy", "false")


def pair(browser: Browser, base: str, out: Path, host_size: str, guest_size: str) -> list[str]:
    host = Device(browser, base, out, host_size)
    guest = Device(browser, base, out, guest_size)
    ann, mia = host.page, guest.page
    ann.goto(base)
    expect(ann.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    ann.get_by_role("button", name="Play with others").click()
    dialog = ann.get_by_role("dialog", name="Play with others")
    dialog.get_by_label("Your name").fill("Ann")
    dialog.get_by_label("Turn clock").select_option("30")
    host.shot(1, "play-with-others")
    dialog.get_by_role("button", name="Open the table").click()
    invite = ann.get_by_role("dialog", name="Invite to your table")
    expect(invite.get_by_role("img")).to_be_visible()
    link = invite.get_by_label("Invite link").input_value()
    host.shot(2, "invite")
    invite.get_by_role("button", name="Close").click()

    mia.goto(link)
    join = mia.get_by_role("dialog", name="Join Ann's table")
    join.get_by_label("Your name").fill("Mia")
    guest.shot(3, "join")
    join.get_by_role("button", name="Sit down").click()
    expect(ann.get_by_test_id("message")).to_contain_text("Mia sat down")
    ann.get_by_role("button", name="Turn cards", exact=True).click()
    expect(mia.get_by_test_id("message")).to_contain_text("your turn")
    host.shot(4, "waiting-for-mia")
    guest.shot(4, "your-turn")
    mia.get_by_role("button", name="Turn cards", exact=True).click()
    for device in (host, guest):
        expect(device.page.get_by_test_id("battle-number")).to_contain_text("Battle 1")
        device.idle()
    mia.get_by_role("button", name="Clap").click()
    expect(ann.locator('.reaction[data-seat="1"]')).to_be_visible()
    ann.wait_for_timeout(400)  # the clap at its fullest (a screenshot, not a test: time is fine)
    host.shot(5, "a-battle-and-a-clap")
    guest.shot(5, "a-battle")

    guest.cut = True
    for socket in guest.routes:
        socket.close()
    expect(mia.get_by_test_id("live-link")).to_have_text("Reconnecting…")
    expect(ann.locator('.seat-status[data-seat="1"]')).to_contain_text("Reconnecting…")
    host.shot(6, "mia-reconnecting")
    guest.shot(6, "reconnecting")
    guest.cut = False
    trouble = host.trouble + guest.trouble
    host.context.close()
    guest.context.close()
    return trouble


def main() -> int:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
    out = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).parent)
    out.mkdir(parents=True, exist_ok=True)
    trouble: list[str] = []
    with sync_playwright() as playwright:
        exe = next(path for path in CHROMIUM if Path(path).exists())
        browser = playwright.chromium.launch(executable_path=exe)
        for host_size, guest_size in PAIRS:
            trouble += pair(browser, base, out, host_size, guest_size)
        browser.close()
    for line in trouble:
        print(line, file=sys.stderr)
    return 1 if trouble else 0


if __name__ == "__main__":
    sys.exit(main())
