"""What a connection may cost the server (docs/deploy.md#connections): uvicorn's HTTP protocol as
`cardwar serve` bounds it, here in this process over a do-nothing app with bounds small enough to
reach; and the sizing of its caps from the open files a process may have."""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import select
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from websockets.asyncio.client import connect as websockets_connect

from cardwar.web import Settings
from cardwar.web.connections import MOST_OPEN_FILES, BoundedHttp, Bounds, Sized

from helpers import in_a_fresh_process
from live import HANG_S, LiveServer

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
    connections at most, heads of 1 KB; a request's time is HANG_S unless a test makes it
    `short`). Its socket listens before the server starts, so that a connection
    made at once waits in the backlog rather than being refused: nothing waits for the start."""
    monkeypatch.setattr(BoundedHttp, "bounds", Bounds(HEAD_BYTES, HANG_S, 3))
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


def short(monkeypatch: pytest.MonkeyPatch) -> None:
    """Connections opened from now on have REQUEST_S to send a request whole."""
    monkeypatch.setattr(BoundedHttp, "bounds", Bounds(HEAD_BYTES, REQUEST_S, 3))


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


def test_a_connection_that_sends_nothing_is_closed_in_time(
    bounded: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection that never sends a byte is closed once `request_s` has passed, not before."""
    short(monkeypatch)
    with connect(bounded) as connection:
        opened = time.monotonic()
        assert answer_to(connection) == b""  # closed: nothing sent, no answer
        assert time.monotonic() - opened >= REQUEST_S * 0.9


def test_a_head_sent_a_byte_at_a_time_is_closed_in_time(
    bounded: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slowloris: a client answered once, whose next head trickles in a byte at a time and
    never ends, is closed `request_s` after its answer, each byte notwithstanding."""
    short(monkeypatch)
    with connect(bounded) as connection:
        since = time.monotonic()  # before the answer, and so before its time starts
        connection.sendall(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
        assert answered(connection)
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


def test_a_body_that_never_comes_whole_is_closed_in_time(
    bounded: tuple[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request whose head is in but whose body stops short of its length holds its connection
    no longer than a late head would: closed once `request_s` has passed, without an answer."""
    short(monkeypatch)
    with connect(bounded) as connection:
        opened = time.monotonic()
        connection.sendall(b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n12345")
        assert answer_to(connection) == b""
        assert time.monotonic() - opened >= REQUEST_S * 0.9


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
    assert Sized.of(settings, 20_000) == Sized(20_000, 11_000, 10_000)
    assert Sized.of(settings, None) == Sized(None, 11_000, 10_000)
    again = Settings(live_sockets=672)
    assert Sized.of(again, 1024) == Sized(1024, 896, 672)
    with pytest.raises(ValueError, match="it needs 16 at least"):
        Sized.of(settings, 140)


def test_the_soft_limit_of_open_files_is_raised_to_the_hard_one() -> None:
    """A process whose soft limit is 1024 under a higher hard one has its soft limit raised to
    the hard one as `cardwar serve` starts, and says so with the caps it sized from it; under
    a hard limit of 1024, it stays 1024."""
    script = (
        "import resource\n"
        "from cardwar.cli.serve import sized_line, sized_settings\n"
        "from cardwar.web.connections import MOST_OPEN_FILES, open_files\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))\n"
        "settings, sized = sized_settings({})\n"
        "most = MOST_OPEN_FILES if hard == resource.RLIM_INFINITY else hard\n"
        "print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] == most, settings.live_sockets)\n"
        "print(sized_line(sized).replace(str(most), 'HARD'))\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (512, 1024))\n"
        "print(open_files(), resource.getrlimit(resource.RLIMIT_NOFILE))\n"
    )
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    sized = Sized.of(Settings(), MOST_OPEN_FILES if hard == resource.RLIM_INFINITY else hard)
    assert in_a_fresh_process(script).splitlines() == [
        f"True {sized.live_sockets}",
        f"cardwar: up to {sized.connections} connections at once, {sized.live_sockets} of them "
        "live tables' sockets (open files: HARD, raised from 1024)",
        "(512, 1024) (1024, 1024)",
    ]


# -- a real `cardwar serve` under a limit of 1024 open files -------------------------------------

OPEN_FILES = (1024, 1024)  # soft, hard: the common limit, which the server cannot raise
CONNECTIONS, LIVE_SOCKETS = 896, 672  # what it sizes from them (test_the_caps_are_sized_...)
ADDRESSES = [f"127.0.0.{n}" for n in range(2, 6)]  # loopback addresses of its clients


@pytest.fixture(scope="module")
def tight_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One `cardwar serve` started under a limit of 1024 open files, for the tests below, its
    log naming the addresses it refuses (as the operator may ask)."""
    folder = tmp_path_factory.mktemp("tight")
    server = LiveServer(folder / "live.db", open_files=OPEN_FILES, args=["--log-addresses"]).start()
    try:
        yield server
    finally:
        server.stop()


def resident_bytes(pid: int) -> int:
    """The memory a process holds now (its resident set, /proc's VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def send_a_huge_head(address: tuple[str, int]) -> bytes:
    """A request whose one header goes on for 100 MB, sent until the server answers (or will
    take no more); what it answered."""
    chunk = b"a" * 65536
    with socket.create_connection(address, timeout=HANG_S) as connection:
        connection.sendall(b"GET /api/rules HTTP/1.1\r\nhost: 127.0.0.1\r\nx-huge: ")
        try:
            for _ in range(100 * 2**20 // len(chunk)):
                if select.select([connection], [], [], 0)[0]:
                    break  # answered
                connection.sendall(chunk)
        except OSError:
            pass  # closed under it: the answer is read below
        return answer_to(connection)


def test_a_100_mb_head_is_refused_at_its_cap_and_costs_the_server_no_memory(
    tight_server: LiveServer,
) -> None:
    """Four clients each sending a 100 MB header at once are each answered 431 once the head
    passes 32 KB, and the server holds no more memory than before, give or take 10 MB."""
    assert tight_server.process is not None
    pid = tight_server.process.pid
    with tight_server.client() as http:  # the simulator loaded (in the background) first
        while not http.get("/api/simulator").json()["ready"]:
            time.sleep(0.05)  # the preparation tells nobody: asked again, as the page does
    before = resident_bytes(pid)
    address = ("127.0.0.1", tight_server.port)
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(send_a_huge_head, [address] * 4))
    assert all(answer.startswith(b"HTTP/1.1 431 ") for answer in answers), answers
    assert abs(resident_bytes(pid) - before) < 10 * 2**20
    with tight_server.client() as http:
        assert http.get("/api/rules").status_code == 200


async def live_sockets(
    server: LiveServer, code: str, count: int, addresses: list[str]
) -> list[tuple[Any, int | None]]:
    """`count` sockets of table `code`, spread evenly over `addresses`, opened at once (a few
    dozen at a time): each with the close code it was refused with, or None while it is open
    (it was welcomed)."""
    gate = asyncio.Semaphore(32)
    url = f"ws://127.0.0.1:{server.port}/api/tables/{code}/live"

    async def one(n: int) -> tuple[Any, int | None]:
        async with gate:
            socket_ = await websockets_connect(
                url,
                origin=server.url,  # type: ignore[arg-type]
                local_addr=(addresses[n % len(addresses)], 0),
                open_timeout=HANG_S,
                ping_interval=None,
            )
            first = json.loads(await asyncio.wait_for(socket_.recv(), HANG_S))
            if first["type"] == "welcome":
                return socket_, None
            await asyncio.wait_for(socket_.wait_closed(), HANG_S)
            return socket_, socket_.close_code

    return list(await asyncio.gather(*(one(n) for n in range(count))))


def test_under_1024_open_files_the_server_refuses_what_it_cannot_take_and_says_so(
    tight_server: LiveServer,
) -> None:
    """Under a limit of 1024 open files (which it cannot raise) the server says it takes 896
    connections, 672 of them live sockets. Live sockets past 672 are told so and closed with
    1013, and the log says so, while HTTP is answered (a newcomer's address is still let in,
    one of the four addresses giving way); connections past 896 are answered 503 and logged;
    once they close, it answers again: it never stops silently."""
    assert tight_server.output is not None
    assert tight_server.output.wait_for(
        f"up to {CONNECTIONS} connections at once, {LIVE_SOCKETS} of them live tables' sockets "
        "(open files: 1024)"
    )
    with tight_server.client() as http:
        seats = [{"kind": "person", "name": "Ann"}, {"kind": "computer", "name": ""}]
        code = http.post("/api/tables", json={"seats": seats}).json()["invite"]["code"]

    async def fill() -> None:
        opened = await live_sockets(tight_server, code, LIVE_SOCKETS, ADDRESSES)
        try:
            assert [closed for _, closed in opened] == [None] * LIVE_SOCKETS
            more = await live_sockets(tight_server, code, 2 * len(ADDRESSES), ADDRESSES)
            assert [closed for _, closed in more] == [1013] * len(more)
            assert tight_server.output is not None
            assert tight_server.output.wait_for(
                f"live sockets: all {LIVE_SOCKETS} this process takes are open"
            )
            newcomer = await live_sockets(tight_server, code, 1, ["127.0.0.9"])
            opened += newcomer
            assert newcomer[0][1] is None  # let in: an address of the four gives way
            closing = [asyncio.create_task(socket_.wait_closed()) for socket_, _ in opened]
            gave_way, _ = await asyncio.wait(
                closing, timeout=HANG_S, return_when=asyncio.FIRST_COMPLETED
            )
            for waiting in closing:
                waiting.cancel()
            assert [opened[closing.index(one)][0].close_code for one in gave_way] == [1013]
            assert tight_server.output.wait_for(
                f"closed the newest of the {LIVE_SOCKETS // len(ADDRESSES)} of 127.0.0."
            )
            async with httpx.AsyncClient(base_url=tight_server.url, timeout=HANG_S) as http:
                assert (await http.get("/api/rules")).status_code == 200
            await connections_to_the_cap(tight_server)
        finally:
            await asyncio.gather(*(socket_.close() for socket_, _ in opened))

    asyncio.run(fill())
    with tight_server.client() as http:
        assert http.get("/api/rules").status_code == 200
    assert "too many open files" not in tight_server.output.text.lower()  # it never ran out


async def connections_to_the_cap(server: LiveServer) -> None:
    """More silent connections at once than the server has room for beside its live sockets:
    those past its cap are answered 503 as they open (the others are kept, silent, until the
    test closes them, well within `request_s`), and the log says so."""
    opened = [
        await asyncio.open_connection("127.0.0.1", server.port)
        for _ in range(CONNECTIONS - LIVE_SOCKETS + 64)
    ]
    try:
        reads = [asyncio.create_task(reader.read(100)) for reader, _ in opened]
        done, _ = await asyncio.wait(reads, timeout=HANG_S, return_when=asyncio.FIRST_COMPLETED)
        assert done and all(read.result().startswith(b"HTTP/1.1 503 ") for read in done)
        assert server.output is not None
        assert server.output.wait_for(f"connections: all {CONNECTIONS} this process takes")
    finally:
        for read in reads:
            read.cancel()
        for _, writer in opened:
            writer.close()


def test_the_docs_tell_the_bounds_the_settings_hold() -> None:
    """docs/deploy.md#connections and docs/api.md give the settings' own figures: the head's
    cap and its 431, a request's time, the open files kept and the connections taken."""
    docs = Path(__file__).parent.parent.parent / "docs"
    deploy, api = (docs / "deploy.md").read_text(), (docs / "api.md").read_text()
    settings = Settings()
    section = deploy[deploy.index("## Connections") : deploy.index("## Several processes")]
    for figure in (
        f"{settings.max_head:,} bytes",
        f"{settings.request_s:g} s",
        f"keeps {settings.open_files_kept}",
        f"up to {settings.live_sockets + settings.http_connections:,}",
        "`431`",
        "`503` with `Retry-After: 60`",
    ):
        assert figure in section, figure
    assert f"| `431` | a request's line and headers over {settings.max_head:,} bytes" in api
    assert f"| connections a process | {settings.live_sockets + settings.http_connections:,}" in api
