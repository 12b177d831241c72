"""Rounds in SQLite: one file, WAL mode, one row per round holding its history.

A round is rules + seed + deal + how many battles were played, so that is what a row holds;
the engine rebuilds everything else. Rows are their own type, apart from API schemas and
domain values.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardwar.engine import Round

SCHEMA = """
CREATE TABLE IF NOT EXISTS rounds (
    id         TEXT PRIMARY KEY,
    player     TEXT,
    rules      TEXT    NOT NULL,
    seed       INTEGER NOT NULL,
    deal       TEXT,
    battles    INTEGER NOT NULL DEFAULT 0,
    time_up    INTEGER NOT NULL DEFAULT 0,
    winner     INTEGER,
    reason     TEXT,
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS rounds_by_player ON rounds (player, created_at);
CREATE TABLE IF NOT EXISTS players (
    id          TEXT PRIMARY KEY,
    house_rules TEXT NOT NULL,
    updated_at  REAL NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class RoundRow:
    """One stored round: its history, who plays it, and when it was dealt."""

    id: str
    player: str | None
    history: dict[str, Any]
    created_at: float


@dataclass(frozen=True, slots=True)
class Scoreboard:
    """Finished rounds of one player, from seat 0's side."""

    won: int
    lost: int
    drawn: int


class Store:
    """The rounds table. Safe to share between threads; each write is one transaction."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # One connection guarded by a lock: SQLite writes one transaction at a time anyway.
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed battle survives the process being killed.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(SCHEMA)

    def close(self) -> None:
        """Close the database file."""
        with self._lock:
            self._db.close()

    def insert(self, round_id: str, player: str | None, round_: Round, created_at: float) -> None:
        """Store a new round, dealt at `created_at` (seconds since the epoch)."""
        history = round_.history()
        with self._lock:
            self._db.execute(
                "INSERT INTO rounds (id, player, rules, seed, deal, battles, time_up, winner,"
                " reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    round_id,
                    player,
                    json.dumps(history["rules"]),
                    history["seed"],
                    None if history["deal"] is None else json.dumps(history["deal"]),
                    history["battles"],
                    int(round_.time_up),
                    None if round_.outcome is None else round_.outcome.winner,
                    None if round_.outcome is None else round_.outcome.reason.value,
                    created_at,
                    created_at,
                ),
            )

    def update(self, round_id: str, round_: Round) -> None:
        """Record the battles played since, the clock, and the outcome once there is one."""
        outcome = round_.outcome
        with self._lock:
            self._db.execute(
                "UPDATE rounds SET battles = ?, time_up = ?, winner = ?, reason = ?,"
                " updated_at = ? WHERE id = ?",
                (
                    round_.battles,
                    int(round_.time_up),
                    None if outcome is None else outcome.winner,
                    None if outcome is None else outcome.reason.value,
                    time.time(),
                    round_id,
                ),
            )

    def get(self, round_id: str) -> RoundRow | None:
        """The stored round with this id, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, player, rules, seed, deal, battles, time_up, created_at"
                " FROM rounds WHERE id = ?",
                (round_id,),
            ).fetchone()
        return None if row is None else _row(row)

    def latest_id(self, player: str) -> str | None:
        """The id of the player's most recently created round, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM rounds WHERE player = ? ORDER BY created_at DESC, rowid DESC"
                " LIMIT 1",
                (player,),
            ).fetchone()
        return None if row is None else str(row[0])

    def scoreboard(self, player: str) -> Scoreboard:
        """Rounds the player won, lost and drew (unfinished rounds do not count)."""
        with self._lock:
            won, lost, drawn = self._db.execute(
                "SELECT COALESCE(SUM(winner = 0), 0),"
                " COALESCE(SUM(winner IS NOT NULL AND winner != 0), 0),"
                " COALESCE(SUM(reason IS NOT NULL AND winner IS NULL), 0)"
                " FROM rounds WHERE player = ?",
                (player,),
            ).fetchone()
        return Scoreboard(won=won, lost=lost, drawn=drawn)

    def house_rules(self, player: str) -> dict[str, Any] | None:
        """The rule fields the player last chose in the House rules panel, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT house_rules FROM players WHERE id = ?", (player,)
            ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def set_house_rules(self, player: str, rules: dict[str, Any]) -> None:
        """Remember the player's choice of rules for their next rounds."""
        with self._lock:
            self._db.execute(
                "INSERT INTO players (id, house_rules, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET house_rules = excluded.house_rules,"
                " updated_at = excluded.updated_at",
                (player, json.dumps(rules), time.time()),
            )


def _row(row: tuple[Any, ...]) -> RoundRow:
    round_id, player, rules, seed, deal, battles, time_up, created_at = row
    history = {
        "rules": json.loads(rules),
        "seed": seed,
        "deal": None if deal is None else json.loads(deal),
        "battles": battles,
        "time_up": bool(time_up),
    }
    return RoundRow(round_id, player, history, created_at)
