"""The House rules panel, the chance meter, sharing and the scoreboard per name, in Debian's
Chromium: who sits at the table and their names, the draws a set of rules makes, the chance
meter's reason and its Hide button, the share link and the tally per name.

The helpers are tests/browser/browsing.py, and a few of this file's own below; every test checks for
console errors and requests that leave the server, and audits the states it reaches against
WCAG 2.1 AA.

The server is the real one throughout: it keeps the seats of the house rules
(docs/api.md#house-rules), seats each round (docs/api.md#the-round) and tallies each name
(`scoreboard.people`, docs/api.md#me). A test that needs to know what the page sent records its
requests as they go, unaltered; one that checks what the server kept asks the server. Only the
chance meter's words are checked against a fixed answer (docs/api.md#the-chance-to-win), routed
in where a test says why.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, Request, Response, expect

from browsing import (  # the browser tests' helpers
    DESKTOP,
    PHONE,
    Watch,
    audit,
    button,
    counts,
    open_house_rules,
    play_to_the_end,
    press,
    settle,
)
from live import HANG_S, LiveServer

QUICK = {"hand_size": 4, "battle_limit": 40}  # rounds of a few battles
SIDEWAYS: dict[str, Any] = {**PHONE, "viewport": {"width": 740, "height": 375}}
WIDE_DARK: dict[str, Any] = {"viewport": {"width": 1920, "height": 1080}, "color_scheme": "dark"}
HANG_MS = HANG_S * 1000  # Playwright counts in milliseconds
HOUSE_RULES = "/api/me/house-rules"


def computers() -> list[dict[str, str]]:
    """The house rules' seats as never chosen: you, then three computers."""
    return [{"kind": "person", "name": ""}] + [{"kind": "computer", "name": ""}] * 3


def people(*names: str) -> list[dict[str, str]]:
    """Four seats: a person for each name, seat 0 first, computers in the seats left."""
    return [{"kind": "person", "name": name} for name in names] + computers()[len(names) :]


def open_table(
    browser: Browser,
    server: LiveServer,
    device: dict[str, Any],
    init_script: str | None = None,
) -> tuple[Page, Watch]:
    """As browsing.open_page, with service workers kept out, so that every request of the page
    meets page.route (the chance meter's fixed answer) and page.on("request")."""
    context = browser.new_context(**device, reduced_motion="reduce", service_workers="block")
    page = context.new_page()
    watch = Watch(page)
    if init_script:
        page.add_init_script(init_script)
    page.goto(server.url + "/")
    settle(page)
    expect(button(page, "Turn cards")).to_be_enabled()
    return page, watch


def close(page: Page) -> None:
    """Close the page's context, its routes let go first (an answer may still be on its way)."""
    page.unroute_all(behavior="ignoreErrors")
    page.context.close()


def is_house_rules_put(request: Request) -> bool:
    """True for the page's request that saves its house rules."""
    return request.method == "PUT" and urlparse(request.url).path == HOUSE_RULES


def house_rules_sent(page: Page) -> list[dict[str, Any]]:
    """Every house-rules body `page` sends from now on, as it sent it."""
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda request: (
            sent.append(request.post_data_json) if is_house_rules_put(request) else None
        ),
    )
    return sent


def saved(page: Page, action: Any) -> Response:
    """Do `action` (a choice in the panel) and wait for the server's answer to the house rules
    it sends; that answer (its `.request` is what the page sent)."""
    with page.expect_response(lambda answer: is_house_rules_put(answer.request)) as answer:
        action()
    return answer.value


def nothing_more_asked(page: Page) -> None:
    """Wait until a request sent now has gone out: any the page began before it has too."""
    with page.expect_request("**/api/me"):
        page.evaluate("() => { fetch('/api/me'); }")


def me(page: Page, server: LiveServer) -> dict[str, Any]:
    """GET /api/me as the page's player (the context's cookie): what the server keeps."""
    answer = page.request.get(server.url + "/api/me")
    assert answer.status == 200, answer.text()
    found: dict[str, Any] = answer.json()
    return found


def kept_seats(page: Page, server: LiveServer) -> list[dict[str, str]]:
    """The four seats the server keeps in the page's house rules."""
    seats: list[dict[str, str]] = me(page, server)["house_rules"]["seats"]
    return seats


def seat_people(page: Page, server: LiveServer, seats: list[dict[str, str]]) -> None:
    """Choose `seats` for the page's player through the API (PUT /api/me/house-rules with the
    page's cookie; the rules become classic), then reload: the page sits down with them."""
    chosen = page.request.put(server.url + HOUSE_RULES, data={"seats": seats})
    assert chosen.status == 200, chosen.text()
    page.reload()
    settle(page)


def name_seat(page: Page, label: str, name: str) -> None:
    """Type a name into the panel's field `label` and leave it, as a person does."""
    field = page.get_by_role("dialog", name="House rules").get_by_label(label, exact=True)
    field.fill(name)
    field.press("Tab")


def finish_quick_round(
    page: Page,
    server: LiveServer,
    seed: int = 77,
    seats: list[dict[str, str]] | None = None,
) -> dict[str, Any]:
    """Deal a round of a few battles through the API with the page's cookie (with `seats`, if
    given, as a deal's body may name them), reload so that the page resumes it, and play it to
    its end; the round as the server then tells it."""
    body: dict[str, Any] = {"rules": QUICK, "seed": seed}
    if seats is not None:
        body["seats"] = seats
    created = page.request.post(server.url + "/api/rounds", data=body)
    assert created.status == 201, created.text()
    page.reload()
    settle(page)
    play_to_the_end(page)
    settle(page)
    ended = page.request.get(f"{server.url}/api/rounds/{created.json()['id']}")
    assert ended.status == 200, ended.text()
    found: dict[str, Any] = ended.json()
    assert found["outcome"] is not None
    return found


# -- who plays -----------------------------------------------------------------------------------


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_house_rules_seat_people_and_name_them(
    browser: Browser, shared_server: LiveServer, device: dict[str, Any]
) -> None:
    """House rules shows, for each seat in play after the first, "Seat N" (Computer or A
    person) and "Name of seat N", with "Your name" for the first; a change is saved with the
    house rules as `seats` and comes back after a reload; a choice that changes no seat leaves
    them out."""
    page, watch = open_table(browser, shared_server, device)
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

    sent = saved(page, lambda: kind.select_option("person")).request.post_data_json
    assert sent["seats"][1] == {"kind": "person", "name": ""}
    expect(dialog.get_by_label("Name of seat 2", exact=True)).to_have_attribute(
        "placeholder", "Player 2"
    )
    saved(page, lambda: name_seat(page, "Name of seat 2", "  Mia "))
    saved(page, lambda: name_seat(page, "Your name", "Leo"))
    assert kept_seats(page, shared_server)[:2] == people("Leo", "Mia")[:2]
    players = dialog.get_by_label("Players", exact=True)
    answer = saved(page, lambda: players.select_option("3"))
    assert "seats" not in answer.request.post_data_json  # unchanged: the server keeps them
    assert answer.json()["seats"] == people("Leo", "Mia")  # and says so
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


# A right-to-left mark inside a name: the page's own check lets it by (it looks for tabs, line
# breaks and the other C0 and C1 controls), the server refuses it (docs/api.md, "people at the
# table": no control character, "or mark that turns text right to left").
RIGHT_TO_LEFT_MARK = "\u200f"
REFUSED_NAME = f"Zo{RIGHT_TO_LEFT_MARK}ë"
SERVER_REFUSAL = "seats.1.name: must not hold control characters such as a new line"


def test_a_name_twice_or_refused_is_told_beside_its_field(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Two seats in play with one name (case aside) are told beside the name just typed, which
    is marked invalid, and nothing is saved or dealt until it changes; a name the server
    refuses shows its 422 beside the field it names, and the server keeps what it had."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    sent = house_rules_sent(page)
    dialog = open_house_rules(page)
    saved(page, lambda: dialog.get_by_label("Seat 2", exact=True).select_option("person"))
    saved(page, lambda: name_seat(page, "Name of seat 2", "Mia"))
    asked = len(sent)
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
    nothing_more_asked(page)
    assert len(sent) == asked  # nothing was saved meanwhile
    saved(page, lambda: name_seat(page, "Your name", ""))  # "You", as a name left empty
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(deal).to_have_attribute("aria-disabled", "false")
    name_seat(page, "Name of seat 2", "you")
    expect(other).to_have_attribute("aria-invalid", "true")
    expect(other).to_have_accessible_description(
        "That is your name already: give this seat another name."
    )
    nothing_more_asked(page)
    assert len(sent) == asked + 1
    saved(page, lambda: name_seat(page, "Name of seat 2", "Mia"))
    expect(other).not_to_have_attribute("aria-invalid", "true")
    assert kept_seats(page, shared_server)[:2] == people("", "Mia")[:2]

    refusal = saved(page, lambda: name_seat(page, "Name of seat 2", REFUSED_NAME))
    assert refusal.request.post_data_json["seats"][1] == {"kind": "person", "name": REFUSED_NAME}
    assert refusal.status == 422
    assert refusal.json() == {"detail": SERVER_REFUSAL}
    refused = dialog.get_by_label("Name of seat 2", exact=True)
    expect(refused).to_have_attribute("aria-invalid", "true")
    # The server's own words, told beside the field it names without the field's path.
    expect(refused).to_have_accessible_description(
        "The server refused: " + SERVER_REFUSAL.removeprefix("seats.1.name: ")
    )
    expect(dialog.locator("#hr-error")).to_be_empty()
    assert kept_seats(page, shared_server)[:2] == people("", "Mia")[:2]  # a refusal keeps none
    watch.errors = [error for error in watch.errors if "422" not in error]
    watch.check(shared_server)
    close(page)


def tally(rounds: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each person's rounds won, lost and drawn, from the rounds' seats and outcomes, as
    docs/api.md ("people at the table", tallies) says the server counts them (two seats: no one
    is out before the end)."""
    found: dict[str, dict[str, int]] = {}
    for round_ in rounds:
        winner = round_["outcome"]["winner"]
        for seat, sitting in enumerate(round_["seats"]):
            if sitting["kind"] != "person":
                continue
            count = found.setdefault(sitting["name"], {"won": 0, "lost": 0, "drawn": 0})
            count["drawn" if winner is None else "won" if winner == seat else "lost"] += 1
    return found


def test_the_scoreboard_keeps_a_tally_per_name(browser: Browser, shared_server: LiveServer) -> None:
    """Under the scoreboard, a line per person's name once more than one person has played
    here or someone has a name; none for "You" alone. The rounds are played here, the tally is
    the server's."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    tally_list = page.get_by_role("list", name="Rounds by name")
    expect(tally_list).to_have_count(0)
    played = [finish_quick_round(page, shared_server, seed=77)]  # You against the computer
    assert [person["name"] for person in me(page, shared_server)["scoreboard"]["people"]] == ["You"]
    page.reload()
    settle(page)
    expect(tally_list).to_have_count(0)  # "You" alone is the scoreboard above
    for seed in (77, 5, 8):  # two rounds Leo wins, one drawn at the battle limit
        played.append(finish_quick_round(page, shared_server, seed, seats=people("Leo", "Mia")))
        expect(tally_list).to_be_visible()  # at the round's end, no reload needed
    counted = tally(played)
    assert sorted(counted) == ["Leo", "Mia", "You"]
    lines = [
        f"{name}: won {count['won']} · lost {count['lost']} · drawn {count['drawn']}"
        for name, count in sorted(counted.items())
    ]
    expect(tally_list.get_by_role("listitem")).to_have_text(lines)
    page.reload()
    settle(page)
    expect(tally_list.get_by_role("listitem")).to_have_text(lines)
    audit(page)
    watch.check(shared_server)
    close(page)


def test_the_replay_and_the_story_use_the_names(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A round played by Leo and Mia is told with their names in its replay and its story."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    finished = finish_quick_round(page, shared_server, seats=people("Leo", "Mia"))
    assert finished["seats"] == people("Leo", "Mia")[:2]
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
        "With 3 players a round now stops at 150 battles, and the biggest pile wins there."
        " You can set them back."
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
    expect(page.locator("#guide-rules-line")).to_have_text(
        "3 players · 1 card down · short of cards loses · biggest pile wins after 150 battles"
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

# A fixed answer of the documented shape (docs/api.md#the-chance-to-win): the real server's
# estimate of a real deal is the simulator's own number, so words checked to the letter, down to
# "about 7 rounds in 100", need an answer that stays put. The real estimate's words are checked
# in test_the_chance_meter_hides_and_remembers_it.
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


def test_the_chance_meter_waits_for_a_battle_and_says_why(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Before a card is turned there is no meter and no estimate is asked; from the first battle
    on it shows the chance with one line of what the table shows, and its reason in plain words
    only behind Peek at the piles. (The answer: ACES_AGAINST_YOU, fixed for its words, routed
    in.)"""
    page, watch = open_table(browser, shared_server, PHONE)
    asked = chance_requests(page)
    page.route("**/api/rounds/*/chance", lambda route: route.fulfill(json=ACES_AGAINST_YOU))
    press(page, "New round")
    nothing_more_asked(page)
    expect(page.locator("#chance")).to_be_hidden()
    assert asked == []
    press(page, "Turn cards", touch=True)
    expect(page.get_by_test_id("chance")).to_have_text("7%")
    yours, theirs = counts(page)
    expect(page.locator("#chance-words")).to_have_text(
        f"You hold {yours} cards to the computer's {theirs}."
    )
    peek = button(page, "Peek at the piles")
    expect(peek).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#chance-peek-words")).to_be_hidden()
    peek.click()
    expect(page.locator("#chance-peek-words")).to_have_text(
        "You hold more cards, 33 to 19, but the computer holds three of the four aces. If every"
        " pile were shuffled now, you would win about 7 rounds in 100 from here, the computer"
        " about 93 (2,000 tries)."
    )
    button(page, "Stop peeking").click()
    expect(page.locator("#chance-peek-words")).to_be_hidden()
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
    """Hide takes the meter away and stops the estimates, and is then named Show your chance;
    the choice is kept through a reload, and pressing it again brings the meter back; before the
    first battle there is no meter, and no Hide either. The estimates are the server's own, and
    Peek tells the real one in words: a figure, and a reason from the answer's `holdings`."""
    page, watch = open_table(browser, shared_server, DESKTOP)
    asked = chance_requests(page)
    hide = page.locator("#chance-hide")  # its name says its state: Hide, Show your chance
    expect(hide).to_be_hidden()  # before the first battle there is no meter to hide
    with page.expect_response("**/api/rounds/*/chance") as estimate:
        press(page, "Turn cards")
    assert estimate.value.status == 200, estimate.value.text()
    assert len(estimate.value.json()["holdings"]) == 2
    expect(page.locator("#chance")).to_be_visible()
    meter = page.get_by_test_id("chance")
    expect(meter).to_have_text(re.compile(r"^\d{1,3}%$"))
    figure = meter.inner_text().removesuffix("%")
    button(page, "Peek at the piles").click()
    expect(page.locator("#chance-peek-words")).to_have_text(
        re.compile(
            r"^[A-Z][^.]+\. If every pile were shuffled now, you would win about"
            rf" {figure} rounds in 100 from here, the computer about \d+"
            r"(, and \d+ would be drawn)? \(2,000 tries\)\.$"
        )
    )
    expect(hide).to_have_text("Hide")
    expect(hide).not_to_have_attribute("aria-pressed", re.compile(".*"))  # a name, not a state
    hide.click()
    expect(hide).to_have_text("Show your chance")
    expect(hide).to_be_visible()
    expect(page.locator("#chance")).to_be_hidden()
    audit(page)
    count = len(asked)
    press(page, "Turn cards")
    nothing_more_asked(page)
    assert len(asked) == count

    page.reload()
    settle(page)
    expect(hide).to_have_text("Show your chance")
    press(page, "Turn cards")
    nothing_more_asked(page)
    expect(page.locator("#chance")).to_be_hidden()
    assert len(asked) == count
    hide.click()
    expect(hide).to_have_text("Hide")
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
    expect(local).to_contain_text("python3 dev.py play --host 0.0.0.0")
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
    screen, upright, sideways, wide and dark. The long names are seated through the API, and
    the round shared is played by the first two."""
    long_names = people(
        "Christopher-Jonathan",
        "Maximilian-Alexander",
        "Anna-Sophia Ottoline",
        "Bartholomew Quentin",
    )
    page, watch = open_table(browser, shared_server, device)
    seat_people(page, shared_server, long_names)
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

    finish_quick_round(page, shared_server, seats=long_names)
    expect(page.locator("#story-legend")).to_contain_text("Christopher-Jonathan")
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
