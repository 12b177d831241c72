"""What an operator watches (docs/deploy.md#watching-the-site): `cardwar serve --metrics
HOST:PORT` serves Prometheus's figures there, never on the game's port; they count requests by
route, battles, live sockets and tables, refusals, and the database's round trips, summed over
`--workers`' processes; and `--log-format json` writes one JSON object a line, naming no
cookie, invite code or address."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2 as httpx
import pytest
from test_live_processes import Person, open_table

from live import HANG_S, LiveServer, free_port


def figures(port: int) -> dict[str, float]:
    """The figures at the metrics address, by name and labels as Prometheus writes them."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=HANG_S).text
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            found[name] = float(value)
    return found


def one(found: dict[str, float], pattern: str) -> float:
    """The sum of the figures whose name and labels match `pattern` (processes' figures with a
    `pid` label, or not)."""
    matched = [value for name, value in found.items() if re.fullmatch(pattern, name)]
    assert matched, f"no figure {pattern} in {sorted(found)[:40]}"
    return sum(matched)


def play_a_little(server: LiveServer) -> tuple[Person, str, str]:
    """A round dealt and a battle clicked, a live table opened and its host's socket open:
    the cookie and the table's code, which the log must never say."""
    ann = Person(server)
    with server.client() as http:
        http.cookies.set("cardwar_player", ann.cookie)
        round_id = http.post("/api/rounds", json={}).json()["id"]
        assert http.post(f"/api/rounds/{round_id}/battles", json={"count": 1}).status_code == 200
        assert http.get("/metrics").status_code == 404  # never on the game's own port
    code = open_table(ann)
    ann.join(code)
    return ann, ann.cookie, code


@pytest.mark.parametrize("workers", [1, 2], ids=["one process", "two processes"])
def test_metrics_count_what_the_server_does_on_their_own_address(
    tmp_path: Path, broker: str, workers: int
) -> None:
    port = free_port()
    args = ["--metrics", f"127.0.0.1:{port}", "--log-format", "json"]
    if workers > 1:
        args += ["--workers", str(workers), "--broker", broker]
    server = LiveServer(tmp_path / "cardwar.db", args=args).start()
    try:
        ann, cookie, code = play_a_little(server)
        found = figures(port)
        click = r'cardwar_requests_total\{.*route="/api/rounds/\{round_id\}/battles".*'
        assert one(found, click + r'status="200".*\}') == 1
        assert one(found, r'cardwar_battles_total\{.*where="solo".*\}') == 1
        assert one(found, r"cardwar_live_sockets(\{.*\})?") == 1
        assert one(found, r"cardwar_live_tables(\{.*\})?") == 1
        assert one(found, r"cardwar_database_seconds_count(\{.*\})?") > 0
        assert one(found, r"cardwar_request_seconds_count\{.*\}") >= 3
        assert ann.ws is not None
        ann.ws.close()
        with server.client() as http:  # a Host the server does not answer to: refused
            assert http.get("/", headers={"Host": "elsewhere.example"}).status_code == 400
    finally:
        server.stop()
    assert server.output is not None
    lines = [line for line in server.output.text.splitlines() if line.startswith("{")]
    assert len(lines) >= 3, server.output.text
    for line in lines:  # each an object of its own; nothing a player could be found by
        written = json.loads(line)
        assert set(written) >= {"time", "level", "logger", "message"}
        assert cookie not in line and code not in line
    assert any("open http://127.0.0.1" in json.loads(line)["message"] for line in lines)
