"""The server holds up under hostile clients: bounded input, bounded work, bounded growth,
hardened HTTP. Each cap and header is asserted here; benchmarks/hostile.py shows them under load."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sqlite3
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cardwar import Round, Rules, persist
from cardwar.engine import MAX_SEED
from cardwar.web.errors import RateLimited
from cardwar.web.limits.in_process import InProcessEstimates
from cardwar.web.workers import statistics

from helpers import ClientFactory, LongRunGate, RoundWaiters, scores
from live import HANG_S, LiveServer

ENDLESS = {"battle_limit": None, "gather": "table", "war_down": 0}  # seed 39: 3,000,000+ battles


def rounds_stored(db: Path) -> list[tuple[Any, ...]]:
    """Every row of the rounds table."""
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT * FROM rounds ORDER BY id").fetchall()


def deal(client: TestClient, **body: Any) -> dict[str, Any]:
    """POST /api/rounds and check it answered 201."""
    response = client.post("/api/rounds", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


# -- bounded input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_body_over_64_kb_is_413_before_it_is_read_whole(
    client: TestClient, db_path: Path, chunked: bool
) -> None:
    """A body over the cap is refused with 413, whether or not it says its length."""
    before = rounds_stored(db_path)
    big = b'{"preset": "' + b"x" * 70_000 + b'"}'
    content: Any = iter([big[:30_000], big[30_000:]]) if chunked else big
    response = client.post("/api/rounds", content=content)
    assert response.status_code == 413
    assert response.json() == {
        "detail": "body: larger than 65536 bytes, the most this server reads"
    }
    assert rounds_stored(db_path) == before
    assert (
        client.post("/api/rounds", content=b'{"preset": "' + b"x" * 60_000 + b'"}').status_code
        == 422
    )


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (b'{"seed": 1', "body: not valid JSON"),
        (b'{"deal": [["9S", "2C"], ["9H"', "body: not valid JSON"),
        (b"\xff\xfe{}", "body: not UTF-8 text"),
        (b'{"preset": "\xed\xa0\x80"}', "body: not UTF-8 text"),
        (b'{"seed": ' + b"9" * 5000 + b"}", "body: holds a number too large"),
        (b'{"deal": ' + b"[" * 5000 + b"]" * 5000 + b"}", "body: nested too deeply"),
        (b"[1, 2]", "body: must be a JSON object"),
        (b"null", "body: must be a JSON object"),
    ],
)
def test_bodies_that_are_not_json_objects_are_422_naming_the_body(
    client: TestClient, db_path: Path, content: bytes, detail: str
) -> None:
    """Broken, truncated, non-UTF-8, huge-number and deeply nested bodies: 422, never 400/500."""
    before = rounds_stored(db_path)
    for path in ("/api/rounds", "/api/me/house-rules"):
        method = client.post if path == "/api/rounds" else client.put
        response = method(path, content=content)
        assert (response.status_code, response.json()) == (422, {"detail": detail})
    round_id = deal(client, seed=1)["id"]
    response = client.post(f"/api/rounds/{round_id}/battles", content=content)
    assert (response.status_code, response.json()) == (422, {"detail": detail})
    assert len(rounds_stored(db_path)) == len(before) + 1


LONG_PREFIX = "1" + "0" * 38 + "…"  # repr() of 10**100, cut to 40 characters


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ({"preset": "x" * 10_000}, f"preset '{'x' * 38}…: unknown"),
        (
            {"seed": 10**100},
            f"seed: must be a whole number from 0 to {MAX_SEED}, not {LONG_PREFIX}",
        ),
        ({"rules": {"y" * 5000: 1}}, f"rules: unknown field '{'y' * 38}…, must be one of"),
        (
            {"rules": {"war_down": 10**4000}},
            f"war_down: {LONG_PREFIX} is out of range, must be 0..5",
        ),
        ({"deal": [["9S", "Q" * 3000], ["2C"]]}, f"deal: pile 0: card '{'Q' * 38}…"),
    ],
)
def test_error_messages_quote_at_most_a_short_prefix(
    client: TestClient, body: dict[str, Any], detail: str
) -> None:
    """A huge bad value is named by a short prefix, never echoed whole."""
    response = client.post("/api/rounds", content=json.dumps(body))
    assert response.status_code == 422
    assert response.json()["detail"].startswith(detail)
    assert len(response.json()["detail"]) < 200


@pytest.mark.parametrize("kind", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_state_changes_need_a_json_content_type(
    client: TestClient, db_path: Path, kind: str | None
) -> None:
    """POST and PUT without `Content-Type: application/json` are 415 and change nothing."""
    round_id = deal(client, seed=2)["id"]
    before = rounds_stored(db_path)
    headers = {"content-type": kind} if kind else {}
    del client.headers["content-type"]
    for method, path in (
        ("POST", "/api/rounds"),
        ("POST", f"/api/rounds/{round_id}/battles"),
        ("PUT", "/api/me/house-rules"),
    ):
        response = client.request(method, path, content=b"{}", headers=headers)
        assert response.status_code == 415, path
        assert response.json()["detail"].startswith("content-type: must be application/json")
    assert rounds_stored(db_path) == before
    ok = client.post(
        "/api/rounds", content=b"", headers={"content-type": "application/json; charset=utf-8"}
    )
    assert ok.status_code == 201


def test_the_openapi_document_states_the_limits(client: TestClient) -> None:
    """Pile sizes, the card code pattern, the seed and count ranges, every rule's bounds."""
    document = client.get("/openapi.json").json()
    body = document["paths"]["/api/rounds"]["post"]["requestBody"]["content"]["application/json"]
    fields = body["schema"]["properties"]
    deal_schema = fields["deal"]["anyOf"][0]
    assert (deal_schema["minItems"], deal_schema["maxItems"]) == (2, 4)
    assert (deal_schema["items"]["minItems"], deal_schema["items"]["maxItems"]) == (1, 52)
    pattern = deal_schema["items"]["items"]["pattern"]
    assert all(re.match(pattern, code) for code in ("9S", "TH", "10h", "ad"))
    assert not any(re.match(pattern, code) for code in ("1S", "9X", "9SS", ""))
    seed = fields["seed"]["anyOf"][0]
    # OpenAPI's own model holds bounds as floats, so the exact top is in words as well.
    assert (seed["type"], seed["minimum"], seed["maximum"]) == ("integer", 0, float(MAX_SEED))
    assert "2**63-1" in fields["seed"]["description"]
    rules = fields["rules"]["anyOf"][0]
    assert rules["additionalProperties"] is False
    assert rules["properties"]["war_down"] == {"type": "integer", "minimum": 0, "maximum": 5}
    assert fields["preset"]["enum"] == ["classic", "traditional", "peace", "timed", "short"]
    for path, method in (("/api/rounds", "post"), ("/api/rounds/{round_id}/battles", "post")):
        assert {"413", "415", "422", "429"} <= set(document["paths"][path][method]["responses"])


# -- hardened HTTP ---------------------------------------------------------------------------------


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    """CSP without inline script or style and no framing, nosniff, no referrer, on everything."""
    round_id = deal(client, seed=3)["id"]
    for response in (
        client.get("/"),
        client.get("/static/app.js"),
        client.get("/api/me"),
        client.get(f"/api/rounds/{round_id}"),
        client.get("/api/rounds/nope"),
        client.post("/api/rounds", content=b"{oops"),
    ):
        csp = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert "style-src 'self'" in csp and "unsafe-inline" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"


def test_the_page_has_no_inline_script_or_style() -> None:
    """The CSP forbids inline script and style, so the page must need none."""
    html = (Path(__file__).parents[2] / "src/cardwar/web/static/index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    assert "<style" not in html and " style=" not in html and " on" + "click=" not in html


def test_docs_pages_are_off_and_the_openapi_document_stays(client: TestClient) -> None:
    """/docs and /redoc would load files from elsewhere, so they are off; /openapi.json stays."""
    assert client.get("/docs").status_code == 404
    assert client.get("/redoc").status_code == 404
    assert client.get("/openapi.json").status_code == 200


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("testserver", True),
        ("127.0.0.1:8000", True),
        ("localhost", True),
        ("[::1]:8000", True),
        ("LOCALHOST:1234", True),
        ("evil.example", False),
        ("evil.example:8000", False),
        ("127.0.0.1.evil.example", False),
        ("192.168.1.20:8000", False),
        ("", False),
    ],
)
def test_the_host_header_must_name_this_server(
    client: TestClient, host: str, allowed: bool
) -> None:
    """Only the names the server listens on are answered: a rebinding DNS name gets 400."""
    response = client.get("/api/rules", headers={"host": host})
    assert response.status_code == (200 if allowed else 400)
    if not allowed:
        assert response.json()["detail"].startswith("host: ")


def test_listening_on_every_address_accepts_ip_hosts_only(make_client: ClientFactory) -> None:
    """Bound to 0.0.0.0, any IP address may be the Host, but still no other name."""
    client = make_client(any_ip_host=True)
    assert client.get("/api/rules", headers={"host": "192.168.1.20:8000"}).status_code == 200
    assert client.get("/api/rules", headers={"host": "[fe80::1]:8000"}).status_code == 200
    assert client.get("/api/rules", headers={"host": "evil.example"}).status_code == 400


def test_round_ids_carry_128_random_bits(client: TestClient) -> None:
    """Round ids are 22 URL-safe base64 characters (128 bits), and never repeat."""
    ids = {deal(client, seed=n)["id"] for n in range(20)}
    assert len(ids) == 20
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{22}", round_id) for round_id in ids)


def test_player_ids_are_signed_and_a_made_up_one_is_replaced(client: TestClient) -> None:
    """The cookie the server issues is signed: one a client invents is not trusted."""
    issued = client.get("/api/me").cookies["cardwar_player"]
    token, _, signature = issued.partition(".")
    assert len(token) == 22 and signature
    client.cookies.clear()
    client.cookies.set("cardwar_player", f"{token}.AAAAAAAAAAAAAAAA")
    assert client.get("/api/me").cookies["cardwar_player"] != f"{token}.AAAAAAAAAAAAAAAA"
    client.cookies.clear()
    client.cookies.set("cardwar_player", issued)
    assert "cardwar_player" not in client.get("/api/me").cookies  # known: nothing new to set


def test_the_database_is_readable_by_its_owner_only(client: TestClient, db_path: Path) -> None:
    """The SQLite file and its WAL are created with mode 0600."""
    deal(client, seed=4)
    for path in (db_path, db_path.with_name(db_path.name + "-wal")):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path


def test_an_existing_database_is_made_private(tmp_path: Path, make_client: ClientFactory) -> None:
    """A file that was readable by others has those rights taken away when the server opens it."""
    path = tmp_path / "open.db"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    make_client(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


# -- bounded growth --------------------------------------------------------------------------------


def test_new_rounds_are_rate_limited_per_browser(make_client: ClientFactory) -> None:
    """30 new rounds at once, then one a second: the 31st is 429 with Retry-After, and other
    browsers are not held up."""
    now = [1_000_000.0]
    client = make_client(clock=lambda: now[0])
    for _ in range(30):
        deal(client, seed=1)
    refused = client.post("/api/rounds", json={"seed": 1})
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["detail"] == "new rounds: too many too fast, try again in 1 s"
    other = make_client(clock=lambda: now[0])
    other.cookies.clear()
    assert other.post("/api/rounds", json={"seed": 1}).status_code == 201
    now[0] += 1.0
    assert client.post("/api/rounds", json={"seed": 1}).status_code == 201
    assert client.post("/api/rounds", json={"seed": 1}).status_code == 429


def test_newcomers_are_rate_limited_by_address(make_client: ClientFactory) -> None:
    """Clients that never send their cookie back share one budget of new ids per address."""
    now = [1_000_000.0]
    client = make_client(clock=lambda: now[0])
    answers = []
    for _ in range(70):
        client.cookies.clear()
        answers.append(client.get("/api/me").status_code)
    assert answers[:60] == [200] * 60 and set(answers[60:]) == {429}
    now[0] += 2
    client.cookies.clear()
    assert client.get("/api/me").status_code == 200


def test_old_rounds_are_pruned_and_scoreboards_keep_their_totals(
    make_client: ClientFactory, db_path: Path
) -> None:
    """Rounds untouched for --keep-days go at start-up (and hourly); the scoreboard stays."""
    now = [time.time()]
    client = make_client(clock=lambda: now[0], keep_days=30)
    finished = deal(client, deal=[["AS"], ["2H"]])
    client.post(f"/api/rounds/{finished['id']}/battles")
    abandoned = deal(client, seed=5)
    assert len(rounds_stored(db_path)) == 2
    cookie = client.cookies["cardwar_player"]

    with sqlite3.connect(db_path) as connection:  # the rounds were last touched 31 days ago
        connection.execute("UPDATE rounds SET updated_at = updated_at - 31 * 86400")
    restarted = make_client(clock=lambda: now[0], keep_days=30)
    restarted.cookies.set("cardwar_player", cookie)
    assert rounds_stored(db_path) == []
    me = restarted.get("/api/me").json()
    you = {"name": "You", "won": 1, "lost": 0, "drawn": 0}
    assert me["scoreboard"] == {**scores(won=1), "people": [you]}  # You's tally is kept too
    assert me["round"] is None
    assert restarted.get(f"/api/rounds/{abandoned['id']}").status_code == 404


# -- bounded work ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("outcome", "reason"), [("draw", "battle_limit"), ("most_cards", None)])
def test_the_safety_cap_ends_a_round_with_no_battle_limit(
    make_client: ClientFactory, outcome: str, reason: str | None
) -> None:
    """--max-battles ends any round, even one with no battle limit, as a battle-limit ending."""
    client = make_client(max_battles=300)
    data = deal(client, rules={**ENDLESS, "limit_outcome": outcome}, seed=39)
    assert data["rules"]["battle_limit"] is None
    result = client.post(f"/api/rounds/{data['id']}/battles", json={"count": 1000}).json()
    assert result["round"]["battles"] == 300
    ended = result["round"]["outcome"]["reason"]
    assert ended == reason if reason else ended in {"most_cards", "most_cards_tie"}
    expected = Round(Rules.from_dict({**ENDLESS, "limit_outcome": outcome}), seed=39, cap=300)
    assert result["battles"] == [b.to_dict() for b in expected.play()]
    assert client.post(f"/api/rounds/{data['id']}/battles").status_code == 409


def test_a_round_loads_from_its_snapshot_without_replaying(
    make_client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long round pushed out of memory comes back from its snapshot: nothing is replayed."""
    client = make_client(cache_size=1)
    data = deal(client, rules=ENDLESS, seed=39)
    client.post(f"/api/rounds/{data['id']}/battles", json={"count": 20_000})
    deal(client, seed=1)  # pushes the long round out of the cache

    def no_replay(*_: Any, **__: Any) -> Round:
        raise AssertionError("a round was replayed from its history")

    monkeypatch.setattr(persist, "rebuild", no_replay)
    monkeypatch.setattr(Round, "play", no_replay)
    # How fast such a read is (under 500 ms) is benchmarks/hostile.py's to measure.
    again = client.get(f"/api/rounds/{data['id']}").json()
    assert again["battles"] == 20_000


def test_one_long_run_at_a_time_per_browser(make_client: ClientFactory) -> None:
    """While a browser's long run is played or sent, its next one is 429; a click is not."""
    client = make_client()
    long_round = deal(client, rules=ENDLESS, seed=39)["id"]
    other_round = deal(client, rules=ENDLESS, seed=28)["id"]
    with ThreadPoolExecutor(1) as pool, LongRunGate(client) as gate:
        first = pool.submit(
            client.post, f"/api/rounds/{long_round}/battles", json={"count": 100_000}
        )
        gate.reached()  # the first long run is being played, for as long as the gate is shut
        second = client.post(f"/api/rounds/{other_round}/battles", json={"count": 50_000})
        click = client.post(f"/api/rounds/{other_round}/battles", json={"count": 1})
        assert not first.done()
        gate.open()
        assert first.result().status_code == 200
    assert second.status_code == 429
    assert second.json()["detail"].startswith("battles: one long run at a time")
    assert click.status_code == 200


def test_statistics_under_way_never_turn_away_the_same_browsers_battles(
    make_client: ClientFactory,
) -> None:
    """While a browser's statistics are played (the House rules panel's own draw estimate, say),
    its long run of battles is played, not refused; its second statistics are refused."""
    client = make_client()
    round_id = deal(client, rules=ENDLESS, seed=39)["id"]
    with ThreadPoolExecutor(1) as pool, LongRunGate(client, gated=statistics) as gate:
        estimate = pool.submit(client.post, "/api/simulations", json={"rounds": 2000, "seed": 1})
        gate.reached()  # the statistics are under way for as long as the gate is shut
        battles = client.post(f"/api/rounds/{round_id}/battles", json={"count": 5_000})
        again = client.post("/api/simulations", json={"rounds": 10})
        assert not estimate.done()
        gate.open()
        assert estimate.result().status_code == 200
    assert battles.status_code == 200 and battles.json()["round"]["battles"] == 5_000
    assert again.status_code == 429
    assert again.json()["detail"].startswith("statistics: one long run at a time")


def test_a_long_run_never_holds_up_another_rounds_click(make_client: ClientFactory) -> None:
    """While one round plays 100,000 battles, clicks on a hundred other rounds are answered at
    once, inline (a plain JSON answer, never the long run's chunks); a click on the busy round
    itself is told to wait (429)."""
    client = make_client()
    long_round = deal(client, rules=ENDLESS, seed=39)["id"]
    others = [deal(client, seed=n)["id"] for n in range(29)]
    with ThreadPoolExecutor(1) as pool, LongRunGate(client) as gate:
        running = pool.submit(
            client.post, f"/api/rounds/{long_round}/battles", json={"count": 100_000}
        )
        gate.reached()  # the long run goes on until the gate opens
        clicks = [client.post(f"/api/rounds/{rid}/battles", json={"count": 1}) for rid in others]
        busy = client.post(f"/api/rounds/{long_round}/battles", json={"count": 1})
        assert not running.done()  # every click was answered while the long run was under way
        gate.open()
        assert running.result().status_code == 200
    assert [click.status_code for click in clicks] == [200] * len(others)
    assert all("content-length" in click.headers for click in clicks)
    assert busy.status_code == 429
    assert busy.json()["detail"].startswith("battles: this round is busy with a long run")


def test_a_click_waits_out_a_short_request_on_its_round(make_client: ClientFactory) -> None:
    """A chance estimate or a read holding the round for a moment makes a click wait, never
    fail: only a long run of the same round is answered 429."""
    client = make_client()
    rounds = client.app.app.state.rounds  # type: ignore[attr-defined]  # the guard wraps the FastAPI app, untyped
    round_id = deal(client, seed=2)["id"]
    held = threading.Event()
    waiters: list[RoundWaiters] = []

    def hold() -> None:
        with rounds.memory.locked(round_id, wait=True):
            waiters.append(RoundWaiters(client, round_id))
            held.set()
            waiters[0].wait_for(1)  # let go only once the click waits for the round

    with ThreadPoolExecutor(1) as pool:
        holder = pool.submit(hold)
        assert held.wait(HANG_S)
        click = client.post(f"/api/rounds/{round_id}/battles", json={"count": 1})
        holder.result()
    assert waiters[0].tries == [False, True]  # tried at once, then waited for its turn
    assert click.status_code == 200 and click.json()["round"]["battles"] == 1


def test_each_round_has_a_lock_of_its_own(make_client: ClientFactory) -> None:
    """A round held by a request never makes another round wait, however many rounds there
    are (locks were once shared by stripes of rounds, and a click met someone's long run)."""
    client = make_client()
    rounds = client.app.app.state.rounds  # type: ignore[attr-defined]  # the guard wraps the FastAPI app, untyped
    held = deal(client, seed=1)["id"]
    others = [deal(client, seed=n)["id"] for n in range(2, 30)]
    others += [f"missing-{n}" for n in range(300)]  # ids no round has: a lock each all the same
    with rounds.memory.locked(held, wait=True):
        assert rounds.play(held, 1, wait=False) is None
        for round_id in others[:28]:
            assert rounds.play(round_id, 1, wait=False) is not None
        for round_id in others[28:]:
            with rounds.memory.locked(round_id, wait=False) as got:
                assert got


def test_chance_estimates_take_turns_and_a_full_line_is_turned_away() -> None:
    """One estimate at a time, `waiting` more in line; the next is refused at once (429), and a
    place in line comes free as soon as an estimate is done."""

    async def scene() -> list[str]:
        gate = InProcessEstimates(at_once=1, waiting=2)
        happened: list[str] = []
        release = asyncio.Event()

        turned_away = asyncio.Event()

        async def estimate(name: str) -> None:
            try:
                async with gate.turn():
                    happened.append(f"{name} in")
                    await release.wait()
            except RateLimited as refused:
                happened.append(f"{name} refused: {refused}")
                turned_away.set()

        tasks = [asyncio.create_task(estimate(name)) for name in "abcd"]
        await turned_away.wait()  # d is turned away: a is in, b and c fill the line
        happened.append("released")
        release.set()
        await asyncio.gather(*tasks)
        await estimate("e")  # the line is empty again
        return happened

    assert asyncio.run(scene()) == [
        "a in",
        "d refused: chance: the server is busy with other players' estimates:"
        " too many too fast, try again in 1 s",
        "released",
        "b in",
        "c in",
        "e in",
    ]


def test_the_chance_route_answers_429_when_its_line_is_full(client: TestClient) -> None:
    """Over HTTP: with the line full the chance of a round is refused at once with Retry-After;
    the round itself is untouched and the next estimate is answered."""
    round_id = client.post("/api/rounds", json={"seed": 5}).json()["id"]
    gate = client.app.app.state.estimates  # type: ignore[attr-defined]  (inside the Guard)
    assert gate._most == 9  # one made at a time, eight in line (docs/api.md)
    gate._in = gate._most  # as if nine estimates were under way or waiting
    refused = client.get(f"/api/rounds/{round_id}/chance")
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["detail"].startswith("chance: the server is busy")
    gate._in = 0
    answered = client.get(f"/api/rounds/{round_id}/chance")
    assert answered.status_code == 200 and answered.json()["runs"] == 2000
    assert client.get(f"/api/rounds/{round_id}").json()["battles"] == 0


# -- operations ------------------------------------------------------------------------------------


def test_serve_help_documents_every_option(live_server: LiveServer) -> None:
    """`cardwar serve --help` names every option it takes, with what it does."""
    import subprocess
    import sys

    text = subprocess.run(
        [sys.executable, "-m", "cardwar.cli", "serve", "--help"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for option in ("--host", "--port", "--db", "--max-battles", "--keep-days", "--allow-host"):
        assert re.search(rf"^  {option}\b.*\n?.*\w", text, re.MULTILINE), option


def test_the_live_server_sends_no_server_header(live_server: LiveServer) -> None:
    """uvicorn's own `server` header is switched off; the security headers are on."""
    with live_server.client() as http:
        response = http.get("/")
    assert "server" not in response.headers
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
