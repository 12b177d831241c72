"""Several server processes: clicks a second and their p99 at 1, 2 and 4 processes on PostgreSQL
and Redis, beside one process on SQLite; then live tables spread over 2 processes.

    .venv/bin/python benchmarks/scale.py [--players 40] [--seconds 20] [--tables 500]
                                         [--table-seconds 30] [--postgres URL] [--redis URL]

Each server is `cardwar serve` on a loopback port of its own (benchmarks/harness.py's
`Server`), over a fresh database: a SQLite file, or a PostgreSQL schema of its own, dropped
after (on --postgres, this project's machines' by default); with PostgreSQL, `--workers N
--broker` the Redis at --redis under a key prefix of its own, deleted after. The clicks: for
--seconds, --players one-device players (harness's, from 2 loopback addresses) each click "one
battle" again as soon as the last is answered, so that the server, not their pace, sets the
rate; no chance to win is asked (benchmarks/load.py measures it). The live tables: --tables
tables of two people, each flipping about once a second for --table-seconds, as in
benchmarks/tables.py, with 2 processes on PostgreSQL and Redis; the kernel hands each socket
to whichever process accepts it, so most tables have their two people on different processes.

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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness import (
    CPU_KINDS,
    Connection,
    LiveTables,
    Player,
    Server,
    Tally,
    answered,
    check_stored,
    check_stored_tables,
    cpu_by_kind,
    live_figures,
    loopback,
    ms,
    play,
    run,
    target,
)
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


async def clicks(port: int, args: argparse.Namespace) -> tuple[Tally, list[Player]]:
    players = [Player(Connection(port, local=loopback(n % 2))) for n in range(args.players)]
    await come_in(players)
    tally = await play(players, args.seconds, think=0.0)
    for player in players:
        player.conn.close()
    return tally, players


def measure_clicks(db: Path | str, log: Path, args: argparse.Namespace, *extra: str) -> Any:
    """One server's clicks: (tally, rounds stored short, errors logged, CPU seconds by kind
    while they were clicked)."""
    server = Server(db, *extra, log=log)
    try:
        before = cpu_by_kind(server.process.pid)
        tally, players = run(clicks(server.port, args))
        after = cpu_by_kind(server.process.pid)
    finally:
        server.stop()
    rounds = answered(players)
    used = {kind: after[kind] - before[kind] for kind in CPU_KINDS}
    return tally, check_stored(db, rounds), server.errors(), used


async def tables(port: int, args: argparse.Namespace) -> tuple[Any, LiveTables]:
    live = LiveTables(port, args.tables, 1.0, first_address=2)
    await live.open()
    await live.join()
    await asyncio.sleep(1.0)
    tally = await live.play(args.table_seconds)
    await live.close()
    return tally, live


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=40, help="players clicking at once")
    parser.add_argument("--seconds", type=float, default=20, help="each server's clicks")
    parser.add_argument("--tables", type=int, default=500, help="live tables of two people")
    parser.add_argument("--table-seconds", type=float, default=30, help="the tables' flips")
    parser.add_argument("--no-clicks", dest="clicks", action="store_false", help="tables only")
    parser.add_argument(
        "--tables-on", choices=("postgres", "sqlite"), default="postgres", help="their database"
    )
    parser.add_argument("--postgres", default="postgresql://127.0.0.1:5432/test")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()

    rows: list[tuple[str, Tally, list[str], list[str], dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        for workers in (1, 2, 4) if args.clicks else ():
            with postgres_schema(args.postgres) as db, redis_prefix(args.redis) as broker:
                log = here / f"pg-{workers}.log"
                extra = ("--workers", str(workers), "--broker", broker)
                found = measure_clicks(db, log, args, *extra)
            rows.append((f"PostgreSQL + Redis, {workers}", *found))
        if args.clicks:
            found = measure_clicks(here / "one.db", here / "one.log", args)
            rows.append(("SQLite, 1 process", *found))
        with contextlib.ExitStack() as stack:
            broker = stack.enter_context(redis_prefix(args.redis))
            db: Path | str = here / "live.db"
            if args.tables_on == "postgres":
                db = stack.enter_context(postgres_schema(args.postgres))
            server = Server(db, "--workers", "2", "--broker", broker, log=here / "live.log")
            try:
                live_tally, live = run(tables(server.port, args))
            finally:
                server.stop()
            short, untold = check_stored_tables(db, live.heard())
            live_errors = server.errors()
            live_log = server.log.read_text(errors="replace").splitlines()

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
    print(
        f"  battles: lost {live_tally.lost}, duplicated {live_tally.duplicated}; stored short"
        f" {len(short)}, stored but never told {untold}; refused sockets"
        f" {sum(live.refused.values())}; errors logged {len(live_errors)}"
    )
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
