"""The live tables' table: one row a table, with its two codes (the invite's, the watch link's),
the browser that opened it, its seats and who holds each, the round and match it plays, and when
it was last touched. Its rounds are ordinary rounds (`tables.py`): each battle is committed
there before any device hears of it."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from cardwar.web.game.seats import Seat
from cardwar.web.store.database import Database
from cardwar.web.store.rows import PersonScore


@dataclass(frozen=True, slots=True)
class TableSeat:
    """A seat of a live table: played by a "person" or the "computer", its name, and the
    browser (player id) that holds it, None while a person's seat is free. A seat the host gave
    to the computer keeps who held it and their name (`gave_up`): they may take it back."""

    kind: str
    name: str
    holder: str | None = None
    gave_up: tuple[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The seat as the row's JSON keeps it."""
        kept: dict[str, Any] = {"kind": self.kind, "name": self.name, "holder": self.holder}
        if self.gave_up is not None:
            kept["gave_up"] = list(self.gave_up)
        return kept

    @classmethod
    def from_dict(cls, kept: dict[str, Any]) -> TableSeat:
        """The seat the row's JSON keeps."""
        gave_up = kept.get("gave_up")
        return cls(kept["kind"], kept["name"], kept["holder"], None if gave_up is None else (
            str(gave_up[0]), str(gave_up[1])))  # fmt: skip


@dataclass(frozen=True, slots=True)
class TableRow:
    """One live table as stored."""

    code: str
    watch: str
    host: str
    rules: dict[str, Any]
    best_of: int
    clock_s: int | None
    seats: tuple[TableSeat, ...]
    round_id: str
    match_id: str | None
    closed: str | None
    created_at: float
    touched_at: float

    def with_seat(self, index: int, seat: TableSeat) -> TableRow:
        """This table with seat `index` replaced."""
        seats = list(self.seats)
        seats[index] = seat
        return replace(self, seats=tuple(seats))

    def seat_of(self, player: str | None) -> int | None:
        """The seat the browser `player` holds here (None: none)."""
        found = (index for index, seat in enumerate(self.seats) if seat.holder == player)
        return None if player is None else next(found, None)

    def given_from(self, player: str | None) -> int | None:
        """The seat that went to the computer from the browser `player`, which it may take
        back; None when none did."""
        found = (
            i for i, seat in enumerate(self.seats) if seat.gave_up and seat.gave_up[0] == player
        )
        return None if player is None else next(found, None)

    def round_seats(self) -> tuple[Seat, ...]:
        """The seats of the table's round: each seat's kind and name (whoever holds it aside),
        which each play passes to the round and its battles carry into the round's row."""
        return tuple(Seat(seat.kind, seat.name) for seat in self.seats)

    def state(self) -> str:
        """What the row's `state` column holds: everything but the codes, host and times."""
        return json.dumps(
            {
                "rules": self.rules,
                "best_of": self.best_of,
                "clock_s": self.clock_s,
                "seats": [seat.to_dict() for seat in self.seats],
                "round_id": self.round_id,
                "match_id": self.match_id,
            }
        )


def _row(found: tuple[Any, ...]) -> TableRow:
    code, watch, host, state, closed, created_at, touched_at = found
    data = json.loads(state)
    return TableRow(
        code=code,
        watch=watch,
        host=host,
        rules=data["rules"],
        best_of=data["best_of"],
        clock_s=data["clock_s"],
        seats=tuple(TableSeat.from_dict(seat) for seat in data["seats"]),
        round_id=data["round_id"],
        match_id=data["match_id"],
        closed=closed,
        created_at=created_at,
        touched_at=touched_at,
    )


COLUMNS = "code, watch, host, state, closed, created_at, touched_at"


class LiveTableRows:
    """The live tables' rows, over the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def insert_table(self, table: TableRow) -> None:
        """Store a new live table."""
        with self.db.lock:
            self.db.execute(
                f"INSERT INTO live_tables ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    table.code,
                    table.watch,
                    table.host,
                    table.state(),
                    table.closed,
                    table.created_at,
                    table.touched_at,
                ),
            )

    def save_table(self, table: TableRow) -> None:
        """Store what changed of a live table: its seats, round, match, closing and touch."""
        with self.db.lock:
            self.db.execute(
                "UPDATE live_tables SET state = ?, closed = ?, touched_at = ? WHERE code = ?",
                (table.state(), table.closed, table.touched_at, table.code),
            )

    def get_table(self, code: str) -> TableRow | None:
        """The live table with this invite code, or None."""
        with self.db.lock:
            found = self.db.execute(
                f"SELECT {COLUMNS} FROM live_tables WHERE code = ?", (code,)
            ).fetchone()
        return None if found is None else _row(found)

    def table_code_of_watch(self, watch: str) -> str | None:
        """The invite code of the table this watch code follows, or None."""
        with self.db.lock:
            found = self.db.execute(
                "SELECT code FROM live_tables WHERE watch = ?", (watch,)
            ).fetchone()
        return None if found is None else str(found[0])

    def open_tables_of(self, host: str) -> int:
        """How many open tables the browser `host` has opened."""
        with self.db.lock:
            found = self.db.execute(
                "SELECT COUNT(*) FROM live_tables WHERE host = ? AND closed IS NULL", (host,)
            ).fetchone()
        return int(found[0])

    def idle_tables(self, before: float) -> list[str]:
        """The codes of open tables nobody has touched since `before`."""
        with self.db.lock:
            found = self.db.execute(
                "SELECT code FROM live_tables WHERE closed IS NULL AND touched_at < ?", (before,)
            ).fetchall()
        return [str(row[0]) for row in found]

    def table_tally(self, code: str) -> tuple[PersonScore, ...]:
        """Each person's finished rounds at the live table `code`, by name (case aside, shown
        as last written): won, lost and drawn, sorted by name. Computers are not tallied."""
        with self.db.lock:
            found = self.db.execute(
                "SELECT seats, winner FROM rounds"
                " WHERE live_table = ? AND reason IS NOT NULL ORDER BY created_at",
                (code,),
            ).fetchall()
        scores: dict[str, list[Any]] = {}
        for seats, winner in found:
            for index, seat in enumerate(json.loads(seats or "[]")):
                if seat["kind"] != "person":
                    continue
                entry = scores.setdefault(seat["name"].casefold(), [seat["name"], 0, 0, 0])
                entry[0] = seat["name"]
                entry[3 if winner is None else 1 if winner == index else 2] += 1
        return tuple(PersonScore(*scores[key]) for key in sorted(scores))

    def tables_held_by(self, player: str) -> list[TableRow]:
        """The open tables where the browser `player` holds a seat (the host's own among them),
        or held one the host gave to the computer (it may take it back), the latest opened
        first."""
        held = f'"holder": {json.dumps(player)}'  # as TableRow.state writes it
        given = f'"gave_up": [{json.dumps(player)},'

        def like(text: str) -> str:
            return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        # LIKE on both engines (SQLite's ignores ASCII case: the seats are checked below).
        with self.db.lock:
            found = self.db.execute(
                f"SELECT {COLUMNS} FROM live_tables WHERE closed IS NULL AND (host = ?"
                " OR state LIKE ? ESCAPE '\\' OR state LIKE ? ESCAPE '\\')"
                " ORDER BY created_at DESC",
                (player, like(held), like(given)),
            ).fetchall()
        rows = [_row(row) for row in found]
        return [
            row
            for row in rows
            if any(
                seat.holder == player or (seat.gave_up is not None and seat.gave_up[0] == player)
                for seat in row.seats
            )
        ]
