"""Honest players' clicks while one hostile client does its worst to the same server.

    .venv/bin/python benchmarks/hostile.py [--players 20] [--seconds 20] [--baseline-seconds 10]
                                           [--think-ms 100] [--long-requests 30] [--flood 1500]
                                           [--body-mb 50]

Starts `cardwar serve` on a loopback port over a fresh database (every round capped at 100,000
battles, as by default). --players honest players, each a keep-alive connection that keeps the
cookie the server sets and sends it back like a browser, click "one battle" about every
--think-ms (0.5x to 1.5x, at random), dealing a new round only when one ends (a 409 answer
included). Any other answer than 200 to a click, or than 201 to such a deal, is a failure.

First the players play alone for --baseline-seconds (the baseline); then for --seconds beside one
attacker, who, one after the other:

- deals the endless round ({"rules": {"battle_limit": null, "gather": "table", "war_down": 0},
  "seed": 39}: it runs to the server's cap without ending or looping);
- opens --long-requests connections, each asking that round for 100,000 battles (with its own
  cookie, with none, or with a made-up one, in turn), and never reads the answers: the sockets
  stay open until the end of the window (only then are the answers' status lines read, for the
  report);
- sends a --body-mb body to POST /api/rounds, once with a Content-Length and once chunked, and
  notes the answer;
- floods POST /api/rounds --flood times over a few connections (with its cookie, with none and
  with made-up ones, in turn), counting the 201 and 429 answers;
- then reads the endless round, timed, and asks for its story (the chart of all its battles,
  played again in the worker process), timed.

Last, with the players gone, the endless round is dealt again and asked for 100,000 battles,
and the server is sent SIGTERM while that run plays (as soon as a click on the round is told
the run holds it): the seconds it takes to stop are printed. Then it is started again over the
same file and the first endless round read back, timed: after a restart nothing is in memory,
so a round comes back from its stored snapshot, never replayed.

The server's memory is the resident size of its process and all its descendants (the worker
process that plays long runs) together, sampled every 20 ms by a process of its own (psutil when
it is installed, else /proc); the peak of that sum is printed. After the server has stopped,
the database is checked: every battle answered to a player (its round and number) must be
stored.

Targets under attack: players' p99 under 100 ms, no click over 500 ms, no failed click, peak
memory under 300 MB, nothing lost; the endless round's story in under 10 s; stopped within
10 s of SIGTERM (it lets requests in flight finish for 8 s); the endless round read back from
its snapshot in under 500 ms. A
missed target is printed, never an exit status: the script fails only if it crashes. The
ratios (under attack / baseline) are measured in the same run.

The client, the players and the memory sampler are shared with benchmarks/load.py.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import secrets
import select
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
COOKIE = "cardwar_player"
ENDLESS = {"rules": {"battle_limit": None, "gather": "table", "war_down": 0}, "seed": 39}
LONG_COUNT = 100_000
TIMEOUT_S = 10.0  # a request unanswered this long counts as failed (and as this slow)
SLOW_S = 60.0  # the attacker's deal of the endless round, and its read, may wait for the worker
START_S = 120.0  # a server neither listening nor exited after this long has hung
MB = 1024 * 1024


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run the client on uvloop when it is installed, else on asyncio's own loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


# -- the client ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def detail(self) -> str:
        """The error's `detail`, or the start of the body."""
        try:
            return str(json.loads(self.body)["detail"])
        except (ValueError, KeyError, TypeError):
            return self.body[:60].decode("utf-8", "replace")

    def retry_after(self) -> float:
        try:
            return float(self.headers.get("retry-after", "1"))
        except ValueError:
            return 1.0


class Connection:
    """One keep-alive HTTP/1.1 connection: sends a request, reads the whole answer (by length
    or chunked). Like a browser it keeps the cookie the server sets (unless `keep_cookie` is
    off) and sends it back, and it sends a request again on a new connection when the server
    had closed the idle one without reading it. After a request that failed half-way, the next
    one opens a new connection."""

    def __init__(self, port: int, cookie: str = "", *, keep_cookie: bool = True) -> None:
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.cookie = cookie
        self.keep_cookie = keep_cookie
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

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
        timeout: float = TIMEOUT_S,
    ) -> Answer:
        """Send one request and read its answer; raises OSError, EOFError or TimeoutError."""
        data = b"" if body is None else json.dumps(body).encode()
        try:
            return await asyncio.wait_for(self._exchange(method, path, data, cookie), timeout)
        except BaseException:
            self.close()  # half a request or half an answer: this connection is done
            raise

    async def _exchange(self, method: str, path: str, data: bytes, cookie: str | None) -> Answer:
        while True:
            fresh = self.writer is None or self.writer.is_closing()
            if fresh:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            assert self.reader is not None and self.writer is not None
            status_line = b""
            try:
                self.writer.write(self.head(method, path, len(data), cookie) + data)
                status_line = await self.reader.readline()
            except (ConnectionResetError, BrokenPipeError):
                pass
            if status_line:
                break
            self.close()
            if fresh:
                raise EOFError("the server closed the connection")
            # The server closed the idle connection before reading this request (its keep-alive
            # timeout): a browser sends the request again on a new connection, and so do we.
        answer = await read_answer(self.reader, status_line)
        cookie_set = answer.headers.get("set-cookie", "")
        if self.keep_cookie and cookie_set.startswith(f"{COOKIE}="):
            self.cookie = cookie_set.split(";", 1)[0].strip()
        if answer.headers.get("connection", "").lower() == "close":
            self.close()
        return answer

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def read_answer(reader: asyncio.StreamReader, status_line: bytes = b"") -> Answer:
    """Read one HTTP/1.1 answer (after its `status_line`, if that was read already): status,
    headers (lower-case names), body by length or chunks."""
    status_line = status_line or await reader.readline()
    if not status_line:
        raise EOFError("the server closed the connection")
    headers: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while size := int((await reader.readline()).split(b";")[0], 16):
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)
        while await reader.readline() not in (b"\r\n", b""):
            pass  # trailers
        body = b"".join(parts)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return Answer(int(status_line.split()[1]), headers, body)


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
            if answer.status == 200:
                content = json.loads(answer.body)
                if content["battles"]:
                    player.answered[round_id] = content["battles"][-1]["number"]
                if content["round"]["outcome"] is not None:
                    player.round_id = None
                elif chance:  # the page asks while its player looks: part of the pause
                    asked = time.perf_counter()
                    await ask_chance(player, round_id, tally)
                    spent = time.perf_counter() - asked
            elif answer.status == 409:
                player.round_id = None  # over: deal again (a refused deal is the failure)
            else:
                tally.fail(f"click: {answer.status}", answer.detail(), player)
            if player.round_id is None:
                await deal(player, until, tally)
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


def answered(players: Iterable[Player]) -> dict[str, int]:
    """Every round a player was answered battles of, with the last battle's number."""
    return {round_id: n for player in players for round_id, n in player.answered.items()}


def check_stored(db: Path, rounds: dict[str, int]) -> list[str]:
    """The rounds whose stored battles fall short of what was answered (or that are missing)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        stored = dict(conn.execute("SELECT id, battles FROM rounds").fetchall())
    return [
        f"{round_id[:8]}…: answered {n}, stored {stored.get(round_id, 'nothing')}"
        for round_id, n in rounds.items()
        if stored.get(round_id, -1) < n
    ]


# -- the server and its memory ------------------------------------------------------------------


class Server:
    """`cardwar serve` on a free loopback port over `db`; its log goes to a file beside it."""

    def __init__(self, db: Path, *extra: str) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.log = db.with_suffix(".log")
        command = [
            *(sys.executable, "-m", "cardwar.cli", "serve"),
            *("--port", str(self.port), "--db", str(db), *extra),
        ]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        # Until it listens or exits, however long a busy machine takes (it loads numba's
        # compiled code first); only a server alive and silent for START_S is given up on.
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


def resident(pid: int) -> int:
    """Bytes resident in process `pid` (0 if it is gone)."""
    try:
        import psutil
    except ImportError:
        try:
            with open(f"/proc/{pid}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"VmRSS:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0
    try:
        return int(psutil.Process(pid).memory_info().rss)
    except psutil.Error:
        return 0


def sample_memory(pid: int, every: float = 0.02, rescan: float = 0.5) -> None:
    """The sampling process: sums the resident memory of `pid` and its descendants every
    `every` seconds (looking for new descendants every `rescan` seconds); each line read on
    stdin is answered with the peak since the last one, in bytes. Ends at the end of stdin."""
    tree: list[int] = []
    scanned = -rescan
    peak = 0
    while True:
        if time.monotonic() - scanned >= rescan:
            tree, scanned = process_tree(pid), time.monotonic()
        current = sum(resident(one) for one in tree)
        peak = max(peak, current)
        ready, _, _ = select.select([sys.stdin], [], [], every)
        if ready:
            if not sys.stdin.readline():
                return
            print(peak, flush=True)
            peak = current


class Memory:
    """The peak resident memory of a server and its descendants together, sampled in a process
    of its own, so that sampling takes nothing from the client's event loop."""

    def __init__(self, pid: int) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--memory-of", str(pid)]
        self.sampler = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def restart(self) -> int:
        """The peak since the last restart (in bytes); starts counting again from now."""
        assert self.sampler.stdin is not None and self.sampler.stdout is not None
        self.sampler.stdin.write("peak\n")
        self.sampler.stdin.flush()
        return int(self.sampler.stdout.readline())

    def stop(self) -> None:
        if self.sampler.stdin is not None:
            self.sampler.stdin.close()
        try:
            self.sampler.wait(5)
        except subprocess.TimeoutExpired:
            self.sampler.kill()
            self.sampler.wait()


# -- the attacker -------------------------------------------------------------------------------


class Attack:
    """One hostile client; `lines` tells what it did and met, in order."""

    def __init__(self, port: int, long_requests: int, flood: int, body_mb: float) -> None:
        self.port = port
        self.long_requests, self.flood, self.body_mb = long_requests, flood, body_mb
        self.lines: list[str] = []
        self.unread: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.started = 0.0
        self.round_id = ""  # the endless round
        self.story_s = float("nan")  # the time its story took, once it is answered 200

    def note(self, text: str) -> None:
        self.lines.append(f"[{time.perf_counter() - self.started:5.1f} s] {text}")

    async def run(self, until: float) -> None:
        """Every attack in turn, then hold the unread sockets open until `until`. A request the
        server does not answer is noted, and the attack goes on."""
        self.started = time.perf_counter()
        conn = Connection(self.port)
        try:
            await self.attacks(conn)
        except (OSError, EOFError, TimeoutError, asyncio.IncompleteReadError) as error:
            self.note(f"a request went unanswered: {type(error).__name__} {error}")
        conn.close()
        await asyncio.sleep(max(0.0, until - time.perf_counter()))

    async def attacks(self, conn: Connection) -> None:
        start = time.perf_counter()
        answer = await conn.request("POST", "/api/rounds", ENDLESS, timeout=SLOW_S)
        took = time.perf_counter() - start
        if answer.status != 201:
            self.note(f"dealt the endless round: {answer.status} {answer.detail()}")
            return
        round_id = self.round_id = str(json.loads(answer.body)["id"])
        self.note(f"dealt the endless round: 201 in {took:.2f} s")
        await self.long(round_id, conn.cookie)
        for chunked in (False, True):
            await self.big_body(conn.cookie, chunked=chunked)
        await self.flood_rounds(conn.cookie)
        newcomer = await Connection(self.port).request("GET", "/api/me")
        self.note(f"a new browser after the flood: GET /api/me {newcomer.status}")
        start = time.perf_counter()
        answer = await conn.request("GET", f"/api/rounds/{round_id}", timeout=SLOW_S)
        took = time.perf_counter() - start
        if answer.status == 200:
            content = json.loads(answer.body)
            outcome = content["outcome"] and content["outcome"]["reason"]
            state = f"{content['battles']:,} battles, outcome {outcome}"
        else:
            state = answer.detail()
        self.note(f"read of the endless round: {answer.status} in {took * 1000:.1f} ms ({state})")
        start = time.perf_counter()
        answer = await conn.request("GET", f"/api/rounds/{round_id}/story", timeout=SLOW_S)
        took = time.perf_counter() - start
        if answer.status == 200:
            content = json.loads(answer.body)
            state = f"{content['battles']:,} battles in {len(content['points'])} points"
            self.story_s = took
        else:
            state = answer.detail()
        self.note(f"story of the endless round: {answer.status} in {took:.2f} s ({state})")

    async def long(self, round_id: str, cookie: str) -> None:
        """Ask for 100,000 battles on many connections and read none of the answers."""
        body = json.dumps({"count": LONG_COUNT}).encode()
        path = f"/api/rounds/{round_id}/battles"
        for i in range(self.long_requests):
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            sender = Connection(self.port)
            cookies = (cookie, "", made_up_cookie())
            writer.write(sender.head("POST", path, len(body), cookies[i % 3]) + body)
            await writer.drain()
            self.unread.append((reader, writer))
        self.note(
            f"{self.long_requests} requests of {LONG_COUNT:,} battles on it sent"
            " (own cookie, none, made-up in turn), left unread"
        )

    async def big_body(self, cookie: str, *, chunked: bool) -> None:
        """Send a body of `body_mb` to POST /api/rounds while waiting for the answer."""
        size = int(self.body_mb * MB)
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        head = Connection(self.port, cookie).head("POST", "/api/rounds", None if chunked else size)
        sent = 0
        start = time.perf_counter()

        async def send() -> None:
            nonlocal sent
            writer.write(head)
            piece = b"x" * MB
            while sent < size:
                part = piece[: size - sent]
                writer.write(b"%x\r\n%s\r\n" % (len(part), part) if chunked else part)
                await writer.drain()
                sent += len(part)
            if chunked:
                writer.write(b"0\r\n\r\n")
            await writer.drain()

        sending = asyncio.create_task(send())
        how = "chunked" if chunked else "with a Content-Length"
        try:
            answer = await asyncio.wait_for(read_answer(reader), TIMEOUT_S)
            took = time.perf_counter() - start
            result = f"{answer.status} in {took * 1000:.1f} ms"
        except (OSError, EOFError, TimeoutError, asyncio.IncompleteReadError) as error:
            result = f"no answer ({type(error).__name__})"
        sending.cancel()
        try:
            await sending
        except (asyncio.CancelledError, OSError):
            pass
        writer.close()
        self.note(
            f"{self.body_mb:g} MB body {how}: {result}, {sent / MB:.1f} MB of it sent by then"
        )

    async def flood_rounds(self, cookie: str) -> None:
        """Deal `flood` rounds as fast as the server answers, over 8 connections."""
        kinds = ("own cookie", "no cookie", "made-up cookie")
        counts: Counter[tuple[str, int | str]] = Counter()
        queue = list(range(self.flood))

        async def flooder() -> None:
            conn = Connection(self.port, keep_cookie=False)
            while queue:
                kind = kinds[queue.pop() % 3]
                sent = {"own cookie": cookie, "no cookie": "", "made-up cookie": made_up_cookie()}
                try:
                    answer = await conn.request("POST", "/api/rounds", {}, cookie=sent[kind])
                    counts[(kind, answer.status)] += 1
                except (OSError, EOFError, TimeoutError) as error:
                    counts[(kind, type(error).__name__)] += 1
            conn.close()

        start = time.perf_counter()
        await asyncio.gather(*(flooder() for _ in range(8)))
        took = time.perf_counter() - start
        statuses = Counter[int | str]()
        for (_, status), n in counts.items():
            statuses[status] += n
        total = ", ".join(f"{status} x{n}" for status, n in sorted(statuses.items(), key=str))
        dealt = ", ".join(f"{kind} {counts[(kind, 201)]}" for kind in kinds)
        self.note(f"flood of {self.flood:,} new rounds in {took:.2f} s: {total} (201s: {dealt})")

    async def close(self) -> None:
        """Read the status line of each unread answer (the window is over), then hang up."""

        async def status(reader: asyncio.StreamReader) -> str:
            try:
                line = await asyncio.wait_for(reader.readline(), 2)
                return line.split()[1].decode() if line else "closed"
            except (OSError, TimeoutError, IndexError):
                return "nothing"

        statuses = await asyncio.gather(*(status(reader) for reader, _ in self.unread))
        for _, writer in self.unread:
            writer.close()
        if statuses:
            shown = ", ".join(f"{s} x{n}" for s, n in sorted(Counter(statuses).items()))
            self.lines.append(f"the long requests' answers, read after the window: {shown}")


# -- the report ----------------------------------------------------------------------------------


def ms(values: list[float], share: float) -> float:
    """The `share` quantile of `values` (seconds) in milliseconds."""
    if len(values) < 2:
        return values[0] * 1000 if values else float("nan")
    return statistics.quantiles(values, n=1000, method="inclusive")[round(share * 1000) - 1] * 1000


def figures(tally: Tally, memory: int) -> str:
    clicks = tally.clicks
    worst = max(clicks, default=float("nan")) * 1000
    return (
        f"{len(clicks):6,} clicks {len(clicks) / tally.elapsed:5.0f}/s"
        f"  p50 {ms(clicks, 0.5):6.2f} ms  p99 {ms(clicks, 0.99):7.2f} ms  worst {worst:7.1f} ms"
        f"  failures {sum(tally.failures.values()) - tally.failures['chance: 429']}"
        f"  peak memory {memory / MB:.0f} MB"
    )


def failure_lines(label: str, tally: Tally) -> list[str]:
    return [
        f"  {label} failed: {kind} x{n}, {len(tally.who[kind])} of the players"
        f" ({tally.examples[kind]})"
        for kind, n in tally.failures.most_common()
    ]


def target(what: str, met: bool, shown: str) -> str:
    return f"  target: {what}: {'target met' if met else 'target MISSED'} ({shown})"


async def measure(
    port: int, args: argparse.Namespace, memory: Memory
) -> tuple[Tally, int, Tally, int, Attack, list[Player]]:
    think = args.think_ms / 1000
    players = [Player(Connection(port)) for _ in range(args.players)]
    memory.restart()
    baseline = await play(players, args.baseline_seconds, think)
    baseline_memory = memory.restart()
    attack = Attack(port, args.long_requests, args.flood, args.body_mb)
    until = time.perf_counter() + args.seconds
    attacked, _ = await asyncio.gather(play(players, args.seconds, think), attack.run(until))
    attacked_memory = memory.restart()
    await attack.close()
    for player in players:
        player.conn.close()
    return baseline, baseline_memory, attacked, attacked_memory, attack, players


async def stop_during_a_long_run(server: Server) -> tuple[float, int | None, str]:
    """Deal the endless round, ask it for LONG_COUNT battles, and send SIGTERM as soon as a
    click on the round is told that the run holds it. Returns the seconds the server took to
    stop, its exit status, and what became of the run's request."""
    conn, runner = Connection(server.port), Connection(server.port)
    answer = await conn.request("POST", "/api/rounds", ENDLESS, timeout=SLOW_S)
    path = f"/api/rounds/{json.loads(answer.body)['id']}/battles"
    running = asyncio.create_task(
        runner.request("POST", path, {"count": LONG_COUNT}, timeout=SLOW_S)
    )
    while not running.done():
        click = await conn.request("POST", path, {"count": 1})
        if click.status != 200:  # 429: busy with the long run
            break
    late = " (it was over before the SIGTERM)" if running.done() else ""
    stopped_in, status = await asyncio.to_thread(server.stop)
    try:
        met = f"answered {(await running).status}{late}"
    except (OSError, EOFError, TimeoutError, asyncio.IncompleteReadError) as error:
        met = f"not answered ({type(error).__name__})"
    conn.close()
    runner.close()
    return stopped_in, status, met


async def read_back(port: int, round_id: str) -> tuple[float, str]:
    """Read a round of a server just started (so from its snapshot): seconds, and what came."""
    conn = Connection(port)
    start = time.perf_counter()
    answer = await conn.request("GET", f"/api/rounds/{round_id}", timeout=SLOW_S)
    took = time.perf_counter() - start
    conn.close()
    if answer.status != 200:
        return float("nan"), f"{answer.status} {answer.detail()}"
    return took, f"{json.loads(answer.body)['battles']:,} battles"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20, help="the window under attack")
    parser.add_argument("--baseline-seconds", type=float, default=10, help="players alone")
    parser.add_argument("--think-ms", type=float, default=100, help="a player's pause")
    parser.add_argument("--long-requests", type=int, default=30)
    parser.add_argument("--flood", type=int, default=1500, help="new rounds the attacker asks")
    parser.add_argument("--body-mb", type=float, default=50, help="the oversized body")
    parser.add_argument("--memory-of", type=int, help=argparse.SUPPRESS)  # the sampler
    args = parser.parse_args()
    if args.memory_of is not None:
        sample_memory(args.memory_of)
        return

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        server = Server(db)
        memory = Memory(server.process.pid)
        stopped: tuple[float, int | None, str] | None = None
        try:
            baseline, base_mem, attacked, attack_mem, attack, players = run(
                measure(server.port, args, memory)
            )
            stopped = run(stop_during_a_long_run(server))
        finally:
            memory.stop()
            if stopped is None:
                server.stop()
        stopped_in, status, long_run = stopped
        rounds = answered(players)
        short = check_stored(db, rounds)
        errors = server.errors()
        again = Server(db)  # its log replaces the first one's, read just above
        try:
            read_s, read = run(read_back(again.port, attack.round_id))
        finally:
            again.stop()

    print(
        f"{args.players} players clicking one battle about every {args.think_ms:g} ms:"
        f" {args.baseline_seconds:g} s alone, then {args.seconds:g} s beside one attacker"
    )
    print(f"  baseline     {figures(baseline, base_mem)}")
    for line in attack.lines:
        print(f"  attacker     {line}")
    print(f"  under attack {figures(attacked, attack_mem)}")
    for line in (*failure_lines("baseline", baseline), *failure_lines("under attack", attacked)):
        print(line)
    p99, base_p99 = ms(attacked.clicks, 0.99), ms(baseline.clicks, 0.99)
    print(
        f"  under attack / baseline: p99 {p99 / base_p99:.2f}x,"
        f" p50 {ms(attacked.clicks, 0.5) / ms(baseline.clicks, 0.5):.2f}x,"
        f" peak memory {attack_mem / base_mem:.2f}x"
    )
    total = sum(rounds.values())
    lost = "every one stored" if not short else f"{len(short)} rounds short: {'; '.join(short[:3])}"
    print(f"  stored: {total:,} battles answered to the players in {len(rounds)} rounds, {lost}")
    if status is None:
        shown = "killed after 30 s"
    elif status < 0:
        shown = f"{signal.Signals(-status).name} raised again, as uvicorn does"
    else:
        shown = f"exit status {status}"
    print(
        f"  server: stopped {stopped_in:.1f} s after SIGTERM during a long run ({shown}; the run"
        f" {long_run}), {len(errors)} errors logged"
    )
    for line in errors[:5]:
        print(f"  server log: {line[:140]}")
    print(f"  restarted: the endless round read back in {read_s * 1000:.1f} ms ({read})")
    worst = max(attacked.clicks, default=float("nan")) * 1000
    failed = sum(attacked.failures.values())
    peak = max(base_mem, attack_mem) / MB
    print(target("players' p99 under 100 ms", p99 < 100, f"{p99:.2f} ms"))
    print(target("no click over 500 ms", worst <= 500, f"worst {worst:.1f} ms"))
    print(target("no failed click", failed == 0, f"{failed} failed"))
    print(target("peak memory under 300 MB", peak < 300, f"{peak:.0f} MB"))
    print(target("nothing lost", not short, f"{len(short)} rounds short"))
    story_s = attack.story_s
    print(target("the endless round's story in under 10 s", story_s < 10, f"{story_s:.2f} s"))
    print(target("stopped within 10 s of SIGTERM", stopped_in < 10, f"{stopped_in:.1f} s"))
    print(
        target(
            "read back from its snapshot in under 500 ms", read_s < 0.5, f"{read_s * 1000:.1f} ms"
        )
    )


if __name__ == "__main__":
    main()
