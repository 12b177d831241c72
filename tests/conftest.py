"""Fixtures shared by the API and browser tests: fresh databases, clients, live servers and a
headless Chromium (one per module)."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from playwright.sync_api import Browser, sync_playwright

from cardwar.web import Settings, create_app
from cardwar.web.settings import LOOPBACK_HOSTS

from helpers import ClientFactory
from live import LiveServer

# Hypothesis times nothing here: no deadline per example, and no health check of how long the
# examples take to make (a busy machine makes them slowly, which is no fault of the code).
hypothesis_settings.register_profile(
    "cardwar", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("cardwar")
# The browser tests' helpers assert too: their failures should read as well as a test's own.
pytest.register_assert_rewrite("browsing")
# Flags for a closed network: no background fetches that the machine would refuse anyway.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# The PostgreSQL every machine of this project runs (trust auth, database `test`); each test
# that asks for it gets a schema of its own, dropped after.
POSTGRES = os.environ.get("CARDWAR_TEST_POSTGRES", "postgresql://127.0.0.1:5432/test")


@pytest.fixture
def postgres() -> Iterator[str]:
    """The URL of a fresh PostgreSQL schema for this test only (on POSTGRES; a test that needs
    it is skipped, saying so in one line, where no PostgreSQL answers)."""
    import psycopg

    try:
        admin = psycopg.connect(POSTGRES, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        reason = str(error).strip().splitlines()[0]
        pytest.skip(f"PostgreSQL is not running at {POSTGRES} ({reason}): this test needs it")
    schema = f"test_{secrets.token_hex(8)}"
    with admin:
        admin.execute(f"CREATE SCHEMA {schema}")
        try:
            joined = "&" if "?" in POSTGRES else "?"
            yield f"{POSTGRES}{joined}options=-csearch_path%3D{schema}"
        finally:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")


# The Redis every machine of this project runs; each test that asks for it gets a key prefix of
# its own, its keys deleted after.
REDIS = os.environ.get("CARDWAR_TEST_REDIS", "redis://127.0.0.1:6379/0")


@pytest.fixture
def broker() -> Iterator[str]:
    """The broker URL of a fresh key prefix for this test only (on REDIS; a test that needs it
    is skipped, saying so in one line, where no Redis answers)."""
    import redis

    client = redis.Redis.from_url(REDIS, socket_connect_timeout=5)
    try:
        client.ping()
    except (redis.RedisError, OSError) as error:
        pytest.skip(f"Redis is not running at {REDIS} ({error}): this test needs it")
    prefix = f"cardwar-test-{secrets.token_hex(8)}:"
    joined = "&" if "?" in REDIS else "?"
    try:
        yield f"{REDIS}{joined}prefix={prefix}"
    finally:
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh SQLite file for this test only."""
    return tmp_path / "cardwar.db"


@pytest.fixture
def make_client(db_path: Path) -> Iterator[ClientFactory]:
    """Build test clients over this test's database; a second call is a server restart."""
    clients: list[TestClient] = []

    def make(path: Path | None = None, **settings: Any) -> TestClient:
        hosts = (*LOOPBACK_HOSTS, "testserver")
        settings.setdefault("worker_at_start", False)  # a process for each test costs more
        app = create_app(Settings(db=path or db_path, hosts=hosts, **settings))
        # A browser's fetch of ours always says its body is JSON (an empty body included).
        client = TestClient(app, headers={"content-type": "application/json"})
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    """A client of a fresh server."""
    return make_client()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A running `cardwar serve` over a fresh database, stopped after the test."""
    server = LiveServer(tmp_path / "live.db").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One `cardwar serve` for a whole module; each browser context is a new player. (The
    server prepares the simulator in the background as it starts: from the session's cache,
    in a second.)"""
    server = LiveServer(tmp_path_factory.mktemp("shared") / "live.db").start()
    try:
        yield server
    finally:
        server.stop()


def chromium_path() -> str:
    """Debian's Chromium: $CARDWAR_CHROMIUM, else its headless build on the PATH (about half the
    processor time of the full browser), else `chromium`."""
    found = (
        os.environ.get("CARDWAR_CHROMIUM")
        or shutil.which("chromium-headless-shell")
        or shutil.which("chromium")
    )
    if not found:
        pytest.fail(
            "browser tests need Chromium: `apt-get install chromium-headless-shell` (see README)"
        )
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the module."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def pytest_sessionstart(session: pytest.Session) -> None:
    """Have numba compile (and cache) the simulator's code once, before the xdist workers
    start, rather than in every process that needs it at once: each `cardwar serve` prepares
    the kernels in the background as it starts (a process of its own compiles any missing, then
    its worker and itself load them), and the tests load their own. A fresh checkout compiles
    them here (about half a minute of one core); after that, all of them load the cache in
    under a second. Every kernel
    family is touched: the common table's own, the general one (table order, no limit: the loop
    watch too), every deal of a small deck, and deals read from JSON lines."""
    if hasattr(session.config, "workerinput"):
        return  # an xdist worker: the controller has done it
    from cardwar.engine import Round
    from cardwar.rules import CLASSIC, Rules
    from cardwar.sim.exact.deck import SmallDeck
    from cardwar.sim.exact.driver import play_every_deal
    from cardwar.sim.runs.chance import chance_to_win
    from cardwar.sim.runs.deals import play_deal_lines
    from cardwar.sim.runs.run import simulate

    chance_to_win(Round(CLASSIC, seed=1), runs=1)
    simulate(CLASSIC, 10, 1, workers=1)
    simulate(Rules(gather="table", battle_limit=None), 10, 1, workers=1)
    play_every_deal(Rules(battle_limit=None), SmallDeck.parse("4x2"), workers=1)
    play_deal_lines(CLASSIC, b'[["AS"], ["2H"]]\n', lambda text: None)


# The longest files first. With `--dist loadfile --no-loadscope-reorder` (pyproject) each file goes
# whole to a worker in collection order, so the long ones start at once and the short ones fill
# in behind them; otherwise the browser files, having few tests, would be dealt out last.
LONGEST_FIRST = (
    "test_browser.py",
    "test_browser_matches.py",
    "test_browser_battles.py",
    "test_simulator.py",
    "test_benchmarks.py",
    "test_api.py",
    "test_durability.py",
    "test_guard.py",
    "test_engine.py",
    "test_matches.py",
    "test_cluster.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the collected tests longest file first (the order within a file is kept)."""

    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)
