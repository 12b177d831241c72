"""Live tables: people each on their own device, over WebSockets, beside today's one-device click.

    .venv/bin/python benchmarks/tables.py [--tables 500] [--seconds 60] [--flip-s 1.0]
                                          [--clickers 10] [--click-ms 200]
                                          [--baseline-seconds 10] [--battle-limit N]
    .venv/bin/python benchmarks/tables.py --sockets 10000

With --sockets N, only this: N / 2 tables of two people, every person's socket opened and left
idle, and the server process's resident size at rest, with the tables open and with every socket
open: what an idle socket costs, its table's share included, beside the server at rest; and
whether any socket's handshake agreed to permessage-deflate, which every one offers. The server
is `cardwar serve` with room made for N sockets (benchmarks/idle.py). Target: at most 16 KB a
socket, its table's share included.

Starts `cardwar serve` on a loopback port over a fresh database, with its settings as shipped.
First --clickers one-device players (benchmarks/harness.py's, as in benchmarks/load.py) click
"one battle" (POST /api/rounds/{id}/battles with {"count": 1}) about every --click-ms, alone for
--baseline-seconds: the click alone. Then --tables live tables are opened, each of two people
with a browser (a cookie) of their own: the host opens it (POST /api/tables, rules of two
players, classic unless --battle-limit is given) and the guest takes seat 1 through its invite
(POST /api/tables/{code}/seats), and each person's socket joins (/api/tables/{code}/live, its
Origin the page's own, its cookie the seat). Then, for --seconds, each person flips about every
--flip-s (0.9x to 1.1x, from a moment of their own), for the battle after the last one their
socket heard, and the host deals the next round (`next`) when one ends; the clickers click
beside them, in the same window.

The figures:

- flip to both told: for each battle, from the moment the last of its two flips was sent to the
  moment both people's sockets had its `played` message, read and parsed (p50, p99, max);
- the click beside the tables, and alone before them (harness's figures), and the ratios of
  the flip to the click beside it and of the click beside to the click alone;
- the server's peak memory: the proportional size (PSS, harness.resident) of its process and
  all its descendants together (sampled every 20 ms by a process of its own), at rest, with
  every socket open and idle, and at the peak of the window;
- battles lost or duplicated: every socket must hear every battle number of its round once, in
  order (the `played` messages' `battles[].number`, and `round.battles` their last), and the two
  people of a table the same battles; after the server has stopped, the database must hold every
  battle told, and no battle that was not told;
- the client's own share: its processor time and its event loop's lateness (a 10 ms sleep,
  over and over), the server's processor time and the machine's load average, beside the
  window: the client and the server share this machine's cores, and a late client loop delays
  every figure it times. The client's own cyclic collector is off while it measures (with a
  thousand sockets' objects it stopped the client's loop for tens of milliseconds now and then);
  the server's is left as it is.

Limits the set-up meets, all the server's own (docs/api.md#rate-limits,
docs/api.md#limits-of-live-tables): a browser may have 8 tables open, so each host is a browser
of their own; the server keeps 1,000 live sockets at once (`live_sockets`, which `cardwar serve`
does not set), so 500 tables of two fill it exactly and the sockets of any table beyond are
refused (1013, counted); a network address gets 60 new ids at once, then 2 a second, and 120
writes at once, then 4 a second (a table opened and a seat taken are each a new id and a write),
so the people come from loopback addresses of their own, 20 an address (127.1.0.10 on, as
households behind their routers); the whole server takes 600 writes at once, then 20 a second,
so the set-up waits out the 429s it meets (counted). The set-up is not measured.

Targets: flip to both told under 50 ms at p99, the server's peak memory under 400 MB, no battle
lost or duplicated (and every one told stored). A missed target is printed, never an exit status:
the script fails only if it crashes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import (
    JOIN_AT_ONCE,
    MB,
    PEOPLE_PER_ADDRESS,
    Connection,
    LiveTables,
    LiveTally,
    LoopLag,
    Memory,
    Player,
    Server,
    Tally,
    answered,
    check_stored,
    check_stored_tables,
    collector_off,
    cpu_seconds,
    failure_lines,
    figures,
    gather_some,
    live_figures,
    load_average,
    loopback,
    ms,
    play,
    run,
    target,
)
from idle import IdleServer, extensions, hold, more_files, settled, simulator_ready
from load import come_in

SOCKETS = 1000  # the server's live_sockets as shipped (src/cardwar/web/settings.py)


async def measure(port: int, pid: int, args: argparse.Namespace, memory: Memory) -> dict[str, Any]:
    think = args.click_ms / 1000
    clickers = [Player(Connection(port, local=loopback(0))) for _ in range(args.clickers)]
    await come_in(clickers)
    found: dict[str, Any] = {"at_rest": memory.restart()}
    alone_lag = LoopLag()
    with collector_off():
        alone, _ = await asyncio.gather(
            play(clickers, args.baseline_seconds, think), alone_lag.run(args.baseline_seconds)
        )
    found.update(alone=alone, alone_memory=memory.restart(), alone_lag=alone_lag)

    rules = {} if args.battle_limit is None else {"battle_limit": args.battle_limit}
    live = LiveTables(port, args.tables, args.flip_s, first_address=1, rules=rules)
    found["opened_s"] = await live.open()
    found["joined_s"] = await live.join()
    found["setup_memory"] = memory.restart()
    await asyncio.sleep(1.0)  # every socket open, nobody flipping
    found["idle_memory"] = memory.restart()

    lag = LoopLag()
    found["load"] = [load_average()]
    cpu, client_cpu, start = cpu_seconds(pid), time.process_time(), time.perf_counter()
    with collector_off():
        tally, beside, _ = await asyncio.gather(
            live.play(args.seconds), play(clickers, args.seconds, think), lag.run(args.seconds)
        )
    elapsed = time.perf_counter() - start
    found["load"].append(load_average())
    found.update(
        tally=tally, beside=beside, lag=lag, memory=memory.restart(),
        server_cpu=(cpu_seconds(pid) - cpu) / elapsed,
        client_cpu=(time.process_time() - client_cpu) / elapsed,
    )  # fmt: skip
    await live.close()
    for player in clickers:
        player.conn.close()
    found.update(live=live, clickers=clickers)
    return found


async def measure_idle(server: IdleServer, sockets: int) -> dict[str, Any]:
    """Open `sockets` / 2 tables of two people and every person's socket, left idle; the server
    process's memory at rest, with the tables open, and with every socket open."""
    pid, port = server.process.pid, server.port
    await simulator_ready(port)
    found: dict[str, Any] = {"at_rest": await settled(pid)}  # its start over
    live = LiveTables(port, sockets // 2, 1.0, first_address=1)
    found["opened_s"] = await live.open()
    found["tables"] = await settled(pid)
    people = [person for table in live.tables for person in table.people]
    start = time.perf_counter()
    held = await gather_some(
        [
            hold(port, f"/api/tables/{p.table.code}/live", p.conn.cookie, p.conn.local_addr[0])
            for p in people
        ],
        JOIN_AT_ONCE,
    )
    found["joined_s"] = time.perf_counter() - start
    found["open"] = await settled(pid)  # every socket in and idle: nothing said at any table
    found["joined"] = [head for _, head in held if head is not None]
    found["live"] = live
    for transport, _ in held:
        transport.close()
    return found


def idle_main(args: argparse.Namespace) -> None:
    """`--sockets N`: what an idle socket costs the server's memory, its table's share included,
    beside the server at rest in the same run."""
    files = more_files()
    with tempfile.TemporaryDirectory() as folder:
        server = IdleServer(Path(folder) / "idle.db", args.sockets)
        try:
            found = run(measure_idle(server, args.sockets))
        finally:
            server.stop()
    joined, live = found["joined"], found["live"]
    (rest, rest_pss), (tables, _), (open_, open_pss) = (
        found["at_rest"], found["tables"], found["open"]
    )  # fmt: skip
    n = max(1, len(joined))
    told = {extensions(head) for head in joined}
    print(
        f"{args.sockets:,} idle live sockets: {args.sockets // 2:,} tables of two people, each"
        f" seated, every socket welcomed and shown its table, then nothing said; one server"
        f" process (open files: {files:,} here and there)"
    )
    waited = ", ".join(f"{what} x{n}" for what, n in live.waited.most_common()) or "none"
    print(
        f"  set-up (not measured): tables opened in {found['opened_s']:.1f} s (429s waited out:"
        f" {waited}); {len(joined):,} sockets joined in {found['joined_s']:.1f} s from"
        f" {live.addresses} loopback addresses; {args.sockets - len(joined):,} refused"
    )
    deflate = "accepted by none" if told == {""} else f"answered {sorted(told)}"
    print(f"  permessage-deflate: offered by every socket, {deflate}")
    print(
        f"  server process RSS: {rest / MB:.1f} MB at rest, {tables / MB:.1f} MB with the tables"
        f" open, {open_ / MB:.1f} MB with every socket open ({open_ / rest:.2f}x at rest);"
        f" PSS {rest_pss / MB:.1f} and {open_pss / MB:.1f} MB"
    )
    each, alone = (open_ - rest) / n, (open_ - tables) / n
    print(
        f"  a socket: {each / 1024:.1f} KB, its table's share included (over the server at"
        f" rest); {alone / 1024:.1f} KB the socket alone (over the tables open)"
    )
    print(target("an idle socket at most 16 KB, its table's share included", each <= 16 * 1024,
                 f"{each / 1024:.1f} KB"))  # fmt: skip
    print(target("no permessage-deflate", told == {""}, deflate))


def lag_line(lag: LoopLag) -> str:
    worst = max(lag.lags, default=float("nan")) * 1000
    return (
        f"loop late p50 {ms(lag.lags, 0.5):.2f} ms, p99 {ms(lag.lags, 0.99):.2f} ms,"
        f" worst {worst:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=500, help="live tables of two people")
    parser.add_argument("--seconds", type=float, default=60, help="the window of flips")
    parser.add_argument("--flip-s", type=float, default=1.0, help="a person's pause between flips")
    parser.add_argument("--clickers", type=int, default=10, help="one-device players beside")
    parser.add_argument("--click-ms", type=float, default=200, help="a clicker's pause")
    parser.add_argument("--baseline-seconds", type=float, default=10, help="the clickers alone")
    parser.add_argument(
        "--battle-limit", type=int, default=None, help="the tables' rounds end after N battles"
    )
    parser.add_argument(
        "--sockets", type=int, default=None,
        help="instead: this many idle sockets (half as many tables), the server's memory each",
    )  # fmt: skip
    args = parser.parse_args()
    if args.sockets is not None:
        idle_main(args)
        return

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        server = Server(db)
        memory = Memory(server.process.pid)
        try:
            found = run(measure(server.port, server.process.pid, args, memory))
        finally:
            memory.stop()
            server.stop()
        live: LiveTables = found["live"]
        heard = live.heard()
        short, untold = check_stored_tables(db, heard)
        clicked = answered(found["clickers"])
        clicks_short = check_stored(db, clicked)
        errors = server.errors()

    tally: LiveTally = found["tally"]
    alone: Tally = found["alone"]
    beside: Tally = found["beside"]
    playing = len(live.playing)
    print(
        f"{args.tables} live tables of two people, each flipping about every {args.flip_s:g} s"
        f" for {args.seconds:g} s; beside them {args.clickers} one-device players clicking one"
        f" battle about every {args.click_ms:g} ms (alone first for {args.baseline_seconds:g} s)"
    )
    waited = ", ".join(f"{what} x{n}" for what, n in live.waited.most_common()) or "none"
    print(
        f"  set-up (not measured): {args.tables} tables opened and their guests seated in"
        f" {found['opened_s']:.1f} s (429s waited out: {waited}), from {live.addresses}"
        f" loopback addresses ({PEOPLE_PER_ADDRESS} people each);"
        f" {2 * playing:,} sockets joined in {found['joined_s']:.1f} s"
    )
    if live.refused:
        refused = ", ".join(f"{why} x{n}" for why, n in live.refused.most_common())
        print(
            f"  refused sockets: {refused}; {args.tables - playing} tables left out (the server"
            f" keeps {SOCKETS:,} live sockets, and `cardwar serve` has no option to raise it)"
        )
    mem = found["memory"]
    print(
        f"  server memory: {found['at_rest']} at rest; {found['idle_memory']} with"
        f" {2 * playing:,} sockets open and idle; {mem} at the peak of the window"
        f" ({mem.pss / found['at_rest'].pss:.2f}x at rest)"
    )
    print(f"  click alone      {figures(alone, found['alone_memory'])}")
    print(f"  click beside     {figures(beside, mem)}")
    print(f"  flip to both told {live_figures(tally)}")
    p99, p50 = ms(tally.latencies, 0.99), ms(tally.latencies, 0.5)
    click_p99, click_p50 = ms(beside.clicks, 0.99), ms(beside.clicks, 0.5)
    print(
        f"  flip to both told / click beside it: p50 {p50 / click_p50:.2f}x,"
        f" p99 {p99 / click_p99:.2f}x; click beside the tables / alone:"
        f" p99 {click_p99 / ms(alone.clicks, 0.99):.2f}x"
    )
    for line in (*failure_lines("click alone", alone), *failure_lines("click beside", beside)):
        print(line)
    for kind, n in tally.failures.most_common():
        print(f"  tables failed: {kind} x{n} ({tally.examples[kind]})")
    rounds = sum(len(rounds) for rounds in heard.values())
    battles = sum(sum(rounds) for rounds in heard.values())
    print(
        f"  battles: {battles:,} told to both people of {playing} tables in {rounds:,} rounds"
        f" ({tally.ended} ended, {tally.dealt} next dealt); lost {tally.lost}, duplicated"
        f" {tally.duplicated}; stored but never told {untold}"
    )
    stored = "every one stored" if not short else f"{len(short)} short: {'; '.join(short[:3])}"
    clicks = "every one stored" if not clicks_short else f"{len(clicks_short)} rounds short"
    print(f"  stored: the tables' battles told, {stored}; the clicks answered, {clicks}")
    print(
        f"  client: {found['client_cpu']:.0%} of a core, {lag_line(found['lag'])} in the window"
        f" ({lag_line(found['alone_lag'])} with the clickers alone); server: "
        f"{found['server_cpu']:.0%} of a core in the window"
    )
    before, after = found["load"]
    print(
        f"  machine: load average {before:.2f} as the window began, {after:.2f} as it ended"
        f" ({os.cpu_count()} cores; the client and the server take about"
        f" {found['client_cpu'] + found['server_cpu']:.1f} of them)"
    )
    print(f"  server: {len(errors)} errors logged")
    for line in errors[:5]:
        print(f"  server log: {line[:140]}")
    lost = tally.lost + tally.duplicated + untold + len(short) + tally.failures[
        "flipped for, never told to both"
    ] + tally.failures["the two people heard different battles"]  # fmt: skip
    peak = (
        max(
            one.pss
            for one in (mem, found["setup_memory"], found["idle_memory"], found["alone_memory"])
        )
        / MB
    )
    print(target("flip to both told under 50 ms at p99", p99 < 50, f"{p99:.2f} ms"))
    print(target("server under 400 MB", peak < 400, f"{peak:.0f} MB"))
    print(target("no battle lost or duplicated", lost == 0, f"{lost} lost or duplicated"))


if __name__ == "__main__":
    main()
