"""Live tables served by several `cardwar serve` processes on one database and one broker
(docs/deploy.md#several-processes): people at one table on different processes see the same
battles, once each and in order; a process killed outright mid-round loses its people nothing
(they rejoin through another); and `--workers 2` restarted one process at a time drops neither
a round nor a table. Against the real Redis (and PostgreSQL) of this project's machines."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx
import pytest
import redis
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from cardwar import persist
from cardwar.web.broker import split_url
from cardwar.web.live.presence import LEASE_S
from cardwar.web.store import Store

from live import HANG_S, LiveServer
from relay import Relay

COOKIE = "cardwar_player"


class Person:
    """One device: a browser's cookie, and its socket at a table through one server."""

    def __init__(self, server: LiveServer, cookie: str = "") -> None:
        self.server, self.cookie = server, cookie
        if not cookie:
            with server.client() as http:
                self.cookie = http.get("/api/me").cookies[COOKIE]
        self.ws: ClientConnection | None = None
        # Every socket it opened, each entered as websockets asks; they end with the servers.
        self._sockets = contextlib.ExitStack()

    def post(self, path: str, body: dict[str, Any]) -> Any:
        with httpx.Client(base_url=self.server.url, timeout=HANG_S) as http:
            http.cookies.set(COOKIE, self.cookie)
            answer = http.post(path, json=body)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def join(
        self, code: str, through: LiveServer | None = None, path: str = "/api/tables/{}/live"
    ) -> dict[str, Any]:
        """Open this device's socket at the table (through `through`, or its own server): the
        whole table it is shown."""
        server = through or self.server
        url = server.url.replace("http://", "ws://") + path.format(code)
        self.ws = self._sockets.enter_context(
            connect(
                url,
                origin=server.url,
                additional_headers={"Cookie": f"{COOKIE}={self.cookie}"},
                open_timeout=HANG_S,
            )
        )
        welcome = self.next()
        if welcome["type"] == "error":  # refused: the close that follows says why
            self.next()
        assert welcome["type"] == "welcome", welcome
        table = self.next()
        assert table["type"] == "table"
        return {**table, "you": welcome["you"]}

    def next(self) -> dict[str, Any]:
        assert self.ws is not None
        found: dict[str, Any] = json.loads(self.ws.recv(timeout=HANG_S))
        return found

    def until(self, kind: str) -> dict[str, Any]:
        """The next message of type `kind`, past the others."""
        while True:
            message = self.next()
            if message["type"] == kind:
                return message

    def flip(self, battle: int) -> None:
        assert self.ws is not None
        self.ws.send(json.dumps({"type": "flip", "battle": battle}))


def serve(db: Path | str, broker: str, tmp_path: Path, name: str, *args: str) -> LiveServer:
    log = tmp_path / f"{name}.log"
    return LiveServer(db, log=log, args=["--broker", broker, *args]).start()


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "postgres":
        found: str = request.getfixturevalue("postgres")
        return found
    return tmp_path / "shared.db"


@pytest.fixture
def two_servers(database: Path | str, broker: str, tmp_path: Path) -> Iterator[list[LiveServer]]:
    """Two servers (as on two machines) over one database and one broker."""
    servers: list[LiveServer] = []
    try:
        for n in range(2):  # one at a time: the second finds the schema made
            servers.append(serve(database, broker, tmp_path, f"server-{n}"))
        yield servers
    finally:
        for server in servers:
            server.stop()


def open_table(host: Person) -> str:
    seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": ""}]
    code: str = host.post("/api/tables", {"seats": seats})["invite"]["code"]
    return code


def three_battles_in(one: LiveServer, other: LiveServer) -> tuple[Person, Person, str, Any]:
    """A table whose host Ann is on `one` and guest Mia on `other`, three battles played, each
    heard by both alike: Ann, Mia, the table's code and the third battle's message."""
    ann, mia = Person(one), Person(other)
    code = open_table(ann)
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
    ann.join(code)
    mia.join(code)
    for battle in (1, 2, 3):
        ann.flip(battle)
        mia.flip(battle)
        last = ann.until("played")
        assert mia.until("played") == last
    return ann, mia, code, last


def test_people_on_two_processes_see_each_battle_once_and_in_order(
    two_servers: list[LiveServer],
) -> None:
    """The host's socket on one process, the guest's and a watcher's on the other: a flip alone
    plays nothing anywhere, both flips play one battle, and every device hears each battle
    once, in order, with the same cards."""
    one, other = two_servers
    ann, mia, watcher = Person(one), Person(one), Person(other)
    code = open_table(ann)
    watch = ann.join(code)["watch"]
    watcher.join(watch, path="/api/watch/{}/live")  # the other process holds the table now
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})  # through the first
    table = mia.join(code, through=other)  # and her socket through the other: she is seated
    assert table["you"] == {"seat": 1, "host": False}
    assert table["seats"][1]["name"] == "Mia"
    heard: dict[str, list[Any]] = {"ann": [], "mia": [], "watcher": []}
    for battle in range(1, 9):
        ann.flip(battle)
        assert mia.until("flipped")["waiting"] == [1]  # told through the other process
        mia.flip(battle)
        for name, person in (("ann", ann), ("mia", mia), ("watcher", watcher)):
            played = person.until("played")
            heard[name].append((played["round"]["battles"], played["battles"]))
    assert heard["ann"] == heard["mia"] == heard["watcher"]
    assert [number for number, _ in heard["ann"]] == list(range(1, 9))


def test_a_person_seated_through_one_process_is_named_by_the_other_and_tallied(
    two_servers: list[LiveServer],
) -> None:
    """The other process holds the table's round in memory from before Mia sat down (through
    the first): a watcher who joins through it is shown her at the table's round, the battles
    it plays name her, and her round counts in the table's tally under her name (its copy of
    the round must not outlive her sitting down)."""
    one, other = two_servers
    ann, mia, watcher = Person(one), Person(one), Person(one)
    code = open_table(ann)
    watch = ann.join(code, through=other)["watch"]  # the other process reads the round now
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})  # through the first
    mia.join(code)
    shown = watcher.join(watch, through=other, path="/api/watch/{}/live")
    assert [seat["name"] for seat in shown["round"]["seats"]] == ["Ann", "Mia"]
    mia.flip(1)
    ann.until("flipped")
    ann.flip(1)  # the second flip: the other process plays the battle
    played = ann.until("played")
    assert [seat["name"] for seat in played["round"]["seats"]] == ["Ann", "Mia"]
    assert ann.ws is not None
    ann.ws.send(json.dumps({"type": "play", "to_end": True}))  # the host, through the other
    ended = ann.until("played")
    assert ended["round"]["outcome"] is not None
    assert [seat["name"] for seat in ended["round"]["seats"]] == ["Ann", "Mia"]
    assert sorted(score["name"] for score in ended["tally"]) == ["Ann", "Mia"]


def test_a_tables_seats_are_its_rows_and_its_round_carries_them_from_the_next_battle(
    database: Path | str, two_servers: list[LiveServer]
) -> None:
    """One source of a table's seats: the table's row. Mia sits down through the first process
    while the other holds a copy of the table's round from before: the table the other shows
    names her at once, and the round read by its id (`GET /api/rounds/{id}`) names her once a
    battle has been played, its seats written with its battles (the copy is stale by them)."""
    one, other = two_servers
    ann, mia = Person(one), Person(one)
    code = open_table(ann)
    ann.join(code, through=other)  # the other process reads the round now
    mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})  # through the first
    store = Store(database)
    try:
        table = store.live.get_table(code)
    finally:
        store.close()
    assert table is not None
    with httpx.Client(base_url=other.url, timeout=HANG_S) as http:
        shown = http.get(f"/api/tables/{code}").json()["table"]
        assert [seat["name"] for seat in shown["round"]["seats"]] == ["Ann", "Mia"]
        mia.join(code)
        ann.flip(1)
        mia.flip(1)
        assert ann.until("played")["round"]["seats"][1]["name"] == "Mia"
        played = http.get(f"/api/rounds/{table.round_id}").json()
    assert played["battles"] == 1
    assert [seat["name"] for seat in played["seats"]] == ["Ann", "Mia"]


def test_a_process_killed_mid_round_loses_its_people_nothing(
    two_servers: list[LiveServer],
) -> None:
    """`kill -9` of the process the host's socket is on, in the middle of a round: the guest,
    on the other process, is told the host is away; the host's page rejoins through the other
    process and finds the table where the last committed battle left it, and the round plays
    on from there, battle after battle, for both."""
    one, other = two_servers
    ann, mia, code, last = three_battles_in(one, other)
    ann.flip(4)  # a flip of the next battle, in the process that dies
    mia.until("flipped")
    one.kill()
    with pytest.raises(ConnectionClosed):
        ann.until("never")  # the socket is gone with its process
    assert mia.until("away") == {"type": "away", "seat": 0}  # its heartbeat lapsed
    table = ann.join(code, through=other)  # the page's rejoin, through the process left
    assert table["you"] == {"seat": 0, "host": True}
    assert table["round"]["battles"] == 3
    assert table["last_battle"] == last["battles"][-1]
    assert mia.until("back") == {"type": "back", "seat": 0}
    for battle in (4, 5):
        ann.flip(battle)
        mia.flip(battle)
        assert ann.until("played")["round"]["battles"] == battle
        assert mia.until("played")["round"]["battles"] == battle


PLAYS_ON_S = 10.0
"""How soon a table plays on through another process after one died holding it (docs/deploy.md
#several-processes): a lease (`LEASE_S`) and a moment."""


def test_a_process_killed_holding_a_table_stops_it_seconds_and_blames_no_broker(
    database: Path | str, broker: str, two_servers: list[LiveServer]
) -> None:
    """`kill -9` of the process the host's socket is on while it holds the table's Redis lock
    (left in Redis as it is at the instant a process dies holding it: the lock on its lease, the
    round's note taken): the guest's flip, through the other process, plays the battle within
    seconds (the lease lapses; nobody waits for it to be given back); the host's page rejoins
    through the other process, at her seat, and the round plays on. Nobody is told the broker
    is away, or the table busy, and nobody is told a flip twice: each battle is told once, and
    stored once, 1..N."""
    one, other = two_servers
    ann, mia, code, _ = three_battles_in(one, other)
    ann.flip(4)  # a flip of the next battle, in the process that dies
    assert mia.until("flipped") == {"type": "flipped", "seat": 0, "waiting": [1]}
    one.kill()
    address, prefix = split_url(broker)
    with redis.Redis.from_url(address) as shared:
        shared.set(f"{prefix}lock:{code}", "the process killed", px=int(LEASE_S * 1000))
        shared.delete(f"{prefix}round:{code}")
    killed = time.monotonic()
    mia.flip(4)
    heard = [mia.next()]
    while heard[-1]["type"] != "played":
        heard.append(mia.next())
    assert time.monotonic() - killed < PLAYS_ON_S
    assert heard[-1]["round"]["battles"] == 4
    with pytest.raises(ConnectionClosed):
        ann.until("never")  # the socket is gone with its process
    table = ann.join(code, through=other)  # the page's rejoin, through the process left
    assert table["you"] == {"seat": 0, "host": True}
    assert table["round"]["battles"] == 4
    ann.flip(4)  # the page's flip again, a battle late: nothing to tell anyone
    for battle in (5, 6):
        ann.flip(battle)
        heard.append(mia.next())
        while heard[-1]["type"] != "flipped":
            heard.append(mia.next())
        mia.flip(battle)
        assert ann.until("played")["round"]["battles"] == battle
        heard.append(mia.next())
        while heard[-1]["type"] != "played":
            heard.append(mia.next())
    kinds = [message["type"] for message in heard]
    assert "error" not in kinds, heard
    assert kinds.count("flipped") == 2, heard  # Ann's for battles 5 and 6, and no other
    played = [message["round"]["battles"] for message in heard if message["type"] == "played"]
    assert played == [4, 5, 6]
    store = Store(database)
    try:
        row = store.live.get_table(code)
        assert row is not None
        stored = store.get(row.round_id)
    finally:
        store.close()
    assert stored is not None and stored.history["battles"] == 6
    again = persist.from_history(stored.history)  # battles 1..6, each once, on the engine
    assert persist.snapshot(again) == stored.snapshot


def children(pid: int) -> set[int]:
    """The server processes `pid` (uvicorn's supervisor) started and that still run: not its
    multiprocessing resource tracker, which lives as long as it does."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.add(int(child))
    return found


def test_a_rolling_restart_of_two_workers_drops_no_round_and_no_table(
    broker: str, tmp_path: Path
) -> None:
    """`cardwar serve --workers 2`, told SIGHUP while a player clicks on and two people sit at
    a live table: every process is replaced, one at a time; every click is answered, each
    battle numbered once, in order; the table's people rejoin and play on."""
    server = serve(tmp_path / "cardwar.db", broker, tmp_path, "workers", "--workers", "2")
    try:
        ann, mia = Person(server), Person(server)
        code = open_table(ann)
        mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
        rounds: dict[str, list[int]] = {}  # each round's battles, as the clicks were answered
        numbers: list[int] = []  # every battle answered
        failures: list[str] = []
        retried: list[int] = []
        stop = threading.Event()

        def click() -> None:
            with httpx.Client(base_url=server.url, timeout=HANG_S) as http:
                http.cookies.set(COOKIE, ann.cookie)
                round_id = ""
                while (
                    not stop.is_set()
                    and len(numbers) < 20_000
                    and len(failures) < 20 > len(retried) / 10
                ):
                    try:
                        if not round_id:  # a round to click on; the next once it is over
                            dealt = http.post("/api/rounds", json={})
                            if dealt.status_code == 429:  # a new round a second, on average
                                stop.wait(float(dealt.headers["retry-after"]))
                                continue
                            if dealt.status_code != 201:
                                failures.append(f"{dealt.status_code} {dealt.text}")
                                continue
                            round_id = dealt.json()["id"]
                            rounds[round_id] = []
                        answer = http.post(f"/api/rounds/{round_id}/battles", json={"count": 1})
                    except httpx.TransportError:
                        # A kept-alive connection its old process closed as the click went out
                        # (reset by peer): sent again, as a browser does. A click that was
                        # played and not answered would leave a gap in the numbers below.
                        retried.append(1)
                        continue
                    if answer.status_code != 200:
                        failures.append(f"{answer.status_code} {answer.text}")
                        continue
                    played = [battle["number"] for battle in answer.json()["battles"]]
                    rounds[round_id] += played
                    numbers.extend(played)
                    if answer.json()["round"]["outcome"] is not None:
                        round_id = ""

        ann.join(code)
        mia.join(code)
        ann.flip(1)
        mia.flip(1)
        assert ann.until("played")["round"]["battles"] == 1
        clicker = threading.Thread(target=click)
        clicker.start()
        assert server.process is not None
        before = children(server.process.pid)
        while len(numbers) < 20:  # clicks are being answered
            assert clicker.is_alive(), failures
            time.sleep(0.01)
        os.kill(server.process.pid, signal.SIGHUP)
        deadline = time.monotonic() + HANG_S
        while children(server.process.pid) & before or len(children(server.process.pid)) < 2:
            assert time.monotonic() < deadline, "the workers were not all replaced"
            time.sleep(0.05)
        clicked = len(numbers)
        while len(numbers) < clicked + 20:  # and clicks are answered by the new ones
            assert clicker.is_alive(), failures
            time.sleep(0.01)
        stop.set()
        clicker.join(HANG_S)
        assert failures == []
        with server.client() as http:
            for round_id, battles in rounds.items():  # each battle once, in order, none lost
                assert battles == list(range(1, len(battles) + 1))
                assert http.get(f"/api/rounds/{round_id}").json()["battles"] == len(battles)
        for person in (ann, mia):  # their process stopped: each page rejoins
            with pytest.raises(ConnectionClosed):
                person.until("never")
            table = person.join(code)
            assert table["round"]["battles"] == 1
        ann.flip(2)
        mia.flip(2)
        assert ann.until("played")["round"]["battles"] == 2
        assert mia.until("played")["round"]["battles"] == 2
    finally:
        server.stop()


def until_healthy(server: LiveServer) -> dict[str, Any]:
    """`GET /healthz` asked again until the server says it can serve (an event this side of
    the network cannot await): what it said then."""
    deadline = time.monotonic() + HANG_S
    with server.client() as http:
        while True:
            answer = http.get("/healthz")
            if answer.status_code == 200:
                found: dict[str, Any] = answer.json()
                return found
            assert time.monotonic() < deadline, answer.text
            time.sleep(0.05)


def rejoin(person: Person, code: str) -> dict[str, Any]:
    """The page's rejoin: tried again while the server says to (1013: its process has not
    heard the table's channel again yet)."""
    deadline = time.monotonic() + HANG_S
    while True:
        try:
            return person.join(code)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1013, closed
            assert time.monotonic() < deadline, closed
            time.sleep(0.05)


def test_a_broker_gone_mid_round_is_said_answered_503_and_recovered_from(
    broker: str, tmp_path: Path
) -> None:
    """Redis goes away in the middle of a live round (the connection between the two servers
    and it is cut, and new ones refused) and comes back: each server says so in its log (gone
    first, back last); what needs the broker is answered 503 with Retry-After, its sockets
    close and a rejoin is refused with 1013 (try again); a round on one device plays on (it
    needs only the database). Once it is back, the people rejoin where the last committed
    battle left the table, and the round plays on, nothing lost, nothing played twice."""
    address, prefix = split_url(broker)
    upstream = urlsplit(address)
    with Relay((upstream.hostname or "127.0.0.1", upstream.port or 6379)) as relay:
        through = f"redis://127.0.0.1:{relay.port}{upstream.path}?prefix={prefix}"
        servers = [serve(tmp_path / "shared.db", through, tmp_path, f"server-{n}") for n in (0, 1)]
        try:
            one, other = servers
            ann, mia, code, last = three_battles_in(one, other)
            alone = ann.post("/api/rounds", {})["id"]  # a round of her own, on one device
            clicked = [ann.post(f"/api/rounds/{alone}/battles", {"count": 1}) for _ in range(3)]

            relay.cut()
            for person in (ann, mia):  # its process no longer hears the table: the page rejoins
                with pytest.raises(ConnectionClosed):
                    person.until("never")
            with pytest.raises(ConnectionClosed) as refused:
                ann.join(code)
            assert refused.value.rcvd is not None and refused.value.rcvd.code == 1013
            with httpx.Client(base_url=one.url, timeout=HANG_S) as http:
                http.cookies.set(COOKIE, ann.cookie)
                dealt = http.post("/api/rounds", json={})  # counted against the shared limits
                health = http.get("/healthz")
            assert dealt.status_code == 503 and dealt.headers["retry-after"] == "2"
            assert "cannot reach its broker" in dealt.json()["detail"]
            assert health.status_code == 503 and health.json()["broker"] == "unreachable"
            clicked += [ann.post(f"/api/rounds/{alone}/battles", {"count": 1}) for _ in range(3)]

            relay.mend()
            for server in servers:
                assert until_healthy(server)["broker"] == "reachable"
                assert server.output.wait_for("answers again")  # copied from its output by a thread
                said = [line for line in server.output.text.splitlines() if "broker at" in line]
                assert "is out of reach" in said[0] and "answers again" in said[-1], said
            table = rejoin(ann, code)
            assert table["round"]["battles"] == 3 and table["last_battle"] == last["battles"][-1]
            assert rejoin(mia, code)["round"]["battles"] == 3
            for battle in (4, 5):
                ann.flip(battle)
                mia.flip(battle)
                assert ann.until("played")["round"]["battles"] == battle
                assert mia.until("played")["round"]["battles"] == battle
            clicked.append(ann.post(f"/api/rounds/{alone}/battles", {"count": 1}))
            numbers = [battle["number"] for answer in clicked for battle in answer["battles"]]
            assert numbers == list(range(1, 8))
        finally:
            for server in servers:
                server.stop()


def test_the_server_processes_of_a_supervisor_killed_outright_stop(
    broker: str, tmp_path: Path
) -> None:
    """`kill -9` of `cardwar serve --workers 2` itself (uvicorn's supervisor, which cannot stop
    its processes then): each of its server processes stops on its own, and the port is free
    for the next start, rather than served by orphans. The kill comes as soon as one process
    serves, at times while the other still starts (a CI run met it): such a one had taken its
    new parent (after the kill) for its supervisor and lived on, until the supervisor's id was
    handed to it."""
    server = serve(tmp_path / "cardwar.db", broker, tmp_path, "workers", "--workers", "2")
    try:
        assert server.process is not None
        pids = children(server.process.pid)
        assert len(pids) == 2
        watched = [os.pidfd_open(pid) for pid in pids]
        server.process.kill()  # the supervisor alone
        for pidfd in watched:
            ended, _, _ = select.select([pidfd], [], [], HANG_S)
            assert ended, "a server process outlived its supervisor"
            os.close(pidfd)
        server.wait()  # and its output ends: nothing holds it open
        server.start()  # on the same port
        with server.client() as http:
            assert http.get("/healthz").status_code == 200
    finally:
        server.stop()
