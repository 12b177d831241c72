"""A person at the table: Playwright driving Debian's Chromium against `cardwar serve`.

Every test checks that the page logged no console error and asked for nothing outside the server,
and axe-core audits each state it reaches against WCAG 2.1 AA. Most tests ask for reduced motion,
so a battle lands at once; the animation has tests of its own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Locator, Page, Route, expect, sync_playwright

from cardwar import PRESETS, Round, Rules

from conftest import LiveServer

DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 375, "height": 740},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
DEVICES = pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
# Flags for a closed network: no background fetches that the machine would refuse anyway.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WCAG_21_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
AXE = Axe()

# Deals that make a point quickly. Piles are listed top card first, You first.
SPEC_DEAL = [["9S", "2C", "KD", "4H"], ["9H", "3C", "7S", "5D"]]
# Traditional: two wars of three face-down cards each; the round goes on after it.
LONG_WAR = [
    ["9S", "2C", "3C", "4C", "9D", "5C", "6C", "7C", "KD", "AH", "AD"],
    ["9H", "2D", "3D", "4D", "9C", "5D", "6D", "7D", "7S", "2H", "3H"],
]
ENDS_AT_ONCE = {
    2: [["AS", "KS"], ["2H"]],
    4: [["AS", "KS"], ["2H"], ["3H"], ["4H"]],
}


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


def open_page(
    browser: Browser, server: LiveServer, device: dict[str, Any], motion: str = "reduce"
) -> tuple[Page, Watch]:
    """A new browser context (a new player) on the game page, ready to play."""
    context = browser.new_context(**device, reduced_motion=motion)  # type: ignore[arg-type]
    page = context.new_page()
    watch = Watch(page)
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
    """axe-core finds no WCAG 2.1 AA violation in the page as it stands."""
    found = AXE.run(page, options=WCAG_21_AA).response["violations"]
    problems = [
        f"{item['id']}: {item['help']} at {[node['target'] for node in item['nodes']][:4]}"
        for item in found
    ]
    assert problems == []


def test_the_audit_can_fail(browser: Browser, shared_server: LiveServer) -> None:
    """The axe audit is real: a button with no name in the page is a violation it reports."""
    page, _ = open_page(browser, shared_server, DESKTOP)
    page.evaluate("document.querySelector('.controls').append(document.createElement('button'))")
    with pytest.raises(AssertionError, match="button-name"):
        audit(page)
    page.context.close()


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
    created = page.request.post(server.url + "/api/rounds", data=body)
    assert created.status == 201, created.text()
    page.reload()
    settle(page)


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


# -- a whole round ---------------------------------------------------------------------------------


@DEVICES
def test_a_whole_round_as_a_person_plays_it(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """Fresh deal, turn, ten, reload shows the last battle again, play to the end, New round."""
    touch = bool(device.get("has_touch"))
    page, watch = open_page(browser, shared_server, device)
    number = page.get_by_test_id("battle-number")
    expect(number).to_have_text("Ready to turn")
    expect(page.get_by_test_id("message")).to_contain_text("A fresh deal: 26 cards each")
    expect(page.get_by_test_id("outcome")).to_be_hidden()
    assert counts(page) == [26, 26]
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "Classic · 1 card down · short of cards loses · a draw after 500 battles"
    )
    audit(page)

    press(page, "Turn cards", touch)
    expect(number).to_have_text("Battle 1 of 500")
    message = page.get_by_test_id("message").inner_text()
    assert "take" in message and "cards" in message
    assert sum(counts(page)) == 52
    expect(page.locator("#laid-0 svg.card.face").first).to_be_visible()
    expect(page.locator("#laid-1 svg.card.face").first).to_be_visible()

    press(page, "Play 10 battles", touch)
    expect(number).to_have_text("Battle 11 of 500")
    assert page.get_by_test_id("message").inner_text().startswith("Battles 2–11:")
    shown = counts(page)
    laid = [card.get_attribute("aria-label") for card in page.locator("#field svg.card.face").all()]
    audit(page)

    page.reload()
    settle(page)
    expect(number).to_have_text("Battle 11 of 500")
    assert counts(page) == shown
    expect(page.get_by_test_id("message")).to_contain_text("resumes at battle 12")
    assert [
        card.get_attribute("aria-label") for card in page.locator("#field svg.card.face").all()
    ] == laid

    before = score(page)
    play_to_the_end(page, touch)
    assert page.locator("#outcome-title").inner_text() in {"You win!", "The computer wins", "Draw"}
    assert page.locator("#outcome-why").inner_text()
    expect(button(page, "Turn cards")).to_be_disabled()
    expect(button(page, "Play 10 battles")).to_be_disabled()
    assert score(page) == before + 1
    audit(page)

    press(page, "New round", touch)
    expect(number).to_have_text("Ready to turn")
    expect(page.get_by_test_id("outcome")).to_be_hidden()
    expect(button(page, "Turn cards")).to_be_enabled()
    assert counts(page) == [26, 26]
    watch.check(shared_server)
    page.context.close()


PRESET_ROUNDS = {
    # preset: (a seed that ends in under 100 battles, the rules line)
    "classic": (39, "Classic · 1 card down · short of cards loses · a draw after 500 battles"),
    "traditional": (
        24,
        "Traditional · 3 down (W-A-R) · fight on with the last card · no battle limit",
    ),
    "peace": (
        87,
        "Peace · lowest card wins · 1 card down · short of cards loses · a draw after 500 battles",
    ),
    "timed": (
        13,
        "Timed · 3 down (W-A-R) · fight on with the last card · no battle limit · 10-minute clock",
    ),
    "short": (
        2,
        "Short deck · 13 cards each · 1 card down · short of cards loses · "
        "a draw after 500 battles",
    ),
}
TITLES = {0: "You win!", 1: "The computer wins", None: "Draw"}


@pytest.mark.parametrize("preset", list(PRESET_ROUNDS))
def test_each_preset_played_to_its_end(
    browser: Browser, shared_server: LiveServer, preset: str
) -> None:
    """Choosing a preset in House rules deals it, says so, and plays it to its engine ending."""
    seed, line = PRESET_ROUNDS[preset]
    expected = Round(Rules.preset(preset), seed=seed)
    expected.play()
    assert expected.outcome is not None
    page, watch = open_page(browser, shared_server, DESKTOP)
    seed_next_deals(page, seed)
    deal_with(page, Preset=preset)
    expect(page.get_by_test_id("rules-line")).to_have_text(line)
    hand = Rules.preset(preset).cards_per_hand
    assert counts(page) == [hand, hand]
    play_to_the_end(page)
    expect(page.locator("#outcome-title")).to_have_text(TITLES[expected.outcome.winner])
    number = page.get_by_test_id("battle-number").inner_text()
    assert re.fullmatch(rf"Battle {expected.battles}( of 500)?", number)
    assert counts(page) == list(expected.counts)
    watch.check(shared_server)
    page.context.close()


@pytest.mark.parametrize(
    ("players", "hand", "seed", "knocked_out", "after"),
    [(3, "5", 1, 1, 5), (4, "4", 1, 2, 4)],
    ids=["three", "four"],
)
def test_a_bigger_table_with_a_player_knocked_out(
    browser: Browser,
    shared_server: LiveServer,
    players: int,
    hand: str,
    seed: int,
    knocked_out: int,
    after: int,
) -> None:
    """Three or four seats round the field; a computer that runs out is shown out, play goes on."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    seed_next_deals(page, seed)
    deal_with(page, Players=str(players), Cards_dealt_to_each_player=hand)
    expect(page.locator("#table")).to_have_attribute("data-players", str(players))
    assert counts(page, players) == [int(hand)] * players
    for seat in range(players, 4):
        expect(page.get_by_test_id(f"count-{seat}")).to_be_hidden()
    for _ in range(after):
        press(page, "Turn cards")
    seat = page.locator(f'.seat[data-seat="{knocked_out}"]')
    expect(seat).to_have_class(re.compile(r"\bout\b"))
    expect(seat.get_by_text("Out", exact=True)).to_be_visible()
    expect(page.get_by_test_id(f"count-{knocked_out}")).to_have_text("0")
    expect(page.get_by_test_id("message")).to_contain_text(f"Computer {knocked_out} is out.")
    expect(page.get_by_test_id("outcome")).to_be_hidden()
    audit(page)
    play_to_the_end(page)
    assert sum(counts(page, players)) == players * int(hand)
    audit(page)
    watch.check(shared_server)
    page.context.close()


def test_the_rules_line_and_the_guide_follow_the_rules(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The rules line and the guide's words change with the rules of the round on the table."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    guide = page.locator("#guide")
    expect(guide.locator('[data-guide="war"]')).to_contain_text("puts one card face down")
    expect(guide.locator('[data-guide="faq-down"]')).to_have_text(
        "One card face down, then one face up. If those face-up cards tie too, you repeat it."
    )
    expect(guide.locator('[data-guide="clock"]')).to_be_hidden()

    deal_with(page, Cards_face_down_in_a_war="3", **{"Lowest card wins (Peace)": True})
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "lowest card wins · 3 down (W-A-R) · short of cards loses · a draw after 500 battles"
    )
    expect(guide.locator('[data-guide="war"]')).to_contain_text(
        "puts three cards face down (spelling W-A-R)"
    )
    expect(guide.locator('[data-guide="faq-down"]')).to_contain_text("Three cards face down")
    expect(guide.locator('[data-guide="battle"]')).to_contain_text(
        "The lower rank takes every card turned"
    )
    expect(guide.locator('[data-guide="example"]')).to_contain_text("This is Peace")

    deal_with(page, Preset="timed")
    expect(guide.locator('[data-guide="limit"]')).to_contain_text("There is no battle limit")
    expect(guide.locator('[data-guide="limit"]')).to_contain_text("loop")
    expect(guide.locator('[data-guide="clock"]')).to_contain_text("There is a 10-minute clock")
    expect(guide.locator('[data-guide="short"]')).to_contain_text("fights on with the last one")
    expect(page.locator("#guide-rules-line")).to_have_text(
        page.get_by_test_id("rules-line").inner_text()
    )
    audit(page)
    watch.check(shared_server)
    page.context.close()


def test_house_rules_panel_explains_before_dealing(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Impossible choices cannot be made or are explained; a bad limit blocks the deal."""
    page, watch = open_page(browser, shared_server, PHONE)
    dialog = open_house_rules(page)
    audit(page)
    labels = [
        "Preset",
        "Players",
        "Cards dealt to each player",
        "Cards face down in a war",
        "A war player short of cards",
        "Won cards go under the pile",
        "Lowest card wins (Peace)",
        "No battle limit",
        "Battle limit",
        "At the battle limit",
        "Clock",
    ]
    for label in labels:
        expect(dialog.get_by_label(label, exact=True)).to_be_visible()
    war = dialog.get_by_label("Cards face down in a war", exact=True)
    options = war.locator("option").all_inner_texts()
    assert options[0].startswith("0") and options[-1] == "5" and "W-A-R" in options[3]

    choose(page, dialog, "Cards dealt to each player", "20")
    choose(page, dialog, "Players", "4")
    expect(dialog.get_by_label("Cards dealt to each player", exact=True)).to_have_value("13")
    expect(dialog.locator("#hr-notes")).to_contain_text("at most 13 cards each")
    hand_options = dialog.get_by_label("Cards dealt to each player").locator("option")
    expect(hand_options).to_have_count(14)  # the whole deck, then 1..13

    choose(page, dialog, "No battle limit", True)
    expect(dialog.get_by_label("Battle limit", exact=True)).to_be_disabled()
    expect(dialog.get_by_label("At the battle limit", exact=True)).to_be_disabled()
    expect(dialog.locator("#hr-endless")).to_be_visible()
    choose(page, dialog, "Won cards go under the pile", "shuffled")
    expect(dialog.locator("#hr-endless")).to_be_hidden()
    choose(page, dialog, "No battle limit", False)

    limit = dialog.get_by_label("Battle limit", exact=True)
    limit.fill("0")
    limit.press("Tab")
    expect(dialog.get_by_role("alert")).to_have_text(
        "Battle limit: a whole number from 1 to 100,000, or no limit."
    )
    expect(limit).to_have_attribute("aria-invalid", "true")
    deal = dialog.get_by_role("button", name="Deal with these rules")
    expect(deal).to_be_disabled()
    audit(page)
    deal.click(force=True)
    expect(dialog).to_be_visible()  # nothing was dealt
    with page.expect_response("**/api/me/house-rules"):
        limit.fill("250")
    expect(dialog.locator("#hr-error")).to_be_empty()
    expect(dialog.locator("#hr-summary")).to_have_text(
        "4 players · 13 cards each · 1 card down · short of cards loses · won cards shuffled · "
        "a draw after 250 battles"
    )
    expect(dialog.get_by_label("Preset", exact=True)).to_have_value("")
    choose(page, dialog, "Preset", "short")
    expect(dialog.get_by_label("Players", exact=True)).to_have_value("2")
    expect(dialog.get_by_label("Cards dealt to each player", exact=True)).to_have_value("13")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    watch.check(shared_server)
    page.context.close()


def test_the_servers_refusal_is_shown(browser: Browser, shared_server: LiveServer) -> None:
    """If a choice gets past the panel and the server refuses it, its 422 message is shown."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    page.route(
        "**/api/me/house-rules",
        lambda route: route.fulfill(
            status=422, json={"detail": "war_down: 9 is out of range, must be 0..5"}
        ),
    )
    dialog = open_house_rules(page)
    dialog.get_by_label("Cards face down in a war", exact=True).select_option("2")
    expect(dialog.get_by_role("alert")).to_have_text(
        "The server refused: war_down: 9 is out of range, must be 0..5"
    )
    watch.errors = [error for error in watch.errors if "422" not in error]
    watch.check(shared_server)
    page.context.close()


def test_house_rules_survive_a_reload_and_a_restart(
    browser: Browser, live_server: LiveServer
) -> None:
    """Choices are kept per browser by the server, through a reload and a server restart."""
    page, watch = open_page(browser, live_server, DESKTOP)
    dialog = open_house_rules(page)
    choose(page, dialog, "Players", "3")
    choose(page, dialog, "Cards face down in a war", "2")
    choose(page, dialog, "Won cards go under the pile", "table")
    dialog.get_by_role("button", name="Close").click()
    kept = {"Players": "3", "Cards face down in a war": "2", "Won cards go under the pile": "table"}

    for restart in (False, True):
        if restart:
            live_server.stop()
            live_server.start()
        page.reload()
        settle(page)
        dialog = open_house_rules(page)
        for label, value in kept.items():
            expect(dialog.get_by_label(label, exact=True)).to_have_value(value)
        page.keyboard.press("Escape")
    press(page, "New round")
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "3 players · 2 cards down · short of cards loses · won cards kept in order · "
        "a draw after 500 battles"
    )
    assert counts(page, 3) == [17, 17, 17]
    watch.check(live_server)
    page.context.close()


# -- the layout ------------------------------------------------------------------------------------


def test_buttons_stay_put_through_a_long_war_message(
    browser: Browser, shared_server: LiveServer
) -> None:
    """At 375 x 740 the controls are in the same place, to the pixel, whatever the message says."""
    page, watch = open_page(browser, shared_server, PHONE)
    resume_with(page, shared_server, preset="traditional", deal=LONG_WAR)
    names = ["Turn cards", "Play 10 battles", "New round", "House rules"]
    before = [button(page, name).bounding_box() for name in names]
    press(page, "Turn cards", touch=True)
    message = page.get_by_test_id("message").inner_text()
    assert "Another tie: war again!" in message and len(message) > 120
    assert [button(page, name).bounding_box() for name in names] == before
    letters = page.locator("#laid-0 .war-letter text").all_text_contents()
    assert letters == ["W", "A", "R", "W", "A", "R"]
    audit(page)
    press(page, "Play 10 battles", touch=True)
    assert [button(page, name).bounding_box() for name in names] == before
    watch.check(shared_server)
    page.context.close()


@DEVICES
@pytest.mark.parametrize("players", [2, 4])
def test_the_end_of_a_round_is_in_view_with_new_round_focused(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any], players: int
) -> None:
    """When a round ends, its outcome and New round are on screen unscrolled; New round leads."""
    page, watch = open_page(browser, shared_server, device)
    resume_with(page, shared_server, rules={"players": players}, deal=ENDS_AT_ONCE[players])
    button(page, "Turn cards").focus()
    page.keyboard.press("Enter")
    settle(page)
    outcome = page.get_by_test_id("outcome")
    expect(outcome).to_be_visible()
    expect(page.locator("#outcome-title")).to_have_text("You win!")
    assert page.evaluate("window.scrollY") == 0
    assert in_view(page, outcome)
    assert in_view(page, button(page, "New round"))
    expect(button(page, "New round")).to_be_focused()
    expect(button(page, "New round")).to_have_class(re.compile(r"\bprimary\b"))
    expect(button(page, "Turn cards")).not_to_have_class(re.compile(r"\bprimary\b"))
    audit(page)
    watch.check(shared_server)
    page.context.close()


def test_focus_stays_on_the_pressed_button_which_is_marked_busy(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A keyboard press keeps focus on its button; while busy it is marked so, never disabled."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    page.evaluate(
        """() => {
            window.seen = [];
            const observer = new MutationObserver((changes) => {
                for (const change of changes) {
                    const el = change.target;
                    window.seen.push([el.id, change.attributeName,
                                      el.getAttribute(change.attributeName)]);
                }
            });
            for (const id of ["turn", "ten", "new"]) {
                observer.observe(document.getElementById(id), {
                    attributes: true, attributeFilter: ["aria-busy", "disabled"] });
            }
        }"""
    )
    turn = button(page, "Turn cards")
    turn.focus()
    page.keyboard.press("Enter")
    settle(page)
    expect(turn).to_be_focused()
    page.keyboard.press("Space")
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 2 of 500")
    expect(turn).to_be_focused()
    page.keyboard.press("Tab")
    expect(button(page, "Play 10 battles")).to_be_focused()
    page.keyboard.press("Enter")
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 12 of 500")
    expect(button(page, "Play 10 battles")).to_be_focused()
    page.keyboard.press("t")  # a shortcut acts without moving the focus
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 13 of 500")
    expect(button(page, "Play 10 battles")).to_be_focused()
    seen = page.evaluate("window.seen")
    assert ["turn", "aria-busy", "true"] in seen and ["ten", "aria-busy", "true"] in seen
    assert not any(name == "disabled" for _, name, _ in seen)
    expect(page.locator(".keys")).to_be_visible()
    watch.check(shared_server)
    page.context.close()


def test_the_keys_line_is_hidden_on_a_touch_screen(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A touch-only phone has no keyboard, so the page does not list keys there."""
    page, watch = open_page(browser, shared_server, PHONE)
    expect(page.locator(".keys")).to_be_hidden()
    watch.check(shared_server)
    page.context.close()


def test_phone_width_has_no_sideways_scroll(browser: Browser, shared_server: LiveServer) -> None:
    """At 360 px wide, with four seats, the table, controls and guide never scroll sideways."""
    page, watch = open_page(
        browser, shared_server, {**PHONE, "viewport": {"width": 360, "height": 740}}
    )
    resume_with(page, shared_server, rules={"players": 4}, seed=3)
    press(page, "Play 10 battles", touch=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for name in ("Turn cards", "Play 10 battles", "New round"):
        box = button(page, name).bounding_box()
        assert box is not None and box["height"] >= 44 and box["x"] >= 0
        assert box["x"] + box["width"] <= 360
    watch.check(shared_server)
    page.context.close()


# -- when things go wrong --------------------------------------------------------------------------


def test_the_server_down_message(browser: Browser, shared_server: LiveServer) -> None:
    """No server: plain words in an error style, the table as it was, a retry on the next press."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    press(page, "Turn cards")
    shown = counts(page)
    cards = page.locator("#field svg.card").count()
    page.route("**/api/**", lambda route: route.abort())
    press(page, "Turn cards")
    message = page.get_by_test_id("message")
    expect(message).to_have_class(re.compile(r"\berror\b"))
    expect(message).to_have_text(
        "The game server is not answering. Check that cardwar is still running on the "
        "computer that serves this page. Press Turn cards to try again."
    )
    assert not re.search(r"[`<>*_#\[\]{}]", message.inner_text())
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    assert counts(page) == shown
    assert page.locator("#field svg.card").count() == cards
    audit(page)
    page.unroute("**/api/**")
    press(page, "Turn cards")
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 2 of 500")
    expect(message).not_to_have_class(re.compile(r"\berror\b"))
    watch.errors = [error for error in watch.errors if "ERR_FAILED" not in error]
    watch.check(shared_server)
    page.context.close()


def test_a_round_the_server_lost_is_explained(browser: Browser, shared_server: LiveServer) -> None:
    """If the server no longer has the round (its file was replaced), the page says what to do."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    page.route("**/battles", lambda route: route.fulfill(status=404, json={"detail": "gone"}))
    press(page, "Turn cards")
    expect(page.get_by_test_id("message")).to_have_text(
        "This round is no longer kept on the server. Press New round to deal again."
    )
    page.unroute("**/battles")
    press(page, "New round")
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    watch.errors = [e for e in watch.errors if "404" not in e]  # the refused request is logged
    watch.check(shared_server)
    page.context.close()


@DEVICES
def test_new_round_asks_before_throwing_a_round_away(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """Part-way through, New round asks first; Keep playing keeps the round, Deal again deals."""
    page, watch = open_page(browser, shared_server, device)
    number = page.get_by_test_id("battle-number")
    press(page, "New round")  # nothing to lose yet: no question
    expect(page.get_by_role("dialog")).to_have_count(0)
    press(page, "Turn cards")
    button(page, "New round").click()
    question = page.get_by_role("dialog", name="Throw this round away?")
    expect(question).to_be_visible()
    expect(question).to_contain_text("Your round is at battle 1.")
    expect(question.get_by_role("button", name="Keep playing")).to_be_focused()
    audit(page)
    question.get_by_role("button", name="Keep playing").click()
    expect(question).to_be_hidden()
    expect(number).to_have_text("Battle 1 of 500")
    page.keyboard.press("n")
    expect(question).to_be_visible()
    question.get_by_role("button", name="Deal again").click()
    settle(page)
    expect(number).to_have_text("Ready to turn")
    watch.check(shared_server)
    page.context.close()


# -- battles told and shown ------------------------------------------------------------------------


def test_a_war_is_laid_out_and_told(browser: Browser, shared_server: LiveServer) -> None:
    """The SPEC deal, resumed by the page: both nines, a card down each, the king takes six."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    resume_with(page, shared_server, deal=SPEC_DEAL)
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    press(page, "Turn cards")
    expect(page.get_by_test_id("message")).to_have_text(
        "War! Both turned a 9. Each lays 1 card face down and turns one up. "
        "Your K♦ beats 7♠ — you take 6 cards."
    )
    expected = {0: ["9 of spades", "king of diamonds"], 1: ["9 of hearts", "7 of spades"]}
    for seat, words in expected.items():
        laid = page.locator(f"#laid-{seat}")
        cards = laid.locator("svg.card.face").all()
        assert [card.get_attribute("aria-label") for card in cards] == words
        assert laid.locator("svg.card.back").count() == 1
        expect(laid.locator(".spread")).to_have_attribute("aria-label", "1 face down")
    expect(page.locator("#laid-0")).to_have_class(re.compile(r"\bwinner\b"))
    expect(page.locator("#laid-1")).not_to_have_class(re.compile(r"\bwinner\b"))
    assert counts(page) == [7, 1]
    watch.check(shared_server)
    page.context.close()


def test_a_loop_is_reported_in_words(browser: Browser, shared_server: LiveServer) -> None:
    """No battle limit and table order: the page says the piles came back round (`cycle`)."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    rules = {"battle_limit": None, "gather": "table"}
    created = page.request.post(
        shared_server.url + "/api/rounds", data={"rules": rules, "seed": 28}
    )
    round_id = created.json()["id"]
    page.request.post(f"{shared_server.url}/api/rounds/{round_id}/battles", data={"count": 132})
    page.reload()
    settle(page)
    expect(page.get_by_test_id("rules-line")).to_contain_text("no battle limit")
    press(page, "Turn cards")
    expect(page.locator("#outcome-title")).to_have_text("Draw")
    expect(page.locator("#outcome-why")).to_have_text(
        "After 133 battles the piles came back to an order they had before, so the round "
        "would repeat for ever."
    )
    watch.check(shared_server)
    page.context.close()


def test_a_battle_moves_quickly_and_can_be_skipped(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Cards fly in well under half a second; Play 10 shows each battle; a tap skips the rest."""
    page, watch = open_page(browser, shared_server, DESKTOP, motion="no-preference")
    plain = page.evaluate("import('/static/animate.js').then((m) => m.PLAIN_BATTLE_MS)")
    assert 0 < plain < 500
    button(page, "Turn cards").click()
    page.wait_for_function("() => document.getAnimations().length > 0")
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")

    page.evaluate(
        """() => {
            window.numbers = [];
            const number = document.getElementById("battle-number");
            new MutationObserver(() => window.numbers.push(number.textContent))
                .observe(number, { childList: true, characterData: true, subtree: true });
        }"""
    )
    press(page, "Play 10 battles")
    numbers = page.evaluate("window.numbers")
    steps = [text for i, text in enumerate(numbers) if i == 0 or text != numbers[i - 1]]
    shown = [f"Battle {n} of 500" for n in range(2, 12)]
    start = steps.index(shown[0])
    assert steps[start : start + 10] == shown  # each battle in turn, none skipped

    button(page, "Play 10 battles").click()
    page.wait_for_function("() => document.getAnimations().length > 0")
    page.locator("#field").click()  # a tap on the table skips what is left of the run
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 21 of 500")
    # Nothing of the battles is still moving (the chance meter may glide to its new value).
    running = page.evaluate(
        """() => document.getAnimations().filter((a) => a.playState === 'running'
            && !document.getElementById('chance').contains(a.effect.target)).length"""
    )
    assert running == 0
    watch.check(shared_server)
    page.context.close()


def test_reduced_motion_lands_every_battle_at_once(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With reduced motion a battle, war and all, is a plain change: no animation at all."""
    context = browser.new_context(**DESKTOP, reduced_motion="reduce")
    context.add_init_script(
        """window.animations = 0;
        const animate = Element.prototype.animate;
        Element.prototype.animate = function (...args) {
            window.animations += 1;
            return animate.apply(this, args);
        };"""
    )
    page = context.new_page()
    watch = Watch(page)
    page.goto(shared_server.url + "/")
    settle(page)
    resume_with(page, shared_server, preset="traditional", deal=LONG_WAR)
    press(page, "Turn cards")
    press(page, "Play 10 battles")
    assert page.evaluate("window.animations") == 0
    watch.check(shared_server)
    context.close()


OUTCOME_TITLES = {
    "all_cards": (0, "You win!"),
    "opponent_short": (1, "The computer wins"),
    "both_short": (None, "Draw"),
    "battle_limit": (None, "Draw"),
    "most_cards": (0, "You win!"),
    "time_up": (1, "The computer wins"),
    "most_cards_tie": (None, "Draw"),
    "cycle": (None, "Draw"),
}


def test_the_page_words_every_ending_and_shortage(
    browser: Browser, shared_server: LiveServer
) -> None:
    """render.js has a title and an explanation for every SPEC §4 reason, and tells shortages."""
    page, watch = open_page(browser, shared_server, DESKTOP)
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
                counts: [52, 0], outcome: { winner: 0, reason: "opponent_short" }, steps: [
                    { up: ["9S", "9H"], down: [0, 0], short: [] },
                    { up: [null, null], down: [0, 1], short: [1] }] }, names);
            const both = render.describeBattle({ number: 9, winner: null, taken: 0, wars: 0,
                counts: [0, 0], outcome: null, steps: [
                    { up: ["AS", "AH"], down: [0, 0], short: [] },
                    { up: [null, null], down: [0, 0], short: [0, 1] }] }, names);
            const out3 = render.describeBattle({ number: 4, winner: 2, taken: 3, wars: 0,
                counts: [20, 0, 32], outcome: null, steps: [
                    { up: ["9S", "2H", "KD"], down: [0, 0, 0], short: [] }] },
                render.seatNames(3));
            let badMessage = null;
            try { render.update({}, { type: "teleport" }); }
            catch (error) { badMessage = String(error); }
            return { out, unknown, short, both, out3, badMessage };
        }""",
        {reason: winner for reason, (winner, _) in OUTCOME_TITLES.items()},
    )
    for reason, (_, title) in OUTCOME_TITLES.items():
        assert told["out"][reason]["title"] == title
        assert len(told["out"][reason]["why"]) > 20
    assert told["out"]["most_cards"]["why"].endswith(
        "you hold the most cards: 30 of 52, 8 more than the computer."
    )
    assert told["unknown"] == "Error: unknown outcome reason: nap"
    assert told["short"] == (
        "War! Both turned a 9. The computer cannot finish the war and gives up 1 card. "
        "You take 3 cards."
    )
    assert told["both"] == (
        "War! Both turned an ace. "
        "Neither of you has enough cards left to fight it, so nobody can finish the war."
    )
    assert told["out3"] == (
        "Computer 2's K♦ beats 9♠ and 2♥ — Computer 2 takes 3 cards. Computer 1 is out."
    )
    assert told["badMessage"] == "Error: unknown message type: teleport"
    watch.check(shared_server)
    page.context.close()


def test_the_page_offers_every_value_the_rules_allow(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Each preset, and each choice of each field, is an option of the House rules panel."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    dialog = open_house_rules(page)
    values = {
        "Preset": list(PRESETS),
        "Players": ["2", "3", "4"],
        "Cards face down in a war": [str(n) for n in range(6)],
        "A war player short of cards": ["lose", "last_card"],
        "Won cards go under the pile": ["winner_first", "table", "shuffled"],
        "At the battle limit": ["draw", "most_cards"],
    }
    for label, wanted in values.items():
        options = dialog.get_by_label(label, exact=True).locator("option")
        found = [value for value in options.evaluate_all("os => os.map((o) => o.value)") if value]
        assert found == wanted
    clock = dialog.get_by_label("Clock", exact=True).locator("option")
    seconds = [int(v) for v in clock.evaluate_all("os => os.map((o) => o.value)") if v]
    assert min(seconds) == 60 and max(seconds) == 7200 and 600 in seconds
    watch.check(shared_server)
    page.context.close()


def test_out_of_cards_at_a_bigger_table_is_a_loss_and_new_round_leads(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Knocked out while the computers play on: lost at once, New round leads and asks nothing."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    deal = [["2S"], ["AS", "3C", "5D"], ["KS", "4C", "6D"]]
    resume_with(page, shared_server, rules={"players": 3}, deal=deal)
    before = int(page.get_by_test_id("lost").inner_text())
    press(page, "Turn cards")
    expect(page.get_by_test_id("message")).to_contain_text(
        "You are out of cards, so this round is lost for you."
    )
    expect(page.get_by_test_id("outcome")).to_be_hidden()
    expect(page.get_by_test_id("lost")).to_have_text(str(before + 1))
    expect(button(page, "New round")).to_have_class(re.compile(r"\bprimary\b"))
    expect(button(page, "Play 10 battles")).to_be_enabled()  # watching the rest is allowed
    press(page, "New round")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    watch.check(shared_server)
    page.context.close()


def test_a_page_that_could_not_load_tries_again_on_any_button(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With no server at first, the page says so; once it is back, Turn cards loads the table."""
    context = browser.new_context(**DESKTOP, reduced_motion="reduce")
    page = context.new_page()
    watch = Watch(page)
    page.route("**/api/**", lambda route: route.abort())
    page.goto(shared_server.url + "/")
    settle(page)
    message = page.get_by_test_id("message")
    expect(message).to_have_class(re.compile(r"\berror\b"))
    expect(message).to_contain_text("Press any button to try again.")
    expect(page.get_by_test_id("battle-number")).to_have_text("Dealing…")
    expect(button(page, "Turn cards")).to_be_enabled()
    audit(page)
    page.unroute("**/api/**")
    press(page, "Turn cards")
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    expect(message).not_to_have_class(re.compile(r"\berror\b"))
    watch.errors = [error for error in watch.errors if "ERR_FAILED" not in error]
    watch.check(shared_server)
    context.close()


def test_the_words_wait_for_the_cards(browser: Browser, shared_server: LiveServer) -> None:
    """The message tells a battle only once its cards have landed, never before."""
    page, watch = open_page(browser, shared_server, DESKTOP, motion="no-preference")
    page.evaluate(
        """() => {
            window.said = [];
            const box = document.getElementById("message");
            new MutationObserver(() => {
                const moving = document.getAnimations().filter(
                    (a) => a.playState === "running" && a.effect.target.classList.contains("card"));
                window.said.push([box.textContent, moving.length]);
            }).observe(box, { childList: true, characterData: true, subtree: true });
        }"""
    )
    press(page, "Turn cards")
    press(page, "Play 10 battles")
    said = page.evaluate("window.said")
    told = [(text, moving) for text, moving in said if "take" in text]
    assert len(told) == 2 and told[1][0].startswith("Battles 2–11:")
    assert [moving for _, moving in told] == [0, 0]
    assert "Playing battles 2–11…" in [text for text, _ in said]
    watch.check(shared_server)
    page.context.close()


def test_a_long_message_can_be_scrolled_and_says_so(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A message longer than its box is marked, focusable and scrollable (not cut off)."""
    page, watch = open_page(browser, shared_server, PHONE)
    page.evaluate(
        """() => {
            const box = document.getElementById("message");
            box.textContent = "War! ".repeat(80);
            box.dispatchEvent(new Event("check"));
        }"""
    )
    resume_with(page, shared_server, rules={"players": 4}, seed=3)
    for _ in range(12):
        press(page, "Play 10 battles", touch=True)
        box = page.get_by_test_id("message")
        if box.get_attribute("tabindex") == "0":
            break
    box = page.get_by_test_id("message")
    overflows = box.evaluate("el => el.scrollHeight > el.clientHeight")
    assert overflows == (box.get_attribute("tabindex") == "0")
    assert overflows == ("overflows" in (box.get_attribute("class") or ""))
    audit(page)
    watch.check(shared_server)
    page.context.close()


@DEVICES
def test_every_state_of_the_table_passes_the_audit(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """axe-core finds no WCAG 2.1 AA violation in any state a player meets, on both screens:
    a fresh deal, a war with W-A-R laid out, a long message, House rules (with a problem shown),
    New round's question, a server that does not answer, three and four seats with a seat out,
    and a round's end."""
    touch = bool(device.get("has_touch"))
    page, watch = open_page(browser, shared_server, device)
    audit(page)  # a fresh deal
    resume_with(page, shared_server, preset="traditional", deal=LONG_WAR)
    press(page, "Turn cards", touch)
    audit(page)  # a double war of three down, a long message
    dialog = open_house_rules(page)
    limit = dialog.get_by_label("Battle limit", exact=True)
    dialog.get_by_label("No battle limit", exact=True).set_checked(False)
    limit.fill("0")
    limit.press("Tab")
    expect(dialog.get_by_role("alert")).not_to_be_empty()
    audit(page)  # the panel, with a problem explained
    page.keyboard.press("Escape")
    button(page, "New round").click()
    expect(page.get_by_role("dialog", name="Throw this round away?")).to_be_visible()
    audit(page)  # New round's question
    page.get_by_role("button", name="Keep playing").click()
    page.route("**/api/**", lambda route: route.abort())
    press(page, "Turn cards", touch)
    expect(page.get_by_test_id("message")).to_have_class(re.compile(r"\berror\b"))
    audit(page)  # the server-down message
    page.unroute("**/api/**")
    for players, deal in ((3, [["2S", "QH"], ["AS", "3C"], ["2H", "4C"]]), (4, None)):
        if deal:
            resume_with(page, shared_server, rules={"players": players}, deal=deal)
        else:
            resume_with(page, shared_server, rules={"players": players, "hand_size": 4}, seed=1)
        for _ in range(4):
            press(page, "Turn cards", touch)
        audit(page)  # a bigger table, a seat out
    resume_with(page, shared_server, deal=ENDS_AT_ONCE[2])
    press(page, "Turn cards", touch)
    expect(page.get_by_test_id("outcome")).to_be_visible()
    audit(page)  # a round's end
    watch.errors = [error for error in watch.errors if "ERR_FAILED" not in error]
    watch.check(shared_server)
    page.context.close()


@DEVICES
def test_the_chance_meter_and_the_statistics_view(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """After a battle the meter shows your chance from here and says what it means; the
    Statistics view plays the house rules' rounds and draws their endings and histograms."""
    page, watch = open_page(browser, shared_server, device)
    press(page, "Turn cards", bool(device.get("has_touch")))
    meter = page.get_by_test_id("chance")
    expect(meter).to_have_text(re.compile(r"^\d{1,3}%$"))
    expect(page.locator("#chance-words")).to_contain_text("If every pile were shuffled now")
    dialog = open_house_rules(page)
    choose(page, dialog, "Players", "3")
    dialog.get_by_role("button", name="Close").click()
    expect(page.locator("#stats-rules-line")).to_contain_text("3 players")
    page.get_by_label("Rounds to play").fill("5000")
    page.get_by_role("button", name="Play them").click()
    result = page.locator("#stats-result")
    expect(result).to_be_visible(timeout=20_000)
    expect(page.locator("#stats-played")).to_contain_text("5,000 rounds played")
    expect(page.locator("#stats-legend")).to_contain_text("Computer 2 won")
    assert page.locator("#stats-battles svg.histogram rect.bin").count() > 5
    label = page.locator("#stats-battles svg").get_attribute("aria-label") or ""
    assert label.startswith("Rounds by battles: the most rounds")
    audit(page)
    page.get_by_label("Rounds to play").fill("0")
    page.get_by_role("button", name="Play them").click()
    expect(page.locator("#stats-error")).to_have_text(
        "Rounds to play: a whole number from 1 to 200,000."
    )
    watch.check(shared_server)
    page.context.close()
