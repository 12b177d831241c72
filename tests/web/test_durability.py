"""A real `cardwar serve` stopped politely (SIGTERM) or killed (SIGKILL) while players play:
it stops, and every battle it answered is there when it starts again. How soon it stops after
SIGTERM (within 10 s) is measured by benchmarks/hostile.py, during a long run as here."""

from __future__ import annotations

import random
import signal
import sqlite3
import threading
from collections import defaultdict

import httpx2 as httpx

from live import HANG_S, LiveServer

ENDLESS = {"battle_limit": None, "gather": "table", "war_down": 0}


class Answers:
    """The last battle each round was answered, as the players saw them, and how many answers
    came: the test waits for a number of them, never for a time."""

    def __init__(self) -> None:
        self.battles: dict[str, int] = defaultdict(int)
        self.count = 0
        self.players = 0  # players still clicking
        self._changed = threading.Condition()

    def answered(self, round_id: str, number: int) -> None:
        with self._changed:
            self.battles[round_id] = number  # only what was answered counts
            self.count += 1
            self._changed.notify_all()

    def joined(self) -> None:
        with self._changed:
            self.players += 1

    def left(self) -> None:
        with self._changed:
            self.players -= 1
            self._changed.notify_all()

    def wait_for(self, count: int) -> None:
        """Wait until `count` answers have come in all (the players click on meanwhile)."""
        with self._changed:
            self._changed.wait_for(lambda: self.count >= count or not self.players, HANG_S)
            assert self.count >= count, f"{self.count} answers, then the players stopped"


def player(server: LiveServer, answers: Answers, stop: threading.Event) -> None:
    """Click one battle at a time, dealing again when a round ends, until the server goes."""
    try:
        with server.client() as http:
            round_id = http.post("/api/rounds", json={}).json()["id"]
            while not stop.is_set():
                response = http.post(f"/api/rounds/{round_id}/battles", json={"count": 1})
                if response.status_code == 409:
                    round_id = http.post("/api/rounds", json={}).json()["id"]
                    continue
                answers.answered(round_id, response.json()["battles"][-1]["number"])
    except (httpx.TransportError, KeyError, ValueError):
        return  # the server went away mid-request: that click was never answered
    finally:
        answers.left()


def start_players(
    server: LiveServer, answers: Answers, stop: threading.Event, n: int
) -> list[threading.Thread]:
    threads = [threading.Thread(target=player, args=(server, answers, stop)) for _ in range(n)]
    for thread in threads:
        answers.joined()
        thread.start()
    return threads


def join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(HANG_S)
        assert not thread.is_alive()


def check_every_answer_kept(server: LiveServer, answered: dict[str, int]) -> None:
    """After a restart, each round holds at least every battle answered, and SQLite is sound."""
    with sqlite3.connect(server.db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with server.client() as http:
        for round_id, number in answered.items():
            stored = http.get(f"/api/rounds/{round_id}").json()["battles"]
            assert stored >= number, round_id


def test_sigkill_at_random_moments_loses_no_answered_battle(live_server: LiveServer) -> None:
    """Five players click; the server is killed at a random moment (after a random number of
    answers, with clicks in flight), three times over; after each restart every answered
    battle is stored and the file passes integrity_check."""
    seed = random.randrange(1_000_000)
    chance = random.Random(seed)
    answers = Answers()
    for _ in range(3):
        stop = threading.Event()
        threads = start_players(live_server, answers, stop, 5)
        answers.wait_for(answers.count + chance.randint(10, 300))
        live_server.kill()
        stop.set()
        join(threads)
        live_server.start()
        check_every_answer_kept(live_server, answers.battles)
    assert sum(answers.battles.values()) > 20, f"too few clicks to mean anything (seed {seed})"


def test_sigterm_during_a_long_run_stops_the_server_and_loses_nothing(
    live_server: LiveServer,
) -> None:
    """SIGTERM while a 100,000-battle run and players' clicks are in flight: the server stops
    by itself, and every battle it answered is there after a restart."""
    answers = Answers()
    stop = threading.Event()
    threads = start_players(live_server, answers, stop, 3)

    def long_run(endless: str) -> None:
        with live_server.client() as http:
            try:
                response = http.post(f"/api/rounds/{endless}/battles", json={"count": 100_000})
            except httpx.TransportError:
                return  # abandoned by the server as it stopped: never answered
            if response.status_code == 200:  # else its worker was stopped first (503)
                answers.answered(endless, response.json()["round"]["battles"])

    def told_busy(endless: str) -> bool:
        """Click the endless round until a click is told the long run plays it (True), or
        finds the round over: the long run reached the server's cap first (False)."""
        with live_server.client() as http:
            while True:
                click = http.post(f"/api/rounds/{endless}/battles", json={"count": 1})
                if click.status_code == 429:
                    assert click.json()["detail"].startswith("battles: this round is busy")
                    return True
                if click.status_code == 409:
                    assert "is over (battle_limit)" in click.json()["detail"], click.text
                    return False
                assert click.status_code == 200, click.text
                answers.answered(endless, click.json()["battles"][-1]["number"])

    answers.wait_for(3)  # the players are clicking
    for _ in range(20):  # a fast machine may play all 100,000 between two clicks: deal again
        with live_server.client() as http:
            endless = http.post("/api/rounds", json={"rules": ENDLESS, "seed": 39}).json()["id"]
        runner = threading.Thread(target=long_run, args=(endless,))
        runner.start()
        if told_busy(endless):
            threads.append(runner)
            break
        runner.join(HANG_S)
    else:
        raise AssertionError("no click ever found a long run in progress")
    assert live_server.process is not None
    live_server.process.send_signal(signal.SIGTERM)
    assert live_server.wait() == -signal.SIGTERM  # its own shutdown, as uvicorn ends: not killed
    stop.set()
    join(threads)
    live_server.start()
    check_every_answer_kept(live_server, answers.battles)
