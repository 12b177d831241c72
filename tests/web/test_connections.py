"""What a connection may cost the server (docs/deploy.md#connections): uvicorn's HTTP protocol as
`cardwar serve` bounds it, here in this process over a do-nothing app with bounds small enough to
reach; and the sizing of its caps from the open files a process may have."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from cardwar.web import Settings
from cardwar.web.connections import BoundedHttp, Bounds, Sized

from helpers import in_a_fresh_process
from live import HANG_S

HEAD_BYTES = 1024
REQUEST_S = 0.5


async def hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A do-nothing app: reads the body, answers `ok`."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    headers = [(b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def bounded(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """The address of uvicorn serving `hello` through BoundedHttp with small bounds (three
    connections at most). Its socket listens before the server starts, so that a connection
    made at once waits in the backlog rather than being refused: nothing waits for the start."""
    monkeypatch.setattr(BoundedHttp, "bounds", Bounds(HEAD_BYTES, REQUEST_S, 3))
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    config = uvicorn.Config(hello, http=BoundedHttp, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]})
    thread.start()
    try:
        yield listening.getsockname()
    finally:
        server.should_exit = True
        thread.join(HANG_S)
        listening.close()


def connect(address: tuple[str, int]) -> socket.socket:
    """A connection to `address`, whose reads give up (fail) only after HANG_S."""
    connection = socket.create_connection(address, timeout=HANG_S)
    return connection


def answer_to(connection: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received


def answered(connection: socket.socket) -> bool:
    """True once the server's answer `ok` has come whole, the connection kept."""
    received = b""
    while not received.endswith(b"ok"):
        chunk = connection.recv(65536)
        if not chunk:
            return False
        received += chunk
    return True


def request(head_bytes: int, body: bytes = b"") -> bytes:
    """A POST whose head (line, headers and the empty line) is exactly `head_bytes` long."""
    start = b"POST / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n"
    start += b"content-length: %d\r\nx-pad: " % len(body)
    pad = head_bytes - len(start) - len(b"\r\n\r\n")
    return start + b"a" * pad + b"\r\n\r\n" + body


def test_a_head_at_its_cap_is_served_and_one_byte_more_is_refused(
    bounded: tuple[str, int],
) -> None:
    """A head of exactly `max_head` bytes is answered, even sent a byte at a time or with a body
    in the same write; one byte more is answered 431 (the client reads it: what it still sends
    is read and let go, not answered with a reset)."""
    for sent in (request(HEAD_BYTES, b"x" * 5000), request(HEAD_BYTES)):
        with connect(bounded) as connection:
            connection.sendall(sent)
            assert answer_to(connection).endswith(b"ok")
    with connect(bounded) as connection:
        for byte in request(HEAD_BYTES, b"{}"):  # the head's end split between two reads
            connection.sendall(bytes([byte]))
        assert answer_to(connection).endswith(b"ok")
    with connect(bounded) as connection:
        connection.sendall(request(HEAD_BYTES + 1) + b"y" * 200_000)
        assert answer_to(connection).startswith(b"HTTP/1.1 431 ")


def test_a_connection_that_sends_nothing_is_closed_in_time(bounded: tuple[str, int]) -> None:
    """A connection that never sends a byte is closed once `request_s` has passed, not before."""
    with connect(bounded) as connection:
        opened = time.monotonic()
        assert answer_to(connection) == b""  # closed: nothing sent, no answer
        assert time.monotonic() - opened >= REQUEST_S * 0.9


def test_a_head_sent_a_byte_at_a_time_is_closed_in_time(bounded: tuple[str, int]) -> None:
    """Slowloris: a client answered once, whose next head trickles in a byte at a time and
    never ends, is closed `request_s` after its answer, each byte notwithstanding."""
    with connect(bounded) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        assert answered(connection)
        since = time.monotonic()
        closed = threading.Event()

        def trickle() -> None:
            try:
                while not closed.is_set():
                    connection.sendall(b"a")
                    closed.wait(REQUEST_S / 20)  # the client's pace, not a wait of the test
            except OSError:
                pass  # closed under it

        sender = threading.Thread(target=trickle)
        connection.sendall(b"GET / HTTP/1.1\r\nx-slow: ")
        sender.start()
        try:
            assert answer_to(connection) == b""
        finally:
            closed.set()
            sender.join(HANG_S)
        assert time.monotonic() - since >= REQUEST_S * 0.9


def test_past_its_connections_a_new_one_is_told_503_and_the_log_says_so(
    bounded: tuple[str, int], caplog: pytest.LogCaptureFixture
) -> None:
    """With the three connections it takes open, a fourth is answered 503 and closed at once,
    and the log says why; once one closes, a new one is served."""
    caplog.set_level(logging.WARNING, "cardwar")
    BoundedHttp.full.said_at = -HANG_S  # a line said by an earlier test does not hide this one
    held = [connect(bounded) for _ in range(3)]
    for connection in held:  # each answered, and kept open (keep-alive)
        connection.sendall(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        assert answered(connection)
    with connect(bounded) as fourth:
        refused = answer_to(fourth)
    assert refused.startswith(b"HTTP/1.1 503 ") and b"retry-after: 60" in refused
    assert "connections: all 3 this process takes are open" in caplog.text
    held.pop().close()
    with connect(bounded) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        assert answer_to(connection).endswith(b"ok")
    for connection in held:
        connection.close()


def test_the_caps_are_sized_from_the_open_files() -> None:
    """Under a limit of 1024 open files a process keeps 128, takes 896 connections, and lets
    live sockets have three quarters of them; with files to spare, the settings' own numbers;
    sized again, the same; too few files to serve, said so."""
    settings = Settings()
    assert Sized.of(settings, 1024) == Sized(1024, 896, 672)
    assert Sized.of(settings, 20_000) == Sized(20_000, 2000, 1000)
    assert Sized.of(settings, None) == Sized(None, 2000, 1000)
    again = Settings(live_sockets=672)
    assert Sized.of(again, 1024) == Sized(1024, 896, 672)
    with pytest.raises(ValueError, match="it needs 16 at least"):
        Sized.of(settings, 140)


def test_the_soft_limit_of_open_files_is_raised_to_the_hard_one() -> None:
    """A process whose soft limit is 1024 under a higher hard one has its soft limit raised to
    the hard one; under a hard limit of 1024, it stays 1024."""
    script = (
        "import resource\n"
        "from cardwar.web.connections import open_files\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))\n"
        "raised = open_files()\n"
        "print(raised == (1024, hard), resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (512, 1024))\n"
        "print(open_files(), resource.getrlimit(resource.RLIMIT_NOFILE))\n"
    )
    assert in_a_fresh_process(script).splitlines() == ["True True", "(512, 1024) (1024, 1024)"]
