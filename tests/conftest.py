"""Fixtures shared by the API and browser tests: fresh databases, clients, live servers and a
headless Chromium (one per module)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NoReturn

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from playwright.sync_api import Browser, sync_playwright

from cardwar.web import Settings, create_app
from cardwar.web.settings import LOOPBACK_HOSTS

ClientFactory = Callable[..., TestClient]
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
    """A TCP port on the loopback address that nothing listens on right now (another process
    may take it before it is used: `LiveServer.start` notices, and takes another)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# The fixtures wait for events (a line printed, a port answering, a process ending), never for
# a time. This only bounds a wait for one that never comes, so that a hung server fails its
# test with its output rather than hanging the suite: a busy machine delays the events, and
# never comes near it.
HANG_S = 120.0
# While a port still refuses connections: try again after this long, or at once if the process
# ends meanwhile.
RETRY_S = 0.05
# One request to a port that may not be the server's (another process may listen there) waits
# this long for its answer, then the process is looked at and the request sent again: a slow
# answer is only another try, never a failure.
PROBE_S = 2.0
PORT_TRIES = 5  # fresh ports tried when another process listens on the one chosen first


class Output:
    """A child process's stdout and stderr as they come: copied line by line into a log file
    (flushed, so a test may read it) and kept, with waits for some words or for the end."""

    def __init__(self, stream: IO[bytes], log: Path) -> None:
        self._lines: list[str] = []
        self._ended = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._copy, args=(stream, log), daemon=True)
        self._thread.start()

    def _copy(self, stream: IO[bytes], log: Path) -> None:
        try:
            with stream, log.open("ab") as sink:
                for line in iter(stream.readline, b""):
                    sink.write(line)
                    sink.flush()
                    with self._changed:
                        self._lines.append(line.decode(errors="replace"))
                        self._changed.notify_all()
        finally:
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    @property
    def text(self) -> str:
        with self._changed:
            return "".join(self._lines)

    def wait_for(self, words: str) -> bool:
        """Wait until `words` are printed (True) or the output ends (False: the process has
        closed it, so it is ending). Raises TimeoutError if neither comes within HANG_S."""
        with self._changed:
            if not self._changed.wait_for(
                lambda: self._ended or words in "".join(self._lines), HANG_S
            ):
                raise TimeoutError(f"neither {words!r} nor the end within {HANG_S:.0f} s")
            return words in "".join(self._lines)

    def ended(self, within: float) -> bool:
        """True once the output has ended, waiting up to `within` seconds for that."""
        with self._changed:
            return self._changed.wait_for(lambda: self._ended, within)

    def close(self) -> None:
        """Wait until everything printed is copied (once the process has ended)."""
        self._thread.join(HANG_S)


class PortTaken(Exception):
    """Another process listened on the port first: the server could not bind it."""


class LiveServer:
    """`cardwar serve` in a child process on a loopback port, as a person would run it."""

    def __init__(self, db: Path, env: dict[str, str] | None = None) -> None:
        self.db = db
        self.env = env or {}  # more of the server's environment (NUMBA_CACHE_DIR, say)
        self.log = db.with_suffix(".log")
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.output: Output | None = None
        self._served = False  # once served, the address stays: the test and its pages use it

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        """Start the server and wait until it answers.

        The waits are for the server's own signs of life, however long a busy machine makes
        them take: it prints its address (once it has loaded the simulator's compiled code,
        which a fresh checkout compiles first), then its port answers. A server that exits
        fails the test at once, with its output. The first start moves to another port if
        another process listens on this one; a restart keeps the address."""
        for _ in range(1 if self._served else PORT_TRIES):
            self._launch()
            try:
                self._wait_until_serving()
            except PortTaken:
                if self._served:
                    raise RuntimeError(
                        f"cardwar serve could not listen on {self.url} again: another process"
                        f" took the port\n{self._said()}"
                    ) from None
                self.port = free_port()
                continue
            except BaseException:
                self.kill()
                raise
            self._served = True
            return self
        raise RuntimeError(f"cardwar serve found {PORT_TRIES} ports taken\n{self._said()}")

    def _launch(self) -> None:
        command = [sys.executable, "-m", "cardwar.cli", "serve"]
        command += ["--port", str(self.port), "--db", str(self.db)]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
        )
        assert self.process.stdout is not None
        self.output = Output(self.process.stdout, self.log)

    def _wait_until_serving(self) -> None:
        assert self.process is not None and self.output is not None
        try:
            printed = self.output.wait_for(self.url)
        except TimeoutError:
            raise RuntimeError(
                f"cardwar serve printed no address in {HANG_S:.0f} s, and runs on (hung?)"
                f"\n{self._said()}"
            ) from None
        if not printed:
            self._exited()
        hung = time.monotonic() + HANG_S
        while True:
            try:
                answer = httpx.get(f"{self.url}/api/rules", timeout=PROBE_S)
            except httpx.TransportError:  # not listening yet, slow to answer, or not ours
                if self.output.ended(RETRY_S):
                    self._exited()
                if time.monotonic() > hung:
                    raise RuntimeError(
                        f"cardwar serve printed its address but has not answered on it for"
                        f" {HANG_S:.0f} s, and runs on\n{self._said()}"
                    ) from None
                continue
            if answer.status_code == 200 and "presets" in answer.text:
                if self.process.poll() is None:
                    return
            # Not our server's answer, or it ended just now: ours cannot listen there.
            if self.output.ended(HANG_S):
                self._exited()
            raise RuntimeError(
                f"{self.url} answered {answer.status_code}, not as cardwar serve does, and the"
                f" server runs on\n{self._said()}"
            )

    def _exited(self) -> NoReturn:
        """The process closed its output before serving: why it ended, from what it said."""
        assert self.process is not None and self.output is not None
        status = self.process.wait(HANG_S)
        self.output.close()
        if "address already in use" in self.output.text.lower():
            raise PortTaken
        raise RuntimeError(
            f"cardwar serve exited with status {status} before it answered\n{self._said()}"
        )

    def _said(self) -> str:
        return f"--- cardwar serve said:\n{self.output.text if self.output else ''}---"

    def client(self) -> httpx.Client:
        """An HTTP client of the server that waits out a busy machine: httpx's own timeout, 5 s,
        is shorter than a server's first long work may take there (a deal that starts its
        worker process, say); only a hang reaches HANG_S."""
        return httpx.Client(base_url=self.url, timeout=HANG_S)

    def wait(self) -> int:
        """Wait for the process to end by itself (after a signal the test sent); its status."""
        assert self.process is not None and self.output is not None
        status = self.process.wait(HANG_S)
        self.output.close()
        return status

    def kill(self) -> None:
        """Kill the process at once (SIGKILL), as a crash would."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.wait()

    def stop(self) -> None:
        """Stop the process politely (SIGTERM, as Ctrl+C would), then make sure it is gone."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(HANG_S)
                except subprocess.TimeoutExpired:
                    self.process.kill()
            self.wait()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A running `cardwar serve` over a fresh database, stopped after the test."""
    server = LiveServer(tmp_path / "live.db").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One `cardwar serve` for a whole module; each browser context is a new player. (The
    server has its worker process started and the simulator loaded in it before it answers.)"""
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
    start, rather than in every process that needs it at once: each `cardwar serve` loads the
    chance estimate's code before it listens, and its worker process the statistics' code when
    first asked, and the tests their own. A fresh checkout compiles them here (about half a
    minute of one core); after that, all of them load the cache in under a second. Every kernel
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
