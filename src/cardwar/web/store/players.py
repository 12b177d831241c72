"""The players' tables: each browser's house rules (the seats with them), its Match choice and
its scoreboard's totals, and `people`, a tally per person's name at its table. Totals outlive
the rounds that made them: old rounds are pruned, totals are not."""

from __future__ import annotations

import json
import time
from typing import Any

from cardwar.web.game.seats import Seat, seats_from_json, seats_json
from cardwar.web.store.database import Database
from cardwar.web.store.rows import PersonScore, Scoreboard


class PlayerTables:
    """The players and people tables, over the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def scoreboard(self, player: str) -> Scoreboard:
        """Rounds the player won, lost and drew (unfinished rounds do not count), matches won
        and lost, and the tally of each person's name at their table, by name case aside."""
        with self.db.lock:
            row = self.db.execute(
                "SELECT won, lost, drawn, matches_won, matches_lost FROM players WHERE id = ?",
                (player,),
            ).fetchone()
            people = self.db.execute(
                "SELECT name, won, lost, drawn FROM people WHERE player = ? ORDER BY key, name",
                (player,),
            ).fetchall()
        scores = tuple(PersonScore(*person) for person in people)
        won, lost, drawn, matches_won, matches_lost = (0, 0, 0, 0, 0) if row is None else row
        return Scoreboard(won, lost, drawn, matches_won, matches_lost, scores)

    def house_rules(self, player: str) -> dict[str, Any] | None:
        """The rule fields the player last chose in the House rules panel, or None."""
        with self.db.lock:
            row = self.db.execute(
                "SELECT house_rules FROM players WHERE id = ?", (player,)
            ).fetchone()
        return None if row is None or row[0] is None else dict(json.loads(row[0]))

    def set_house_rules(
        self, player: str, rules: dict[str, Any], seats: tuple[Seat, ...] | None = None
    ) -> None:
        """Remember the player's choice of rules for their next rounds, and of the four seats
        (kept as they were when None)."""
        with self.db.lock:
            self.db.execute(
                "INSERT INTO players (id, house_rules, seats, updated_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET house_rules = excluded.house_rules,"
                " seats = COALESCE(excluded.seats, players.seats),"
                " updated_at = excluded.updated_at",
                (
                    player,
                    json.dumps(rules),
                    None if seats is None else json.dumps(seats_json(seats)),
                    time.time(),
                ),
            )

    def seats(self, player: str) -> tuple[Seat, ...] | None:
        """The four seats the player last chose in the House rules panel, or None."""
        with self.db.lock:
            row = self.db.execute("SELECT seats FROM players WHERE id = ?", (player,)).fetchone()
        return None if row is None or row[0] is None else seats_from_json(json.loads(row[0]))

    def best_of(self, player: str) -> int:
        """How many rounds the player's matches last (1, 3 or 5): their Match choice."""
        with self.db.lock:
            row = self.db.execute("SELECT best_of FROM players WHERE id = ?", (player,)).fetchone()
        return 1 if row is None else int(row[0])

    def set_best_of(self, player: str, best_of: int) -> None:
        """Remember the player's Match choice for their next rounds."""
        with self.db.lock:
            self.db.execute(
                "INSERT INTO players (id, best_of, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET best_of = excluded.best_of,"
                " updated_at = excluded.updated_at",
                (player, best_of, time.time()),
            )

    def score_person(self, round_id: str, name: str, column: str, now: float) -> None:
        # Inside update's transaction. The player is touched too: a score lives as long as
        # the player's row (pruning forgets both together).
        self.db.execute(
            f"INSERT INTO people (player, key, name, {column})"
            " SELECT player, ?, ?, 1 FROM rounds WHERE id = ? AND player IS NOT NULL"
            f" ON CONFLICT (player, key) DO UPDATE SET {column} = people.{column} + 1,"
            " name = excluded.name",
            (name.casefold(), name, round_id),
        )
        self.count_for_player(None, "rounds", round_id, now)

    def count_for_player(self, column: str | None, source: str, row_id: str, now: float) -> None:
        # Inside a write's transaction: one more in `column` (one of the players table's fixed
        # column names; None only touches the row) for the player of row `row_id` of `source`
        # ("rounds" or "matches"), made if the player has no row yet.
        count, added = ("", "") if column is None else (f", {column}", ", 1")
        more = "" if column is None else f"{column} = players.{column} + 1, "
        self.db.execute(
            f"INSERT INTO players (id{count}, updated_at)"
            f" SELECT player{added}, ? FROM {source} WHERE id = ? AND player IS NOT NULL"
            f" ON CONFLICT (id) DO UPDATE SET {more}updated_at = excluded.updated_at",
            (now, row_id),
        )
