"""The moments a player feels at the table: Space flips wherever the focus is, a tap on your own
pile flips it, and at a shared table the Flip button that the table waits for pulses.

The helpers are browsing.py here; every test checks for console errors and requests that leave
the server, and the server is the real one, dealing known deals through its API."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from browsing import (  # the browser tests' helpers
    DESKTOP,
    EXAMPLE_DEAL,
    PHONE,
    audit,
    button,
    deal_to_people,
    in_view,
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


SIDEWAYS: dict[str, Any] = {**PHONE, "viewport": {"width": 740, "height": 375}}
WIDE_DARK: dict[str, Any] = {"viewport": {"width": 1920, "height": 1080}, "color_scheme": "dark"}
FOUR_SCREENS = pytest.mark.parametrize(
    "device",
    [PHONE, SIDEWAYS, DESKTOP, WIDE_DARK],
    ids=["phone", "sideways", "desktop", "wide-dark"],
)


def card_width(page: Page) -> float:
    """The width of your pile's top card, in CSS pixels."""
    box = page.locator('.seat[data-seat="0"] .stack .card').bounding_box()
    assert box is not None
    return box["width"]


@FOUR_SCREENS
def test_extra_large_cards_are_a_quarter_bigger_at_every_size_and_seat_count(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """Extra-large cards are at least 1.25 times the table's usual cards, at two, three and four
    seats, and never push the table wider than the screen (a war's row overlaps more)."""
    page, watch = open_page(browser, shared_server, device)
    switch = page.get_by_role("button", name="Extra-large cards")
    for players in (2, 3, 4):
        resume_with(page, shared_server, rules={"players": players}, seed=5)
        expect(page.locator("#table")).to_have_attribute("data-players", str(players))
        usual = card_width(page)
        switch.click()
        expect(switch).to_have_attribute("aria-pressed", "true")
        large = card_width(page)
        assert large >= 1.25 * usual - 0.5, (players, usual, large)
        press_until_a_war_is_laid(page)
        widths = page.evaluate(
            """() => { const felt = document.querySelector(".felt");
                return [felt.scrollWidth, felt.clientWidth,
                        document.documentElement.scrollWidth, innerWidth]; }"""
        )
        assert widths[0] <= widths[1] + 1 and widths[2] <= widths[3], (players, widths)
        switch.click()
        expect(switch).to_have_attribute("aria-pressed", "false")
    watch.check(shared_server)
    page.context.close()


def press_until_a_war_is_laid(page: Page) -> None:
    """Turn cards (with a tap on your pile, which a table taller than the screen keeps in
    reach) until a battle lays a war, the widest row a table shows; at most 60 battles."""
    pile = page.locator('.seat[data-seat="0"] .stack')
    for _ in range(60):
        pile.click()
        settle(page)
        if page.locator(".slot .spread .card").count() > page.evaluate(
            "document.querySelectorAll('.slot:not([hidden])').length"
        ):
            return
    raise AssertionError("no war in 60 battles of seed 5")


def test_how_to_play_is_at_the_top_and_opens_the_guide(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A phone's first screen has How to play beside House rules; it brings the guide into
    view. The line under the title says the rules in a child's words, not the rules' jargon."""
    page, watch = open_page(browser, shared_server, PHONE)
    how = page.get_by_role("link", name="How to play")
    assert in_view(page, how)
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "Higher card takes both. Same cards? War: one down, turn again. Draw after 500 battles."
    )
    line = page.get_by_test_id("rules-line").evaluate("el => el.scrollHeight <= el.clientHeight")
    assert line, "the rules line is cut off on a phone"
    how.tap()
    expect(page.locator("#guide-title")).to_be_in_viewport()
    watch.check(shared_server)
    page.context.close()


def test_on_a_desktop_each_pile_is_beside_its_cards_and_the_console_holds_still(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Two seats on a desktop: both piles in one column, each seat's cards beside its own pile
    (no diagonal of empty felt); the chance meter's arrival moves nothing under it."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    piles = [page.locator(f'.seat[data-seat="{seat}"] .stack').bounding_box() for seat in (0, 1)]
    slots = [page.locator(f"#laid-{seat}").bounding_box() for seat in (0, 1)]
    assert all(piles) and all(slots)
    assert abs(piles[0]["x"] - piles[1]["x"]) < 1  # type: ignore[index]
    for pile, slot in zip(piles, slots, strict=True):
        assert slot["x"] > pile["x"] + pile["width"] - 1  # type: ignore[index]
        assert abs(slot["y"] - pile["y"]) < pile["height"] / 2  # type: ignore[index]
    scoreboard = page.locator(".scoreboard")
    before = scoreboard.bounding_box()
    button(page, "Turn cards").click()
    settle(page)
    expect(page.get_by_test_id("chance")).not_to_have_text("–")
    after = scoreboard.bounding_box()
    assert before is not None and after is not None
    assert after["y"] == pytest.approx(before["y"], abs=1)
    watch.check(shared_server)
    page.context.close()


def test_a_finished_round_reloaded_points_to_play_again(
    browser: Browser, shared_server: LiveServer
) -> None:
    """After a reload, a finished round's words name the button its result shows (Play again),
    not New round."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    resume_with(page, shared_server, rules={"hand_size": 3}, seed=2)
    for _ in range(20):  # three cards each: a few battles
        if page.locator("#outcome").is_visible():
            break
        button(page, "Play 10 battles").click()
        settle(page)
    page.reload()
    settle(page)
    expect(page.get_by_test_id("message")).to_have_text(
        "This round is over. Press Play again for a new deal."
    )
    expect(page.locator("#play-again")).to_have_text("Play again")
    watch.check(shared_server)
    page.context.close()


def watch_the_replay(page: Page) -> Locator:
    """Play a short round (three cards each) to its end with taps, then open its replay."""
    for _ in range(20):
        if button(page, "Watch the replay").is_visible():
            break
        button(page, "Play 10 battles").tap()
        settle(page)
    button(page, "Watch the replay").tap()
    replay = page.get_by_role("dialog", name="Watch the replay")
    expect(replay.locator(".replay-cards .card").first).to_be_visible()
    return replay


def test_the_replay_lays_its_cards_on_a_table_as_big_as_the_games(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Watch the replay shows each battle on felt in a wooden rim, like the table, its cards on a
    phone as wide as the table's own (not a list of small cards)."""
    page, watch = open_page(browser, shared_server, PHONE)
    resume_with(page, shared_server, rules={"hand_size": 3}, seed=2)
    usual = card_width(page)
    replay = watch_the_replay(page)
    felt = replay.locator(".replay-seats").evaluate(
        "el => [getComputedStyle(el).backgroundImage, getComputedStyle(el).borderTopWidth]"
    )
    assert felt[0].startswith("radial-gradient") and felt[1] != "0px", felt
    box = replay.locator(".replay-cards .card").first.bounding_box()
    assert box is not None and box["width"] >= 0.95 * usual, (box, usual)
    assert in_view(page, replay.get_by_role("button", name="Close"))
    audit(page)
    watch.check(shared_server)
    page.context.close()


def test_sideways_the_replay_fits_the_screen_beside_its_table(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A phone held sideways shows the replay's table, its words, its steps and Close in one
    screen: nothing to scroll, Forward never moving the cards out of view."""
    page, watch = open_page(browser, shared_server, SIDEWAYS)
    resume_with(page, shared_server, rules={"players": 4, "hand_size": 3}, seed=2)
    replay = watch_the_replay(page)
    for _ in range(2):
        assert replay.evaluate("el => el.scrollHeight <= el.clientHeight + 1")
        for part in (".replay-seats", "#replay-words", "#replay-forward", "#replay-close"):
            assert in_view(page, replay.locator(part)), part
        names = replay.locator(".replay-name").all()
        assert all(n.evaluate("el => el.scrollWidth <= el.clientWidth + 1") for n in names)
        replay.get_by_role("button", name="Forward ▶").tap()
    watch.check(shared_server)
    page.context.close()


@pytest.mark.parametrize("players", [3, 4])
def test_at_a_bigger_table_the_rules_line_is_never_cut_off(
    browser: Browser, shared_server: LiveServer, players: int
) -> None:
    """The line under the title says a bigger table's own ending in full on a phone, upright
    and sideways."""
    for device in (PHONE, SIDEWAYS):
        page, watch = open_page(browser, shared_server, device)
        ending = {"battle_limit": 150, "limit_outcome": "most_cards"}
        resume_with(page, shared_server, rules={"players": players, **ending}, seed=2)
        line = page.get_by_test_id("rules-line")
        expect(line).to_have_text(
            "Highest card takes all. Same cards? War: one down, turn again. "
            "At 150 battles, most cards wins."
        )
        assert line.evaluate("el => el.scrollHeight <= el.clientHeight + 1"), device
        watch.check(shared_server)
        page.context.close()
