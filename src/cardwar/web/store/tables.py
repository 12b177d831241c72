"""The rounds' table, and `Store`, the whole store: the database (`database.py`) and the queries
of each of its tables over it, the rounds' here, the players' (`players.py`), the matches'
(`matches.py`) and the live tables' (`live.py`) each in a module of its own.

A round's row holds its history (rules + seed + deal + battles played: enough to rebuild it), a
snapshot of where it stands, so loading a round never replays it, and who sits at its table. A
match's row holds its rules, its seed and the winners of its rounds so far. Rows are their own
types (`rows.py`), apart from API schemas and domain values.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from cardwar import persist
from cardwar.engine import Round
from cardwar.web.game.seats import Seat, seats_json
from cardwar.web.store.database import DEADLINE_S, POOL_SIZE, Database
from cardwar.web.store.engines import Where
from cardwar.web.store.live import LiveTableRows
from cardwar.web.store.matches import MatchRows
from cardwar.web.store.players import PlayerTables
from cardwar.web.store.rows import (
    ROW_COLUMNS,
    MatchUpdate,
    RoundRow,
    RoundState,
    round_row,
)

SCORES = {"won": "won", "lost": "lost", "drawn": "drawn"}
TOUCH_S = 60.0
"""A round's plays move its `updated_at` (which `prune` reads, in days) at most this often: a
column left as it is leaves its index as it is, and PostgreSQL can then write a click's row in
place (a heap-only update), where a moved index entry costs every index of the table one."""


PRUNE_S = 600.0
"""How long a prune may hold its connection: it runs apart from every request, and may have
a month of rounds to remove."""


class RoundMoved(Exception):
    """A round's row is no longer where this process last read or wrote it: another process
    serving the same database played it meanwhile. Nothing was written."""


class Store:
    """The store: its database (`db`), the rounds' queries here, and beside them the players'
    (`players`), the matches' (`matches`) and the live tables' (`live`). Safe to share between
    threads; each write is one transaction."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        deadline_s: float = DEADLINE_S,
        pool_size: int = POOL_SIZE,
    ) -> None:
        self.db = Database(path, deadline_s=deadline_s, pool_size=pool_size)
        self.players = PlayerTables(self.db)
        self.matches = MatchRows(self.db)
        self.live = LiveTableRows(self.db)

    @property
    def where(self) -> Where:
        """The database: a SQLite file, or a PostgreSQL database."""
        return self.db.where

    def open(self) -> None:
        """Open the database (`Database.open`)."""
        self.db.open()

    def close(self) -> None:
        """Close the database (`open` opens it again)."""
        self.db.close()

    def reachable(self) -> bool:
        """True if the database answers a query now (`GET /healthz`)."""
        return self.db.reachable()

    def secret(self) -> bytes:
        """This database's own random key, which signs the players' ids."""
        return self.db.secret()

    # -- rounds ------------------------------------------------------------------------------

    def insert(
        self,
        round_id: str,
        player: str | None,
        round_: Round,
        created_at: float,
        match_id: str | None = None,
        seats: tuple[Seat, ...] | None = None,
        live_table: str | None = None,
    ) -> None:
        """Store a new round, dealt at `created_at` (seconds since the epoch), perhaps one of a
        match or of a live table, with its seats in play (names filled in)."""
        history = persist.history(round_)
        with self.db.lock:
            self.db.execute(
                "INSERT INTO rounds (id, player, rules, seed, deal, battles, time_up, winner,"
                " reason, created_at, updated_at, snapshot, match_id, cap, seats, live_table)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    live_table,
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
        since: tuple[int, int] | None = None,
        seats: tuple[Seat, ...] | None = None,
    ) -> None:
        """Record the battles played since, the clock, the outcome once there is one, and where
        the round stands; `score` ("won", "lost" or "drawn") is added to the player's
        scoreboard, each (name, score) of `people` to that name's tally, and `match` to the
        round's match, in the same transaction. With `since` (the battles and clock, 0 or 1,
        the row had when this process last read or wrote it), the row is written only if it
        still has them; else RoundMoved, and nothing is written. With `seats`, who sits at the
        round's table (a live table's, at these battles) is written in the same UPDATE."""
        outcome = round_.outcome
        now = time.time()
        snapshot = json.dumps(persist.snapshot(round_))
        condition, expected = (
            ("", ()) if since is None else (" AND battles = ? AND time_up = ?", since)
        )
        seated, sat = (
            ("", ()) if seats is None else (" seats = ?,", (json.dumps(seats_json(seats)),))
        )
        alone = score is None and not people and match is None
        # A click's usual write is its one UPDATE, atomic on its own: no BEGIN and COMMIT around
        # it, which on PostgreSQL are two more round trips (inside another's transaction, as
        # under `round_locked`, it is part of that one still).
        with self.db.lock if alone else self.db.transaction():
            written = self.db.execute(
                "UPDATE rounds SET battles = ?, time_up = ?, winner = ?, reason = ?,"
                " updated_at = CASE WHEN updated_at < ? THEN ? ELSE updated_at END,"
                f"{seated} snapshot = ? WHERE id = ?{condition}",
                (
                    round_.battles,
                    int(round_.time_up),
                    None if outcome is None else outcome.winner,
                    None if outcome is None else outcome.reason.value,
                    now - TOUCH_S,
                    now,
                    *sat,
                    snapshot,
                    round_id,
                    *expected,
                ),
            ).rowcount
            if since is not None and written == 0:
                raise RoundMoved(f"round {round_id} was played elsewhere since {since}")
            if score is not None:
                self.players.count_for_player(SCORES[score], "rounds", round_id, now)
            for name, result in people:
                self.players.score_person(round_id, name, SCORES[result], now)
            if match is not None:
                self.db.execute(
                    "UPDATE matches SET winners = ?, winner = ?, updated_at = ? WHERE id = ?",
                    (json.dumps(match.winners), match.winner, now, match.id),
                )
                if match.winner is not None:
                    column = "matches_won" if match.winner == 0 else "matches_lost"
                    self.players.count_for_player(column, "matches", match.id, now)

    @contextmanager
    def round_locked(self, round_id: str) -> Iterator[None]:
        """Hold the round's row against every other process until the block ends: what the
        block reads of it and writes to it (its `update`s join the transaction) nobody else
        changes meanwhile. For a round another process is playing at the same moment."""
        with self.db.row_locked("rounds", round_id):
            yield

    def round_state(self, round_id: str) -> RoundState | None:
        """How far the stored round is: its battles and its clock (1 once it ran out); None if
        there is no such round. One look by its key, to see whether a round held in memory is
        still the stored one: another process may have played it (who sits at a live table's
        round changes only with its battles, in the same write)."""
        with self.db.lock:
            row = self.db.execute(
                "SELECT battles, time_up FROM rounds WHERE id = ?", (round_id,)
            ).fetchone()
        if row is None:
            return None
        battles, time_up = row
        return RoundState(int(battles), int(time_up))

    def get(self, round_id: str) -> RoundRow | None:
        """The stored round with this id, or None."""
        with self.db.lock:
            row = self.db.execute(
                f"SELECT {ROW_COLUMNS} FROM rounds WHERE id = ?",
                (round_id,),
            ).fetchone()
        return None if row is None else round_row(row)

    def latest_id(self, player: str) -> str | None:
        """The id of the player's most recently created round, or None; a live table's rounds
        are the table's, not the browser's round on its own table."""
        with self.db.lock:
            row = self.db.execute(
                "SELECT id FROM rounds WHERE player = ? AND live_table IS NULL"
                " ORDER BY created_at DESC, rowid DESC LIMIT 1",
                (player,),
            ).fetchone()
        return None if row is None else str(row[0])

    # -- keeping the file bounded ------------------------------------------------------------

    def prune(self, rounds_before: float, players_before: float) -> tuple[int, int]:
        """Remove rounds untouched since `rounds_before`, finished or abandoned, and players
        (house rules, scoreboard) untouched since `players_before` who have no round left.
        A match's rounds go together, once none of them has been touched since: its progress
        is read position by position from its rounds, so a gap would deal a round again.
        Returns how many rounds and players went."""
        with self.db.held(PRUNE_S), self.db.transaction():
            rounds = self.db.execute(
                "DELETE FROM rounds WHERE updated_at < ? AND (match_id IS NULL OR NOT EXISTS"
                " (SELECT 1 FROM rounds AS other WHERE other.match_id = rounds.match_id"
                " AND other.updated_at >= ?))",
                (rounds_before, rounds_before),
            ).rowcount
            self.db.execute(
                "DELETE FROM matches WHERE updated_at < ?"
                " AND NOT EXISTS (SELECT 1 FROM rounds WHERE rounds.match_id = matches.id)",
                (rounds_before,),
            )
            players = self.db.execute(
                "DELETE FROM players WHERE updated_at < ?"
                " AND NOT EXISTS (SELECT 1 FROM rounds WHERE rounds.player = players.id)",
                (players_before,),
            ).rowcount
            # A player's tallies go with the player, as the scoreboard's totals do.
            self.db.execute(
                "DELETE FROM people"
                " WHERE NOT EXISTS (SELECT 1 FROM players WHERE players.id = people.player)"
            )
        return rounds, players
