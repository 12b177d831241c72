"""The HTTP API of docs/api.md, over a fresh temporary database per test."""

from __future__ import annotations

import json
import os
import re
import select
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from fastapi.testclient import TestClient

from cardwar import PRESETS, Round, Rules
from cardwar.web.schemas import BattlesOut, MeOut, RoundOut

from helpers import ClientFactory, LongRunGate, RoundWaiters, scores
from live import HANG_S, LiveServer

EXAMPLE_DEAL = [["9S", "2C", "KD", "4H"], ["9H", "3C", "7S", "5D"]]


def new_round(client: TestClient, **body: Any) -> dict[str, Any]:
    """POST /api/rounds and check it answered 201 with a valid round."""
    response = client.post("/api/rounds", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    RoundOut.model_validate(data)
    return data


def battles(client: TestClient, round_id: str, count: int | None = None) -> dict[str, Any]:
    """POST battles and check it answered 200 with a valid body."""
    body = {} if count is None else {"count": count}
    response = client.post(f"/api/rounds/{round_id}/battles", json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    BattlesOut.model_validate(data)
    return data


def board(won: int = 0, lost: int = 0, drawn: int = 0) -> dict[str, Any]:
    """The scoreboard GET /api/me shows when only seat 0, "You", has played: seat 0's rounds,
    and the same as You's tally."""
    people = (
        [{"name": "You", "won": won, "lost": lost, "drawn": drawn}] if won + lost + drawn else []
    )
    return {**scores(won, lost, drawn), "people": people}


DEFAULT_SEATS = [{"kind": "person", "name": ""}] + [{"kind": "computer", "name": ""}] * 3


def rounds_stored(db: Path) -> list[tuple[Any, ...]]:
    """Every row of the rounds table, to check that refused requests change nothing."""
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT * FROM rounds ORDER BY id").fetchall()


# -- POST /api/rounds -----------------------------------------------------------------------------


def test_new_round_defaults_to_classic_and_hides_the_piles(client: TestClient) -> None:
    """An empty body deals a classic round: 26 cards each, no piles shown before the end."""
    response = client.post("/api/rounds")
    assert response.status_code == 201
    data = response.json()
    assert data["rules"] == Rules.preset("classic").to_dict()
    assert data["counts"] == [26, 26]
    assert (data["battles"], data["wars"], data["outcome"]) == (0, 0, None)
    assert "piles" not in data
    assert isinstance(data["seed"], int) and isinstance(data["id"], str)


def test_new_round_with_preset_rules_and_seed(client: TestClient) -> None:
    """Preset, rule overrides and seed are all honoured, and the same seed deals the same."""
    data = new_round(client, preset="traditional", rules={"players": 4}, seed=42)
    assert data["rules"]["war_down"] == 3 and data["rules"]["players"] == 4
    assert data["counts"] == [13, 13, 13, 13]
    other = new_round(client, preset="traditional", rules={"players": 4}, seed=42)
    first = battles(client, data["id"], 5)["battles"]
    assert battles(client, other["id"], 5)["battles"] == first
    expected = [battle.to_dict() for battle in Round(Rules(players=4, war_down=3,
                shortage="last_card", battle_limit=None), seed=42).play(5)]  # type: ignore[arg-type]  # fmt: skip
    assert first == expected


def test_explicit_deal_plays_the_rules_example(client: TestClient) -> None:
    """The rules' example deal (docs/api.md#examples): battle 1 is one war, You win 6 cards,
    each step recorded for the page."""
    data = new_round(client, deal=EXAMPLE_DEAL)
    result = battles(client, data["id"])
    (record,) = result["battles"]
    assert record["steps"] == [
        {"up": ["9S", "9H"], "down": [0, 0], "short": []},
        {"up": ["KD", "7S"], "down": [1, 1], "short": []},
    ]
    assert (record["winner"], record["taken"], record["wars"]) == (0, 6, 1)
    assert record["counts"] == [7, 1] == result["round"]["counts"]
    assert result["round"]["wars"] == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"preset": "blitz"}, "preset 'blitz': unknown, must be one of classic"),
        ({"rules": {"war_down": 9}}, "war_down: 9 is out of range, must be 0..5"),
        ({"rules": {"speed": 2}}, "rules: unknown field 'speed'"),
        ({"rules": {"players": 3}, "deal": EXAMPLE_DEAL}, "deal: has 2 piles but the rules have"),
        ({"deal": [["9S", "1X"], ["9H"]]}, "card 1X: rank must be one of 2-9, T, J, Q, K, A"),
        ({"deal": [["9S"], ["9S"]]}, "deal: card 9S appears twice"),
        ({"deal": [["2C"], ["3C"], ["4C"], ["5C"], ["6C"]]}, "deal: has 5 piles, must have 2 to 4"),
        ({"seed": -1}, "seed: must be a whole number from 0"),
        ({"seed": "7"}, "seed: Input should be a valid integer"),
        ({"colour": "red"}, "colour: Extra inputs are not permitted"),
        ({"deal": "9S 9H"}, "deal: Input should be a valid array"),
    ],
)
def test_bad_new_round_is_422_naming_the_field_and_stores_nothing(
    client: TestClient, db_path: Path, body: dict[str, Any], message: str
) -> None:
    """A body that does not fit (docs/api.md#errors) is refused with 422, a clear message, and
    no new round."""
    before = rounds_stored(db_path)
    response = client.post("/api/rounds", json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]
    assert rounds_stored(db_path) == before


def test_malformed_json_is_422(client: TestClient) -> None:
    """A body that is not JSON at all is a 422, not a 500."""
    response = client.post(
        "/api/rounds", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    assert "JSON" in response.json()["detail"]


# -- GET /api/rounds/{id} -------------------------------------------------------------------------


def test_get_round_and_unknown_round(client: TestClient) -> None:
    """A round reads back as dealt; an unknown id is a 404 naming it."""
    data = new_round(client, seed=3)
    again = client.get(f"/api/rounds/{data['id']}")
    assert again.status_code == 200 and again.json() == data
    missing = client.get("/api/rounds/no-such-round")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "round 'no-such-round': no such round"}


# -- POST /api/rounds/{id}/battles ----------------------------------------------------------------


def test_count_defaults_to_one_and_ten_plays_ten(client: TestClient) -> None:
    """No count plays one battle; count 10 plays the next ten, numbered on."""
    data = new_round(client, seed=8)
    assert [b["number"] for b in battles(client, data["id"])["battles"]] == [1]
    result = battles(client, data["id"], 10)
    assert [b["number"] for b in result["battles"]] == list(range(2, 12))
    assert result["round"]["battles"] == 11
    assert sum(result["round"]["counts"]) == 52


def test_play_stops_at_the_end_shows_piles_then_409(client: TestClient) -> None:
    """Play stops early when the round ends; piles appear; more battles are refused with 409."""
    data = new_round(client, deal=[["AS", "KS"], ["2H", "3H"]])
    result = battles(client, data["id"], 100)
    assert len(result["battles"]) == 2
    final = result["round"]
    assert final["outcome"] == {"winner": 0, "reason": "all_cards"}
    assert final["piles"] == [["AS", "2H", "KS", "3H"], []]
    assert result["battles"][-1]["outcome"] == final["outcome"]
    refused = client.post(f"/api/rounds/{data['id']}/battles", json={"count": 1})
    assert refused.status_code == 409
    assert "is over (all_cards)" in refused.json()["detail"]
    assert client.get(f"/api/rounds/{data['id']}").json() == final


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"count": 0}, "count: Input should be greater than or equal to 1"),
        ({"count": 100_001}, "count: Input should be less than or equal to 100000"),
        ({"count": "5"}, "count: Input should be a valid integer"),
        ({"count": 1.5}, "count: Input should be a valid integer"),
        ({"count": 2, "fast": True}, "fast: Extra inputs are not permitted"),
    ],
)
def test_bad_count_is_422_and_plays_nothing(
    client: TestClient, body: dict[str, Any], message: str
) -> None:
    """A count outside 1..100000, or not a whole number, is refused and changes nothing."""
    data = new_round(client, seed=2)
    response = client.post(f"/api/rounds/{data['id']}/battles", json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]
    assert client.get(f"/api/rounds/{data['id']}").json()["battles"] == 0


def test_no_body_plays_one_and_a_body_that_is_not_an_object_is_422(client: TestClient) -> None:
    """The body may be left out (one battle); malformed JSON or a bare null is refused."""
    data = new_round(client, seed=4)
    url = f"/api/rounds/{data['id']}/battles"
    played = client.post(url)
    assert played.status_code == 200
    assert [b["number"] for b in played.json()["battles"]] == [1]
    for content, message in (
        (b"{not json", "body: not valid JSON"),
        (b"null", "body: must be a JSON object"),
    ):
        response = client.post(url, content=content, headers={"Content-Type": "application/json"})
        assert response.status_code == 422
        assert message in response.json()["detail"]
    assert client.get(f"/api/rounds/{data['id']}").json()["battles"] == 1


def test_battles_of_unknown_round_is_404(client: TestClient) -> None:
    """Battles asked of a round that does not exist: 404."""
    response = client.post("/api/rounds/nope/battles", json={"count": 1})
    assert response.status_code == 404


def test_a_whole_round_in_one_request(client: TestClient) -> None:
    """count 100000 plays a classic round to its end in one answer."""
    data = new_round(client, seed=11)
    result = battles(client, data["id"], 100_000)
    assert result["round"]["outcome"] is not None
    assert len(result["battles"]) == result["round"]["battles"] <= 500


def test_twenty_simultaneous_clicks_play_exactly_twenty(client: TestClient) -> None:
    """Twenty one-battle requests at once play battles 1..20 exactly once, losing no card."""
    data = new_round(client, seed=5)

    def click(_: int) -> list[int]:
        result = battles(client, data["id"], 1)
        return [b["number"] for b in result["battles"]]

    with ThreadPoolExecutor(20) as pool:
        numbers = sorted(n for played in pool.map(click, range(20)) for n in played)
    assert numbers == list(range(1, 21))
    final = client.get(f"/api/rounds/{data['id']}").json()
    assert final["battles"] == 20
    assert sum(final["counts"]) == 52


# -- persistence ----------------------------------------------------------------------------------


def test_restart_loses_nothing(make_client: ClientFactory) -> None:
    """A new server over the same file carries on exactly where the old one stopped."""
    first = make_client()
    data = new_round(first, seed=21)
    battles(first, data["id"], 7)
    before = first.get(f"/api/rounds/{data['id']}").json()

    restarted = make_client()
    assert restarted.get(f"/api/rounds/{data['id']}").json() == before
    after = battles(restarted, data["id"], 5)["battles"]
    reference = Round(Rules.preset("classic"), seed=21)
    reference.play(7)
    assert after == [battle.to_dict() for battle in reference.play(5)]


def test_kill_9_loses_no_answered_battle(live_server: LiveServer) -> None:
    """A server killed with SIGKILL restarts with every battle it had answered."""
    with live_server.client() as http:
        data = http.post("/api/rounds", json={"seed": 99}).json()
        for _ in range(13):
            assert http.post(f"/api/rounds/{data['id']}/battles", json={"count": 1}).is_success
        before = http.get(f"/api/rounds/{data['id']}").json()
        # The simulator ready (in the background, as the server started): its worker is up.
        while not http.get("/api/simulator").json()["ready"]:
            time.sleep(0.05)  # the preparation tells nobody: asked again, as the page does
    assert live_server.process is not None
    children = children_of(live_server.process.pid)
    assert children  # its worker process, and multiprocessing's resource tracker
    watched = [os.pidfd_open(pid) for pid in children]
    live_server.kill()
    # ... and none of them lives on, an orphan: each ends once the server has gone.
    for pidfd in watched:
        ended, _, _ = select.select([pidfd], [], [], HANG_S)
        assert ended, "a process the server started outlived it"
        os.close(pidfd)
    live_server.start()
    with live_server.client() as http:
        after = http.get(f"/api/rounds/{data['id']}").json()
    assert after == before
    assert after["battles"] == 13


def children_of(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc: the field after the name)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_bytes() if entry.name.isdigit() else b""
        except OSError:
            continue
        if stat and int(stat.rsplit(b")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


# -- the scoreboard -------------------------------------------------------------------------------


def test_scoreboard_counts_won_lost_and_drawn(make_client: ClientFactory) -> None:
    """Finished rounds count for the cookie's player: won, lost, drawn; a restart keeps them."""
    client = make_client()
    me = client.get("/api/me")
    assert me.json() == {
        "scoreboard": board(),
        "round": None,
        "last_battle": None,
        "match": None,
        "house_rules": {
            "preset": "classic",
            "rules": Rules.preset("classic").to_dict(),
            "best_of": 1,
            "seats": DEFAULT_SEATS,
        },
        "tables": [],
    }
    assert "cardwar_player" in me.cookies
    for deal in ([["AS"], ["2H"]], [["2S"], ["AH"]], [["9S"], ["9H"]]):
        data = new_round(client, deal=deal)
        battles(client, data["id"])
    unfinished = new_round(client, seed=1)
    me_now = client.get("/api/me").json()
    MeOut.model_validate(me_now)
    assert me_now["scoreboard"] == board(won=1, lost=1, drawn=1)
    assert me_now["round"]["id"] == unfinished["id"]

    restarted = make_client()
    restarted.cookies = client.cookies
    assert restarted.get("/api/me").json()["scoreboard"] == board(won=1, lost=1, drawn=1)


def test_knocked_out_at_a_bigger_table_counts_lost_once(client: TestClient) -> None:
    """Out of cards while the computers play on is a loss at once; their ending adds nothing."""
    deal = [["2S"], ["AS", "3C", "5D"], ["KS", "4C", "6D"]]
    data = new_round(client, rules={"players": 3}, deal=deal)
    first = battles(client, data["id"])
    assert first["round"]["outcome"] is None and first["round"]["counts"][0] == 0
    assert client.get("/api/me").json()["scoreboard"] == board(lost=1)
    result = battles(client, data["id"], 1000)
    assert result["round"]["outcome"] is not None
    assert client.get("/api/me").json()["scoreboard"] == board(lost=1)


def test_scoreboards_are_per_browser(make_client: ClientFactory) -> None:
    """Another browser (another cookie) has its own, empty scoreboard."""
    one, two = make_client(), make_client()
    data = new_round(one, deal=[["AS"], ["2H"]])
    battles(one, data["id"])
    assert one.get("/api/me").json()["scoreboard"]["won"] == 1
    assert two.get("/api/me").json()["scoreboard"] == board()


def test_a_malformed_cookie_gets_a_fresh_id(client: TestClient) -> None:
    """A cookie that is not one of ours is replaced, not trusted."""
    client.cookies.set("cardwar_player", "x; DROP TABLE")
    response = client.get("/api/me")
    assert response.status_code == 200
    assert response.cookies["cardwar_player"] != "x; DROP TABLE"


# -- every preset and every rule field at the deal ------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_deals_its_rules(client: TestClient, preset: str) -> None:
    """Each preset (docs/rules.md#presets) deals a round with exactly its rules and hands."""
    data = new_round(client, preset=preset, seed=5)
    rules = Rules.preset(preset)
    assert data["rules"] == rules.to_dict()
    assert data["counts"] == [rules.cards_per_hand] * rules.players


GOOD_FIELDS = [
    ("players", 2), ("players", 3), ("players", 4),
    ("hand_size", None), ("hand_size", 1), ("hand_size", 26),
    ("war_down", 0), ("war_down", 3), ("war_down", 5),
    ("shortage", "lose"), ("shortage", "last_card"),
    ("battle_limit", None), ("battle_limit", 1), ("battle_limit", 100_000),
    ("limit_outcome", "draw"), ("limit_outcome", "most_cards"),
    ("time_limit_s", None), ("time_limit_s", 60), ("time_limit_s", 7200),
    ("low_wins", False), ("low_wins", True),
    ("gather", "winner_first"), ("gather", "table"), ("gather", "shuffled"), ("gather", "natural"),
]  # fmt: skip


@pytest.mark.parametrize(("field", "value"), GOOD_FIELDS)
def test_every_rule_field_and_value_is_dealt(client: TestClient, field: str, value: Any) -> None:
    """Each rule field (docs/rules.md#house-rules) takes each kind of value it allows, and the
    round plays by it."""
    data = new_round(client, rules={field: value}, seed=11)
    assert data["rules"][field] == value
    expected = Round(Rules.from_dict({field: value}), seed=11)
    assert data["counts"] == list(expected.counts)
    played = battles(client, data["id"], 3)["battles"]
    assert played == [battle.to_dict() for battle in expected.play(3)]


BAD_FIELDS = [
    ("players", 1, "players: 1 is out of range, must be 2..4"),
    ("players", 5, "players: 5 is out of range, must be 2..4"),
    ("players", "3", "players: must be a whole number from 2 to 4, not '3'"),
    ("players", True, "players: must be a whole number from 2 to 4, not True"),
    ("players", None, "players: must be a whole number from 2 to 4, not None"),
    ("hand_size", 0, "hand_size: 0 is out of range, must be null or 1..26"),
    ("hand_size", 27, "hand_size: 27 is out of range, must be null or 1..26"),
    ("hand_size", 2.5, "hand_size: must be null or a whole number from 1 to 26, not 2.5"),
    ("war_down", -1, "war_down: -1 is out of range, must be 0..5"),
    ("war_down", 6, "war_down: 6 is out of range, must be 0..5"),
    ("war_down", "3", "war_down: must be a whole number from 0 to 5, not '3'"),
    ("war_down", None, "war_down: must be a whole number from 0 to 5, not None"),
    ("shortage", "win", "shortage: 'win' is not allowed, must be one of lose, last_card"),
    ("shortage", None, "shortage: None is not allowed, must be one of lose, last_card"),
    ("battle_limit", 0, "battle_limit: 0 is out of range, must be null or 1..100000"),
    ("battle_limit", 100_001, "battle_limit: 100001 is out of range, must be null or 1..100000"),
    ("battle_limit", "500", "battle_limit: must be null or a whole number from 1 to 100000"),
    (
        "limit_outcome",
        "tie",
        "limit_outcome: 'tie' is not allowed, must be one of draw, most_cards",
    ),
    ("limit_outcome", None, "limit_outcome: None is not allowed"),
    ("time_limit_s", 59, "time_limit_s: 59 is out of range, must be null or 60..7200"),
    ("time_limit_s", 7201, "time_limit_s: 7201 is out of range, must be null or 60..7200"),
    ("time_limit_s", "600", "time_limit_s: must be null or a whole number from 60 to 7200"),
    ("low_wins", "yes", "low_wins: must be true or false, not 'yes'"),
    ("low_wins", 1, "low_wins: must be true or false, not 1"),
    ("low_wins", None, "low_wins: must be true or false, not None"),
    ("gather", "random", "gather: 'random' is not allowed, must be one of winner_first, table,"),
    ("gather", None, "gather: None is not allowed"),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD_FIELDS)
def test_every_bad_rule_value_is_422_naming_the_field(
    client: TestClient, db_path: Path, field: str, value: Any, message: str
) -> None:
    """A bad value of any rule field is refused with 422 naming it, and deals nothing."""
    before = rounds_stored(db_path)
    response = client.post("/api/rounds", json={"rules": {field: value}})
    assert response.status_code == 422
    assert response.json()["detail"].startswith(message)
    assert rounds_stored(db_path) == before


def test_hand_size_is_checked_against_the_players(client: TestClient) -> None:
    """Four players can be dealt at most 13 cards each, whatever the preset."""
    response = client.post("/api/rounds", json={"rules": {"players": 4, "hand_size": 14}})
    assert response.status_code == 422
    assert response.json()["detail"] == "hand_size: 14 is out of range, must be null or 1..13"
    response = client.post("/api/rounds", json={"preset": "short", "rules": {"players": 4}})
    assert response.status_code == 201 and response.json()["counts"] == [13] * 4


def test_rules_lists_the_presets_and_what_each_field_allows(client: TestClient) -> None:
    """GET /api/rules: every preset filled in, and each field's range or choices."""
    info = client.get("/api/rules").json()
    assert info["presets"] == {name: rules.to_dict() for name, rules in PRESETS.items()}
    fields = info["fields"]
    assert set(fields) == set(Rules().to_dict())
    assert (fields["war_down"]["min"], fields["war_down"]["max"]) == (0, 5)
    assert (fields["players"]["min"], fields["players"]["max"]) == (2, 4)
    assert fields["battle_limit"] == {
        "default": 500, "nullable": True, "min": 1, "max": 100_000, "choices": None
    }  # fmt: skip
    assert fields["gather"]["choices"] == ["winner_first", "table", "shuffled", "natural"]
    assert fields["low_wins"]["choices"] == [False, True]


def test_rules_give_the_seat_model_the_page_learns(client: TestClient) -> None:
    """GET /api/rules `seats` (docs/api.md#people-at-the-table): four seats, names of at most 20
    letters, you against the computers by default, and every seat's default name, which the
    page shows and the server fills in alike."""
    seats = client.get("/api/rules").json()["seats"]
    assert (seats["count"], seats["name_max"]) == (4, 20)
    assert (
        seats["default"]
        == [{"kind": "person", "name": ""}] + [{"kind": "computer", "name": ""}] * 3
    )
    names = seats["default_names"]
    assert names["2"] == {"person": ["You", "Player 2"], "computer": ["You", "Computer"]}
    assert names["4"]["computer"] == ["You", "Computer 1", "Computer 2", "Computer 3"]
    assert names["4"]["person"] == ["You", "Player 2", "Player 3", "Player 4"]
    assert set(names) == {"2", "3", "4"}
    # A round dealt with the default seats names them as the model says.
    dealt = client.post("/api/rounds", json={"rules": {"players": 3}}).json()
    assert [seat["name"] for seat in dealt["seats"]] == names["3"]["computer"]


def test_a_round_picked_up_as_the_cards_lie(client: TestClient) -> None:
    """gather "natural" (docs/rules.md#gather) plays through the API as in the engine: a double
    tie with no card down comes up king, three, then the tied pairs, the latest first."""
    rules = {"gather": "natural", "war_down": 0, "battle_limit": None}
    data = new_round(client, rules=rules, deal=[["9S", "5C", "KD"], ["9H", "5D", "3C"]])
    assert data["rules"]["gather"] == "natural"
    done = battles(client, data["id"], 1)["round"]
    assert done["outcome"] == {"winner": 0, "reason": "all_cards"}
    assert done["piles"] == [["KD", "3C", "5D", "5C", "9H", "9S"], []]
    answer = client.post("/api/simulations", json={"rules": rules, "rounds": 200, "seed": 3})
    assert answer.status_code == 200 and answer.json()["rules"]["gather"] == "natural"


# -- house rules, per browser ---------------------------------------------------------------------


def players_stored(db: Path) -> list[tuple[Any, ...]]:
    """Every row of the players table."""
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT id, house_rules FROM players ORDER BY id").fetchall()


def test_house_rules_are_kept_per_browser_through_a_restart(make_client: ClientFactory) -> None:
    """PUT /api/me/house-rules keeps a choice for this cookie; /api/me shows it after a restart."""
    client = make_client()
    chosen = client.put(
        "/api/me/house-rules", json={"preset": "traditional", "rules": {"players": 3}}
    )
    assert chosen.status_code == 200
    expected = {**Rules.preset("traditional").to_dict(), "players": 3}
    assert chosen.json() == {
        "preset": None, "rules": expected, "best_of": 1, "seats": DEFAULT_SEATS
    }  # fmt: skip
    assert client.get("/api/me").json()["house_rules"] == chosen.json()

    exact = client.put("/api/me/house-rules", json={"preset": "peace", "best_of": 3}).json()
    peace = Rules.preset("peace").to_dict()
    assert exact == {"preset": "peace", "rules": peace, "best_of": 3, "seats": DEFAULT_SEATS}
    # A change of rules alone leaves the match length as it was.
    kept = client.put("/api/me/house-rules", json={"preset": "peace"}).json()
    assert kept == exact
    restarted = make_client()
    restarted.cookies = client.cookies
    assert restarted.get("/api/me").json()["house_rules"] == exact
    other = make_client()
    assert other.get("/api/me").json()["house_rules"]["preset"] == "classic"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"rules": {"war_down": 9}}, "war_down: 9 is out of range, must be 0..5"),
        ({"preset": "blitz"}, "preset 'blitz': unknown"),
        ({"rules": {"speed": 1}}, "rules: unknown field 'speed'"),
        ({"rules": {"players": 4, "hand_size": 20}}, "hand_size: 20 is out of range"),
        ({"colour": "red"}, "colour: Extra inputs are not permitted"),
        ({"rules": [1]}, "rules: Input should be an object"),
        ({"best_of": 2}, "best_of: Input should be 1, 3 or 5"),
        ({"rules": {"war_down": 9}, "best_of": 3}, "war_down: 9 is out of range"),
    ],
)
def test_bad_house_rules_are_422_and_keep_the_old_choice(
    client: TestClient, db_path: Path, body: dict[str, Any], message: str
) -> None:
    """A choice that does not fit is refused with 422 naming the field; the old choice stays."""
    client.put("/api/me/house-rules", json={"preset": "short"})
    before = players_stored(db_path)
    response = client.put("/api/me/house-rules", json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]
    assert players_stored(db_path) == before
    assert client.get("/api/me").json()["house_rules"]["preset"] == "short"


def test_me_shows_the_last_battle_to_resume_the_table(make_client: ClientFactory) -> None:
    """After a reload or a restart the page gets the round's last battle to lay out again."""
    client = make_client()
    data = new_round(client, deal=EXAMPLE_DEAL)
    assert client.get("/api/me").json()["last_battle"] is None
    played = battles(client, data["id"])["battles"]
    me = client.get("/api/me").json()
    MeOut.model_validate(me)
    assert me["last_battle"] == played[-1]
    restarted = make_client()
    restarted.cookies = client.cookies
    assert restarted.get("/api/me").json()["last_battle"] == played[-1]


# -- the clock ------------------------------------------------------------------------------------


def test_timed_round_ends_by_count_when_its_clock_runs_out(make_client: ClientFactory) -> None:
    """A timed round past its 10 minutes ends time_up at the next request, then refuses play."""
    now = [time.time()]
    client = make_client(clock=lambda: now[0])
    data = new_round(client, preset="timed", deal=[["AS", "KS", "QS"], ["2H", "3H"]])
    battles(client, data["id"])
    now[0] += 601
    result = battles(client, data["id"], 5)
    assert result["battles"] == []
    assert result["round"]["outcome"] == {"winner": 0, "reason": "time_up"}
    assert client.post(f"/api/rounds/{data['id']}/battles").status_code == 409


# -- the documents --------------------------------------------------------------------------------


def test_openapi_lists_every_endpoint(client: TestClient) -> None:
    """FastAPI serves the OpenAPI document with every endpoint of docs/api.md."""
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/rounds", "/api/rounds/{round_id}", "/api/rounds/{round_id}/battles"} <= set(paths)
    play = paths["/api/rounds/{round_id}/battles"]["post"]
    assert {"200", "404", "409", "422"} <= set(play["responses"])
    assert [p["name"] for p in play["parameters"]] == ["round_id"]
    count = play["requestBody"]["content"]["application/json"]["schema"]["properties"]["count"]
    assert (count["minimum"], count["maximum"], count["default"]) == (1, 100_000, 1)


def test_the_page_and_its_files_are_served_and_light(client: TestClient) -> None:
    """The page has the classic table's three controls, and everything a first load fetches
    weighs under 200 KB as sent, compressed: the page, every file it names and every file its
    service worker keeps (each module any module imports among them), the worker itself, and the
    manifest's icons that a browser fetches to install the table."""
    page = client.get("/")
    assert page.status_code == 200
    html = page.text
    for label in ("Turn cards", "Play 10 battles", "New round"):
        assert f">{label}</button>" in html
    named = re.findall(r'(?:href|src)="(/static/[^"]+)"', html)
    worker = client.get("/sw.js").text
    kept = re.search(r"^const FILES = (.*);$", worker, re.MULTILINE)
    assert kept is not None
    (manifest,) = [url for url in named if url.endswith(".webmanifest")]
    icons = [urljoin(manifest, icon["src"]) for icon in client.get(manifest).json()["icons"]]
    fetched = {"/", "/sw.js", *named, *json.loads(kept[1]), *icons}
    static = Path(__file__).parents[2] / "src" / "cardwar" / "web" / "static"
    for module in static.glob("*.js"):  # the first load fetches every module the page imports
        for name in re.findall(
            r'^(?:import|export)\b[^;"]*"\./([\w/-]+\.js)";', module.read_text(), re.M
        ):
            assert any(url.endswith(f"/{name}") for url in fetched), name
    total = 0
    for url in fetched:
        with client.stream("GET", url, headers={"accept-encoding": "gzip"}) as response:
            assert response.status_code == 200, url
            total += sum(len(part) for part in response.iter_raw())  # the bytes as sent
    assert total < 200_000


def test_serve_prints_the_address_to_open(live_server: LiveServer) -> None:
    """`cardwar serve` tells the person which URL to open and where the rounds are kept."""
    log = live_server.db.with_suffix(".log").read_text()
    assert f"open {live_server.url} in your browser" in log
    assert str(live_server.db) in log


def test_reading_a_round_while_a_long_run_plays_it(client: TestClient) -> None:
    """Reads during a 100,000-battle request wait their turn and see a whole, consistent round."""
    rules = {"war_down": 2, "low_wins": True, "gather": "table", "battle_limit": 100_000}
    data = new_round(client, rules=rules, seed=901749037)  # a round that lasts 179,409 battles

    with ThreadPoolExecutor(4) as pool, LongRunGate(client) as gate:
        long_run = pool.submit(battles, client, data["id"], 100_000)
        gate.reached()  # the long run holds the round until the gate opens
        waiters = RoundWaiters(client, data["id"])
        reads = [pool.submit(client.get, f"/api/rounds/{data['id']}") for _ in range(3)]
        waiters.wait_for(3)  # every read waits its turn...
        assert not any(read.done() for read in reads)
        gate.open()
        result = long_run.result()
        seen = []
        for read in reads:
            response = read.result()
            assert response.status_code == 200
            seen.append(response.json())
    assert result["round"]["battles"] == 100_000
    assert all(sum(view["counts"]) == 52 for view in seen)
    assert {view["battles"] for view in seen} == {100_000}  # ...and sees the run whole


# -- the simulator behind the page ---------------------------------------------------------------


def test_the_chance_to_win_from_here(client: TestClient) -> None:
    """2,000 continuations: shares that add up to one, the same for the same position, a sure
    thing when only one seat can win, and the outcome itself once the round is over."""
    data = new_round(client, seed=8)
    battles(client, data["id"], 30)
    url = f"/api/rounds/{data['id']}/chance"
    chance = client.get(url).json()
    assert chance["runs"] == 2000 and chance["battles"] == 30
    assert abs(sum(chance["seats"]) + chance["draw"] - 1) < 1e-3
    assert chance["you"] == chance["seats"][0]
    assert client.get(url).json() == chance
    sure = new_round(client, deal=[["AS", "AH", "KS"], ["2C", "3C", "4C"]])
    assert client.get(f"/api/rounds/{sure['id']}/chance").json()["you"] == 1.0
    over = new_round(client, deal=[["AS"], ["2H"]])
    battles(client, over["id"])
    assert client.get(f"/api/rounds/{over['id']}/chance").json() == {
        "battles": 1, "runs": 0, "you": 1.0, "seats": [1.0, 0.0], "draw": 0.0,
        "holdings": [{"cards": 2, "best": 1, "high": 1}, {"cards": 0, "best": 0, "high": 0}],
        "best_rank": "A", "best_in_play": 1, "high_in_play": 1,
    }  # fmt: skip
    assert client.get("/api/rounds/nope/chance").status_code == 404


def test_simulations_give_the_figures_and_histograms(client: TestClient) -> None:
    """POST /api/simulations plays the rules asked for, as the command line does for the seed."""
    response = client.post(
        "/api/simulations",
        json={"preset": "short", "rules": {"players": 3}, "rounds": 3000, "seed": 4},
    )
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["rules"]["players"] == 3 and result["rules"]["hand_size"] == 13
    assert result["rounds"] == 3000 == sum(result["histograms"]["battles"])
    assert result["stopped_by_time"] is False and result["rounds_asked"] == 3000
    from cardwar.sim.runs.run import simulate

    expected = simulate(
        Rules.from_dict({"players": 3}, base=Rules.preset("short")), 3000, seed=4
    ).to_dict(3, histograms=True)
    assert {k: result[k] for k in expected} == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"rounds": 0}, "rounds: Input should be greater than or equal to 1"),
        ({"rounds": 200_001}, "rounds: Input should be less than or equal to 200000"),
        ({"rules": {"war_down": 8}}, "war_down: 8 is out of range, must be 0..5"),
        ({"seed": -3}, "seed: must be a whole number from 0"),
    ],
)
def test_bad_simulations_are_422(client: TestClient, body: dict[str, Any], message: str) -> None:
    """The server caps the rounds a request may play, and checks the rules as for a round."""
    response = client.post("/api/simulations", json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]
