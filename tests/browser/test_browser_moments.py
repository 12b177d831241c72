"""The moments a player feels at the table: Space flips wherever the focus is, a tap on your own
pile flips it, and at a shared table the Flip button that the table waits for pulses.

The helpers are browsing.py here; every test checks for console errors and requests that leave
the server, and the server is the real one, dealing known deals through its API."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from browsing import (  # the browser tests' helpers
    DESKTOP,
    EXAMPLE_DEAL,
    PHONE,
    audit,
    button,
    deal_to_people,
    open_house_rules,
    open_noting_celebrations,
    open_page,
    resume_with,
    settle,
)
from live import LiveServer

PEOPLE = [
    {"kind": "person", "name": "You"},
    {"kind": "person", "name": "Mia"},
    {"kind": "computer", "name": "Computer 2"},
    {"kind": "computer", "name": "Computer 3"},
]


def test_space_flips_wherever_the_focus_is_but_in_a_field_or_a_dialog(
    browser: Browser, shared_server: LiveServer
) -> None:
    """After "Deal with these rules" the focus is on Turn cards, and Space plays a battle; with
    the focus on House rules or New round, Space still flips and opens nothing; in a dialog's
    field Space types; once the round is over, Space on Play again deals again."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    number = page.get_by_test_id("battle-number")
    dialog = open_house_rules(page)
    dialog.get_by_role("button", name="Deal with these rules").click()
    expect(dialog).to_be_hidden()
    settle(page)
    expect(button(page, "Turn cards")).to_be_focused()
    page.keyboard.press("Space")
    settle(page)
    expect(number).to_have_text("Battle 1 of 500")

    button(page, "House rules").focus()
    page.keyboard.press("Space")
    settle(page)
    expect(number).to_have_text("Battle 2 of 500")
    expect(page.get_by_role("dialog", name="House rules")).to_be_hidden()
    button(page, "New round").focus()
    page.keyboard.press("Space")
    settle(page)
    expect(number).to_have_text("Battle 3 of 500")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(button(page, "New round")).to_be_focused()  # a key moves no focus

    dialog = open_house_rules(page)
    name = dialog.get_by_label("Your name", exact=True)
    name.focus()
    page.keyboard.type("Jo Ann")
    expect(name).to_have_value("Jo Ann")
    expect(number).to_have_text("Battle 3 of 500")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    page.request.post(
        shared_server.url + "/api/rounds", data={"deal": [["AS", "KS"], ["2H"]]}
    )  # a round over in one battle, dealt for this browser
    page.reload()
    settle(page)
    button(page, "Turn cards").click()
    settle(page)
    expect(page.get_by_test_id("outcome")).to_be_visible()
    expect(button(page, "Play again")).to_be_focused()
    page.keyboard.press("Space")  # nothing to flip: the focused Play again deals
    settle(page)
    expect(number).to_have_text("Ready to turn")
    expect(button(page, "Turn cards")).to_be_focused()
    watch.check(shared_server)
    page.context.close()


def test_a_tap_on_your_pile_flips_it(browser: Browser, shared_server: LiveServer) -> None:
    """On a phone, a tap on your own pile plays a battle, as Turn cards; the computer's pile
    does nothing; your pile shows a pointer and, on a first visit, a hint that goes once a
    battle has been played, and stays gone after a reload."""
    page, watch = open_page(browser, shared_server, PHONE)
    number = page.get_by_test_id("battle-number")
    yours = page.locator('.seat[data-seat="0"] .stack')
    hint = yours.locator(".pile-hint")
    expect(hint).to_be_visible()
    expect(hint).to_have_text("Tap your pile to turn")
    assert yours.evaluate("el => getComputedStyle(el).cursor") == "pointer"
    audit(page)
    page.locator('.seat[data-seat="1"] .stack').tap()
    settle(page)
    expect(number).to_have_text("Ready to turn")
    yours.tap()
    settle(page)
    expect(number).to_have_text("Battle 1 of 500")
    expect(hint).to_be_hidden()
    yours.tap()
    settle(page)
    expect(number).to_have_text("Battle 2 of 500")
    page.reload()
    settle(page)
    expect(hint).to_be_hidden()
    watch.check(shared_server)
    page.context.close()


def test_at_a_shared_table_each_pile_is_its_persons_flip(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With Mia at the table, a click on your pile is your flip and Mia's Flip button pulses
    while the table waits for her; a click on her pile is hers, and the battle plays."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    deal_to_people(page, shared_server, PEOPLE, deal=EXAMPLE_DEAL)
    mine, hers = button(page, "Flip — You"), button(page, "Flip — Mia")
    expect(hers).not_to_have_class("flip waiting")
    page.locator('.seat[data-seat="0"] .stack').click()
    settle(page)
    expect(page.get_by_test_id("message")).to_have_text("You are ready. Waiting for Mia to flip.")
    expect(hers).to_have_class("flip waiting")
    expect(mine).to_have_class("flip flipped")
    audit(page)
    page.locator('.seat[data-seat="1"] .stack').click()
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    expect(hers).to_have_class("flip")
    watch.check(shared_server)
    page.context.close()


def test_the_statistics_words_and_their_axes(browser: Browser, shared_server: LiveServer) -> None:
    """A run too quick to time says so in words, each seat's share is named with a capital, and
    a histogram's axis is marked at round numbers with its end named, the marks never crowding
    the end; the view itself shows a swatch beside each share."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    told = page.evaluate(
        """async () => {
            const charts = await import("/static/charts.js");
            const result = { rounds: 20000, rounds_asked: 20000, stopped_by_time: false,
                seconds: 0.04, wins: [8600, 8600], draws: 2800, reasons: { all_cards: 17200,
                battle_limit: 2800 }, battles: { mean: 270.5, median: 210, p90: 500, max: 500 },
                wars_per_round: { mean: 17.2, max: 60 } };
            const shown = charts.statsView(result, ["You", "Computer"]);
            const svg = charts.histogramSvg([0, 3, 9, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
                { title: "Rounds by battles", unit: "battles" });
            const marks = [...new DOMParser().parseFromString(svg, "image/svg+xml")
                .querySelectorAll("text.tick")].map((tick) => tick.textContent);
            const slow = charts.statsView({ ...result, seconds: 1.26 }, ["You", "Computer"]);
            return { played: shown.played, slow: slow.played, marks,
                labels: shown.outcome.map((p) => p.label),
                ticks: [1, 7, 37, 100, 143, 65535].map((last) => charts.axisTicks(last)) };
        }"""
    )
    assert told["played"] == "20,000 rounds played in under a tenth of a second."
    assert told["slow"] == "20,000 rounds played in 1.3 seconds."
    assert told["labels"] == ["You won", "Computer won", "Drawn"]
    assert told["marks"] == ["0", "10", "20", "37 battles"]
    assert told["ticks"] == [
        [0, 1],
        [0, 2, 4, 7],
        [0, 10, 20, 37],
        [0, 50, 100],
        [0, 50, 100, 143],
        [0, 20000, 40000, 65535],
    ]
    page.get_by_label("Rounds to play").fill("2000")
    page.get_by_role("button", name="Play them").click()
    legend = page.locator("#stats-legend")
    expect(legend).to_contain_text("You won")
    expect(legend.locator(".legend-item svg.swatch")).to_have_count(3)
    audit(page)
    watch.check(shared_server)
    page.context.close()


SCREENS = {
    "phone": PHONE,
    "sideways": {**PHONE, "viewport": {"width": 740, "height": 375}},
    "desktop": DESKTOP,
    "wide": {"viewport": {"width": 1920, "height": 1080}},
}
# Where a card's rank is printed first: its top-left corner, as a part of the card.
CORNER = """(el) => {
    const b = el.getBoundingClientRect();
    return [b.left, b.top, b.width * .3, b.height * .27];
}"""


@pytest.mark.parametrize("screen", list(SCREENS), ids=list(SCREENS))
def test_war_is_bold_and_leaves_the_tied_ranks_in_view(
    browser: Browser, shared_server: LiveServer, screen: str
) -> None:
    """Held at a war (Play to end, Pause on wars), WAR! stands opaque and bold between the rows,
    clear of each tied card's top-left corner, where its rank is printed."""
    device: dict[str, Any] = SCREENS[screen]
    page, watch = open_page(browser, shared_server, device, motion="no-preference")
    resume_with(page, shared_server, deal=EXAMPLE_DEAL)
    page.get_by_label("Pause on wars").check()
    button(page, "Play to end").click()
    expect(page.get_by_test_id("message")).to_contain_text("Paused on this war")
    settle(page)
    burst = page.locator("#burst")
    expect(burst).to_have_text("WAR!")
    expect(burst).to_have_css("opacity", "1")
    assert int(burst.evaluate("el => getComputedStyle(el).fontWeight")) >= 800
    box = burst.bounding_box()
    assert box is not None
    for seat in (0, 1):
        tied = page.locator(f"#laid-{seat} .card:not(.pending)")
        expect(tied).to_have_count(1)
        left, top, width, height = tied.evaluate(CORNER)
        apart = (
            box["x"] >= left + width
            or box["x"] + box["width"] <= left
            or box["y"] >= top + height
            or box["y"] + box["height"] <= top
        )
        assert apart, f"WAR! covers the rank of seat {seat}'s card on the {screen} screen"
    watch.check(shared_server)
    page.context.close()


def test_at_a_shared_table_the_person_who_won_is_celebrated_by_name(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Mia takes every card: the result names her, the party of a win is hers, and no kind
    words for a loss are said (a person won)."""
    page, watch = open_noting_celebrations(browser, shared_server)
    deal_to_people(page, shared_server, PEOPLE, deal=[["2H"], ["AS", "KS"]])
    button(page, "Flip — You").click()
    settle(page)
    button(page, "Flip — Mia").click()
    settle(page)
    expect(page.locator("#outcome-title")).to_have_text("Mia wins")
    expect(page.locator("#outcome-why")).to_have_text("Mia holds every card: you ran out.")
    expect(page.locator("#outcome-details")).to_have_text("1 battle · no war")
    expect(page.locator("#outcome-note")).to_be_hidden()
    assert page.evaluate("window.parties") == [{"kind": "round"}]
    watch.check(shared_server)
    page.context.close()


def test_a_deal_is_told_once_its_cards_have_landed(
    browser: Browser, shared_server: LiveServer
) -> None:
    """While New round's cards fly out to the piles the table says it is dealing; the deal's
    own words ("A fresh deal: 26 cards each") come once they have landed."""
    page, watch = open_page(browser, shared_server, DESKTOP, motion="no-preference")
    message = page.get_by_test_id("message")
    button(page, "New round").click()
    expect(message).to_have_text("Dealing the cards…")
    settle(page)
    expect(message).to_have_text(
        "A fresh deal: 26 cards each. Press Turn cards to play the first battle."
    )
    watch.check(shared_server)
    page.context.close()
