"""Live tables (docs/api.md#live-tables): people each on their own device at one table.

A table is opened by one browser (the host, seat 0) with its rules, its seats (a person's, to
be taken through the invite link, or the computer's) and an optional turn clock. Each person
flips on their own device; the battle is played once every person still in has flipped (the
computers at once), committed to the store, and only then told to every socket of the table,
through the hub, in order. A person who comes back (a reload, a dropped connection) gets the
same seat and the whole table; the seat credential is the browser's own cookie, which never
leaves it.

What is said at a table (published to every socket of it) is a JSON object with a `type`:
`table` (the whole table), `flipped`, `played`, `seated`, `away`, `back`, `given`, `reaction` and
`closed`; a socket's own `welcome`, `error` and `pong` are its alone (`routes/tables.py`). The
invite code never goes into one: a watcher hears them all.

Decided here: the turn clock starts at a battle's first flip (a table where nobody has flipped
waits, as a real one does), and when it runs out every person still waited for is flipped for.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from fastapi.concurrency import run_in_threadpool

from cardwar.rules import Rules
from cardwar.web.errors import NotHost, TableRefused
from cardwar.web.live_doors import Doors
from cardwar.web.live_room import HOST, Seated, four_seats
from cardwar.web.live_shared import Presence
from cardwar.web.seats import Seat, SeatsError, check_seats, default_name
from cardwar.web.store.live import TableRow, TableSeat

CLOCKS = (None, 10, 30)
"""The turn clocks a host may choose, in seconds (None: no clock)."""
REACTIONS = ("👏", "😮", "😂", "🙈")
"""What a person may send to the table, at most one a second."""
IDLE_LOOK_S = 60.0
"""How often the store is asked for the tables idle too long (the turn clocks, every tick)."""
SWEEP_S = 2.0
"""How often a process looks for the sockets of processes that died (`LiveTables._sweep`)."""


class LiveTables(Doors):
    """Every live table of the server, and what a host, a person or a watcher may ask of one."""

    async def open(
        self,
        host: str,
        *,
        preset: str,
        rules: dict[str, Any] | None,
        best_of: int,
        seats: Sequence[Seat],
        clock_s: int | None,
    ) -> TableRow:
        """Open a table for the browser `host` at seat 0 and deal its first round (of a match
        when `best_of` > 1); refused (TableRefused) beyond the tables a browser may have."""
        if clock_s not in CLOCKS:
            raise TableRefused(f"clock_s: must be one of null, 10 or 30 seconds, not {clock_s!r}")
        chosen = Rules.choose(preset, rules)
        if len(seats) != chosen.players:
            raise SeatsError(f"seats: list one seat for each of the {chosen.players} players")
        checked = check_seats(four_seats(seats), chosen.players)
        open_now = await run_in_threadpool(self.store.open_tables_of, host)
        if open_now >= self.settings.live_tables_per_browser:
            raise TableRefused(
                f"this browser has {open_now} live tables open, the most it may: close one "
                "(or wait an hour for an unused one to close) before opening another"
            )
        code, watch = secrets.token_urlsafe(16), secrets.token_urlsafe(16)  # 128 bits each
        round_id, match_id = await run_in_threadpool(
            self._deal_first, host, chosen, best_of, checked, code
        )
        now = self._clock()
        table_seats = tuple(
            TableSeat(seat.kind, seat.name, host if index == HOST else None)
            for index, seat in enumerate(checked[: chosen.players])
        )
        row = TableRow(
            code, watch, host, chosen.to_dict(), best_of, clock_s, table_seats,
            round_id, match_id, None, now, now,
        )  # fmt: skip
        await run_in_threadpool(self.store.insert_table, row)
        await self._reseat(row)
        self._tables[code] = Presence(row)
        return row

    def _deal_first(
        self, host: str, rules: Rules, best_of: int, seats: tuple[Seat, ...], code: str
    ) -> tuple[str, str | None]:
        if best_of > 1:
            match = self.matches.create(
                host, best_of=best_of, rules=rules.to_dict(), seats=seats, live_table=code
            )
            return str(match["round"]["id"]), str(match["id"])
        made = self.rounds.create(host, rules=rules.to_dict(), seats=seats, live_table=code)
        return str(made["id"]), None

    async def sit(self, code: str, player: str, seat: int, name: str) -> Seated:
        """Seat the browser `player` at `seat`, a person's seat no one holds, by `name` (or
        rename them at the seat they hold); refused with a reason otherwise."""
        presence = await self.table(code)
        async with self.held(presence):
            row = presence.row
            held = self.seat_of(presence, player).seat
            if not 0 <= seat < len(row.seats):
                raise TableRefused(f"seat: this table has seats 0 to {len(row.seats) - 1}")
            if held is not None and held != seat:
                raise TableRefused(f"seat: you already sit at seat {held} of this table")
            wanted = row.seats[seat]
            if wanted.kind != "person":
                raise TableRefused(f"seat: seat {seat} is played by the computer")
            if wanted.holder not in (None, player):
                raise TableRefused(f"seat: seat {seat} is taken; choose a free seat, or watch")
            row = row.with_seat(seat, TableSeat("person", _name(row, seat, name), player))
            await self._save(presence, row)
            await self._reseat(row)
            self._tell(presence, {"type": "seated", "seat": seat, "name": row.seats[seat].name})
        return Seated(seat, host=seat == HOST)

    async def flip(self, code: str, who: Seated, battle: int | None) -> None:
        """`who` flips for the next battle (`battle`, when given, must be its number: a flip
        left over from the battle before is let go); the battle plays once everyone is in."""
        presence = await self.table(code)
        async with self.held(presence):
            round_ = await self._round(presence)
            seat = self._flipper(presence, who, round_)
            if battle is not None and battle != round_["battles"] + 1:
                return  # a flip for a battle already played: nothing to do
            presence.flipped.add(seat)
            if presence.deadline is None and presence.row.clock_s is not None:
                presence.deadline = self._clock() + presence.row.clock_s
            waiting = self._waiting(presence, round_)
            if waiting:
                self._tell(presence, {"type": "flipped", "seat": seat, "waiting": waiting})
                return
            await self._play(presence, 1, by="flips")

    async def play_many(self, code: str, who: Seated, count: int | None) -> None:
        """The host plays `count` battles at once (None: to the end of the round)."""
        presence = await self.table(code)
        if not who.host:
            raise NotHost("Only the table's host plays 10 battles or to the end.")
        async with self.held(presence):
            round_ = await self._round(presence)
            if round_["outcome"] is not None:
                raise TableRefused("The round is over: the host deals the next one.")
            await self._play(presence, count, by="host")

    async def react(self, code: str, who: Seated, emoji: str) -> None:
        """A person's reaction, shown on their seat; at most one a second each."""
        presence = await self.table(code)
        if emoji not in REACTIONS:
            raise TableRefused(f"emoji: must be one of {' '.join(REACTIONS)}")
        async with self.held(presence):  # the seat as every process left it
            if who.seat is None or not self.still_holds(presence, who):
                raise TableRefused("Watchers watch: take a seat to send a reaction.")
            now = self._clock()
            if now - presence.reacted.get(who.seat, float("-inf")) < 1.0:
                raise TableRefused("One reaction a second, please.")
            presence.reacted[who.seat] = now
            self._tell(presence, {"type": "reaction", "seat": who.seat, "emoji": emoji})

    async def stand_up(self, code: str, who: Seated) -> None:
        """A person other than the host leaves the table: their seat is free again (the host
        may give it to the computer at once, or someone else may take it)."""
        presence = await self.table(code)
        if who.host:
            raise TableRefused("The host closes the table instead of leaving it.")
        async with self.held(presence):
            if who.seat is None or not self.still_holds(presence, who):
                raise TableRefused("You hold no seat at this table.")
            seat = who.seat
            name = presence.row.seats[seat].name
            row = presence.row.with_seat(seat, TableSeat("person", ""))
            presence.flipped.discard(seat)
            presence.away_since.pop(seat, None)
            await self._save(presence, row)
            await self._reseat(row)
            self._tell(presence, {"type": "left", "seat": seat, "name": name})

    async def give(self, code: str, who: Seated, seat: int) -> None:
        """The host gives a person's seat to the computer: one no one has taken, or one whose
        person has been away for `Settings.live_give_after_s`."""
        presence = await self.table(code)
        if not who.host:
            raise NotHost("Only the table's host gives a seat to the computer.")
        async with self.held(presence):
            row = presence.row
            if not 0 < seat < len(row.seats) or row.seats[seat].kind != "person":
                raise TableRefused(f"seat: seat {seat} is not another person's seat")
            away = presence.away_since.get(seat)
            if row.seats[seat].holder is not None:
                if await self.sockets_at(presence, seat) > 0 or away is None:
                    raise TableRefused(f"seat: {row.seats[seat].name} is at the table")
                left = self.settings.live_give_after_s - (self._clock() - away)
                if left > 0:
                    raise TableRefused(
                        f"seat: {row.seats[seat].name} may be back soon; the seat can go to "
                        f"the computer in {int(left) + 1} s"
                    )
            players = len(row.seats)
            name = default_name(seat, "computer", players)
            if any(other.name.casefold() == name.casefold() for other in row.seats):
                name = f"{name} ({row.seats[seat].name})"[:20]
            row = row.with_seat(seat, TableSeat("computer", name))
            presence.flipped.discard(seat)
            presence.away_since.pop(seat, None)
            await self._save(presence, row)
            await self._reseat(row)
            self._tell(presence, {"type": "given", "seat": seat, "name": name})
            round_ = await self._round(presence)
            if (
                round_["outcome"] is None
                and presence.flipped
                and not self._waiting(presence, round_)
            ):
                await self._play(presence, 1, by="flips")

    async def next_round(self, code: str, who: Seated) -> None:
        """The host deals the next round: the match's next, or a fresh deal of the same rules
        (a new match of the same length once one is decided)."""
        presence = await self.table(code)
        if not who.host:
            raise NotHost("Only the table's host deals the next round.")
        async with self.held(presence):
            round_ = await self._round(presence)
            if round_["outcome"] is None:
                raise TableRefused("The round is still being played: finish it first.")
            row = presence.row
            round_id, match_id = await run_in_threadpool(self._deal_next, row)
            row = replace(row, round_id=round_id, match_id=match_id)
            presence.flipped.clear()
            presence.deadline = None
            await self._save(presence, row)
            await self._reseat(row)
            self._tell(presence, await self.state(code, event="dealt", held=True))

    def _deal_next(self, row: TableRow) -> tuple[str, str | None]:
        seats = row.round_seats()
        if row.match_id is not None:
            match = self.matches.get(row.match_id)
            if not match["over"]:
                made = self.matches.next_round(row.match_id, row.host, live_table=row.code)
                return str(made["round"]["id"]), row.match_id
        rules = Rules.choose("classic", row.rules)
        return self._deal_first(row.host, rules, row.best_of, four_seats(seats), row.code)

    async def tick(self) -> None:
        """Flip for the late when a turn clock runs out; close idle tables; sweep (`Doors`)."""
        now = self._clock()
        await self.shared.beat()
        for code, presence in tuple(self._tables.items()):
            if presence.deadline is not None and presence.deadline <= now:
                await self._clock_ran_out(code, presence)
        if now - self._swept >= SWEEP_S:  # the people of a process that died, now and then
            self._swept = now
            await self.sweep()
        if now - self._idle_looked < IDLE_LOOK_S:
            return  # the store is asked about idle tables once a minute, not every tick
        self._idle_looked = now
        idle = await run_in_threadpool(self.store.idle_tables, now - self.settings.live_idle_s)
        for code in idle:
            if code not in self._tables:
                row = await run_in_threadpool(self.store.get_table, code)
                if row is None:
                    continue
                self._tables[code] = Presence(row)
            await self.close(code, "idle")

    async def _clock_ran_out(self, code: str, presence: Presence) -> None:
        async with self.held(presence):
            if presence.deadline is None or presence.deadline > self._clock():
                return  # played, or the clock set again, while this waited for the lock
            round_ = await self._round(presence)
            if round_["outcome"] is not None:
                presence.deadline = None
                return
            late = self._waiting(presence, round_)
            presence.flipped.update(late)
            await self._play(presence, 1, by="clock", late=late)

    def _flipper(self, presence: Presence, who: Seated, round_: dict[str, Any]) -> int:
        if who.seat is None:
            raise TableRefused("Watchers watch: take a seat to flip.")
        if not self.still_holds(presence, who):
            raise TableRefused("You left this seat: take a seat again to flip.")
        if round_["outcome"] is not None:
            raise TableRefused("The round is over: the host deals the next one.")
        if round_["counts"][who.seat] == 0:
            raise TableRefused("You are out of cards this round: the others play on.")
        return who.seat


def _name(row: TableRow, seat: int, name: str) -> str:
    """`name` checked for seat `seat` of the table: the seat rules' name check, and not the
    name of another seat (case aside)."""
    players = len(row.seats)
    wanted = name.strip().casefold()
    for index, other in enumerate(row.seats):
        shown = other.name or default_name(index, other.kind, players)
        if index != seat and wanted and shown.casefold() == wanted:
            raise TableRefused(f"name: {shown} sits at this table already; choose another name")
    chosen = list(row.round_seats())
    chosen[seat] = Seat("person", name)
    try:
        checked = check_seats(four_seats(chosen), len(row.seats))
    except SeatsError as error:
        raise TableRefused(str(error).replace(f"seats.{seat}.name", "name")) from None
    trimmed = checked[seat].name
    if not trimmed:
        raise TableRefused("name: say who you are, in at most 20 characters")
    return trimmed
