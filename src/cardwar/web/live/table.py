"""A live table's rules, as one pure value: `Table` (docs/api.md#live-tables).

Read this file to learn what a live table allows. A table is its stored row (codes, host, rules,
seats and who holds each, the round and match it plays, whether it closed) and what happens at
it between battles: who has flipped for the next battle, the turn clock's deadline, who is away
and since when, and when each seat last reacted. It does no I/O and keeps no clock: whatever
depends on the time is handed `now`, and whatever depends on the round is handed a `RoundView`.

Each method that changes the table returns the table after it and what happened (an event, one
class a kind, which the page hears as a message of that `type`: `wire.py`), or raises the
`TableError` naming why not (`errors.py`) and changes nothing. The service around it
(`service.py`) loads a table, holds it, applies one method, saves what changed, and tells the
event to every device.

Decided here:
- A seat is a person's or the computer's. A person's seat is held by the browser that sat at it,
  by its player id, which never leaves the server; the host holds seat 0 from the start.
- The battle is played once every person still in (holding cards) has flipped: `waiting` is
  empty. A flip for a battle already played, or a second flip for the same battle, changes
  nothing and is told to no one.
- The turn clock starts at a battle's first flip; when it runs out, every person still waited
  for is flipped for (`clock_ran_out`).
- A seat given to the computer remembers who held it (`TableSeat.gave_up`): that browser may take
  it back (`reclaim`), under the name it had; no one else may.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cardwar.rules import Rules
from cardwar.web.game.seats import Seat, SeatsError, check_seats, default_name
from cardwar.web.live.errors import (
    BadClock,
    BadEmoji,
    BadName,
    BadRules,
    ComputersSeat,
    HostStays,
    NameTaken,
    NoSuchSeat,
    NotHost,
    NotSeated,
    NotYours,
    OutOfCards,
    PersonAtTable,
    RoundInPlay,
    RoundOver,
    SeatedElsewhere,
    SeatTaken,
    TableClosed,
    TooSoon,
)
from cardwar.web.store.live import TableRow, TableSeat

HOST = 0
"""The host's seat."""
REACTIONS = ("👏", "😮", "😂", "🙈")
"""What a person may send to the table."""
REACT_EVERY_S = 1.0
"""A seat reacts at most once this often."""
CLOCKS = (None, 10, 30)
"""The turn clocks a host may choose, in seconds (None: no clock)."""


@dataclass(frozen=True, slots=True)
class Who:
    """Who asks: the browser (None for a watcher's link) and the seat its socket sat at when it
    joined (None for a watcher). A browser that has left that seat since holds it no more."""

    player: str | None
    seat: int | None = None

    @property
    def host(self) -> bool:
        """True at the host's seat (which only the host ever holds)."""
        return self.seat == HOST


@dataclass(frozen=True, slots=True)
class RoundView:
    """What a table needs of the round it plays: battles played, each seat's cards, whether over."""

    battles: int
    counts: tuple[int, ...]
    over: bool

    @classmethod
    def of(cls, shown: Mapping[str, Any]) -> RoundView:
        """The view of a round as the rounds service shows it (`battles`, `counts`, `outcome`)."""
        return cls(shown["battles"], tuple(shown["counts"]), shown["outcome"] is not None)


# -- events: what happened -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seated:
    """A person sat down at `seat` (or gave the seat they hold a new name)."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Flipped:
    """A person flipped for the next battle; `waiting` are the seats still to (none: play it)."""

    seat: int
    waiting: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ClockRanOut:
    """The turn clock ran out: the seats in `late` were flipped for, and the battle is played."""

    late: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Left:
    """A person left the table: their seat, which they sat at as `name`, is free again."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Given:
    """The host gave `seat` to the computer, which plays it as `name`; `play` when everyone
    else had flipped, so that the battle is played now."""

    seat: int
    name: str
    play: bool = False


@dataclass(frozen=True, slots=True)
class Reclaimed:
    """A person took back, as `name`, the seat that had gone to the computer."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Reacted:
    """A person reacted."""

    seat: int
    emoji: str


@dataclass(frozen=True, slots=True)
class Asked:
    """A person asked for another round, once the last one ended: the host's press deals it."""

    seat: int
    name: str


@dataclass(frozen=True, slots=True)
class Away:
    """A person's last socket closed."""

    seat: int


@dataclass(frozen=True, slots=True)
class Back:
    """A person who was away opened a socket again."""

    seat: int


@dataclass(frozen=True, slots=True)
class Closed:
    """The table closed: `"host"` closed it, or it was `"idle"` an hour."""

    reason: str


Event = (
    Seated
    | Flipped
    | ClockRanOut
    | Left
    | Given
    | Reclaimed
    | Reacted
    | Asked
    | Away
    | Back
    | Closed
)
"""Everything a table's method may say happened."""


# -- who is here ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attendance:
    """Who is at a live table, beyond who holds its seats (`Table.here`): since when each away
    seat's person has had no socket open, and when each seat last reacted; and what follows
    from them (a reaction too soon, a seat that may go to the computer)."""

    away_since: Mapping[int, float] = field(default_factory=dict)
    """Since when each away seat's person has had no socket open (never changed in place)."""
    reacted: Mapping[int, float] = field(default_factory=dict)
    """When each seat last reacted."""

    def react(self, seat: int, emoji: str, *, now: float) -> tuple[Attendance, Reacted]:
        """A reaction from `seat`, shown on it; at most one each `REACT_EVERY_S`."""
        if emoji not in REACTIONS:
            raise BadEmoji(f"emoji: must be one of {' '.join(REACTIONS)}")
        since = now - self.reacted.get(seat, float("-inf"))
        if since < REACT_EVERY_S:
            raise TooSoon("One reaction a second, please.", REACT_EVERY_S - since)
        return replace(self, reacted={**self.reacted, seat: now}), Reacted(seat, emoji)

    def went(self, seat: int, *, now: float) -> tuple[Attendance, Away | None]:
        """The person at `seat` has no socket open any more: away from `now` (None: already)."""
        if seat in self.away_since:
            return self, None
        return replace(self, away_since={**self.away_since, seat: now}), Away(seat)

    def came(self, seat: int) -> tuple[Attendance, Back | None]:
        """A socket opened at `seat`: its person is back (None: they were not away)."""
        if seat not in self.away_since:
            return self, None
        return self.without(seat), Back(seat)

    def may_give(self, seat: int, name: str, *, now: float, after_s: float, present: bool) -> None:
        """PersonAtTable or TooSoon unless the seat `name` holds may go to the computer: its
        person has been away `after_s` seconds (`present`: they have a socket open)."""
        away = self.away_since.get(seat)
        if present or away is None:
            raise PersonAtTable(f"seat: {name} is at the table")
        left = after_s - (now - away)
        if left > 0:
            raise TooSoon(
                f"seat: {name} may be back soon; the seat can go to the computer in "
                f"{int(left) + 1} s",
                left,
            )

    def without(self, seat: int) -> Attendance:
        """Whoever was at `seat` is neither away nor reacting any more."""
        away = {other: since for other, since in self.away_since.items() if other != seat}
        reacted = {other: when for other, when in self.reacted.items() if other != seat}
        return Attendance(away, reacted)


# -- the table -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table:
    """A live table: its stored `row`, and what is happening at it between two battles."""

    row: TableRow
    flipped: frozenset[int] = frozenset()
    """The seats that have flipped for the next battle."""
    deadline: float | None = None
    """When the turn clock runs out (None: it is not running)."""
    here: Attendance = field(default_factory=Attendance)
    """Who is away and since when, and when each seat last reacted."""
    asked: frozenset[int] = frozenset()
    """The seats whose people asked for another round since the last one ended."""

    # -- what it is ---------------------------------------------------------------------------

    @property
    def code(self) -> str:
        """The invite code: the table's name."""
        return self.row.code

    @property
    def seats(self) -> tuple[TableSeat, ...]:
        """Its seats, seat 0 the host's."""
        return self.row.seats

    @property
    def is_closed(self) -> bool:
        """True once the table has closed."""
        return self.row.closed is not None

    def holds(self, who: Who) -> int:
        """The seat `who` asks from, which they still hold; NotSeated otherwise."""
        if who.seat is None or who.player is None:
            raise NotSeated("Watchers watch: take a seat to play at this table.")
        if self.seats[who.seat].holder != who.player:
            raise NotSeated("You left this seat: take a seat again to play at this table.")
        return who.seat

    def is_host(self, who: Who) -> bool:
        """True when `who` is the host, at the host's seat."""
        return who.seat == HOST and who.player is not None and self.row.host == who.player

    def host_only(self, who: Who, what: str) -> None:
        """NotHost unless `who` is the host (`what`: what only the host does, as a phrase)."""
        if not self.is_host(who):
            raise NotHost(f"Only the table's host {what}.")

    def waiting(self, round_: RoundView) -> tuple[int, ...]:
        """The people's seats still in the round that have not flipped for the next battle."""
        if round_.over:
            return ()
        return tuple(
            index
            for index, seat in enumerate(self.seats)
            if seat.kind == "person" and round_.counts[index] > 0 and index not in self.flipped
        )

    def open(self) -> None:
        """TableClosed once the table has closed."""
        if self.is_closed:
            raise TableClosed(f"This table has closed ({closed_words(self.row.closed)}).")

    # -- seats --------------------------------------------------------------------------------

    def sit(self, player: str, seat: int, name: str) -> tuple[Table, Seated]:
        """The browser `player` sits at `seat`, a person's seat no one holds, as `name` (or gives
        the seat it holds a new name)."""
        self.open()
        self._seat_number(seat)
        held = self.row.seat_of(player)
        if held is not None and held != seat:
            raise SeatedElsewhere(f"seat: you already sit at seat {held} of this table")
        wanted = self.seats[seat]
        if wanted.kind != "person":
            raise ComputersSeat(f"seat: seat {seat} is played by the computer")
        if wanted.holder not in (None, player):
            raise SeatTaken(f"seat: seat {seat} is taken; choose a free seat, or watch")
        named = checked_name(self.row, seat, name)
        table = self._with_seat(seat, TableSeat("person", named, player))
        return table, Seated(seat, named)

    def stand_up(self, who: Who) -> tuple[Table, Left]:
        """A person other than the host leaves the table: their seat is free again."""
        self.open()
        if who.seat == HOST:
            raise HostStays("The host closes the table instead of leaving it.")
        seat = self.holds(who)
        name = self.seats[seat].name
        table = self._with_seat(seat, TableSeat("person", ""))
        return replace(table, flipped=table.flipped - {seat}), Left(seat, name)

    def give(
        self, who: Who, seat: int, round_: RoundView, *, now: float, after_s: float, present: bool
    ) -> tuple[Table, Given]:
        """The host gives a person's seat to the computer: one no one holds, or one whose person
        has been away `after_s` seconds (`present`: whether they have a socket open)."""
        self.open()
        self.host_only(who, "gives a seat to the computer")
        self._seat_number(seat)
        given = self.seats[seat]
        if seat == HOST or given.kind != "person":
            raise ComputersSeat(f"seat: seat {seat} is not another person's seat")
        if given.holder is not None:
            self.here.may_give(seat, given.name, now=now, after_s=after_s, present=present)
        name = computer_name(self.row, seat)
        gave_up = None if given.holder is None else (given.holder, given.name)
        table = self._with_seat(seat, TableSeat("computer", name, gave_up=gave_up))
        table = replace(table, flipped=table.flipped - {seat})
        play = bool(table.flipped) and not round_.over and not table.waiting(round_)
        return table, Given(seat, name, play)

    def reclaim(self, player: str, seat: int) -> tuple[Table, Reclaimed]:
        """The browser `player` takes back the seat it held before the host gave it to the
        computer, under the name it had; from the next battle on, they flip again."""
        self.open()
        self._seat_number(seat)
        given = self.seats[seat]
        if given.kind != "computer" or given.gave_up is None or given.gave_up[0] != player:
            raise NotYours(f"seat: seat {seat} was not yours when it went to the computer")
        held = self.row.seat_of(player)
        if held is not None:
            raise SeatedElsewhere(f"seat: you already sit at seat {held} of this table")
        name = given.gave_up[1]
        table = self._with_seat(seat, TableSeat("person", name, player))
        return replace(table, flipped=table.flipped - {seat}), Reclaimed(seat, name)

    # -- battles ------------------------------------------------------------------------------

    def flip(
        self, who: Who, battle: int | None, round_: RoundView, *, now: float
    ) -> tuple[Table, Flipped | None]:
        """`who` flips for the next battle (`battle`, when given, must be its number): the
        table after, and who is still waited for; None when nothing changed (a flip for a
        battle already played, or a second flip for the same one)."""
        self.open()
        seat = self.holds(who)
        if round_.over:
            raise RoundOver("The round is over: the host deals the next one.")
        if round_.counts[seat] == 0:
            raise OutOfCards("You are out of cards this round: the others play on.")
        if (battle is not None and battle != round_.battles + 1) or seat in self.flipped:
            return self, None
        deadline = self.deadline
        if deadline is None and self.row.clock_s is not None:
            deadline = now + self.row.clock_s
        table = replace(self, flipped=self.flipped | {seat}, deadline=deadline)
        return table, Flipped(seat, table.waiting(round_))

    def clock_ran_out(self, round_: RoundView, *, now: float) -> tuple[Table, ClockRanOut | None]:
        """The turn clock, at `now`: once it has run out, everyone still waited for is flipped
        for, and the battle is to be played (None: not run out, or nothing left to play)."""
        if self.deadline is None or self.deadline > now or self.is_closed:
            return self, None
        if round_.over:
            return replace(self, deadline=None), None
        late = self.waiting(round_)
        return replace(self, flipped=self.flipped | set(late)), ClockRanOut(late)

    def can_play_many(self, who: Who, round_: RoundView) -> None:
        """NotHost, RoundOver or TableClosed unless `who` may play many battles at once now."""
        self.open()
        self.host_only(who, "plays 10 battles or to the end")
        if round_.over:
            raise RoundOver("The round is over: the host deals the next one.")

    def played(self) -> Table:
        """The table once battles were played: no flips, no clock, for the next battle."""
        return replace(self, flipped=frozenset(), deadline=None)

    def can_deal(
        self, who: Who, round_: RoundView, *, abandon: bool = False, players: int | None = None
    ) -> None:
        """NotHost, RoundInPlay or TableClosed unless `who` may deal the next round now (with
        `abandon`, even while a round is played: it is left unfinished); BadRules for rules
        of `players` other than one for each seat."""
        self.open()
        self.host_only(who, "deals the next round")
        if not round_.over and not abandon:
            raise RoundInPlay("The round is still being played: finish it first.")
        if players not in (None, len(self.seats)):
            raise BadRules(f"rules.players: this table has {len(self.seats)} seats, not {players}")

    def dealt(
        self,
        round_id: str,
        match_id: str | None,
        *,
        rules: Mapping[str, Any] | None = None,
        best_of: int | None = None,
    ) -> Table:
        """The table playing a newly dealt round (of the match `match_id`, if any), with new
        `rules` and match length when the host chose them."""
        row = replace(
            self.row,
            round_id=round_id,
            match_id=match_id,
            rules=dict(self.row.rules if rules is None else rules),
            best_of=self.row.best_of if best_of is None else best_of,
        )
        return replace(self, row=row, flipped=frozenset(), deadline=None, asked=frozenset())

    def ask_again(self, who: Who, round_: RoundView) -> tuple[Table, Asked | None]:
        """A person asks for another round once this one is over (None: they asked already)."""
        self.open()
        seat = self.holds(who)
        if not round_.over:
            raise RoundInPlay("The round is still being played: ask again once it is over.")
        if seat in self.asked:
            return self, None
        return replace(self, asked=self.asked | {seat}), Asked(seat, self.seats[seat].name)

    # -- who is here --------------------------------------------------------------------------

    def react(self, who: Who, emoji: str, *, now: float) -> tuple[Table, Reacted]:
        """A person's reaction, shown on their seat (`Attendance.react`)."""
        self.open()
        here, reacted = self.here.react(self.holds(who), emoji, now=now)
        return replace(self, here=here), reacted

    def went(self, seat: int, *, now: float) -> tuple[Table, Away | None]:
        """The person at `seat` has no socket open any more: away from `now` (None: they were
        away already, or no one holds the seat, or the table has closed)."""
        if self.is_closed or self.seats[seat].holder is None:
            return self, None
        here, away = self.here.went(seat, now=now)
        return replace(self, here=here), away

    def came(self, seat: int) -> tuple[Table, Back | None]:
        """A socket opened at `seat`: its person is back (None: they were not away)."""
        here, back = self.here.came(seat)
        return replace(self, here=here), back

    def close(self, reason: str) -> tuple[Table, Closed]:
        """Close the table (`reason`: "host" or "idle"); TableClosed if it has closed."""
        self.open()
        return replace(self, row=replace(self.row, closed=reason)), Closed(reason)

    # -- inside -------------------------------------------------------------------------------

    def _seat_number(self, seat: int) -> None:
        if not 0 <= seat < len(self.seats):
            raise NoSuchSeat(f"seat: this table has seats 0 to {len(self.seats) - 1}")

    def _with_seat(self, index: int, seat: TableSeat) -> Table:
        """The table with seat `index` replaced; whoever had it, if another, is neither away
        nor reacting nor asking any more."""
        row = self.row.with_seat(index, seat)
        if seat.holder is not None and seat.holder == self.seats[index].holder:
            return replace(self, row=row)
        return replace(self, row=row, here=self.here.without(index), asked=self.asked - {index})


def chosen_for_a_table(
    preset: str, rules: Mapping[str, Any] | None, seats: Sequence[Seat], clock_s: int | None
) -> tuple[Rules, tuple[Seat, ...]]:
    """The rules and the four seats a host chose for a new table, checked: BadClock, RulesError
    or SeatsError naming what does not fit."""
    if clock_s not in CLOCKS:
        raise BadClock(f"clock_s: must be one of null, 10 or 30 seconds, not {clock_s!r}")
    chosen = Rules.choose(preset, None if rules is None else dict(rules))
    if len(seats) != chosen.players:
        raise SeatsError(f"seats: list one seat for each of the {chosen.players} players")
    return chosen, check_seats(four_seats(seats), chosen.players)


def opened_row(
    codes: tuple[str, str],
    host: str,
    rules: Rules,
    best_of: int,
    clock_s: int | None,
    seats: Sequence[Seat],
    dealt: tuple[str, str | None],
    *,
    now: float,
) -> TableRow:
    """The row of a table just opened (`codes`: its invite and watch codes; `dealt`: its first
    round and match): the host at seat 0, the other people's seats free."""
    held = tuple(
        TableSeat(seat.kind, seat.name, host if index == HOST else None)
        for index, seat in enumerate(seats[: rules.players])
    )
    return TableRow(*codes, host, rules.to_dict(), best_of, clock_s, held, *dealt, None, now, now)


def computer_name(row: TableRow, seat: int) -> str:
    """The name of the computer given `seat`: "Computer 2", or with the person's name after it
    when another seat has that name already."""
    name = default_name(seat, "computer", len(row.seats))
    if any(other.name.casefold() == name.casefold() for other in row.seats):
        name = f"{name} ({row.seats[seat].name})"[:20]
    return name


def checked_name(row: TableRow, seat: int, name: str) -> str:
    """`name` for seat `seat` of the table `row`: a seat's name (as at one device), and not the
    name of another seat of the table, case aside; BadName or NameTaken otherwise."""
    players = len(row.seats)
    wanted = name.strip().casefold()
    for index, other in enumerate(row.seats):
        shown = other.name or default_name(index, other.kind, players)
        if index != seat and wanted and shown.casefold() == wanted:
            raise NameTaken(f"name: {shown} sits at this table already; choose another name")
    chosen = list(row.round_seats())
    chosen[seat] = Seat("person", name)
    try:
        checked = check_seats(four_seats(chosen), players)
    except SeatsError as error:
        raise BadName(str(error).replace(f"seats.{seat}.name", "name")) from None
    if not checked[seat].name:
        raise BadName("name: say who you are, in at most 20 characters")
    return checked[seat].name


def four_seats(seats: Sequence[Seat]) -> tuple[Seat, ...]:
    """A table's seats padded to the four a choice of seats lists (the rest computers)."""
    padding = tuple(Seat("computer") for _ in range(4 - len(seats)))
    return tuple(seats[:4]) + padding


def closed_words(reason: str | None) -> str:
    """Why a table closed, in words."""
    return {"host": "its host closed it", "idle": "nobody played for an hour"}.get(
        reason or "", reason or ""
    )
