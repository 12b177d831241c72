"""What a family meets at a live table (docs/api.md#live-tables), each moment in the page: two
or more browser contexts are the devices, on the real server.

Every wait is for something the page shows (Playwright's `expect`), never for time."""

from __future__ import annotations

from playwright.sync_api import Browser, expect
from test_browser_live import caption, close_invite, device, done, join

from browsing import DESKTOP, PHONE, audit, button, open_page
from live import LiveServer


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
