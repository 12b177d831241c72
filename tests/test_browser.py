"""A person at the table: Playwright driving Debian's Chromium against `cardwar serve`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from conftest import LiveServer

DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 900}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
# Flags for a closed network: no background fetches that the machine would refuse anyway.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    """Debian's Chromium: $CARDWAR_CHROMIUM, else `chromium` on the PATH."""
    found = os.environ.get("CARDWAR_CHROMIUM") or shutil.which("chromium")
    if not found:
        pytest.fail("browser tests need Chromium: `apt-get install chromium` (see README)")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the module."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


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


def open_page(browser: Browser, server: LiveServer, device: dict[str, Any]) -> tuple[Page, Watch]:
    """A new browser context (fresh cookies) on the game page, ready to play."""
    context = browser.new_context(**device)
    page = context.new_page()
    watch = Watch(page)
    page.goto(server.url + "/")
    expect(page.get_by_role("button", name="Turn cards")).to_be_enabled()
    return page, watch


def press(page: Page, name: str, touch: bool) -> None:
    """Click (or tap, on a touch screen) a button by its label and wait for the answer."""
    button = page.get_by_role("button", name=name)
    if touch:
        button.tap()
    else:
        button.click()
    expect(page.get_by_role("button", name="New round")).to_be_enabled()


def counts(page: Page) -> list[int]:
    """The two pile counts shown on the table."""
    return [int(page.get_by_test_id(f"count-{seat}").inner_text()) for seat in (0, 1)]


def score(page: Page) -> int:
    """Rounds on the scoreboard, won + lost + drawn."""
    return sum(int(page.get_by_test_id(name).inner_text()) for name in ("won", "lost", "drawn"))


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_whole_round_as_a_person_plays_it(
    browser: Browser, live_server: LiveServer, device: dict[str, Any]
) -> None:
    """New page, turn, ten, reload resumes, play to the end, outcome shown, New round deals."""
    touch = bool(device.get("has_touch"))
    page, watch = open_page(browser, live_server, device)
    battle_number = page.get_by_test_id("battle-number")
    expect(battle_number).to_have_text("Battle 0 of 500")
    expect(page.get_by_test_id("outcome")).to_be_hidden()
    assert counts(page) == [26, 26]

    press(page, "Turn cards", touch)
    expect(battle_number).to_have_text("Battle 1 of 500")
    message = page.get_by_test_id("message").inner_text()
    assert "take" in message and "cards" in message
    assert sum(counts(page)) == 52
    expect(page.locator("#laid-0 svg.card.face").first).to_be_visible()
    expect(page.locator("#laid-1 svg.card.face").first).to_be_visible()

    press(page, "Play 10 battles", touch)
    expect(battle_number).to_have_text("Battle 11 of 500")
    assert page.get_by_test_id("message").inner_text().startswith("Battles 2–11:")
    shown = counts(page)

    page.reload()
    expect(page.get_by_role("button", name="Turn cards")).to_be_enabled()
    expect(battle_number).to_have_text("Battle 11 of 500")
    assert counts(page) == shown
    expect(page.get_by_test_id("message")).to_contain_text("resumes at battle 12")

    before = score(page)
    outcome = page.get_by_test_id("outcome")
    for _ in range(60):
        if outcome.is_visible():
            break
        press(page, "Play 10 battles", touch)
    expect(outcome).to_be_visible()
    assert page.locator("#outcome-title").inner_text() in {"You win!", "The Computer wins", "Draw"}
    assert page.locator("#outcome-why").inner_text()
    expect(page.get_by_role("button", name="Turn cards")).to_be_disabled()
    expect(page.get_by_role("button", name="Play 10 battles")).to_be_disabled()
    assert score(page) == before + 1

    press(page, "New round", touch)
    expect(battle_number).to_have_text("Battle 0 of 500")
    expect(outcome).to_be_hidden()
    expect(page.get_by_role("button", name="Turn cards")).to_be_enabled()
    assert counts(page) == [26, 26]
    watch.check(live_server)
    page.context.close()


def test_keyboard_shortcuts_and_announcements(browser: Browser, live_server: LiveServer) -> None:
    """T, P and N act like the buttons, and each battle is announced in the live region."""
    page, watch = open_page(browser, live_server, DESKTOP)
    battle_number = page.get_by_test_id("battle-number")
    page.keyboard.press("t")
    expect(battle_number).to_have_text("Battle 1 of 500")
    expect(page.locator("#announce")).to_contain_text("Battle 1 of 500.")
    assert page.locator("#announce").get_attribute("aria-live") == "polite"
    page.keyboard.press("p")
    expect(battle_number).to_have_text("Battle 11 of 500")
    page.keyboard.press("Space")
    expect(battle_number).to_have_text("Battle 12 of 500")
    page.keyboard.press("n")
    expect(battle_number).to_have_text("Battle 0 of 500")
    assert "T" in page.locator(".keys").inner_text()
    watch.check(live_server)
    page.context.close()


def test_phone_width_has_no_sideways_scroll(browser: Browser, live_server: LiveServer) -> None:
    """At 360 px wide the table, controls and guide fit without scrolling sideways."""
    page, watch = open_page(browser, live_server, PHONE)
    press(page, "Play 10 battles", touch=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for name in ("Turn cards", "Play 10 battles", "New round"):
        box = page.get_by_role("button", name=name).bounding_box()
        assert box is not None and box["height"] >= 44 and box["x"] >= 0
        assert box["x"] + box["width"] <= 360
    watch.check(live_server)
    page.context.close()


@pytest.mark.parametrize(("motion", "animation"), [("reduce", "none"), ("no-preference", "flip")])
def test_flip_animation_honours_reduced_motion(
    browser: Browser, live_server: LiveServer, motion: str, animation: str
) -> None:
    """Turned cards flip in, unless the person asked for reduced motion."""
    context = browser.new_context(**DESKTOP, reduced_motion=motion)  # type: ignore[arg-type]
    page = context.new_page()
    page.goto(live_server.url + "/")
    page.get_by_role("button", name="Turn cards").click()
    flipped = page.locator(".flip").first
    expect(flipped).to_be_visible()
    assert flipped.evaluate("el => getComputedStyle(el).animationName") == animation
    context.close()


def test_a_war_is_laid_out_and_told(browser: Browser, live_server: LiveServer) -> None:
    """The SPEC deal, resumed by the page: both nines, a card down each, the king takes six."""
    page, watch = open_page(browser, live_server, DESKTOP)
    deal = [["9S", "2C", "KD", "4H"], ["9H", "3C", "7S", "5D"]]
    # page.request shares the page's cookie, so this becomes the player's latest round.
    created = page.request.post(live_server.url + "/api/rounds", data={"deal": deal})
    assert created.status == 201
    page.reload()
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 0 of 500")
    page.get_by_role("button", name="Turn cards").click()
    expect(page.get_by_test_id("message")).to_have_text(
        "War! Both turned a 9. Each lays 1 card face down and turns one up. "
        "Your K♦ beats 7♠ — you take 6 cards."
    )
    expected = {0: ["9 of spades", "king of diamonds"], 1: ["9 of hearts", "7 of spades"]}
    for seat, words in expected.items():
        laid = page.locator(f"#laid-{seat}")
        cards = laid.locator("svg.card.face").all()
        assert [card.get_attribute("aria-label") for card in cards] == words
        expect(laid.get_by_role("img", name="1 card face down")).to_be_visible()
    expect(page.locator("#laid-0")).to_have_class("laid winner")
    assert counts(page) == [7, 1]
    watch.check(live_server)
    page.context.close()


OUTCOME_TITLES = {
    "all_cards": (0, "You win!"),
    "opponent_short": (1, "The Computer wins"),
    "both_short": (None, "Draw"),
    "battle_limit": (None, "Draw"),
    "most_cards": (0, "You win!"),
    "time_up": (1, "The Computer wins"),
    "most_cards_tie": (None, "Draw"),
    "cycle": (None, "Draw"),
}


def test_the_page_words_every_ending_and_shortage(
    browser: Browser, live_server: LiveServer
) -> None:
    """render.js has a title and an explanation for every SPEC §4 reason, and tells shortages."""
    page, watch = open_page(browser, live_server, DESKTOP)
    told = page.evaluate(
        """async (cases) => {
            const render = await import("/static/render.js");
            const names = render.seatNames(2);
            const round = { battles: 500, counts: [30, 22] };
            const out = {};
            for (const [reason, winner] of Object.entries(cases)) {
                out[reason] = render.describeOutcome({ winner, reason }, names, round);
            }
            let unknown = null;
            try { render.describeOutcome({ winner: null, reason: "nap" }, names, round); }
            catch (error) { unknown = String(error); }
            const short = render.describeBattle({ number: 9, winner: 0, taken: 3, wars: 0,
                counts: [52, 0], outcome: null, steps: [
                    { up: ["9S", "9H"], down: [0, 0], short: [] },
                    { up: [null, null], down: [0, 1], short: [1] }] }, names);
            const both = render.describeBattle({ number: 9, winner: null, taken: 0, wars: 0,
                counts: [0, 0], outcome: null, steps: [
                    { up: ["AS", "AH"], down: [0, 0], short: [] },
                    { up: [null, null], down: [0, 0], short: [0, 1] }] }, names);
            let badMessage = null;
            try { render.update({}, { type: "teleport" }); }
            catch (error) { badMessage = String(error); }
            return { out, unknown, short, both, badMessage };
        }""",
        {reason: winner for reason, (winner, _) in OUTCOME_TITLES.items()},
    )
    for reason, (_, title) in OUTCOME_TITLES.items():
        assert told["out"][reason]["title"] == title
        assert len(told["out"][reason]["why"]) > 20
    assert told["unknown"] == "Error: unknown outcome reason: nap"
    assert told["short"] == (
        "War! Both turned a 9. The Computer cannot finish the war and gives up 1 card. "
        "You take 3 cards."
    )
    assert told["both"] == (
        "War! Both turned an ace. "
        "Neither of you has enough cards left to fight it, so nobody can finish the war."
    )
    assert told["badMessage"] == "Error: unknown message type: teleport"
    watch.check(live_server)
    page.context.close()


def test_a_round_the_server_lost_is_explained(browser: Browser, live_server: LiveServer) -> None:
    """If the server no longer has the round (its file was replaced), the page says what to do."""
    page, watch = open_page(browser, live_server, DESKTOP)
    page.route("**/battles", lambda route: route.fulfill(status=404, json={"detail": "gone"}))
    page.get_by_role("button", name="Turn cards").click()
    expect(page.get_by_test_id("message")).to_have_text(
        "This round is no longer kept on the server. Press New round to deal again."
    )
    page.unroute("**/battles")
    page.get_by_role("button", name="New round").click()
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 0 of 500")
    watch.errors = [e for e in watch.errors if "404" not in e]  # the refused request is logged
    watch.check(live_server)
    page.context.close()
