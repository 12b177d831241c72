"""Who comes and goes at a live table: a socket counted in as it opens and out as it closes, a
person away once their last socket in any process serving has closed, back with their next;
and the sweep for the people of a process that died. Each process counts its own sockets, and
writes its count into the presence with each hold of the table, so that a count it could not
write (the broker out of reach) is right again with its next. Over `Room` (`live_room.py`), under
`LiveTables` (`live.py`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager

from cardwar.web.errors import BrokerDown
from cardwar.web.live_room import Room, Seated
from cardwar.web.live_shared import Presence


class Doors(Room):
    """The comings and goings of every live table's sockets."""

    @asynccontextmanager
    async def held(self, presence: Presence) -> AsyncIterator[Presence]:
        """The table held (`Room.held`), with this process's own sockets at it counted in."""
        async with super().held(presence):
            self._settle(presence)
            yield presence

    def _count(self, code: str, seat: int, change: int) -> None:
        """One socket more (+1) or fewer (-1) at `seat` of the table, in this process."""
        mine = self._here.setdefault(code, Counter())
        mine[seat] += change
        if mine[seat] <= 0:
            del mine[seat]
        if not mine:
            del self._here[code]

    def _settle(self, presence: Presence) -> None:
        """Make this process's socket counts in the presence its own count of them: a change
        it could not write (the broker out of reach) is written with its next hold."""
        here = self.shared.process
        mine = self._here.get(presence.row.code, Counter())
        for seat in set(presence.sockets) | set(mine):
            counts = presence.sockets.setdefault(seat, {})
            if mine[seat]:
                counts[here] = mine[seat]
            else:
                counts.pop(here, None)

    async def arrive(self, code: str, who: Seated) -> None:
        """A socket of `who` has opened: a person back from away is said to be back."""
        presence = await self.table(code)
        if who.seat is None:
            return
        self._count(code, who.seat, +1)
        try:
            async with self.held(presence):  # which counts it in the presence of every process
                if presence.away_since.pop(who.seat, None) is not None:
                    self._tell(presence, {"type": "back", "seat": who.seat})
        except BrokerDown:
            raise  # the socket's route counts it out (`leave`), as it tells it to come again
        except BaseException:
            self._count(code, who.seat, -1)  # the socket is gone with the failure
            raise

    async def leave(self, code: str, who: Seated) -> None:
        """A socket of `who` has closed: a person with no other socket, in any process still
        serving, is away from now on. With the broker out of reach, BrokerDown, and the sweep
        says so once it is back (`unsettled`)."""
        if who.seat is None:
            return
        self._count(code, who.seat, -1)
        presence = self._tables.get(code)
        if presence is None:
            return
        try:
            async with self.held(presence):
                await self._away_if_gone(code, presence, (who.seat,), who)
        except BrokerDown:
            self.unsettled.setdefault(code, set()).add(who.seat)
            raise

    async def _away_if_gone(
        self, code: str, presence: Presence, seats: Iterable[int], who: Seated | None = None
    ) -> None:
        """Each of `seats` whose person has no socket left in any process serving is away from
        now on, and the table is told (`who`: the person whose socket just closed)."""
        for seat in seats:
            holder = presence.row.seats[seat].holder
            if (
                holder is not None
                and (who is None or self.still_holds(presence, who))
                and presence.row.closed is None
                and seat not in presence.away_since
                and await self.sockets_at(presence, seat) == 0
            ):
                presence.away_since[seat] = self._clock()
                self._tell(presence, {"type": "away", "seat": seat})

    async def sockets_at(self, presence: Presence, seat: int) -> int:
        """The sockets open at `seat` in the processes serving now (a process that died holds
        none, once its heartbeat lapses); counts of the dead are forgotten."""
        counts = presence.sockets.get(seat, {})
        alive = await self.shared.alive(counts)
        for gone in set(counts) - alive:
            del counts[gone]
        return sum(counts.values())

    async def sweep(self) -> None:
        """A person whose sockets were all in a process that has died (its heartbeat lapsed),
        or closed here while the broker was out of reach, is away from now on, and the table is
        told (they reconnect to another process)."""
        here = self.shared.process
        for code, presence in tuple(self._tables.items()):
            if presence.row.closed is not None:
                self.unsettled.pop(code, None)
                continue
            unsettled = set(self.unsettled.get(code, ()))
            elsewhere = {name for counts in presence.sockets.values() for name in counts} - {here}
            if not unsettled and (
                not elsewhere or await self.shared.alive(elsewhere) >= elsewhere | {here}
            ):
                continue
            async with self.held(presence):
                await self._away_if_gone(code, presence, set(presence.sockets) | unsettled)
            left = self.unsettled.pop(code, set()) - unsettled  # any closed meanwhile stay
            if left:
                self.unsettled[code] = left
        for code in set(self.unsettled) - set(self._tables):
            del self.unsettled[code]  # closed meanwhile
