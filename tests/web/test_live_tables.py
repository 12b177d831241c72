"""Live tables through the real app (docs/api.md#live-tables): people each on their own device,
here each a cookie of their own on one TestClient, their sockets through `websocket_connect`.

Every wait for a message is bounded (`heard`), so a message that never comes fails the test
instead of hanging it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from devices import (
    COOKIE,
    Device,
    ann_and_mia,
    heard,
    joined,
    live_of,
    one_or_the_other,
    open_table,
    until,
)
from helpers import ClientFactory
from live import HANG_S, LiveServer


@pytest.fixture(params=["one process", "with a broker"])
def make_client(request: pytest.FixtureRequest, make_client: ClientFactory) -> ClientFactory:
    """Every test here runs twice: on a server of one process (presence in memory), and on one
    with a broker (presence and messages through the real Redis, a key prefix a test)."""
    return one_or_the_other(request, make_client)


@pytest.fixture
def client(make_client: ClientFactory) -> Iterator[TestClient]:
    yield make_client()


def test_a_table_opens_with_an_invite_that_carries_only_its_code(client: TestClient) -> None:
    host = Device(client)
    opened = open_table(host)
    invite = opened["invite"]
    code = invite["code"]
    assert len(code) >= 22  # 16 random bytes, base64: 128 bits
    assert invite["invite_url"] == f"http://testserver/?table={code}"
    assert host.cookie not in str(opened)  # the credential is in the cookie alone
    assert opened["you"] == {"seat": 0, "host": True}
    assert [seat["taken"] for seat in opened["table"]["seats"]] == [True, False]
    assert "id" not in opened["table"]["round"]  # nobody who hears a table learns its round
    assert invite["shared"] is False and "cardwar serve --host 0.0.0.0" in invite["hint"]
    qr = client.get(f"/api/tables/{code}/invite.svg")
    assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
    assert qr.text.startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ')  # an image


def test_a_flip_alone_plays_nothing_and_every_flip_plays_one_battle_for_everyone(
    client: TestClient,
) -> None:
    host, mia, watcher = Device(client), Device(client), Device(client)
    opened = open_table(host)
    code = opened["invite"]["code"]
    seen = mia.get(f"/api/tables/{code}").json()
    assert seen["you"] == {"seat": None, "host": False, "given": None}
    sat = mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    assert sat.status_code == 200, sat.text
    assert sat.json()["you"] == {"seat": 1, "host": False}
    watch = opened["table"]["watch"]
    with (
        host.socket(f"/api/tables/{code}/live") as ann_ws,
        mia.socket(f"/api/tables/{code}/live") as mia_ws,
        watcher.socket(f"/api/watch/{watch}/live") as watch_ws,
    ):
        assert joined(ann_ws)["you"] == {"seat": 0, "host": True}
        assert joined(mia_ws)["seats"][1] == {
            "kind": "person", "name": "Mia", "taken": True, "away": False,
        }  # fmt: skip
        assert joined(watch_ws)["you"] == {"seat": None, "host": False}
        for battle in (1, 2, 3):
            ann_ws.send_json({"type": "flip", "battle": battle})
            for ws in (ann_ws, mia_ws, watch_ws):
                flipped = heard(ws)
                assert flipped == {"type": "flipped", "seat": 0, "waiting": [1]}
            mia_ws.send_json({"type": "flip", "battle": battle})
            for ws in (ann_ws, mia_ws, watch_ws):
                played = heard(ws)  # the very next message: nothing in between, nothing twice
                assert played["type"] == "played" and played["by"] == "flips"
                assert [b["number"] for b in played["battles"]] == [battle]
                assert played["round"]["battles"] == battle
        stored = live_of(client).room.tables[code].table.row.round_id
        assert client.get(f"/api/rounds/{stored}").json()["battles"] == 3  # committed


def test_a_dropped_socket_rejoins_the_same_seat_with_the_whole_table(client: TestClient) -> None:
    host, mia = Device(client), Device(client)
    code = open_table(host)["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    with host.socket(f"/api/tables/{code}/live") as ann_ws:
        joined(ann_ws)
        with mia.socket(f"/api/tables/{code}/live") as mia_ws:
            joined(mia_ws)
            ann_ws.send_json({"type": "flip"})
            mia_ws.send_json({"type": "flip"})
            until(mia_ws, "played")
        assert until(ann_ws, "away") == {"type": "away", "seat": 1}
        again = mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
        assert again.status_code == 200, again.text
        assert again.json()["you"]["seat"] == 1  # the same seat, never a second one
        with mia.socket(f"/api/tables/{code}/live") as mia_ws:
            table = joined(mia_ws)
            assert table["you"] == {"seat": 1, "host": False}
            assert table["round"]["battles"] == 1 and table["last_battle"]["number"] == 1
            assert until(ann_ws, "back") == {"type": "back", "seat": 1}


def test_the_turn_clock_flips_for_whoever_is_late(make_client: ClientFactory) -> None:
    now = [1_000_000.0]
    client = make_client(clock=lambda: now[0])
    host, mia = Device(client), Device(client)
    code = open_table(host, clock_s=10)["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    live = live_of(client)
    with host.socket(f"/api/tables/{code}/live") as ann_ws:
        joined(ann_ws)
        client.portal.call(live.tick)  # nobody has flipped: the clock has not started
        ann_ws.send_json({"type": "flip"})
        assert heard(ann_ws)["type"] == "flipped"
        now[0] += 9.5
        client.portal.call(live.tick)
        ann_ws.send_json({"type": "ping"})
        assert heard(ann_ws) == {"type": "pong"}  # nine and a half seconds: still waiting
        now[0] += 1
        client.portal.call(live.tick)
        played = heard(ann_ws)
        assert played["type"] == "played" and played["by"] == "clock" and played["late"] == [1]


def test_a_socket_from_another_page_is_refused(client: TestClient) -> None:
    host = Device(client)
    code = open_table(host)["invite"]["code"]
    for origin in ("http://evil.example", ""):
        with pytest.raises(WebSocketDisconnect) as refused:
            with host.socket(f"/api/tables/{code}/live", origin=origin):
                pass
        assert refused.value.code == 1008


def test_too_big_and_too_many_messages_close_the_socket(client: TestClient) -> None:
    host = Device(client)
    code = open_table(host)["invite"]["code"]
    with host.socket(f"/api/tables/{code}/live") as ws:
        joined(ws)
        ws.send_text('{"type": "ping", "pad": "' + "x" * 5000 + '"}')
        with pytest.raises(WebSocketDisconnect) as closed:
            heard(ws)
        assert closed.value.code == 1009
    with host.socket(f"/api/tables/{code}/live") as ws:
        joined(ws)
        for _ in range(60):  # even spread over two seconds, some one second holds 21 of them
            ws.send_json({"type": "ping"})
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(63):  # the pongs, and "back" (this seat was away a moment); with a
                # broker, its "away" too, when it comes through Redis after this socket joined
                assert heard(ws)["type"] in ("pong", "away", "back")
        assert closed.value.code == 1008


def test_bad_messages_are_answered_and_the_socket_kept(client: TestClient) -> None:
    host, mia, stranger = Device(client), Device(client), Device(client)
    opened = open_table(host)
    code = opened["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    with (
        mia.socket(f"/api/tables/{code}/live") as ws,
        stranger.socket(f"/api/watch/{opened['table']['watch']}/live") as watching,
    ):
        joined(ws)
        joined(watching)
        refusals = {
            '{"type": "shout"}': "type: must be one of flip, play",
            "not json": "message: not a JSON object",
            '{"type": "flip", "seat": 0}': "you hold seat 1 at this table, not seat 0",
            '{"type": "play"}': "Only the table's host",
            '{"type": "next"}': "Only the table's host",
            '{"type": "react", "emoji": "💩"}': "emoji: must be one of",
        }
        for sent, words in refusals.items():
            ws.send_text(sent)
            error = heard(ws)
            assert error["type"] == "error" and words in error["message"], (sent, error)
        watching.send_json({"type": "flip"})
        assert "Watchers watch" in heard(watching)["message"]
        ws.send_json({"type": "react", "emoji": "👏"})
        assert until(watching, "reaction") == {"type": "reaction", "seat": 1, "emoji": "👏"}
        ws.send_json({"type": "react", "emoji": "😂"})
        assert "One reaction a second" in until(ws, "error")["message"]
        ws.send_json({"type": "ping"})
        assert until(ws, "pong") == {"type": "pong"}


def test_what_is_not_there_or_not_yours_is_refused_plainly(make_client: ClientFactory) -> None:
    client = make_client(live_tables_per_browser=2, live_sockets=2)
    host, mia, other = Device(client), Device(client), Device(client)
    missing = client.get("/api/tables/nosuchtable")
    assert missing.status_code == 404 and "no live table" in missing.json()["detail"]
    with pytest.raises(WebSocketDisconnect) as closed:
        with host.socket("/api/tables/nosuchtable/live") as ws:
            assert "no live table" in heard(ws)["message"]
            heard(ws)
    assert closed.value.code == 4404
    opened = open_table(host)
    code = opened["invite"]["code"]
    open_table(host)
    seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": ""}]
    third = host.post("/api/tables", {"seats": seats})
    assert third.status_code == 409 and "2 live tables open" in third.json()["detail"]
    assert mia.post(f"/api/tables/{code}/seats", {"seat": 0, "name": "Mia"}).status_code == 409
    assert mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "ann"}).status_code == 409
    assert mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"}).status_code == 200
    taken = other.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Bo"})
    assert taken.status_code == 409 and "taken" in taken.json()["detail"]
    round_id = live_of(client).room.tables[code].table.row.round_id
    played = host.post(f"/api/rounds/{round_id}/battles", {"count": 1})
    assert played.status_code == 409 and "live table" in played.json()["detail"]
    with host.socket(f"/api/tables/{code}/live") as one, mia.socket(f"/api/tables/{code}/live"):
        joined(one)
        with pytest.raises(WebSocketDisconnect) as closed:
            with other.socket(f"/api/tables/{code}/live") as third_ws:
                assert "as many live tables" in heard(third_ws)["message"]
                heard(third_ws)
        assert closed.value.code == 1013


def test_one_network_address_cannot_hold_every_socket(make_client: ClientFactory) -> None:
    """An address at its cap is refused plainly (1013); a socket it closes makes room again."""
    client = make_client(live_sockets=10, live_sockets_per_address=2)
    host = Device(client)
    code = open_table(host)["invite"]["code"]
    live = live_of(client)
    with host.socket(f"/api/tables/{code}/live") as one:
        joined(one)
        with host.socket(f"/api/tables/{code}/live") as two:
            joined(two)
            assert dict(live.doors.sockets_from) == {"testclient": 2}
            with pytest.raises(WebSocketDisconnect) as closed:
                with host.socket(f"/api/tables/{code}/live") as third:
                    assert "This network has as many live tables" in heard(third)["message"]
                    heard(third)
            assert closed.value.code == 1013
            assert live.doors.sockets == 2  # the refused one was never counted
        with host.socket(f"/api/tables/{code}/live") as again:
            joined(again)
    assert (
        live.doors.sockets == 0 and not live.doors.sockets_from
    )  # nothing kept for an address with none


def test_a_table_nobody_touches_for_an_hour_closes_and_says_so(
    make_client: ClientFactory,
) -> None:
    now = [1_000_000.0]
    client = make_client(clock=lambda: now[0])
    host = Device(client)
    code = open_table(host)["invite"]["code"]
    live = live_of(client)
    with host.socket(f"/api/tables/{code}/live") as ws:
        joined(ws)
        now[0] += 3601
        client.portal.call(live.tick)
        assert heard(ws) == {"type": "closed", "reason": "idle"}
        with pytest.raises(WebSocketDisconnect) as closed:
            heard(ws)
        assert closed.value.code == 4410
    assert client.get(f"/api/tables/{code}").status_code == 410


def test_four_people_and_a_watcher_see_each_battle_once_and_in_order(
    client: TestClient,
) -> None:
    people = [Device(client) for _ in range(4)]
    watcher = Device(client)
    opened = open_table(people[0], people=4, players=4)
    code = opened["invite"]["code"]
    for seat, person in enumerate(people[1:], start=1):
        sat = person.post(f"/api/tables/{code}/seats", {"seat": seat, "name": f"P{seat}"})
        assert sat.status_code == 200, sat.text
    sockets = [person.socket(f"/api/tables/{code}/live") for person in people]
    sockets.append(watcher.socket(f"/api/watch/{opened['table']['watch']}/live"))
    entered = [ws.__enter__() for ws in sockets]
    try:
        for ws in entered:
            joined(ws)
        for battle in (1, 2):
            for ws in entered[:4]:
                ws.send_json({"type": "flip", "battle": battle})
            for ws in entered:
                played = until(ws, "played")
                assert [b["number"] for b in played["battles"]] == [battle]
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)


def test_the_host_plays_on_deals_the_next_round_of_a_match_and_tallies_count(
    client: TestClient,
) -> None:
    """Play 10 battles and Play to end are the host's; a match's next round is dealt at the
    table; a finished round counts on the host's scoreboard, each person's tally by name."""
    host, mia = Device(client), Device(client)
    code = open_table(host, best_of=3)["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    with (
        host.socket(f"/api/tables/{code}/live") as ann_ws,
        mia.socket(f"/api/tables/{code}/live") as mia_ws,
    ):
        table = joined(ann_ws)
        joined(mia_ws)
        assert table["match"]["best_of"] == 3 and "id" not in table["match"]
        mia_ws.send_json({"type": "play"})
        assert "Only the table's host" in until(mia_ws, "error")["message"]
        ann_ws.send_json({"type": "play"})
        ten = until(mia_ws, "played")
        assert ten["by"] == "host" and ten["played"] == 10 and len(ten["battles"]) == 10
        ann_ws.send_json({"type": "next"})
        assert "still being played" in until(ann_ws, "error")["message"]
        ann_ws.send_json({"type": "play", "to_end": True})
        ended = until(mia_ws, "played")
        assert ended["round"]["outcome"] is not None and ended["match"]["rounds"][0]["over"]
        winner = ended["round"]["outcome"]["winner"]
        tally = {person["name"]: person for person in ended["tally"]}  # the table's, by name
        assert sorted(tally) == ["Ann", "Mia"]
        for seat, name in enumerate(("Ann", "Mia")):
            won, lost, drawn = (tally[name][k] for k in ("won", "lost", "drawn"))
            expected = (0, 0, 1) if winner is None else (1, 0, 0) if winner == seat else (0, 1, 0)
            assert (won, lost, drawn) == expected
        ann_ws.send_json({"type": "next"})
        dealt = until(mia_ws, "table")
        assert dealt["event"] == "dealt" and dealt["round"]["battles"] == 0
        assert len(dealt["match"]["rounds"]) == 2
        assert dealt["tally"] == ended["tally"]  # a device that joins now sees it too
        assert [seat["name"] for seat in dealt["seats"]] == ["Ann", "Mia"]
    people = {p["name"]: p for p in host.get("/api/me").json()["scoreboard"]["people"]}
    assert sum(people["Mia"][k] for k in ("won", "lost", "drawn")) == 1
    assert host.get("/api/me").json()["round"] is None  # the table's round is not the browser's


def test_the_host_gives_a_free_seat_at_once_and_an_away_seat_after_two_minutes(
    make_client: ClientFactory,
) -> None:
    now = [1_000_000.0]
    client = make_client(clock=lambda: now[0])
    host, mia = Device(client), Device(client)
    code = open_table(host, people=3, players=3)["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    with host.socket(f"/api/tables/{code}/live") as ann_ws:
        joined(ann_ws)
        ann_ws.send_json({"type": "give", "seat": 2})  # nobody took it: at once
        assert until(ann_ws, "given") == {"type": "given", "seat": 2, "name": "Computer 2"}
        with mia.socket(f"/api/tables/{code}/live") as mia_ws:
            joined(mia_ws)
            mia_ws.send_json({"type": "give", "seat": 1})
            assert "Only the table's host" in until(mia_ws, "error")["message"]
            ann_ws.send_json({"type": "give", "seat": 1})
            assert "is at the table" in until(ann_ws, "error")["message"]
        until(ann_ws, "away")
        now[0] += 60
        ann_ws.send_json({"type": "give", "seat": 1})
        assert "in 61 s" in until(ann_ws, "error")["message"]
        ann_ws.send_json({"type": "flip"})  # Mia is away: the table waits for her
        assert until(ann_ws, "flipped")["waiting"] == [1]
        now[0] += 61
        ann_ws.send_json({"type": "give", "seat": 1})
        assert until(ann_ws, "given")["seat"] == 1
        assert until(ann_ws, "played")["round"]["battles"] == 1  # no one left to wait for
        # Mia's page, back: her seat went to the computer, and is hers to take back.
        back = mia.get(f"/api/tables/{code}").json()["you"]
        assert back == {"seat": None, "host": False, "given": 1}
        [held] = mia.get("/api/me").json()["tables"]  # her page offers the table still
        assert (held["code"], held["given"], held["names"][1]) == (code, 1, "Computer 1")
        assert host.get(f"/api/tables/{code}").json()["you"]["given"] is None
        mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "ignored"})
        assert until(ann_ws, "reclaimed") == {"type": "reclaimed", "seat": 1, "name": "Mia"}
        assert mia.get(f"/api/tables/{code}").json()["you"] == {
            "seat": 1, "host": False, "given": None,
        }  # fmt: skip


def test_the_host_deals_new_rules_for_everyone_and_anyone_asks_for_another_round(
    client: TestClient,
) -> None:
    """House rules at a live table are the host's: they deal the table's next round for every
    device (at once, with `abandon`), for as many players as it has seats; a guest asks for
    another round once one ends, once, and the host's own ask deals it."""
    anyone = Device(client)
    with ann_and_mia(client) as (code, ann_ws, mia_ws):
        for choice, problem in [
            ({"rules": {"war_down": 3}}, "still being played"),
            ({"rules": {"players": 3}, "abandon": True}, "this table has 2 seats"),
            ({"rules": {"war_down": 99}, "abandon": True}, "rules: "),
            ({"preset": "nonsense", "abandon": True}, "rules: "),
        ]:
            ann_ws.send_json({"type": "next", **choice})
            assert problem in until(ann_ws, "error")["message"]
        mia_ws.send_json({"type": "next", "rules": {"war_down": 3}, "abandon": True})
        assert "Only the table's host" in until(mia_ws, "error")["message"]
        ann_ws.send_json({"type": "play", "count": 3, "speed": "slow", "tag": 7})
        three = until(mia_ws, "played")
        assert (three["played"], three["speed"], three["round"]["battles"]) == (3, "slow", 3)
        assert three["tag"] == 7  # told back to every device: the host's page knows its own
        ann_ws.send_json({"type": "next", "rules": {"war_down": 3}, "best_of": 3, "abandon": True})
        for ws in (ann_ws, mia_ws):  # the table's round, dealt on every device
            dealt = until(ws, "table")
            assert dealt["event"] == "dealt" and dealt["round"]["battles"] == 0
            assert dealt["rules"]["war_down"] == 3 and dealt["best_of"] == 3
            assert dealt["match"]["best_of"] == 3 and len(dealt["match"]["rounds"]) == 1
        mia_ws.send_json({"type": "again"})
        assert "ask again once it is over" in until(mia_ws, "error")["message"]
        ann_ws.send_json({"type": "play", "to_end": True, "speed": "instant"})
        assert until(mia_ws, "played")["round"]["outcome"] is not None
        mia_ws.send_json({"type": "again"})
        assert until(ann_ws, "asked") == {"type": "asked", "seat": 1, "name": "Mia"}
        mia_ws.send_json({"type": "again"})  # once a round: the host is not told again
        mia_ws.send_json({"type": "ping"})
        assert until(mia_ws, "pong") == {"type": "pong"}
        assert anyone.get(f"/api/tables/{code}").json()["table"]["asked"] == [1]
        ann_ws.send_json({"type": "again"})  # the host's own deals it
        told = [heard(ann_ws)]
        while told[-1]["type"] != "table":
            told.append(heard(ann_ws))
        assert [message["type"] for message in told] == ["table"]  # no second `asked`
        dealt = until(mia_ws, "table")
        assert (
            dealt["event"] == "dealt" and dealt["asked"] == [] and dealt["rules"]["war_down"] == 3
        )
        assert len(dealt["match"]["rounds"]) == 2  # the match's next round
        for count in (0, 501):
            ann_ws.send_json({"type": "play", "count": count})
            assert "count" in until(ann_ws, "error")["message"]


def test_a_person_who_leaves_frees_the_seat_and_no_tab_of_theirs_flips_for_it(
    client: TestClient,
) -> None:
    host, mia, sam = Device(client), Device(client), Device(client)
    code = open_table(host)["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    tables = mia.get("/api/me").json()["tables"]
    assert tables == [{"code": code, "host": False, "names": ["Ann", "Mia"], "given": None}]
    assert host.get("/api/me").json()["tables"][0]["host"] is True
    with (
        host.socket(f"/api/tables/{code}/live") as ann_ws,
        mia.socket(f"/api/tables/{code}/live") as other_tab,
    ):
        joined(ann_ws)
        joined(other_tab)
        with mia.socket(f"/api/tables/{code}/live") as mia_ws:
            joined(mia_ws)
            ann_ws.send_json({"type": "leave"})
            assert "The host closes the table" in until(ann_ws, "error")["message"]
            mia_ws.send_json({"type": "leave"})
            assert until(ann_ws, "left") == {"type": "left", "seat": 1, "name": "Mia"}
            with pytest.raises(WebSocketDisconnect) as closed:
                until(mia_ws, "never")
            assert closed.value.code == 1000
        other_tab.send_json({"type": "flip"})  # her other tab holds the seat no more
        assert "You left this seat" in until(other_tab, "error")["message"]
        assert mia.get("/api/me").json()["tables"] == []
        # The seat is free: anyone may take it (by a name of their own), or the host give it.
        taken = sam.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "ann"})
        assert taken.status_code == 409
        assert taken.json()["detail"] == "name: Ann sits at this table already; choose another name"
        assert sam.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Sam"}).status_code == 200
        assert until(ann_ws, "seated") == {"type": "seated", "seat": 1, "name": "Sam"}


def test_the_real_server_serves_the_sockets_and_refuses_a_big_message_as_it_comes(
    live_server: LiveServer,
) -> None:
    """`cardwar serve` itself (uvicorn, with its WebSocket protocol) opens a person's socket
    and says welcome; a message over 4 KB is refused by the protocol as it arrives (1009)."""
    import httpx
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    with httpx.Client(base_url=live_server.url) as http:
        seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": ""}]
        opened = http.post("/api/tables", json={"seats": seats})
        assert opened.status_code == 201, opened.text
        code = opened.json()["invite"]["code"]
        cookie = f"{COOKIE}={http.cookies[COOKIE]}"
    url = live_server.url.replace("http://", "ws://") + f"/api/tables/{code}/live"
    with connect(
        url, origin=live_server.url, additional_headers={"Cookie": cookie}, open_timeout=HANG_S
    ) as ws:
        welcome = json.loads(ws.recv(timeout=HANG_S))
        assert welcome == {"type": "welcome", "you": {"seat": 0, "host": True}}
        assert json.loads(ws.recv(timeout=HANG_S))["type"] == "table"
        ws.send(json.dumps({"type": "ping", "pad": "x" * 5000}))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=HANG_S)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_a_listener_too_far_behind_is_dropped_and_told_so_next() -> None:
    """The hub keeps 256 messages for a listener; one more drops it: what it had not read goes,
    and its next message says it was dropped (None), so its socket closes and its page rejoins.
    A listener that keeps up hears every message, in order."""
    import asyncio

    from cardwar.web.live.hub import QUEUE, InProcessHub

    async def run() -> tuple[list[Any], Any, bool]:
        hub = InProcessHub()
        async with hub.subscribe("t") as slow, hub.subscribe("t") as quick:
            heard_quick = []
            for number in range(QUEUE + 1):
                await hub.publish("t", {"n": number})
                heard_quick.append(await quick.next())
            return heard_quick, await slow.next(), slow.dropped

    heard_quick, slow_next, dropped = asyncio.run(run())
    assert heard_quick == [{"n": n} for n in range(QUEUE + 1)]
    assert slow_next is None and dropped
