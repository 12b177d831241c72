"""Small helpers shared by the tests."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from typing import Any

from fastapi.testclient import TestClient

from cardwar import Card, Reason, Round, Rules
from cardwar.web.store import Store
from cardwar.web.store.engines import SQLite
from cardwar.web.workers import long_run

from live import HANG_S

ClientFactory = Callable[..., TestClient]
"""Builds test clients over one test's database (the `make_client` fixture)."""


def codes(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    """Cards as their codes, for readable assertions."""
    return [card.code for card in cards]


def piles(round_: Round) -> list[list[str]]:
    """Every seat's pile as codes, top first."""
    return [codes(list(pile)) for pile in round_.piles]


def dealt(rules: Rules, *seats: str, seed: int = 0) -> Round:
    """A round from explicit piles written as space-separated codes, top first."""
    return Round(rules, seed=seed, deal=[pile.split() for pile in seats])


def scores(
    won: int = 0, lost: int = 0, drawn: int = 0, matches_won: int = 0, matches_lost: int = 0
) -> dict[str, int]:
    """A scoreboard as GET /api/me shows it."""
    return {
        "won": won,
        "lost": lost,
        "drawn": drawn,
        "matches_won": matches_won,
        "matches_lost": matches_lost,
    }


def ended(round_: Round) -> tuple[int | None, Reason]:
    """The round's outcome as (winner, reason); fails if the round is still going."""
    assert round_.outcome is not None
    return round_.outcome.winner, round_.outcome.reason


def through_json(data: dict[str, Any]) -> dict[str, Any]:
    """The data as it comes back from a database or a file."""
    return dict(json.loads(json.dumps(data)))


class LongRunGate:
    """Holds every long run (a request for more battles than a click's, played in the worker
    process) of an app under a TestClient at a gate, until the test opens it. Meanwhile the
    server is exactly as during any long run (the round held, the browser's long run counted,
    the round marked busy), for as long as the test needs: no sleep has to guess how long the
    run lasts. Other work for the worker process passes straight through. (`gated` names another
    kind of work to hold instead: `statistics`, say.)"""

    def __init__(self, client: TestClient, gated: Any = long_run) -> None:
        self._worker = client.app.app.state.rounds.worker  # type: ignore[attr-defined]  # the guard wraps the FastAPI app, untyped
        self._gated = gated
        self._run = self._worker.run
        self._reached = threading.Event()
        self._open = threading.Event()

    def __enter__(self) -> LongRunGate:
        self._worker.run = self._hold
        return self

    def __exit__(self, *_: object) -> None:
        self.open()  # a failing test never leaves its long run waiting
        del self._worker.run  # the worker's own method again

    def _hold(self, function: Any, *args: Any) -> Any:
        if function is self._gated:
            self._reached.set()
            self._open.wait(HANG_S)
        return self._run(function, *args)

    def reached(self) -> None:
        """Wait until a long run is at the gate (under way, as far as anyone can tell)."""
        assert self._reached.wait(HANG_S), "no long run reached the gate"

    def open(self) -> None:
        """Let the long run play."""
        self._open.set()


class RoundWaiters:
    """Counts the requests that wait for a round held by someone else: wraps the acquire of the
    round's own lock (call it while the round is held, so that the lock exists)."""

    def __init__(self, client: TestClient, round_id: str) -> None:
        lock = client.app.app.state.rounds.memory.locks[round_id]  # type: ignore[attr-defined]  # the guard wraps the FastAPI app, untyped
        self.tries: list[bool] = []  # each try to take the round: True for one that waits
        self._changed = threading.Condition()
        take = lock.acquire

        def acquire(blocking: bool = True, timeout: float = -1) -> bool:
            with self._changed:
                self.tries.append(blocking)
                self._changed.notify_all()
            return bool(take(blocking, timeout))

        lock.acquire = acquire

    def wait_for(self, waiting: int) -> None:
        """Wait until `waiting` requests are waiting for the round."""
        with self._changed:
            assert self._changed.wait_for(lambda: self.tries.count(True) >= waiting, HANG_S), (
                f"{self.tries.count(True)} of {waiting} requests came to wait for the round"
            )


def integrity(store: Store) -> str:
    """SQLite's own check of the store's file: "ok" when it is sound (read on a connection of
    its own, as another process would see the file)."""
    assert isinstance(store.where, SQLite), "integrity_check is SQLite's own"
    with closing(sqlite3.connect(store.where.path)) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


def parse_cards(codes: Iterable[str]) -> list[Card]:
    """Parse many card codes, naming the first one that is wrong."""
    return [Card.parse(code) for code in codes]


def format_cards(cards: Sequence[Card]) -> str:
    """Cards as codes separated by spaces: `9S 2C KD`."""
    return " ".join(card.code for card in cards)


def in_a_fresh_process(script: str) -> str:
    """What `script` prints, run by this Python in a process of its own (nothing imported or
    compiled yet); the test fails with its stderr if it fails."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()
