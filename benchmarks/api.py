"""The web API under 20 concurrent players: a one-battle click beside a static file.

    .venv/bin/python benchmarks/api.py [--players 20] [--seconds 5] [--think-ms 100]

Starts `cardwar serve` on a loopback port over a fresh database. Each player is one keep-alive
connection that deals a round, clicks "one battle" (dealing again when a round ends) and, in the
other measurement, fetches a static file from the same server. Two loads, each measured for
both requests in the same run:

- paced: every player waits about --think-ms (0.5x to 1.5x, at random) between an answer
  and its next click; 100 ms is a very fast human. This is the latency a person feels.
  The target: a click under 10 ms at p99.
- flat out: no waiting, 20 requests always in flight; the most the server answers per second
  (latency there is mostly queueing: 20 in flight / requests per second).

The client is a minimal HTTP/1.1 client on asyncio, so that it takes as little as possible of
the two cores it shares with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path


class Connection:
    """One keep-alive HTTP/1.1 connection that sends a request and reads the whole answer."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def request(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return int(status_line.split()[1]), await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def new_round(conn: Connection) -> str:
    status, body = await conn.request("POST", "/api/rounds", {})
    assert status == 201, body
    return str(json.loads(body)["id"])


Worker = Callable[[Connection, float, float, list[float]], Awaitable[None]]


async def clicker(conn: Connection, until: float, think: float, latencies: list[float]) -> None:
    """Click one battle at a time; deal a new round whenever one ends."""
    round_id = await new_round(conn)
    while time.perf_counter() < until:
        start = time.perf_counter()
        status, body = await conn.request("POST", f"/api/rounds/{round_id}/battles", {"count": 1})
        latencies.append(time.perf_counter() - start)
        if status != 200 or b'"outcome":null}' not in body[-40:]:
            round_id = await new_round(conn)
        if think:
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)


async def fetcher(conn: Connection, until: float, think: float, latencies: list[float]) -> None:
    """Fetch the page's render module again and again."""
    while time.perf_counter() < until:
        start = time.perf_counter()
        status, _ = await conn.request("GET", "/static/render.js")
        latencies.append(time.perf_counter() - start)
        assert status == 200
        if think:
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)


async def measure(
    port: int, players: int, seconds: float, think: float, worker: Worker
) -> tuple[float, list[float]]:
    connections = [await Connection.open(port) for _ in range(players)]
    latencies: list[float] = []
    start = time.perf_counter()

    async def player(conn: Connection) -> None:
        # People do not click in step: each starts at its own moment.
        await asyncio.sleep(random.uniform(0, think))
        await worker(conn, start + seconds, think, latencies)

    await asyncio.gather(*(player(conn) for conn in connections))
    elapsed = time.perf_counter() - start
    for conn in connections:
        conn.close()
    return len(latencies) / elapsed, latencies


def start_server(db: Path) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    command = [sys.executable, "-m", "cardwar.cli", "serve", "--port", str(port), "--db", str(db)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("cardwar serve did not start")


def p(values: list[float], share: float) -> float:
    """The `share` quantile in milliseconds."""
    return statistics.quantiles(values, n=1000)[round(share * 1000) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5, help="length of each measurement")
    parser.add_argument("--think-ms", type=float, default=100, help="a paced player's pause")
    args = parser.parse_args()

    loads = {"paced": args.think_ms / 1000, "flat out": 0.0}
    workers: dict[str, Worker] = {"one-battle click": clicker, "static file": fetcher}
    with tempfile.TemporaryDirectory() as folder:
        server, port = start_server(Path(folder) / "bench.db")
        try:
            results = {
                (load, name): asyncio.run(measure(port, args.players, args.seconds, think, work))
                for load, think in loads.items()
                for name, work in workers.items()
            }
        finally:
            server.terminate()
            server.wait(10)

    print(
        f"{args.players} players, {args.seconds:g} s a measurement, paced = "
        f"{args.think_ms:g} ms between a player's requests"
    )
    for (load, name), (rate, latencies) in results.items():
        print(
            f"  {load:8} {name:16} {rate:7.0f} req/s  p50 {p(latencies, 0.5):6.2f} ms"
            f"  p99 {p(latencies, 0.99):6.2f} ms  ({len(latencies)} requests)"
        )
    for load in loads:
        click, static = results[(load, "one-battle click")], results[(load, "static file")]
        print(
            f"  {load:8} click / static: p99 {p(click[1], 0.99) / p(static[1], 0.99):.2f}x,"
            f" throughput {click[0] / static[0]:.2f}x"
        )
    paced_p99 = p(results[("paced", "one-battle click")][1], 0.99)
    print(
        f"  target: paced click p99 under 10 ms: {'meets' if paced_p99 < 10 else 'MISSES'}"
        f" ({paced_p99:.2f} ms)"
    )


if __name__ == "__main__":
    main()
