"""How the table looks: cards that fill it, a phone held sideways, dark and large, the celebration.

Playwright drives Debian's Chromium against `cardwar serve`. Every test checks that the page logged
no console error and asked for nothing outside the server, and the axe audit (WCAG 2.1 AA) runs in
each colour scheme and card option. Sizes are measured, never compared with pictures.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from browsing import (  # the browser tests' helpers
    DESKTOP,
    ENDS_AT_ONCE,
    PHONE,
    Watch,
    audit,
    button,
    deal_to_people,
    in_view,
    open_house_rules,
    open_page,
    press,
    resume_with,
    settle,
)
from live import LiveServer

SIDEWAYS: dict[str, Any] = {
    "viewport": {"width": 740, "height": 375},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
WIDE: dict[str, Any] = {"viewport": {"width": 1920, "height": 1080}}
# From the smallest screen to the biggest: the cards must grow in this order.
SCREENS = [PHONE, SIDEWAYS, DESKTOP, WIDE]
SCREEN_IDS = ["375x740", "740x375", "1280x800", "1920x1080"]

# Classic: a plain battle, then a war at battle 2 (a nine each; a king beats a seven).
WAR_SECOND = [
    ["5H", "9S", "2C", "KD", "6H", "8H", "3D", "QS"],
    ["4C", "9H", "3C", "7S", "7C", "2D", "4D", "5D"],
]
# Traditional (three cards down): a war between the first and the third seat at once, so every
# seat lays cards and the widest spread is on the table.
WAR_AT_A_BIG_TABLE = {
    3: [
        ["9S", "2C", "3C", "4C", "KD", "AH"],
        ["5H", "2D", "3D", "4D", "7S", "2H"],
        ["9C", "6D", "6C", "6H", "8S", "3H"],
    ],
    4: [
        ["9S", "2C", "3C", "4C", "KD", "AH"],
        ["5H", "2D", "3D", "4D", "7S", "2H"],
        ["9C", "6D", "6C", "6H", "8S", "3H"],
        ["9D", "7D", "7C", "7H", "8D", "4S"],
    ],
}
# One card of each suit on the table: the king of diamonds beats the five of clubs.
SUITS_DEAL = [["KD", "2H", "3S"], ["5C", "AH", "4S"]]

Box = dict[str, float]


def box(locator: Locator) -> Box:
    """The element's box on the page, which must be drawn."""
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not drawn"
    return found


def inside(inner: Box, outer: Box, slack: float = 0.5) -> bool:
    """True when `inner` lies wholly within `outer`."""
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def overlap(a: Box, b: Box, slack: float = 0.5) -> bool:
    """True when the two boxes share more than a sliver."""
    return (
        a["x"] + slack < b["x"] + b["width"]
        and b["x"] + slack < a["x"] + a["width"]
        and a["y"] + slack < b["y"] + b["height"]
        and b["y"] + slack < a["y"] + a["height"]
    )


def cards_on_the_table(page: Page, players: int) -> list[tuple[str, Box]]:
    """Every pile's top card and every card laid this battle, each with its box."""
    found = []
    for seat in range(players):
        found.append((f"pile {seat}", box(page.locator(f'.seat[data-seat="{seat}"] .stack .card'))))
        for i, card in enumerate(page.locator(f"#laid-{seat} svg.card").all()):
            found.append((f"laid {seat}.{i}", box(card)))
    return found


def scrolled(page: Page) -> list[float]:
    """How far the document is scrolled, down and across."""
    return page.evaluate("[window.scrollY, window.scrollX]")


def import_celebrate(page: Page) -> None:
    """Load the page's own celebrate.js (beside app.js, wherever the page was served it from)."""
    page.evaluate(
        """async () => {
            const app = document.querySelector('script[type="module"]').src;
            window.celebration = await import(new URL("celebrate.js", app).href);
        }"""
    )


def colour(page: Page, selector: str) -> str:
    """The computed text colour of the first element `selector` finds."""
    return page.locator(selector).first.evaluate("el => getComputedStyle(el).color")


# -- cards that fill the table ---------------------------------------------------------------------


def test_two_players_cards_fill_the_table_and_grow_with_the_screen(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Every card is at least a third of the table's height, and bigger on each bigger screen."""
    heights = []
    for device in SCREENS:
        page, watch = open_page(browser, shared_server, device)
        resume_with(page, shared_server, deal=WAR_SECOND)
        press(page, "Turn cards", touch=bool(device.get("has_touch")))
        table = box(page.locator("#table"))
        assert in_view(page, page.locator("#table")), "the whole table is on screen"
        cards = cards_on_the_table(page, 2)
        assert len(cards) == 4  # two piles, a card laid by each
        for name, card in cards:
            assert card["height"] >= table["height"] / 3, (name, card, table)
            assert card["height"] == pytest.approx(card["width"] * 1.4, abs=1.5)
            assert inside(card, table), name
        heights.append(min(card["height"] for _, card in cards))
        audit(page)
        watch.check(shared_server)
        page.context.close()
    assert heights == sorted(heights) and len(set(heights)) == len(heights), heights


def assert_all_apart(page: Page, players: int) -> None:
    """No pile, row of laid cards or seat's label touches another, or leaves the table."""
    table = box(page.locator("#table"))
    assert in_view(page, page.locator("#table"))
    size = page.viewport_size
    assert size is not None
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    parts = []
    for seat in range(players):
        parts.append((f"pile {seat}", box(page.locator(f'.seat[data-seat="{seat}"] .stack'))))
        parts.append((f"label {seat}", box(page.locator(f'.seat[data-seat="{seat}"] .seat-label'))))
        row = page.locator(f"#laid-{seat} .spread")
        if row.count():
            parts.append((f"laid {seat}", box(row)))
    for name, part in parts:
        assert inside(part, table), (name, part, table)
    for i, (name, part) in enumerate(parts):
        for other, other_part in parts[i + 1 :]:
            assert not overlap(part, other_part), (name, other, part, other_part)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("device", SCREENS, ids=SCREEN_IDS)
def test_three_and_four_seats_scale_down_with_nothing_cut_off(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any], players: int
) -> None:
    """Three or four seats, dealt or in a war: nothing overlaps or leaves, cards stay readable."""
    page, watch = open_page(browser, shared_server, device)
    resume_with(page, shared_server, rules={"players": players}, seed=11)
    assert_all_apart(page, players)  # full piles: the longest labels ("Computer 1 17 cards")
    resume_with(
        page,
        shared_server,
        preset="traditional",
        rules={"players": players},
        deal=WAR_AT_A_BIG_TABLE[players],
    )
    press(page, "Turn cards", touch=bool(device.get("has_touch")))
    expect(page.get_by_test_id("message")).to_contain_text("War!")
    assert_all_apart(page, players)  # the widest rows of laid cards
    for name, card in cards_on_the_table(page, players):
        assert card["width"] >= 50, (name, card)  # smaller than two seats' cards, still readable
    watch.check(shared_server)
    page.context.close()


def test_the_replay_shows_bigger_cards_than_it_did(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The replay's cards are larger than the 40 x 56 they were, on a phone and a desktop."""
    for device in (PHONE, DESKTOP):
        page, watch = open_page(browser, shared_server, device)
        resume_with(page, shared_server, deal=ENDS_AT_ONCE[2])
        press(page, "Turn cards")
        button(page, "Watch the replay").click()
        dialog = page.get_by_role("dialog", name="Watch the replay")
        expect(dialog).to_be_visible()
        expect(dialog.locator(".replay-cards svg.card")).to_have_count(2)
        for card in dialog.locator(".replay-cards svg.card").all():
            size = box(card)
            assert size["width"] > 40 and size["height"] > 56, size
        audit(page)
        watch.check(shared_server)
        page.context.close()


# You and Mia at one device: the real two-person table, a Flip button in each of the two seats.
YOU_AND_MIA = [
    {"kind": "person", "name": ""},
    {"kind": "person", "name": "Mia"},
    {"kind": "computer", "name": ""},
    {"kind": "computer", "name": ""},
]
FLIPS = ("Flip — You", "Flip — Mia")


def flips_clear_of_the_cards(page: Page) -> float:
    """Both Flip buttons lie inside the table, clear of every card on it and of each other, and
    the table is wholly in view; the smallest card's height over the table's."""
    table = box(page.locator("#table"))
    assert in_view(page, page.locator("#table")), "the whole table is on screen"
    cards = cards_on_the_table(page, 2)
    flips = [(name, box(button(page, name))) for name in FLIPS]
    for name, flip in flips:
        assert inside(flip, table), (name, flip, table)
        for card_name, card in cards:
            assert not overlap(flip, card), (name, card_name, flip, card)
    assert not overlap(flips[0][1], flips[1][1]), flips
    return min(card["height"] for _, card in cards) / table["height"]


@pytest.mark.parametrize("device", SCREENS, ids=SCREEN_IDS)
def test_a_flip_button_in_a_seat_keeps_the_table_on_screen(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """With two people at the table, each one's Flip button sits in their seat's slot, inside
    the table and clear of every card (the piles' tops and the cards laid), before a battle,
    after a plain one and after a war, with the whole table in view and the cards still big for
    it: on every screen. (Sideways, the button once ran under the pile.)"""
    page, watch = open_page(browser, shared_server, device)
    assert page.locator(".seat .flips").count() == 4
    for seat in range(4):  # one player: a slot in every seat, empty
        slot = page.locator(f'.seat[data-seat="{seat}"] > .flips[data-seat="{seat}"]')
        expect(slot).to_have_count(1)
        expect(slot).to_be_empty()
    deal_to_people(page, shared_server, YOU_AND_MIA, deal=WAR_SECOND)
    for seat, name in enumerate(FLIPS):
        slot = page.locator(f'.seat[data-seat="{seat}"] > .flips[data-seat="{seat}"]')
        expect(slot.get_by_role("button", name=name, exact=True)).to_be_visible()
    for seat in (2, 3):
        expect(page.locator(f'.flips[data-seat="{seat}"]')).to_be_empty()
    shares = [flips_clear_of_the_cards(page)]
    audit(page)

    touch = bool(device.get("has_touch"))
    for number, told in ((1, "beats"), (2, "War!")):  # a plain battle, then a war
        for name in FLIPS:
            press(page, name, touch)
        expect(page.get_by_test_id("battle-number")).to_have_text(f"Battle {number} of 500")
        expect(page.get_by_test_id("message")).to_contain_text(told)
        shares.append(flips_clear_of_the_cards(page))
    audit(page)
    watch.check(shared_server)
    page.context.close()

    # Every card at least a third of the table's height, as with no one else at the table (the
    # test above): a person's Flip button stands beside their name, not in a row of its own.
    assert min(shares) >= 1 / 3, shares


# -- a phone held sideways -------------------------------------------------------------------------


def test_a_phone_held_sideways_plays_without_scrolling(
    browser: Browser, shared_server: LiveServer
) -> None:
    """At 740 x 375 the table, both piles and every control stay in view, unscrolled, in play."""
    page, watch = open_page(browser, shared_server, SIDEWAYS, motion="no-preference")
    resume_with(page, shared_server, deal=WAR_SECOND)
    in_sight = [
        page.locator("#table"),
        page.locator('.seat[data-seat="0"] .stack'),
        page.locator('.seat[data-seat="1"] .stack'),
        page.get_by_test_id("message"),
        page.get_by_test_id("battle-number"),
        *(button(page, name) for name in ("Turn cards", "Play 10 battles", "Play to end")),
        button(page, "New round"),
        button(page, "House rules"),
    ]
    told = []
    for _ in range(4):  # a plain battle, the war, two more
        assert scrolled(page) == [0, 0]
        for locator in in_sight:
            assert in_view(page, locator), locator
        press(page, "Turn cards", touch=True)
        told.append(page.get_by_test_id("message").inner_text())
        assert scrolled(page) == [0, 0]
    assert any(text.startswith("War!") for text in told), told
    for locator in in_sight:
        assert in_view(page, locator), locator
    assert page.evaluate("document.documentElement.scrollWidth") <= 740
    audit(page)
    watch.check(shared_server)
    page.context.close()


# -- dark and large --------------------------------------------------------------------------------

LIGHT_PAGE = "rgb(238, 241, 236)"
DARK_PAGE = "rgb(15, 21, 18)"


def test_the_colours_follow_the_device_and_can_be_chosen(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Dark on a dark device; Light or Dark chosen in Table settings wins, kept over a reload."""
    context = browser.new_context(**DESKTOP, color_scheme="dark", reduced_motion="reduce")
    # The scheme must be on the page before the table is: no flash of the other colours.
    context.add_init_script(
        """new MutationObserver((changes, observer) => {
            if (!document.getElementById("table")) return;
            window.themeAtTable = document.documentElement.dataset.theme ?? "system";
            observer.disconnect();
        }).observe(document, { childList: true, subtree: true });"""
    )
    page = context.new_page()
    watch = Watch(page)
    page.goto(shared_server.url + "/")
    settle(page)
    html = page.locator("html")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == DARK_PAGE
    expect(html).not_to_have_attribute("data-theme", re.compile(".*"))
    colours = page.get_by_label("Colours", exact=True)
    expect(colours).to_have_value("system")
    press(page, "Turn cards")
    audit(page)

    colours.select_option("light")
    expect(html).to_have_attribute("data-theme", "light")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == LIGHT_PAGE
    page.reload()
    settle(page)
    assert page.evaluate("window.themeAtTable") == "light"
    expect(colours).to_have_value("light")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == LIGHT_PAGE

    colours.select_option("dark")
    page.reload()
    settle(page)
    assert page.evaluate("window.themeAtTable") == "dark"
    expect(html).to_have_attribute("data-theme", "dark")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == DARK_PAGE
    dialog = open_house_rules(page)
    audit(page)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    colours.select_option("system")
    expect(html).not_to_have_attribute("data-theme", re.compile(".*"))
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == DARK_PAGE
    page.emulate_media(color_scheme="light")  # the device changes its mind: the page follows
    expect(html).to_have_attribute("data-scheme", "light")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == LIGHT_PAGE
    watch.check(shared_server)
    context.close()


def test_a_light_device_gets_the_dark_table_when_chosen(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Dark chosen on a light device darkens the page, the message and the dialogs, all readable."""
    page, watch = open_page(browser, shared_server, PHONE)
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == LIGHT_PAGE
    page.get_by_label("Colours", exact=True).select_option("dark")
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == DARK_PAGE
    message = page.get_by_test_id("message")
    # The caption has no box of its own: it is the page's light ink on the dark page.
    assert message.evaluate("el => getComputedStyle(el).backgroundColor") == "rgba(0, 0, 0, 0)"
    ink = page.evaluate("getComputedStyle(document.body).color")
    assert message.evaluate("el => getComputedStyle(el).color") == ink != "rgb(0, 0, 0)"
    resume_with(page, shared_server, deal=ENDS_AT_ONCE[2])
    press(page, "Turn cards", touch=True)
    expect(page.get_by_test_id("outcome")).to_be_visible()
    audit(page)
    button(page, "Watch the replay").click()
    expect(page.get_by_role("dialog", name="Watch the replay")).to_be_visible()
    audit(page)
    watch.check(shared_server)
    page.context.close()


RED = "rgb(184, 35, 42)"
BLACK = "rgb(29, 35, 42)"
BLUE = "rgb(29, 79, 196)"
GREEN = "rgb(18, 112, 58)"


def test_four_colour_suits_colour_the_cards_and_the_words(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Four-colour suits: diamonds blue and clubs green on the cards and in the words, kept."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    resume_with(page, shared_server, deal=SUITS_DEAL)
    press(page, "Turn cards")
    king, five = '#field svg.card[data-code="KD"]', '#field svg.card[data-code="5C"]'
    assert (colour(page, king), colour(page, five)) == (RED, BLACK)
    switch = button(page, "Four-colour suits")
    expect(switch).to_have_attribute("aria-pressed", "false")
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "true")
    expect(page.locator("html")).to_have_attribute("data-suits", "four")
    assert (colour(page, king), colour(page, five)) == (BLUE, GREEN)
    # The words name the same cards: their suit signs take the same colours.
    message = page.get_by_test_id("message")
    expect(message).to_contain_text("K♦")
    assert colour(page, "#message .suit-D") == BLUE
    assert colour(page, "#message .suit-C") == GREEN
    audit(page)

    page.reload()
    settle(page)
    expect(button(page, "Four-colour suits")).to_have_attribute("aria-pressed", "true")
    assert (colour(page, king), colour(page, five)) == (BLUE, GREEN)
    press(page, "Turn cards")  # the hearts and the spades keep their colours
    assert colour(page, '#field svg.card[data-code="2H"]') == RED
    assert colour(page, '#field svg.card[data-code="AH"]') == RED
    page.get_by_label("Colours", exact=True).select_option("dark")
    assert colour(page, "#message .suit-H") == "rgb(255, 144, 144)"  # readable on the dark box
    press(page, "Turn cards")  # spades: black on a card, light in words on the dark page
    assert colour(page, '#field svg.card[data-code="4S"]') == BLACK
    assert colour(page, "#message .suit-S") == "rgb(231, 236, 232)"
    audit(page)
    button(page, "Four-colour suits").click()
    expect(page.locator("html")).not_to_have_attribute("data-suits", re.compile(".*"))
    assert colour(page, '#field svg.card[data-code="4S"]') == BLACK
    assert colour(page, "#message .suit-S") == "rgb(231, 236, 232)"  # the words' own colour
    watch.check(shared_server)
    page.context.close()


def test_extra_large_cards_print_a_jumbo_index_and_are_kept(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Extra-large cards: the corner index grows by half again and the cards are no smaller
    where the screen's height bounds them (this phone), a tenth bigger at least where the
    table's width does (a taller phone); kept."""
    page, watch = open_page(browser, shared_server, PHONE)
    resume_with(page, shared_server, deal=SUITS_DEAL)
    press(page, "Turn cards", touch=True)
    corner = page.locator('#laid-0 svg.card[data-code="KD"] .corner').first
    card = page.locator('#laid-0 svg.card[data-code="KD"]')
    before, card_before = box(corner), box(card)
    switch = button(page, "Extra-large cards")
    switch.tap()
    expect(switch).to_have_attribute("aria-pressed", "true")
    expect(page.locator("html")).to_have_attribute("data-cards", "large")
    after, card_after = box(corner), box(card)
    assert after["height"] >= before["height"] * 1.45, (before, after)
    assert card_after["width"] >= card_before["width"] - 0.5, (card_before, card_after)
    audit(page)
    page.reload()
    settle(page)
    expect(button(page, "Extra-large cards")).to_have_attribute("aria-pressed", "true")
    assert box(page.locator('#laid-0 svg.card[data-code="KD"] .corner').first)["height"] == (
        pytest.approx(after["height"], abs=1)
    )
    button(page, "Four-colour suits").tap()
    page.get_by_label("Colours", exact=True).select_option("dark")
    audit(page)  # all three at once
    watch.check(shared_server)
    page.context.close()

    tall = {**PHONE, "viewport": {"width": 390, "height": 844}}  # the table's width bounds it
    page, watch = open_page(browser, shared_server, tall)
    pile = page.locator('.seat[data-seat="0"] .stack .card')
    normal = box(pile)
    button(page, "Extra-large cards").tap()
    expect(page.locator("html")).to_have_attribute("data-cards", "large")
    large = box(pile)
    assert large["width"] >= normal["width"] * 1.1, (normal, large)
    audit(page)
    watch.check(shared_server)
    page.context.close()


# -- the celebration -------------------------------------------------------------------------------

# The celebration's animations still playing (a CSS transition elsewhere on the page is not one).
CELEBRATING = """document.getAnimations().filter(
    (a) => a.playState === "running" && a.effect?.target?.closest?.(".celebration")).length"""


def test_a_celebration_plays_and_any_press_ends_it_at_once(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Cards and confetti burst round the result; a match gets more, and stars; a key ends it,
    a click still clicks, and left alone it ends by itself."""
    page, watch = open_page(browser, shared_server, DESKTOP, motion="no-preference")
    import_celebrate(page)
    page.evaluate(
        """() => { window.ended = false;
            celebration.celebrate({ kind: "round" }).then(() => { window.ended = true; }); }"""
    )
    layer = page.get_by_test_id("celebration")
    expect(layer).to_be_visible()
    expect(layer).to_have_attribute("data-kind", "round")
    round_cards = layer.locator(".piece.card").count()
    assert round_cards >= 20 and layer.locator(".star").count() == 0
    assert page.evaluate(CELEBRATING) > 0
    page.keyboard.press("x")
    page.wait_for_function("() => window.ended === true")
    expect(layer).to_have_count(0)
    assert page.evaluate(CELEBRATING) == 0

    # A click on a button under the celebration ends it and presses the button too.
    page.evaluate(
        """() => { window.ended = false;
            celebration.celebrate({ kind: "match" }).then(() => { window.ended = true; }); }"""
    )
    expect(layer).to_have_attribute("data-kind", "match")
    assert layer.locator(".piece.card").count() > round_cards  # a match won: more still
    assert layer.locator(".star").count() > 0
    press(page, "Turn cards")
    page.wait_for_function("() => window.ended === true")
    expect(layer).to_have_count(0)
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")

    # Left alone, it ends by itself.
    page.evaluate(
        """() => { window.ended = false;
            celebration.celebrate({ kind: "match" }).then(() => { window.ended = true; }); }"""
    )
    page.wait_for_function("() => window.ended === true", timeout=30_000)
    expect(layer).to_have_count(0)
    watch.check(shared_server)
    page.context.close()


def test_under_reduced_motion_the_result_is_the_moment(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With reduced motion nothing moves: no party at all (it is over at once), and a round won
    outright shows its one result, which passes the audit."""
    page, watch = open_page(browser, shared_server, PHONE)
    import_celebrate(page)
    assert page.evaluate("() => celebration.celebrate({ kind: 'round' }).then(() => true)")
    expect(page.get_by_test_id("celebration")).to_have_count(0)
    resume_with(page, shared_server, deal=ENDS_AT_ONCE[2])
    press(page, "Turn cards", touch=True)
    expect(page.locator("#outcome-title")).to_have_text("You win!")
    expect(page.get_by_test_id("celebration")).to_have_count(0)
    audit(page)
    watch.check(shared_server)
    page.context.close()


# -- the seams -------------------------------------------------------------------------------------


def test_the_table_settings_hold_the_sound_switch_and_the_chance_meter_its_hide_button(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Sound sits with the Table settings, each a toggle button; Hide beside the chance meter,
    a button whose name says what it does (Hide, then Show your chance)."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    settings = page.get_by_role("group", name="Table settings")
    for name in ("Sound", "Four-colour suits", "Extra-large cards"):
        expect(settings.get_by_role("button", name=name, exact=True)).to_have_attribute(
            "aria-pressed", re.compile("^(true|false)$")
        )
    expect(settings.get_by_label("Colours", exact=True)).to_be_visible()
    expect(page.locator("#sound")).to_have_attribute("aria-pressed", "true")
    hide = page.locator(".chance-area > #chance-hide")
    expect(hide).not_to_have_attribute("aria-pressed", re.compile(".*"))
    expect(hide).to_have_text("Hide")
    audit(page)
    watch.check(shared_server)
    page.context.close()
