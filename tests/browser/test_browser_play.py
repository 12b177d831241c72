"""The table in play, in Debian's Chromium: words that follow the cards, a flip and a deal, Play
to end's whole run and its pause at a war, sound, the celebration's cue and two people flipping
at one device.

The helpers are browsing.py here; every test checks for console errors and requests that leave
the server. The server is the real one throughout: people at the table are seated through its
API, in the house rules and in the round dealt (docs/api.md#people-at-the-table), and nothing
of its answers is altered.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Browser, Page, expect

from cardwar import Round, Rules

from browsing import (  # the browser tests' helpers
    DESKTOP,
    ENDS_AT_ONCE,
    EXAMPLE_DEAL,
    LONG_WAR,
    PHONE,
    Watch,
    audit,
    button,
    counts,
    deal_to_people,
    open_noting_celebrations,
    open_page,
    press,
    resume_with,
    settle,
)
from live import LiveServer

# -- helpers of this file ----------------------------------------------------------------------

# Every animation frame: the words, the face-up cards laid on the field, whether a winner is
# marked, whether "War!" shows and whether any card is moving.
SAMPLER = """() => {
    window.samples = [];
    window.sampling = true;
    const glyph = { S: "♠", H: "♥", D: "♦", C: "♣" };
    const label = (code) => (code[0] === "T" ? "10" : code[0]) + glyph[code[1]];
    const tick = () => {
        if (!window.sampling) return;
        const faces = [...document.querySelectorAll("#field .slot .card.face:not(.pending)")];
        const moving = document.getAnimations().some((a) => a.playState === "running"
            && a.effect.target instanceof Element && a.effect.target.classList.contains("card"));
        window.samples.push({
            message: document.getElementById("message").textContent,
            faces: faces.map((card) => label(card.dataset.code)),
            winner: document.querySelector("#field .slot.winner") !== null,
            war: Number(getComputedStyle(document.getElementById("burst")).opacity) > 0.05,
            moving,
            number: document.getElementById("battle-number").textContent,
        });
        requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""
CARD_IN_WORDS = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]")


def samples(page: Page) -> list[dict[str, Any]]:
    """Stop sampling; what every frame showed."""
    found: list[dict[str, Any]] = page.evaluate("window.sampling = false, window.samples")
    return found


def check_words_agree(frames: list[dict[str, Any]]) -> None:
    """At every frame the words tell what the table shows: every card they name is face up on
    the field, a result only beside a marked winner (and a winner only beside a result), "War!"
    beside the "War!" on the field, and never "Press Turn cards" over turned cards."""
    for frame in frames:
        message = frame["message"]
        named = CARD_IN_WORDS.findall(message)
        assert set(named) <= set(frame["faces"]), frame
        told = "beats" in message or "take" in message or message.startswith("Battles ")
        assert told == frame["winner"] or "nobody can finish" in message, frame
        if frame["war"]:
            assert "War!" in message, frame
        if frame["faces"]:
            assert "Press Turn cards" not in message, frame


def seed_with_first_war_at(number: int) -> int:
    """A seed of a classic round whose first war comes at battle `number`."""
    classic = Rules.preset("classic")
    for seed in range(10_000):
        round_ = Round(classic, seed=seed)
        while round_.outcome is None:
            battle = round_.play_battle()
            if battle.wars:
                if battle.number == number:
                    return seed
                break
    raise AssertionError(f"no seed below 10,000 has its first war at battle {number}")


def open_watched(browser: Browser, server: LiveServer, script: str) -> tuple[Page, Watch]:
    """A new player's page with `script` run before the page's own, with motion."""
    context = browser.new_context(**DESKTOP, reduced_motion="no-preference")
    context.add_init_script(script)
    page = context.new_page()
    watch = Watch(page)
    page.goto(server.url + "/")
    settle(page)
    expect(button(page, "Turn cards")).to_be_enabled()
    return page, watch


# -- the words follow the cards ----------------------------------------------------------------


def test_the_words_follow_the_cards_at_every_frame(
    browser: Browser, shared_server: LiveServer
) -> None:
    """Sampled at every animation frame while cards move (a double war, a run of ten, a deal),
    the message agrees with the table: the turn as it turns, "War!" as it is declared, the
    result as it lands; a question opened during Play 10 tells the battle the table shows."""
    page, watch = open_page(browser, shared_server, DESKTOP, motion="no-preference")
    resume_with(page, shared_server, preset="traditional", deal=LONG_WAR)
    page.evaluate(SAMPLER)
    press(page, "Turn cards")
    press(page, "Play 10 battles")
    expect(page.get_by_test_id("outcome")).to_be_visible()
    press(page, "New round")
    press(page, "Turn cards")
    press(page, "Play 10 battles")
    frames = samples(page)
    check_words_agree(frames)
    moving = [frame for frame in frames if frame["moving"]]
    assert len(moving) > 10  # sampled while the cards moved, not only at rest
    said = [frame["message"] for frame in frames]
    assert any(text.startswith("You turn 9♠ and the computer turns 9♥.") for text in said)
    assert any(
        text == "War! Both turned a 9. Each lays 3 cards face down and turns one up."
        for text in said
    )
    assert any("Another tie: war again!" in text and "beats" not in text for text in said)
    expect(page.get_by_test_id("message")).to_contain_text("Battles 2–11:")

    button(page, "Play 10 battles").click()
    page.wait_for_function(  # cards in motion (not the chance meter gliding)
        "() => document.getAnimations().some((a) => a.effect.target.classList?.contains('card'))"
    )
    page.keyboard.press("n")
    question = page.get_by_role("dialog", name="Start a new round?")
    expect(question).to_be_visible()
    shown = page.get_by_test_id("battle-number").inner_text()
    number = re.search(r"Battle (\d+)", shown)
    assert number is not None
    expect(question).to_contain_text(f"Your round is at battle {number[1]}.")
    expect(page.get_by_test_id("message")).to_contain_text(f"–{number[1]}:")
    question.get_by_role("button", name="Keep playing").click()
    watch.check(shared_server)
    page.context.close()


def test_a_bigger_table_names_who_went_to_war(browser: Browser, shared_server: LiveServer) -> None:
    """At a table of three, a war says which seats turned the tied rank; a classic draw at the
    battle limit says who was ahead, and by how much."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    deal = [["JS", "2C", "3C", "AH"], ["4H", "5C", "6C"], ["JD", "7C", "KD"]]
    resume_with(page, shared_server, rules={"players": 3}, deal=deal)
    press(page, "Turn cards")
    expect(page.get_by_test_id("message")).to_have_text(
        "War! You and Computer 2 both turned a jack. Each lays 1 card face down and turns one up. "
        "Computer 2's K♦ beats 3♣ — Computer 2 takes 7 cards."
    )
    resume_with(
        page,
        shared_server,
        rules={"battle_limit": 2},
        deal=[["AS", "KS", "QS"], ["2H", "3H", "4H"]],
    )
    press(page, "Play 10 battles")
    expect(page.locator("#outcome-title")).to_have_text("Draw")
    expect(page.locator("#outcome-why")).to_have_text(
        "2 battles and nobody has every card, so it is a draw (you were ahead, 5 cards to 1)."
    )
    watch.check(shared_server)
    page.context.close()


# -- a flip and a deal ---------------------------------------------------------------------------


RECORD_ANIMATIONS = """
window.flights = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (frames, options) {
    window.flights.push({
        classes: typeof this.className === "string" ? this.className : this.className.baseVal,
        inFlight: this.closest("#flight") !== null,
        frames: JSON.stringify(frames),
    });
    return animate.call(this, frames, options);
};
"""


def test_a_card_turns_over_and_a_new_round_deals_the_piles(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A face-up card lands face down and turns over (its back turns edge-on, then its face turns
    up: rotateY, never a fade); New round deals the piles out, each count climbing to its
    hand; under reduced motion both are plain changes."""
    page, watch = open_watched(browser, shared_server, RECORD_ANIMATIONS)
    # A plain first battle (a king beats a seven), so that exactly two cards turn up: a random
    # deal opens with a war about one round in sixteen, and a war turns up four.
    resume_with(page, shared_server, deal=[["KD", "2C", "9S", "4H"], ["7S", "3C", "9H", "5D"]])
    page.evaluate("window.flights = []")
    press(page, "Turn cards")
    flights = page.evaluate("window.flights")
    faces = [f for f in flights if "face" in f["classes"].split()]
    backs = [f for f in flights if f["inFlight"] and "back" in f["classes"].split()]
    assert len(faces) == 2
    for face in faces:
        assert "rotateY(-90deg)" in face["frames"] and "opacity" not in face["frames"]
    assert any("rotateY(90deg)" in back["frames"] for back in backs)  # the backs turning away

    page.evaluate(
        """() => {
            window.climb = [];
            const count = document.querySelector('[data-testid="count-0"]');
            new MutationObserver(() => window.climb.push(Number(count.textContent)))
                .observe(count, { childList: true, characterData: true, subtree: true });
            window.flights = [];
        }"""
    )
    button(page, "New round").click()
    page.get_by_role("button", name="Deal again").click()
    settle(page)
    climb = page.evaluate("window.climb")
    dealt_out = climb[climb.index(0) :]  # from the empty table on
    assert dealt_out[-1] == 26 and len(set(dealt_out)) > 3
    dealt = page.evaluate("window.flights.filter((f) => f.inFlight).length")
    assert dealt >= 8
    assert counts(page) == [26, 26]
    watch.check(shared_server)
    page.context.close()

    context = browser.new_context(**DESKTOP, reduced_motion="reduce")
    context.add_init_script(RECORD_ANIMATIONS)
    page = context.new_page()
    watch = Watch(page)
    page.goto(shared_server.url + "/")
    settle(page)
    press(page, "Turn cards")
    button(page, "New round").click()
    page.get_by_role("button", name="Deal again").click()
    settle(page)
    assert counts(page) == [26, 26]
    assert page.evaluate("window.flights.length") == 0
    watch.check(shared_server)
    page.context.close()


# -- Play to end ---------------------------------------------------------------------------------


def test_play_to_end_tells_its_whole_run(browser: Browser, shared_server: LiveServer) -> None:
    """At Instant, Play to end asks 500 battles a request; its words sum the whole run from the
    first battle, not its last request's."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    resume_with(page, shared_server, rules={"battle_limit": 1500}, seed=9)  # 1,018 battles
    page.select_option("#auto-speed", "instant")
    with page.expect_request("**/battles") as first:
        button(page, "Play to end").click()
    assert json.loads(first.value.post_data or "{}") == {"count": 500}
    expect(page.get_by_test_id("outcome")).to_be_visible(timeout=20_000)
    settle(page)
    expect(page.get_by_test_id("message")).to_contain_text(
        re.compile(r"^Battles 1–1018: you won \d+")
    )
    watch.check(shared_server)
    page.context.close()


def test_pause_on_wars_stops_as_the_war_is_declared(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With Pause on wars, Play to end stops as "War!" is declared (the tied cards up, the
    deciding cards unturned, no winner marked), plays that war on first when pressed again, and
    at a later pause Turn cards turns that war's deciding cards and no more."""
    page, watch = open_page(browser, shared_server, DESKTOP, motion="no-preference")
    resume_with(page, shared_server, seed=seed_with_first_war_at(4))
    page.select_option("#auto-speed", "fast")
    page.get_by_label("Pause on wars").check()
    button(page, "Play to end").click()
    message = page.get_by_test_id("message")
    expect(message).to_contain_text("Paused on this war", timeout=15_000)
    settle(page)
    expect(message).to_contain_text(re.compile(r"^War! Both turned an? \w+\. Each lays 1 card"))
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 4 of 500")
    for seat in (0, 1):
        laid = page.locator(f"#laid-{seat}")
        expect(laid.locator(".card:not(.pending)")).to_have_count(1)  # the tied card only
        assert laid.locator(".card.pending").count() >= 2  # one down and one to turn, at least
    expect(page.locator("#field .slot.winner")).to_have_count(0)
    expect(page.locator("#burst")).to_have_css("opacity", "1")
    audit(page)

    page.evaluate(SAMPLER)
    page.get_by_label("Pause on wars").uncheck()
    button(page, "Play to end").click()
    page.wait_for_function(
        "() => parseInt(document.getElementById('battle-number').textContent.match(/\\d+/)) >= 6"
    )
    page.keyboard.press("x")
    settle(page)
    frames = samples(page)
    check_words_agree(frames)
    war = [f for f in frames if f["number"] == "Battle 4 of 500" and f["faces"]]
    assert war and len(war[-1]["faces"]) >= 4 and war[-1]["winner"]  # the war played on first
    expect(message).to_contain_text("Stopped at battle")

    page.get_by_label("Pause on wars").check()
    button(page, "Play to end").click()
    expect(message).to_contain_text("Paused on this war", timeout=30_000)
    settle(page)
    paused = page.get_by_test_id("battle-number").inner_text()
    press(page, "Turn cards")
    expect(page.get_by_test_id("battle-number")).to_have_text(paused)  # no battle more
    expect(page.locator("#field .slot.winner")).to_have_count(1)
    expect(message).to_contain_text("War!")
    expect(message).to_contain_text(re.compile(r"takes? \d+ cards"))
    watch.check(shared_server)
    page.context.close()


# -- when things go wrong, and the focus ---------------------------------------------------------


def test_a_server_error_names_the_button_pressed(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With the server failing (an error of its own, 503), the warning asks for the very button
    that was pressed: Play to end (not Stop, its name while running), Play 10 battles."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    page.route("**/api/**", lambda route: route.fulfill(status=503, json={"detail": "down"}))
    message = page.get_by_test_id("message")
    button(page, "Play to end").click()
    expect(message).to_contain_text("Press Play to end to try again.")
    settle(page)
    expect(button(page, "Play to end")).to_be_visible()
    press(page, "Play 10 battles")
    expect(message).to_contain_text("Press Play 10 battles to try again.")
    audit(page)
    page.unroute("**/api/**")
    watch.errors = [error for error in watch.errors if "status of 503" not in error]
    watch.check(shared_server)
    page.context.close()


def test_the_question_gives_the_focus_back_and_disabled_means_disabled(
    browser: Browser, shared_server: LiveServer
) -> None:
    """After Escape or Keep playing, the focus is on New round again, however the question was
    asked; Turn cards is marked busy with aria-disabled while a request runs, and once the round
    is over it is disabled with no aria-disabled at all."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    press(page, "Turn cards")
    question = page.get_by_role("dialog", name="Start a new round?")
    button(page, "New round").click()
    expect(question).to_be_visible()
    page.keyboard.press("Escape")
    expect(question).to_be_hidden()
    expect(button(page, "New round")).to_be_focused()
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("n")  # asked by key, from nowhere in particular
    expect(question).to_be_visible()
    question.get_by_role("button", name="Keep playing").click()
    expect(question).to_be_hidden()
    expect(button(page, "New round")).to_be_focused()

    turn = button(page, "Turn cards")
    expect(turn).not_to_have_attribute("aria-disabled", re.compile(".*"))
    seen = page.evaluate(
        """() => new Promise((resolve) => {
            const turn = document.getElementById("turn");
            new MutationObserver(() => {
                if (turn.getAttribute("aria-disabled") === "true") resolve([turn.disabled, true]);
            }).observe(turn, { attributes: true });
            turn.click();
        })"""
    )
    assert seen == [False, True]
    settle(page)
    resume_with(page, shared_server, deal=ENDS_AT_ONCE[2])
    press(page, "Turn cards")
    expect(turn).to_be_disabled()
    assert turn.get_attribute("aria-disabled") is None
    watch.check(shared_server)
    page.context.close()


# -- sound ---------------------------------------------------------------------------------------

# Web Audio, recorded rather than heard: each AudioContext made, each oscillator started (at its
# pitch), each buzz asked of the device.
RECORD_SOUND = """
window.heard = { contexts: 0, pitches: [], buzzes: [] };
const Real = window.AudioContext;
window.AudioContext = class extends Real {
    constructor(...args) { super(...args); window.heard.contexts += 1; }
};
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
    window.heard.pitches.push(this.frequency.value);
    return start.apply(this, args);
};
navigator.vibrate = (ms) => { window.heard.buzzes.push(ms); return true; };
"""


def first_pitches(page: Page) -> dict[str, float]:
    """Each sound's own first pitch, as sound.js makes it."""
    pitches: dict[str, float] = page.evaluate(
        """import('/static/sound.js').then((m) => Object.fromEntries(
            Object.entries(m.SOUNDS).map(([name, s]) => [name, Math.fround(s.notes[0].hz)])))"""
    )
    return pitches


def heard(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate("window.heard")
    return found


def test_sound_follows_the_cards_and_its_button(
    browser: Browser, shared_server: LiveServer
) -> None:
    """No AudioContext before the first press; then a turn, a war (with a buzz), the sweep and a
    win each sound; the Sound button says and announces its state, silences the table and is
    remembered across a reload."""
    page, watch = open_watched(browser, shared_server, RECORD_SOUND)
    pitch = first_pitches(page)
    assert len(set(pitch.values())) == 5
    resume_with(page, shared_server, deal=EXAMPLE_DEAL)
    assert heard(page)["contexts"] == 0  # loaded and dealt, nothing pressed: silence
    press(page, "Turn cards")  # the rules' example war
    got = heard(page)
    assert got["contexts"] == 1
    for name in ("flip", "war", "sweep"):
        assert pitch[name] in got["pitches"], name
    assert got["buzzes"] == [70]
    resume_with(page, shared_server, deal=ENDS_AT_ONCE[2])
    press(page, "Turn cards")
    expect(page.locator("#outcome-title")).to_have_text("You win!")
    assert pitch["win"] in heard(page)["pitches"]

    sound = page.locator("#sound")
    expect(sound).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("button", name="Sound", exact=True)).to_be_visible()
    audit(page)
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "false")
    expect(sound).to_have_text("Sound")  # a toggle keeps its name; aria-pressed tells the state
    page.reload()
    settle(page)
    expect(sound).to_have_attribute("aria-pressed", "false")
    expect(sound).to_have_text("Sound")
    press(page, "New round")
    press(page, "Turn cards")
    got = heard(page)
    assert got["contexts"] == 0 and got["pitches"] == [] and got["buzzes"] == []
    watch.check(shared_server)
    page.context.close()


# -- the celebration's cue -----------------------------------------------------------------------


def test_a_round_won_outright_and_a_match_won_are_celebrated(
    browser: Browser, shared_server: LiveServer
) -> None:
    """celebrate() is called once a round's last cards land with you holding every card
    ("round"), and once you win a match ("match", in place of the round's); a round or a match
    the computer won has no party, and its result says a few kind words instead, what you won
    told from the round's story; a round that was already over, loaded again, has none."""
    page, watch = open_noting_celebrations(browser, shared_server)
    resume_with(page, shared_server, deal=ENDS_AT_ONCE[2])
    press(page, "Turn cards")
    expect(page.locator("#outcome-title")).to_have_text("You win!")
    expect(page.locator("#outcome-note")).to_be_hidden()
    assert page.evaluate("window.parties") == [{"kind": "round"}]
    page.reload()
    settle(page)
    assert page.evaluate("window.parties ?? []") == []  # a finished round, loaded again: no fanfare
    resume_with(page, shared_server, deal=[["2H"], ["AS", "KS"]])
    press(page, "Turn cards")
    expect(page.locator("#outcome-title")).to_have_text("The computer wins")
    expect(page.locator("#outcome-note")).to_have_text(
        "You won 0 of 1 battle. A new deal could go your way."
    )
    assert page.evaluate("window.parties ?? []") == []
    page.reload()
    settle(page)

    put = page.request.put(
        shared_server.url + "/api/me/house-rules", data={"rules": {"hand_size": 1}, "best_of": 3}
    )
    assert put.ok, put.text()
    page.reload()
    settle(page)
    press(page, "New round")
    match = page.get_by_test_id("match")
    for _ in range(20):  # rounds of one battle each: won outright, or drawn and played again
        press(page, "Turn cards")
        if "won the match" in match.inner_text():
            break
        press(page, "Next round")
    expect(match).to_contain_text("won the match")
    kinds = [party["kind"] for party in page.evaluate("window.parties ?? []")]
    note = page.locator("#outcome-note")
    if match.inner_text().startswith("Best of 3 · You won the match"):
        assert kinds[-1] == "match" and kinds.count("match") == 1
        expect(note).to_be_hidden()
    else:
        assert "match" not in kinds
        expect(page.locator("#outcome-title")).to_have_text("The computer wins the match")
        expect(note).to_contain_text(
            re.compile(r"of the best of 3\. A new match could go your way\.$")
        )
    watch.check(shared_server)
    page.context.close()


# -- two people at one device --------------------------------------------------------------------

PEOPLE = [
    {"kind": "person", "name": "You"},
    {"kind": "person", "name": "Mia"},
    {"kind": "computer", "name": "Computer 2"},
    {"kind": "computer", "name": "Computer 3"},
]


def test_two_people_flip_at_one_device(browser: Browser, shared_server: LiveServer) -> None:
    """With a second seat played by a person (seated by the server, in the house rules and the
    round), each person has a flip button with their name and key on their side; one flip alone
    plays nothing, both flips play the battle; the names are on the seats and in the words;
    Play 10 battles plays on for everyone; the page's own New round seats them again."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    deal_to_people(page, shared_server, PEOPLE, deal=EXAMPLE_DEAL)
    mine, hers = button(page, "Flip — You"), button(page, "Flip — Mia")
    expect(page.locator('.seat[data-seat="0"] .flips')).to_contain_text("Flip — You")
    expect(page.locator('.seat[data-seat="1"] .flips')).to_contain_text("Flip — Mia")
    expect(hers).to_have_attribute("aria-keyshortcuts", "L")
    expect(hers.locator("kbd")).to_have_text("L")
    expect(page.locator('.seat[data-seat="1"] .name')).to_have_text("Mia")
    message = page.get_by_test_id("message")
    expect(message).to_contain_text("4 cards each for you and Mia.")
    audit(page)

    battles: list[str] = []
    page.on(
        "request",
        lambda request: battles.append(request.url) if "/battles" in request.url else None,
    )
    mine.click()
    settle(page)
    expect(message).to_have_text("You are ready. Waiting for Mia to flip.")
    expect(page.get_by_test_id("battle-number")).to_have_text("Ready to turn")
    expect(mine).to_have_attribute("aria-disabled", "true")
    assert battles == []
    button(page, "Turn cards").click(force=True)  # your own flip: flipped already, no more
    settle(page)
    assert battles == []
    page.keyboard.press("l")  # Mia's key
    settle(page)
    assert len(battles) == 1
    expect(page.get_by_test_id("battle-number")).to_have_text("Battle 1 of 500")
    expect(message).to_have_text(
        "War! Both turned a 9. Each lays 1 card face down and turns one up. "
        "Your K♦ beats 7♠ — you take 6 cards."
    )
    expect(mine).not_to_have_attribute("aria-disabled", re.compile(".*"))

    hers.click()
    settle(page)
    expect(message).to_have_text("Mia is ready. Waiting for you to flip.")
    press(page, "Turn cards")
    assert len(battles) == 2
    expect(message).to_contain_text("Mia's")
    audit(page)
    press(page, "Play 10 battles")  # for everyone, no flips needed
    assert len(battles) == 3
    expect(page.get_by_test_id("outcome")).to_be_visible()  # four cards each: over by now
    press(page, "New round")  # the page's own deal: the house rules' seats, from the server
    expect(mine).to_be_visible()
    expect(hers).to_be_visible()
    expect(page.locator('.seat[data-seat="1"] .name')).to_have_text("Mia")
    watch.check(shared_server)
    page.context.close()


def test_a_named_first_seat_and_a_person_on_a_phone(
    browser: Browser, shared_server: LiveServer
) -> None:
    """On a phone, a named first seat is named on the table and in the words (not "You"), each
    flip button is tapped, and a touch screen shows no key on them."""
    page, watch = open_page(browser, shared_server, PHONE)
    sam_and_mia = [{**PEOPLE[0], "name": "Sam"}, *PEOPLE[1:]]
    deal_to_people(page, shared_server, sam_and_mia, deal=[["KS", "2C"], ["3H", "4D"]])
    expect(page.locator('.seat[data-seat="0"] .name')).to_have_text("Sam")
    sam = button(page, "Flip — Sam")
    expect(sam.locator("kbd")).to_have_count(0)
    button(page, "Flip — Mia").tap()
    settle(page)
    sam.tap()
    settle(page)
    expect(page.get_by_test_id("message")).to_have_text("Sam's K♠ beats 3♥ — Sam takes 2 cards.")
    audit(page)
    watch.check(shared_server)
    page.context.close()
