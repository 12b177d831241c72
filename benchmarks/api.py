"""The web API under 20 concurrent players: a one-battle click beside a static file.

    .venv/bin/python benchmarks/api.py [--players 20] [--paced-seconds 20] [--flat-seconds 5]
                                       [--think-ms 100]

Starts `cardwar serve` on a loopback port over a fresh database. Each player is one keep-alive
connection that deals a round, clicks "one battle" (dealing again when a round ends) and, in the
other measurement, fetches a static file from the same server. Two loads, each measured for
both requests in the same run:

- paced: every player waits about --think-ms (0.5x to 1.5x, at random) between an answer
  and its next click; 100 ms is a very fast human. This is the latency a person feels.
  The target: a click under 10 ms at p99.
- flat out: no waiting, 20 requests always in flight; the most the server answers per second
  (latency there is mostly queueing: 20 in flight / requests per second).

The server and the client are benchmarks/harness.py's: a minimal HTTP/1.1 client on asyncio (on
uvloop when it is installed, which took the client's own p99 from about 3 ms to 1 ms against a
do-nothing server), here with no timeout on its requests, so that it takes as little as possible
of the two cores it shares with the server.

While the paced clicks run, a probe process times a fixed piece of pure Python (7,000 additions,
about 0.25 ms here) at random moments: the machine's own tail for work the size of a click, side
by side. On the machine this was written on, short work runs several times slower for tens of
milliseconds every second or two; a click's p99 rises and falls with the probe's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from harness import Connection, Server, ms, run

PROBE_ADDITIONS = 7000  # about 0.25 ms here: the order of a click's own CPU in the server


async def new_round(conn: Connection) -> str:
    answer = await conn.request("POST", "/api/rounds", {}, timeout=None)
    assert answer.status == 201, answer.body
    return str(json.loads(answer.body)["id"])


Worker = Callable[[Connection, float, float, list[float]], Awaitable[None]]


async def clicker(conn: Connection, until: float, think: float, latencies: list[float]) -> None:
    """Click one battle at a time; deal a new round whenever one ends."""
    round_id = await new_round(conn)
    while time.perf_counter() < until:
        start = time.perf_counter()
        answer = await conn.request(
            "POST", f"/api/rounds/{round_id}/battles", {"count": 1}, timeout=None
        )
        latencies.append(time.perf_counter() - start)
        if answer.status != 200 or b'"outcome":null}' not in answer.body[-40:]:
            round_id = await new_round(conn)
        if think:
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)


async def fetcher(conn: Connection, until: float, think: float, latencies: list[float]) -> None:
    """Fetch the page's largest words module (tell.js) again and again."""
    while time.perf_counter() < until:
        start = time.perf_counter()
        answer = await conn.request("GET", "/static/tell.js", timeout=None)
        latencies.append(time.perf_counter() - start)
        assert answer.status == 200
        if think:
            await asyncio.sleep(random.uniform(0.5, 1.5) * think)


async def measure(
    port: int, players: int, seconds: float, think: float, worker: Worker
) -> tuple[float, list[float]]:
    connections = [Connection(port) for _ in range(players)]
    for conn in connections:
        await conn.connect()
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


def work(n: int) -> int:
    """A fixed piece of pure-Python work: `n` additions."""
    total = 0
    for i in range(n):
        total += i
    return total


def probe(seconds: float) -> None:
    """Time PROBE_ADDITIONS of Python at random moments for `seconds`; print the times as JSON."""
    durations = []
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        time.sleep(random.uniform(0.002, 0.008))
        began = time.perf_counter()
        work(PROBE_ADDITIONS)
        durations.append(time.perf_counter() - began)
    print(json.dumps(durations))


def p(values: list[float], share: float) -> float:
    """The `share` quantile in milliseconds, by the "exclusive" method: this benchmark's figures
    in benchmarks/README.md were measured so (load.py and hostile.py take "inclusive" ones)."""
    return ms(values, share, method="exclusive")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--paced-seconds", type=float, default=20, help="length of a paced run")
    parser.add_argument("--flat-seconds", type=float, default=5, help="length of a flat-out run")
    parser.add_argument("--think-ms", type=float, default=100, help="a paced player's pause")
    parser.add_argument("--probe", type=float, help=argparse.SUPPRESS)  # the probe process
    args = parser.parse_args()
    if args.probe is not None:
        probe(args.probe)
        return

    loads = {
        "paced": (args.think_ms / 1000, args.paced_seconds),
        "flat out": (0.0, args.flat_seconds),
    }
    workers: dict[str, Worker] = {"one-battle click": clicker, "static file": fetcher}
    results: dict[tuple[str, str], tuple[float, list[float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        server = Server(Path(folder) / "bench.db")
        port = server.port
        try:
            for load, (think, seconds) in loads.items():
                for name, worker in workers.items():
                    prober = None
                    if (load, name) == ("paced", "one-battle click"):
                        command = [sys.executable, __file__, "--probe", str(seconds)]
                        prober = subprocess.Popen(command, stdout=subprocess.PIPE)
                    results[(load, name)] = run(measure(port, args.players, seconds, think, worker))
                    if prober is not None:
                        out, _ = prober.communicate(timeout=seconds + 30)
                        results[(load, "CPU probe")] = (0.0, json.loads(out))
        finally:
            server.stop()

    print(
        f"{args.players} players; paced: {args.paced_seconds:g} s, about {args.think_ms:g} ms"
        f" between a player's requests; flat out: {args.flat_seconds:g} s"
    )
    for (load, name), (rate, latencies) in results.items():
        if name == "CPU probe":
            label = f"{PROBE_ADDITIONS:,} additions"
            print(
                f"  {load:8} {label:16} {'':7}         p50 {p(latencies, 0.5):6.2f} ms"
                f"  p99 {p(latencies, 0.99):6.2f} ms  ({len(latencies)} runs of a probe"
                " process beside the clicks: the machine's own tail)"
            )
            continue
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
    probe_p99 = p(results[("paced", "CPU probe")][1], 0.99)
    print(f"  paced    click / probe: p99 {paced_p99 / probe_p99:.2f}x")
    print(
        f"  target: paced click p99 under 10 ms: {'meets' if paced_p99 < 10 else 'MISSES'}"
        f" ({paced_p99:.2f} ms)"
    )


if __name__ == "__main__":
    main()
