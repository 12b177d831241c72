"""Live tables (docs/api.md#live-tables): people each on their own device at one table.

`LiveTables` is the one entry for everything asked of a table, and each entry is the same
five steps: load the table (`Room.find`), lock it (`Room.locked`), apply one method of the pure
`Table` (`table.py`, where a table's rules are), save what changed (`Room.save`), and tell what
happened (`Room.tell`, sent as the lock is let go). A battle is played, committed and told by
`Battles`; sockets come and go through `Doors`. Each is handed its seams (the store, the
presences, the hub, the settings), none extends another.

A table is opened by one browser (the host, seat 0) with its rules, its seats (a person's, to
be taken through the invite link, or the computer's) and an optional turn clock. A person who
comes back (a reload, a dropped connection) gets the same seat and the whole table; the seat
credential is the browser's own cookie, which never leaves it. The invite code never goes into
a message: a watcher hears them all.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from fastapi.concurrency import run_in_threadpool

from cardwar.errors import RulesError
from cardwar.rules import Rules
from cardwar.web.errors import DatabaseDown
from cardwar.web.game.matches import Matches
from cardwar.web.game.rounds import Rounds
from cardwar.web.game.seats import Seat
from cardwar.web.live.battles import Battles
from cardwar.web.live.doors import Doors
from cardwar.web.live.errors import BadRules, TableNotFound, TooManyTables
from cardwar.web.live.hub import Hub
from cardwar.web.live.presence import InProcessPresences, Presence, Presences
from cardwar.web.live.room import Room
from cardwar.web.live.table import (
    Reclaimed,
    Seated,
    Table,
    Who,
    chosen_for_a_table,
    opened_row,
)
from cardwar.web.live.wire import Next, Shown
from cardwar.web.settings import Settings
from cardwar.web.store import Store
from cardwar.web.store.live import TableRow

IDLE_LOOK_S = 60.0
"""How often the store is asked for the tables idle too long (the turn clocks, every tick)."""
SWEEP_S = 2.0
"""How often a process looks for the sockets of processes that died (`Doors.sweep`)."""


def flip_let_go(now: Table, flipped: Table, before: Table) -> Table:
    """The table `now`, after a flip (which made it `flipped`, from `before`) whose battle the
    database kept from being played: that flip goes with the battle, and its sender, told to try
    again, flips again. Kept, every seat would stay flipped for a battle that never comes, and
    each flip again be let go as a repeat. A battle played (its flips gone) stays played."""
    if now.flipped != flipped.flipped:
        return now
    return replace(now, flipped=before.flipped, deadline=before.deadline)


class LiveTables:
    """Every live table of the server, and what a host, a person or a watcher may ask of one."""

    def __init__(
        self,
        store: Store,
        rounds: Rounds,
        matches: Matches,
        hub: Hub,
        settings: Settings,
        presences: Presences | None = None,
    ) -> None:
        self.store, self.hub, self.settings = store, hub, settings
        self.room = Room(store, settings, presences or InProcessPresences(hub))
        self.battles = Battles(self.room, rounds, matches, settings)
        self.doors = Doors(self.room, settings.live_unseen_s)
        self._idle_looked = float("-inf")  # when the store was last asked for idle tables
        self._swept = float("-inf")  # when the sockets of processes that died were looked for

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
        when `best_of` > 1); TooManyTables beyond the tables a browser may have."""
        chosen, checked = chosen_for_a_table(preset, rules, seats, clock_s)
        open_now = await run_in_threadpool(self.store.live.open_tables_of, host)
        if open_now >= self.settings.live_tables_per_browser:
            raise TooManyTables(
                f"this browser has {open_now} live tables open, the most it may: close one "
                "(or wait an hour for an unused one to close) before opening another"
            )
        code, watch = secrets.token_urlsafe(16), secrets.token_urlsafe(16)  # 128 bits each
        round_id, match_id = await run_in_threadpool(
            self.battles.deal_first, host, chosen, best_of, checked, code
        )
        row = opened_row(
            (code, watch), host, chosen, best_of, clock_s, checked, (round_id, match_id),
            now=self.room.clock(),
        )  # fmt: skip
        await run_in_threadpool(self.store.live.insert_table, row)
        self.room.tables[code] = Presence(Table(row))
        return row

    async def table(self, code: str, *, look: bool = False) -> Table:
        """The open table with this code (with `look`, as the other processes left it);
        TableNotFound or TableClosed if none."""
        return (await self.room.open_table(code, look=look)).table

    async def sit(self, code: str, player: str, seat: int, name: str) -> Who:
        """Seat the browser `player` at `seat`, a person's seat no one holds, by `name` (or
        rename them at the seat they hold, or give them back the seat that went to the
        computer from them); refused with the reason otherwise."""
        presence = await self.room.open_table(code)
        async with self.room.locked(presence):
            given = presence.table.seats[seat] if 0 <= seat < len(presence.table.seats) else None
            event: Seated | Reclaimed
            if given is not None and given.gave_up is not None and given.gave_up[0] == player:
                table, event = presence.table.reclaim(player, seat)
            else:
                table, event = presence.table.sit(player, seat, name)
            await self.room.save(presence, table)
            self.room.tell(presence, event)
        return Who(player, seat)

    async def flip(self, code: str, who: Who, battle: int | None) -> None:
        """`who` flips for the next battle (`battle`, when given, must be its number: a flip
        left over from the battle before is let go); the battle plays once everyone is in."""
        presence = await self.room.open_table(code)
        async with self.room.locked(presence):
            round_ = await self.battles.view(presence)
            table, flipped = (before := presence.table).flip(
                who, battle, round_, now=self.room.clock()
            )
            if flipped is None:
                return  # a late or repeated flip: nothing changed, nothing to tell
            await self.room.save(presence, table)
            if flipped.waiting:
                self.room.tell(presence, flipped)
                return
            try:
                await self.battles.play(presence, 1, by="flips")
            except DatabaseDown:
                presence.table = flip_let_go(presence.table, table, before)
                raise

    async def play_many(
        self,
        code: str,
        who: Who,
        count: int | None,
        speed: str | None = None,
        tag: int | None = None,
    ) -> None:
        """The host plays `count` battles at once (None: to the end of the round), shown on
        every device at the host's `speed`, told with the host's page's `tag`."""
        presence = await self.room.open_table(code)
        async with self.room.locked(presence):
            presence.table.can_play_many(who, await self.battles.view(presence))
            await self.battles.play(presence, count, by="host", speed=speed, tag=tag)

    async def react(self, code: str, who: Who, emoji: str) -> None:
        """A person's reaction, shown on their seat; at most one a second each."""
        presence = await self.room.open_table(code)
        async with self.room.locked(presence):  # the seat as every process left it
            table, reacted = presence.table.react(who, emoji, now=self.room.clock())
            await self.room.save(presence, table)
            self.room.tell(presence, reacted)

    async def stand_up(self, code: str, who: Who) -> None:
        """A person other than the host leaves the table: their seat is free again (the host
        may give it to the computer at once, or someone else may take it)."""
        presence = await self.room.open_table(code)
        async with self.room.locked(presence):
            table, left = presence.table.stand_up(who)
            await self.room.save(presence, table)
            self.room.tell(presence, left)

    async def give(self, code: str, who: Who, seat: int) -> None:
        """The host gives a person's seat to the computer: one no one has taken, or one whose
        person has been away for `Settings.live_give_after_s`."""
        presence = await self.room.open_table(code)
        async with self.room.locked(presence):
            held = 0 <= seat < len(presence.table.seats) and presence.table.seats[seat].holder
            present = bool(held) and await self.doors.sockets_at(presence, seat) > 0
            table, given = presence.table.give(
                who, seat, await self.battles.view(presence), now=self.room.clock(),
                after_s=self.settings.live_give_after_s, present=present,
            )  # fmt: skip
            await self.room.save(presence, table)
            self.room.tell(presence, given)
            if given.play:
                await self.battles.play(presence, 1, by="flips")

    async def next_round(self, code: str, who: Who, choice: Next | None = None) -> None:
        """The host deals the next round: the match's next, or a fresh deal of the same rules
        (a new match of the same length once one is decided); with a `choice`, by the rules and
        match length the host chose, and (`abandon`) even while a round is played."""
        choice = choice or Next(type="next")
        presence = await self.room.open_table(code)
        rules = None
        if choice.preset is not None or choice.rules is not None:
            try:
                rules = Rules.choose(choice.preset or "classic", choice.rules)
            except RulesError as error:
                raise BadRules(f"rules: {error}") from None
        async with self.room.locked(presence):
            view = await self.battles.view(presence)
            players = None if rules is None else rules.players
            presence.table.can_deal(who, view, abandon=choice.abandon, players=players)
            round_id, match_id = await run_in_threadpool(
                partial(self.battles.deal_next, presence.table.row, rules=rules,
                        best_of=choice.best_of, fresh=not view.over)
            )  # fmt: skip
            dealt = presence.table.dealt(
                round_id, match_id, rules=None if rules is None else rules.to_dict(),
                best_of=choice.best_of,
            )  # fmt: skip
            await self.room.save(presence, dealt)
            self.room.tell(presence, await self.battles.shown(presence, "dealt"))

    async def again(self, code: str, who: Who) -> None:
        """A person asks for another round once the last is over: the host is told; the host's
        own ask deals it."""
        presence = await self.room.open_table(code)
        if presence.table.is_host(who):
            await self.next_round(code, who)
            return
        async with self.room.locked(presence):
            table, asked = presence.table.ask_again(who, await self.battles.view(presence))
            if asked is None:
                return  # asked already: the host was told
            await self.room.save(presence, table)
            self.room.tell(presence, asked)

    async def close(self, code: str, reason: str) -> None:
        """Close the table (the host asked, or it was idle): its sockets are told."""
        presence = self.room.tables.get(code)
        if presence is None or presence.table.is_closed:
            return
        async with self.room.locked(presence):
            if presence.table.is_closed:
                return  # closed while this waited (the host, and the idle clock, at once)
            table, closed = presence.table.close(reason)
            await self.room.save(presence, table)
            self.room.tell(presence, closed)
        self.room.tables.pop(code, None)

    async def close_as_host(self, code: str, who: Who) -> None:
        """The host closes the table."""
        presence = await self.room.open_table(code)
        presence.table.host_only(who, "closes it")
        await self.close(code, "host")

    async def shown(self, code: str, event: str | None = None) -> Shown:
        """The whole table as a device shows it when it (re)joins, as every process left it."""
        presence = await self.room.open_table(code, look=True)
        return await self.battles.shown(presence, event)

    async def shown_to_join(self, code: str) -> tuple[Shown, int]:
        """The whole table as a socket joining it is shown, and the number of the last message
        told before it (`Said.number`): read with the table locked, so that it is the newest
        there is. What was told before has gone out; a message of those still on its way to
        this process is let go by the socket (`sockets._hear`): its table holds it already."""
        presence = await self.room.open_table(code)
        async with self.room.locked(presence):
            return await self.battles.shown(presence), presence.said

    def who(self, table: Table, player: str | None) -> Who:
        """Who the browser `player` is at `table`: at the seat it holds, or a watcher."""
        seat = table.row.seat_of(player)
        return Who(player if seat is not None else None, seat)

    async def tick(self) -> None:
        """Flip for the late when a turn clock runs out; close idle tables; sweep (`Doors`)."""
        now = self.room.clock()
        await self.room.presences.beat()
        for presence in tuple(self.room.tables.values()):
            deadline = presence.table.deadline
            if deadline is not None and deadline <= now:
                await self._clock_ran_out(presence)
        if now - self._swept >= SWEEP_S:  # the people of a process that died, now and then
            self._swept = now
            await self.doors.sweep()
        if now - self._idle_looked < IDLE_LOOK_S:
            return  # the store is asked about idle tables once a minute, not every tick
        self._idle_looked = now
        idle = await run_in_threadpool(self.store.live.idle_tables, now - self.settings.live_idle_s)
        for code in idle:
            try:
                await self.room.find(code)
            except TableNotFound:
                continue  # gone meanwhile (pruned)
            await self.close(code, "idle")

    async def _clock_ran_out(self, presence: Presence) -> None:
        async with self.room.locked(presence):
            if presence.table.deadline is None or presence.table.is_closed:
                return  # played, or closed, while this waited for the lock
            round_ = await self.battles.view(presence)
            table, ran_out = presence.table.clock_ran_out(round_, now=self.room.clock())
            await self.room.save(presence, table)
            if ran_out is not None:
                await self.battles.play(presence, 1, by="clock", late=ran_out.late)
