"""Matches, timed rounds, Play to end, and looking back at a round, in Debian's Chromium.

The helpers (a page per player, the axe audit, the House rules panel) are browsing.py here, the
same the table's own browser tests use; every test here checks for console errors and requests
that leave the server, and audits each state it reaches against WCAG 2.1 AA.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, expect

from cardwar import Round, Rules
from cardwar.web import Settings, create_app

from browsing import (  # the browser tests' helpers, shared rather than copied
    DESKTOP,
    PHONE,
    audit,
    button,
    counts,
    open_house_rules,
    open_page,
    press,
    resume_with,
    settle,
)
from live import HANG_S, LiveServer

HANG_MS = HANG_S * 1000  # Playwright counts in milliseconds

QUICK = {"hand_size": 4, "battle_limit": 40}  # rounds of a few battles


def first_war(rules: Rules, seed: int) -> int | None:
    """The number of the first battle with a war in the round `seed` deals, if any."""
    round_ = Round(rules, seed=seed)
    while round_.outcome is None:
        battle = round_.play_battle()
        if battle.wars:
            return battle.number
    return None


def seed_with_first_war_at(number: int) -> int:
    """A seed of a classic round whose first war comes at battle `number`."""
    classic = Rules.preset("classic")
    for seed in range(10_000):
        if first_war(classic, seed) == number:
            return seed
    raise AssertionError(f"no seed below 10,000 has its first war at battle {number}")


def message(page: Page) -> str:
    return page.get_by_test_id("message").inner_text()


# -- a match -----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_best_of_three_played_to_its_decision(
    browser: Browser,
    shared_server: LiveServer,
    device: dict[str, Any],
) -> None:
    """Match: best of 3 in House rules; each round played out, New round deals the next one;
    the score shows on the table, survives a reload, and the decided match is counted."""
    page, watch = open_page(browser, shared_server, device)
    dialog = open_house_rules(page)
    # Each choice of new rules has the panel ask the server how often they draw (2,000 rounds in
    # its worker process, once per set of rules); the next choice waits until the panel says so,
    # as a person reads the panel before going on. (Until then it shows neither note.)
    told = dialog.locator("#hr-draws, #hr-match-note").locator("visible=true")

    def choose_and_read(label: str, value: str) -> None:
        with page.expect_response("**/api/me/house-rules"):
            dialog.get_by_label(label, exact=True).select_option(value)
        expect(told).to_have_count(1, timeout=HANG_MS)

    choose_and_read("Cards dealt to each player", "4")
    choose_and_read("Match", "3")
    expect(page.locator("#hr-summary")).to_contain_text("best of 3")
    expect(dialog.locator("#hr-match-note")).to_be_hidden()  # these rules seldom draw
    choose_and_read("Players", "3")
    choose_and_read("At the battle limit", "draw")  # 3 players chose "the biggest pile wins"
    choose_and_read("Cards dealt to each player", "")
    note = dialog.locator("#hr-match-note")  # three players often reach the limit: a draw
    expect(note).to_contain_text(re.compile(r"about \d+ rounds in 100 end in a draw"))
    audit(page)
    with page.expect_response("**/api/me/house-rules"):
        dialog.get_by_label("Players", exact=True).select_option("2")
    with page.expect_response("**/api/me/house-rules"):
        dialog.get_by_label("Cards dealt to each player", exact=True).select_option("4")
    expect(note).to_be_hidden()
    dialog.get_by_role("button", name="Deal with these rules").click()
    settle(page)
    line = page.get_by_test_id("match")
    expect(line).to_have_text("Best of 3 · round 1 · You 0 – 0 Computer")
    expect(page.get_by_test_id("message")).to_contain_text("Round 1 of the best of 3")
    page.select_option("#auto-speed", "instant")

    for played in range(1, 12):
        button(page, "Play to end").click()
        expect(page.get_by_test_id("outcome")).to_be_visible()
        settle(page)
        expect(line).to_contain_text(re.compile(r"round \d|won the match"))
        if played == 1:  # a reload in the middle of a match keeps it
            before = line.inner_text()
            page.reload()
            settle(page)
            expect(line).to_have_text(before)
            audit(page)
        if "won the match" in line.inner_text():
            break
        expect(page.locator("#outcome-why")).to_contain_text(
            re.compile(r"(You lead|The computer leads|It is) \d–\d\.$")
        )
        press(page, "New round")
        expect(line).to_contain_text(f"round {played + 1}")
    else:
        raise AssertionError("no match of best of 3 takes eleven rounds here")

    score = re.search(r"You (\d) – (\d) Computer", line.inner_text())
    assert score is not None
    mine, theirs = int(score[1]), int(score[2])
    assert max(mine, theirs) == 2 and min(mine, theirs) < 2
    title = "You win the match!" if mine == 2 else "The computer wins the match"
    expect(page.locator("#outcome-title")).to_have_text(title)
    ends = f"{max(mine, theirs)}–{min(mine, theirs)}"  # the winner's score first
    expect(page.locator("#outcome-why")).to_contain_text(f"The match ends {ends}.")
    expect(page.get_by_test_id("matches-won" if mine == 2 else "matches-lost")).to_have_text("1")
    audit(page)
    # A decided match is over: New round starts another, from round 1.
    press(page, "New round")
    expect(line).to_have_text("Best of 3 · round 1 · You 0 – 0 Computer")
    watch.check(shared_server)
    page.context.close()


def test_leaving_a_match_part_way_asks_first(
    browser: Browser,
    shared_server: LiveServer,
) -> None:
    """New round in the middle of a match's round offers to keep the match; only a yes leaves
    it, for a new match from round 1."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    put = page.request.put(
        shared_server.url + "/api/me/house-rules", data={"rules": QUICK, "best_of": 5}
    )
    assert put.ok, put.text()
    page.reload()
    settle(page)
    press(page, "New round")
    line = page.get_by_test_id("match")
    expect(line).to_have_text("Best of 5 · round 1 · You 0 – 0 Computer")
    press(page, "Turn cards")
    button(page, "New round").click()
    confirm = page.get_by_role("dialog", name="Leave this match?")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("Your best of 5 stands at You 0 – 0 Computer")
    audit(page)
    confirm.get_by_role("button", name="Keep the match").click()
    expect(page.get_by_test_id("battle-number")).to_contain_text("Battle 1")
    match_id = page.request.get(shared_server.url + "/api/me").json()["match"]["id"]
    button(page, "New round").click()
    page.get_by_role("dialog", name="Leave this match?").get_by_role(
        "button", name="Start a new match"
    ).click()
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    assert page.request.get(shared_server.url + "/api/me").json()["match"]["id"] != match_id
    watch.check(shared_server)
    page.context.close()


# -- a timed round -----------------------------------------------------------------------------


class Serving(uvicorn.Server):
    """uvicorn's server, setting `ready` once it listens."""

    def __init__(self, config: uvicorn.Config, ready: threading.Event) -> None:
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self.ready.set()


class ClockedServer:
    """The app in a thread of this process, over a clock that only the test moves: a timed
    round's minutes pass in a moment, and none pass while the test is busy. `restart()` is a
    new app over the same file and clock. The listening socket is the test's for the whole
    test, so a restart keeps the address and no other process can take the port meanwhile."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.now = time.time()  # the server's clock
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._server: Serving | None = None
        self._thread: threading.Thread | None = None

    def clock(self) -> float:
        return self.now

    def start(self) -> ClockedServer:
        """Serve on the test's socket; returns once the server listens (or fails at once)."""
        app = create_app(Settings(db=self.db, clock=self.clock))
        ready = threading.Event()
        server = self._server = Serving(uvicorn.Config(app, log_level="warning"), ready)

        def serve() -> None:
            try:  # each server closes the copy of the socket it was given, as it stops
                server.run(sockets=[self._listener.dup()])
            finally:
                ready.set()  # it stopped, having listened or not

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(HANG_S)
        assert server.started, "the clocked server did not start (its error is logged above)"
        return self

    def stop(self) -> None:
        assert self._server is not None and self._thread is not None
        self._server.should_exit = True
        self._thread.join(HANG_S)
        assert not self._thread.is_alive(), "the clocked server did not stop"

    def restart(self) -> None:
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        self._listener.close()


@pytest.fixture
def clocked_server(tmp_path: Path) -> Iterator[ClockedServer]:
    server = ClockedServer(tmp_path / "clocked.db").start()
    yield server
    server.close()


def test_a_timed_round_counts_down_through_a_reload_and_a_restart(
    browser: Browser,
    clocked_server: ClockedServer,
) -> None:
    """The clock shows beside the battle number and counts down from the deal; a reload and a
    server restart carry on from the time the server keeps; at zero the cards are counted and
    the page says who held most, and by how many.

    The server's clock moves only when the test moves it, the page's runs as usual until the
    test moves it on (`page.clock`): no wait for time to pass, and a busy machine's delays
    change nothing the test sees."""
    page, watch = open_page(browser, clocked_server, DESKTOP, clock=True)  # type: ignore[arg-type]  # an in-process server stands in for a LiveServer
    dialog = open_house_rules(page)
    with page.expect_response("**/api/me/house-rules"):
        dialog.get_by_label("Clock", exact=True).select_option("60")
    dialog.get_by_role("button", name="Deal with these rules").click()
    settle(page)
    dealt = clocked_server.now

    def leave_on_the_clock(seconds: float) -> None:
        """Move the server's clock on so that `seconds` are left of the minute."""
        clocked_server.now = dealt + 60 - seconds

    clock = page.get_by_test_id("clock")
    expect(clock).to_be_visible()
    expect(clock).to_contain_text(re.compile(r"^Time: (1:00|0:5\d) left$"))
    for _ in range(3):
        press(page, "Turn cards")
    audit(page)

    leave_on_the_clock(20)
    page.reload()
    settle(page)
    expect(clock).to_contain_text(re.compile(r"0:(1\d|20) left"))
    expect(page.get_by_test_id("battle-number")).to_contain_text("Battle 3")

    clocked_server.restart()
    leave_on_the_clock(8)
    page.reload()
    settle(page)
    expect(clock).to_contain_text(re.compile(r"0:0[1-8] left"))
    leave_on_the_clock(0)  # the server's minute is up...
    page.clock.fast_forward(9_000)  # ...and the page's: its next tick asks the server
    outcome = page.get_by_test_id("outcome")
    expect(outcome).to_be_visible()
    expect(clock).to_be_hidden()
    shown = counts(page)
    expect(page.get_by_test_id("message")).to_contain_text("Time is up, so the cards were counted.")
    if shown[0] != shown[1]:
        most = max(shown)
        expect(page.locator("#outcome-why")).to_have_text(
            f"Time ran out and {'you hold' if shown[0] == most else 'the computer holds'} the most"
            f" cards: {most} of 52, {most - min(shown)} more than"
            f" {'the computer' if shown[0] == most else 'you'}."
        )
    else:
        expect(page.locator("#outcome-why")).to_contain_text("the same number")
    expect(button(page, "Turn cards")).to_be_disabled()
    audit(page)
    watch.check(clocked_server)  # type: ignore[arg-type]  # an in-process server stands in for a LiveServer
    page.context.close()


# -- Play to end -------------------------------------------------------------------------------


def test_play_to_end_pauses_on_a_war_and_stops_on_a_key(
    browser: Browser,
    shared_server: LiveServer,
) -> None:
    """Play to end turns battle after battle, never more than one request at a time; with
    Pause on wars it stops at the first war; a key press stops it for good, mid-round."""
    war_at = seed_with_first_war_at(4)
    page, watch = open_page(browser, shared_server, DESKTOP, motion="no-preference", clock=True)
    in_flight: set[Any] = set()
    tally = {"most": 0, "battles": 0}

    def sent(request: Any) -> None:
        if "/api/" in request.url:
            in_flight.add(request)
            tally["most"] = max(tally["most"], len(in_flight))
            tally["battles"] += "/battles" in request.url

    def done(request: Any) -> None:
        in_flight.discard(request)

    page.on("request", sent)
    page.on("requestfinished", done)
    page.on("requestfailed", done)
    resume_with(page, shared_server, seed=war_at)
    expect(page.locator("#chance")).to_be_hidden()  # no meter before a card is turned
    while in_flight:  # until every request of the reload is done (each wait passes events on)
        response = next(iter(in_flight)).response()
        if response is not None:
            response.finished()
    tally["most"] = 0  # from here on: Play to end's requests only
    page.select_option("#auto-speed", "fast")
    page.get_by_label("Pause on wars").check()
    button(page, "Play to end").click()
    expect(button(page, "Stop")).to_be_visible()
    expect(page.get_by_test_id("message")).to_contain_text(
        "Paused on this war: press Play to end to go on.", timeout=15_000
    )
    expect(button(page, "Play to end")).to_be_visible()
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 4 of 500")
    expect(page.get_by_test_id("message")).to_contain_text("War!")
    audit(page)

    page.get_by_label("Pause on wars").uncheck()
    page.select_option("#auto-speed", "normal")
    button(page, "Play to end").click()
    page.wait_for_function(
        "() => parseInt(document.getElementById('battle-number').textContent.match(/\\d+/)) >= 7"
    )
    page.keyboard.press("x")  # any key
    expect(button(page, "Play to end")).to_be_visible()
    settle(page)
    stopped = page.get_by_test_id("battle-number").inner_text()
    number = re.search(r"\d+", stopped)
    assert number is not None
    expect(page.get_by_test_id("message")).to_contain_text(f"Stopped at battle {number[0]}.")
    asked = tally["battles"]
    page.clock.run_for(5_000)  # every timer the page has set fires now, 5 s of them...
    settle(page)
    assert tally["battles"] == asked  # ...and none asks for a battle once stopped
    expect(page.get_by_test_id("battle-number")).to_have_text(stopped)
    assert tally["most"] == 1
    me = page.request.get(shared_server.url + "/api/me").json()
    assert me["round"]["outcome"] is None and f"Battle {me['round']['battles']} " in stopped + " "
    watch.check(shared_server)
    page.context.close()


def test_play_to_end_stops_on_a_tap(
    browser: Browser,
    shared_server: LiveServer,
) -> None:
    """On a touch screen, a tap on the table stops Play to end."""
    page, watch = open_page(browser, shared_server, PHONE, motion="no-preference")
    page.select_option("#auto-speed", "slow")
    button(page, "Play to end").tap()
    page.wait_for_function(
        "() => /Battle [2-9]/.test(document.getElementById('battle-number').textContent)"
    )
    page.locator("#field").tap()
    expect(button(page, "Play to end")).to_be_visible()
    settle(page)
    expect(page.get_by_test_id("message")).to_contain_text("Stopped at battle")
    assert page.get_by_test_id("outcome").is_hidden()
    watch.check(shared_server)
    page.context.close()


# -- a round's end: replay, share, watch, story ------------------------------------------------


def battle_words(page: Page, turns: int) -> list[str]:
    """Turn cards `turns` times; what the message said after each battle."""
    said = []
    for _ in range(turns):
        press(page, "Turn cards")
        said.append(message(page))
    return said


def test_a_shared_link_deals_the_same_battles_in_a_fresh_browser(
    browser: Browser,
    shared_server: LiveServer,
) -> None:
    """Share this deal gives a link; opened by another player it deals a fresh round of their
    own with the same cards, battle for battle. A damaged link is refused in words."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    resume_with(page, shared_server, rules={"war_down": 3, "battle_limit": 60}, seed=2024)
    first = battle_words(page, 4)
    page.select_option("#auto-speed", "instant")
    button(page, "Play to end").click()
    expect(page.get_by_test_id("outcome")).to_be_visible()
    button(page, "Share this deal").click()
    dialog = page.get_by_role("dialog", name="Share this deal")
    expect(dialog).to_be_visible()
    link = dialog.get_by_label("Link to this deal").input_value()
    assert link.startswith(shared_server.url + "/?deal=")
    audit(page)
    dialog.get_by_role("button", name="Close").click()
    mine = page.request.get(shared_server.url + "/api/me").json()["round"]

    other, other_watch = open_page(browser, shared_server, PHONE)
    other.goto(link)
    settle(other)
    expect(other.get_by_test_id("message")).to_contain_text("A shared deal")
    assert other.url == shared_server.url + "/"  # a reload resumes rather than deals again
    expect(other.locator("#guide-rules-line")).to_contain_text("3 down (W-A-R)")
    assert battle_words(other, 4) == first
    theirs = other.request.get(shared_server.url + "/api/me").json()["round"]
    assert theirs["id"] != mine["id"] and theirs["seed"] == mine["seed"]
    assert theirs["rules"] == mine["rules"]

    before = counts(other)
    other.goto(shared_server.url + "/?deal=not-a-deal!")
    settle(other)
    expect(other.get_by_test_id("message")).to_have_text(
        "That shared link cannot be dealt: it has characters a shared deal never has. Your"
        " table is as it was."
    )
    assert counts(other) == before
    audit(other)
    other_watch.check(shared_server)
    other.context.close()

    # A first visit through a damaged link still says so, beside the fresh deal it gets instead.
    newcomer = browser.new_context(reduced_motion="reduce").new_page()
    newcomer.goto(shared_server.url + "/?deal=eyJzZWVkIjoxfQ")
    settle(newcomer)
    expect(newcomer.get_by_test_id("message")).to_have_text(
        "That shared link cannot be dealt: its rules are missing. Your table is as it was. Here"
        " is a fresh deal of your own instead: press Turn cards to play."
    )
    expect(button(newcomer, "Turn cards")).to_be_enabled()
    newcomer.context.close()
    watch.check(shared_server)
    page.context.close()


def test_replay_this_deal_deals_the_same_cards(
    browser: Browser,
    shared_server: LiveServer,
) -> None:
    """Replay this deal, at a round's end, deals the same cards again from the start."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    resume_with(page, shared_server, rules=QUICK, seed=77)
    first = battle_words(page, 2)
    page.select_option("#auto-speed", "instant")
    button(page, "Play to end").click()
    expect(page.get_by_test_id("outcome")).to_be_visible()
    press(page, "Replay this deal")
    expect(page.get_by_test_id("message")).to_contain_text("The same deal again")
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    assert battle_words(page, 2) == first
    watch.check(shared_server)
    page.context.close()


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_watching_a_replay_back_and_forth_and_the_story(
    browser: Browser,
    shared_server: LiveServer,
    device: dict[str, Any],
) -> None:
    """At a round's end, Watch the replay steps through its battles, back and forth, each told
    as it was when played; the story charts the piles, and a tap on it opens that battle."""
    page, watch = open_page(browser, shared_server, device)
    resume_with(page, shared_server, rules=QUICK, seed=5)
    said = []
    while page.get_by_test_id("outcome").is_hidden():
        said.extend(battle_words(page, 1))
    total = len(said)
    assert total >= 3

    story = page.locator("#story")
    expect(story).to_be_visible()
    expect(story.get_by_role("img")).to_have_attribute(
        "aria-label", re.compile(rf"over {total} battles")
    )
    expect(page.locator("#story-words li").first).to_contain_text("The lead")
    audit(page)

    button(page, "Watch the replay").click()
    dialog = page.get_by_role("dialog", name="Watch the replay")
    where = page.locator("#replay-where")
    words = page.locator("#replay-words")
    expect(where).to_have_text(f"Battle 1 of {total}")
    expect(words).to_have_text(f"Battle 1: {said[0]}")
    forward = dialog.get_by_role("button", name="Forward ▶")
    for number in range(2, total + 1):
        forward.click()
        expect(where).to_have_text(f"Battle {number} of {total}")
        expect(words).to_have_text(f"Battle {number}: {said[number - 1]}")
    expect(forward).to_be_disabled()
    audit(page)
    page.keyboard.press("ArrowLeft")
    expect(where).to_have_text(f"Battle {total - 1} of {total}")
    expect(words).to_have_text(f"Battle {total - 1}: {said[total - 2]}")
    dialog.get_by_role("button", name="◀ Back").click()
    expect(words).to_have_text(f"Battle {total - 2}: {said[total - 3]}")
    page.keyboard.press("Home")
    expect(where).to_have_text(f"Battle 1 of {total}")
    page.keyboard.press("End")
    expect(where).to_have_text(f"Battle {total} of {total}")
    dialog.get_by_role("button", name="Close").click()
    expect(button(page, "Watch the replay")).to_be_focused()

    chart = page.locator("#story-chart svg")
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.99, box["y"] + box["height"] / 2)
    expect(where).to_have_text(f"Battle {total} of {total}")
    expect(words).to_have_text(f"Battle {total}: {said[-1]}")
    watch.check(shared_server)
    page.context.close()
