"""Fixtures shared by the API and browser tests: fresh databases, clients, live servers and a
headless Chromium (one per module)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, sync_playwright

from cardwar.web import Settings, create_app
from cardwar.web.settings import LOOPBACK_HOSTS

ClientFactory = Callable[..., TestClient]
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
        app = create_app(Settings(db_path=path or db_path, hosts=hosts, **settings))
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


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """`cardwar serve` in a child process on a loopback port, as a person would run it."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> LiveServer:
        """Start the server and wait until it answers."""
        log = self.db.with_suffix(".log")
        command = [sys.executable, "-m", "cardwar.cli", "serve"]
        command += ["--port", str(self.port), "--db", str(self.db)]
        with log.open("ab") as sink:
            self.process = subprocess.Popen(
                command,
                stdout=sink,
                stderr=sink,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"cardwar serve exited early: {log.read_text()}")
            try:
                httpx.get(f"{self.url}/api/me", timeout=1)
                return self
            except httpx.TransportError:
                time.sleep(0.1)
        raise RuntimeError("cardwar serve did not answer within 20 s")

    def kill(self) -> None:
        """Kill the process at once (SIGKILL), as a crash would."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        """Stop the process politely, then make sure it is gone."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A running `cardwar serve` over a fresh database, stopped after the test."""
    server = LiveServer(tmp_path / "live.db").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One `cardwar serve` for a whole module; each browser context is a new player."""
    server = LiveServer(tmp_path_factory.mktemp("shared") / "live.db").start()
    yield server
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
