"""The table when the game cannot be reached (docs/api.md#installing), in Debian's Chromium: a
reload with the server away shows the last table this browser saw as it stood, never a made-up
deal; the page tries again by itself and carries on with the round once the server answers; the
same when the server goes away in the middle of Play to end.

The server is the real one throughout: the network is cut in the browser (`set_offline`, or the
API's requests aborted). The page's own tries are put off for minutes (`long_waits`), so that
only what makes it try at once can bring it back in a test's time: the `online` event a browser
sends when the network comes back, the page shown again, a press."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect

from browsing import DESKTOP, PHONE, Watch, audit, button, counts, open_page, press, settle
from live import LiveServer

UNREACHABLE = "Can't reach the game, trying again…"
# The page's requests while the game cannot be reached fail, as they should; Chromium logs each
# failed load as a console error, which these tests expect and nothing else.
OFFLINE_LOADS = ("net::ERR_INTERNET_DISCONNECTED", "net::ERR_FAILED")


def controlled(page: Page) -> None:
    """Wait until the service worker looks after the page: a reload offline then opens."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def long_waits(page: Page) -> None:
    """Put the page's next tries off by ten minutes (offline.js's `waits`, in the very module the
    page runs, whose versioned address is app.js's)."""
    page.evaluate(
        """async () => {
            const app = document.querySelector('script[type="module"]').src;
            const { waits } = await import(new URL("offline.js", app).href);
            waits.firstMs = waits.mostMs = 600000;
        }"""
    )


def back_online(page: Page, event: str = "online") -> None:
    """The network back, and `event` as a browser sends it then: "online" to the window, or
    "visibilitychange" to the document (the page shown again)."""
    page.context.set_offline(False)
    target = "window" if event == "online" else "document"
    page.evaluate(f"() => {target}.dispatchEvent(new Event({event!r}))")


def check_quietly_offline(watch: Watch, server: LiveServer) -> None:
    """No console error but the failed loads of the time offline, nothing asked elsewhere."""
    watch.errors = [error for error in watch.errors if not error.endswith(OFFLINE_LOADS)]
    watch.check(server)


def test_a_reload_offline_shows_the_last_table_and_carries_on_once_the_game_answers(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Five battles in, a reload with the network gone shows battle 5 as it stood (its counts,
    its cards laid), says the game cannot be reached, in the caption and aloud, with the
    controls waiting and a press refused; no deal is made up. Back online, the page is back in
    touch with the same round by itself, and Turn cards plays battle 6."""
    page, watch = open_page(browser, shared_server, PHONE)
    controlled(page)
    for _ in range(5):
        press(page, "Turn cards")
    number = page.get_by_test_id("battle-number")
    expect(number).to_have_text("Battle 5 of 500")
    shown = counts(page)
    assert shown != [26, 26]  # five battles move an odd number of cards: never back at the deal
    laid = page.locator("#field svg.card").count()
    assert laid >= 2

    page.context.set_offline(True)
    page.reload()
    message = page.get_by_test_id("message")
    expect(message).to_have_text(UNREACHABLE)
    expect(message).to_have_class(re.compile(r"\berror\b"))
    expect(page.locator("#announce")).to_have_text(UNREACHABLE)
    expect(number).to_have_text("Battle 5 of 500")
    assert counts(page) == shown
    assert page.locator("#field svg.card").count() == laid
    turn = button(page, "Turn cards")
    expect(turn).to_be_disabled()  # aria-disabled: it keeps its focus, and says why when pressed
    long_waits(page)
    page.keyboard.press("t")  # refused, and tried at once: the next try is minutes away
    settle(page)
    expect(message).to_have_text(UNREACHABLE)
    expect(number).to_have_text("Battle 5 of 500")
    assert "Dealing" not in page.locator("main").inner_text()
    audit(page)

    back_online(page)
    expect(message).to_have_text("Back in touch with the game: your round goes on after battle 5.")
    expect(message).not_to_have_class(re.compile(r"\berror\b"))
    expect(number).to_have_text("Battle 5 of 500")
    assert counts(page) == shown
    expect(turn).to_be_enabled()
    press(page, "Turn cards")
    expect(number).to_have_text("Battle 6 of 500")
    me: dict[str, Any] = page.request.get(shared_server.url + "/api/me").json()
    assert me["round"]["battles"] == 6  # the round the page had, played on at the server
    check_quietly_offline(watch, shared_server)
    page.context.close()


def test_with_no_table_kept_nothing_is_made_up_and_a_stale_one_is_ignored(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A table kept by a page of another shape is not shown: a reload offline says the game
    cannot be reached, with no counts and no deal (never the 26 and 26 of one); back online,
    the page sits down at the round the server has, at its battle."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    controlled(page)
    press(page, "Turn cards")
    press(page, "Turn cards")
    page.evaluate(
        """() => {
            const kept = JSON.parse(localStorage.getItem("cardwar.last-table"));
            localStorage.setItem("cardwar.last-table", JSON.stringify({ ...kept, shape: 0 }));
        }"""
    )
    page.context.set_offline(True)
    page.reload()
    message = page.get_by_test_id("message")
    expect(message).to_have_text(UNREACHABLE)
    expect(page.locator("#announce")).to_have_text(UNREACHABLE)
    number = page.get_by_test_id("battle-number")
    expect(number).to_have_text("Waiting for the game")
    for seat in (0, 1):
        expect(page.get_by_test_id(f"count-{seat}")).to_be_hidden()
    expect(button(page, "Turn cards")).to_be_disabled()
    assert "Dealing" not in page.locator("main").inner_text()
    audit(page)
    long_waits(page)
    page.keyboard.press("t")  # refused, and tried at once: the next try is minutes away
    settle(page)
    expect(message).to_have_text(UNREACHABLE)

    back_online(page, "visibilitychange")
    expect(message).to_have_text("Back in touch with the game: your round goes on after battle 2.")
    expect(number).to_have_text("Battle 2 of 500")
    expect(page.get_by_test_id("count-0")).to_be_visible()
    press(page, "Turn cards")
    expect(number).to_have_text("Battle 3 of 500")
    check_quietly_offline(watch, shared_server)
    page.context.close()


def test_the_game_lost_in_the_middle_of_play_to_end_is_found_again(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The API's requests cut while Play to end runs (the service worker lets them through, so
    the page's own route sees them): the run stops, the table keeps the battle it showed and
    says it cannot reach the game, Play to end is refused; the requests let through again, the
    page is back in touch at the battle the server has, and Turn cards plays the next."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    controlled(page)
    page.select_option("#auto-speed", "slow")
    long_waits(page)
    cut: list[str] = []

    def abort(route: Route) -> None:
        cut.append(f"{route.request.method} {route.request.url}")
        route.abort()

    number = page.get_by_test_id("battle-number")
    button(page, "Play to end").click()
    expect(number).to_have_text(re.compile(r"Battle [1-9]\d* of 500"))
    page.route("**/api/**", abort)
    message = page.get_by_test_id("message")
    expect(message).to_have_text(UNREACHABLE)
    settle(page)
    expect(button(page, "Play to end")).to_be_visible()  # the run is over: Stop no more
    assert any(asked.startswith("POST") and asked.endswith("/battles") for asked in cut), cut
    shown = (number.inner_text(), counts(page))
    page.keyboard.press("e")  # Play to end, refused: the table stays as it is
    settle(page)
    expect(message).to_have_text(UNREACHABLE)
    assert (number.inner_text(), counts(page)) == shown

    page.unroute("**/api/**")
    back_online(page)
    expect(message).to_contain_text("Back in touch with the game: your round goes on after battle")
    me: dict[str, Any] = page.request.get(shared_server.url + "/api/me").json()
    played = me["round"]["battles"]
    expect(number).to_have_text(f"Battle {played} of 500")
    press(page, "Turn cards")
    expect(number).to_have_text(f"Battle {played + 1} of 500")
    check_quietly_offline(watch, shared_server)
    page.context.close()


def test_the_reducer_knows_the_game_out_of_reach(
    browser: Browser, shared_server: LiveServer
) -> None:
    """update.js: `unreachable` keeps the table and says why; the server's next answer, a load
    or a refusal, ends it; with no table, the view makes up no deal."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    told = page.evaluate(
        """async () => {
            const { update, view } = await import("/static/update.js");
            const round = { id: "r" };
            const before = { round: null, error: null, unreachable: false };
            const lost = update(before, { type: "unreachable", error: "out of reach" });
            const kept = update({ ...before, round }, { type: "unreachable", error: "out" });
            const loaded = update(lost, { type: "loaded", round: null, lastBattle: null,
                scoreboard: {}, houseRules: {}, match: null, info: {} });
            const refused = update(lost, { type: "failed", error: "no" });
            return {
                lost: [lost.unreachable, lost.error],
                kept: kept.round === round,
                shown: view(lost),
                loaded: [loaded.unreachable, loaded.error],
                refused: [refused.unreachable, refused.error],
            };
        }"""
    )
    assert told["lost"] == [True, "out of reach"]
    assert told["kept"] is True
    assert told["shown"] == {
        "ready": False,
        "message": "out of reach",
        "error": True,
        "announce": "out of reach",
        "battleNumber": "Waiting for the game",
    }
    assert told["loaded"] == [False, None]
    assert told["refused"] == [False, "no"]
    watch.check(shared_server)
    page.context.close()
