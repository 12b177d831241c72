"""An upgrade without cutting a table (docs/deploy.md, stopping without cutting a table):
deploy/'s nginx site in front of two `cardwar serve` processes (as two hosts) on one PostgreSQL
and one Redis, 20 players clicking and 50 live tables of two people playing through it, each
person on a device of their own that does what the page does. Then a rolling restart, as an
operator upgrades: each process in turn told SIGTERM (it drains, then stops), waited for,
started again, and waited for until nginx sends it requests again.

What must hold: every click answered (a 503 with Retry-After sent again once after it, as the
page does; nothing else but a 200 counts), each battle once, in order, and stored; every person
told to come back (1012) is back at their seat, through the other process, within BACK_S; the
tables play on. The times each page took to be back are printed (benchmarks/README.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import ssl
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx2 as httpx
import psycopg
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from live import HANG_S, LiveServer
from nginx_site import NAME, Nginx, nginx_path

PLAYERS = 20
TABLES = 50
CLICK_S = 0.4
"""About how often each player clicks, and each person flips."""
PLAY_S = 4.0
"""How long everyone plays before the restart, between its two halves, and after it."""
BACK_S = 10.0
"""How soon a person told to come back is at their seat again."""
RETRY = (1.0, 15.0)
"""A page's socket tried again after 1 s, then twice as long each time, 15 s at most
(live-socket.js)."""


def household(kind: int, n: int) -> str:
    """A loopback address of its own for each household (the site limits each address)."""
    return f"127.1.{kind}.{n + 1}"


@dataclass
class Site:
    nginx: Nginx
    servers: list[LiveServer]
    postgres: str

    @property
    def tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.nginx.cert))

    def client(self, address: str) -> httpx.AsyncClient:
        """A browser of its own, at `address`, talking to the site over HTTPS."""
        transport = httpx.AsyncHTTPTransport(verify=self.tls, local_address=address)
        return httpx.AsyncClient(
            transport=transport, base_url=self.nginx.url, headers={"Host": NAME},
            timeout=HANG_S,
        )  # fmt: skip


@pytest.fixture
def site(tmp_path: Path, postgres: str, broker: str) -> Iterator[Site]:
    if nginx_path() is None:
        pytest.skip("nginx is not installed here (.ci/run installs Debian's)")
    servers: list[LiveServer] = []
    nginx: Nginx | None = None
    try:
        for n in range(2):  # one at a time: the second finds the schema made
            servers.append(
                LiveServer(
                    postgres, log=tmp_path / f"server-{n}.log",
                    args=["--broker", broker, "--trusted-proxy", "127.0.0.1",
                          "--allow-host", NAME],
                ).start()
            )  # fmt: skip
        nginx = Nginx(tmp_path / "nginx", [f"127.0.0.1:{s.port}" for s in servers]).start()
        yield Site(nginx, servers, postgres)
    finally:
        if nginx is not None:
            nginx.stop()
        for server in servers:
            server.stop()


@dataclass
class Tally:
    failures: list[str] = field(default_factory=list)
    back_in: list[float] = field(default_factory=list)
    """Seconds each socket told to come back took to be welcomed at its seat again."""
    retried: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    """Why a page's try to be back at its seat failed (it tries again, as the page does)."""
    """Clicks turned away with 503 and Retry-After, and sent again."""


async def post(
    http: httpx.AsyncClient, path: str, body: object, tally: Tally | None = None
) -> httpx.Response:
    """A POST the page makes: sent once more after a 429's or a 503's Retry-After (api.js),
    each 503 sent again counted in `tally`."""
    answer = await http.post(path, json=body)
    if answer.status_code in (429, 503) and "retry-after" in answer.headers:
        if answer.status_code == 503 and tally is not None:
            tally.retried += 1
        await asyncio.sleep(float(answer.headers["retry-after"]))
        answer = await http.post(path, json=body)
    return answer


async def player(
    site: Site, n: int, tally: Tally, rounds: dict[str, list[int]], stop: asyncio.Event
) -> None:
    """One player alone, clicking "one battle" about every CLICK_S until `stop`."""
    async with site.client(household(2, n)) as http:
        round_id = ""
        while not stop.is_set():
            await asyncio.sleep(CLICK_S * random.uniform(0.5, 1.5))
            if not round_id:
                dealt = await post(http, "/api/rounds", {})
                if dealt.status_code == 429:
                    continue  # a new round a second at most: the next click deals it
                if dealt.status_code != 201:
                    tally.failures.append(f"deal: {dealt.status_code} {dealt.text[:80]}")
                    continue
                round_id = dealt.json()["id"]
                rounds[round_id] = []
            before = len(tally.failures)
            try:
                answer = await post(http, f"/api/rounds/{round_id}/battles", {"count": 1}, tally)
            except httpx.TransportError as error:
                tally.failures.append(f"click: {type(error).__name__} {error}")
                continue
            if answer.status_code != 200:
                tally.failures.append(f"click: {answer.status_code} {answer.text[:80]}")
            if len(tally.failures) > before:
                continue
            shown = answer.json()
            rounds[round_id] += [battle["number"] for battle in shown["battles"]]
            if shown["round"]["outcome"] is not None:
                round_id = ""


@dataclass(eq=False)
class Person:
    """One person at a live table, on a device of their own: what their socket heard."""

    seat: int
    address: str
    cookie: str = ""
    rounds: list[list[int]] = field(default_factory=list)
    """Each round's battle numbers their sockets were told, in order (those played while they
    were away, none at a table of two, taken from the table on their return)."""
    sockets: int = 0


async def open_tables(site: Site, tally: Tally) -> list[tuple[str, list[Person]]]:
    """TABLES tables of two people, each table a household of its own: its host opens it, its
    guest takes seat 1 through the invite, each in their own browser."""
    tables: list[tuple[str, list[Person]]] = []
    at_once = asyncio.Semaphore(10)

    async def one(n: int) -> None:
        people = [Person(0, household(1, n)), Person(1, household(1, n))]
        async with at_once, site.client(people[0].address) as host:
            seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": ""}]
            opened = await post(host, "/api/tables", {"seats": seats})
            assert opened.status_code == 201, opened.text
            code = opened.json()["invite"]["code"]
            people[0].cookie = host.cookies["cardwar_player"]
        async with at_once, site.client(people[1].address) as guest:
            seated = await post(guest, f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
            assert seated.status_code == 200, seated.text
            people[1].cookie = guest.cookies["cardwar_player"]
        tables.append((code, people))

    await asyncio.gather(*(one(n) for n in range(TABLES)))
    return tables


async def sit(site: Site, code: str, person: Person, tally: Tally, stop: asyncio.Event) -> None:
    """The person's page at the table until cancelled: its socket opened, and opened again
    whenever it closes (after RETRY's waits, as the page does); a flip about every CLICK_S for
    the battle after the last one heard."""
    left_at: float | None = None  # when the socket last closed, until welcomed again
    tries = 0
    while True:
        try:
            socket = await connect(
                f"wss://{NAME}:{site.nginx.port}/api/tables/{code}/live",
                host="127.0.0.1", port=site.nginx.port, local_addr=(person.address, 0),
                ssl=site.tls, server_hostname=NAME, open_timeout=HANG_S, ping_interval=None,
                additional_headers={"Cookie": f"cardwar_player={person.cookie}",
                                    "Origin": f"https://{NAME}:{site.nginx.port}"},
            )  # fmt: skip
        except (OSError, TimeoutError, InvalidStatus) as error:
            tally.refused[repr(error)[:60]] += 1
            await asyncio.sleep(min(RETRY[0] * 2**tries, RETRY[1]))
            tries += 1
            continue
        try:
            welcome = json.loads(await socket.recv())
            if welcome["type"] != "welcome":  # refused for now: the close says why
                tally.refused[str(welcome)[:60]] += 1
                raise ConnectionClosed(None, None)
            if left_at is not None:
                tally.back_in.append(time.monotonic() - left_at)
            left_at, tries = None, 0
            person.sockets += 1
            await play(socket, person, stop)
        except ConnectionClosed:
            pass
        finally:
            await socket.close()
        if left_at is None:
            left_at = time.monotonic()
        await asyncio.sleep(min(RETRY[0] * 2**tries, RETRY[1]))
        tries += 1


async def play(socket: ClientConnection, person: Person, stop: asyncio.Event) -> None:
    """Flip for the next battle about every CLICK_S until `stop`, note every battle told, and
    deal the next round when one ends (the host), until the socket closes."""

    async def flip() -> None:
        while not stop.is_set():
            await asyncio.sleep(CLICK_S * random.uniform(0.5, 1.5))
            after = len(person.rounds[-1]) if person.rounds else 0
            await socket.send(json.dumps({"type": "flip", "battle": after + 1}))

    flipping = asyncio.create_task(flip())
    try:
        async for raw in socket:
            message = json.loads(raw)
            if message["type"] not in ("table", "played"):
                continue
            shown = message["round"]
            if message["type"] == "table":  # on joining, or a round dealt
                if (
                    not person.rounds
                    or message["event"] == "dealt"
                    or shown["battles"] < len(person.rounds[-1])
                ):
                    person.rounds.append([])
                numbers = person.rounds[-1]
                numbers.extend(range(len(numbers) + 1, shown["battles"] + 1))
            else:
                person.rounds[-1] += [battle["number"] for battle in message["battles"]]
            if message["type"] == "played" and shown["outcome"] is not None and person.seat == 0:
                await socket.send(json.dumps({"type": "next"}))
    finally:
        flipping.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionClosed):
            await flipping


def restart(server: LiveServer, nginx: Nginx) -> float:
    """An operator's restart of one process: SIGTERM, wait for it to end, start it again, and
    wait until nginx sends it requests again (it counts a process out for `fail_timeout`,
    5 s, after it last failed: restarting the next before would leave nginx none it trusts,
    docs/deploy.md#upgrades); returns the seconds it took to end."""
    assert server.process is not None
    log = nginx.prefix / "access.log"
    told = time.monotonic()
    server.process.send_signal(signal.SIGTERM)
    server.wait()
    ended = time.monotonic() - told
    server.start()
    seen = log.stat().st_size
    answered = f"-> 127.0.0.1:{server.port} 200"
    deadline = time.monotonic() + HANG_S
    while answered not in log.read_text()[seen:]:  # nginx's log: no event to wait on
        assert time.monotonic() < deadline, f"nginx never sent {server.url} a request again"
        time.sleep(0.1)
    return ended


def stored(site: Site) -> dict[str, list[int]]:
    """Each round's battles as the database holds them, by the round's id or, for a live
    table's rounds, by the table's code."""
    kept: dict[str, list[int]] = {}
    with psycopg.connect(site.postgres) as connection:
        rows = connection.execute("SELECT id, live_table, battles FROM rounds").fetchall()
    for round_id, code, battles in rows:
        kept.setdefault(code or round_id, []).append(battles)
    return kept


def test_a_rolling_restart_behind_nginx_cuts_no_click_and_no_table(site: Site) -> None:
    tally = Tally()
    rounds: dict[str, list[int]] = {}

    async def everyone() -> tuple[list[tuple[str, list[Person]]], list[float]]:
        tables = await open_tables(site, tally)
        stop = asyncio.Event()
        seated = [
            asyncio.create_task(sit(site, code, person, tally, stop))
            for code, people in tables
            for person in people
        ]
        players = [
            asyncio.create_task(player(site, n, tally, rounds, stop)) for n in range(PLAYERS)
        ]
        ended: list[float] = []
        await asyncio.sleep(PLAY_S)
        for server in site.servers:
            ended.append(await asyncio.to_thread(restart, server, site.nginx))
            await asyncio.sleep(PLAY_S)
        stop.set()  # the players' last clicks answered, the people's last flips sent
        await asyncio.gather(*players)
        for task in seated:
            task.cancel()
        for ended_as in await asyncio.gather(*seated, return_exceptions=True):
            if not isinstance(ended_as, asyncio.CancelledError):  # a page's own failure
                raise AssertionError(f"a person's page failed: {ended_as!r}")
        return tables, ended

    tables, ended = asyncio.run(everyone())

    assert tally.failures == [], tally.failures[:5]
    kept = stored(site)
    for round_id, battles in rounds.items():  # each click's battle once, in order, stored
        assert battles == list(range(1, len(battles) + 1)), round_id
        assert kept[round_id] == [len(battles)], round_id
    for code, people in tables:
        for person in people:
            assert person.sockets >= 2, f"{code} seat {person.seat}: never back at the table"
            for battles in person.rounds:
                assert battles == list(range(1, len(battles) + 1)), (code, battles)
        heard = [max(map(len, pair)) for pair in zip(*(p.rounds for p in people), strict=True)]
        assert heard[0] > 0, f"{code} never played"
        # Every battle told is stored, once; one more if both flipped for it as the test ended.
        assert len(kept[code]) == len(heard), (code, kept[code], heard)
        assert sum(kept[code]) - sum(heard) in (0, 1), (code, kept[code], heard)
    clicks = sum(len(battles) for battles in rounds.values())
    played = sum(sum(kept[code]) for code, _ in tables)
    print(  # noqa: T201 - the figures benchmarks/README.md quotes
        f"rolling restart: {clicks} clicks and {played} live battles, each stored once; "
        f"{tally.retried} clicks sent again after a 503; {len(tally.back_in)} sockets back at "
        f"their seats, median {statistics.median(tally.back_in):.1f} s, most "
        f"{max(tally.back_in):.1f} s; each process ended "
        f"{' and '.join(f'{s:.1f}' for s in ended)} s after its SIGTERM; sockets refused on "
        f"the way back: {dict(tally.refused) or 'none'}"
    )
    assert max(tally.back_in) < BACK_S, sorted(tally.back_in)[-5:]
