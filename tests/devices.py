"""Devices at a live table through the real app (docs/api.md#live-tables): each a browser with a
cookie of its own on one TestClient, its sockets through `websocket_connect`. Every wait for a
message is bounded (`heard`), so a message that never comes fails the test instead of hanging it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from helpers import ClientFactory
from live import HANG_S

ORIGIN = "http://testserver"
COOKIE = "cardwar_player"


class Device:
    """One browser: its own cookie, sent by hand, the client's jar kept empty between them."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        client.cookies.clear()
        self.cookie = client.get("/api/me").cookies[COOKIE]
        client.cookies.clear()

    def headers(self, origin: str = ORIGIN) -> dict[str, str]:
        return {"cookie": f"{COOKIE}={self.cookie}", "origin": origin}

    def post(self, path: str, body: dict[str, Any]) -> Any:
        answer = self.client.post(path, json=body, headers=self.headers())
        self.client.cookies.clear()
        return answer

    def get(self, path: str) -> Any:
        answer = self.client.get(path, headers=self.headers())
        self.client.cookies.clear()
        return answer

    def socket(self, path: str, origin: str = ORIGIN) -> Any:
        return self.client.websocket_connect(path, headers=self.headers(origin))


def heard(ws: WebSocketTestSession, seconds: float = HANG_S) -> dict[str, Any]:
    """The next message the socket is sent, waiting at most `seconds`; a close is raised as
    WebSocketDisconnect (as `receive_json` does)."""

    async def next_message() -> Any:
        with anyio.fail_after(seconds):
            return await ws._send_rx.receive()  # receive_json's own wait, bounded

    message = ws.portal.call(next_message)
    if message["type"] == "websocket.close":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason", ""))
    found: dict[str, Any] = json.loads(message["text"])
    return found


def until(ws: WebSocketTestSession, kind: str) -> dict[str, Any]:
    """Messages until one of type `kind`, which is returned (at most 20 others on the way)."""
    for _ in range(20):
        message = heard(ws)
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind} message in 20")


def joined(ws: WebSocketTestSession) -> dict[str, Any]:
    """The first two messages of a socket: welcome (who you are), then the whole table."""
    welcome = heard(ws)
    assert welcome["type"] == "welcome", welcome
    table = heard(ws)
    assert table["type"] == "table", table
    return {"you": welcome["you"], **table}


def open_table(host: Device, people: int = 2, players: int = 2, **body: Any) -> dict[str, Any]:
    seats = [{"kind": "person", "name": "Ann"}]
    seats += [{"kind": "person", "name": ""} for _ in range(people - 1)]
    seats += [{"kind": "computer", "name": ""} for _ in range(players - people)]
    answer = host.post("/api/tables", {"rules": {"players": players}, "seats": seats, **body})
    assert answer.status_code == 201, answer.text
    found: dict[str, Any] = answer.json()
    return found


@contextmanager
def ann_and_mia(
    client: TestClient, **body: Any
) -> Iterator[tuple[str, WebSocketTestSession, WebSocketTestSession]]:
    """Ann's table (`body`: more of its opening body) with Mia at seat 1, both of their sockets
    open and joined: the table's code and the two sockets."""
    host, mia = Device(client), Device(client)
    code = open_table(host, **body)["invite"]["code"]
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    with (
        host.socket(f"/api/tables/{code}/live") as ann_ws,
        mia.socket(f"/api/tables/{code}/live") as mia_ws,
    ):
        joined(ann_ws)
        joined(mia_ws)
        yield code, ann_ws, mia_ws


def live_of(client: TestClient) -> Any:
    """The app's live tables (behind its guard)."""
    return client.app.app.state.live  # type: ignore[attr-defined]


def one_or_the_other(request: pytest.FixtureRequest, make_client: ClientFactory) -> ClientFactory:
    """`make_client` itself for the param "one process"; for "with a broker", one whose servers
    keep presence and messages in the real Redis (a key prefix a test)."""
    if request.param == "one process":
        return make_client
    url = request.getfixturevalue("broker")

    def with_broker(*args: Any, **settings: Any) -> TestClient:
        return make_client(*args, broker=url, **settings)

    return with_broker  # type: ignore[return-value]


@pytest.fixture(params=["one process", "with a broker"])
def served(request: pytest.FixtureRequest, make_client: ClientFactory) -> ClientFactory:
    """A client factory whose servers are of one process (presence in memory), then, in a second
    run of the test, with a broker (presence and messages through the real Redis)."""
    return one_or_the_other(request, make_client)
