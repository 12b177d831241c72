"""A server told SIGTERM drains before it stops (docs/deploy.md, stopping without cutting a
table): its live sockets are told to come back (1012), a connection that opens meanwhile is
answered 503 with Retry-After, a live socket asked for too, `/healthz` says so on a connection
already open, a request on one is answered as ever, and then it stops. `--workers 2`'s
supervisor told SIGTERM drains its processes alike."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import httpx2 as httpx
import pytest
from test_live_processes import Person, children, open_table, serve
from websockets.exceptions import ConnectionClosed

from live import HANG_S, LiveServer

DRAIN_S = 30
"""Long enough that every check below is made while the server drains, however busy the
machine: the test ends it sooner, with a second SIGTERM, as the drain allows."""
DRAINING = "draining for"
"""What the server's log says as its drain begins (`cardwar/web/site/draining.py`)."""


def opened(server: LiveServer) -> socket.socket:
    """A connection to the server, made now."""
    return socket.create_connection((server.host, server.port), timeout=HANG_S)


def answer_to(server: LiveServer, request: bytes) -> bytes:
    """Send `request` on a new connection, and read what comes back until it is closed."""
    got = b""
    with opened(server) as connection:
        connection.sendall(request)
        while chunk := connection.recv(65536):
            got += chunk
    return got


def check_draining(server: LiveServer, person: Person, code: str, kept: httpx.Client) -> None:
    """What a draining server answers: its sockets told 1012, the new 503, the old served."""
    with pytest.raises(ConnectionClosed) as closed:
        person.until("never")
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    # A new connection: 503 with Retry-After, whatever it asks, and closed.
    said = answer_to(server, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert said.startswith(b"HTTP/1.1 503 "), said
    assert b"retry-after: 1\r\n" in said.lower() and b"restarting" in said
    # A live socket asked for: refused with 503 (behind nginx, the next process is asked).
    upgrade = (
        f"GET /api/tables/{code}/live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Sec-WebSocket-Version: 13\r\nOrigin: {server.url}\r\n\r\n"
    )
    said = answer_to(server, upgrade.encode())
    assert said.startswith(b"HTTP/1.1 503 "), said
    # A connection opened before the drain: answered as ever; /healthz says it drains.
    health = kept.get("/healthz")
    assert health.status_code == 503 and health.json()["draining"] is True
    assert health.headers["retry-after"]
    assert kept.get("/api/rules").status_code == 200


def test_sigterm_drains_one_process_then_stops(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "cardwar.db", args=["--drain", str(DRAIN_S)]).start()
    try:
        ann = Person(server)
        code = open_table(ann)
        ann.join(code)
        with server.client() as kept:
            assert kept.get("/healthz").json()["draining"] is False
            assert server.process is not None and server.output is not None
            server.process.send_signal(signal.SIGTERM)
            assert server.output.wait_for(DRAINING), server.output.text
            check_draining(server, ann, code, kept)
        assert server.process.poll() is None  # still draining: a second SIGTERM ends it
        server.process.send_signal(signal.SIGTERM)
        server.wait()
        with pytest.raises(OSError), opened(server):
            pass  # stopped: nothing listens
    finally:
        server.kill()


def test_the_supervisor_of_two_processes_drains_both_at_its_stop(
    broker: str, tmp_path: Path
) -> None:
    server = serve(
        tmp_path / "cardwar.db", broker, tmp_path, "workers", "--workers", "2",
        "--drain", str(DRAIN_S),
    )  # fmt: skip
    try:
        ann = Person(server)
        code = open_table(ann)
        ann.join(code)
        with server.client() as kept:
            assert server.process is not None and server.output is not None
            processes = children(server.process.pid)
            assert len(processes) == 2
            assert kept.get("/healthz").json()["draining"] is False  # its connection open
            os.kill(server.process.pid, signal.SIGTERM)
            assert server.output.wait_for(DRAINING, times=2), server.output.text  # each
            check_draining(server, ann, code, kept)
        for pid in processes:  # a second stop, as the drain allows: each process at once
            os.kill(pid, signal.SIGTERM)
        server.wait()  # and the supervisor with them
    finally:
        server.kill()
