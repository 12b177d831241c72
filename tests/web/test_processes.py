"""Two `cardwar serve` processes on one database (docs/deploy.md): the same round clicked
through both at once plays each battle exactly once, in order, on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from live import HANG_S, LiveServer

CLICKS = 60


@pytest.fixture(params=["sqlite", "postgres"])
def two_servers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[LiveServer]]:
    """Two servers over one fresh database, stopped after the test."""
    if request.param == "postgres":
        db: Path | str = request.getfixturevalue("postgres")
    else:
        db = tmp_path / "shared.db"
    servers = [LiveServer(db, log=tmp_path / f"server-{n}.log") for n in range(2)]
    try:
        for server in servers:  # one at a time: the second finds the schema made
            server.start()
        yield servers
    finally:
        for server in servers:
            server.stop()


def test_one_round_clicked_through_two_processes_plays_each_battle_once(
    two_servers: list[LiveServer],
) -> None:
    """60 one-battle clicks on one round at once, half through each process (one person on two
    devices, each reaching another process): every click is answered, the battles' numbers are
    1 to 60, each once, and both processes then show the round at 60 battles."""
    first = two_servers[0]
    with first.client() as http:
        made = http.post("/api/rounds", json={"seed": 8, "rules": {"battle_limit": None}})
        round_id, cookies = made.json()["id"], dict(made.cookies)
    numbers: list[int] = []
    failures: list[str] = []
    start = threading.Barrier(CLICKS)
    lock = threading.Lock()

    def click(server: LiveServer) -> None:
        with httpx.Client(base_url=server.url, timeout=HANG_S, cookies=cookies) as http:
            start.wait(HANG_S)
            answer = http.post(f"/api/rounds/{round_id}/battles", json={"count": 1})
        with lock:
            if answer.status_code == 200:
                numbers.extend(battle["number"] for battle in answer.json()["battles"])
            else:
                failures.append(f"{answer.status_code} {answer.text}")

    threads = [threading.Thread(target=click, args=(two_servers[n % 2],)) for n in range(CLICKS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_S)
    assert failures == []
    assert sorted(numbers) == list(range(1, CLICKS + 1))
    for server in two_servers:
        with server.client() as http:
            assert http.get(f"/api/rounds/{round_id}").json()["battles"] == CLICKS
