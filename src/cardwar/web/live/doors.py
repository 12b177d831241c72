"""Who comes and goes at a live table (`Doors`): a socket counted in as it opens and out as it
closes, a person away once their last socket in any process serving has closed, back with their
next; and the sweep for the people of a process that died. Each process counts its own sockets,
and writes its count into the presence each time it locks the table, so that a count it could
not write (the broker out of reach) is right again with its next."""

from __future__ import annotations

import asyncio
import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cardwar.web.connections import Tally
from cardwar.web.errors import BrokerDown
from cardwar.web.live.errors import TableBusy
from cardwar.web.live.presence import Presence
from cardwar.web.live.room import Room
from cardwar.web.live.table import Who
from cardwar.web.site.logs import Addresses
from cardwar.web.site.metrics import LIVE_SOCKETS, LIVE_TABLES


@dataclass(eq=False, slots=True)
class Ticket:
    """A live socket let in (`Doors.let_in`): from which address, run by which task, and
    whether it was closed to seat another (`evicted`)."""

    address: str
    task: asyncio.Task[Any] | None
    evicted: bool = False


class Full(enum.Enum):
    """Why a socket is not let in."""

    SERVER = "server"
    """This process holds all the sockets it takes, and no address holds more than its own."""
    ADDRESS = "address"
    """Its address holds all the sockets one address may hold."""


class Doors:
    """The comings and goings of the sockets of every live table of this process."""

    def __init__(self, room: Room, unseen_s: float) -> None:
        self.room = room
        self.unseen_s = unseen_s
        """How long a held seat may have no socket anywhere before it counts as away."""
        self.empty_since: dict[tuple[str, int], float] = {}
        """Since when this process has seen each held seat, not away, with no socket anywhere."""
        self.sockets = 0
        """Live sockets open on this process (`Settings.live_sockets` bounds them), counted by
        the socket as it is let in (`let_in`)."""
        self.open_from: dict[str, list[Ticket]] = {}
        """The same, by network address, oldest first (`Settings.live_sockets_per_address`
        bounds each); an address with none is not kept."""
        self.full = Tally("live_sockets_full")
        self.full_from = Tally("live_sockets_address_full")
        self.made_room = Tally("live_socket_made_room")
        """What the log says: this process full, an address full, a socket closed for another."""
        self.here: dict[str, Counter[int]] = {}
        """This process's own sockets at each table, by seat: what it writes into the presence
        every process reads, each time it locks the table (`settle`)."""
        self.unsettled: dict[str, set[int]] = {}
        """The seats of each table whose socket closed here while the broker was out of reach:
        the sweep tells the table who is away once it is back (`sweep`)."""
        room.on_lock.append(self.settle)

    @property
    def sockets_from(self) -> Counter[str]:
        """How many live sockets each address holds here."""
        return Counter({address: len(held) for address, held in self.open_from.items()})

    def let_in(
        self, address: str, task: asyncio.Task[Any] | None, most: int, most_from: int
    ) -> Ticket | Full:
        """Count in a socket from `address` (run by `task`), or say why not, so that no few
        addresses can fill the process (docs/api.md#limits-of-live-tables): an address may hold
        `most_from`; once the process holds `most`, a socket from an address holding at least
        two fewer than the address that holds the most is still let in, and the newest socket
        of that address is closed to seat it (its task cancelled: it closes itself, 1013). Two
        fewer, so that the swap never leaves the newcomer's address holding more than the one
        that gave way, and two addresses never take turns closing each other's sockets. The
        newest is refused first: the address that holds the most gives way, its latest socket
        before its oldest (a page that has been at its table longest keeps it)."""
        held = self.open_from.get(address, [])
        if len(held) >= most_from:
            self.full_from.refused(
                f"live sockets: {Addresses.shown(address)} holds {len(held)}, the most one "
                "address may hold here: refused one more (1013)"
            )
            return Full.ADDRESS
        if self.sockets >= most:
            most_held = max(self.open_from.values(), key=len, default=[])
            if len(most_held) <= len(held) + 1:
                self.full.refused(
                    f"live sockets: all {most} this process takes are open: refused one from "
                    f"{Addresses.shown(address)} (1013)"
                )
                return Full.SERVER
            newest = most_held[-1]
            self.made_room.refused(
                f"live sockets: all {most} this process takes are open: closed the newest of "
                f"the {len(most_held)} of {Addresses.shown(newest.address)} to let one in from "
                f"{Addresses.shown(address)} (1013)"
            )
            self.evict(newest)
        ticket = Ticket(address, task)
        self.open_from.setdefault(address, []).append(ticket)
        self.sockets += 1
        LIVE_SOCKETS.inc()
        return ticket

    def let_out(self, ticket: Ticket) -> None:
        """Count out a socket let in (once: a socket evicted is counted out already)."""
        held = self.open_from.get(ticket.address, [])
        if ticket not in held:
            return
        held.remove(ticket)
        self.sockets -= 1
        LIVE_SOCKETS.dec()
        if not held:
            del self.open_from[ticket.address]

    def evict(self, ticket: Ticket) -> None:
        """Count out a socket at once, and have it close itself (its task cancelled)."""
        self.let_out(ticket)
        ticket.evicted = True
        if ticket.task is not None:
            ticket.task.cancel()

    def _count(self, code: str, seat: int, change: int) -> None:
        """One socket more (+1) or fewer (-1) at `seat` of the table, in this process."""
        if code not in self.here:
            LIVE_TABLES.inc()
        mine = self.here.setdefault(code, Counter())
        mine[seat] += change
        if mine[seat] <= 0:
            del mine[seat]
        if not mine:
            del self.here[code]
            LIVE_TABLES.dec()

    def settle(self, presence: Presence) -> None:
        """Make this process's socket counts in the presence its own count of them: a change
        it could not write (the broker out of reach) is written with its next lock."""
        here = self.room.presences.process
        mine = self.here.get(presence.code, Counter())
        for seat in set(presence.sockets) | set(mine):
            counts = presence.sockets.setdefault(seat, {})
            if mine[seat]:
                counts[here] = mine[seat]
            else:
                counts.pop(here, None)

    async def arrive(self, code: str, who: Who) -> None:
        """A socket of `who` has opened: a person back from away is said to be back."""
        presence = await self.room.open_table(code)
        if who.seat is None:
            return
        self._count(code, who.seat, +1)
        try:
            async with self.room.locked(presence):  # which counts it in for every process
                table, back = presence.table.came(who.seat)
                if back is not None:
                    await self.room.save(presence, table)
                    self.room.tell(presence, back)
        except BrokerDown:
            raise  # the socket counts it out (`leave`), as it tells it to come again
        except BaseException:
            self._count(code, who.seat, -1)  # the socket is gone with the failure
            raise

    async def leave(self, code: str, who: Who) -> None:
        """A socket of `who` has closed: a person with no other socket, in any process still
        serving, is away from now on. With the broker out of reach, BrokerDown (or the table
        busy elsewhere, TableBusy), and the sweep says so later (`unsettled`)."""
        if who.seat is None:
            return
        self._count(code, who.seat, -1)
        presence = self.room.tables.get(code)
        if presence is None:
            return
        try:
            async with self.room.locked(presence):
                if presence.table.seats[who.seat].holder == who.player:
                    await self._away_if_gone(presence, (who.seat,))
        except (BrokerDown, TableBusy):
            self.unsettled.setdefault(code, set()).add(who.seat)
            raise

    async def _away_if_gone(self, presence: Presence, seats: Iterable[int]) -> None:
        """Each of `seats` whose person has no socket left in any process serving is away from
        now on, and the table is told."""
        for seat in seats:
            table, away = presence.table.went(seat, now=self.room.clock())
            if away is None or await self.sockets_at(presence, seat) > 0:
                continue
            await self.room.save(presence, table)
            self.room.tell(presence, away)

    async def sockets_at(self, presence: Presence, seat: int) -> int:
        """The sockets open at `seat` in the processes serving now (a process that died holds
        none, once its heartbeat lapses); counts of the dead are forgotten."""
        counts = presence.sockets.get(seat, {})
        alive = await self.room.presences.alive(counts)
        for gone in set(counts) - alive:
            del counts[gone]
        return sum(counts.values())

    async def sweep(self) -> None:
        """A person whose sockets were all in a process that has died (its heartbeat lapsed),
        or closed here while the broker was out of reach, is away from now on, and the table is
        told (they reconnect to another process)."""
        here = self.room.presences.process
        for code, presence in tuple(self.room.tables.items()):
            if presence.table.is_closed:
                self.unsettled.pop(code, None)
                continue
            unsettled = set(self.unsettled.get(code, ()))
            elsewhere = {name for counts in presence.sockets.values() for name in counts} - {here}
            if not unsettled and (
                not elsewhere or await self.room.presences.alive(elsewhere) >= elsewhere | {here}
            ):
                continue
            async with self.room.locked(presence):
                await self._away_if_gone(presence, set(presence.sockets) | unsettled)
            left = self.unsettled.pop(code, set()) - unsettled  # any closed meanwhile stay
            if left:
                self.unsettled[code] = left
        for code in set(self.unsettled) - set(self.room.tables):
            del self.unsettled[code]  # closed meanwhile
        await self._sweep_unseen()

    async def _sweep_unseen(self) -> None:
        """A seat taken whose socket never opened, or whose person has not come back since a
        restart, has no socket in any process: after `unseen_s` of that it is away (and so the
        host may give it, in time), as if its last socket had closed. No seat is held for ever."""
        now, empty = self.room.clock(), set()
        for code, presence in tuple(self.room.tables.items()):
            table, mine = presence.table, self.here.get(code, Counter())
            if table.is_closed:
                continue
            for seat, taken in enumerate(table.seats):
                counted = sum(presence.sockets.get(seat, {}).values()) + mine[seat]
                if taken.holder is not None and seat not in table.here.away_since and not counted:
                    empty.add((code, seat))
        for key in set(self.empty_since) - empty:
            del self.empty_since[key]  # a socket opened, or the seat is away or free now
        for code, seat in sorted(empty):
            since = self.empty_since.setdefault((code, seat), now)
            found = self.room.tables.get(code)
            if now - since < self.unseen_s or found is None:
                continue
            del self.empty_since[(code, seat)]
            async with self.room.locked(found):  # what every process counts, now
                await self._away_if_gone(found, (seat,))
