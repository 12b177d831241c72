"""The matches' table: a match's rules, its seed, the seats chosen for it and the winners of its
rounds so far (its rounds are rows of the rounds' table, by their `match_id`)."""

from __future__ import annotations

import json
from typing import Any

from cardwar.web.game.seats import Seat, seats_from_json, seats_json
from cardwar.web.store.database import Database
from cardwar.web.store.rows import MatchRow


class MatchRows:
    """The matches' rows, over the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def insert(
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
        with self.db.lock:
            self.db.execute(
                "INSERT INTO matches (id, player, best_of, rules, seed, created_at, updated_at,"
                " seats) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    match_id, player, best_of, json.dumps(rules), seed, at, at,
                    None if seats is None else json.dumps(seats_json(seats)),
                ),
            )  # fmt: skip

    def open_id(self, player: str) -> str | None:
        """The id of the player's most recent match when it is still undecided, or None."""
        with self.db.lock:
            row = self.db.execute(
                "SELECT id, winner FROM matches WHERE player = ?"
                " ORDER BY created_at DESC, rowid DESC LIMIT 1",
                (player,),
            ).fetchone()
        return None if row is None or row[1] is not None else str(row[0])

    def get(self, match_id: str) -> MatchRow | None:
        """The stored match with this id, with its rounds' ids in the order dealt, or None."""
        with self.db.lock:
            row = self.db.execute(
                "SELECT id, player, best_of, rules, winners, seed, seats FROM matches WHERE id = ?",
                (match_id,),
            ).fetchone()
            if row is None:
                return None
            rounds = self.db.execute(
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
