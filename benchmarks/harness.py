"""What the HTTP benchmarks share: a server, a client, honest players, a memory sampler, figures.

`benchmarks/api.py`, `benchmarks/load.py` and `benchmarks/hostile.py` each measure something of
their own; everything they do alike is here, so that the three start the server, talk HTTP, keep
cookies, play like the page, sample memory and take percentiles the same way.

- `Server`: `cardwar serve` on a free loopback port over a fresh database, its log in a file.
- `Connection`: a minimal keep-alive HTTP/1.1 client on asyncio that keeps the cookie the server
  sets and sends it back, like a browser; `run` drives it on uvloop when it is installed (which
  took the client's own p99 from about 3 ms to 1 ms against a do-nothing server), so that the
  client takes as little as possible of the cores it shares with the server.
- `Player`, `play`: browsers that click one battle about every so often, dealing again when a
  round ends, and ask their chance to win after each battle if told to, as the page does;
  `Tally` is what they met, `answered` and `check_stored` check that every answered battle is
  in the database.
- `Memory`: the peak resident size of the server and all its descendants together, sampled every
  20 ms by a process of its own (`python benchmarks/harness.py --memory-of PID`), with psutil
  when it is installed, else /proc.
- `ms`, `figures`, `failure_lines`, `target`: how the figures are printed.
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
import time
from collections import Counter
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

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


@dataclass(slots=True)
class Answer:
    """One HTTP answer: its status, its headers (lower-case names) and its whole body."""

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
        """The seconds its `Retry-After` header asks for (1 when it has none)."""
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

    async def connect(self) -> None:
        """Open the connection now, rather than at the first request (so no request's time
        includes it)."""
        if self.writer is None or self.writer.is_closing():
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

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
        `timeout` None it waits as long as it takes, and costs the client nothing more (on
        Python 3.11 a timeout wraps every request in a task of its own)."""
        data = b"" if body is None else json.dumps(body).encode()
        try:
            if timeout is None:
                return await self._exchange(method, path, data, cookie)
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


START_S = 120.0  # a server neither listening nor exited after this long has hung


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


# -- the report ----------------------------------------------------------------------------------


def ms(values: list[float], share: float, method: str = "inclusive") -> float:
    """The `share` quantile of `values` (seconds) in milliseconds, by `statistics.quantiles`'s
    `method`."""
    if len(values) < 2:
        return values[0] * 1000 if values else float("nan")
    return statistics.quantiles(values, n=1000, method=method)[round(share * 1000) - 1] * 1000


def figures(tally: Tally, memory: int) -> str:
    """One line of a measurement: clicks, their rate and latency, failures, peak memory."""
    clicks = tally.clicks
    worst = max(clicks, default=float("nan")) * 1000
    return (
        f"{len(clicks):6,} clicks {len(clicks) / tally.elapsed:5.0f}/s"
        f"  p50 {ms(clicks, 0.5):6.2f} ms  p99 {ms(clicks, 0.99):7.2f} ms  worst {worst:7.1f} ms"
        f"  failures {sum(tally.failures.values()) - tally.failures['chance: 429']}"
        f"  peak memory {memory / MB:.0f} MB"
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
