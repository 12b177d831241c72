"""Rounds and players in SQLite: one file, WAL mode, readable by its owner only.

A round's row holds its history (rules + seed + deal + battles played: enough to rebuild it), a
snapshot of where it stands, so loading a round never replays it, and who sits at its table. A
player's row holds the house rules they chose (the seats with them) and their scoreboard's
totals, and `people` a tally per person's name at their table: totals outlive the rounds that
made them (old rounds are pruned, totals are not). Rows are their own types, apart from API
schemas and domain values.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cardwar import persist
from cardwar.engine import Round
from cardwar.web.seats import Seat, seats_from_json, seats_json
from cardwar.web.store.rows import (
    ROW_COLUMNS,
    MatchRow,
    MatchUpdate,
    PersonScore,
    RoundRow,
    Scoreboard,
    round_row,
)
from cardwar.web.store.schema import migrate

SCORES = {"won": "won", "lost": "lost", "drawn": "drawn"}


def _private_file(path: Path) -> None:
    """Create the database file readable and writable by its owner only (SQLite gives its
    -wal and -shm files the same mode), or take those rights back from an existing one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


class Store:
    """The rounds and players tables. Safe to share between threads; each write is one
    transaction."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._closed = True
        self.open()

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return self._path

    def open(self) -> None:
        """Open the file (creating it, and bringing an older one up to date); a store that is
        open already stays as it is."""
        with self._lock:
            if not self._closed:
                return
            _private_file(self._path)
            # One connection guarded by a lock: SQLite writes one transaction at a time anyway.
            self._db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
            self._closed = False
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed battle survives the process being killed.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            migrate(self._db)

    def close(self) -> None:
        """Close the database file (`open` opens it again)."""
        with self._lock:
            if not self._closed:
                self._db.close()
                self._closed = True

    def secret(self) -> bytes:
        """This file's own random key (made on first use), which signs the players' ids."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('secret', ?)",
                (secrets.token_bytes(32),),
            )
            return bytes(
                self._db.execute("SELECT value FROM meta WHERE key = 'secret'").fetchone()[0]
            )

    # -- rounds ------------------------------------------------------------------------------

    def insert(
        self,
        round_id: str,
        player: str | None,
        round_: Round,
        created_at: float,
        match_id: str | None = None,
        seats: tuple[Seat, ...] | None = None,
    ) -> None:
        """Store a new round, dealt at `created_at` (seconds since the epoch), perhaps one of a
        match, with its seats in play (names filled in)."""
        history = persist.history(round_)
        with self._lock:
            self._db.execute(
                "INSERT INTO rounds (id, player, rules, seed, deal, battles, time_up, winner,"
                " reason, created_at, updated_at, snapshot, match_id, cap, seats)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    json.dumps(persist.snapshot(round_)),
                    match_id,
                    history["cap"],
                    None if seats is None else json.dumps(seats_json(seats)),
                ),
            )

    def update(
        self,
        round_id: str,
        round_: Round,
        *,
        score: str | None = None,
        people: Sequence[tuple[str, str]] = (),
        match: MatchUpdate | None = None,
    ) -> None:
        """Record the battles played since, the clock, the outcome once there is one, and where
        the round stands; `score` ("won", "lost" or "drawn") is added to the player's
        scoreboard, each (name, score) of `people` to that name's tally, and `match` to the
        round's match, in the same transaction."""
        outcome = round_.outcome
        now = time.time()
        snapshot = json.dumps(persist.snapshot(round_))
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute(
                    "UPDATE rounds SET battles = ?, time_up = ?, winner = ?, reason = ?,"
                    " updated_at = ?, snapshot = ? WHERE id = ?",
                    (
                        round_.battles,
                        int(round_.time_up),
                        None if outcome is None else outcome.winner,
                        None if outcome is None else outcome.reason.value,
                        now,
                        snapshot,
                        round_id,
                    ),
                )
                if score is not None:
                    self._count_for_player(SCORES[score], "rounds", round_id, now)
                for name, result in people:
                    self._score_person(round_id, name, SCORES[result], now)
                if match is not None:
                    self._db.execute(
                        "UPDATE matches SET winners = ?, winner = ?, updated_at = ? WHERE id = ?",
                        (json.dumps(match.winners), match.winner, now, match.id),
                    )
                    if match.winner is not None:
                        column = "matches_won" if match.winner == 0 else "matches_lost"
                        self._count_for_player(column, "matches", match.id, now)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _score_person(self, round_id: str, name: str, column: str, now: float) -> None:
        # Inside update's transaction. The player is touched too: a score lives as long as
        # the player's row (pruning forgets both together).
        self._db.execute(
            f"INSERT INTO people (player, key, name, {column})"
            " SELECT player, ?, ?, 1 FROM rounds WHERE id = ? AND player IS NOT NULL"
            f" ON CONFLICT (player, key) DO UPDATE SET {column} = {column} + 1,"
            " name = excluded.name",
            (name.casefold(), name, round_id),
        )
        self._count_for_player(None, "rounds", round_id, now)

    def _count_for_player(self, column: str | None, source: str, row_id: str, now: float) -> None:
        # Inside a write's transaction: one more in `column` (one of the players table's fixed
        # column names; None only touches the row) for the player of row `row_id` of `source`
        # ("rounds" or "matches"), made if the player has no row yet.
        count, added = ("", "") if column is None else (f", {column}", ", 1")
        more = "" if column is None else f"{column} = {column} + 1, "
        self._db.execute(
            f"INSERT INTO players (id{count}, updated_at)"
            f" SELECT player{added}, ? FROM {source} WHERE id = ? AND player IS NOT NULL"
            f" ON CONFLICT (id) DO UPDATE SET {more}updated_at = excluded.updated_at",
            (now, row_id),
        )

    def get(self, round_id: str) -> RoundRow | None:
        """The stored round with this id, or None."""
        with self._lock:
            row = self._db.execute(
                f"SELECT {ROW_COLUMNS} FROM rounds WHERE id = ?",
                (round_id,),
            ).fetchone()
        return None if row is None else round_row(row)

    # -- matches -----------------------------------------------------------------------------

    def insert_match(
        self,
        match_id: str,
        player: str | None,
        best_of: int,
        rules: dict[str, Any],
        seed: int,
        at: float,
        seats: tuple[Seat, ...] | None = None,
    ) -> None:
        """Store a new match of `best_of` rounds under `rules`, its rounds dealt from `seed`
        with the four `seats` chosen for it."""
        with self._lock:
            self._db.execute(
                "INSERT INTO matches (id, player, best_of, rules, seed, created_at, updated_at,"
                " seats) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id, player, best_of, json.dumps(rules), seed, at, at,
                    None if seats is None else json.dumps(seats_json(seats)),
                ),
            )  # fmt: skip

    def open_match_id(self, player: str) -> str | None:
        """The id of the player's most recent match when it is still undecided, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, winner FROM matches WHERE player = ?"
                " ORDER BY created_at DESC, rowid DESC LIMIT 1",
                (player,),
            ).fetchone()
        return None if row is None or row[1] is not None else str(row[0])

    def get_match(self, match_id: str) -> MatchRow | None:
        """The stored match with this id, with its rounds' ids in the order dealt, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, player, best_of, rules, winners, seed, seats FROM matches WHERE id = ?",
                (match_id,),
            ).fetchone()
            if row is None:
                return None
            rounds = self._db.execute(
                "SELECT id FROM rounds WHERE match_id = ? ORDER BY created_at, rowid", (match_id,)
            ).fetchall()
        match_id, player, best_of, rules, winners, seed, seats = row
        return MatchRow(
            match_id,
            player,
            best_of,
            json.loads(rules),
            tuple(json.loads(winners)),
            tuple(str(r[0]) for r in rounds),
            seed,
            None if seats is None else seats_from_json(json.loads(seats)),
        )

    def latest_id(self, player: str) -> str | None:
        """The id of the player's most recently created round, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id FROM rounds WHERE player = ? ORDER BY created_at DESC, rowid DESC"
                " LIMIT 1",
                (player,),
            ).fetchone()
        return None if row is None else str(row[0])

    # -- players -----------------------------------------------------------------------------

    def scoreboard(self, player: str) -> Scoreboard:
        """Rounds the player won, lost and drew (unfinished rounds do not count), matches won
        and lost, and the tally of each person's name at their table, by name case aside."""
        with self._lock:
            row = self._db.execute(
                "SELECT won, lost, drawn, matches_won, matches_lost FROM players WHERE id = ?",
                (player,),
            ).fetchone()
            people = self._db.execute(
                "SELECT name, won, lost, drawn FROM people WHERE player = ? ORDER BY key, name",
                (player,),
            ).fetchall()
        scores = tuple(PersonScore(*person) for person in people)
        won, lost, drawn, matches_won, matches_lost = (0, 0, 0, 0, 0) if row is None else row
        return Scoreboard(won, lost, drawn, matches_won, matches_lost, scores)

    def house_rules(self, player: str) -> dict[str, Any] | None:
        """The rule fields the player last chose in the House rules panel, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT house_rules FROM players WHERE id = ?", (player,)
            ).fetchone()
        return None if row is None or row[0] is None else dict(json.loads(row[0]))

    def set_house_rules(
        self, player: str, rules: dict[str, Any], seats: tuple[Seat, ...] | None = None
    ) -> None:
        """Remember the player's choice of rules for their next rounds, and of the four seats
        (kept as they were when None)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO players (id, house_rules, seats, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET house_rules = excluded.house_rules,"
                " seats = COALESCE(excluded.seats, seats), updated_at = excluded.updated_at",
                (
                    player,
                    json.dumps(rules),
                    None if seats is None else json.dumps(seats_json(seats)),
                    time.time(),
                ),
            )

    def seats(self, player: str) -> tuple[Seat, ...] | None:
        """The four seats the player last chose in the House rules panel, or None."""
        with self._lock:
            row = self._db.execute("SELECT seats FROM players WHERE id = ?", (player,)).fetchone()
        return None if row is None or row[0] is None else seats_from_json(json.loads(row[0]))

    def best_of(self, player: str) -> int:
        """How many rounds the player's matches last (1, 3 or 5): their Match choice."""
        with self._lock:
            row = self._db.execute("SELECT best_of FROM players WHERE id = ?", (player,)).fetchone()
        return 1 if row is None else int(row[0])

    def set_best_of(self, player: str, best_of: int) -> None:
        """Remember the player's Match choice for their next rounds."""
        with self._lock:
            self._db.execute(
                "INSERT INTO players (id, best_of, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET best_of = excluded.best_of,"
                " updated_at = excluded.updated_at",
                (player, best_of, time.time()),
            )

    # -- keeping the file bounded ------------------------------------------------------------

    def prune(self, rounds_before: float, players_before: float) -> tuple[int, int]:
        """Remove rounds untouched since `rounds_before`, finished or abandoned, and players
        (house rules, scoreboard) untouched since `players_before` who have no round left.
        A match's rounds go together, once none of them has been touched since: its progress
        is read position by position from its rounds, so a gap would deal a round again.
        Returns how many rounds and players went."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                rounds = self._db.execute(
                    "DELETE FROM rounds WHERE updated_at < ? AND (match_id IS NULL OR NOT EXISTS"
                    " (SELECT 1 FROM rounds AS other WHERE other.match_id = rounds.match_id"
                    " AND other.updated_at >= ?))",
                    (rounds_before, rounds_before),
                ).rowcount
                self._db.execute(
                    "DELETE FROM matches WHERE updated_at < ?"
                    " AND NOT EXISTS (SELECT 1 FROM rounds WHERE rounds.match_id = matches.id)",
                    (rounds_before,),
                )
                players = self._db.execute(
                    "DELETE FROM players WHERE updated_at < ?"
                    " AND NOT EXISTS (SELECT 1 FROM rounds WHERE rounds.player = players.id)",
                    (players_before,),
                ).rowcount
                # A player's tallies go with the player, as the scoreboard's totals do.
                self._db.execute(
                    "DELETE FROM people"
                    " WHERE NOT EXISTS (SELECT 1 FROM players WHERE players.id = people.player)"
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return rounds, players
