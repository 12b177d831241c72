"""A live table walked at random by its devices (docs/api.md#live-tables), after boardgame.io's
multiplayer fuzz test: for each seed, two to four people and a watcher flip (on time, late,
twice), play on, reload, drop and reopen their sockets, stand up and sit again, give seats away
and take them back, and deal again. Then, for every seed:

- every socket heard each battle once and in order (each `played` follows on from what it knew),
- every device's table, built from what it heard, is the server's,
- each round of the table is stored with battles 1..N, and replays exactly on the readable engine.

A barrier is the host's reaction: every socket hears it after everything told before it."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from cardwar import persist
from cardwar.web.live.table import REACTIONS

from devices import Device, heard, live_of, open_table
from helpers import ClientFactory

SEEDS = 30
SEEDS_TWO = 30
"""Seeds over two processes (each step costs broker and database round trips there)."""
STEPS = 60


@dataclass
class View:
    """What one socket has heard of the table, as a page keeps it."""

    seats: list[dict[str, Any]]
    battles: int
    counts: list[int]
    outcome: Any
    rounds: int = 1
    problems: list[str] = field(default_factory=list)
    log: list[Any] = field(default_factory=list)

    @classmethod
    def of(cls, table: dict[str, Any]) -> View:
        round_ = table["round"]
        return cls(table["seats"], round_["battles"], round_["counts"], round_["outcome"])

    def hear(self, message: dict[str, Any]) -> None:
        """Take in one message, noting anything out of order."""
        kind = message["type"]
        self.log.append((kind, message.get("event"), message.get("seat")))
        if kind == "table":
            if message["event"] == "dealt":
                self.rounds += 1
            fresh = View.of(message)
            self.seats, self.battles, self.counts = fresh.seats, fresh.battles, fresh.counts
            self.outcome = fresh.outcome
        elif kind == "played":
            round_ = message["round"]
            if round_["battles"] != self.battles + message["played"]:
                self.problems.append(
                    f"played {message['played']} after {self.battles}: {self.log[-8:]}"
                )
            numbers = [battle["number"] for battle in message["battles"]]
            if numbers != list(range(round_["battles"] - len(numbers) + 1, round_["battles"] + 1)):
                self.problems.append(f"battles {numbers} told as round {round_['battles']}")
            self.battles, self.counts, self.outcome = (
                round_["battles"], round_["counts"], round_["outcome"],
            )  # fmt: skip
        elif kind in ("seated", "given", "reclaimed", "left"):
            seat = self.seats[message["seat"]]
            seat["kind"] = "computer" if kind == "given" else "person"
            seat["name"] = "" if kind == "left" else message["name"]
            seat["taken"] = kind in ("seated", "reclaimed")
            seat["away"] = False
        elif kind in ("away", "back"):
            self.seats[message["seat"]]["away"] = kind == "away"


class Socket:
    """One socket of a device, open, and what it has heard."""

    def __init__(self, device: Device, path: str) -> None:
        self.device = device
        self._opened = device.socket(path)
        self.ws = self._opened.__enter__()
        welcome = heard(self.ws)
        assert welcome["type"] == "welcome", welcome
        self.view = View.of(heard(self.ws))

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send_json(message)

    def until_barrier(self, emoji: str) -> None:
        """Hear everything up to the host's reaction `emoji`."""
        for _ in range(500):
            message = heard(self.ws)
            if message["type"] == "reaction" and message["seat"] == 0:
                if message["emoji"] == emoji:
                    return
                continue
            if message["type"] not in ("error", "pong", "flipped", "reaction"):
                self.view.hear(message)
        raise AssertionError("the barrier never came")

    def close(self) -> None:
        self._opened.__exit__(None, None, None)


@dataclass
class Walk:
    """One seed's table and its devices."""

    rng: random.Random
    clients: list[TestClient]
    now: list[float]
    host: Device
    code: str
    people: dict[int, Device]
    watcher: Device
    watch: str
    sockets: dict[str, Socket] = field(default_factory=dict)
    gone: list[str] = field(default_factory=list)
    """Devices whose socket is closed for now."""

    def path(self, name: str) -> str:
        if name == "watcher":
            return f"/api/watch/{self.watch}/live"
        return f"/api/tables/{self.code}/live"

    def device(self, name: str) -> Device:
        if name == "watcher":
            return self.watcher
        return self.host if name == "host" else self.people[int(name)]

    def open(self, name: str) -> None:
        device = self.device(name)
        device.client = self.rng.choice(self.clients)  # any process serves any device
        self.sockets[name] = Socket(device, self.path(name))

    def barrier(self) -> None:
        """Everything told so far has reached every open socket."""
        self.now[0] += 1.5
        emoji = REACTIONS[self.rng.randrange(len(REACTIONS))]
        self.sockets["host"].send({"type": "react", "emoji": emoji})
        for socket in self.sockets.values():
            socket.until_barrier(emoji)

    def step(self) -> None:
        """One thing someone does at the table."""
        moves: list[tuple[int, Callable[[], None]]] = [
            (40, self.flip), (6, self.flip_twice), (6, self.flip_late), (4, self.play_ten),
            (8, self.reload), (5, self.drop_or_return), (4, self.stand_up_and_sit),
            (4, self.give_and_reclaim), (6, self.deal_again),
        ]  # fmt: skip
        weights, actions = zip(*moves, strict=True)
        self.rng.choices(actions, weights)[0]()

    def person(self) -> str | None:
        names = [name for name in self.sockets if name != "watcher"]
        return self.rng.choice(names) if names else None

    def battle(self, name: str) -> int:
        return self.sockets[name].view.battles

    def flip(self) -> None:
        name = self.person()
        if name is not None:
            self.sockets[name].send({"type": "flip", "battle": self.battle(name) + 1})

    def flip_twice(self) -> None:
        name = self.person()
        if name is not None:
            for _ in range(2):
                self.sockets[name].send({"type": "flip"})

    def flip_late(self) -> None:
        name = self.person()
        if name is not None:
            self.sockets[name].send({"type": "flip", "battle": max(1, self.battle(name))})

    def play_ten(self) -> None:
        self.sockets["host"].send({"type": "play"})

    def reload(self) -> None:
        name = self.rng.choice([name for name in self.sockets if name != "host"] or ["host"])
        self.sockets.pop(name).close()
        self.open(name)

    def drop_or_return(self) -> None:
        if self.gone and self.rng.random() < 0.6:
            self.open(self.gone.pop(self.rng.randrange(len(self.gone))))
            return
        names = [name for name in self.sockets if name not in ("host", "watcher")]
        if names:
            name = self.rng.choice(names)
            self.sockets.pop(name).close()
            self.gone.append(name)

    def stand_up_and_sit(self) -> None:
        names = [name for name in self.sockets if name not in ("host", "watcher")]
        if not names:
            return
        name = self.rng.choice(names)
        self.sockets[name].send({"type": "leave"})
        self.barrier_without(name)
        seat = int(name)
        taken = self.device(name).post(
            f"/api/tables/{self.code}/seats", {"seat": seat, "name": f"P{seat}x"}
        )
        if taken.status_code == 200:
            self.open(name)
        else:
            self.gone.append(name)

    def barrier_without(self, name: str) -> None:
        """A barrier once `name`'s socket has closed (it left the table)."""
        socket = self.sockets.pop(name)
        for _ in range(500):
            try:
                heard(socket.ws)
            except Exception:
                break
        socket.close()
        self.barrier()

    def give_and_reclaim(self) -> None:
        """A person drops; two minutes on, the host gives the seat away; they take it back."""
        names = [name for name in self.sockets if name not in ("host", "watcher")]
        if not names:
            return
        name = self.rng.choice(names)
        self.sockets.pop(name).close()
        self.barrier()
        self.now[0] += 121
        self.sockets["host"].send({"type": "give", "seat": int(name)})
        self.barrier()
        back = self.device(name).post(
            f"/api/tables/{self.code}/seats", {"seat": int(name), "name": ""}
        )
        if back.status_code == 200:
            self.open(name)
        else:
            self.gone.append(name)

    def deal_again(self) -> None:
        if self.sockets["host"].view.outcome is not None:
            self.sockets["host"].send({"type": "next"})
        else:
            self.sockets["host"].send({"type": "play", "to_end": True})


def walk(seed: int, clients: list[TestClient], now: list[float]) -> None:
    """One seed's random walk, then every check."""
    rng = random.Random(seed)
    players = rng.choice([2, 3, 4])
    host = Device(rng.choice(clients))
    opened = open_table(host, people=players, players=players)
    code = opened["invite"]["code"]
    watch = opened["invite"]["watch_url"].rsplit("=", 1)[1]
    people = {}
    for seat in range(1, players):
        people[seat] = Device(rng.choice(clients))
        sat = people[seat].post(f"/api/tables/{code}/seats", {"seat": seat, "name": f"P{seat}"})
        assert sat.status_code == 200, sat.text
    table = Walk(rng, clients, now, host, code, people, Device(rng.choice(clients)), watch)
    try:
        for name in ["host", "watcher", *map(str, people)]:
            table.open(name)
        for number in range(STEPS):
            table.step()
            if number % 5 == 4:
                table.barrier()
        table.barrier()
        check(table, clients[0])
    finally:  # a seed that fails fails at once, its sockets closed, not at the client's end
        for socket in table.sockets.values():
            socket.close()


def check(table: Walk, client: TestClient) -> None:
    """What every socket heard is the server's table, and every round replays exactly."""
    shown = table.host.get(f"/api/tables/{table.code}").json()["table"]
    server = View.of(shown)
    for name, socket in table.sockets.items():
        assert socket.view.problems == [], (name, socket.view.problems)
        mine = socket.view
        assert (mine.battles, mine.counts, mine.outcome) == (
            server.battles, server.counts, server.outcome,
        ), name  # fmt: skip
        assert mine.seats == server.seats, name
    store = live_of(client).store
    with store.db.lock:
        rounds = store.db.execute(
            "SELECT id FROM rounds WHERE live_table = ? ORDER BY created_at", (table.code,)
        ).fetchall()
    assert len(rounds) >= 1
    for (round_id,) in rounds:
        row = store.get(round_id)
        assert row is not None and row.snapshot is not None
        # Battles 1..N played again, one by one, on the readable engine: the same round exactly.
        again = persist.from_history(row.history)
        assert again.battles == row.history["battles"]
        assert persist.snapshot(again) == row.snapshot


def test_devices_walking_at_random_agree_with_the_server_and_the_engine(
    make_client: ClientFactory,
) -> None:
    """Over many seeds, on a server of one process."""
    now = [1_000_000.0]
    client = make_client(
        clock=lambda: now[0],
        writes_burst=1000,
        live_messages_per_s=10_000,  # a walk sends faster than any hand
    )
    for seed in range(SEEDS):
        walk(seed, [client], now)


def test_devices_walking_at_random_over_two_processes_agree_with_the_server_and_the_engine(
    make_client: ClientFactory, postgres: str, broker: str
) -> None:
    """Over many seeds, on two servers (each its own event loop, as two processes) sharing one
    PostgreSQL database and one broker, every device served by either at random, each socket
    reopened through either. (This walk found a watcher that joined through one process while
    the other dealt the next round shown the old round, and never told of the deal.)"""
    now = [1_000_000.0]
    clients = [
        make_client(
            postgres,
            broker=broker,
            clock=lambda: now[0],
            writes_burst=1000,
            live_messages_per_s=10_000,
        )
        for _ in range(2)
    ]
    for seed in range(SEEDS_TWO):
        walk(seed, clients, now)
