"""Live tables in the page (docs/api.md#live-tables): two browser contexts are two devices on
the real server, a host at a desktop and a guest on a phone, or a person and a watcher.

Every wait is for something the page shows (Playwright's `expect`), never for time; the turn
clock is the one thing a test lets run, and it is the server's."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Browser, Page, Route, WebSocketRoute, expect

from browsing import DESKTOP, PHONE, Watch, audit, button, open_page, settle
from live import HANG_S, LiveServer

WAIT_MS = HANG_S * 1000


def open_table(
    page: Page, name: str = "Ann", clock: str = "", invited: tuple[str, ...] = ()
) -> tuple[str, str]:
    """Open a live table from the page's Play with others (`invited`: more seats, by label, for
    someone to invite); returns its invite and watch links (the invite dialog is left open)."""
    button(page, "Play with others").click()
    dialog = page.get_by_role("dialog", name="Play with others")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Your name").fill(name)
    if clock:
        dialog.get_by_label("Turn clock").select_option(clock)
    for seat in invited:
        dialog.get_by_label(seat).select_option("person")
    dialog.get_by_role("button", name="Open the table").click()
    invite = page.get_by_role("dialog", name="Invite to your table")
    expect(invite).to_be_visible()
    link = invite.get_by_label("Invite link").input_value()
    watch = invite.get_by_label("Link to watch (no seat, no turning)").input_value()
    return link, watch


def close_invite(page: Page) -> None:
    invite = page.get_by_role("dialog", name="Invite to your table")
    invite.get_by_role("button", name="Close").click()
    expect(invite).to_be_hidden()


def host_at_a_table(browser: Browser, server: LiveServer) -> tuple[Page, Watch, str, str]:
    """Ann at a desktop, at the table she opened (its invite closed): her page, its watch, and
    the table's invite and watch links."""
    ann, watch = open_page(browser, server, DESKTOP)
    link, watch_link = open_table(ann)
    close_invite(ann)
    return ann, watch, link, watch_link


def done(server: LiveServer, *devices: tuple[Page, Watch]) -> None:
    """Each device's page told of no error and asked nothing of another server; closed."""
    for _, watch in devices:
        watch.check(server)
    for page, _ in devices:
        page.context.close()


def device(
    browser: Browser,
    server: LiveServer,
    kind: dict[str, Any],
    route: Callable[..., Any] | None = None,
    motion: str = "reduce",
    init_script: str | None = None,
) -> tuple[Page, Watch]:
    """A new browser context (another device, its own cookie) on a blank page of the server;
    its cards move unless `motion` is "reduce", and `init_script` runs before the page's own."""
    context = browser.new_context(**kind, reduced_motion=motion)  # type: ignore[arg-type]  # Playwright's options are typed per keyword
    if init_script is not None:
        context.add_init_script(init_script)
    page = context.new_page()
    watch = Watch(page)
    if route is not None:
        page.route_web_socket("**/live", route)
    return page, watch


def join(page: Page, link: str, name: str, host: str = "Ann") -> None:
    """Open an invite link and sit down by `name` at the first free seat."""
    page.goto(link)
    dialog = page.get_by_role("dialog", name=f"Join {host}'s table")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Your name").fill(name)
    dialog.get_by_role("button", name="Sit down").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("live-bar")).to_contain_text(f"{host}'s table")


class Cable:
    """Playwright's route_web_socket standing between a page and the server, as its network:
    `cut` closes the page's sockets and keeps new ones from getting through, `mend` lets them."""

    def __init__(self) -> None:
        self.cutting = False
        self.through: list[WebSocketRoute] = []

    def route(self, socket: WebSocketRoute) -> None:
        if self.cutting:
            socket.close()
            return
        socket.connect_to_server()
        self.through.append(socket)

    def cut(self) -> None:
        self.cutting = True
        for socket in self.through:
            socket.close()
        self.through.clear()

    def mend(self) -> None:
        self.cutting = False


def caption(page: Page) -> Any:
    return expect(page.get_by_test_id("message"))


def laid(page: Page, slot: int) -> list[str]:
    """The face-up cards laid at a slot of the page's table, by their codes."""
    cards = page.locator(f"#laid-{slot} [data-code]")
    return [str(code) for code in cards.evaluate_all("cards => cards.map(c => c.dataset.code)")]


def turn(page: Page, touch: bool = False) -> None:
    control = button(page, "Turn cards")
    expect(control).to_be_enabled()
    if touch:
        control.tap()
    else:
        control.click()


def test_an_invite_the_network_can_open_shows_its_qr_code(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A game that listens on its network (here: its answer made so) offers the invite as a QR
    code too, drawn, and no hint: the phones of the network can open it."""
    context = browser.new_context(**DESKTOP, service_workers="block")  # every request routed
    page = context.new_page()

    def shared(route: Route) -> None:
        answer = route.fetch()
        opened = answer.json()
        opened["invite"] |= {"shared": True, "hint": None}
        route.fulfill(response=answer, json=opened)

    page.route("**/api/tables", shared)
    page.goto(shared_server.url)
    open_table(page)
    invite = page.get_by_role("dialog", name="Invite to your table")
    qr = page.get_by_role("img", name="QR code of the invite link")
    expect(qr).to_be_visible()
    # Drawn, not broken (waited for: the image may still be on its way when it shows).
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 100", arg=qr.element_handle(), timeout=WAIT_MS
    )
    expect(invite.locator("#invite-text")).to_contain_text("point their phone's camera")
    expect(invite.locator("#invite-hint")).to_be_hidden()
    audit(page)
    context.close()


def test_two_devices_meet_through_the_invite_and_play_the_same_battle(
    browser: Browser, shared_server: LiveServer
) -> None:
    ann, ann_watch = open_page(browser, shared_server, DESKTOP)
    link, _ = open_table(ann)
    # The game listens on this computer alone: no QR code a phone could not open, and the host
    # is told first how to let the network in (tests/web/test_start.py: the command runs).
    invite = ann.get_by_role("dialog", name="Invite to your table")
    expect(invite.locator("#invite-text")).to_contain_text("Only this computer can open this link")
    expect(invite.locator("#invite-hint")).to_contain_text("start it again with:")
    expect(invite.locator("#invite-hint")).to_contain_text("--host 0.0.0.0")
    expect(ann.get_by_role("img", name="QR code of the invite link")).to_be_hidden()
    assert "?table=" in link and link.startswith(shared_server.url)
    audit(ann)  # the invite dialog open
    close_invite(ann)
    expect(ann.get_by_test_id("live-bar")).to_contain_text("Your live table")
    expect(ann.locator('.seat-status[data-seat="1"]')).to_contain_text("Free seat")

    mia, mia_watch = device(browser, shared_server, PHONE)
    mia.goto(link)
    dialog = mia.get_by_role("dialog", name="Join Ann's table")
    expect(dialog).to_contain_text("Ann (the host)")
    expect(dialog).to_contain_text("Seat 2: free")
    audit(mia)  # the join dialog open
    dialog.get_by_role("button", name="Sit down").click()
    expect(dialog.get_by_role("alert")).to_contain_text("Say who you are")  # no name, no seat
    dialog.get_by_label("Your name").fill("Mia")
    dialog.get_by_role("button", name="Sit down").click()
    expect(dialog).to_be_hidden()
    caption(ann).to_contain_text("Mia sat down.")
    expect(ann.locator('.seat[data-seat="1"] .name')).to_have_text("Mia")
    expect(mia.locator('.seat[data-seat="0"] .name')).to_have_text("You")  # her own seat, below
    expect(mia.locator('.seat[data-seat="1"] .name')).to_have_text("Ann")

    turn(ann)
    caption(ann).to_have_text("Waiting for Mia…")
    caption(mia).to_have_text("Ann is ready: your turn. Press Turn cards.")
    expect(mia.locator('.seat-status[data-seat="1"]')).to_have_text("Ready")
    expect(button(ann, "Turn cards")).to_have_attribute("aria-disabled", "true")  # flipped once
    mia.locator('.seat[data-seat="0"] .stack').tap()  # her pile, as Turn cards
    for page in (ann, mia):
        expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
        settle(page)
    # The same battle on both, each from their own side: Ann's card is Mia's other seat's.
    assert laid(ann, 0) == laid(mia, 1) and laid(ann, 1) == laid(mia, 0)
    counts = [ann.get_by_test_id(f"count-{seat}").inner_text() for seat in (0, 1)]
    assert [mia.get_by_test_id(f"count-{seat}").inner_text() for seat in (1, 0)] == counts

    # Play 10 battles and Play to end are the host's, and the guest's page says so.
    for name in ("Play 10 battles", "Play to end", "New round"):
        expect(button(mia, name)).to_be_hidden()
    expect(mia.locator("#host-only")).to_have_text(
        "Ann opened this table: Play 10 battles, Play to end and the next round are Ann's."
    )
    button(ann, "Play 10 battles").click()
    for page in (ann, mia):
        expect(page.get_by_test_id("battle-number")).to_have_text("Battle 11 of 500")
    caption(mia).to_contain_text("Battles 2–11:")
    audit(mia)
    audit(ann)
    assert mia.evaluate("localStorage.getItem('cardwar.name')") == "Mia"  # asked once a browser
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


def test_a_reload_mid_round_comes_back_to_the_same_seat_and_the_battle_it_stood_at(
    browser: Browser, shared_server: LiveServer
) -> None:
    ann, ann_watch, link, _ = host_at_a_table(browser, shared_server)
    mia, mia_watch = device(browser, shared_server, PHONE)
    join(mia, link, "Mia")
    for _ in range(3):
        turn(ann)
        caption(mia).to_contain_text("your turn")
        turn(mia, touch=True)
        expect(mia.get_by_test_id("battle-number")).to_contain_text("Battle ")
        expect(ann.locator('.seat-status[data-seat="1"]')).to_be_hidden()
    number = ann.get_by_test_id("battle-number").inner_text()
    assert number == "Battle 3 of 500"
    turn(ann)  # Ann has turned for battle 4 when Mia reloads
    caption(mia).to_contain_text("your turn")
    mia.reload()
    expect(mia.get_by_role("dialog", name="Join Ann's table")).to_be_hidden()
    expect(mia.get_by_test_id("battle-number")).to_have_text(number)
    expect(mia.locator('.seat[data-seat="0"] .name')).to_have_text("You")
    caption(mia).to_contain_text("your turn")  # Ann's turn was kept
    caption(ann).to_have_text("Waiting for Mia…")  # what the table waits for comes first
    turn(mia, touch=True)
    for page in (ann, mia):
        expect(page.get_by_test_id("battle-number")).to_have_text("Battle 4 of 500")
    ann.reload()  # the host too
    expect(ann.get_by_test_id("battle-number")).to_have_text("Battle 4 of 500")
    expect(ann.get_by_test_id("live-bar")).to_contain_text("Your live table")
    caption(ann).to_contain_text("Welcome back")
    ann.goto(shared_server.url + "/")  # the plain address, as a bookmark opens it
    held = ann.get_by_test_id("held-bar")
    expect(held).to_contain_text("Your live table with Mia is still open.")
    held.get_by_role("button", name="Back to it").click()
    expect(ann.get_by_test_id("battle-number")).to_have_text("Battle 4 of 500")
    expect(held).to_be_hidden()
    # Mia leaves: the seat is free at once, and Ann may give it to the computer.
    button(mia, "Leave").click()
    mia.get_by_role("dialog", name="Leave this table?").get_by_role(
        "button", name="Leave the table"
    ).click()
    expect(mia.get_by_test_id("live-bar")).to_be_hidden()
    caption(ann).to_have_text("Mia left the table: the seat is free.")
    expect(ann.locator('.seat-status[data-seat="1"]')).to_contain_text("Free seat")
    expect(ann.get_by_role("button", name="Let the computer play")).to_be_visible()
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


def test_a_cut_connection_says_reconnecting_and_carries_on_when_it_is_back(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Playwright's route_web_socket stands between Mia's page and the server: the test cuts it,
    keeps it cut while the page tries again, then lets it through."""
    ann, ann_watch, link, _ = host_at_a_table(browser, shared_server)
    cable = Cable()
    mia, mia_watch = device(browser, shared_server, PHONE, cable.route)
    join(mia, link, "Mia")
    turn(ann)
    caption(mia).to_contain_text("your turn")
    cable.cut()
    expect(mia.get_by_test_id("live-link")).to_have_text("Reconnecting…")
    caption(mia).to_contain_text("Reconnecting… Your seat is kept")
    expect(button(mia, "Turn cards")).to_have_attribute("aria-disabled", "true")
    expect(ann.locator('.seat-status[data-seat="1"]')).to_contain_text("Reconnecting…")
    caption(ann).to_have_text(
        "Waiting for Mia… Mia lost touch: the table waits for them to come back."
    )
    audit(mia)
    cable.mend()
    mia.evaluate("dispatchEvent(new Event('online'))")  # as a phone back on its network
    caption(mia).to_contain_text("your turn", timeout=WAIT_MS)  # the flip Ann made was kept
    expect(mia.get_by_test_id("live-link")).to_have_text("")
    expect(ann.locator('.seat-status[data-seat="1"]')).to_have_text("To turn")  # back, not away
    caption(ann).to_have_text("Waiting for Mia…")
    turn(mia, touch=True)
    for page in (ann, mia):
        expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


def quick_pings(page: Page, retry_ms: int = 300) -> None:
    """Make the page ping every 0.3 s, give up on a socket silent for 1 s, and try again after
    `retry_ms` (live-socket.js's `ping` and `retry`, in the very module the page runs)."""
    page.evaluate(
        """async (retryMs) => {
            const app = document.querySelector('script[type="module"]').src;
            const { ping, retry } = await import(new URL("live-socket.js", app).href);
            Object.assign(ping, { everyMs: 300, answerMs: 1000 });
            Object.assign(retry, { firstMs: retryMs, mostMs: retryMs });
        }""",
        retry_ms,
    )


def test_a_socket_gone_silent_is_given_up_on_and_the_page_comes_back(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A phone whose network is lost without a word: its socket stays open but nothing passes
    either way (route_web_socket drops every message). The page stops waiting on it once its
    ping goes unanswered, says it is reconnecting, and the table sees it lost touch; once
    messages pass again, it rejoins and plays on. The browser's own offline event gives up on
    the socket at once."""
    ann, ann_watch, link, _ = host_at_a_table(browser, shared_server)
    silent = {"on": False}
    through: list[WebSocketRoute] = []

    def route(socket: WebSocketRoute) -> None:
        if silent["on"]:
            return  # nothing reaches the server, and the page's socket hears nothing
        server = socket.connect_to_server()
        server.on_message(lambda message: None if silent["on"] else socket.send(message))
        socket.on_message(lambda message: None if silent["on"] else server.send(message))
        through.append(socket)

    mia, mia_watch = device(browser, shared_server, PHONE, route)
    join(mia, link, "Mia")
    quick_pings(mia)
    through[-1].close()  # a new socket, which pings as quick_pings says
    turn(ann)
    caption(mia).to_contain_text("your turn", timeout=WAIT_MS)
    silent["on"] = True
    expect(mia.get_by_test_id("live-link")).to_have_text("Reconnecting…", timeout=WAIT_MS)
    expect(button(mia, "Turn cards")).to_have_attribute("aria-disabled", "true")
    expect(ann.locator('.seat-status[data-seat="1"]')).to_contain_text("Reconnecting…")
    silent["on"] = False
    caption(mia).to_contain_text("your turn", timeout=WAIT_MS)  # the flip Ann made was kept
    expect(mia.get_by_test_id("live-link")).to_have_text("")
    quick_pings(mia, retry_ms=600000)  # no try again but when the network is back
    mia.evaluate("dispatchEvent(new Event('offline'))")  # the phone says its network is gone
    expect(mia.get_by_test_id("live-link")).to_have_text("Reconnecting…")
    mia.evaluate("dispatchEvent(new Event('online'))")
    caption(mia).to_contain_text("your turn", timeout=WAIT_MS)
    turn(mia, touch=True)
    for page in (ann, mia):
        expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


def test_a_watcher_follows_the_table_and_a_full_table_offers_watching(
    browser: Browser, shared_server: LiveServer
) -> None:
    ann, ann_watch, link, watch_link = host_at_a_table(browser, shared_server)
    mia, mia_watch = device(browser, shared_server, PHONE)
    join(mia, link, "Mia")
    sam, sam_watch = device(browser, shared_server, {**DESKTOP, "color_scheme": "dark"})
    sam.goto(watch_link)
    expect(sam.get_by_test_id("live-bar")).to_contain_text("Watching Ann's table")
    expect(button(sam, "Turn cards")).to_be_hidden()  # nothing of a watcher's to turn
    expect(sam.locator('.seat[data-seat="0"] .name')).to_have_text("Ann")
    turn(ann)
    caption(sam).to_have_text("Ann is ready. Waiting for Mia.")
    turn(mia, touch=True)
    expect(sam.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    settle(sam)
    settle(ann)
    assert laid(sam, 0) == laid(ann, 0) and laid(sam, 1) == laid(ann, 1)
    audit(sam)
    # Every seat taken: the invite link offers to watch instead.
    leo, leo_watch = device(browser, shared_server, PHONE)
    leo.goto(link)
    dialog = leo.get_by_role("dialog", name="Join Ann's table")
    expect(dialog.get_by_role("alert")).to_have_text(
        "Every seat at Ann's table is taken: you can watch it live."
    )
    expect(dialog.get_by_role("button", name="Sit down")).to_be_hidden()
    dialog.get_by_role("button", name="Watch the table").click()
    expect(leo.get_by_test_id("live-bar")).to_contain_text("Watching Ann's table")
    expect(leo.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    caption(leo).to_have_text("You are watching from battle 1.")  # never "welcome back"
    expect(leo.locator(".pile-hint")).to_be_hidden()  # no pile of a watcher's to turn
    # The host closes the table: everyone is told, and Leave goes back to a table of one's own.
    ann.get_by_role("button", name="Close table").click()
    ann.get_by_role("dialog", name="Close this table?").get_by_role(
        "button", name="Close the table"
    ).click()
    expect(ann.get_by_test_id("live-bar")).to_be_hidden()
    expect(button(ann, "Play with others")).to_be_visible()
    for page in (mia, sam, leo):  # the board cleared, and one next step offered
        ended = page.get_by_test_id("table-ended")
        expect(ended).to_contain_text("Ann's table has closed")
        expect(ended).to_contain_text("Ann closed it.")
        expect(page.locator("#table")).to_be_hidden()
        expect(page.get_by_test_id("live-bar")).to_be_hidden()
    audit(mia)
    button(mia, "Play the computer").click()
    expect(mia.get_by_test_id("table-ended")).to_be_hidden()
    expect(mia.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    button(sam, "Open a table of your own").click()
    expect(sam.get_by_role("dialog", name="Play with others")).to_be_visible()
    expect(sam.get_by_test_id("table-ended")).to_be_hidden()
    assert "table=" not in mia.url
    for watch in (ann_watch, mia_watch, sam_watch, leo_watch):
        watch.check(shared_server)
    for page in (ann, mia, sam, leo):
        page.context.close()


def test_a_live_table_is_turned_to_each_device_s_own_seat(
    browser: Browser, shared_server: LiveServer
) -> None:
    """live-seats.js: every list by seat, and every seat named, is turned so that the device's
    own seat comes first, and turned back for what it sends."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    turned = page.evaluate(
        """async () => {
            const s = await import("/static/live-seats.js");
            const turn = s.turnFor(2, 4);
            const battle = { number: 5, winner: 3, counts: [10, 11, 12, 19], outcome: null,
                steps: [{ up: ["AS", "KS", "QS", "JS"], down: [0, 0, 0, 0], short: [1, 2] }] };
            const watcher = s.turnFor(null, 3);
            return {
                places: [0, 1, 2, 3].map(turn.local),
                back: [0, 1, 2, 3].map((place) => turn.server(turn.local(place))),
                battle: s.turnBattle(turn, battle),
                watcher: [0, 1, 2].map(watcher.local),
                named: s.namedSeats(s.turnFor(1, 2), [{ kind: "person", name: "Ann" },
                    { kind: "person", name: "Mia" }], 1, () => "Player 2"),
            };
        }"""
    )
    assert turned["places"] == [2, 3, 0, 1]
    assert turned["back"] == [0, 1, 2, 3]
    assert turned["battle"]["steps"][0]["up"] == ["QS", "JS", "AS", "KS"]
    assert turned["battle"]["steps"][0]["short"] == [3, 0]
    assert turned["battle"]["counts"] == [12, 19, 10, 11]
    assert turned["battle"]["winner"] == 1
    assert turned["watcher"] == [0, 1, 2]
    assert turned["named"] == [{"kind": "person", "name": "You"}, {"kind": "person", "name": "Ann"}]
    watch.check(shared_server)
    page.context.close()


def test_a_match_with_a_turn_clock_reactions_and_a_seat_given_to_the_computer(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Best of 3 at three seats: Mia is invited, the third seat is free until the host gives it
    to the computer; the clock turns for whoever is late; the host plays the round out and
    deals the next; a reaction shows on the seat that sent it."""
    ann, ann_watch = open_page(browser, shared_server, DESKTOP)
    chosen = ann.request.put(
        shared_server.url + "/api/me/house-rules", data={"rules": {"players": 3}, "best_of": 3}
    )
    assert chosen.status == 200, chosen.text()
    ann.reload()
    expect(button(ann, "Turn cards")).to_be_enabled()
    link, _ = open_table(ann, clock="10", invited=("Seat 3",))  # a second guest, who never comes
    close_invite(ann)
    mia, mia_watch = device(browser, shared_server, PHONE)
    join(mia, link, "Mia")
    expect(mia.get_by_test_id("match")).to_contain_text("Best of 3")
    free = ann.locator('.seat-status[data-seat="2"]')
    expect(free).to_contain_text("Free seat")
    free.get_by_role("button", name="Let the computer play").click()
    caption(ann).to_contain_text("plays that seat now.")
    expect(free).to_be_hidden()

    turn(mia, touch=True)
    caption(ann).to_contain_text("Mia is ready: your turn.")
    expect(ann.locator('.seat-status[data-seat="0"]')).to_contain_text("Your turn · ")
    # Ann never turns: after 10 s the table turns her card for her, on every device.
    caption(mia).to_contain_text(
        "Time ran out for Ann, so the table turned that card.", timeout=WAIT_MS
    )
    caption(ann).to_contain_text("Time ran out, so the table turned your card.")

    mia.get_by_role("button", name="Clap").tap()
    expect(ann.locator('.reaction[data-seat="1"]')).to_have_text("👏")
    expect(mia.locator('.reaction[data-seat="0"]')).to_have_text("👏")  # her own seat, below

    button(ann, "Play to end").click()
    expect(ann.get_by_test_id("outcome")).to_be_visible(timeout=WAIT_MS)
    expect(mia.get_by_test_id("outcome")).to_be_visible()
    caption(mia).to_contain_text("Ann deals the next round.")
    for page in (ann, mia):  # the table's own tally by name, on every device
        tally = page.get_by_role("list", name="Rounds by name")
        expect(tally).to_contain_text("Ann: ")
        expect(tally).to_contain_text("Mia: ")
    expect(mia.get_by_role("button", name="Next round")).to_be_hidden()
    expect(ann.get_by_test_id("match")).to_contain_text("round 1")
    ann.get_by_test_id("outcome").get_by_role("button", name="Next round").click()
    for page in (ann, mia):
        expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
        caption(page).to_contain_text("Round 2 of the best of 3")
    audit(ann)
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


def test_each_device_shows_what_it_can_do_and_the_caption_keeps_the_battle_s_words(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A watcher has no Turn cards; a guest has no Speed, Pause on wars or statistics (of their
    own house rules, not the table's); someone who loses touch shows so on their seat, with when
    the clock will turn for them, and the caption keeps the last battle's words as they go and
    come back."""
    ann, ann_watch = open_page(browser, shared_server, DESKTOP)
    link, watch_link = open_table(ann, clock="30")
    close_invite(ann)
    cable = Cable()
    mia, mia_watch = device(browser, shared_server, PHONE, cable.route)
    join(mia, link, "Mia")
    sam, sam_watch = device(browser, shared_server, PHONE)
    sam.goto(watch_link)
    expect(sam.get_by_test_id("live-bar")).to_contain_text("Watching Ann's table")
    expect(button(sam, "Turn cards")).to_be_hidden()
    expect(button(mia, "Turn cards")).to_be_visible()
    for page in (mia, sam):
        expect(page.get_by_label("Speed")).to_be_hidden()
        expect(page.get_by_label("Pause on wars")).to_be_hidden()
        expect(page.get_by_role("heading", name="How do rounds go?")).to_be_hidden()
    expect(ann.get_by_label("Speed")).to_be_visible()
    expect(ann.get_by_label("Pause on wars")).to_be_visible()
    expect(ann.get_by_role("heading", name="How do rounds go?")).to_be_visible()
    audit(sam)

    turn(ann)
    caption(mia).to_contain_text("your turn")
    turn(mia, touch=True)
    expect(ann.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    settle(ann)
    words = ann.get_by_test_id("message").inner_text()
    status = ann.locator('.seat-status[data-seat="1"]')
    cable.cut()
    expect(status).to_have_text("Reconnecting…")
    caption(ann).to_have_text(words)  # "Mia lost touch" is read out, not put in their place
    cable.mend()
    mia.evaluate("dispatchEvent(new Event('online'))")
    expect(status).to_be_hidden()
    caption(ann).to_have_text(words)  # nor "Mia is back"
    cable.cut()
    expect(status).to_have_text("Reconnecting…")
    turn(ann)  # the clock runs for Mia now, away or not
    expect(status).to_have_text(re.compile(r"^Reconnecting… · turns in [0-9]+ s$"))
    caption(ann).to_have_text(
        "Waiting for Mia… Mia lost touch: the clock turns for them until they are back."
    )
    done(shared_server, (ann, ann_watch), (mia, mia_watch), (sam, sam_watch))


# When each reaction reached the page (performance.now() as its socket message came, and whether
# cards were moving then) and when one was on screen (the frame after its seat showed it): the
# page's socket is wrapped so that this listener hears a message before the page's own does.
TIMED_REACTIONS = """
window.reactionTimes = { arrived: [], shown: [] };
const PageSocket = window.WebSocket;
window.WebSocket = class extends PageSocket {
    constructor(...args) {
        super(...args);
        this.addEventListener("message", (event) => {
            if (!event.data.includes('"reaction"')) return;
            const moving = document.getElementById("table").getAttribute("aria-busy") === "true";
            reactionTimes.arrived.push({ at: performance.now(), moving });
        });
    }
};
new MutationObserver((changes) => {
    const shown = (change) => change.target.matches(".reaction") && !change.target.hidden;
    if (!changes.some(shown)) return;
    requestAnimationFrame(() => reactionTimes.shown.push(performance.now()));
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["hidden"] });
"""
# Every animation of the page 20 times slower from now on: a run of battles that keeps its cards
# moving for many seconds, whatever the machine.
SLOW_MOTION = """() => {
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (frames, options) {
        const slow = typeof options === "number" ? options * 20
            : { ...options, duration: options.duration * 20, delay: (options.delay ?? 0) * 20 };
        return animate.call(this, frames, slow);
    };
}"""


def test_a_reaction_is_on_screen_at_once_while_battles_play(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A reaction is never kept waiting behind a battle's animation: while the host's page shows
    Play 10 battles, card by card, Mia's clap is on her seat there within 100 ms of coming."""
    ann, ann_watch = device(
        browser, shared_server, DESKTOP, motion="no-preference", init_script=TIMED_REACTIONS
    )
    ann.goto(shared_server.url + "/")
    settle(ann)
    link, _ = open_table(ann)
    close_invite(ann)
    mia, mia_watch = device(browser, shared_server, PHONE)
    join(mia, link, "Mia")
    caption(ann).to_contain_text("Mia sat down.")
    settle(ann)
    ann.evaluate(SLOW_MOTION)
    button(ann, "Play 10 battles").click()
    expect(ann.locator("#table")).to_have_attribute("aria-busy", "true")  # the cards move
    mia.get_by_role("button", name="Clap").tap()
    expect(ann.locator('.reaction[data-seat="1"]')).to_have_text("👏")
    times = ann.evaluate("reactionTimes")
    assert len(times["arrived"]) == 1 and times["arrived"][0]["moving"]  # came mid-battle
    assert times["shown"] and times["shown"][0] - times["arrived"][0]["at"] < 100
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


def test_a_link_to_no_table_says_so_on_a_plain_page_and_offers_a_table_of_one_s_own(
    browser: Browser, shared_server: LiveServer
) -> None:
    """An old or bogus invite opens no dead table with Leave: the page says there is no table
    at the link, in the table's place, and offers to play the computer."""
    page, watch = device(browser, shared_server, PHONE)
    page.goto(shared_server.url + "/?table=" + "x" * 22)
    ended = page.get_by_test_id("table-ended")
    expect(ended).to_contain_text("No table at this link")
    expect(ended).to_contain_text("The link may be cut short, or its table closed long ago.")
    expect(page.locator("#table")).to_be_hidden()
    expect(page.get_by_test_id("live-bar")).to_be_hidden()
    audit(page)
    button(page, "Play the computer").click()
    expect(ended).to_be_hidden()
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    assert "table=" not in page.url
    page.context.close()
    # A 404 is the server's answer, which the browser logs: the page itself said nothing wrong.
    assert watch.errors and all("404" in error for error in watch.errors)
    assert all(url.startswith(shared_server.url + "/") for url in watch.requests)
