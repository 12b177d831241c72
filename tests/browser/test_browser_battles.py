"""Battles told and shown, in Debian's Chromium: wars laid out, the animation and its skip,
reduced motion, every ending in words, the audit of every state, the chance meter.

The helpers are browsing.py here; every test checks for console errors and requests that leave
the server, and audits the states it reaches against WCAG 2.1 AA.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from cardwar import PRESETS

from browsing import (  # the browser tests' helpers
    DESKTOP,
    DEVICES,
    ENDS_AT_ONCE,
    EXAMPLE_DEAL,
    LONG_WAR,
    PHONE,
    Watch,
    audit,
    button,
    choose,
    counts,
    open_house_rules,
    open_page,
    press,
    resume_with,
    settle,
)
from live import LiveServer

# -- battles told and shown ------------------------------------------------------------------------


def test_a_war_is_laid_out_and_told(browser: Browser, shared_server: LiveServer) -> None:
    """The rules' example deal (docs/api.md#examples), resumed by the page: both nines, a card
    down each, the king takes six."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    resume_with(page, shared_server, deal=EXAMPLE_DEAL)
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
    expect(page.locator("#guide-rules-line")).to_contain_text("no battle limit")
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
    # Animations counted as they start: one looked for while it runs could be over before a
    # busy machine's next look.
    page.evaluate(
        """() => {
            window.animations = 0;
            const animate = Element.prototype.animate;
            Element.prototype.animate = function (...args) {
                window.animations += 1;
                return animate.apply(this, args);
            };
        }"""
    )
    button(page, "Turn cards").click()
    page.wait_for_function("() => window.animations > 0")
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

    page.evaluate("window.animations = 0")
    button(page, "Play 10 battles").click()
    page.wait_for_function("() => window.animations > 0")
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
    """tell.js has a title and an explanation for every reason a round can end
    (docs/rules.md#endings), and tells shortages; update.js refuses a message it does not know."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    told = page.evaluate(
        """async (cases) => {
            const tell = await import("/static/tell.js");
            const { learnSeats, seatNames } = await import("/static/seats.js");
            learnSeats((await (await fetch("/api/rules")).json()).seats); // as the page does
            const { update } = await import("/static/update.js");
            const names = seatNames(2);
            const round = { battles: 500, counts: [30, 22] };
            const out = {};
            for (const [reason, winner] of Object.entries(cases)) {
                out[reason] = tell.describeOutcome({ winner, reason }, names, round);
            }
            let unknown = null;
            try { tell.describeOutcome({ winner: null, reason: "nap" }, names, round); }
            catch (error) { unknown = String(error); }
            const short = tell.describeBattle({ number: 9, winner: 0, taken: 3, wars: 0,
                counts: [52, 0], outcome: { winner: 0, reason: "opponent_short" }, steps: [
                    { up: ["9S", "9H"], down: [0, 0], short: [] },
                    { up: [null, null], down: [0, 1], short: [1] }] }, names);
            const both = tell.describeBattle({ number: 9, winner: null, taken: 0, wars: 0,
                counts: [0, 0], outcome: null, steps: [
                    { up: ["AS", "AH"], down: [0, 0], short: [] },
                    { up: [null, null], down: [0, 0], short: [0, 1] }] }, names);
            const out3 = tell.describeBattle({ number: 4, winner: 2, taken: 3, wars: 0,
                counts: [20, 0, 32], outcome: null, steps: [
                    { up: ["9S", "2H", "KD"], down: [0, 0, 0], short: [] }] },
                seatNames(3));
            let badMessage = null;
            try { update({}, { type: "teleport" }); }
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
        "Won cards go under the pile": ["winner_first", "table", "shuffled", "natural"],
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


def test_a_page_that_could_not_load_loads_once_the_server_answers(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With no server at first, the page says so and makes up no deal (no counts); once it is
    back (the browser online again), the page loads the table by itself."""
    context = browser.new_context(**DESKTOP, reduced_motion="reduce")
    page = context.new_page()
    watch = Watch(page)
    page.route("**/api/**", lambda route: route.abort())
    page.goto(shared_server.url + "/")
    settle(page)
    message = page.get_by_test_id("message")
    expect(message).to_have_class(re.compile(r"\berror\b"))
    expect(message).to_have_text("Can't reach the game, trying again…")
    expect(page.get_by_test_id("battle-number")).to_have_text("Waiting for the game")
    expect(page.get_by_test_id("count-0")).to_be_hidden()
    expect(button(page, "Turn cards")).to_be_disabled()
    audit(page)
    page.unroute("**/api/**")
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    settle(page)
    expect(message).not_to_have_class(re.compile(r"\berror\b"))
    watch.errors = [error for error in watch.errors if "ERR_FAILED" not in error]
    watch.check(shared_server)
    context.close()


@DEVICES
def test_the_caption_says_all_of_a_long_battle_and_is_no_box(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """The words under the table are a caption, not a form field: no box around them, as tall
    as what they say (a four-seat war is never cut off), and the height of its reserved lines
    for a plain battle, so nothing under it moves."""
    page, watch = open_page(browser, shared_server, device)
    caption = page.get_by_test_id("message")
    looks = caption.evaluate(
        """el => { const s = getComputedStyle(el);
            return [s.backgroundColor, s.borderTopWidth, parseFloat(s.minHeight),
                    el.getBoundingClientRect().height]; }"""
    )
    assert looks[0] == "rgba(0, 0, 0, 0)" and looks[1] == "0px", looks
    assert looks[3] == pytest.approx(looks[2], abs=1), looks  # 'Dealing the cards…': its lines
    resume_with(page, shared_server, rules={"players": 4}, seed=3)
    longest = 0.0
    for _ in range(6):
        press(page, "Play 10 battles", touch=device is PHONE)
        size = caption.evaluate("el => [el.scrollHeight, el.clientHeight, el.textContent.length]")
        assert size[0] <= size[1] + 1, size  # every word in view, nothing to scroll
        longest = max(longest, size[1])
    assert longest >= looks[2]
    assert caption.get_attribute("tabindex") is None
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
    expect(page.get_by_role("dialog", name="Start a new round?")).to_be_visible()
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
    """After a battle the meter shows your chance from here with a line of what the table
    shows, and Peek says what it means; the Statistics view plays the house rules' rounds and
    draws their endings and histograms."""
    page, watch = open_page(browser, shared_server, device)
    press(page, "Turn cards", bool(device.get("has_touch")))
    meter = page.get_by_test_id("chance")
    expect(meter).to_have_text(re.compile(r"^\d{1,3}%$"))
    yours, theirs = counts(page)
    expect(page.locator("#chance-words")).to_have_text(
        f"You hold {yours} cards to the computer's {theirs}."
    )
    peeked = page.locator("#chance-peek-words")
    expect(peeked).to_be_hidden()
    button(page, "Peek at the piles").click()
    expect(peeked).to_contain_text("If every pile were shuffled now")
    expect(button(page, "Stop peeking")).to_have_attribute("aria-expanded", "true")
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
