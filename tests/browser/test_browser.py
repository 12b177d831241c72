"""A person at the table: Playwright driving Debian's Chromium against `cardwar serve`.

Every test checks that the page logged no console error and asked for nothing outside the server,
and axe-core audits each state it reaches against WCAG 2.1 AA. Most tests ask for reduced motion,
so a battle lands at once; the animation has tests of its own (in test_browser_battles.py).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from cardwar import Round, Rules

from browsing import (  # the browser tests' helpers
    DESKTOP,
    DEVICES,
    ENDS_AT_ONCE,
    LONG_WAR,
    PHONE,
    audit,
    button,
    choose,
    counts,
    deal_with,
    in_view,
    open_house_rules,
    open_page,
    play_to_the_end,
    press,
    resume_with,
    score,
    seed_next_deals,
    settle,
)
from live import LiveServer


def test_the_audit_can_fail(browser: Browser, shared_server: LiveServer) -> None:
    """The axe audit is real: a button with no name in the page is a violation it reports."""
    page, _ = open_page(browser, shared_server, DESKTOP)
    page.evaluate("document.querySelector('.controls').append(document.createElement('button'))")
    with pytest.raises(AssertionError, match="button-name"):
        audit(page)
    page.context.close()


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
    expect(page.locator("#guide-rules-line")).to_have_text(
        "Classic · 1 card down · short of cards loses · a draw after 500 battles"
    )
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "Higher card takes both. Same cards? War: one down, turn again. Draw after 500 battles."
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
    expect(page.get_by_test_id("message")).to_contain_text("goes on after battle 11")
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
    expect(page.locator("#guide-rules-line")).to_have_text(line)
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
    expect(page.locator("#guide-rules-line")).to_have_text(
        "lowest card wins · 3 down (W-A-R) · short of cards loses · a draw after 500 battles"
    )
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "Lower card takes both. Same cards? War: three down, turn again. Draw after 500 battles."
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
    # Under the title, the same rules in words a child reads; every rule in the guide's line.
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "Higher card takes both. Same cards? War: three down, turn again. "
        "10-minute clock, then most cards wins."
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
        "biggest pile wins after 250 battles"
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
    expect(page.locator("#guide-rules-line")).to_have_text(
        "3 players · 2 cards down · short of cards loses · won cards kept in order · "
        "biggest pile wins after 150 battles"
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
    """When a round ends, its one result is on screen unscrolled, with Play again leading and
    focused (New round in view too), and the round's details beneath once its story is in."""
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
    again = outcome.get_by_role("button", name="Play again")
    assert in_view(page, again)
    expect(again).to_be_focused()
    expect(again).to_have_class(re.compile(r"\bprimary\b"))
    expect(button(page, "New round")).not_to_have_class(re.compile(r"\bprimary\b"))
    expect(button(page, "Turn cards")).not_to_have_class(re.compile(r"\bprimary\b"))
    expect(page.locator("#outcome-details")).to_have_text("1 battle · no war")
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
    """A touch-only phone has no keyboard, so the page does not list keys there: not under the
    controls, not in the guide, not in Play to end's hint."""
    page, watch = open_page(browser, shared_server, PHONE)
    expect(page.locator(".keys")).to_be_hidden()
    guide = page.locator("#guide")
    assert guide.locator("kbd").count() > 0
    for kbd in guide.locator("kbd").all():
        expect(kbd).to_be_hidden()
    assert "Keyboard" not in guide.inner_text() and " key" not in guide.inner_text().lower()
    expect(guide.get_by_text("plays one battle, war and all")).to_be_visible()
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
    """No server: plain words in an error style, the table as it was, and the page tries again
    by itself, at once when the browser is back online (more in test_browser_offline.py)."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    press(page, "Turn cards")
    shown = counts(page)
    cards = page.locator("#field svg.card").count()
    page.route("**/api/**", lambda route: route.abort())
    press(page, "Turn cards")
    message = page.get_by_test_id("message")
    expect(message).to_have_class(re.compile(r"\berror\b"))
    expect(message).to_have_text("Can't reach the game, trying again…")
    assert not re.search(r"[`<>*_#\[\]{}]", message.inner_text())
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    assert counts(page) == shown
    assert page.locator("#field svg.card").count() == cards
    audit(page)
    page.unroute("**/api/**")
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    expect(message).not_to_have_class(re.compile(r"\berror\b"))
    press(page, "Turn cards")
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 2 of 500")
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
    question = page.get_by_role("dialog", name="Start a new round?")
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
