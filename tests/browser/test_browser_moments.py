"""The moments a player feels at the table: Space flips wherever the focus is, a tap on your own
pile flips it, and at a shared table the Flip button that the table waits for pulses.

The helpers are browsing.py here; every test checks for console errors and requests that leave
the server, and the server is the real one, dealing known deals through its API."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from browsing import (  # the browser tests' helpers
    DESKTOP,
    EXAMPLE_DEAL,
    PHONE,
    audit,
    button,
    deal_to_people,
    open_house_rules,
    open_page,
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
    field Space types; once the round is over, Space on New round deals again."""
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
    expect(button(page, "New round")).to_be_focused()
    page.keyboard.press("Space")  # nothing to flip: the focused New round deals
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
