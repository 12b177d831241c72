"""The browser tests' helpers: Debian's Chromium, a page per player, the axe audit, the House
rules panel, and the deals that make a point quickly.

Imported by the `test_browser*` modules (the `browser` fixture with them), never collected itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Locator, Page, Route, expect

from live import HANG_S, LiveServer

DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 375, "height": 740},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
DEVICES = pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
# Only the violations come back: the passes would be computed and sent for nothing.
WCAG_21_AA = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
AXE_SCRIPT = Axe().axe_script  # axe-core as axe-playwright-python ships it
# An `expect` waits for its event and returns the moment it comes, so its bound costs a passing
# test nothing; Playwright's own 5 s is too short for a busy machine playing Play 10 battles'
# ten animated battles, and would fail a test that is right.
expect.set_options(timeout=30_000)

# Deals that make a point quickly. Piles are listed top card first, You first.
EXAMPLE_DEAL = [["9S", "2C", "KD", "4H"], ["9H", "3C", "7S", "5D"]]
# Traditional: two wars of three face-down cards each; the round goes on after it.
LONG_WAR = [
    ["9S", "2C", "3C", "4C", "9D", "5C", "6C", "7C", "KD", "AH", "AD"],
    ["9H", "2D", "3D", "4D", "9C", "5D", "6D", "7D", "7S", "2H", "3H"],
]
ENDS_AT_ONCE = {
    2: [["AS", "KS"], ["2H"]],
    4: [["AS", "KS"], ["2H"], ["3H"], ["4H"]],
}


class Watch:
    """Everything a page asked for and complained about while a test ran."""

    def __init__(self, page: Page) -> None:
        self.requests: list[str] = []
        self.errors: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def check(self, server: LiveServer) -> None:
        """No console error, and no request for anything outside the server."""
        assert self.errors == []
        outside = [url for url in self.requests if not url.startswith(server.url + "/")]
        assert outside == []


def open_page(
    browser: Browser,
    server: LiveServer,
    device: dict[str, Any],
    motion: str = "reduce",
    clock: bool = False,
) -> tuple[Page, Watch]:
    """A new browser context (a new player) on the game page, ready to play. With `clock`, the
    page's timers and time are Playwright's (`page.clock`): they run as usual until the test
    moves them on, so a test never waits for the page's time to pass."""
    context = browser.new_context(**device, reduced_motion=motion)  # type: ignore[arg-type]  # Playwright's options are typed per keyword
    page = context.new_page()
    watch = Watch(page)
    if clock:
        page.clock.install()
    page.goto(server.url + "/")
    settle(page)
    expect(button(page, "Turn cards")).to_be_enabled()
    return page, watch


def button(page: Page, name: str) -> Locator:
    """A button by its exact name."""
    return page.get_by_role("button", name=name, exact=True)


def settle(page: Page) -> None:
    """Wait until the table has finished the request and the battle it was playing."""
    expect(page.locator("#table")).to_have_attribute("aria-busy", "false")


def press(page: Page, name: str, touch: bool = False) -> None:
    """Click (or tap, on a touch screen) a button by its name and wait for the table."""
    if touch:
        button(page, name).tap()
    else:
        button(page, name).click()
    settle(page)


def audit(page: Page) -> None:
    """axe-core finds no WCAG 2.1 AA violation in the page as it stands.

    axe-core goes into a page once (until it reloads), not at every audit as `Axe.run` would.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    found = page.evaluate(
        "options => axe.run(document, options).then(r => r.violations)", WCAG_21_AA
    )
    problems = [
        f"{item['id']}: {item['help']} at {[node['target'] for node in item['nodes']][:4]}"
        for item in found
    ]
    assert problems == []


def counts(page: Page, players: int = 2) -> list[int]:
    """The pile counts shown on the table."""
    return [int(page.get_by_test_id(f"count-{seat}").inner_text()) for seat in range(players)]


def score(page: Page) -> int:
    """Rounds on the scoreboard, won + lost + drawn."""
    return sum(int(page.get_by_test_id(name).inner_text()) for name in ("won", "lost", "drawn"))


def seed_next_deals(page: Page, seed: int) -> None:
    """Make the page's own POST /api/rounds ask for `seed`, so the round it deals is known."""

    def handle(route: Route) -> None:
        if route.request.method == "POST":
            body = json.loads(route.request.post_data or "{}")
            route.continue_(post_data=json.dumps({**body, "seed": seed}))
        else:
            route.continue_()

    page.route("**/api/rounds", handle)


def resume_with(page: Page, server: LiveServer, **body: Any) -> None:
    """Deal a round through the API with the page's cookie, then reload: the page resumes it."""
    # A round that may loop is settled in the server's worker process first: on a busy machine
    # that may take longer than Playwright's 30 s (HANG_S bounds a hang, not the wait).
    created = page.request.post(server.url + "/api/rounds", data=body, timeout=HANG_S * 1000)
    assert created.status == 201, created.text()
    page.reload()
    settle(page)


def deal_to_people(
    page: Page, server: LiveServer, seats: list[dict[str, str]], **body: Any
) -> None:
    """Seat `seats` (all four, seat 0 first) at the page's table on the real server, then deal.

    The seats are PUT with the house rules through the page's cookie (the rules become classic,
    docs/api.md#house-rules), so that the page's own New round sends them; the round is dealt
    through the API with the same seats in its body, since a round takes its seats from the body
    of its deal, not from the house rules (docs/api.md#deal-a-round); the reload of
    `resume_with` sits the page down with both."""
    chosen = page.request.put(server.url + "/api/me/house-rules", data={"seats": seats})
    assert chosen.status == 200, chosen.text()
    assert chosen.json()["seats"] == seats
    resume_with(page, server, seats=seats, **body)


def open_house_rules(page: Page) -> Locator:
    """Open the House rules panel; returns the dialog."""
    button(page, "House rules").click()
    dialog = page.get_by_role("dialog", name="House rules")
    expect(dialog).to_be_visible()
    return dialog


def choose(page: Page, dialog: Locator, label: str, value: str | bool) -> None:
    """Set one control of the panel and wait until the server has kept the choice."""
    control = dialog.get_by_label(label, exact=True)
    with page.expect_response("**/api/me/house-rules"):
        if isinstance(value, bool):
            control.set_checked(value)
        elif control.evaluate("el => el.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)
            control.press("Tab")


def deal_with(page: Page, **choices: str | bool) -> None:
    """Choose house rules in the panel (labels as keywords, underscores for spaces) and deal."""
    dialog = open_house_rules(page)
    for key, value in choices.items():
        choose(page, dialog, key.replace("_", " "), value)
    dialog.get_by_role("button", name="Deal with these rules").click()
    expect(dialog).to_be_hidden()
    settle(page)


def play_to_the_end(page: Page, touch: bool = False, presses: int = 60) -> None:
    """Press Play 10 battles until the round's outcome shows."""
    outcome = page.get_by_test_id("outcome")
    for _ in range(presses):
        if outcome.is_visible():
            break
        press(page, "Play 10 battles", touch)
    expect(outcome).to_be_visible()


def in_view(page: Page, locator: Locator) -> bool:
    """True when the element is wholly inside the viewport as it is scrolled now."""
    box = locator.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return (
        box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] + box["width"] <= size["width"]
    )


# celebrate.js, replaced by one that notes each call (in `window.parties`) and is over at once.
CELEBRATIONS = """export function celebrate(party) {
    (window.parties ??= []).push(party);
    return Promise.resolve();
}"""


def open_noting_celebrations(browser: Browser, server: LiveServer) -> tuple[Page, Watch]:
    """A page on a desktop, reduced motion, whose celebrate() only notes what it was asked."""
    context = browser.new_context(**DESKTOP, reduced_motion="reduce")
    context.route(
        "**/celebrate.js",
        lambda route: route.fulfill(body=CELEBRATIONS, content_type="text/javascript"),
    )
    page = context.new_page()
    watch = Watch(page)
    page.goto(server.url + "/")
    settle(page)
    return page, watch
