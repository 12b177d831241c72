"""A real `cardwar serve` whose PostgreSQL goes away or hangs, through a relay the test cuts or
stalls, and a broker that hangs (docs/deploy.md#the-database-slow-or-away): what needs the
database is answered 503 with Retry-After meanwhile, never 500, and everything else goes on; once
it is back, every click is answered again with no restart, and no battle answered is lost or
played twice."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2 as httpx
import pytest
from test_live_processes import COOKIE, Person, open_table

from cardwar.web.broker import split_url

from helpers import ClientFactory
from live import HANG_S, LiveServer
from relay import Relay

BACK_WITHIN_S = 5.0
"""Every click sent this long after the database is back is answered 200."""
OUTAGE_S = 10.0
"""How long PostgreSQL is cut or stalled, as a restart of it, a failover or a network's blip
may last (docs/deploy.md, the database slow or away)."""
QUICK_S = 1.0
"""What needs no database (the page, /healthz, a socket's ping) answers within this, always."""


@dataclass
class Answer:
    round_id: str
    sent_at: float
    answered_at: float
    status: int
    retry_after: str | None
    numbers: list[int]
    detail: str


@dataclass
class Clicker:
    """A player clicking one battle at a time on a round of their own (a new one dealt as one
    ends), noting every answer, until stopped: what a test waits on (`until`) is an answer,
    never a length of time."""

    server: LiveServer
    cookie: str
    round_id: str = ""
    answers: list[Answer] = field(default_factory=list)
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> Clicker:
        self._thread = threading.Thread(target=self._click, daemon=True)
        self._thread.start()
        return self

    def _click(self) -> None:
        # A connection a click, as many browsers make them: under `--workers`, each process
        # takes some.
        fresh = httpx.Limits(max_keepalive_connections=0)
        with httpx.Client(base_url=self.server.url, timeout=HANG_S, limits=fresh) as http:
            http.cookies.set(COOKIE, self.cookie)
            while not self._stop.is_set():
                sent = time.monotonic()
                if not self.round_id:  # a new round first (its answer noted as a click's)
                    got = http.post("/api/rounds", json={})
                    if got.status_code == 201:
                        self.round_id = got.json()["id"]
                        continue
                else:
                    got = http.post(f"/api/rounds/{self.round_id}/battles", json={"count": 1})
                body = got.json()
                numbers = [b["number"] for b in body["battles"]] if got.status_code == 200 else []
                said = Answer(
                    self.round_id, sent, time.monotonic(), got.status_code,
                    got.headers.get("retry-after"),
                    numbers, str(body.get("detail", "")),
                )  # fmt: skip
                if got.status_code == 200 and body["round"]["outcome"] is not None:
                    self.round_id = ""  # over: the next click deals a new round first
                with self._changed:
                    self.answers.append(said)
                    self._changed.notify_all()
                self._stop.wait(0.02)  # a person's pace, not a flood: the machine is shared

    def until(self, done: Callable[[list[Answer]], bool]) -> None:
        """Wait until the answers so far make `done` true."""
        with self._changed:
            assert self._changed.wait_for(lambda: done(self.answers), HANG_S), self.answers[-5:]

    def stop(self) -> list[Answer]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(HANG_S)
        return self.answers


def until_one_of(person: Person, *kinds: str) -> dict[str, Any]:
    """The next message of one of `kinds`, past the others."""
    while (message := person.next())["type"] not in kinds:
        pass
    return message


def until_reachable(server: LiveServer) -> dict[str, Any]:
    """`GET /healthz` asked again (a connection each, so that every process of several is
    asked) until it says the database is reachable five times in a row: what it said last."""
    fresh = httpx.Limits(max_keepalive_connections=0)
    deadline, said = time.monotonic() + HANG_S, [False]
    with httpx.Client(base_url=server.url, timeout=HANG_S, limits=fresh) as http:
        while not all(said[-5:]) or len(said) < 5:
            answer = http.get("/healthz").json()
            said.append(answer["database"] == "reachable")
            assert time.monotonic() < deadline, answer
    found: dict[str, Any] = answer
    return found


def through(url: str, relay: Relay) -> str:
    """`url` (a postgresql:// or redis:// one) reached through `relay`."""
    parts = urlsplit(url)
    return parts._replace(netloc=f"127.0.0.1:{relay.port}").geturl()


def upstream(url: str, port: int) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or port


def new_round(server: LiveServer, person: Person) -> str:
    round_id: str = person.post("/api/rounds", {"rules": {"battle_limit": None}, "seed": 5})["id"]
    return round_id


def check_each_battle_once(answers: list[Answer]) -> None:
    """Every battle answered 200 has a number of its own, each the one after the last answered,
    or, after answers that were not 200 (whose battle may have been committed as the
    connection went), at most that many further on: none lost, none played twice."""
    last, unanswered, round_id = 0, 0, ""
    for answer in answers:
        assert answer.status in (200, 503), (answer.status, answer.detail)
        if answer.round_id != round_id:
            last, unanswered, round_id = 0, 0, answer.round_id
        if answer.status == 503:
            assert answer.retry_after is not None and int(answer.retry_after) >= 1
            unanswered += 1
            continue
        for number in answer.numbers:
            assert last < number <= last + 1 + unanswered, (last, number, unanswered)
            last, unanswered = number, 0


def back_after(answers: list[Answer], back_at: float) -> None:
    """No click was answered anything but 200 later than `BACK_WITHIN_S` after the database
    came back (at `back_at`): each process of several uses it again by then."""
    late = [a for a in answers if a.status != 200 and a.answered_at >= back_at + BACK_WITHIN_S]
    assert late == [], late


def after_back(said: list[Answer], back_at: float) -> bool:
    """Ten clicks answered 200 since the database came back, one after another."""
    since = [answer.status for answer in said if answer.sent_at >= back_at]
    return len(since) >= 10 and set(since[-10:]) == {200}


@pytest.mark.parametrize("processes", [1, 2], ids=["one-process", "workers-2"])
def test_postgresql_cut_is_answered_503_then_used_again_without_a_restart(
    processes: int, postgres: str, broker: str, tmp_path: Path
) -> None:
    """PostgreSQL's connections cut (closed at once, new ones refused) under clicks and a live
    table, then back: meanwhile every click is 503 with Retry-After, never 500, and a flip at
    the table is told "try again" on a socket kept open; once it is back, within 5 s every click
    is 200 with no restart (one process, or each of `--workers 2`), the table plays on, and
    every battle answered is stored once."""
    with Relay(upstream(postgres, 5432)) as relay:
        args = ["--broker", broker, "--workers", "2"] if processes == 2 else []
        server = LiveServer(through(postgres, relay), log=tmp_path / "server.log", args=args)
        server.start()
        clicker = None
        try:
            ann, mia = Person(server), Person(server)
            code = open_table(ann)
            mia.post(f"/api/tables/{code}/seats", {"seat": 1, "name": "Mia"})
            ann.join(code)
            mia.join(code)
            ann.flip(1)
            mia.flip(1)
            assert ann.until("played")["round"]["battles"] == 1
            assert mia.until("played")["round"]["battles"] == 1
            clicker = Clicker(server, ann.cookie).start()
            clicker.until(lambda said: sum(a.status == 200 for a in said) >= 3)

            relay.cut()
            cut_at = time.monotonic()
            cut = len(clicker.answers)
            clicker.until(lambda said: sum(a.status == 503 for a in said[cut:]) >= 2)
            ann.flip(2)  # alone, in memory; or, to read the table another process left, refused
            refused = until_one_of(ann, "flipped", "error")
            if refused["type"] == "flipped":
                mia.flip(2)  # which plays the battle, and is refused: the socket kept
                refused = mia.until("error")
            assert "database" in refused["message"], refused
            with server.client() as http:
                assert http.get("/healthz").json()["database"] == "unreachable"
            # The outage lasts OUTAGE_S in all, the clicks going on (each answered 503).
            time.sleep(max(0.0, cut_at + OUTAGE_S - time.monotonic()))

            relay.mend()
            back_at = time.monotonic()
            clicker.until(lambda said: after_back(said, back_at))
            answers = clicker.stop()
            back_after(answers, back_at)
            check_each_battle_once(answers)
            assert sum(a.status == 503 for a in answers) >= 2
            ann.flip(2)
            mia.flip(2)
            assert ann.until("played")["round"]["battles"] == 2
            assert mia.until("played")["round"]["battles"] == 2
            assert until_reachable(server)["ok"]
            assert server.process is not None and server.process.poll() is None  # no restart
            assert server.output is not None
            if processes == 1:  # said once, and once again (each process of several says its own)
                assert server.output.wait_for("answers again")
                said = [line for line in server.output.text.splitlines() if "database at" in line]
                assert "is out of reach" in said[0] and "answers again" in said[-1], said
        finally:
            if clicker is not None:
                clicker.stop()
            server.stop()


def test_postgresql_stalled_keeps_the_page_health_and_other_sockets_answering(
    postgres: str, tmp_path: Path
) -> None:
    """PostgreSQL hangs (connections open, nothing carried): the page and /healthz answer
    within a second throughout, and a socket of a table that needs no database answers its
    pings; a click is answered 503 with Retry-After once its deadline passes; once it answers
    again, clicks are 200 again, and /healthz says it is reachable."""
    with Relay(upstream(postgres, 5432)) as relay:
        server = LiveServer(through(postgres, relay), log=tmp_path / "server.log").start()
        try:
            ann = Person(server)
            code = open_table(ann)
            ann.join(code)
            round_id = new_round(server, ann)
            clicked: list[httpx.Response] = []

            def click() -> None:
                with httpx.Client(base_url=server.url, timeout=HANG_S) as http:
                    http.cookies.set(COOKIE, ann.cookie)
                    clicked.append(http.post(f"/api/rounds/{round_id}/battles", json={"count": 1}))

            relay.stall()
            stalled_at = time.monotonic()
            stalled = threading.Thread(target=click)
            stalled.start()
            health: list[dict[str, Any]] = []
            with server.client() as http:
                while (
                    stalled.is_alive()
                    or not health
                    or health[-1]["database"] != "unreachable"
                    or time.monotonic() < stalled_at + OUTAGE_S  # the stall lasts OUTAGE_S
                ):
                    for path in ("/", "/healthz"):
                        began = time.monotonic()
                        answer = http.get(path)
                        assert time.monotonic() - began < QUICK_S, path
                        # /healthz says 503 once the database has been away database_down_after_s
                        assert answer.status_code in ((200,) if path == "/" else (200, 503)), (
                            path, answer.text,
                        )  # fmt: skip
                    health.append(answer.json())
                    began = time.monotonic()
                    assert ann.ws is not None
                    ann.ws.send('{"type": "ping"}')
                    assert ann.until("pong") is not None
                    assert time.monotonic() - began < QUICK_S
            stalled.join()
            assert clicked[0].status_code == 503 and clicked[0].headers["retry-after"] == "2"
            assert "database" in clicked[0].json()["detail"]

            relay.resume()
            click()
            assert clicked[-1].status_code == 200, clicked[-1].text
            assert until_reachable(server)["ok"]
        finally:
            server.stop()


def test_a_stalled_broker_leaves_health_answering_within_a_second(
    make_client: ClientFactory, broker: str
) -> None:
    """Redis hangs: /healthz answers within a second all the same (503: the broker does not
    answer), and says it is reachable once it answers again."""
    address, prefix = split_url(broker)
    with Relay(upstream(address, 6379)) as relay:
        client = make_client(broker=f"{through(address, relay)}?prefix={prefix}")
        assert client.get("/healthz").status_code == 200
        relay.stall()
        try:
            for _ in range(3):
                began = time.monotonic()
                answer = client.get("/healthz")
                assert time.monotonic() - began < QUICK_S
                assert answer.status_code == 503 and answer.json()["broker"] == "unreachable"
        finally:
            relay.resume()
        deadline = time.monotonic() + HANG_S
        while client.get("/healthz").status_code != 200:
            assert time.monotonic() < deadline
