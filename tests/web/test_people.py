"""People at the table (docs/api.md#people-at-the-table): the seats kept with the house rules,
dealt with every round and match, the tally per person's name, and the chance answer's reasons
(docs/api.md#the-chance-to-win)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cardwar.web.schemas import ChanceOut, HouseRulesOut, MatchDealtOut, MeOut, RoundOut

from helpers import ClientFactory


def seats(*chosen: str) -> list[dict[str, str]]:
    """Four seats from up to four words, seat 0 first: "Mia" a person of that name, "person" a
    person of the default name, "" or nothing a computer."""
    found = []
    for word in (*chosen, "", "", "", "")[:4]:
        if word == "":
            found.append({"kind": "computer", "name": ""})
        else:
            found.append({"kind": "person", "name": "" if word == "person" else word})
    return found


DEFAULT = seats("person")


def stored(db: Path) -> list[tuple[Any, ...]]:
    """Every row of the tables a refused request must leave alone."""
    with sqlite3.connect(db) as connection:
        return [
            row
            for table in ("players", "rounds", "matches", "people")
            for row in connection.execute(f"SELECT * FROM {table} ORDER BY 1")
        ]


def deal(client: TestClient, **body: Any) -> dict[str, Any]:
    """POST /api/rounds and check it answered 201 with a valid round."""
    response = client.post("/api/rounds", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    RoundOut.model_validate(data)
    return data


def play(client: TestClient, round_id: str, count: int = 1) -> dict[str, Any]:
    """Play `count` battles; the answer."""
    response = client.post(f"/api/rounds/{round_id}/battles", json={"count": count})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def people(client: TestClient) -> list[dict[str, Any]]:
    """The scoreboard's tally per name."""
    me = client.get("/api/me").json()
    MeOut.model_validate(me)
    found: list[dict[str, Any]] = me["scoreboard"]["people"]
    return found


def tally(name: str, won: int = 0, lost: int = 0, drawn: int = 0) -> dict[str, Any]:
    """One name's tally as the scoreboard shows it."""
    return {"name": name, "won": won, "lost": lost, "drawn": drawn}


# -- the house rules keep the seats --------------------------------------------------------------


def test_house_rules_keep_four_seats_through_a_restart(make_client: ClientFactory) -> None:
    """PUT /api/me/house-rules keeps four seats, names trimmed (empty for the default); a PUT
    without seats keeps them, as it keeps `best_of`; a restart keeps them too."""
    client = make_client()
    assert client.get("/api/me").json()["house_rules"]["seats"] == DEFAULT
    chosen = client.put(
        "/api/me/house-rules", json={"rules": {"players": 3}, "seats": seats("  Mia ", "Bo")}
    )
    assert chosen.status_code == 200, chosen.text
    HouseRulesOut.model_validate(chosen.json())
    assert chosen.json()["seats"] == seats("Mia", "Bo")
    # Back to two players: seat 2's choice is kept, unused, for the next time there are three.
    kept = client.put("/api/me/house-rules", json={"preset": "peace", "best_of": 3}).json()
    assert kept["seats"] == seats("Mia", "Bo") and kept["rules"]["players"] == 2
    restarted = make_client()
    restarted.cookies = client.cookies
    assert restarted.get("/api/me").json()["house_rules"] == kept
    assert make_client().get("/api/me").json()["house_rules"]["seats"] == DEFAULT


BAD_SEATS = [
    ({"seats": seats("Mia")[:3]}, "seats: must list exactly 4 seats, seat 0 first, not 3"),
    ({"seats": [*seats("Mia"), {"kind": "computer"}]}, "seats: must list exactly 4 seats"),
    ({"seats": seats("", "Bo")}, "seats.0.kind: must be 'person': seat 0 is always a person"),
    (
        {"seats": [{"kind": "person"}, {"kind": "robot"}, *seats()[:2]]},
        "seats.1.kind: Input should be 'person' or 'computer'",
    ),
    ({"seats": [{"name": "Mia"}, *seats()[:3]]}, "seats.0.kind: Field required"),
    ({"seats": [{"kind": "person", "age": 7}, *seats()[:3]]}, "seats.0.age: Extra inputs"),
    ({"seats": seats("person", "Bo", 7)}, "seats.2.name: Input should be a valid string"),
    ({"seats": "Mia and Bo"}, "seats: Input should be a valid array"),
    ({"seats": seats("Mia", "x" * 21)}, "seats.1.name: 'xxxxxxxxxxxxxxxxxxxxx' is 21 characters"),
    ({"seats": seats("Mia", "Bo\nBo")}, "seats.1.name: must not hold control characters"),
    ({"seats": seats("Mia", "\u202eoB")}, "seats.1.name: must not hold control characters"),
    (
        {"seats": seats("Mia", " mia ")},
        "seats.1.name: 'mia' is the name of seat 0 and seat 1; the seats in play need different",
    ),
    ({"seats": seats("person", "you")}, "seats.1.name: 'you' is the name of seat 0 and seat 1"),
    (
        # A name written for seat 1 takes seat 2's default: seat 1 is the one named.
        {"rules": {"players": 3}, "seats": seats("Mia", "computer 2")},
        "seats.1.name: 'computer 2' is the name of seat 1 and seat 2",
    ),
    (
        {"rules": {"players": 4}, "seats": seats("person", "person", "", "Player 2")},
        "seats.3.name: 'Player 2' is the name of seat 1 and seat 3",
    ),
]


@pytest.mark.parametrize(("body", "message"), BAD_SEATS)
@pytest.mark.parametrize(
    "route", ["PUT /api/me/house-rules", "POST /api/rounds", "POST /api/matches"]
)
def test_bad_seats_are_422_naming_the_field_and_change_nothing(
    client: TestClient, db_path: Path, route: str, body: dict[str, Any], message: str
) -> None:
    """Seats that do not fit are refused with 422 naming the field (`seats.2.name: …`), by the
    house rules, a new round and a new match alike, and nothing is stored."""
    client.put("/api/me/house-rules", json={"seats": seats("Ann", "Bo")})
    before = stored(db_path)
    method, path = route.split()
    response = client.request(method, path, json=body)
    assert response.status_code == 422
    assert message in response.json()["detail"]
    assert stored(db_path) == before
    assert client.get("/api/me").json()["house_rules"]["seats"] == seats("Ann", "Bo")


def test_names_beyond_the_players_may_repeat_until_they_sit_down(client: TestClient) -> None:
    """A seat beyond the rules' players is kept unused, so its name may repeat one in play; a
    later choice of more players that would seat both is refused, keeping the old choice."""
    chosen = client.put("/api/me/house-rules", json={"seats": seats("Mia", "Bo", "", "bo")})
    assert chosen.status_code == 200, chosen.text
    refused = client.put("/api/me/house-rules", json={"rules": {"players": 4}})
    assert refused.status_code == 422
    assert "seats.3.name: 'bo' is the name of seat 1 and seat 3" in refused.json()["detail"]
    assert client.get("/api/me").json()["house_rules"] == chosen.json()
    three = client.put("/api/me/house-rules", json={"rules": {"players": 3}})
    assert three.status_code == 200 and three.json()["seats"] == seats("Mia", "Bo", "", "bo")


# -- rounds and matches ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "chosen", "names"),
    [
        (2, None, ["You", "Computer"]),
        (3, None, ["You", "Computer 1", "Computer 2"]),
        (4, seats("person", "person", "", "Zoë"), ["You", "Player 2", "Computer 2", "Zoë"]),
        (2, seats("Mia", "Bo", "Mia"), ["Mia", "Bo"]),
        (3, seats(" Mia ", "", "person"), ["Mia", "Computer 1", "Player 3"]),
    ],
)
def test_a_round_seats_its_people_names_filled_in(
    client: TestClient, players: int, chosen: list[dict[str, str]] | None, names: list[str]
) -> None:
    """A round answers one seat per player in play, every name filled in: the defaults (You,
    Computer, Computer N, Player N+1) for names left empty, and you against the computers when
    the body names no seats."""
    body: dict[str, Any] = {"rules": {"players": players}, "seed": 3}
    if chosen is not None:
        body["seats"] = chosen
    data = deal(client, **body)
    assert [seat["name"] for seat in data["seats"]] == names
    kinds = [seat["kind"] for seat in (chosen or DEFAULT)[:players]]
    assert [seat["kind"] for seat in data["seats"]] == kinds


def test_every_answer_that_shows_a_round_shows_its_seats(make_client: ClientFactory) -> None:
    """The seats come with the round everywhere it is shown: dealt, read, after a click and a
    long run, in GET /api/me, and after a restart."""
    client = make_client()
    data = deal(client, seed=11, seats=seats("Mia", "Bo"))
    expected = [{"kind": "person", "name": "Mia"}, {"kind": "person", "name": "Bo"}]
    assert data["seats"] == expected
    assert client.get(f"/api/rounds/{data['id']}").json()["seats"] == expected
    assert play(client, data["id"])["round"]["seats"] == expected
    assert play(client, data["id"], 150)["round"]["seats"] == expected  # a long run
    assert client.get("/api/me").json()["round"]["seats"] == expected
    restarted = make_client()
    restarted.cookies = client.cookies
    assert restarted.get(f"/api/rounds/{data['id']}").json()["seats"] == expected


def test_a_match_keeps_its_seats_for_all_its_rounds(client: TestClient) -> None:
    """A match answers the seats it was started with, and deals every round with them."""
    body = {"best_of": 3, "rules": {"hand_size": 2}, "seed": 4, "seats": seats("Mia", "Bo")}
    dealt = client.post("/api/matches", json=body)
    assert dealt.status_code == 201, dealt.text
    match = dealt.json()
    MatchDealtOut.model_validate(match)
    expected = [{"kind": "person", "name": "Mia"}, {"kind": "person", "name": "Bo"}]
    assert match["seats"] == expected == match["round"]["seats"]
    play(client, match["round"]["id"], 1000)
    later = client.post(f"/api/matches/{match['id']}/rounds")
    assert later.status_code == 201, later.text
    assert later.json()["round"]["seats"] == expected == later.json()["seats"]
    assert client.get(f"/api/matches/{match['id']}").json()["seats"] == expected


# -- the tally per name ---------------------------------------------------------------------------


def test_every_person_is_tallied_by_name_and_computers_are_not(client: TestClient) -> None:
    """Each person seat of a finished round counts once under its name, sorted by name case
    aside; seat 0's rounds still count in won/lost/drawn; unfinished rounds and computers count
    for nothing."""
    assert people(client) == []
    won = deal(client, deal=[["AS"], ["2H"]], seats=seats("mia", "Bo"))
    play(client, won["id"])
    drawn = deal(client, deal=[["9S"], ["9H"]], seats=seats("Mia", "Bo"))
    play(client, drawn["id"])
    lost = deal(client, deal=[["2S"], ["AH"]], seats=seats("Mia"))  # against the computer
    play(client, lost["id"])
    deal(client, seed=1, seats=seats("Mia", "Bo"))  # not finished
    # "mia" and "Mia" are one person; the tally shows the name as last written.
    assert people(client) == [tally("Bo", lost=1, drawn=1), tally("Mia", won=1, lost=1, drawn=1)]
    board = client.get("/api/me").json()["scoreboard"]
    assert (board["won"], board["lost"], board["drawn"]) == (1, 1, 1)


def test_a_person_knocked_out_at_a_bigger_table_has_lost_at_once(client: TestClient) -> None:
    """At a table of three, a person out of cards has lost then and there, counted once, while
    the others play on; the person left in counts when the round ends."""
    deal_ = [["KS", "4C", "6D"], ["2S"], ["AS", "3C", "5D"]]
    data = deal(client, rules={"players": 3}, deal=deal_, seats=seats("Mia", "Bo"))
    first = play(client, data["id"])
    assert first["round"]["outcome"] is None and first["round"]["counts"][1] == 0
    assert people(client) == [tally("Bo", lost=1)]
    end = play(client, data["id"], 1000)
    assert end["round"]["outcome"] is not None
    winner = end["round"]["outcome"]["winner"]
    mia = "drawn" if winner is None else "won" if winner == 0 else "lost"
    assert people(client) == [tally("Bo", lost=1), tally("Mia", **{mia: 1})]


def test_a_timed_round_tallies_its_people_when_the_clock_ends_it(
    make_client: ClientFactory,
) -> None:
    """A clock that runs out ends the round by a count, and every person is tallied then."""
    now = [time.time()]
    client = make_client(clock=lambda: now[0])
    data = deal(
        client, preset="timed", deal=[["AS", "KS", "QS"], ["2H", "3H"]], seats=seats("Mia", "Bo")
    )
    play(client, data["id"])
    now[0] += 601
    assert client.get(f"/api/rounds/{data['id']}").json()["outcome"]["reason"] == "time_up"
    assert people(client) == [tally("Bo", lost=1), tally("Mia", won=1)]


def test_tallies_live_and_go_with_their_player(make_client: ClientFactory, db_path: Path) -> None:
    """Pruning old rounds keeps the tallies, as it keeps the scoreboard; a player forgotten
    after a year without a visit loses them with the rest."""
    client = make_client()
    data = deal(client, deal=[["AS"], ["2H"]], seats=seats("Mia", "Bo"))
    play(client, data["id"])
    cookie = client.cookies["cardwar_player"]
    with sqlite3.connect(db_path) as connection:
        connection.execute("UPDATE rounds SET updated_at = updated_at - 31 * 86400")
    pruned = make_client()
    pruned.cookies.set("cardwar_player", cookie)
    assert pruned.get(f"/api/rounds/{data['id']}").status_code == 404
    assert people(pruned) == [tally("Bo", lost=1), tally("Mia", won=1)]
    with sqlite3.connect(db_path) as connection:
        connection.execute("UPDATE players SET updated_at = updated_at - 366 * 86400")
    forgotten = make_client()
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT COUNT(*) FROM people").fetchone() == (0,)
    forgotten.cookies.set("cardwar_player", cookie)
    assert people(forgotten) == []


def test_a_file_from_before_seats_opens_whole(make_client: ClientFactory, db_path: Path) -> None:
    """A file from before people at the table gains its columns and tallies as it opens: its
    rounds and matches seat you against the computers, its house rules have the default seats,
    and its scoreboards become You's tallies."""
    client = make_client()
    won = deal(client, deal=[["AS"], ["2H"]])
    play(client, won["id"])
    going = deal(client, rules={"players": 3}, seed=5)
    match = client.post("/api/matches", json={"seed": 2}).json()
    client.put("/api/me/house-rules", json={"preset": "peace"})
    cookie = client.cookies["cardwar_player"]
    with sqlite3.connect(db_path) as connection:
        for table in ("rounds", "matches", "players"):
            connection.execute(f"ALTER TABLE {table} DROP COLUMN seats")
        connection.execute("DROP TABLE people")
        connection.execute("DROP TABLE alembic_version")  # a file from before schema revisions
    for _ in range(2):
        reopened = make_client()
        reopened.cookies.set("cardwar_player", cookie)
        shown = reopened.get(f"/api/rounds/{going['id']}").json()
        assert [seat["name"] for seat in shown["seats"]] == ["You", "Computer 1", "Computer 2"]
        assert reopened.get(f"/api/matches/{match['id']}").json()["seats"] == [
            {"kind": "person", "name": "You"},
            {"kind": "computer", "name": "Computer"},
        ]
        me = reopened.get("/api/me").json()
        assert me["house_rules"]["seats"] == DEFAULT and me["house_rules"]["preset"] == "peace"
        assert me["scoreboard"]["people"] == [tally("You", won=1)]


# -- the chance answer's reasons ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "holdings", "best_rank", "in_play"),
    [
        (
            {"deal": [["AS", "AH", "KD", "2C"], ["AD", "QS", "JH", "3C", "4C"]]},
            [{"cards": 4, "best": 2, "high": 3}, {"cards": 5, "best": 1, "high": 3}],
            "A",
            (3, 6),
        ),
        (
            {"preset": "peace", "deal": [["2S", "2H", "5D", "AC"], ["3D", "KS"]]},
            [{"cards": 4, "best": 2, "high": 3}, {"cards": 2, "best": 0, "high": 1}],
            "2",
            (2, 4),
        ),
        (
            {"rules": {"players": 3}, "deal": [["AS"], ["KS", "QS"], ["2C"]]},
            [
                {"cards": 1, "best": 1, "high": 1},
                {"cards": 2, "best": 0, "high": 2},
                {"cards": 1, "best": 0, "high": 0},
            ],
            "A",
            (1, 3),
        ),
    ],
)
def test_the_chance_says_who_holds_the_best_cards(
    client: TestClient,
    body: dict[str, Any],
    holdings: list[dict[str, int]],
    best_rank: str,
    in_play: tuple[int, int],
) -> None:
    """The chance answer tells each seat's cards, its cards of the best rank (aces, or twos
    under Peace) and of the four best ranks, and how many of each were dealt in the round."""
    data = deal(client, **body)
    chance = client.get(f"/api/rounds/{data['id']}/chance").json()
    ChanceOut.model_validate(chance)
    assert chance["holdings"] == holdings
    assert chance["best_rank"] == best_rank
    assert (chance["best_in_play"], chance["high_in_play"]) == in_play


def test_a_short_deck_deals_fewer_of_the_best_cards(client: TestClient) -> None:
    """On a short deck the chance counts the best cards dealt in this round, not in the deck;
    the holdings add up to them, battle after battle."""
    data = deal(client, preset="short", rules={"hand_size": 3}, seed=2)
    for _ in range(3):
        chance = client.get(f"/api/rounds/{data['id']}/chance").json()
        assert sum(seat["cards"] for seat in chance["holdings"]) == 6
        assert sum(seat["best"] for seat in chance["holdings"]) == chance["best_in_play"]
        assert sum(seat["high"] for seat in chance["holdings"]) == chance["high_in_play"]
        assert chance["best_in_play"] < 4 and chance["high_in_play"] < 16
        if play(client, data["id"])["round"]["outcome"] is not None:
            break
