"""What the HTTP and live-table benchmarks share: a server, clients, honest players and people
at live tables, a memory sampler, figures.

`benchmarks/api.py`, `benchmarks/load.py`, `benchmarks/hostile.py` and `benchmarks/tables.py`
each measure something of their own; everything they do alike is here, so that they start the
server, talk HTTP, keep cookies, play like the page, sample memory and take percentiles the
same way.

- `Server`: `cardwar serve` on a free loopback port over a fresh database, its log in a file.
- `Connection`: a minimal keep-alive HTTP/1.1 client on an asyncio Protocol that keeps the
  cookie the server sets and sends it back, like a browser, from a loopback address of its own
  if told (`loopback`: the server counts newcomers and writes by address); `run` drives it on
  uvloop when it is installed (which took the client's own p99 from about 3 ms to 1 ms against
  a do-nothing server), so that the client takes as little as possible of the cores it shares
  with the server. `Answer` is one answer, its headers looked up as asked.
- `Player`, `play`: browsers that click one battle about every so often, dealing again when a
  round ends, and ask their chance to win after each battle if told to, as the page does;
  `Tally` is what they met, `answered` and `check_stored` check that every answered battle is
  in the database.
- `Clicks`: the same players clicking again as soon as each click is answered, on one epoll
  loop without asyncio, for a client that takes as little of the cores as it can (67 µs a
  click against 91 through `play`); its `spread` moves their connections until each of a
  server's processes holds as many, and `serving` says which holds which.
- `LiveTables`: live tables of two people, each person a browser of their own on a WebSocket
  (the `websockets` package), who open and join tables and flip as the page does, every battle
  number each socket hears checked; `LiveTally` is what they met, `check_stored_tables` checks
  the database against what they were told. `LoopLag` times the client's own event loop.
- `Memory`: the peak memory of the server and all its descendants together, sampled every 20 ms
  by a process of its own (`python benchmarks/harness.py --memory-of PID`) from /proc, as a
  `Footprint`: the sum of their proportional sizes (PSS, each shared page split among the
  processes sharing it; the targets' figure) and of their whole resident sizes (RSS, which
  counts the pages the server and its worker share once for each); `cpu_seconds` the processor
  time they used, and `cpu_by_kind` and `cpu_spent` the machine's by client, servers,
  PostgreSQL and Redis.
- `ms`, `figures`, `live_figures`, `failure_lines`, `target`: how the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import functools
import gc
import json
import os
import random
import re
import secrets
import select
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Coroutine, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

T = TypeVar("T")
COOKIE = "cardwar_player"
TIMEOUT_S = 10.0  # a request unanswered this long counts as failed (and as this slow)
MB = 1024 * 1024


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run the client on uvloop when it is installed, else on asyncio's own loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


# -- the client ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _header_line(name: str) -> re.Pattern[bytes]:
    """A header's line in an answer's head, whatever the case of its name."""
    return re.compile(rb"\r\n" + re.escape(name.encode()) + rb"[ \t]*:[ \t]*([^\r\n]*)", re.I)


@dataclass(slots=True)
class Answer:
    """One HTTP answer: its status, its head (the status line and headers, as they came) and
    its whole body."""

    status: int
    head: bytes
    body: bytes

    def header(self, name: str, default: str = "") -> str:
        """The value of its first header named `name` (any case), or `default`. Looked up in
        the head as asked, not taken apart whole for every answer: the clients ask two or
        three of a dozen."""
        found = _header_line(name).search(self.head)
        return default if found is None else found[1].strip().decode("latin-1")

    def detail(self) -> str:
        """The error's `detail`, or the start of the body."""
        try:
            return str(json.loads(self.body)["detail"])
        except (ValueError, KeyError, TypeError):
            return self.body[:60].decode("utf-8", "replace")

    def retry_after(self) -> float:
        """The seconds its `Retry-After` header asks for (1 when it has none)."""
        try:
            return float(self.header("retry-after", "1"))
        except ValueError:
            return 1.0


class Closed(EOFError):
    """The server closed the connection before a byte of the answer came."""


class AnswerReader:
    """The bytes of a connection, taken in as they come, until one whole HTTP/1.1 answer is
    there (by length or chunked): each piece is looked at once, not the whole again."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self._reset()

    def _reset(self) -> None:
        self.status = 0
        self.head: bytes | None = None  # once it is in whole
        self.at = 0  # where the part not yet taken apart starts
        self.length: int | None = None  # the body's, unless chunked
        self.parts: list[bytes] = []
        self.trailers = False

    def feed(self, data: bytes) -> Answer | None:
        """Take in `data`; the answer once it is whole (the bytes after it are kept)."""
        self.buffer += data
        if self.head is None and not self._head():
            return None
        done = self._body() if self.length is None else len(self.buffer) >= self.at + self.length
        if not done:
            return None
        assert self.head is not None
        if self.length is None:
            body = b"".join(self.parts)
        else:
            body = bytes(self.buffer[self.at : self.at + self.length])
            self.at += self.length
        answer = Answer(self.status, self.head, body)
        del self.buffer[: self.at]
        self._reset()
        return answer

    def _head(self) -> bool:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buffer[:end])
        self.status, self.head, self.at = int(head.split(None, 2)[1]), head, end + 4
        framed = Answer(self.status, head, b"")
        if framed.header("transfer-encoding").lower() != "chunked":
            self.length = int(framed.header("content-length", "0"))
        return True

    def _body(self) -> bool:
        """Chunks, as far as they are in; True once the last (and its trailers) is."""
        while True:
            eol = self.buffer.find(b"\r\n", self.at)
            if eol < 0:
                return False
            if self.trailers:
                self.at, empty = eol + 2, eol == self.at
                if empty:
                    return True
                continue
            size = int(bytes(self.buffer[self.at : eol]).split(b";")[0], 16)
            if size == 0:
                self.at, self.trailers = eol + 2, True
                continue
            if len(self.buffer) < eol + 2 + size + 2:
                return False
            self.parts.append(bytes(self.buffer[eol + 2 : eol + 2 + size]))
            self.at = eol + 2 + size + 2


class _Answers(asyncio.Protocol):
    """A Connection's socket: hands each whole answer to the request waiting for it."""

    def __init__(self) -> None:
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport
        self.reader = AnswerReader()
        self.waiter: asyncio.Future[Answer] | None = None
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        answer = self.reader.feed(data)
        if answer is not None and self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(answer)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        if self.waiter is not None and not self.waiter.done():
            if self.reader.buffer:
                self.waiter.set_exception(EOFError("the server closed the connection mid-answer"))
            else:
                self.waiter.set_exception(Closed("the server closed the connection"))


class Connection:
    """One keep-alive HTTP/1.1 connection: sends a request, reads the whole answer (by length
    or chunked). Like a browser it keeps the cookie the server sets (unless `keep_cookie` is
    off) and sends it back, and it sends a request again on a new connection when the server
    had closed the idle one without reading it. After a request that failed half-way, the next
    one opens a new connection. It reads with an asyncio Protocol, not streams: a click cost
    the client about 100 µs instead of 120 to 140 in benchmarks/scale.py (the client's CPU is
    the server's machine's too)."""

    def __init__(
        self, port: int, cookie: str = "", *, keep_cookie: bool = True, local: str | None = None
    ) -> None:
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.cookie = cookie
        self.keep_cookie = keep_cookie
        # The loopback address it connects from (None: the system's choice, 127.0.0.1): the
        # server counts newcomers and writes by address (`loopback`).
        self.local_addr = None if local is None else (local, 0)
        self._socket: _Answers | None = None

    async def connect(self) -> None:
        """Open the connection now, rather than at the first request (so no request's time
        includes it)."""
        if self._socket is None or self._socket.lost:
            _, self._socket = await asyncio.get_running_loop().create_connection(
                _Answers, "127.0.0.1", self.port, local_addr=self.local_addr
            )

    def head(self, method: str, path: str, length: int | None, cookie: str | None = None) -> bytes:
        """A request's head; `length` None says chunked; `cookie` None sends the kept one."""
        cookie = self.cookie if cookie is None else cookie
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
        if length is None:
            head += "Transfer-Encoding: chunked\r\n"
        else:
            head += f"Content-Length: {length}\r\n"
        if method != "GET":
            head += "Content-Type: application/json\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        return (head + "\r\n").encode()

    async def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        cookie: str | None = None,
        timeout: float | None = TIMEOUT_S,
    ) -> Answer:
        """Send one request and read its answer; raises OSError, EOFError or TimeoutError. With
        `timeout` None it waits as long as it takes."""
        data = b"" if body is None else json.dumps(body).encode()
        request = self.head(method, path, len(data), cookie) + data
        try:
            while True:
                fresh = self._socket is None or self._socket.lost
                await self.connect()
                try:
                    answer = await self._exchange(request, timeout)
                    break
                except (Closed, ConnectionResetError, BrokenPipeError):
                    self.close()
                    if fresh:
                        raise EOFError("the server closed the connection") from None
                    # The server closed the idle connection before reading this request (its
                    # keep-alive timeout): a browser sends the request again on a new
                    # connection, and so do we.
        except BaseException:
            self.close()  # half a request or half an answer: this connection is done
            raise
        if self.took(answer):
            self.close()
        return answer

    def took(self, answer: Answer) -> bool:
        """Keep the cookie `answer` sets (unless `keep_cookie` is off); True if the server
        closes the connection after it."""
        cookie_set = answer.header("set-cookie")
        if self.keep_cookie and cookie_set.startswith(f"{COOKIE}="):
            self.cookie = cookie_set.split(";", 1)[0].strip()
        return answer.header("connection").lower() == "close"

    async def _exchange(self, request: bytes, timeout: float | None) -> Answer:
        # A timer of its own, not `asyncio.timeout` or `wait_for` (which on Python 3.11 wraps
        # every request in a task): the cheapest way to give up on a silent server.
        sock = self._socket
        assert sock is not None and sock.transport is not None
        loop = asyncio.get_running_loop()
        waiter = sock.waiter = loop.create_future()

        def give_up() -> None:
            if not waiter.done():
                waiter.set_exception(TimeoutError(f"no answer in {timeout:g} s"))

        sock.transport.write(request)
        timer = None if timeout is None else loop.call_later(timeout, give_up)
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            sock.waiter = None

    def close(self) -> None:
        if self._socket is not None and self._socket.transport is not None:
            self._socket.transport.close()
        self._socket = None


async def read_answer(reader: asyncio.StreamReader) -> Answer:
    """Read one HTTP/1.1 answer from a stream, taken apart as `AnswerReader` does (for a
    connection of one answer: any bytes after it are dropped)."""
    answers = AnswerReader()
    while data := await reader.read(65536):
        if (answer := answers.feed(data)) is not None:
            return answer
    raise EOFError("the server closed the connection" + (" mid-answer" if answers.buffer else ""))


def made_up_cookie() -> str:
    """A player id in the server's shape (token.signature) that the server never issued."""
    signature = base64.urlsafe_b64encode(secrets.token_bytes(12)).decode()
    return f"{COOKIE}={secrets.token_urlsafe(16)}.{signature}"


# -- honest players ------------------------------------------------------------------------------


@dataclass
class Tally:
    """What the players met in one measurement."""

    clicks: list[float] = field(default_factory=list)  # seconds, one per click
    chances: list[float] = field(default_factory=list)  # seconds, one per chance estimate
    failures: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    who: dict[str, set[int]] = field(default_factory=dict)  # the players who met each failure
    elapsed: float = 0.0

    def fail(self, kind: str, example: str, player: Player) -> None:
        self.failures[kind] += 1
        self.examples.setdefault(kind, example[:90])
        self.who.setdefault(kind, set()).add(id(player))

    def add(self, other: Tally) -> None:
        """Count what `other` met (a later stretch of the same players) as met here too."""
        self.clicks += other.clicks
        self.chances += other.chances
        self.failures.update(other.failures)
        for kind, example in other.examples.items():
            self.examples.setdefault(kind, example)
        for kind, players in other.who.items():
            self.who.setdefault(kind, set()).update(players)
        self.elapsed += other.elapsed


@dataclass
class Player:
    """One browser: its connection (with its cookie) and the round it plays."""

    conn: Connection
    round_id: str | None = None
    answered: dict[str, int] = field(default_factory=dict)  # round id -> last battle answered


async def deal(player: Player, until: float, tally: Tally) -> None:
    """Deal a new round; a refusal is a failure, tried again after its Retry-After."""
    while time.perf_counter() < until:
        try:
            answer = await player.conn.request("POST", "/api/rounds", {})
        except (OSError, EOFError, TimeoutError) as error:
            tally.fail(f"deal: {type(error).__name__}", str(error) or "no answer", player)
            await asyncio.sleep(0.1)
            continue
        if answer.status == 201:
            player.round_id = str(json.loads(answer.body)["id"])
            return
        tally.fail(f"deal: {answer.status}", answer.detail(), player)
        await asyncio.sleep(max(0.0, min(answer.retry_after(), until - time.perf_counter())))


async def ask_chance(player: Player, round_id: str, tally: Tally) -> None:
    """Ask the chance to win from here, as the page does after each battle it shows."""
    start = time.perf_counter()
    try:
        answer = await player.conn.request("GET", f"/api/rounds/{round_id}/chance")
    except (OSError, EOFError, TimeoutError) as error:
        tally.fail(f"chance: {type(error).__name__}", str(error) or "no answer", player)
        return
    tally.chances.append(time.perf_counter() - start)
    if answer.status != 200:
        tally.fail(f"chance: {answer.status}", answer.detail(), player)


def clicked(player: Player, answer: Answer, tally: Tally) -> bool:
    """Take in the answer to a click on the player's round: the last battle answered kept, the
    round let go once it is over (to deal again: a refused deal is the failure), any other
    refusal counted. True if the round goes on."""
    if answer.status == 200:
        content = json.loads(answer.body)
        if content["battles"]:
            player.answered[player.round_id or ""] = content["battles"][-1]["number"]
        if content["round"]["outcome"] is None:
            return True
        player.round_id = None
    elif answer.status == 409:
        player.round_id = None
    else:
        tally.fail(f"click: {answer.status}", answer.detail(), player)
    return False


async def click(
    player: Player, until: float, think: float, tally: Tally, chance: bool = False
) -> None:
    """Click one battle about every `think` seconds until `until`; deal when a round ends.
    With `chance`, each battle that leaves the round going is followed by its chance to win."""
    while time.perf_counter() < until:
        if player.round_id is None:
            await deal(player, until, tally)
            continue
        round_id = player.round_id
        start = time.perf_counter()
        spent = 0.0
        try:
            answer = await player.conn.request(
                "POST", f"/api/rounds/{round_id}/battles", {"count": 1}
            )
        except (OSError, EOFError, TimeoutError) as error:
            tally.clicks.append(time.perf_counter() - start)
            tally.fail(f"click: {type(error).__name__}", str(error) or "no answer", player)
        else:
            tally.clicks.append(time.perf_counter() - start)
            if clicked(player, answer, tally) and chance:
                # The page asks while its player looks: part of the pause.
                asked = time.perf_counter()
                await ask_chance(player, round_id, tally)
                spent = time.perf_counter() - asked
            if player.round_id is None:
                await deal(player, until, tally)
        if think:  # with none, the next click goes out at once (a sleep would be a loop turn)
            await asyncio.sleep(max(0.0, random.uniform(0.5, 1.5) * think - spent))


async def play(players: list[Player], seconds: float, think: float, chance: bool = False) -> Tally:
    """Every player clicks for `seconds`, each starting at its own moment (and asks the chance
    to win after each battle, if `chance`)."""
    tally = Tally()
    start = time.perf_counter()

    async def one(player: Player) -> None:
        await asyncio.sleep(random.uniform(0, think))
        await click(player, start + seconds, think, tally, chance)

    await asyncio.gather(*(one(player) for player in players))
    tally.elapsed = time.perf_counter() - start
    return tally


# -- players who click as fast as answered -------------------------------------------------------


class _Clicking:
    """One player of `Clicks`: its socket, the answer coming in, and its request in flight."""

    __slots__ = (
        "click", "deal", "dealing", "fresh", "player", "reader", "rest_until", "sent_at", "sock"
    )  # fmt: skip

    def __init__(self, player: Player) -> None:
        self.player = player
        self.sock: socket.socket | None = None
        self.reader = AnswerReader()
        self.sent_at = 0.0  # when its request in flight went out; 0 with none in flight
        self.dealing = False  # the request in flight deals a round (else it clicks)
        self.click = b""  # the click's whole request, made once a round
        self.deal = b""  # the deal's
        self.rest_until = 0.0  # after a refused deal or a failed one, when it tries again
        self.fresh = True  # its connection has had no answer yet


class Clicks:
    """Players who click one battle again as soon as the last is answered, dealing again as
    a round ends: the clicks of `play` with no pause, on one epoll loop of their own, without
    asyncio. The same requests, with the cookie each player got; a failure counted where
    `play` counts one (a request sent again, uncounted, on a new connection when the server
    had closed a kept one before reading it, as `Connection` does; a failed click tried again
    at once, a failed deal after 0.1 s, a refused one after its Retry-After); the battles
    answered kept in each `Player`. Each click is a send, a wake and a read, its request made
    once a round. Against servers that keep both cores busy, every microsecond of the client's
    is one the servers do not get: a click cost the client 67 µs here against 91 through
    `Connection` and `play` (benchmarks/README.md, scale.py at 2 processes).

    `spread` opens their connections (each from its player's loopback address) and spreads
    them over the server's processes; `run` clicks for a while and closes them."""

    SWEEP_S = 0.1  # how often requests are looked at for a timeout, and rests for their end

    def __init__(self, port: int, players: list[Player]) -> None:
        self.port = port
        self.clicking = [_Clicking(player) for player in players]
        self._poll = select.epoll()
        self._by_fd: dict[int, _Clicking] = {}

    def _connect(self, one: _Clicking) -> None:
        one.fresh = True
        sock = socket.socket()
        try:
            if one.player.conn.local_addr is not None:
                sock.bind(one.player.conn.local_addr)
            sock.connect(("127.0.0.1", self.port))
        except OSError:
            sock.close()
            raise
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as asyncio's transports
        sock.setblocking(False)
        one.sock, one.reader = sock, AnswerReader()
        self._by_fd[sock.fileno()] = one
        self._poll.register(sock.fileno(), select.EPOLLIN)

    def _close(self, one: _Clicking) -> None:
        if one.sock is not None:
            self._by_fd.pop(one.sock.fileno(), None)
            self._poll.unregister(one.sock.fileno())
            one.sock.close()
            one.sock = None

    def close(self) -> None:
        """Close every connection (`spread` opens them again)."""
        for one in self.clicking:
            self._close(one)

    def end(self) -> None:
        """Close every connection, and the loop's epoll: done with these players."""
        self.close()
        self._poll.close()

    def spread(self, server_pid: int, processes: int) -> list[int]:
        """Open the connections and move them (close one, open it again) until each of the
        server's `processes` holds as many as the others, give or take one, as a load balancer
        in front of them would spread them. The kernel gives a new connection to whichever
        process accepts first, which leaves long-lived connections uneven (33 and 7, or 39 and
        1, of 40 in benchmarks/scale.py): a measurement of the processes, not of that luck.
        Returns how many each held first."""
        first: list[int] = []
        unseen = 0  # passes in a row with a connection no process holds
        for _ in range(20 * len(self.clicking)):
            for one in self.clicking:
                if one.sock is None:
                    self._connect(one)
            time.sleep(0.05)  # until the server has accepted them all
            held = serving(server_pid, self.port)
            by: dict[int, list[_Clicking]] = {}
            for one in self.clicking:
                assert one.sock is not None
                by.setdefault(held.get(one.sock.getsockname()[:2], 0), []).append(one)
            counts = sorted((len(group) for pid, group in by.items() if pid), reverse=True)
            counts += [0] * (processes - len(counts))
            if 0 in by:  # not all accepted yet; after a second, taken as lost: opened again
                unseen += 1
                if unseen >= 20:
                    for one in by[0]:
                        self._close(one)
                    unseen = 0
                continue
            unseen = 0
            first = first or counts
            if counts[0] - counts[-1] <= 1:
                return first
            most = max(by.values(), key=len)
            for one in most[: max(1, (counts[0] - counts[-1]) // 2)]:
                self._close(one)
        raise SystemExit(f"could not spread {len(self.clicking)} connections over {processes}")

    def run(self, seconds: float) -> Tally:
        """Every player clicks for `seconds` (the last answers waited for), then their
        connections are closed."""
        tally = Tally()
        start = time.perf_counter()
        until = start + seconds
        for one in self.clicking:
            self._send(one, tally, until)
        swept = start
        try:
            while True:
                for fd, _ in self._poll.poll(self.SWEEP_S):
                    one = self._by_fd[fd]  # each socket is unregistered as it is closed
                    assert one.sock is not None
                    try:
                        data = one.sock.recv(65536)
                    except BlockingIOError:
                        continue  # woken for nothing
                    except OSError as error:
                        if one.sent_at:
                            self._failed(one, error, tally, until)
                        else:
                            self._close(one)
                        continue
                    if not one.sent_at:
                        # Nothing asked on it: the server closing a connection left idle (its
                        # keep-alive timeout, while this player rests or is done). The next
                        # request opens a new one.
                        self._close(one)
                    elif not data:
                        if not one.reader.buffer and not one.fresh:
                            # The server had closed this kept connection before reading the
                            # request: sent again on a new one, as `Connection` does.
                            self._close(one)
                            self._send(one, tally, until, again=True)
                            continue
                        half = " mid-answer" if one.reader.buffer else ""
                        closed = EOFError(f"the server closed the connection{half}")
                        self._failed(one, closed, tally, until)
                    elif (answer := one.reader.feed(data)) is not None:
                        self._answered(one, answer, tally, until)
                now = time.perf_counter()
                if now - swept >= self.SWEEP_S or now >= until:
                    swept = now
                    for one in self.clicking:
                        if one.sent_at and now - one.sent_at > TIMEOUT_S:
                            late = TimeoutError(f"no answer in {TIMEOUT_S:g} s")
                            self._failed(one, late, tally, until)
                        elif not one.sent_at and one.rest_until and one.rest_until <= now:
                            self._send(one, tally, until)
                if now >= until and not any(one.sent_at or one.rest_until for one in self.clicking):
                    break
        finally:
            tally.elapsed = time.perf_counter() - start
            self.close()
        return tally

    def _send(self, one: _Clicking, tally: Tally, until: float, again: bool = False) -> None:
        """Send its next request (a click, or a deal without a round), unless its time is up;
        `again`: the one in flight, once more (its time as first sent)."""
        one.rest_until = 0.0
        now = time.perf_counter()
        if now >= until and not again:
            return
        conn = one.player.conn
        one.dealing = one.player.round_id is None
        if one.dealing and not one.deal:
            one.deal = conn.head("POST", "/api/rounds", 2) + b"{}"
        elif not one.dealing and not one.click:
            body = json.dumps({"count": 1}).encode()
            path = f"/api/rounds/{one.player.round_id}/battles"
            one.click = conn.head("POST", path, len(body)) + body
        request = one.deal if one.dealing else one.click
        if not again:
            one.sent_at = now
        try:
            if one.sock is None:
                self._connect(one)
            assert one.sock is not None
            sent = one.sock.send(request)
            if sent < len(request):  # a full socket buffer: rare enough to wait for
                one.sock.settimeout(TIMEOUT_S)
                one.sock.sendall(request[sent:])
                one.sock.setblocking(False)
        except OSError as error:
            self._failed(one, error, tally, until, at_once=False)

    def _failed(
        self, one: _Clicking, error: BaseException, tally: Tally, until: float, at_once: bool = True
    ) -> None:
        """Its request got no answer: counted (a click's time too) and its connection closed;
        a click is tried again at once on a new one (or, `at_once` off, when its send or
        connect failed, at the loop's next look), a deal in a moment (as `play` does)."""
        what = "deal" if one.dealing else "click"
        if not one.dealing:
            tally.clicks.append(time.perf_counter() - one.sent_at)
        tally.fail(f"{what}: {type(error).__name__}", str(error) or "no answer", one.player)
        one.sent_at = 0.0
        self._close(one)
        if not one.dealing and at_once:
            self._send(one, tally, until)
        else:
            self._rest(one, 0.1 if one.dealing else 0.0, until)

    def _rest(self, one: _Clicking, seconds: float, until: float) -> None:
        one.rest_until = min(time.perf_counter() + max(seconds, 0.0), until)

    def _answered(self, one: _Clicking, answer: Answer, tally: Tally, until: float) -> None:
        player, sent_at = one.player, one.sent_at
        one.sent_at, one.fresh = 0.0, False
        cookie = player.conn.cookie
        if player.conn.took(answer):
            self._close(one)
        if player.conn.cookie != cookie:
            one.click = one.deal = b""  # made again with the new one
        if one.dealing:
            if answer.status == 201:
                player.round_id = str(json.loads(answer.body)["id"])
                one.click = b""
            else:
                tally.fail(f"deal: {answer.status}", answer.detail(), player)
                self._rest(one, answer.retry_after(), until)
                return
        else:
            tally.clicks.append(time.perf_counter() - sent_at)
            clicked(player, answer, tally)
        self._send(one, tally, until)


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """The client's own cyclic collector off while it measures: with a thousand sockets' objects
    it stopped the client's loop for tens of milliseconds now and then, and every flip and
    click timed meanwhile seemed that much slower (benchmarks/tables.py, scale.py). The
    server's collector is left as it is."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def answered(players: Iterable[Player]) -> dict[str, int]:
    """Every round a player was answered battles of, with the last battle's number."""
    return {round_id: n for player in players for round_id, n in player.answered.items()}


def connect_db(db: Path | str) -> Any:
    """A plain DB-API connection to the server's database: its SQLite file, or PostgreSQL."""
    if isinstance(db, Path):
        return sqlite3.connect(db)
    import psycopg

    return psycopg.connect(db)


def check_stored(db: Path | str, rounds: dict[str, int]) -> list[str]:
    """The rounds whose stored battles fall short of what was answered (or that are missing)."""
    with contextlib.closing(connect_db(db)) as conn:
        stored = dict(conn.execute("SELECT id, battles FROM rounds").fetchall())
    return [
        f"{round_id[:8]}…: answered {n}, stored {stored.get(round_id, 'nothing')}"
        for round_id, n in rounds.items()
        if stored.get(round_id, -1) < n
    ]


# -- people at live tables -----------------------------------------------------------------------


PEOPLE_PER_ADDRESS = 20
"""People who share one loopback address, as a household shares its router's. The server hands
one address 60 new ids at once, then 2 a second, and 120 writes at once, then 4 a second
(docs/api.md#rate-limits): from a single address, a thousand people would take eight minutes
just to get their ids."""
JOIN_AT_ONCE = 32  # sockets (or tables) opened at the same time while the tables are set up
SETTLE_S = 10.0  # after the last flips, how long the last battles may take to be told


def loopback(n: int) -> str:
    """The `n`-th loopback address of the benchmarks' clients (127.1.0.10 on): the whole of
    127.0.0.0/8 reaches this machine, each address a network address of its own to the
    server."""
    return f"127.1.{n // 200}.{n % 200 + 10}"


@dataclass
class LiveTally:
    """What the people at live tables met in one measurement."""

    latencies: list[float] = field(default_factory=list)  # last flip sent -> both told, a battle
    at: list[float] = field(default_factory=list)  # when each of them was told (perf_counter)
    flips: int = 0
    lost: int = 0  # battle numbers a socket never heard (a gap, or one stored but never told)
    duplicated: int = 0  # battle numbers a socket heard again, or out of order
    ended: int = 0  # rounds that ended
    dealt: int = 0  # next rounds dealt (the host's `next`)
    failures: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    elapsed: float = 0.0

    def fail(self, kind: str, example: str) -> None:
        self.failures[kind] += 1
        self.examples.setdefault(kind, example[:90])


@dataclass(eq=False)
class LivePerson:
    """One person at a live table: their own browser (its cookie is their seat) and socket,
    and every battle number their socket has heard: the last of each round, in order."""

    table: LiveTable
    seat: int
    conn: Connection
    ws: Any = None
    heard: list[int] = field(default_factory=lambda: [0])
    over: bool = False  # their round is over: waiting for the next one
    flipped_for: tuple[int, int] | None = None  # (round, battle) of their last flip
    closed: str = ""  # how the server closed their socket, if it did

    @property
    def key(self) -> tuple[int, int]:
        """(round, battle) of the battle they flip for next."""
        return len(self.heard) - 1, self.heard[-1] + 1


@dataclass(eq=False)
class LiveTable:
    """A live table of two people, and when each flipped for, and heard, each battle."""

    code: str = ""
    people: list[LivePerson] = field(default_factory=list)
    sent: dict[tuple[int, int], list[float]] = field(default_factory=dict)
    told: dict[tuple[int, int], list[float]] = field(default_factory=dict)

    def pending(self) -> bool:
        """A battle both have flipped for that not both have heard yet."""
        return any(
            len(times) == 2 and len(self.told.get(key, ())) < 2 for key, times in self.sent.items()
        )


class LiveTables:
    """Honest live tables of two people each on their own device: a host (seat 0) who opens
    the table with `POST /api/tables`, and a guest who takes seat 1 through the invite
    (`POST /api/tables/{code}/seats`), each their own browser on a socket of their own
    (docs/api.md#live-tables). Each person flips about every `flip_s` (at a moment of their own
    in it) for the next battle, the battle's number said; when a round ends the host deals
    the next (`next`). Every socket's battles are checked: each number of its round heard once,
    in order. People share a loopback address `PEOPLE_PER_ADDRESS` at a time, from
    `loopback(first_address)` on."""

    def __init__(
        self,
        port: int,
        count: int,
        flip_s: float,
        *,
        first_address: int = 0,
        rules: dict[str, Any] | None = None,
    ) -> None:
        self.port, self.count, self.flip_s = port, count, flip_s
        self.first_address = first_address
        self.rules = {"players": 2, **(rules or {})}
        self.tables: list[LiveTable] = []
        self.tally = LiveTally()  # the measurement under way
        self.waited: Counter[str] = Counter()  # 429s met while setting up, waited for
        self.refused: Counter[str] = Counter()  # sockets the server would not let join
        self.closing = False
        self.readers: list[asyncio.Task[None]] = []

    @property
    def addresses(self) -> int:
        """How many loopback addresses the people take."""
        return -(-2 * self.count // PEOPLE_PER_ADDRESS)

    def _person(self, table: LiveTable, seat: int) -> LivePerson:
        index = 2 * len(self.tables) + seat
        local = loopback(self.first_address + index // PEOPLE_PER_ADDRESS)
        return LivePerson(table, seat, Connection(self.port, local=local))

    async def _post(self, conn: Connection, path: str, body: object, ok: int) -> Answer:
        """POST until it is answered `ok`, waiting out each 429's Retry-After."""
        while True:
            answer = await conn.request("POST", path, body, timeout=60)
            if answer.status == ok:
                return answer
            if answer.status != 429:
                raise SystemExit(f"POST {path.split('/')[-1]}: {answer.status} {answer.detail()}")
            self.waited[answer.detail().split(":")[0]] += 1
            await asyncio.sleep(answer.retry_after())

    async def open(self) -> float:
        """Open the tables and seat their guests; returns the seconds it took."""
        start = time.perf_counter()
        tables = []
        for _ in range(self.count):
            table = LiveTable()
            table.people = [self._person(table, 0), self._person(table, 1)]
            self.tables.append(table)
            tables.append(table)
        seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": ""}]
        body = {"rules": self.rules, "seats": seats}

        async def one(table: LiveTable) -> None:
            host, guest = table.people
            opened = await self._post(host.conn, "/api/tables", body, 201)
            table.code = str(json.loads(opened.body)["invite"]["code"])
            seat = {"seat": 1, "name": "Mia"}
            await self._post(guest.conn, f"/api/tables/{table.code}/seats", seat, 200)
            host.conn.close()
            guest.conn.close()

        await gather_some([one(table) for table in tables], JOIN_AT_ONCE)
        return time.perf_counter() - start

    async def join(self) -> float:
        """Open every person's socket (welcome, then the table); returns the seconds it took.
        A socket the server refuses is counted in `refused` by its close code."""
        start = time.perf_counter()
        people = [person for table in self.tables for person in table.people]
        await gather_some([self._join(person) for person in people], JOIN_AT_ONCE)
        return time.perf_counter() - start

    async def _join(self, person: LivePerson) -> None:
        url = f"ws://127.0.0.1:{self.port}/api/tables/{person.table.code}/live"
        try:
            ws = await connect(
                url, origin=f"http://127.0.0.1:{self.port}",
                additional_headers={"Cookie": person.conn.cookie}, ping_interval=None,
                proxy=None, open_timeout=60, local_addr=person.conn.local_addr,
            )  # fmt: skip
        except (OSError, TimeoutError) as error:
            self.refused[f"not opened: {type(error).__name__}"] += 1
            return
        try:
            welcome = json.loads(await asyncio.wait_for(ws.recv(), 60))
            table = json.loads(await asyncio.wait_for(ws.recv(), 60))
        except ConnectionClosed:
            self.refused[f"closed {ws.close_code}"] += 1
            return
        except TimeoutError:
            self.refused["no welcome in 60 s"] += 1
            await ws.close()
            return
        if welcome["type"] != "welcome" or table["type"] != "table":
            self.refused[f"told {welcome['type']}, {table['type']}"] += 1
            await ws.close()
            return
        if welcome["you"]["seat"] != person.seat:
            raise SystemExit(f"a person's cookie sat them at {welcome['you']}, not {person.seat}")
        person.ws = ws
        person.heard = [table["round"]["battles"]]
        person.over = table["round"]["outcome"] is not None
        self.readers.append(asyncio.create_task(self._listen(person)))

    @property
    def playing(self) -> list[LiveTable]:
        """The tables whose two people both joined."""
        return [table for table in self.tables if all(p.ws is not None for p in table.people)]

    async def _listen(self, person: LivePerson) -> None:
        """Read everything the person's socket is told, checking each battle number."""
        try:
            async for raw in person.ws:
                now = time.perf_counter()
                message = json.loads(raw)
                kind = message["type"]
                if kind == "played":
                    await self._played(person, message, now)
                elif kind == "table" and message["event"] == "dealt":
                    person.heard.append(message["round"]["battles"])
                    person.over = message["round"]["outcome"] is not None
                    self.tally.dealt += person.seat == 0
                elif kind == "error":
                    self.tally.fail(f"told error: {message['message'][:40]}", message["message"])
        except ConnectionClosed:
            pass
        if not self.closing:
            person.closed = f"{person.ws.close_code} {person.ws.close_reason}"
            self.tally.fail(f"socket closed: {person.ws.close_code}", person.closed)

    async def _played(self, person: LivePerson, message: dict[str, Any], now: float) -> None:
        tally, table = self.tally, person.table
        last = person.heard[-1]
        round_index = len(person.heard) - 1
        for battle in message["battles"]:
            number = battle["number"]
            if number <= last:
                tally.duplicated += 1
                continue
            tally.lost += number - last - 1
            last = number
            key = (round_index, number)
            told = table.told.setdefault(key, [])
            told.append(now)
            sent = table.sent.get(key, ())
            if len(told) == 2 and len(sent) == 2:
                tally.latencies.append(max(told) - max(sent))
                tally.at.append(now)
        person.heard[-1] = last
        shown = message["round"]
        if shown["battles"] != last:
            tally.fail("played: round.battles is not its last battle", f"{shown['battles']}")
        if shown["outcome"] is not None and not person.over:
            person.over = True
            if person.seat == 0:
                tally.ended += 1
                await person.ws.send('{"type": "next"}')

    async def _flip(self, person: LivePerson, start: float, until: float) -> None:
        """Flip about every `flip_s` from a moment of one's own, for the battle after the last
        one heard (once each), until `until`."""
        at = start + random.uniform(0, self.flip_s)
        table = person.table
        while at < until:
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            at += self.flip_s * random.uniform(0.9, 1.1)
            key = person.key
            if person.over or person.flipped_for == key or person.closed:
                continue
            person.flipped_for = key
            table.sent.setdefault(key, []).append(time.perf_counter())
            self.tally.flips += 1
            await person.ws.send(f'{{"type": "flip", "battle": {key[1]}}}')

    async def play(self, seconds: float) -> LiveTally:
        """Every person flips for `seconds`; then the last battles flipped for are waited for
        (up to SETTLE_S). Returns what they met."""
        tally = self.tally = LiveTally()
        start = time.perf_counter()
        people = [person for table in self.playing for person in table.people]
        await asyncio.gather(*(self._flip(person, start, start + seconds) for person in people))
        settle = time.perf_counter() + SETTLE_S
        while any(table.pending() for table in self.playing) and time.perf_counter() < settle:
            await asyncio.sleep(0.05)
        tally.elapsed = time.perf_counter() - start
        for table in self.playing:
            for key in [key for key, sent in table.sent.items() if len(sent) == 2]:
                told = table.told.pop(key, [])
                table.sent.pop(key)
                if len(told) < 2:
                    tally.fail("flipped for, never told to both", f"battle {key[1]}")
        return tally

    async def close(self) -> None:
        """Close every socket (the person leaves), and check that the two people of each table
        heard the same battles."""
        self.closing = True
        people = [person for table in self.tables for person in table.people if person.ws]
        await asyncio.gather(*(person.ws.close() for person in people), return_exceptions=True)
        await asyncio.gather(*self.readers, return_exceptions=True)
        for table in self.playing:
            host, guest = (person.heard for person in table.people)
            if host != guest:
                self.tally.fail("the two people heard different battles", f"{host} {guest}")

    def heard(self) -> dict[str, list[int]]:
        """Each table's battles told, round by round (the most either person heard)."""
        return {
            table.code: [max(pair) for pair in zip(*(p.heard for p in table.people), strict=False)]
            for table in self.playing
        }


def check_stored_tables(db: Path | str, heard: dict[str, list[int]]) -> tuple[list[str], int]:
    """The live tables whose stored rounds fall short of the battles told (or that are not
    there), and how many stored battles were never told (lost on the way to the sockets)."""
    with contextlib.closing(connect_db(db)) as conn:
        rows = conn.execute(
            "SELECT live_table, battles FROM rounds WHERE live_table IS NOT NULL"
            " ORDER BY created_at"
        ).fetchall()
    stored: dict[str, list[int]] = {}
    for code, battles in rows:
        stored.setdefault(code, []).append(battles)
    short, untold = [], 0
    for code, told in heard.items():
        kept = stored.get(code, [])
        if len(kept) < len(told) or any(k < t for k, t in zip(kept, told, strict=False)):
            short.append(f"{code[:8]}…: told {told}, stored {kept}")
        untold += sum(max(0, k - t) for k, t in zip(kept, told, strict=False))
    return short, untold


async def gather_some(jobs: list[Coroutine[Any, Any, Any]], at_once: int) -> list[Any]:
    """Run `jobs`, at most `at_once` of them at the same time."""
    slots = asyncio.Semaphore(at_once)

    async def one(job: Coroutine[Any, Any, Any]) -> Any:
        async with slots:
            return await job

    return await asyncio.gather(*(one(job) for job in jobs))


class LoopLag:
    """How late the client's own event loop wakes: a sleep of `every` seconds, over and over;
    each wake's lateness is kept. A late wake delays every answer the client times as much."""

    def __init__(self, every: float = 0.01) -> None:
        self.every = every
        self.lags: list[float] = []

    async def run(self, seconds: float) -> None:
        until = time.perf_counter() + seconds
        while (now := time.perf_counter()) < until:
            await asyncio.sleep(self.every)
            self.lags.append(time.perf_counter() - now - self.every)


def load_average() -> float:
    """The machine's load average over the last minute: how many processes wanted a core (other
    work on the machine makes every figure slower; there are `os.cpu_count()` cores)."""
    return os.getloadavg()[0]


def cpu_seconds(pid: int) -> float:
    """The processor time (user and system) process `pid` and its descendants have used."""
    return sum(cpu_of_process(one) for one in process_tree(pid))


def cpu_of_process(pid: int) -> float:
    """The processor time (user and system) process `pid` alone has used (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


CPU_KINDS = ("client", "servers", "PostgreSQL", "Redis")


def cpu_by_kind(server_pid: int) -> dict[tuple[str, int], float]:
    """The processor time used so far by each process on this machine of the client (this
    process), the server and its descendants, PostgreSQL and Redis (by their names in /proc),
    as (kind, pid) -> seconds; `cpu_spent` says what each kind used between two of these."""
    tree = set(process_tree(server_pid))
    used = {("client", os.getpid()): cpu_of_process(os.getpid())}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        if pid in tree:
            used["servers", pid] = cpu_of_process(pid)
            continue
        try:
            name = Path(f"/proc/{entry}/comm").read_text()
        except OSError:
            continue
        if name.startswith("postgres"):
            used["PostgreSQL", pid] = cpu_of_process(pid)
        elif name.startswith("redis-server"):
            used["Redis", pid] = cpu_of_process(pid)
    return used


def cpu_spent(
    before: dict[tuple[str, int], float], after: dict[tuple[str, int], float]
) -> dict[str, float]:
    """The seconds each kind of process used from `before` to `after` (each a `cpu_by_kind`),
    process by process: one started since counts from nothing, one ended since (a database
    connection closed) drops out rather than taking its whole life's time off."""
    spent = dict.fromkeys(CPU_KINDS, 0.0)
    for (kind, pid), seconds in after.items():
        spent[kind] += seconds - before.get((kind, pid), 0.0)
    return spent


# -- the server and its memory ------------------------------------------------------------------


START_S = 120.0  # a server neither listening nor exited after this long has hung


class Server:
    """`cardwar serve` on a free loopback port over `db`; its log goes to a file beside it."""

    def __init__(self, db: Path | str, *extra: str, log: Path | None = None) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        assert log is not None or isinstance(db, Path), "a log file, for a database URL"
        self.log = log if log is not None else Path(db).with_suffix(".log")
        command = [
            *(sys.executable, "-m", "cardwar.cli", "serve"),
            *("--port", str(self.port), "--db", str(db), *extra),
        ]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        # Until it listens or exits, however long a busy machine takes (it loads numba's compiled
        # code first); only a server alive and silent for START_S is given up on.
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        self.process.kill()
        self.process.wait()
        raise SystemExit(f"cardwar serve did not start:\n{self.log.read_text()}")

    def stop(self) -> tuple[float, int | None]:
        """SIGTERM, as Ctrl+C would; returns the seconds it took to stop and its exit status."""
        start = time.perf_counter()
        self.process.send_signal(signal.SIGTERM)
        try:
            status: int | None = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            status = None
        return time.perf_counter() - start, status

    def errors(self) -> list[str]:
        """The lines of its log that tell of an error."""
        lines = self.log.read_text(errors="replace").splitlines()
        return [line for line in lines if "Traceback" in line or "ERROR" in line]


def _proc_children() -> dict[int, list[int]]:
    """Every process's children, from /proc/<pid>/stat (the field after the name is the parent)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    return children


def serving(server_pid: int, port: int) -> dict[tuple[str, int], int]:
    """Which of the server's processes holds each connection to `port`: the client's address
    and port -> that process's id (from /proc/net/tcp and each process's open sockets)."""
    owner: dict[str, int] = {}
    for pid in process_tree(server_pid):
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if link.startswith("socket:["):
                        owner[link[8:-1]] = pid
    held: dict[tuple[str, int], int] = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        here, there, inode = fields[1], fields[2], fields[9]
        if int(here.split(":")[1], 16) == port and inode in owner and there != "00000000:0000":
            address, their_port = there.split(":")
            ip = socket.inet_ntoa(int(address, 16).to_bytes(4, "little"))
            held[(ip, int(their_port, 16))] = owner[inode]
    return held


def process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants."""
    try:
        import psutil
    except ImportError:
        children = _proc_children()
        tree, todo = [], [pid]
        while todo:
            tree.append(one := todo.pop())
            todo += children.get(one, [])
        return tree
    try:
        return [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
    except psutil.Error:
        return [pid]


def resident(pid: int) -> tuple[int, int]:
    """Bytes resident in process `pid`, whole and proportional ((0, 0) if it is gone).

    The whole resident size (RSS) counts every page the process maps, the pages it shares with
    others too; the proportional size (PSS, /proc/PID/smaps_rollup) counts a shared page split
    among its sharers. Summed over a server and its worker, which map the same interpreter,
    libraries and numba, RSS counts those pages twice and PSS once: PSS is what the tree takes
    from the machine. The kernel has smaps_rollup since Linux 4.14; where it is missing, PSS is
    given as RSS."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                    break
        pss = rss
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return rss, pss


def sample_memory(pid: int, every: float = 0.02, rescan: float = 0.5) -> None:
    """The sampling process: sums the resident memory (whole and proportional, see `resident`)
    of `pid` and its descendants every `every` seconds (looking for new descendants every
    `rescan` seconds); each line read on stdin is answered with the two peaks since the last
    one, in bytes. Ends at the end of stdin."""
    tree: list[int] = []
    scanned = -rescan
    peak = [0, 0]
    while True:
        if time.monotonic() - scanned >= rescan:
            tree, scanned = process_tree(pid), time.monotonic()
        sizes = [resident(one) for one in tree]
        current = [sum(size[0] for size in sizes), sum(size[1] for size in sizes)]
        peak = [max(was, now) for was, now in zip(peak, current, strict=True)]
        ready, _, _ = select.select([sys.stdin], [], [], every)
        if ready:
            if not sys.stdin.readline():
                return
            print(*peak, flush=True)
            peak = current


class Footprint(NamedTuple):
    """A server tree's peak memory over a stretch, in bytes: `rss` sums its processes' whole
    resident sizes, `pss` their proportional ones (see `resident`). Targets are on `pss`."""

    rss: int
    pss: int

    def __str__(self) -> str:
        return f"{self.pss / MB:.0f} MB ({self.rss / MB:.0f} MB counting shared pages per process)"


class Memory:
    """The peak memory of a server and its descendants together, sampled in a process of its
    own, so that sampling takes nothing from the client's event loop."""

    def __init__(self, pid: int) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--memory-of", str(pid)]
        self.sampler = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def restart(self) -> Footprint:
        """The peak since the last restart; starts counting again from now."""
        assert self.sampler.stdin is not None and self.sampler.stdout is not None
        self.sampler.stdin.write("peak\n")
        self.sampler.stdin.flush()
        rss, pss = self.sampler.stdout.readline().split()
        return Footprint(int(rss), int(pss))

    def stop(self) -> None:
        if self.sampler.stdin is not None:
            self.sampler.stdin.close()
        try:
            self.sampler.wait(5)
        except subprocess.TimeoutExpired:
            self.sampler.kill()
            self.sampler.wait()


# -- the report ----------------------------------------------------------------------------------


def ms(values: list[float], share: float, method: str = "inclusive") -> float:
    """The `share` quantile of `values` (seconds) in milliseconds, by `statistics.quantiles`'s
    `method`."""
    if len(values) < 2:
        return values[0] * 1000 if values else float("nan")
    return statistics.quantiles(values, n=1000, method=method)[round(share * 1000) - 1] * 1000


def figures(tally: Tally, memory: Footprint) -> str:
    """One line of a measurement: clicks, their rate and latency, failures, peak memory."""
    clicks = tally.clicks
    worst = max(clicks, default=float("nan")) * 1000
    return (
        f"{len(clicks):6,} clicks {len(clicks) / tally.elapsed:5.0f}/s"
        f"  p50 {ms(clicks, 0.5):6.2f} ms  p99 {ms(clicks, 0.99):7.2f} ms  worst {worst:7.1f} ms"
        f"  failures {sum(tally.failures.values()) - tally.failures['chance: 429']}"
        f"  peak memory {memory.pss / MB:.0f} MB"
    )


def live_figures(tally: LiveTally) -> str:
    """One line of the live tables: battles told to both people, their rate, and the time from
    a battle's last flip to both people told."""
    told = tally.latencies
    worst = max(told, default=float("nan")) * 1000
    return (
        f"{len(told):6,} battles {len(told) / tally.elapsed:5.0f}/s"
        f"  p50 {ms(told, 0.5):6.2f} ms  p99 {ms(told, 0.99):7.2f} ms  worst {worst:7.1f} ms"
        f"  ({tally.flips:,} flips)"
    )


def failure_lines(label: str, tally: Tally) -> list[str]:
    """A line for each kind of failure the players met, most common first."""
    return [
        f"  {label} failed: {kind} x{n}, {len(tally.who[kind])} of the players"
        f" ({tally.examples[kind]})"
        for kind, n in tally.failures.most_common()
    ]


def target(what: str, met: bool, shown: str) -> str:
    """A target's line: met or MISSED, with the figure that says so."""
    return f"  target: {what}: {'target met' if met else 'target MISSED'} ({shown})"


def main() -> None:
    """The memory sampler's own process (see `Memory`)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-of", type=int, required=True, help="the process to sample")
    sample_memory(parser.parse_args().memory_of)


if __name__ == "__main__":
    main()
