#!/usr/bin/env python3
"""Screenshots of what a family meets at a live table, to look at: a host at a desktop and a
guest on a phone (a watcher too, where it matters), each moment on both screens.

usage: .venv/bin/python screens/family.py [BASE_URL] [OUT_DIR]
       (defaults: http://127.0.0.1:8000 and screens/; start `cardwar serve --give-after 5`
       first: moment 3 waits for the host to be allowed to give a seat)

The moments, as docs/api.md's live tables and the page's tests name them: 1 House rules at a
live table (the guest's offer of a table of their own, the host's question), 2 Play to end at
the host's speed (mid-run on both), 3 a seat given to the computer offered back, 4 four seats
from Play with others, 5 a reaction over moving cards, 6 what each device can do (a guest, a
watcher), 7 endings (a closed table, a link to no table), 8 play again (the guest's ask, the
host's note). Files are named `<size>-family-<n>-<name>.png`. Prints each file, and any console
error or request that left the server. Needs the dev extras (Playwright) and Debian's Chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect, sync_playwright

from live import Device
from moments import CHROMIUM

WAIT_MS = 30_000


class Family(Device):
    """A device whose shots are named for the family's moments."""

    def _console(self, message: Any) -> None:
        if "status of 404" not in message.text:  # the link to no table, asked for on purpose
            super()._console(message)

    def shot(self, number: int, name: str) -> None:
        path = self.out / f"{self.size}-family-{number}-{name}.png"
        self.page.evaluate("scrollTo(0, 0)")
        self.page.screenshot(path=str(path))
        print(path)


def button(page: Page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()


def open_table(host: Family, players: str = "2") -> str:
    """The host opens a table from Play with others; its invite link."""
    ann = host.page
    ann.goto(host.base)
    expect(ann.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    button(ann, "Play with others")
    dialog = ann.get_by_role("dialog", name="Play with others")
    dialog.get_by_label("Your name").fill("Ann")
    dialog.get_by_label("Players").select_option(players)
    if players == "4":
        dialog.get_by_label("Seat 4").select_option("computer")
        host.shot(4, "play-with-others-four")
    dialog.get_by_role("button", name="Open the table").click()
    invite = ann.get_by_role("dialog", name="Invite to your table")
    link = invite.get_by_label("Invite link").input_value()
    invite.get_by_role("button", name="Close").click()
    return link


def sit(guest: Family, link: str, name: str = "Mia") -> None:
    guest.page.goto(link)
    join = guest.page.get_by_role("dialog", name="Join Ann's table")
    join.get_by_label("Your name").fill(name)
    join.get_by_role("button", name="Sit down").click()
    expect(guest.page.get_by_test_id("live-bar")).to_contain_text("Ann's table")


def house_rules(host: Family, guest: Family) -> None:
    for device, title in ((guest, "These rules are for a table of your own"),
                          (host, "Deal the table's next round?")):  # fmt: skip
        page = device.page
        button(page, "House rules")
        panel = page.get_by_role("dialog", name="House rules")
        with page.expect_response("**/api/me/house-rules"):
            panel.get_by_label("Preset", exact=True).select_option("traditional")
        panel.get_by_role("button", name="Deal with these rules").click()
        expect(page.get_by_role("dialog", name=title)).to_be_visible()
        device.shot(1, "house-rules")
    guest.page.get_by_role("button", name="Stay at this table").click()
    host.page.get_by_role("button", name="Deal for the table").click()
    expect(guest.page.get_by_test_id("rules-line")).to_contain_text("three down")


def play_to_end(host: Family, guest: Family) -> None:
    host.page.get_by_label("Speed").select_option("slow")
    button(host.page, "Play to end")
    expect(guest.page.get_by_test_id("battle-number")).to_contain_text("Battle 3 ", timeout=WAIT_MS)
    host.shot(2, "play-to-end-slow")
    guest.shot(2, "every-battle-shown")
    button(host.page, "Stop")
    expect(host.page.get_by_test_id("message")).to_contain_text("Stopped at battle")


def reaction(host: Family, guest: Family) -> None:
    button(host.page, "Play 10 battles")
    guest.page.get_by_role("button", name="Clap").click()
    expect(host.page.locator('.reaction[data-seat="1"]')).to_be_visible()
    host.shot(5, "a-clap-over-moving-cards")
    guest.idle()
    guest.shot(6, "a-guest-turns-cards-and-reacts")


def endings_and_again(host: Family, guest: Family, watcher: Family, link: str) -> None:
    host.page.get_by_label("Speed").select_option("instant")
    button(host.page, "Play to end")
    expect(guest.page.get_by_test_id("outcome")).to_be_visible(timeout=WAIT_MS)
    guest.page.get_by_test_id("outcome").get_by_role("button", name="Ask for another round").click()
    expect(host.page.get_by_test_id("message")).to_contain_text("asks for another round")
    host.idle()
    guest.idle()
    host.shot(8, "mia-asks-for-another")
    guest.shot(8, "asked-for-another")
    watcher.page.goto(link)
    watcher.page.get_by_role("dialog", name="Join Ann's table").get_by_role(
        "button", name="Watch the table"
    ).click()
    expect(watcher.page.get_by_test_id("live-bar")).to_contain_text("Watching Ann's table")
    expect(watcher.page.get_by_test_id("outcome")).to_be_visible()
    watcher.idle()
    watcher.shot(6, "a-watcher")
    button(host.page, "Close table")
    host.page.get_by_role("button", name="Close the table").click()
    expect(guest.page.get_by_test_id("table-ended")).to_be_visible()
    guest.shot(7, "the-table-closed")
    host.page.goto(host.base + "/?table=" + "x" * 22)
    expect(host.page.get_by_test_id("table-ended")).to_be_visible()
    host.shot(7, "a-link-to-no-table")


def seat_back(browser: Browser, base: str, out: Path) -> list[str]:
    host = Family(browser, base, out, "desktop")
    guest = Family(browser, base, out, "phone")
    sit(guest, open_table(host), "Mia")
    guest.page.goto("about:blank")  # away
    status = host.page.locator('.seat-status[data-seat="1"]')
    expect(status.get_by_role("button", name="Let the computer play")).to_be_visible(
        timeout=WAIT_MS
    )
    host.shot(3, "mia-away-her-seat-may-go")
    status.get_by_role("button", name="Let the computer play").click()
    guest.page.goto(base)
    guest.page.get_by_test_id("held-bar").get_by_role("button", name="Back to it").click()
    expect(guest.page.get_by_role("dialog", name="Your seat at Ann's table")).to_be_visible()
    guest.shot(3, "your-seat-is-yours-to-take-back")
    return host.trouble + guest.trouble


def four_seats(browser: Browser, base: str, out: Path) -> list[str]:
    host = Family(browser, base, out, "desktop")
    guest = Family(browser, base, out, "phone")
    sit(guest, open_table(host, "4"), "Mia")
    guest.idle()
    guest.shot(4, "a-table-of-four")
    return host.trouble + guest.trouble


def main() -> int:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
    out = Path(sys.argv[2] if len(sys.argv) > 2 else Path(__file__).parent)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        exe = next(path for path in CHROMIUM if Path(path).exists())
        browser = playwright.chromium.launch(executable_path=exe)
        host = Family(browser, base, out, "desktop")
        guest = Family(browser, base, out, "phone")
        watcher = Family(browser, base, out, "phone")
        watcher.size = "phone-watcher"
        link = open_table(host)
        sit(guest, link)
        house_rules(host, guest)
        play_to_end(host, guest)
        reaction(host, guest)
        endings_and_again(host, guest, watcher, link)
        trouble = host.trouble + guest.trouble + watcher.trouble
        trouble += seat_back(browser, base, out)
        trouble += four_seats(browser, base, out)
        browser.close()
    for line in trouble:
        print(line, file=sys.stderr)
    return 1 if trouble else 0


if __name__ == "__main__":
    sys.exit(main())
