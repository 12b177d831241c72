"""The people at the table (docs/api.md#people-at-the-table): who plays each seat, a person or
the computer, and by what name. The rules and the outcome do not change with them; only who
presses does.

A choice of seats is always four, seat 0 first: seats beyond the rules' players are kept,
unused, so that a table going from two players to three keeps the names it had.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cardwar.errors import CardwarError, quote
from cardwar.rules import MAX_PLAYERS, MIN_PLAYERS
from cardwar.text import seat_names

SEATS = MAX_PLAYERS  # a seat for each player the rules allow
MAX_NAME = 20
KINDS = ("person", "computer")
# Characters that are not written but steer the text: controls (a new line, a tab), line and
# paragraph separators, lone surrogates (which no answer could encode) and the marks that turn
# text right to left, which would scramble every message that quotes the name.
_UNWRITTEN = {"Cc", "Cs", "Zl", "Zp"}
_BIDI = {chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F)}


class SeatsError(CardwarError):
    """A choice of seats that cannot be kept: its message names the field (`seats.2.name`)."""


@dataclass(frozen=True, slots=True)
class Seat:
    """Who plays one seat: `kind` "person" or "computer", and a name ("" for the default)."""

    kind: str
    name: str = ""

    def to_dict(self) -> dict[str, str]:
        """The seat in the API's shape."""
        return {"kind": self.kind, "name": self.name}


DEFAULT_SEATS = (Seat("person"), *(Seat("computer") for _ in range(SEATS - 1)))
"""You against the computers, every name the default: the seats of anyone who never chose."""


def default_name(seat: int, kind: str, players: int) -> str:
    """The name seat `seat` of a table of `players` goes by when none was given: "You" for seat
    0, "Player N+1" for another person, and for a computer what the command line calls it
    ("Computer" at a table of two, else "Computer N": `cardwar.text.seat_names`)."""
    if kind == "person" and seat > 0:
        return f"Player {seat + 1}"
    return seat_names(players)[seat]


def seat_model() -> dict[str, Any]:
    """The seat model the page learns from GET /api/rules (docs/api.md#people-at-the-table): how
    many seats a choice lists, the longest name, the default seats, and every seat's default
    name by the table's players and the seat's kind."""
    return {
        "count": SEATS,
        "name_max": MAX_NAME,
        "default": seats_json(DEFAULT_SEATS),
        "default_names": {
            str(table): {
                kind: [default_name(seat, kind, table) for seat in range(table)] for kind in KINDS
            }
            for table in range(MIN_PLAYERS, MAX_PLAYERS + 1)
        },
    }


def _check_name(seat: int, name: str) -> str:
    trimmed = name.strip()
    if any(unicodedata.category(ch) in _UNWRITTEN or ch in _BIDI for ch in trimmed):
        raise SeatsError(f"seats.{seat}.name: must not hold control characters such as a new line")
    if len(trimmed) > MAX_NAME:
        raise SeatsError(
            f"seats.{seat}.name: {quote(trimmed)} is {len(trimmed)} characters long, "
            f"at most {MAX_NAME} are allowed"
        )
    return trimmed


def check_seats(seats: Sequence[Seat] | None, players: int) -> tuple[Seat, ...]:
    """A choice of four seats, checked for a table of `players` and with its names trimmed;
    None is the default choice. Raises SeatsError naming the field that does not fit: seat 0 is
    always a person, a name holds at most 20 characters and no control character, and the
    seats in play need names that differ, case aside (a default name counts as written)."""
    if seats is None:
        return DEFAULT_SEATS
    if len(seats) != SEATS:
        raise SeatsError(f"seats: must list exactly {SEATS} seats, seat 0 first, not {len(seats)}")
    checked = []
    for index, seat in enumerate(seats):
        if seat.kind not in KINDS:
            raise SeatsError(f"seats.{index}.kind: must be 'person' or 'computer'")
        checked.append(Seat(seat.kind, _check_name(index, seat.name)))
    if checked[0].kind != "person":
        raise SeatsError("seats.0.kind: must be 'person': seat 0 is always a person")
    names = [
        seat.name or default_name(i, seat.kind, players) for i, seat in enumerate(checked[:players])
    ]
    taken: dict[str, int] = {}
    for index, name in enumerate(names):
        other = taken.setdefault(name.casefold(), index)
        if other != index:
            # Blame the seat whose name was written, not one left at its default.
            named = index if checked[index].name or not checked[other].name else other
            raise SeatsError(
                f"seats.{named}.name: {quote(names[named])} is the name of seat {other} and "
                f"seat {index}; the seats in play need different names"
            )
    return tuple(checked)


def at_table(seats: Sequence[Seat], players: int) -> tuple[Seat, ...]:
    """The seats in play at a table of `players`, each name filled in (never empty)."""
    return tuple(
        Seat(seat.kind, seat.name or default_name(index, seat.kind, players))
        for index, seat in enumerate(seats[:players])
    )


def seats_json(seats: Iterable[Seat]) -> list[dict[str, str]]:
    """Seats as plain JSON values, for an answer or a row."""
    return [seat.to_dict() for seat in seats]


def seats_from_json(stored: Any) -> tuple[Seat, ...] | None:
    """Seats read back from a row, or None if what is there is not a list of seats."""
    if not isinstance(stored, list):
        return None
    found = []
    for item in stored:
        if not isinstance(item, Mapping) or item.get("kind") not in KINDS:
            return None
        name = item.get("name", "")
        found.append(Seat(str(item["kind"]), name if isinstance(name, str) else ""))
    return tuple(found)
