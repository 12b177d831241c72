"""The broker of several processes (docs/deploy.md#several-processes): the live tables' messages
through Redis between two hubs, as between two processes; a broker lost and found again; the
health a load balancer asks for; and `cardwar serve`'s refusals. Against the real Redis of this
project's machines, each test under a key prefix of its own (`broker` in conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import pytest
import redis

from cardwar.cli import main
from cardwar.web.broker import Broker, BrokerDown, RedisHub, shown, split_url
from cardwar.web.live import presence
from cardwar.web.live.presence import Presence, RedisPresences
from cardwar.web.live.table import Table
from cardwar.web.live.wire import Said
from cardwar.web.store.live import TableRow
from cardwar.web.tasks import stop

from helpers import ClientFactory

WAIT_S = 10.0
"""The longest a test waits for a message it is owed (a failure, never a hang)."""


@asynccontextmanager
async def hub_of(url: str) -> AsyncIterator[RedisHub]:
    """A started hub over its own client of the broker at `url`: a process of its own."""
    broker = Broker(url)
    hub = RedisHub(broker)
    await hub.start()
    try:
        yield hub
    finally:
        await hub.stop()
        await broker.close()


async def next_of(listener: Any) -> Any:
    """The listener's next message, as JSON read back (None once it was dropped)."""
    heard = await asyncio.wait_for(listener.next(), WAIT_S)
    return None if heard is None else json.loads(heard.text)


def said(message: dict[str, Any]) -> Said:
    """A message as the live tables write it once for every socket (`wire.write`)."""
    return Said(message["type"], json.dumps(message, ensure_ascii=False, separators=(",", ":")))


def test_a_message_published_by_one_process_reaches_another_in_order(broker: str) -> None:
    async def run() -> tuple[list[Any], list[Any]]:
        async with hub_of(broker) as one, hub_of(broker) as other:
            async with one.subscribe("t1") as here, other.subscribe("t1") as there:
                for n in range(100):
                    await one.publish("t1", said({"type": "n", "n": n, "é": "👏"}))
                return [await next_of(here) for _ in range(100)], [
                    await next_of(there) for _ in range(100)
                ]

    here, there = asyncio.run(run())
    expected = [{"type": "n", "n": n, "é": "👏"} for n in range(100)]
    assert here == expected and there == expected


def test_a_table_hears_only_its_own_channel_and_its_own_server(broker: str) -> None:
    async def run() -> list[Any]:
        stranger = broker.replace("prefix=", "prefix=another-")
        async with hub_of(broker) as one, hub_of(stranger) as elsewhere:
            async with one.subscribe("t1") as listener:
                await one.publish("t2", said({"type": "other table"}))
                await elsewhere.publish("t1", said({"type": "other server"}))
                await one.publish("t1", said({"type": "mine"}))
                return [await next_of(listener)]

    assert asyncio.run(run()) == [{"type": "mine"}]


def test_a_lost_subscription_drops_its_listeners_and_comes_back(broker: str) -> None:
    """Redis cuts the hub's subscription (as a broker restart would): every listener of that
    process is dropped (its page rejoins from the database), no listener is let in until the
    hub listens again, and then it hears the table again."""
    address, _ = split_url(broker)
    admin = redis.Redis.from_url(address)

    async def run() -> tuple[Any, bool, Any]:
        async with hub_of(broker) as one:
            async with one.subscribe("t1") as old:
                admin.client_kill_filter(_type="pubsub")
                lost = await next_of(old)
                dropped = old.dropped and old.lost  # lost with the broker, not too slow
            with pytest.raises(BrokerDown):  # not let in while nothing would be heard
                async with one.subscribe("t1"):
                    pass
            for _ in range(int(WAIT_S / 0.01)):  # until the hub listens again
                if one.listening:
                    break
                await asyncio.sleep(0.01)
            assert one.listening, "the hub never listened again"
            async with one.subscribe("t1") as new:
                await one.publish("t1", said({"type": "again"}))
                return lost, dropped, await next_of(new)

    try:
        lost, dropped, again = asyncio.run(run())
    finally:
        admin.close()
    assert lost is None and dropped
    assert again == {"type": "again"}


def test_a_task_whose_cancellation_was_lost_is_stopped_all_the_same() -> None:
    """A task that goes on after a cancellation (as Python 3.11's wait_for lets one, under
    every broker command) ends at the next: `stop` cancels it until it has."""

    async def run() -> tuple[int, bool]:
        lost = 0

        async def chore() -> None:
            nonlocal lost
            while True:
                try:
                    await asyncio.sleep(3600)
                except asyncio.CancelledError:
                    if lost < 2:  # lost, twice: the chore goes on
                        lost += 1
                        continue
                    raise

        task = asyncio.create_task(chore())
        await asyncio.sleep(0)  # it waits in its sleep
        await asyncio.wait_for(stop(task), WAIT_S)
        return lost, task.cancelled()

    assert asyncio.run(run()) == (2, True)


def test_a_loop_of_broker_commands_ends_at_one_cancellation_whenever_it_comes(broker: str) -> None:
    """The live tables' tick talks to the broker: cancelled at any moment (the server shuts
    down), it ends, whichever command it was in. With redis-py's socket timeout, under which it
    writes through Python 3.11's `wait_for`, a cancellation was lost in two moments of five,
    and a server process never ended."""

    async def run() -> list[int]:
        client = Broker(broker)
        went_on = []
        try:
            for n in range(60):

                async def chore() -> None:
                    while True:
                        await client.call(lambda: client.redis.set(client.key("beat"), b"1"))

                task = asyncio.create_task(chore())
                for _ in range(n % 20):  # a moment of its own in the commands' round trips
                    await asyncio.sleep(0)
                task.cancel()
                await asyncio.wait({task}, timeout=WAIT_S)
                if not task.done():
                    went_on.append(n)
                    await stop(task)
                elif not task.cancelled():  # ended by a broker error first (another test's cut)
                    assert isinstance(task.exception(), BrokerDown)
        finally:
            await client.close()
        return went_on

    assert asyncio.run(run()) == []


def test_a_broker_out_of_reach_is_said_and_nothing_is_sent() -> None:
    async def run() -> tuple[bool, str]:
        broker = Broker("redis://127.0.0.1:1/0")
        hub = RedisHub(broker)
        try:
            with pytest.raises(BrokerDown) as refused:
                await hub.publish("t1", said({"type": "x"}))
            with pytest.raises(BrokerDown):
                await hub.start()
            return await broker.reachable(), str(refused.value)
        finally:
            await broker.close()

    reachable, words = asyncio.run(run())
    assert not reachable
    assert words == "The server cannot reach its broker just now: try again in a moment."


def test_the_broker_url_names_its_prefix_and_hides_its_password() -> None:
    assert split_url("redis://h:6379/2?prefix=club:") == ("redis://h:6379/2", "club:")
    assert split_url("redis://h/0?ssl_cert_reqs=none") == (
        "redis://h/0?ssl_cert_reqs=none",
        "cardwar:",
    )
    assert shown("redis://u:secret@h:6379/0") == "redis://u:***@h:6379/0"
    assert shown("redis://:secret@h/0") == "redis://:***@h/0"
    assert shown("redis://h/0") == "redis://h/0"


def test_health_says_the_database_and_the_broker_are_reachable(
    make_client: ClientFactory, broker: str
) -> None:
    client = make_client(broker=broker)
    answer = client.get("/healthz")
    assert answer.status_code == 200
    said = answer.json()
    assert said.pop("database_answered_s_ago") < 1 and said.pop("broker_answered_s_ago") < 1
    assert said == {"ok": True, "database": "reachable", "broker": "reachable", "draining": False}


def test_health_without_a_broker_has_none(make_client: ClientFactory) -> None:
    answer = make_client().get("/healthz")
    assert answer.status_code == 200
    said = answer.json()
    assert said.pop("database_answered_s_ago") < 1
    assert said == {
        "ok": True,
        "database": "reachable",
        "broker": "none",
        "broker_answered_s_ago": None,
        "draining": False,
    }


def test_health_answers_503_while_the_broker_or_the_database_is_away(
    make_client: ClientFactory, broker: str
) -> None:
    """A broker out of reach is 503 at once; a database, once out of reach for longer than
    `database_down_after_s` (here at once: 0)."""
    client = make_client(broker=broker, database_down_after_s=0)
    services = client.app.app.state.services  # the app behind its guard
    working = services.broker.redis
    services.broker.redis = redis.asyncio.Redis.from_url("redis://127.0.0.1:1/0")
    try:
        answer = client.get("/healthz")
    finally:
        away, services.broker.redis = services.broker.redis, working
        client.portal.call(away.aclose)  # type: ignore[union-attr]
    assert answer.status_code == 503 and answer.headers["retry-after"] == "2"
    said = {key: answer.json()[key] for key in ("ok", "database", "broker")}
    assert said == {"ok": False, "database": "reachable", "broker": "unreachable"}
    services.rounds.store.close()
    try:
        answer = client.get("/healthz")
    finally:
        services.rounds.store.open()
    assert answer.status_code == 503
    said = {key: answer.json()[key] for key in ("ok", "database", "broker")}
    assert said == {"ok": False, "database": "unreachable", "broker": "reachable"}
    assert client.get("/healthz").status_code == 200  # and back


def test_serve_refuses_several_processes_without_a_broker(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--workers", "2"]) == 2
    said = capsys.readouterr().err.strip()
    assert said == (
        "cardwar: error: --workers 2: several processes share their live tables and limits "
        "through a broker: name one with --broker redis://HOST:6379 (docs/deploy.md)"
    )


def test_serve_refuses_a_broker_that_is_not_redis_or_not_there(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--broker", "http://example.org"]) == 2
    assert capsys.readouterr().err.strip() == (
        "cardwar: error: --broker 'http://example.org': must be a redis:// URL, for example "
        "redis://127.0.0.1:6379/0"
    )
    assert main(["serve", "--broker", "redis://:pw@127.0.0.1:1/0", "--port", "1"]) == 2
    said = capsys.readouterr().err.strip()
    assert said.startswith("cardwar: error: --broker redis://:***@127.0.0.1:1/0: cannot reach")
    assert "pw" not in said


def test_the_rate_limits_count_once_for_every_process(
    make_client: ClientFactory, broker: str
) -> None:
    """Two processes (two apps on one database and one broker) share one browser's budget of
    writes: a burst of 3 spent through one leaves nothing for the other."""
    one = make_client(broker=broker, writes_burst=3, writes_per_minute=1)
    other = make_client(broker=broker, writes_burst=3, writes_per_minute=1)
    cookie = one.get("/api/me").cookies["cardwar_player"]
    for client in (one, other):
        client.cookies.set("cardwar_player", cookie)
    assert [one.post("/api/rounds", json={}).status_code for _ in range(3)] == [201] * 3
    refused = other.post("/api/rounds", json={})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert refused.json()["detail"].startswith("new rounds: too many too fast")


def test_long_runs_and_estimates_are_lines_of_the_whole_server(broker: str) -> None:
    """A long run entered in one process is counted in the other (one a browser, `long_runs`
    for the server); an estimate's turn taken in one is waited for in the other, and a line
    full in one is full in both."""
    from cardwar.web.errors import RateLimited
    from cardwar.web.limits import Limits
    from cardwar.web.settings import Settings

    settings = Settings(long_runs=1, estimates_at_once=1, estimates_waiting=1)

    async def run() -> list[str]:
        said: list[str] = []
        brokers = [Broker(broker), Broker(broker)]
        one, other = (Limits(settings, each) for each in brokers)
        try:
            await one.long_runs.enter("ann")
            for who in ("ann", "mia"):
                with pytest.raises(RateLimited) as refused:
                    await other.long_runs.enter(who)
                said.append(str(refused.value))
            await one.long_runs.leave("ann")
            await other.long_runs.enter("mia")  # the server's one long run is free again
            async with one.estimates.turn():
                waiting = asyncio.ensure_future(_turn_of(other))
                await asyncio.sleep(0.05)
                assert not waiting.done()  # in line, behind the turn taken in the other
                with pytest.raises(RateLimited) as full:
                    async with one.estimates.turn():
                        pass
                said.append(str(full.value))
            said.append(await asyncio.wait_for(waiting, WAIT_S))
        finally:
            for each in brokers:
                await each.close()
        return said

    assert asyncio.run(run()) == [
        "battles: one long run at a time for each browser: too many too fast, try again in 1 s",
        "battles: the server is busy with other long runs: too many too fast, try again in 2 s",
        "chance: the server is busy with other players' estimates: too many too fast, try again "
        "in 1 s",
        "its turn",
    ]


async def _turn_of(limits: Any) -> str:
    async with limits.estimates.turn():
        return "its turn"


OLD_ROW = TableRow("c", "w", "h", {}, 1, None, (), "round-1", None, None, 0.0, 0.0)
"""A table's row as both processes first read it."""


def stored(row: TableRow) -> tuple[dict[str, TableRow], Callable[[str], Awaitable[TableRow]]]:
    """The database's rows, by code (a test changes them as another process would), and the
    reload a presence reads them with."""
    rows = {row.code: row}

    async def reload(code: str) -> TableRow:
        return rows[code]

    return rows, reload


def two_presences(url: str) -> tuple[RedisPresences, RedisPresences]:
    """The presences of two processes over one broker (each its own client)."""
    return RedisPresences(Broker(url)), RedisPresences(Broker(url))


def test_a_lock_cancelled_as_it_reads_the_row_leaves_the_newer_presence_in_redis(
    broker: str,
) -> None:
    """One process saves the table (a newer row, and its save's mark); the other, which read
    the table before, locks it and is cancelled (its socket gone) while it reads the row again:
    Redis keeps the newer mark, so that its next lock reads the newer row. (An older row went
    back with an older mark once, and that process showed the round before the one dealt, for
    good: tests/web/test_live_fuzz.py over two processes.)"""
    old = OLD_ROW
    rows, reload = stored(old)

    async def run() -> str:
        one, other = two_presences(broker)
        mine, theirs = Presence(Table(old)), Presence(Table(old))
        try:
            async with other.locked(theirs, reload):
                pass  # the other process knows the table
            async with one.locked(mine, reload):  # and this one deals its next round
                rows["c"] = replace(old, round_id="round-2")
                mine.table, mine.saved = replace(mine.table, row=rows["c"]), "dealt"
            reading, never = asyncio.Event(), asyncio.Event()

            async def slow(code: str) -> TableRow:
                reading.set()
                await never.wait()
                return rows[code]

            async def lock_slowly() -> None:
                async with other.locked(theirs, slow):
                    pass

            cancelled = asyncio.create_task(lock_slowly())
            await asyncio.wait_for(reading.wait(), WAIT_S)
            cancelled.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await cancelled
            async with other.locked(theirs, reload):
                return theirs.table.row.round_id
        finally:
            await one.broker.close()
            await other.broker.close()

    assert asyncio.run(run()) == "round-2"


def test_a_look_that_finds_the_table_locked_here_waits_and_reads_the_newest(
    broker: str,
) -> None:
    """Two sockets of one table join through this process at once (its host's and its guest's):
    the second's look finds the first's holding the table here, waits its turn, and reads what
    the other process saved meanwhile (the guest seated there), never this process's older copy,
    which showed the guest as a watcher (benchmarks/scale.py over two processes)."""
    old = OLD_ROW
    rows, reload = stored(old)

    async def run() -> str:
        one, other = two_presences(broker)
        mine, theirs = Presence(Table(old)), Presence(Table(old))
        try:
            async with one.locked(mine, reload):
                pass  # this process knows the table
            async with other.locked(theirs, reload):  # the other seats the guest
                rows["c"] = replace(old, round_id="seated")
                theirs.table, theirs.saved = replace(theirs.table, row=rows["c"]), "seated"
            reading, go = asyncio.Event(), asyncio.Event()

            async def slow(code: str) -> TableRow:
                reading.set()
                await go.wait()
                return rows[code]

            first = asyncio.create_task(one.look(mine, slow))  # the host's socket, reading
            await asyncio.wait_for(reading.wait(), WAIT_S)
            second = asyncio.create_task(one.look(mine, reload))  # the guest's, meanwhile
            await asyncio.sleep(0)
            assert not second.done()  # it waits for the first, rather than answer at once
            go.set()
            await asyncio.wait_for(asyncio.gather(first, second), WAIT_S)
            return mine.table.row.round_id
        finally:
            await one.broker.close()
            await other.broker.close()

    assert asyncio.run(run()) == "seated"


def test_a_table_locked_longer_than_its_lease_stays_locked(
    broker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A holder renews its lease while it holds the table (a long run, a slow database), and
    gives the lock back at the end; a process that dies renews nothing, and its lock lapses
    (tests/web/test_live_processes.py)."""
    monkeypatch.setattr(presence, "RENEW_S", 0.05)
    old = TableRow("c", "w", "h", {}, 1, None, (), "round-1", None, None, 0.0, 0.0)

    async def reload(code: str) -> TableRow:
        return old

    async def run() -> tuple[list[int], int]:
        one, _ = two_presences(broker)
        key = one.broker.key("lock", "c")
        lives: list[int] = []
        try:
            async with one.locked(Presence(Table(old)), reload):
                lives.append(await one.broker.redis.pttl(key))
                for _ in range(int(WAIT_S / 0.01)):  # until renewed: no other event says so
                    await asyncio.sleep(0.01)
                    lives.append(await one.broker.redis.pttl(key))
                    if lives[-1] > lives[-2]:  # longer than a moment before: renewed
                        break
            return lives, await one.broker.redis.exists(key)
        finally:
            await one.broker.close()

    lives, left = asyncio.run(run())
    assert lives[-1] > lives[-2] and lives[-1] <= presence.LEASE_S * 1000
    assert left == 0


@asynccontextmanager
async def process_of(url: str) -> AsyncIterator[RedisPresences]:
    """The presences of a process with its hub, which hears another process ask for a lock."""
    async with hub_of(url) as hub:
        yield RedisPresences(hub.broker, hub)


def test_a_lock_kept_after_a_request_is_given_to_another_process_that_asks(
    broker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table whose sockets are all in one process keeps its lock there after a request (its
    next flip costs one round trip, tests/web/test_live_costs.py); another process that asks
    for the table gets it at once (never after the linger, made endless here, nor a
    `TableBusy`), reads what the first left, and the first reads the other's change as it
    takes the table again. As a server stops, what it keeps is given back."""
    monkeypatch.setattr(presence, "LINGER_S", 3600.0)
    monkeypatch.setattr(presence, "WAIT_S", 2.0)  # within the lease: a lapse never frees it
    rows, reload = stored(OLD_ROW)

    async def run() -> tuple[bool, str, str, int, bool]:
        async with process_of(broker) as one, process_of(broker) as other:
            mine, theirs = Presence(Table(OLD_ROW)), Presence(Table(OLD_ROW))
            lock = one.broker.key("lock", "c")
            async with one.locked(mine, reload):
                mine.sockets = {0: {one.process: 1}}  # Ann's socket, in this process alone
                one_told = await one.broker.redis.get(lock)
            kept = await one.broker.redis.get(lock) == one_told  # kept after the request
            async with other.locked(theirs, reload):  # asks, and is given it
                rows["c"] = replace(OLD_ROW, round_id="dealt elsewhere")
                theirs.table, theirs.saved = replace(theirs.table, row=rows["c"]), "dealt"
                seen = sorted(theirs.sockets[0])
            async with one.locked(mine, reload):  # taken again: the other's change is read
                round_id = mine.table.row.round_id
            await one.stop()
            return kept, seen[0], round_id, await one.broker.redis.exists(lock), bool(one_told)

    kept, seen, round_id, left, held = asyncio.run(run())
    assert held and kept
    assert seen.count(":") == 2  # the first process's name: its presence as it left it
    assert round_id == "dealt elsewhere"
    assert left == 0
