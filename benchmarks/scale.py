"""Several server processes: clicks a second and their p99 at 1, 2 and 4 processes on PostgreSQL
and Redis, beside one process on SQLite; then live tables spread over 2 processes.

    .venv/bin/python benchmarks/scale.py [--players 40] [--seconds 20] [--turns 4]
                                         [--tables 500 | --people 1000] [--table-seconds 30]
                                         [--postgres URL] [--redis URL]

Each server is `cardwar serve` on a loopback port of its own (benchmarks/harness.py's
`Server`), over a fresh database: a SQLite file, or a PostgreSQL schema of its own, dropped
after (on --postgres, this project's machines' by default); with PostgreSQL, `--workers N
--broker` the Redis at --redis under a key prefix of its own, deleted after. The clicks: for
--seconds, --players one-device players (harness's `Clicks`, from 2 loopback addresses) each
click "one battle" again as soon as the last is answered, so that the server, not their pace,
sets the rate; no chance to win is asked (benchmarks/load.py measures it). They run on one epoll
loop of their own rather than asyncio's: the client shares the cores with the servers, and
took 67 µs of them a click that way against 91 through asyncio. The four servers run at once
and take turns (--turns of --seconds / --turns each, one server after another): this machine
runs slower for a while now and then (its host slows it down after a minute or so of both
cores busy), and turns slow each server alike rather than whichever was measured then. The
live tables run first, on a machine not yet slowed by the clicks. At each turn's start the
players' connections are spread evenly over the server's processes, as a load balancer in
front of them would spread them (`Clicks.spread`); how the kernel gave them out is printed
beside, since it hands a connection to whichever process accepts first, and a burst of them
mostly to one. The live tables: --tables tables of two people, each flipping about once a
second for --table-seconds, as in benchmarks/tables.py, with 2 processes on PostgreSQL and
Redis; the kernel hands each socket to whichever process accepts it, so most tables have their
two people on different processes. The client's own cyclic collector is off while it measures
(harness's `collector_off`, as in benchmarks/tables.py). Printed beside: how it gave them
out, the cores each kind of process kept busy, and how late the client's own loop woke (a late
wake delays every flip it times as much).

The machine: 2 cores, shared by the client, the server processes, their worker processes,
PostgreSQL and Redis. Each row says what a click cost each of them in CPU, and how many cores
were busy: one process waits for PostgreSQL between clicks and leaves cores idle; 2 keep both
busy, and the ratio they can reach at most is printed (every core busy at what a click cost
them, over one process's rate).

Targets: 2 processes give at least 1.7x one process's clicks a second (PostgreSQL and Redis
both); live tables over 2 processes: flip to both told under 50 ms at p99, no battle lost or
duplicated, every battle told stored. A missed target is printed, never an exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from harness import (
    CPU_KINDS,
    Clicks,
    Connection,
    LiveTables,
    LoopLag,
    Player,
    Server,
    Tally,
    answered,
    check_stored,
    check_stored_tables,
    collector_off,
    cpu_by_kind,
    cpu_spent,
    live_figures,
    loopback,
    ms,
    run,
    serving,
    target,
)
from idle import more_files
from load import come_in


@contextlib.contextmanager
def postgres_schema(url: str) -> Iterator[str]:
    """A fresh schema of `url`'s database, as a URL whose tables go in it; dropped after."""
    import psycopg

    schema = f"bench_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            joined = "&" if "?" in url else "?"
            yield f"{url}{joined}options=-csearch_path%3D{schema}"
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


@contextlib.contextmanager
def redis_prefix(url: str) -> Iterator[str]:
    """`url` with a key prefix of its own; its keys deleted after."""
    import redis

    prefix = f"bench-{secrets.token_hex(6)}:"
    joined = "&" if "?" in url else "?"
    try:
        yield f"{url}{joined}prefix={prefix}"
    finally:
        client = redis.Redis.from_url(url)
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()


@dataclass
class Clicked:
    """One server's clicks, added up over its turns: the players' tally and the CPU seconds
    each kind of process used while they clicked."""

    server: Server
    processes: int
    db: Path | str
    players: list[Player]
    tally: Tally = field(default_factory=Tally)
    used: dict[str, float] = field(default_factory=lambda: dict.fromkeys(CPU_KINDS, 0.0))
    spreads: list[list[int]] = field(default_factory=list)  # the kernel's, at each turn

    def __post_init__(self) -> None:
        self.clicks = Clicks(self.server.port, self.players)

    def turn(self, seconds: float) -> None:
        """Click for `seconds` more, as fast as answered, the players' connections spread
        evenly over the processes first (they were closed at the end of the last turn)."""
        self.spreads.append(self.clicks.spread(self.server.process.pid, self.processes))
        with collector_off():  # its full collection first, not counted
            before = cpu_by_kind(self.server.process.pid)
            tally = self.clicks.run(seconds)
            spent = cpu_spent(before, cpu_by_kind(self.server.process.pid))
        for kind in CPU_KINDS:
            self.used[kind] += spent[kind]
        self.tally.add(tally)


async def come_in_everywhere(found: dict[str, Clicked]) -> None:
    """Every server's players get their ids (their cookies), and their connections close."""
    for one in found.values():
        await come_in(one.players)
        for player in one.players:
            player.conn.close()


def clicks(found: dict[str, Clicked], args: argparse.Namespace) -> None:
    """Every server's players click in turns of --seconds / --turns, the servers one after
    another, each turn starting with the next: a machine that runs slower for a while (its
    host slows it after a minute or so of both cores busy) slows each server alike, not the
    one measured then."""
    run(come_in_everywhere(found))
    labels = list(found)
    for turn in range(args.turns):
        for label in labels[turn % len(labels) :] + labels[: turn % len(labels)]:
            found[label].turn(args.seconds / args.turns)
    for one in found.values():
        one.clicks.end()


def measure_clicks(
    servers: dict[str, tuple[int, Path | str, Server]], args: argparse.Namespace
) -> dict[str, Clicked]:
    """Each server's clicks: their tally and CPU by kind, added up over the turns."""
    found = {
        label: Clicked(server, processes, db, [player(server.port, n) for n in range(args.players)])
        for label, (processes, db, server) in servers.items()
    }
    clicks(found, args)
    return found


def player(port: int, n: int) -> Player:
    """The `n`th one-device player, from one of 2 loopback addresses."""
    return Player(Connection(port, local=loopback(n % 2)))


async def tables(
    port: int, server_pid: int, args: argparse.Namespace
) -> tuple[Any, LiveTables, Spent]:
    live = LiveTables(port, args.tables, 1.0, first_address=2)
    await live.open()
    await live.join()
    await asyncio.sleep(1.0)
    held = Counter(serving(server_pid, port).values())  # how the kernel gave the sockets out
    lag = LoopLag()
    with collector_off():  # its full collection first, not counted
        before = cpu_by_kind(server_pid)
        tally, _ = await asyncio.gather(live.play(args.table_seconds), lag.run(args.table_seconds))
        spent = cpu_spent(before, cpu_by_kind(server_pid))
    await live.close()
    busy = {kind: spent[kind] / args.table_seconds for kind in CPU_KINDS}
    return tally, live, Spent(sorted(held.values(), reverse=True), lag, busy)


class Spent(NamedTuple):
    """What the live tables' processes did: how the kernel gave their sockets out, how late
    the client's loop woke, and the cores each kind of process kept busy."""

    held: list[int]
    lag: LoopLag
    busy: dict[str, float]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=40, help="players clicking at once")
    parser.add_argument("--seconds", type=float, default=20, help="each server's clicks")
    parser.add_argument("--turns", type=int, default=4, help="each server's seconds, in turns")
    parser.add_argument("--tables", type=int, default=500, help="live tables of two people")
    parser.add_argument("--table-seconds", type=float, default=30, help="the tables' flips")
    parser.add_argument(
        "--people", type=int, default=None,
        help="the live tables' people, instead of --tables (half as many tables of two)",
    )  # fmt: skip
    parser.add_argument("--no-clicks", dest="clicks", action="store_false", help="tables only")
    parser.add_argument(
        "--tables-on", choices=("postgres", "sqlite"), default="postgres", help="their database"
    )
    parser.add_argument("--postgres", default="postgresql://127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    if args.people is not None:
        args.tables = args.people // 2
    more_files()  # a socket each person, and the servers started here inherit the limit

    rows: list[tuple[str, Tally, list[str], list[str], dict[str, float]]] = []
    spreads: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        # The live tables first: this machine's host slows it down after a minute or so of both
        # cores busy (after 80 s of two busy loops, these tables' p99 went from 35 ms to 178),
        # and the clicks keep them busy for 80 s; their figure is a ratio, of servers that
        # take turns.
        with contextlib.ExitStack() as stack:
            broker = stack.enter_context(redis_prefix(args.redis))
            db: Path | str = here / "live.db"
            if args.tables_on == "postgres":
                db = stack.enter_context(postgres_schema(args.postgres))
            server = Server(db, "--workers", "2", "--broker", broker, log=here / "live.log")
            try:
                live_tally, live, held = run(tables(server.port, server.process.pid, args))
            finally:
                server.stop()
            short, untold = check_stored_tables(db, live.heard())
            live_errors = server.errors()
            live_log = server.log.read_text(errors="replace").splitlines()
        if args.clicks:
            with contextlib.ExitStack() as stack:
                servers: dict[str, tuple[int, Path | str, Server]] = {}
                for workers in (1, 2, 4):
                    url = stack.enter_context(postgres_schema(args.postgres))
                    broker = stack.enter_context(redis_prefix(args.redis))
                    extra = ("--workers", str(workers), "--broker", broker)
                    server = Server(url, *extra, log=here / f"pg-{workers}.log")
                    stack.callback(server.stop)
                    servers[f"PostgreSQL + Redis, {workers}"] = (workers, url, server)
                server = Server(here / "one.db", log=here / "one.log")
                stack.callback(server.stop)
                servers["SQLite, 1 process"] = (1, here / "one.db", server)
                found = measure_clicks(servers, args)
                for _, _, server in servers.values():
                    server.stop()  # so that its log is whole (its schema is dropped after)
                for label, one in found.items():
                    stored_short = check_stored(one.db, answered(one.players))
                    rows.append((label, one.tally, stored_short, one.server.errors(), one.used))
                    if one.processes > 1:
                        spreads[label] = ", ".join("+".join(map(str, n)) for n in one.spreads)

    print(
        f"{args.players} players clicking one battle as fast as each is answered, {args.seconds:g}"
        " s a server; every server on this machine's 2 cores with the client and the databases"
    )
    for label, tally, short_rounds, errors, used in rows:
        rate = len(tally.clicks) / tally.elapsed
        print(
            f"  {label:24} {len(tally.clicks):7,} clicks {rate:6.0f}/s"
            f"  p50 {ms(tally.clicks, 0.5):6.2f} ms  p99 {ms(tally.clicks, 0.99):7.2f} ms"
            f"  failures {sum(tally.failures.values())}  stored short {len(short_rounds)}"
            f"  errors logged {len(errors)}"
        )
        each = ", ".join(
            f"{kind} {used[kind] / max(len(tally.clicks), 1) * 1e6:.0f}" for kind in CPU_KINDS
        )
        busy = sum(used.values()) / tally.elapsed
        print(f"    CPU a click (us): {each}; cores busy {busy:.2f} of {os.cpu_count()}")
        if label in spreads:
            print(f"    connections as the kernel gave them out, each turn: {spreads[label]}")
        for line in errors[:3]:
            print(f"    logged: {line[:150]}")
    rates = {label: len(t.clicks) / t.elapsed for label, t, _, _, _ in rows}
    one = rates.get("PostgreSQL + Redis, 1", 0.0)
    for workers in (2, 4) if args.clicks else ():
        print(f"  {workers} processes / 1: {rates[f'PostgreSQL + Redis, {workers}'] / one:.2f}x")
    if args.clicks:
        # What the machine's cores allow 2 processes at most: every core busy, each click
        # costing what it cost them (client and databases included), against one process.
        _, tally, _, _, used = rows[1]
        per_click = sum(used.values()) / max(len(tally.clicks), 1)
        ceiling = (os.cpu_count() or 1) / per_click / one if one else float("nan")
        print(f"  the cores allow 2 processes at most {ceiling:.2f}x (at their CPU a click)")
    if args.clicks:
        print(f"  PostgreSQL + Redis, 1 / SQLite, 1: {one / rates['SQLite, 1 process']:.2f}x")
    print(
        f"live tables: {args.tables} of two people over 2 processes ({args.tables_on} + Redis),"
        " a flip"
        f" about every 1 s each for {args.table_seconds:g} s"
    )
    print(f"  flip to both told {live_figures(live_tally)}")
    print(f"  sockets as the kernel gave them out: {'+'.join(map(str, held.held))}")
    cores = ", ".join(f"{kind} {held.busy[kind]:.2f}" for kind in CPU_KINDS)
    worst = max(held.lag.lags, default=float("nan")) * 1000
    late = f"p99 {ms(held.lag.lags, 0.99):.1f} ms, worst {worst:.1f} ms"
    print(f"  cores busy: {cores}; the client's own loop woke late by {late}")
    print(
        f"  battles: lost {live_tally.lost}, duplicated {live_tally.duplicated}; stored short"
        f" {len(short)}, stored but never told {untold}; refused sockets"
        f" {sum(live.refused.values())}; errors logged {len(live_errors)}"
    )
    for why, count in live.refused.most_common():
        print(f"    refused: {why} x{count} (each process keeps `live_sockets` sockets at most)")
    said = [line for line in live_log if "out of reach" in line or "Error:" in line]
    for line in dict.fromkeys(said[:40]):
        print(f"    logged: {line[:150]}")
    for kind, count in live_tally.failures.items():
        print(f"  {kind}: {count} (for example {live_tally.examples[kind]})")
    if args.clicks:
        two = rates["PostgreSQL + Redis, 2"] / one
        print(target("2 processes at least 1.7x one's clicks a second", two >= 1.7, f"{two:.2f}x"))
    p99 = ms(live_tally.latencies, 0.99)
    print(target("live flip to both told under 50 ms at p99", p99 < 50, f"{p99:.2f} ms"))
    lost = live_tally.lost + live_tally.duplicated + untold + len(short)
    lost += sum(live_tally.failures.values())
    print(target("no battle lost or duplicated", lost == 0, f"{lost} lost or duplicated"))


if __name__ == "__main__":
    main()
