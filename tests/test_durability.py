"""A real `cardwar serve` stopped politely (SIGTERM) or killed (SIGKILL) while players play:
it stops in time, and every battle it answered is there when it starts again."""

from __future__ import annotations

import random
import signal
import sqlite3
import threading
import time
from collections import defaultdict

import httpx2 as httpx

from conftest import LiveServer

ENDLESS = {"battle_limit": None, "gather": "table", "war_down": 0}


def player(server: LiveServer, answered: dict[str, int], stop: threading.Event) -> None:
    """Click one battle at a time, dealing again when a round ends, until the server goes."""
    with httpx.Client(base_url=server.url, timeout=5) as http:
        try:
            round_id = http.post("/api/rounds", json={}).json()["id"]
            while not stop.is_set():
                response = http.post(f"/api/rounds/{round_id}/battles", json={"count": 1})
                if response.status_code == 409:
                    round_id = http.post("/api/rounds", json={}).json()["id"]
                    continue
                battle = response.json()["battles"][-1]
                answered[round_id] = battle["number"]  # only what was answered counts
        except (httpx.TransportError, KeyError, ValueError):
            return  # the server went away mid-request: that click was never answered


def check_every_answer_kept(server: LiveServer, answered: dict[str, int]) -> None:
    """After a restart, each round holds at least every battle answered, and SQLite is sound."""
    with sqlite3.connect(server.db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with httpx.Client(base_url=server.url) as http:
        for round_id, number in answered.items():
            stored = http.get(f"/api/rounds/{round_id}").json()["battles"]
            assert stored >= number, round_id


def test_sigkill_at_random_moments_loses_no_answered_battle(live_server: LiveServer) -> None:
    """Five players click; the server is killed at a random moment, three times over; after
    each restart every answered battle is stored and the file passes integrity_check."""
    seed = random.randrange(1_000_000)
    chance = random.Random(seed)
    answered: dict[str, int] = defaultdict(int)
    for _ in range(3):
        stop = threading.Event()
        threads = [
            threading.Thread(target=player, args=(live_server, answered, stop)) for _ in range(5)
        ]
        for thread in threads:
            thread.start()
        time.sleep(chance.uniform(0.3, 1.2))
        live_server.kill()
        stop.set()
        for thread in threads:
            thread.join(10)
        live_server.start()
        check_every_answer_kept(live_server, answered)
    assert sum(answered.values()) > 20, f"too few clicks to mean anything (seed {seed})"


def test_sigterm_stops_within_ten_seconds_during_a_long_run(live_server: LiveServer) -> None:
    """SIGTERM while a 100,000-battle run and players' clicks are in flight: the server is gone
    within 10 s, and every battle it answered is there after a restart."""
    answered: dict[str, int] = defaultdict(int)
    with httpx.Client(base_url=live_server.url) as http:
        endless = http.post("/api/rounds", json={"rules": ENDLESS, "seed": 39}).json()["id"]
    stop = threading.Event()
    threads = [
        threading.Thread(target=player, args=(live_server, answered, stop)) for _ in range(3)
    ]

    def long_run() -> None:
        with httpx.Client(base_url=live_server.url, timeout=20) as http:
            try:
                response = http.post(f"/api/rounds/{endless}/battles", json={"count": 100_000})
                answered[endless] = response.json()["round"]["battles"]
            except (httpx.TransportError, ValueError):
                pass  # abandoned by the server as it stopped: never answered

    threads.append(threading.Thread(target=long_run))
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    assert live_server.process is not None
    started = time.monotonic()
    live_server.process.send_signal(signal.SIGTERM)
    live_server.process.wait(10)
    assert time.monotonic() - started < 10
    stop.set()
    for thread in threads:
        thread.join(10)
    live_server.start()
    check_every_answer_kept(live_server, answered)
