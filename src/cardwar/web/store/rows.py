"""The store's rows: its own types, apart from API schemas and domain values, and how a round's
row is read."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

from cardwar.web.game.seats import Seat, seats_from_json


class RoundState(NamedTuple):
    """How far a stored round is (`Store.round_state`)."""

    battles: int
    time_up: int
    """1 once its clock ran out."""


@dataclass(frozen=True, slots=True)
class RoundRow:
    """One stored round: its history, its snapshot if it has one, who plays it, when it was
    dealt, and the match it belongs to, if any."""

    id: str
    player: str | None
    history: dict[str, Any]
    snapshot: dict[str, Any] | None
    created_at: float
    match_id: str | None = None
    seats: tuple[Seat, ...] | None = None
    """The seats in play, names filled in; None in a row from before seats."""
    live_table: str | None = None
    """The code of the live table that plays this round, if one does (`store/live.py`)."""


@dataclass(frozen=True, slots=True)
class PersonScore:
    """Rounds one person, by name, won, lost and drew at one browser's table."""

    name: str
    won: int
    lost: int
    drawn: int


@dataclass(frozen=True, slots=True)
class Scoreboard:
    """Finished rounds and matches of one player, from seat 0's side, and a score per person's
    name."""

    won: int
    lost: int
    drawn: int
    matches_won: int = 0
    matches_lost: int = 0
    people: tuple[PersonScore, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchRow:
    """One stored match: its rules, its rounds' winners so far, and its rounds' ids."""

    id: str
    player: str | None
    best_of: int
    rules: dict[str, Any]
    winners: tuple[int | None, ...]
    rounds: tuple[str, ...]
    seed: int
    seats: tuple[Seat, ...] | None = None
    """The four seats chosen for the match; None in a row from before seats."""


@dataclass(frozen=True, slots=True)
class MatchUpdate:
    """A match after one of its rounds ended: every round's winner so far, and its winner."""

    id: str
    winners: tuple[int | None, ...]
    winner: int | None


ROW_COLUMNS = (
    "id, player, rules, seed, deal, battles, time_up, created_at, snapshot, match_id, cap, seats,"
    " live_table"
)


def round_row(row: tuple[Any, ...]) -> RoundRow:
    """A RoundRow from the ROW_COLUMNS of a row."""
    (round_id, player, rules, seed, deal, battles, time_up, created_at, snapshot, match_id, cap,
     seats, live_table) = row  # fmt: skip
    history = {
        "rules": json.loads(rules),
        "seed": seed,
        "deal": None if deal is None else json.loads(deal),
        "battles": battles,
        "time_up": bool(time_up),
        "cap": cap,  # the server's safety cap: a round it ended rebuilds as ended
    }
    return RoundRow(
        round_id,
        player,
        history,
        None if snapshot is None else json.loads(snapshot),
        created_at,
        match_id,
        None if seats is None else seats_from_json(json.loads(seats)),
        live_table,
    )
