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
its snapshot in under 500 ms. A missed target is printed, never an exit status: the script
fails only if it crashes. The ratios (under attack / baseline) are measured in the same run.

The server, the client, the players and the memory sampler are benchmarks/harness.py's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path

from harness import (
    MB,
    TIMEOUT_S,
    Connection,
    Memory,
    Player,
    Server,
    Tally,
    answered,
    check_stored,
    failure_lines,
    figures,
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
    args = parser.parse_args()

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
