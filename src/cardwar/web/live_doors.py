"""Who comes and goes at a live table: a socket counted in as it opens and out as it closes, a
person away once their last socket in any process serving has closed, back with their next;
and the sweep for the people of a process that died. Over `Room` (`live_room.py`), under
`LiveTables` (`live.py`)."""

from __future__ import annotations

from cardwar.web.live_room import Room, Seated
from cardwar.web.live_shared import Presence


class Doors(Room):
    """The comings and goings of every live table's sockets."""

    async def arrive(self, code: str, who: Seated) -> None:
        """A socket of `who` has opened: a person back from away is said to be back."""
        presence = await self.table(code)
        if who.seat is None:
            return
        here = self.shared.process
        async with self.held(presence):
            counts = presence.sockets.setdefault(who.seat, {})
            counts[here] = counts.get(here, 0) + 1
            if presence.away_since.pop(who.seat, None) is not None:
                await self._tell(code, {"type": "back", "seat": who.seat})

    async def leave(self, code: str, who: Seated) -> None:
        """A socket of `who` has closed: a person with no other socket, in any process still
        serving, is away from now on."""
        presence = self._tables.get(code)
        if presence is None or who.seat is None:
            return
        here = self.shared.process
        async with self.held(presence):
            counts = presence.sockets.get(who.seat, {})
            if counts.get(here, 1) > 1:
                counts[here] -= 1
            else:
                counts.pop(here, None)
            if (
                await self.sockets_at(presence, who.seat) == 0
                and presence.row.closed is None
                and self.still_holds(presence, who)
                and who.seat not in presence.away_since
            ):
                presence.away_since[who.seat] = self._clock()
                await self._tell(code, {"type": "away", "seat": who.seat})

    async def sockets_at(self, presence: Presence, seat: int) -> int:
        """The sockets open at `seat` in the processes serving now (a process that died holds
        none, once its heartbeat lapses); counts of the dead are forgotten."""
        counts = presence.sockets.get(seat, {})
        alive = await self.shared.alive(counts)
        for gone in set(counts) - alive:
            del counts[gone]
        return sum(counts.values())

    async def sweep(self) -> None:
        """A person whose sockets were all in a process that has died (its heartbeat lapsed)
        is away from now on, and the table is told (they reconnect to another process)."""
        here = self.shared.process
        for code, presence in tuple(self._tables.items()):
            if presence.row.closed is not None:
                continue
            elsewhere = {name for counts in presence.sockets.values() for name in counts} - {here}
            if not elsewhere or await self.shared.alive(elsewhere) >= elsewhere | {here}:
                continue
            async with self.held(presence):
                for seat in tuple(presence.sockets):
                    if await self.sockets_at(presence, seat) or seat in presence.away_since:
                        continue
                    holder = presence.row.seats[seat].holder
                    if holder is not None:
                        presence.away_since[seat] = self._clock()
                        await self._tell(code, {"type": "away", "seat": seat})
