"""Tables of three or four no longer grind (#22), in Debian's Chromium: the House rules panel
gives them a shorter battle limit of their own and says so beside the limit
(docs/rules.md#bigger-tables); Play 10 battles and Play to end stop at the battle you go out and
say the others play on (docs/rules.md#out-of-cards); a seat that is out is told by the battle it
went out at, never as "you won 0"; and a count of 51 cards says where the 52nd went.

The helpers are browsing.py; every test checks for console errors and requests that leave the
server, and audits the states it reaches against WCAG 2.1 AA. The server is the real one; the
deals are fixed seeds, each checked against the rules engine before the page plays it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from cardwar import Round, Rules

from browsing import (  # the browser tests' helpers
    DESKTOP,
    audit,
    button,
    choose,
    open_house_rules,
    open_page,
    press,
    resume_with,
    settle,
)
from live import HANG_S, LiveServer

HANG_MS = HANG_S * 1000  # Playwright counts in milliseconds
OTHERS_PLAY_ON = (
    "The others play on: press Turn cards to watch them, Play to end to see who wins, or New"
    " round to move on."
)
ASIDE = "One card is set aside so the deal comes out even."
# Three players, dealt from these seeds under the table of three's own rules: you go out at
# battle 9, having won no battle, and the computers play on (checked by `out_at_nine`).
OUT_THEN_ALL_CARDS = 64413  # Computer 1 takes every card at battle 47
OUT_THEN_COUNTED = 34191  # the cards are counted at the battle limit


def bigger_tables(page: Page, server: LiveServer) -> dict[str, dict[str, Any]]:
    """The server's own ending for tables of three and four (GET /api/rules)."""
    tables: dict[str, dict[str, Any]] = page.request.get(f"{server.url}/api/rules").json()[
        "bigger_tables"
    ]
    return tables


def out_at_nine(seed: int, rules: dict[str, Any]) -> Round:
    """The round `seed` deals under `rules`, played to its end by the engine, once it is known
    that you go out at battle 9 without a battle won while the others play on."""
    played = Round(Rules.from_dict(rules), seed=seed)
    battles = played.play()
    assert played.out_at[0] == 9 and played.battles > 20
    assert not any(battle.winner == 0 for battle in battles)
    return played


def three_players(page: Page, server: LiveServer, seed: int) -> Round:
    """Resume a table of three under the panel's rules for it, dealt from `seed`."""
    rules = {"players": 3, **bigger_tables(page, server)["3"]}
    played = out_at_nine(seed, rules)
    resume_with(page, server, rules=rules, seed=seed)
    return played


def test_a_table_of_three_or_four_stops_sooner(browser: Browser, shared_server: LiveServer) -> None:
    """Choosing 3 or 4 players sets the server's shorter battle limit for that table, with the
    biggest pile winning there, and a line beside the limit says so; back at 2 the classic 500 and
    its draw return and the line goes; a limit typed by the player stays; a round dealt at 3 is
    told by its own limit."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    tables = bigger_tables(page, shared_server)
    dialog = open_house_rules(page)
    limit = dialog.get_by_label("Battle limit", exact=True)
    outcome = dialog.get_by_label("At the battle limit", exact=True)
    line = dialog.locator("#hr-limit-table")
    expect(limit).to_have_value("500")
    expect(line).to_be_hidden()
    for players in ("3", "4"):
        choose(page, dialog, "Players", players)
        expect(limit).to_have_value(str(tables[players]["battle_limit"]))
        expect(outcome).to_have_value("most_cards")
        expect(line).to_have_text(
            f"{players} players: a round stops at {tables[players]['battle_limit']} battles and"
            " the biggest pile wins, unless you set your own limit."
        )
    expect(dialog.locator("#hr-notes")).to_have_text(
        f"With 4 players a round now stops at {tables['4']['battle_limit']} battles. You can set"
        " it back."
    )
    audit(page)
    choose(page, dialog, "Players", "2")
    expect(limit).to_have_value("500")
    expect(outcome).to_have_value("draw")
    expect(line).to_be_hidden()

    choose(page, dialog, "Battle limit", "300")  # the player's own
    choose(page, dialog, "Players", "3")
    expect(limit).to_have_value("300")
    expect(outcome).to_have_value("most_cards")
    expect(line).to_be_visible()
    choose(page, dialog, "Battle limit", "500")
    choose(page, dialog, "Players", "2")
    choose(page, dialog, "Players", "3")  # 500 is the classic limit again: it is set
    expect(limit).to_have_value(str(tables["3"]["battle_limit"]))
    expect(dialog.locator("#hr-summary")).to_have_text(
        "3 players · 1 card down · short of cards loses · biggest pile wins after"
        f" {tables['3']['battle_limit']} battles"
    )
    dialog.get_by_role("button", name="Deal with these rules").click()
    expect(dialog).to_be_hidden()
    settle(page)
    press(page, "Turn cards")
    expect(page.get_by_test_id("battle-number")).to_have_text(
        f"Battle 1 of {tables['3']['battle_limit']}"
    )
    # Dealt at 3, the panel opened again: 4 players take their own limit, 2 the usual one.
    dialog = open_house_rules(page)
    choose(page, dialog, "Players", "4")
    expect(limit).to_have_value(str(tables["4"]["battle_limit"]))
    choose(page, dialog, "Players", "2")
    expect(limit).to_have_value("500")
    expect(outcome).to_have_value("draw")
    page.keyboard.press("Escape")
    watch.check(shared_server)
    page.context.close()


def test_play_10_battles_stops_when_you_are_out(
    browser: Browser, shared_server: LiveServer
) -> None:
    """At a table of three, Play 10 battles stops at the battle you go out and says the others
    play on, your seat told by the battle it went out at; pressed again it watches ten more;
    the result then says when you went out and where the 52nd card is."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    played = three_players(page, shared_server, OUT_THEN_ALL_CARDS)
    limit = played.rules.battle_limit
    message = page.get_by_test_id("message")
    with page.expect_request("**/battles") as asked:
        press(page, "Play 10 battles")
    assert json.loads(asked.value.post_data or "{}") == {"count": 10, "stop_when_out": True}
    expect(page.get_by_test_id("battle-number")).to_have_text(f"Battle 9 of {limit}")
    expect(message).to_have_text(
        re.compile(
            r"^Battles 1–9: Computer 1 won \d+, Computer 2 \d+(, with \d+ wars?)?; you went out at"
            r" battle 9\. You are out of cards, so this round is lost for you\. "
            + re.escape(OTHERS_PLAY_ON)
            + "$"
        )
    )
    expect(message).not_to_contain_text("you won")
    expect(page.get_by_test_id("outcome")).to_be_hidden()
    expect(button(page, "New round")).to_have_class(re.compile(r"\bprimary\b"))
    audit(page)

    press(page, "Play 10 battles")  # watching the others: ten battles, as pressed
    expect(page.get_by_test_id("battle-number")).to_have_text(f"Battle 19 of {limit}")
    expect(message).to_have_text(
        re.compile(
            r"^Battles 10–19: Computer 1 won \d+, Computer 2 \d+(, with \d+ wars?)?; you went out"
            r" at battle 9\.$"
        )
    )
    for _ in range(3):  # to battle 47, where Computer 1 takes every card
        press(page, "Play 10 battles")
    expect(page.locator("#outcome-title")).to_have_text("Computer 1 wins")
    expect(page.locator("#outcome-why")).to_have_text(
        f"Computer 1 holds every card: everyone else ran out. {ASIDE}"
    )
    expect(page.locator("#outcome-note")).to_have_text(
        "You were out at battle 9. A new deal could go your way.", timeout=HANG_MS
    )
    audit(page)
    watch.check(shared_server)
    page.context.close()


@pytest.mark.parametrize("speed", ["normal", "instant"])
def test_play_to_end_stops_when_you_are_out(
    browser: Browser, shared_server: LiveServer, speed: str
) -> None:
    """Play to end stops at the battle you go out, a battle at a time or 500 a request, and says
    the others play on; pressed again, it plays their round to its end, where the count of 51
    cards says where the 52nd is."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    played = three_players(page, shared_server, OUT_THEN_COUNTED)
    page.select_option("#auto-speed", speed)
    with page.expect_request("**/battles") as asked:
        button(page, "Play to end").click()
    count = 500 if speed == "instant" else 1
    sent = {"count": count, "stop_when_out": True} if count > 1 else {"count": 1}
    assert json.loads(asked.value.post_data or "{}") == sent
    expect(button(page, "Play to end")).to_be_visible(timeout=HANG_MS)  # no longer Stop
    settle(page)
    expect(page.get_by_test_id("battle-number")).to_have_text(
        f"Battle 9 of {played.rules.battle_limit}"
    )
    expect(page.get_by_test_id("message")).to_contain_text(
        "you went out at battle 9. You are out of cards, so this round is lost for you."
        f" {OTHERS_PLAY_ON}"
    )
    audit(page)

    button(page, "Play to end").click()
    expect(page.get_by_test_id("outcome")).to_be_visible(timeout=HANG_MS)
    settle(page)
    winner = played.outcome.winner if played.outcome else None
    held = played.counts[winner] if winner is not None else 0
    expect(page.locator("#outcome-why")).to_have_text(
        re.compile(rf"the most cards: {held} of 51, .*\. {re.escape(ASIDE)}$")
    )
    expect(page.locator("#outcome-note")).to_have_text(
        "You were out at battle 9. A new deal could go your way.", timeout=HANG_MS
    )
    watch.check(shared_server)
    page.context.close()


def test_a_run_tells_only_who_went_out_in_it_in_the_order_they_did(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A run's summary names the seats that went out during it, earliest first; another seat
    out before the run is neither in its tally nor told again (you are reminded)."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    told = page.evaluate(
        """async () => {
            const { describeRun } = await import("/static/tell.js");
            const names = ["You", "Computer 1", "Computer 2", "Computer 3"];
            const last = { outcome: null, steps: [], winner: 1, counts: [10, 20, 0, 0] };
            const run = (from, to) => ({ count: to - from + 1, from, to, wars: 0, out: [],
                won: [3, 4, 2, 1], last });
            return [
                describeRun(run(21, 30), names, { outAt: [null, null, 29, 25] }),
                describeRun(run(31, 40), names, { outAt: [null, null, 29, 25] }),
                describeRun(run(31, 40), names, { outAt: [9, null, 29, 25] }),
            ];
        }"""
    )
    assert told[0].startswith("Battles 21–30: you won 3, Computer 1 4; Computer 3 went out at")
    assert "Computer 3 went out at battle 25 and Computer 2 went out at battle 29" in told[0]
    assert told[1] == "Battles 31–40: you won 3, Computer 1 4."
    assert told[2] == "Battles 31–40: Computer 1 won 4; you went out at battle 9."
    watch.check(shared_server)
    page.context.close()
