"""Many honest players at once: clicks a second, a click's latency and the server's memory.

    .venv/bin/python benchmarks/load.py [--players 100] [--seconds 30] [--think-ms 100]
                                        [--few-players 10] [--few-seconds 15]

Starts `cardwar serve` on a loopback port over a fresh database. Each player is a keep-alive
connection that keeps the cookie the server sets and sends it back like a browser, and clicks
"one battle" about every --think-ms (0.5x to 1.5x, at random), dealing a new round only when one
ends, and after each battle asks its chance to win (GET /api/rounds/{id}/chance), as the page
does (--no-chance leaves that out); any answer other than 200 (or a refused deal) is a failure,
except an estimate the server turns away when too many are asked at once (429, counted apart).
The server, the client and the players are benchmarks/harness.py's, as for benchmarks/hostile.py.

The players first come in and get their ids (GET /api/me). The server hands out 60 new ids at
once, then 2 a second, so past 60 players this takes a while; it is not measured. Then, in the
same run, --few-players of them play for --few-seconds, and all --players for --seconds: the
p99 and throughput ratios between the two loads are measured side by side.

The memory is the proportional size (PSS, harness.resident) of the server and its
descendants together, sampled every 20 ms; the peak of each load is printed, and the server's
at rest (its players' ids handed out, nothing played). Since the page shows the chance to win,
the server loads numba and the simulator's compiled code as it starts (about 110 MB of its size
at rest), so the 100 MB target set before that (57 MB then) is no longer met; what players add
on top is measured beside it.
The targets: at least 95% of the clicks the players' pace allows (players x 1000 / think-ms a
second), p99 under 10 ms (a click's target in benchmarks/api.py), peak memory under 100 MB, no
failed click, and every answered battle stored.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from harness import (
    Connection,
    Footprint,
    Memory,
    Player,
    Server,
    Tally,
    answered,
    check_stored,
    failure_lines,
    figures,
    ms,
    play,
    run,
    target,
)


async def come_in(players: list[Player]) -> float:
    """Each player gets its id, waiting as long as the server's Retry-After says; returns the
    seconds it took for them all."""
    start = time.perf_counter()
    for player in players:
        while True:
            answer = await player.conn.request("GET", "/api/me")
            if answer.status == 200:
                break
            if answer.status != 429:
                raise SystemExit(f"GET /api/me: {answer.status} {answer.detail()}")
            await asyncio.sleep(answer.retry_after())
    return time.perf_counter() - start


async def measure(
    port: int, args: argparse.Namespace, memory: Memory
) -> tuple[float, Footprint, list[tuple[int, Tally, Footprint]], list[Player]]:
    think = args.think_ms / 1000
    players = [Player(Connection(port)) for _ in range(args.players)]
    came_in = await come_in(players)
    results = []
    at_rest = memory.restart()
    for count, seconds in ((args.few_players, args.few_seconds), (args.players, args.seconds)):
        memory.restart()
        tally = await play(players[:count], seconds, think, chance=args.chance)
        results.append((count, tally, memory.restart()))
    for player in players:
        player.conn.close()
    return came_in, at_rest, results, players


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30, help="length of the full load")
    parser.add_argument("--think-ms", type=float, default=100, help="a player's pause")
    parser.add_argument("--few-players", type=int, default=10, help="the load to compare with")
    parser.add_argument("--few-seconds", type=float, default=15, help="length of that load")
    parser.add_argument(
        "--no-chance",
        dest="chance",
        action="store_false",
        help="click only; by default each battle is followed by its chance to win, as in the page",
    )
    args = parser.parse_args()
    args.few_players = min(args.few_players, args.players)

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        server = Server(db)
        memory = Memory(server.process.pid)
        try:
            came_in, at_rest, results, players = run(measure(server.port, args, memory))
        finally:
            memory.stop()
            server.stop()
        rounds = answered(players)
        short = check_stored(db, rounds)
        errors = server.errors()

    print(
        f"{args.players} players clicking one battle about every {args.think_ms:g} ms for"
        f" {args.seconds:g} s; beside it, {args.few_players} for {args.few_seconds:g} s"
    )
    print(f"  ids: the {args.players} players got theirs in {came_in:.1f} s (not measured)")
    print(f"  server at rest: {at_rest} (numba and the simulator's code loaded)")
    for count, tally, peak in results:
        print(f"  {count:4} players {figures(tally, peak)}")
        if args.chance:
            asked = tally.chances
            away = tally.failures["chance: 429"]
            print(
                f"  {'':4}   chance {len(asked):6,} asked  {len(asked) / tally.elapsed:5.0f}/s"
                f"  p50 {ms(asked, 0.5):6.2f} ms  p99 {ms(asked, 0.99):7.2f} ms"
                f"  turned away (429, the server busy with estimates) {away:,}"
            )
    for count, tally, _ in results:
        del tally.failures["chance: 429"]  # an estimate turned away is shown above, not a failure
        for line in failure_lines(f"{count} players", tally):
            print(line)
    (few, few_tally, _), (many, tally, peak) = results
    p99 = ms(tally.clicks, 0.99)
    rate = len(tally.clicks) / tally.elapsed
    few_rate = len(few_tally.clicks) / few_tally.elapsed
    print(
        f"  {many} / {few} players: p99 {p99 / ms(few_tally.clicks, 0.99):.2f}x,"
        f" p50 {ms(tally.clicks, 0.5) / ms(few_tally.clicks, 0.5):.2f}x,"
        f" throughput {rate / few_rate:.2f}x, memory over rest"
        f" {(peak.pss - at_rest.pss) / 2**20:.0f} MB against"
        f" {(results[0][2].pss - at_rest.pss) / 2**20:.0f} MB"
    )
    total = sum(rounds.values())
    lost = "every one stored" if not short else f"{len(short)} rounds short: {'; '.join(short[:3])}"
    print(f"  stored: {total:,} battles answered to the players in {len(rounds)} rounds, {lost}")
    print(f"  server: {len(errors)} errors logged")
    for line in errors[:5]:
        print(f"  server log: {line[:140]}")
    pace = args.players * 1000 / args.think_ms
    failed = sum(f for _, t, _ in results for f in t.failures.values())
    print(target(f"at least {0.95 * pace:.0f} clicks/s", rate >= 0.95 * pace, f"{rate:.0f}/s"))
    print(target("p99 under 10 ms", p99 < 10, f"{p99:.2f} ms"))
    print(target("peak memory under 100 MB", peak.pss < 100 * 2**20, f"{peak}"))
    print(target("no failed click", failed == 0, f"{failed} failed"))
    print(target("nothing lost", not short, f"{len(short)} rounds short"))


if __name__ == "__main__":
    main()
