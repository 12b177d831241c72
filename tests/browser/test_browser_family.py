"""What a family meets at a live table (docs/api.md#live-tables), each moment in the page: two
or more browser contexts are the devices, on the real server.

Every wait is for something the page shows (Playwright's `expect`), never for time."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

import pytest
from playwright.sync_api import Browser, Page, expect
from test_browser_live import Cable, caption, close_invite, device, done, join, open_table

from browsing import (
    DESKTOP,
    PHONE,
    Watch,
    audit,
    button,
    choose,
    open_house_rules,
    open_page,
    settle,
)
from live import HANG_S, LiveServer

WAIT_MS = HANG_S * 1000


def test_three_or_four_people_from_play_with_others_itself(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The number of players is chosen in Play with others; every seat but the host's is
    someone to invite unless it is given to the computer there."""
    ann, ann_watch = open_page(browser, shared_server, DESKTOP)
    button(ann, "Play with others").click()
    dialog = ann.get_by_role("dialog", name="Play with others")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Players")).to_have_value("2")
    expect(dialog.get_by_label("Seat 3")).to_have_count(0)
    dialog.get_by_label("Players").select_option("4")
    for seat in ("Seat 2", "Seat 3", "Seat 4"):
        expect(dialog.get_by_label(seat)).to_have_value("person")
    expect(dialog.locator("#together-rules")).to_contain_text("4 players")
    audit(ann)  # the dialog with four seats
    dialog.get_by_label("Seat 4").select_option("computer")
    dialog.get_by_label("Players").select_option("3")  # fewer: the choices kept where they can
    expect(dialog.get_by_label("Seat 4")).to_have_count(0)
    expect(dialog.get_by_label("Seat 3")).to_have_value("person")
    dialog.get_by_label("Players").select_option("4")
    dialog.get_by_label("Seat 4").select_option("computer")
    dialog.get_by_label("Your name").fill("Ann")
    dialog.get_by_role("button", name="Open the table").click()
    close_invite(ann)
    link = (
        f"{shared_server.url}/?table={ann.evaluate('new URL(location).searchParams.get(`table`)')}"
    )
    for seat in (1, 2):
        expect(ann.locator(f'.seat-status[data-seat="{seat}"]')).to_contain_text("Free seat")
    expect(ann.locator('.seat-status[data-seat="3"]')).to_be_hidden()  # the computer's
    expect(ann.locator(".seat")).to_have_count(4)

    mia, mia_watch = device(browser, shared_server, PHONE)
    join(mia, link, "Mia")
    bo, bo_watch = device(browser, shared_server, PHONE)
    join(bo, link, "Bo")
    caption(ann).to_contain_text("Bo sat down.")
    for page in (ann, mia, bo):
        expect(page.locator(".seat")).to_have_count(4)
    # The table is for four; the browser's own house rules stay as they were, for two.
    rules = ann.request.get(shared_server.url + "/api/me").json()["house_rules"]["rules"]
    assert rules["players"] == 2
    done(shared_server, (ann, ann_watch), (mia, mia_watch), (bo, bo_watch))


def two_at_a_table(browser: Browser, server: LiveServer) -> tuple[Page, Watch, Page, Watch]:
    """Ann at a desktop, host of a table of two; Mia on a phone, seated at it."""
    ann, ann_watch = open_page(browser, server, DESKTOP)
    link, _ = open_table(ann)
    close_invite(ann)
    mia, mia_watch = device(browser, server, PHONE)
    join(mia, link, "Mia")
    caption(ann).to_contain_text("Mia sat down.")
    return ann, ann_watch, mia, mia_watch


def test_house_rules_at_a_live_table_are_the_hosts_to_deal_for_everyone(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A guest's Deal with these rules offers a table of their own, never a private round in the
    table's frame; the host's deals the table's next round for every device, after the usual
    question (which says it is the table's), with the rules on every device's rules line."""
    ann, ann_watch, mia, mia_watch = two_at_a_table(browser, shared_server)
    dialog = open_house_rules(mia)
    choose(mia, dialog, "Preset", "traditional")
    dialog.get_by_role("button", name="Deal with these rules").click()
    question = mia.get_by_role("dialog", name="These rules are for a table of your own")
    expect(question).to_contain_text("Ann deals this table's rounds")
    audit(mia)
    question.get_by_role("button", name="Stay at this table").click()
    expect(question).to_be_hidden()
    expect(mia.get_by_test_id("live-bar")).to_contain_text("Ann's table")
    expect(mia.get_by_test_id("rules-line")).to_contain_text("War: one down")  # the table's

    dialog = open_house_rules(ann)
    choose(ann, dialog, "Preset", "traditional")
    dialog.get_by_role("button", name="Deal with these rules").click()
    question = ann.get_by_role("dialog", name="Deal the table's next round?")
    expect(question).to_contain_text("Everyone at the table plays a new round with these rules")
    question.get_by_role("button", name="Deal for the table").click()
    for page in (ann, mia):
        expect(page.get_by_test_id("rules-line")).to_contain_text("War: three down")
        expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    expect(mia.get_by_test_id("live-bar")).to_contain_text("Ann's table")  # no round of her own

    # And a guest who would rather play them leaves for a table of their own, dealt with them.
    mia.get_by_role("button", name="House rules").click()
    mia.get_by_role("dialog", name="House rules").get_by_role(
        "button", name="Deal with these rules"
    ).click()
    mia.get_by_role("button", name="Leave for my own table").click()
    expect(mia.get_by_test_id("live-bar")).to_be_hidden()
    expect(mia.get_by_test_id("rules-line")).to_contain_text("War: three down")
    caption(ann).to_contain_text("Mia left the table")
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


def test_play_to_end_shows_every_battle_on_every_device_and_the_host_stops_it(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The host's Play to end is played battle by battle at the host's speed: every device
    shows each battle in turn (no jump), and the host's press stops it for everyone; after the
    round, the guest asks for another and the host's one press deals it."""
    ann, ann_watch, mia, mia_watch = two_at_a_table(browser, shared_server)
    mia.evaluate(
        """() => {
        window.seen = [];
        const number = document.querySelector('[data-testid="battle-number"]');
        new MutationObserver(() => window.seen.push(number.textContent))
            .observe(number, { childList: true, characterData: true, subtree: true });
    }"""
    )
    ann.get_by_label("Speed").select_option("fast")
    button(ann, "Play to end").click()
    mia.wait_for_function(
        "() => window.seen.filter((text) => text.startsWith('Battle ')).length >= 6"
    )
    button(ann, "Stop").click()
    caption(ann).to_contain_text("Stopped at battle")
    settle(ann)
    stopped = ann.get_by_test_id("battle-number").inner_text()
    expect(mia.get_by_test_id("battle-number")).to_have_text(stopped)
    seen = [
        int(text.split()[1]) for text in mia.evaluate("window.seen") if text.startswith("Battle ")
    ]
    assert seen and all(b - a <= 1 for a, b in pairwise(seen)), seen  # one by one

    ann.get_by_label("Speed").select_option("instant")
    button(ann, "Play to end").click()
    for page in (ann, mia):
        expect(page.get_by_test_id("outcome")).to_be_visible(timeout=WAIT_MS)
    ask = mia.get_by_test_id("outcome").get_by_role("button", name="Ask for another round")
    ask.click()
    caption(ann).to_contain_text("Mia asks for another round: press Play again to deal it.")
    expect(
        mia.get_by_test_id("outcome").get_by_role("button", name="Asked for another round")
    ).to_have_attribute("aria-disabled", "true")
    audit(mia)
    ann.get_by_test_id("outcome").get_by_role("button", name="Play again").click()
    for page in (ann, mia):
        expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    done(shared_server, (ann, ann_watch), (mia, mia_watch))


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose host may give an away person's seat after 5 seconds, not 2 minutes."""
    server = LiveServer(tmp_path_factory.mktemp("quick") / "live.db", args=["--give-after", "5"])
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_seat_given_to_the_computer_is_offered_back_to_its_person(
    browser: Browser, quick_server: LiveServer
) -> None:
    """Mia's phone goes away; once the table allows, Ann lets the computer play her seat. Back,
    Mia's page says her seat went to the computer and is hers to take back; she takes it, from
    the next battle, and Ann is told."""
    ann, ann_watch, mia, mia_watch = two_at_a_table(browser, quick_server)
    link, phone = mia.url, mia.context
    mia_watch.check(quick_server)
    mia.close()  # her browser keeps its cookie; the page, and its socket, are gone
    status = ann.locator('.seat-status[data-seat="1"]')
    expect(status).to_contain_text("Reconnecting")
    status.get_by_role("button", name="Let the computer play").click(timeout=WAIT_MS)
    caption(ann).to_contain_text("plays that seat now.")

    mia = phone.new_page()
    mia_watch = Watch(mia)
    mia.goto(quick_server.url + "/")
    held = mia.get_by_test_id("held-bar")
    expect(held).to_contain_text("the computer plays your seat while you are away")
    held.get_by_role("button", name="Back to it").click()
    dialog = mia.get_by_role("dialog", name="Your seat at Ann's table")
    expect(dialog).to_contain_text("Ann let the computer play your seat (seat 2)")
    audit(mia)
    dialog.get_by_role("button", name="Take my seat back").click()
    expect(dialog).to_be_hidden()
    caption(ann).to_contain_text("Mia took their seat back from the computer.")
    expect(mia.locator('.seat[data-seat="0"] .name')).to_have_text("You")
    expect(mia.get_by_test_id("live-bar")).to_contain_text("Ann's table")
    assert "table=" in mia.url and link.split("table=")[1] in mia.url
    button(mia, "Turn cards").click()
    caption(ann).to_contain_text("Mia is ready: your turn.")
    done(quick_server, (ann, ann_watch), (mia, mia_watch))


def test_a_phone_back_on_its_network_is_offered_the_seat_the_computer_took(
    browser: Browser, quick_server: LiveServer
) -> None:
    """Mia's page stays open while her network is gone; Ann lets the computer play her seat.
    When the network is back, her page rejoins as a visitor and offers her seat back at once."""
    ann, ann_watch = open_page(browser, quick_server, DESKTOP)
    link, _ = open_table(ann)
    close_invite(ann)
    cable = Cable()
    mia, mia_watch = device(browser, quick_server, PHONE, cable.route)
    join(mia, link, "Mia")
    caption(ann).to_contain_text("Mia sat down.")
    cable.cut()
    give = ann.locator('.seat-status[data-seat="1"]').get_by_role(
        "button", name="Let the computer play"
    )
    give.click(timeout=WAIT_MS)
    caption(ann).to_contain_text("plays that seat now.")
    cable.mend()
    mia.evaluate("dispatchEvent(new Event('online'))")  # as a phone back on its network
    dialog = mia.get_by_role("dialog", name="Your seat at Ann's table")
    expect(dialog).to_be_visible(timeout=WAIT_MS)
    dialog.get_by_role("button", name="Take my seat back").click()
    caption(ann).to_contain_text("Mia took their seat back from the computer.")
    expect(mia.locator('.seat[data-seat="0"] .name')).to_have_text("You")
    done(quick_server, (ann, ann_watch), (mia, mia_watch))
