"""The House rules panel, the chance meter, sharing and the scoreboard per name, in Debian's
Chromium: who sits at the table and their names, the draws a set of rules makes, the chance
meter's reason and its Hide button, the share link and the tally per name.

The helpers are tests/browsing.py, and a few of this file's own below; every test checks for
console errors and requests that leave the server, and audits the states it reaches against
WCAG 2.1 AA.

Until the server keeps seats, `Seats` below plays its part through page.route: the house rules'
`seats` (docs/api.md#house-rules), the scoreboard's `people` (docs/api.md#me) and each round's
seats; the chance answer's `holdings` (docs/api.md#the-chance-to-win) are routed in too. Each
test that leans on them says so.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from browsing import (  # the browser tests' helpers
    DESKTOP,
    PHONE,
    Watch,
    audit,
    button,
    open_house_rules,
    play_to_the_end,
    press,
    resume_with,
    settle,
)

from conftest import HANG_S, LiveServer

QUICK = {"hand_size": 4, "battle_limit": 40}  # rounds of a few battles
SIDEWAYS: dict[str, Any] = {**PHONE, "viewport": {"width": 740, "height": 375}}
WIDE_DARK: dict[str, Any] = {"viewport": {"width": 1920, "height": 1080}, "color_scheme": "dark"}
HANG_MS = HANG_S * 1000  # Playwright counts in milliseconds


def computers() -> list[dict[str, str]]:
    """The house rules' seats as never chosen: you, then three computers."""
    return [{"kind": "person", "name": ""}] + [{"kind": "computer", "name": ""}] * 3


def default_name(kind: str, seat: int, players: int) -> str:
    """A seat's name when none is given (docs/api.md#house-rules)."""
    if seat == 0:
        return "You"
    if kind == "computer":
        return "Computer" if players == 2 else f"Computer {seat}"
    return f"Player {seat + 1}"


class Seats:
    """The server's side of the people at the table, played through page.route until the server
    has it: the house rules and GET /api/me answer `seats` (and the scoreboard its `people`),
    every round answers the seats in play, names filled in; a PUT's `seats` is kept here and left
    out of the body the real server gets. `refuse` answers a PUT carrying seats with a 422 that
    says so. `puts` holds every house-rules body as the page sent it."""

    def __init__(self, seats: list[dict[str, str]] | None = None) -> None:
        self.seats = seats or computers()
        self.people: list[dict[str, Any]] = []
        self.puts: list[dict[str, Any]] = []
        self.refuse: str | None = None

    def install(self, page: Page) -> None:
        """Play the seats' part in `page`'s requests to the API from now on."""
        page.route("**/api/**", self.handle)

    def filled(self, players: int) -> list[dict[str, str]]:
        """The seats in play at a table of `players`, each name filled in."""
        return [
            {"kind": seat["kind"], "name": seat["name"] or default_name(seat["kind"], n, players)}
            for n, seat in enumerate(self.seats[:players])
        ]

    def handle(self, route: Route) -> None:
        request = route.request
        path = urlparse(request.url).path
        body = json.loads(request.post_data) if request.post_data else None
        if path == "/api/me/house-rules" and request.method == "PUT":
            self.puts.append(body)
            if "seats" in body and self.refuse:
                route.fulfill(status=422, json={"detail": self.refuse})
                return
        if isinstance(body, dict) and "seats" in body:
            if path == "/api/me/house-rules":
                self.seats = body["seats"]
            body = {key: value for key, value in body.items() if key != "seats"}
        sent = None if body is None else json.dumps(body)
        answer = route.fetch(post_data=sent, timeout=HANG_MS)  # a simulation may take a while
        headers = {
            name: value
            for name, value in answer.headers.items()
            if name.lower() not in ("content-encoding", "content-length")
        }
        if "application/json" not in headers.get("content-type", ""):
            route.fulfill(response=answer, headers=headers, body=answer.body())
            return
        route.fulfill(status=answer.status, headers=headers, json=self.patch(answer.json()))

    def patch(self, data: Any) -> Any:
        """Add what the contract adds to an answer of the real server."""
        if not isinstance(data, dict):
            return data
        if "house_rules" in data:
            data["house_rules"]["seats"] = self.seats
        if "best_of" in data and "rules" in data and "preset" in data:  # the house rules
            data["seats"] = self.seats
        if "scoreboard" in data:
            data["scoreboard"]["people"] = self.people
        for key in ("round", "match"):
            if isinstance(data.get(key), dict):
                self.patch(data[key])
        if "id" in data and "rules" in data and ("counts" in data or "score" in data):
            data["seats"] = self.filled(data["rules"]["players"])
        return data


def open_table(
    browser: Browser,
    server: LiveServer,
    device: dict[str, Any],
    seats: Seats | None = None,
    init_script: str | None = None,
) -> tuple[Page, Watch]:
    """As browsing.open_page, with the seats' part played by `seats` (service workers kept out,
    so that every request meets page.route)."""
    context = browser.new_context(**device, reduced_motion="reduce", service_workers="block")
    page = context.new_page()
    watch = Watch(page)
    if init_script:
        page.add_init_script(init_script)
    if seats:
        seats.install(page)
    page.goto(server.url + "/")
    settle(page)
    expect(button(page, "Turn cards")).to_be_enabled()
    return page, watch


def close(page: Page) -> None:
    """Close the page's context, its routes let go first (an answer may still be on its way)."""
    page.unroute_all(behavior="ignoreErrors")
    page.context.close()


def saved(page: Page, action: Any) -> None:
    """Do `action` (a choice in the panel) and wait until the server has kept it."""
    with page.expect_response("**/api/me/house-rules"):
        action()


def name_seat(page: Page, label: str, name: str) -> None:
    """Type a name into the panel's field `label` and leave it, as a person does."""
    field = page.get_by_role("dialog", name="House rules").get_by_label(label, exact=True)
    field.fill(name)
    field.press("Tab")


def finish_quick_round(page: Page, server: LiveServer, seed: int = 77) -> None:
    """Deal a round of a few battles and play it to its end."""
    resume_with(page, server, rules=QUICK, seed=seed)
    play_to_the_end(page)
    settle(page)


# -- who plays -----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_house_rules_seat_people_and_name_them(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """House rules shows, for each seat in play after the first, "Seat N" (Computer or A
    person) and "Name of seat N", with "Your name" for the first; a change is saved with the
    house rules as `seats` and comes back after a reload; a choice that changes no seat leaves
    them out. (The server's part: `Seats`, through page.route.)"""
    seats = Seats()
    page, watch = open_table(browser, shared_server, device, seats)
    dialog = open_house_rules(page)
    for label in ("Your name", "Seat 2", "Name of seat 2"):
        expect(dialog.get_by_label(label, exact=True)).to_be_visible()
    for label in ("Seat 3", "Name of seat 3", "Seat 4", "Name of seat 4"):
        expect(dialog.get_by_label(label, exact=True)).to_be_hidden()
    expect(dialog.get_by_label("Name of seat 2", exact=True)).to_have_attribute(
        "placeholder", "Computer"
    )
    kind = dialog.get_by_label("Seat 2", exact=True)
    expect(kind.locator("option")).to_have_text(["Computer", "A person"])

    saved(page, lambda: kind.select_option("person"))
    assert seats.puts[-1]["seats"][1] == {"kind": "person", "name": ""}
    expect(dialog.get_by_label("Name of seat 2", exact=True)).to_have_attribute(
        "placeholder", "Player 2"
    )
    saved(page, lambda: name_seat(page, "Name of seat 2", "  Mia "))
    saved(page, lambda: name_seat(page, "Your name", "Leo"))
    assert seats.seats[:2] == [{"kind": "person", "name": "Leo"}, {"kind": "person", "name": "Mia"}]
    players = dialog.get_by_label("Players", exact=True)
    saved(page, lambda: players.select_option("3"))
    assert "seats" not in seats.puts[-1]  # the seats did not change: the server keeps them
    expect(dialog.get_by_label("Seat 3", exact=True)).to_be_visible()
    expect(dialog.get_by_label("Name of seat 3", exact=True)).to_have_attribute(
        "placeholder", "Computer 2"
    )
    expect(dialog.get_by_label("Seat 4", exact=True)).to_be_hidden()
    audit(page)

    page.reload()
    settle(page)
    dialog = open_house_rules(page)
    expect(dialog.get_by_label("Players", exact=True)).to_have_value("3")
    expect(dialog.get_by_label("Your name", exact=True)).to_have_value("Leo")
    expect(dialog.get_by_label("Seat 2", exact=True)).to_have_value("person")
    expect(dialog.get_by_label("Name of seat 2", exact=True)).to_have_value("Mia")
    expect(dialog.get_by_label("Seat 3", exact=True)).to_have_value("computer")
    watch.check(shared_server)
    close(page)


def test_a_name_twice_or_refused_is_told_beside_its_field(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Two seats in play with one name (case aside) are told beside the name just typed, which
    is marked invalid, and nothing is saved or dealt until it changes; a name the server
    refuses shows its 422 beside the field it names. (The server's part: `Seats`.)"""
    seats = Seats()
    page, watch = open_table(browser, shared_server, DESKTOP, seats)
    dialog = open_house_rules(page)
    saved(page, lambda: dialog.get_by_label("Seat 2", exact=True).select_option("person"))
    saved(page, lambda: name_seat(page, "Name of seat 2", "Mia"))
    asked = len(seats.puts)
    name_seat(page, "Your name", "mia")
    field = dialog.get_by_label("Your name", exact=True)
    other = dialog.get_by_label("Name of seat 2", exact=True)
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(
        "Seat 2 is called \u201cMia\u201d already: give this seat another name."
    )
    expect(other).not_to_have_attribute("aria-invalid", "true")
    deal = dialog.get_by_role("button", name="Deal with these rules")
    expect(deal).to_have_attribute("aria-disabled", "true")
    audit(page)
    assert len(seats.puts) == asked  # nothing was saved meanwhile
    saved(page, lambda: name_seat(page, "Your name", ""))  # "You", as a name left empty
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(deal).to_have_attribute("aria-disabled", "false")
    name_seat(page, "Name of seat 2", "you")
    expect(other).to_have_attribute("aria-invalid", "true")
    expect(other).to_have_accessible_description(
        "That is your name already: give this seat another name."
    )
    assert len(seats.puts) == asked + 1
    saved(page, lambda: name_seat(page, "Name of seat 2", "Mia"))
    expect(other).not_to_have_attribute("aria-invalid", "true")
    assert seats.seats[:2] == [{"kind": "person", "name": ""}, {"kind": "person", "name": "Mia"}]

    seats.refuse = 'seats.1.name: "Zoë!" is not a name the table keeps'
    saved(page, lambda: name_seat(page, "Name of seat 2", "Zoë!"))
    refused = dialog.get_by_label("Name of seat 2", exact=True)
    expect(refused).to_have_attribute("aria-invalid", "true")
    expect(refused).to_have_accessible_description(
        'The server refused: "Zoë!" is not a name the table keeps'
    )
    expect(dialog.locator("#hr-error")).to_be_empty()
    watch.errors = [error for error in watch.errors if "422" not in error]
    watch.check(shared_server)
    close(page)


def test_the_scoreboard_keeps_a_tally_per_name(browser: Browser, shared_server: LiveServer) -> None:
    """Under the scoreboard, a line per person's name once more than one person has played
    here or someone has a name; none for "You" alone. (`scoreboard.people`: `Seats`.)"""
    seats = Seats()
    page, watch = open_table(browser, shared_server, DESKTOP, seats)
    tally = page.get_by_role("list", name="Rounds by name")
    expect(tally).to_have_count(0)
    seats.people = [{"name": "You", "won": 2, "lost": 1, "drawn": 0}]
    page.reload()
    settle(page)
    expect(tally).to_have_count(0)  # "You" alone is the scoreboard above
    seats.people = [
        {"name": "Leo", "won": 1, "lost": 2, "drawn": 0},
        {"name": "Mia", "won": 3, "lost": 1, "drawn": 1},
    ]
    page.reload()
    settle(page)
    expect(tally.get_by_role("listitem")).to_have_text(
        ["Leo: won 1 · lost 2 · drawn 0", "Mia: won 3 · lost 1 · drawn 1"]
    )
    expect(tally).to_be_visible()
    audit(page)
    watch.check(shared_server)
    close(page)


def test_the_replay_and_the_story_use_the_names(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A round played by Leo and Mia is told with their names in its replay and its story.
    (The rounds' `seats`: `Seats`.)"""
    seats = Seats(
        [{"kind": "person", "name": "Leo"}, {"kind": "person", "name": "Mia"}, *computers()[2:]]
    )
    page, watch = open_table(browser, shared_server, DESKTOP, seats)
    finish_quick_round(page, shared_server)
    expect(page.locator("#story-legend")).to_have_text(re.compile(r"^\s*Leo\s*Mia\s*$"))
    press(page, "Watch the replay")
    replay = page.get_by_role("dialog", name="Watch the replay")
    expect(replay.locator(".replay-name strong")).to_have_text(["Leo", "Mia"])
    expect(replay.locator("#replay-words")).to_contain_text(re.compile(r"(Leo|Mia)('s| takes)"))
    audit(page)
    watch.check(shared_server)
    close(page)


# -- bigger tables and draws ---------------------------------------------------------------------


def test_three_or_four_players_let_the_biggest_pile_win(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Choosing 3 or 4 players sets "At the battle limit" to the biggest pile wins and says so;
    the player may set it back; back at 2 players the choice it replaced returns; a round dealt
    at 3 players has the biggest pile win at the limit."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    dialog = open_house_rules(page)
    players = dialog.get_by_label("Players", exact=True)
    outcome = dialog.get_by_label("At the battle limit", exact=True)
    expect(outcome).to_have_value("draw")
    saved(page, lambda: players.select_option("3"))
    expect(outcome).to_have_value("most_cards")
    expect(dialog.locator("#hr-notes")).to_have_text(
        "With 3 players most rounds would reach the battle limit and end in a draw, so at the"
        " battle limit the biggest pile now wins. You can set it back."
    )
    saved(page, lambda: players.select_option("2"))
    expect(outcome).to_have_value("draw")  # as it was before
    saved(page, lambda: players.select_option("4"))
    expect(outcome).to_have_value("most_cards")
    saved(page, lambda: outcome.select_option("draw"))  # the player sets it back
    saved(page, lambda: players.select_option("2"))
    expect(outcome).to_have_value("draw")
    saved(page, lambda: players.select_option("3"))
    expect(outcome).to_have_value("most_cards")
    audit(page)
    dialog.get_by_role("button", name="Deal with these rules").click()
    expect(dialog).to_be_hidden()
    settle(page)
    expect(page.get_by_test_id("rules-line")).to_have_text(
        "3 players · 1 card down · short of cards loses · biggest pile wins after 500 battles"
    )
    watch.check(shared_server)
    close(page)


def test_the_panel_says_how_often_the_rules_draw(
    browser: Browser, shared_server: LiveServer
) -> None:
    """For any rules, single rounds too, the panel says how often a round ends in a draw, from
    2,000 rounds on the server's simulator: one request per set of rules, the same rules again
    answered at once from what was asked."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    asked: list[str] = []
    page.on(
        "request",
        lambda request: asked.append(request.url) if "simulations" in request.url else None,
    )
    dialog = open_house_rules(page)
    draws = dialog.locator("#hr-draws")
    per_100 = re.compile(r"^Under these rules about \d+ rounds in 100 end in a draw\.")
    expect(draws).to_have_text(per_100, timeout=HANG_MS)
    players = dialog.get_by_label("Players", exact=True)
    outcome = dialog.get_by_label("At the battle limit", exact=True)
    saved(page, lambda: players.select_option("3"))  # the biggest pile wins: few draws
    expect(draws).to_have_text(
        re.compile(
            r"^Under these rules (hardly any round ends|fewer than 1 round in 100 ends"
            r"|about [1-9] rounds? in 100 ends?) in a draw\.$"
        ),
        timeout=HANG_MS,
    )
    saved(page, lambda: outcome.select_option("draw"))
    expect(draws).to_have_text(
        re.compile(
            r"^Under these rules about [5-9]\d rounds in 100 end in a draw\. For a winner more"
            r" often, set At the battle limit to “the biggest pile wins”\.$"
        ),
        timeout=HANG_MS,
    )
    audit(page)
    saved(page, lambda: players.select_option("2"))  # the first rules again
    expect(draws).to_have_text(per_100)
    assert len(asked) == 3
    watch.check(shared_server)
    close(page)


# -- the chance meter ----------------------------------------------------------------------------

ACES_AGAINST_YOU = {
    "battles": 1,
    "runs": 2000,
    "you": 0.07,
    "seats": [0.07, 0.93],
    "draw": 0.0,
    "holdings": [{"cards": 33, "best": 1, "high": 6}, {"cards": 19, "best": 3, "high": 10}],
    "best_rank": "A",
    "best_in_play": 4,
    "high_in_play": 16,
}


def chance_requests(page: Page) -> list[str]:
    """The chance estimates `page` asks for, from now on."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/chance") else None)
    return asked


def nothing_more_asked(page: Page) -> None:
    """Wait until a request sent now has gone out: any the page began before it has too."""
    with page.expect_request("**/api/me"):
        page.evaluate("() => { fetch('/api/me'); }")


def test_the_chance_meter_waits_for_a_battle_and_says_why(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Before a card is turned there is no meter and no estimate is asked; from the first battle
    on it shows the chance with its reason in plain words. (The answer's `holdings`: page.route.)"""
    page, watch = open_table(browser, shared_server, PHONE)
    asked = chance_requests(page)
    page.route("**/api/rounds/*/chance", lambda route: route.fulfill(json=ACES_AGAINST_YOU))
    press(page, "New round")
    nothing_more_asked(page)
    expect(page.locator("#chance")).to_be_hidden()
    assert asked == []
    press(page, "Turn cards", touch=True)
    expect(page.get_by_test_id("chance")).to_have_text("7%")
    expect(page.locator("#chance-words")).to_have_text(
        "You hold more cards, 33 to 19, but the computer holds three of the four aces. If every"
        " pile were shuffled now, you would win about 7 rounds in 100 from here, the computer"
        " about 93 (2,000 tries)."
    )
    assert len(asked) == 1
    audit(page)
    watch.check(shared_server)
    close(page)


REASONS = [
    ({}, "You hold more cards, 33 to 19, but the computer holds three of the four aces."),
    (
        {
            "you": 0.9,
            "seats": [0.9, 0.1],
            "holdings": [{"cards": 33, "best": 4, "high": 10}, {"cards": 19, "best": 0, "high": 6}],
        },
        "You hold more cards, 33 to 19, and all four aces.",
    ),
    (
        {
            "you": 0.3,
            "seats": [0.3, 0.7],
            "holdings": [{"cards": 26, "best": 2, "high": 7}, {"cards": 26, "best": 2, "high": 9}],
        },
        "The computer holds more of the aces and picture cards, 9 to 7.",
    ),
    (
        {
            "you": 0.5,
            "seats": [0.5, 0.5],
            "holdings": [{"cards": 26, "best": 2, "high": 8}, {"cards": 26, "best": 2, "high": 8}],
        },
        "It could go either way: you and the computer hold as many cards and as many aces as each"
        " other.",
    ),
    (
        {
            "best_rank": "2",
            "you": 0.8,
            "seats": [0.8, 0.2],
            "holdings": [{"cards": 20, "best": 3, "high": 10}, {"cards": 32, "best": 1, "high": 6}],
        },
        "The computer holds more cards, 32 to 20, but you hold three of the four twos.",
    ),
    (
        {
            "best_in_play": 2,
            "high_in_play": 9,
            "you": 0.2,
            "seats": [0.2, 0.8],
            "holdings": [{"cards": 13, "best": 0, "high": 3}, {"cards": 13, "best": 2, "high": 6}],
        },
        "The computer holds both aces in play.",
    ),
    (
        {
            "best_in_play": 3,
            "high_in_play": 9,
            "you": 0.6,
            "seats": [0.6, 0.4],
            "holdings": [{"cards": 12, "best": 2, "high": 5}, {"cards": 14, "best": 1, "high": 4}],
        },
        "The computer holds more cards, 14 to 12, but you hold two of the three aces in play.",
    ),
    (
        {
            "you": 0.2,
            "seats": [0.2, 0.1, 0.7],
            "holdings": [
                {"cards": 20, "best": 1, "high": 5},
                {"cards": 12, "best": 0, "high": 4},
                {"cards": 20, "best": 3, "high": 7},
            ],
        },
        "Computer 2 holds three of the four aces.",
    ),
]


def test_the_chance_reason_in_plain_words(browser: Browser, shared_server: LiveServer) -> None:
    """The meter's reason names what the likelier winner holds that the other does not: more
    cards, more of the best rank (twos under Peace, "in play" on a short deck), else more of the
    four best ranks; and says so when it could go either way."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    for change, reason in REASONS:
        chance = {**ACES_AGAINST_YOU, **change}
        players = len(chance["seats"])
        names = ["You", "the computer"] if players == 2 else ["You", "Computer 1", "Computer 2"]
        said = page.evaluate(
            "([chance, names]) => import('/static/charts.js')"
            ".then((m) => m.chanceReason(chance, names))",
            [chance, names],
        )
        assert said == reason
    watch.check(shared_server)
    close(page)


def test_the_chance_meter_hides_and_remembers_it(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Hide (aria-pressed) takes the meter away and stops the estimates; the choice is kept
    through a reload, and pressing it again brings the meter back; before the first battle there
    is no meter, and no Hide either. (The answer's `holdings`: page.route.)"""
    page, watch = open_table(browser, shared_server, DESKTOP)
    page.route("**/api/rounds/*/chance", lambda route: route.fulfill(json=ACES_AGAINST_YOU))
    asked = chance_requests(page)
    hide = button(page, "Hide")
    expect(hide).to_be_hidden()  # before the first battle there is no meter to hide
    press(page, "Turn cards")
    expect(page.locator("#chance")).to_be_visible()
    expect(hide).to_have_attribute("aria-pressed", "false")
    hide.click()
    expect(hide).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#chance")).to_be_hidden()
    audit(page)
    count = len(asked)
    press(page, "Turn cards")
    nothing_more_asked(page)
    assert len(asked) == count

    page.reload()
    settle(page)
    expect(hide).to_have_attribute("aria-pressed", "true")
    press(page, "Turn cards")
    nothing_more_asked(page)
    expect(page.locator("#chance")).to_be_hidden()
    assert len(asked) == count
    hide.click()
    expect(hide).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#chance")).to_be_visible()
    assert len(asked) == count + 1
    watch.check(shared_server)
    close(page)


# -- sharing -------------------------------------------------------------------------------------

PRETEND_SHARE_SHEET = """
window.sharedWith = [];
Object.defineProperty(navigator, 'share', { configurable: true, value: (data) => {
  window.sharedWith.push(data);
  return Promise.resolve();
} });
Object.defineProperty(navigator, 'canShare', { configurable: true, value: () => true });
"""
NO_SHARE_SHEET = """
Object.defineProperty(navigator, 'share', { configurable: true, value: undefined });
"""


def test_the_share_link_comes_from_the_page_address(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The link starts with the address the page was opened at; at a loopback address the
    dialog says it opens only on this computer and how to let other devices in; it says a shared
    deal plays out the same way every time; Copy link copies it."""
    page, watch = open_table(browser, shared_server, DESKTOP, init_script=NO_SHARE_SHEET)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=shared_server.url)
    finish_quick_round(page, shared_server)
    button(page, "Share this deal").click()
    dialog = page.get_by_role("dialog", name="Share this deal")
    expect(dialog).to_be_visible()
    link = dialog.get_by_label("Link to this deal", exact=True).input_value()
    assert link.startswith(shared_server.url + "/?deal=")
    expect(dialog).to_have_accessible_description(re.compile(r"plays out the same way every time"))
    local = dialog.locator("#share-local")
    expect(local).to_be_visible()
    expect(local).to_contain_text("This page was opened at 127.0.0.1")
    expect(local).to_contain_text("only on this computer")
    expect(local).to_contain_text("cardwar serve --host 0.0.0.0")
    port = urlparse(shared_server.url).port
    expect(local).to_contain_text(f"http://192.168.1.20:{port}")
    expect(button(page, "Share link")).to_be_hidden()
    button(page, "Copy link").click()
    expect(dialog.locator("#share-status")).to_have_text("Copied: paste it wherever you like.")
    assert page.evaluate("navigator.clipboard.readText()") == link
    audit(page)
    button(page, "Close").click()
    watch.check(shared_server)
    close(page)

    # The same server at another of this computer's names: the link follows the address.
    at = shared_server.url.replace("127.0.0.1", "localhost")
    context = browser.new_context(reduced_motion="reduce", service_workers="block")
    other = context.new_page()
    seen = Watch(other)
    other.goto(at + "/")
    settle(other)
    dealt = other.request.post(at + "/api/rounds", data={"rules": QUICK, "seed": 5})
    assert dealt.status == 201, dealt.text()
    other.reload()
    settle(other)
    play_to_the_end(other)
    button(other, "Share this deal").click()
    link = other.get_by_label("Link to this deal", exact=True).input_value()
    assert link.startswith(at + "/?deal=")
    expect(other.locator("#share-local")).to_contain_text("This page was opened at localhost")
    assert seen.errors == []
    assert [url for url in seen.requests if not url.startswith(at + "/")] == []
    close(other)


def test_the_device_share_sheet_is_used_where_there_is_one(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Where the browser offers a share sheet (`navigator.share`), Share link hands it the link
    and Copy link stands beside it."""
    page, watch = open_table(browser, shared_server, PHONE, init_script=PRETEND_SHARE_SHEET)
    finish_quick_round(page, shared_server)
    button(page, "Share this deal").tap()
    dialog = page.get_by_role("dialog", name="Share this deal")
    link = dialog.get_by_label("Link to this deal", exact=True).input_value()
    expect(button(page, "Copy link")).to_be_visible()
    button(page, "Share link").tap()
    expect(dialog.locator("#share-status")).to_have_text("Shared.")
    shared = page.evaluate("window.sharedWith")
    assert len(shared) == 1 and shared[0]["url"] == link
    audit(page)
    watch.check(shared_server)
    close(page)


def test_which_addresses_are_this_computer_only(
    browser: Browser, shared_server: LiveServer
) -> None:
    """localhost, 127.x.y.z and ::1 name this computer only; any other address may be reached
    from elsewhere."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    hosts = [
        "localhost",
        "127.0.0.1",
        "127.1.2.3",
        "[::1]",
        "game.localhost",
        "LOCALHOST",
        "192.168.1.20",
        "10.0.0.7",
        "cardwar.lan",
        "[fe80::1]",
        "127.example",
    ]
    found = page.evaluate(
        "(hosts) => import('/static/share.js').then((m) => hosts.map(m.isLoopback))", hosts
    )
    assert dict(zip(hosts, found, strict=True)) == {
        **dict.fromkeys(hosts[:6], True),
        **dict.fromkeys(hosts[6:], False),
    }
    watch.check(shared_server)
    close(page)


# -- the look of the dialogs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "device",
    [PHONE, SIDEWAYS, DESKTOP, WIDE_DARK],
    ids=["phone", "sideways", "desktop", "wide-dark"],
)
def test_the_dialogs_fit_every_screen(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """House rules at its fullest (four seats, long names) and the share dialog fit the screen
    across, every control reachable and in the dialog's width, and pass the audit; on every
    screen, upright, sideways, wide and dark. (The seats' server part: `Seats`.)"""
    long_names = [
        "Christopher-Jonathan",
        "Maximilian-Alexander",
        "Anna-Sophia Ottoline",
        "Bartholomew Quentin",
    ]
    seats = Seats([{"kind": "person", "name": name} for name in long_names])
    page, watch = open_table(browser, shared_server, device, seats)
    dialog = open_house_rules(page)
    saved(page, lambda: dialog.get_by_label("Players", exact=True).select_option("4"))
    fits = "d => d.scrollWidth <= d.clientWidth"
    assert dialog.evaluate(fits)
    box = dialog.bounding_box()
    assert box is not None
    for control in dialog.locator("select, input, button").all():
        if not control.is_visible():
            continue
        control.scroll_into_view_if_needed()
        inner = control.bounding_box()
        assert inner is not None
        assert box["x"] <= inner["x"] and inner["x"] + inner["width"] <= box["x"] + box["width"]
    expect(dialog.get_by_label("Name of seat 4", exact=True)).to_have_value("Bartholomew Quentin")
    audit(page)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    finish_quick_round(page, shared_server)
    button(page, "Share this deal").click()
    share = page.get_by_role("dialog", name="Share this deal")
    expect(share).to_be_visible()
    assert share.evaluate(fits)
    for name in ("Copy link", "Close"):
        share.get_by_role("button", name=name).scroll_into_view_if_needed()
        expect(share.get_by_role("button", name=name)).to_be_in_viewport()
    audit(page)
    watch.check(shared_server)
    close(page)
