"""Honest players' clicks while one hostile client does its worst to the same server.

    .venv/bin/python benchmarks/hostile.py [--players 20] [--seconds 20] [--baseline-seconds 10]
                                           [--think-ms 100] [--long-requests 30] [--flood 1500]
                                           [--body-mb 50]
                                           [--live-tables 0] [--flip-s 1.0] [--socket-attacks 20]
                                           [--socket-flood 1000] [--fanout-plays 50]

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

The server's memory is the proportional size (PSS, harness.resident) of its process and all its
descendants (the worker process that plays long runs) together, sampled every 20 ms by a process
of its own; the peak of that sum is printed. After the server has stopped,
the database is checked: every battle answered to a player (its round and number) must be
stored.

Targets under attack: players' p99 under 100 ms, no click over 500 ms, no failed click, peak
memory under 300 MB, nothing lost; the endless round's story in under 10 s; stopped within
10 s of SIGTERM (it lets requests in flight finish for 8 s); the endless round read back from
its snapshot in under 500 ms. A missed target is printed, never an exit status: the script
fails only if it crashes. The ratios (under attack / baseline) are measured in the same run.

With --live-tables N (0, the default, leaves all this out and prints what it always has), N
live tables of two people (benchmarks/harness.py's `LiveTables`, as in benchmarks/tables.py: a
browser and a socket each, flipping about every --flip-s) play beside the players in both
windows, opened and joined before the baseline, and the same attacker also goes at the sockets
(docs/api.md#limits-of-live-tables), from its own table (its seat 1 the computer's):

- --socket-attacks sockets of each kind, 8 at a time, each counted by what became of it: from
  another page's Origin (to an honest table) and with no Origin, refused before they open (the
  handshake answered 403); to made-up table codes and watch codes (told so, closed 4404); a
  5 KB message from its own seat (closed 1009); 60 pings at once from its own seat (closed
  1008);
- a flood of --socket-flood sockets watching its own table, 32 at a time, each held open and
  never read (past the 256 live sockets the server lets one address keep, closed 1013); while
  they are held, an honest newcomer from an address of their own opens a socket to an honest
  table (one who opens an invite link to watch), and must be let in;
- then, as its table's host, --fanout-plays plays of 10 battles at 5 a second: each is told to
  every socket of the flood.

The tables' figures (flip to both told, as in benchmarks/tables.py) are printed alone and under
attack, with their ratio, and checked as there: every battle number heard once and in order by
every socket, every battle told stored. Their targets: p99 under 100 ms under attack, no battle
lost or duplicated, no honest socket closed or refused.

The server, the client, the players, the live tables and the memory sampler are
benchmarks/harness.py's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from harness import (
    JOIN_AT_ONCE,
    MB,
    TIMEOUT_S,
    Connection,
    Footprint,
    LiveTables,
    LiveTally,
    Memory,
    Player,
    Server,
    Tally,
    answered,
    check_stored,
    check_stored_tables,
    failure_lines,
    figures,
    gather_some,
    live_figures,
    load_average,
    loopback,
    made_up_cookie,
    ms,
    play,
    read_answer,
    run,
    target,
)

ENDLESS = {"rules": {"battle_limit": None, "gather": "table", "war_down": 0}, "seed": 39}
LONG_COUNT = 100_000
SLOW_S = 60.0  # the attacker's deal of the endless round, and its read, may wait for the worker


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


# -- the attacker's sockets (with --live-tables) -------------------------------------------------


class SocketAttack:
    """The same attacker at the live tables' sockets (docs/api.md#limits-of-live-tables); `lines`
    tells what it did and met, in order. Its own table is opened from its own address."""

    def __init__(self, port: int, args: argparse.Namespace, honest: LiveTables) -> None:
        self.port, self.honest = port, honest
        self.each, self.flood, self.plays = (
            args.socket_attacks,
            args.socket_flood,
            args.fanout_plays,
        )
        self.lines: list[str] = []
        self.held: list[Any] = []  # the flood's sockets, held open and never read
        self.newcomer_became = "never tried"  # the honest newcomer's socket, during the flood
        self.phases: dict[str, tuple[float, float]] = {}  # what it did when (perf_counter)
        self.started = 0.0
        self.origin = f"http://127.0.0.1:{port}"
        # An address of its own, so that the HTTP attacks above meet the limits they always met.
        self.local = loopback(1000)

    def note(self, text: str) -> None:
        self.lines.append(f"[{time.perf_counter() - self.started:5.1f} s] {text}")

    async def connect(
        self, path: str, *, origin: str | None = "", cookie: str = "", local: str = ""
    ) -> Any:
        """A socket to `path` from its address (or `local`), opened as a page would (its Origin
        this server's, unless `origin` says otherwise: None sends none), reading at most 4
        messages ahead."""
        return await connect(
            f"ws://127.0.0.1:{self.port}{path}",
            origin=self.origin if origin == "" else origin,
            additional_headers={"Cookie": cookie} if cookie else None,
            ping_interval=None, proxy=None, open_timeout=30, close_timeout=1, max_queue=4,
            local_addr=(local or self.local, 0),
        )  # fmt: skip

    async def outcome(self, path: str, send: list[str] | None = None, **how: Any) -> str:
        """Open a socket to `path`, send `send`, and read until the server closes it: what
        became of it (a refused handshake's status, or the close code)."""
        try:
            ws = await self.connect(path, **how)
        except InvalidStatus as error:
            return f"refused {error.response.status_code}"
        except (OSError, TimeoutError) as error:
            return f"not opened ({type(error).__name__})"
        try:
            for message in send or []:
                await ws.send(message)
            async with asyncio.timeout(10):
                async for _ in ws:
                    pass
        except ConnectionClosed:
            pass
        except TimeoutError:
            await ws.close()
            return "still open after 10 s"
        return f"closed {ws.close_code}"

    async def many(self, what: str, n: int, path: Any, **how: Any) -> None:
        """`n` sockets of one attack, 8 at a time, their outcomes counted."""
        outcomes = await gather_some([self.outcome(path(), **how) for _ in range(n)], 8)
        shown = ", ".join(f"{o} x{k}" for o, k in sorted(Counter(outcomes).items()))
        self.note(f"{n} {what}: {shown}")

    async def run(self, until: float) -> None:
        """Every attack in turn, then hold the flood's sockets open until `until`."""
        self.started = time.perf_counter()
        conn = Connection(self.port, local=self.local)
        seats = [{"kind": "person", "name": "Eve"}, {"kind": "computer", "name": ""}]
        while (answer := await conn.request("POST", "/api/tables", {"seats": seats})).status == 429:
            await asyncio.sleep(answer.retry_after())
        if answer.status != 201:
            self.note(f"opened a table of its own: {answer.status} {answer.detail()}")
            return
        opened = json.loads(answer.body)
        code, watch, cookie = opened["invite"]["code"], opened["table"]["watch"], conn.cookie
        own = f"/api/tables/{code}/live"
        self.note("opened a table of its own (its seat 1 the computer's)")
        honest = self.honest.playing[0].code
        each = self.each
        await self.many(
            "sockets to an honest table from another page's Origin", each,
            lambda: f"/api/tables/{honest}/live", origin="http://evil.example",
        )  # fmt: skip
        await self.many("sockets with no Origin", each, lambda: own, origin=None)
        await self.many(
            "sockets to made-up table codes",
            each,
            lambda: f"/api/tables/{secrets.token_urlsafe(16)}/live",
        )
        await self.many(
            "sockets to made-up watch codes",
            each,
            lambda: f"/api/watch/{secrets.token_urlsafe(16)}/live",
        )
        big = '{"type": "ping", "pad": "' + "x" * 5000 + '"}'
        await self.many(
            "5 KB messages (its own seat)", each, lambda: own, cookie=cookie,
            send=[big],
        )  # fmt: skip
        pings = ['{"type": "ping"}'] * 60
        await self.many("floods of 60 pings at once (its own seat)", each, lambda: own,
                        cookie=cookie, send=pings)  # fmt: skip
        try:
            host = await self.connect(own, cookie=cookie)  # before the flood fills the sockets
        except (OSError, TimeoutError) as error:
            self.note(f"its host's socket: not opened ({type(error).__name__})")
            return
        await self.flood_sockets(watch)
        await self.newcomer(honest)
        await self.fan_out(host)
        conn.close()
        await asyncio.sleep(max(0.0, until - time.perf_counter()))

    async def flood_sockets(self, watch: str) -> None:
        """Open `flood` sockets watching its own table, 32 at a time, and hold the ones the
        server lets in; count those it refuses by close code."""
        outcomes: Counter[str] = Counter()

        async def one() -> None:
            try:
                ws = await self.connect(f"/api/watch/{watch}/live")
                first = json.loads(await asyncio.wait_for(ws.recv(), 30))
                if first["type"] == "welcome":
                    self.held.append(ws)
                    outcomes["held open"] += 1
                    return
                async with asyncio.timeout(10):
                    async for _ in ws:
                        pass
            except ConnectionClosed:
                pass
            except InvalidStatus as error:
                outcomes[f"refused {error.response.status_code}"] += 1
                return
            except (OSError, TimeoutError) as error:
                outcomes[f"not opened ({type(error).__name__})"] += 1
                return
            outcomes[f"closed {ws.close_code}"] += 1

        start = time.perf_counter()
        await gather_some([one() for _ in range(self.flood)], JOIN_AT_ONCE)
        shown = ", ".join(f"{o} x{k}" for o, k in outcomes.most_common())
        took = time.perf_counter() - start
        self.phases["while the flood's sockets joined"] = (start, start + took)
        self.note(f"flood of {self.flood:,} sockets watching its table in {took:.1f} s: {shown}")

    async def newcomer(self, honest: str) -> None:
        """While the flood holds its sockets: an honest newcomer's socket to an honest table
        (one who opens the invite link and watches), from an address of their own."""
        try:
            ws = await self.connect(f"/api/tables/{honest}/live", local=loopback(1001))
            first = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if first["type"] == "welcome":
                became = "let in"
                await ws.close()
            else:
                async with asyncio.timeout(10):
                    async for _ in ws:
                        pass
                became = f"closed {ws.close_code}"
        except ConnectionClosed:
            became = f"closed {ws.close_code}"
        except (OSError, TimeoutError) as error:
            became = f"not opened ({type(error).__name__})"
        self.newcomer_became = became
        self.note(f"an honest newcomer's socket meanwhile (watching an honest table): {became}")

    async def fan_out(self, host: Any) -> None:
        """As its table's host, play 10 battles at a time, `plays` times at 5 a second: every
        socket of the flood is told each time (dealing the next round when one ends)."""
        start = time.perf_counter()
        told = 0
        try:
            for _ in range(self.plays):
                await host.send('{"type": "play"}')
                await asyncio.sleep(0.2)
                while True:  # what the host was told meanwhile
                    try:
                        message = json.loads(await asyncio.wait_for(host.recv(), 0.001))
                    except TimeoutError:
                        break
                    if message["type"] == "played":
                        told += 1
                        if message["round"]["outcome"] is not None:
                            await host.send('{"type": "next"}')
        except ConnectionClosed:
            pass
        closed = f", then closed {host.close_code}" if host.close_code else ""
        self.phases["while its table was played to them"] = (start, time.perf_counter())
        await host.close()
        still = sum(ws.close_code is None for ws in self.held)
        self.note(
            f"{self.plays} plays of 10 battles on its table in {time.perf_counter() - start:.1f} s,"
            f" each told to its {len(self.held)} watchers ({told} told to its host{closed});"
            f" {still} of them still open"
        )

    async def close(self) -> None:
        """Hang up the flood's sockets (the window is over)."""
        await asyncio.gather(*(ws.close() for ws in self.held), return_exceptions=True)


@dataclass
class Live:
    """The honest live tables of --live-tables, and what they met alone and under attack."""

    tables: LiveTables
    baseline: LiveTally | None = None
    attacked: LiveTally | None = None
    sockets: SocketAttack | None = None


async def live_play(live: Live | None, seconds: float) -> LiveTally | None:
    return None if live is None else await live.tables.play(seconds)


async def measure(
    port: int, args: argparse.Namespace, memory: Memory
) -> tuple[Tally, Footprint, Tally, Footprint, Attack, list[Player], Live | None]:
    think = args.think_ms / 1000
    players = [Player(Connection(port)) for _ in range(args.players)]
    live = None
    if args.live_tables:
        live = Live(LiveTables(port, args.live_tables, args.flip_s, first_address=1))
        await live.tables.open()
        await live.tables.join()
    memory.restart()
    baseline, live_baseline = await asyncio.gather(
        play(players, args.baseline_seconds, think), live_play(live, args.baseline_seconds)
    )
    baseline_memory = memory.restart()
    attack = Attack(port, args.long_requests, args.flood, args.body_mb)
    until = time.perf_counter() + args.seconds
    sockets = None if live is None else SocketAttack(port, args, live.tables)
    attacked, _, live_attacked, _ = await asyncio.gather(
        play(players, args.seconds, think),
        attack.run(until),
        live_play(live, args.seconds),
        asyncio.sleep(0) if sockets is None else sockets.run(until),
    )
    attacked_memory = memory.restart()
    await attack.close()
    for player in players:
        player.conn.close()
    if live is not None:
        assert sockets is not None
        await sockets.close()
        await live.tables.close()
        live.baseline, live.attacked, live.sockets = live_baseline, live_attacked, sockets
    return baseline, baseline_memory, attacked, attacked_memory, attack, players, live


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
    parser.add_argument(
        "--live-tables", type=int, default=0, help="honest live tables beside the players"
    )
    parser.add_argument("--flip-s", type=float, default=1.0, help="a person's pause between flips")
    parser.add_argument(
        "--socket-attacks", type=int, default=20, help="sockets of each attack on the sockets"
    )
    parser.add_argument(
        "--socket-flood", type=int, default=1000, help="sockets the attacker tries to hold"
    )
    parser.add_argument(
        "--fanout-plays", type=int, default=50, help="plays of 10 battles on its flooded table"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        server = Server(db)
        memory = Memory(server.process.pid)
        stopped: tuple[float, int | None, str] | None = None
        try:
            baseline, base_mem, attacked, attack_mem, attack, players, live = run(
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
        heard = {} if live is None else live.tables.heard()
        live_short, untold = check_stored_tables(db, heard)
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
        f" peak memory {attack_mem.pss / base_mem.pss:.2f}x"
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
    if live is not None:
        live_lines(args, live, heard, live_short, untold)
    worst = max(attacked.clicks, default=float("nan")) * 1000
    failed = sum(attacked.failures.values())
    peak = max(base_mem.pss, attack_mem.pss) / MB
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
    if live is not None:
        live_targets(live, live_short, untold)


def live_lines(
    args: argparse.Namespace, live: Live, heard: dict[str, list[int]], short: list[str], untold: int
) -> None:
    """The honest live tables alone and under attack, and the attacker's sockets."""
    assert live.baseline is not None and live.attacked is not None and live.sockets is not None
    tables = live.tables
    print(
        f"  live tables: {len(tables.playing)} of two people (a browser each) flipping about every"
        f" {args.flip_s:g} s, beside the players, alone and under attack"
    )
    if tables.refused:
        refused = ", ".join(f"{why} x{n}" for why, n in tables.refused.most_common())
        print(f"  live tables' sockets refused as they joined: {refused}")
    print(f"  live baseline     {live_figures(live.baseline)}")
    for line in live.sockets.lines:
        print(f"  socket attacker  {line}")
    print(f"  live under attack {live_figures(live.attacked)}")
    base, under = live.baseline.latencies, live.attacked.latencies
    during = list(zip(live.attacked.at, under, strict=True))
    rest = dict(during)
    for what, (start, end) in live.sockets.phases.items():
        within = [latency for at, latency in during if start <= at <= end]
        for at, _ in during:
            if start <= at <= end:
                rest.pop(at, None)
        print(f"    {what} ({end - start:.1f} s): {live_part(within)}")
    print(f"    the rest of the window: {live_part(list(rest.values()))}")
    print(
        f"  live under attack / baseline: p99 {ms(under, 0.99) / ms(base, 0.99):.2f}x,"
        f" p50 {ms(under, 0.5) / ms(base, 0.5):.2f}x"
    )
    for label, tally in (("baseline", live.baseline), ("under attack", live.attacked)):
        for kind, n in tally.failures.most_common():
            print(f"  live {label} failed: {kind} x{n} ({tally.examples[kind]})")
    lost = sum(t.lost for t in (live.baseline, live.attacked))
    duplicated = sum(t.duplicated for t in (live.baseline, live.attacked))
    battles = sum(sum(rounds) for rounds in heard.values())
    stored = "every one stored" if not short else f"{len(short)} short: {'; '.join(short[:3])}"
    print(
        f"  live stored: {battles:,} battles told to both people of each table, {stored};"
        f" lost {lost}, duplicated {duplicated}, stored but never told {untold}"
    )
    print(f"  machine: load average {load_average():.2f} after the run ({os.cpu_count()} cores)")


def live_part(latencies: list[float]) -> str:
    """The flips to both told of a part of the window."""
    worst = max(latencies, default=float("nan")) * 1000
    return (
        f"{len(latencies):,} battles, p50 {ms(latencies, 0.5):.2f} ms, p99"
        f" {ms(latencies, 0.99):.2f} ms, worst {worst:.1f} ms"
    )


def live_targets(live: Live, short: list[str], untold: int) -> None:
    assert live.baseline is not None and live.attacked is not None
    p99 = ms(live.attacked.latencies, 0.99)
    print(target("live tables' p99 under attack under 100 ms", p99 < 100, f"{p99:.2f} ms"))
    tallies = (live.baseline, live.attacked)
    wrong = sum(t.lost + t.duplicated for t in tallies) + len(short) + untold
    wrong += sum(t.failures["flipped for, never told to both"] for t in tallies)
    print(target("no live battle lost or duplicated", wrong == 0, f"{wrong} lost or duplicated"))
    closed = sum(n for t in tallies for kind, n in t.failures.items() if kind.startswith("socket"))
    closed += sum(live.tables.refused.values())
    print(target("no honest socket closed or refused", closed == 0, f"{closed}"))
    assert live.sockets is not None
    became = live.sockets.newcomer_became
    print(target("a newcomer let in while one address floods", became == "let in", became))


if __name__ == "__main__":
    main()
