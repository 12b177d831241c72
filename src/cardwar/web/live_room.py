"""A live table's room: the table's row and who is at it (`Presence`), how a socket is
seated, the whole table as a device is shown it, and the inside of playing, saving and telling.
What a socket may ask of a table is `live.py`'s `LiveTables`, over this `Room`."""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, replace
from typing import Any

from fastapi.concurrency import run_in_threadpool

from cardwar.web.errors import TableClosed, TableNotFound
from cardwar.web.hub import Hub, Message
from cardwar.web.live_shared import HereOnly, Presence, Shared
from cardwar.web.matches import Matches
from cardwar.web.rounds import Rounds
from cardwar.web.seats import SEATS, Seat
from cardwar.web.settings import Settings
from cardwar.web.store import Store
from cardwar.web.store.live import TableRow

HOST = 0
"""The host's seat."""
SHOWN_BATTLES = 10
"""The most battle records one message carries; a longer run sends its last ones."""
TOUCH_EVERY_S = 60.0
"""A table's battles touch its row (for the idle clock, `Settings.live_idle_s`) at most this
often: a write of its row after every battle cost a commit and a thread's hop of its own."""


@dataclass(frozen=True, slots=True)
class Seated:
    """Who a socket is: the seat it holds (None for a watcher) and whether it is the host."""

    seat: int | None
    host: bool = False
    player: str | None = None
    """The browser behind the socket: a seat it gave up is no longer its seat."""


class Room:
    """The live tables of this process: rows in the store, presence held through `shared` (in
    memory, or in the broker's Redis), talk in the hub."""

    def __init__(
        self,
        store: Store,
        rounds: Rounds,
        matches: Matches,
        hub: Hub,
        settings: Settings,
        shared: Shared | None = None,
    ) -> None:
        self.store, self.rounds, self.matches, self.hub = store, rounds, matches, hub
        self.settings = settings
        self.shared: Shared = shared if shared is not None else HereOnly(hub)
        self._clock = settings.clock
        self._tables: dict[str, Presence] = {}
        self.sockets = 0
        """Live sockets open on this process (`Settings.live_sockets` bounds them), counted by
        the socket's route as it is let in."""
        self.sockets_from: Counter[str] = Counter()
        """The same, by network address (`Settings.live_sockets_per_address` bounds each); an
        address with none is not kept."""
        self._here: dict[str, Counter[int]] = {}
        """This process's own sockets at each table, by seat: what it writes into the
        presence every process reads, each time it holds the table (`Doors.held`)."""
        self.unsettled: dict[str, set[int]] = {}
        """The seats of each table whose socket closed here while the broker was out of reach:
        the sweep tells the table who is away once it is back (`Doors.sweep`)."""
        self._idle_looked = float("-inf")  # when the store was last asked for idle tables
        self._swept = float("-inf")  # when the sockets of processes that died were looked for

    async def table(self, code: str, *, look: bool = False) -> Presence:
        """The open table with this invite code (with `look`, as the other processes left it);
        TableNotFound or TableClosed if none."""
        presence = self._tables.get(code)
        if presence is None:
            row = await self._reload(code)
            if row is None:
                raise TableNotFound(
                    "There is no live table with this code: check the link, or ask for a new one."
                )
            presence = self._tables.setdefault(code, Presence(row))
        elif look:
            await self.shared.look(presence, self._reload)
        if presence.row.closed is not None:
            raise TableClosed(f"This table has closed ({_closed_words(presence.row.closed)}).")
        return presence

    @asynccontextmanager
    async def held(self, presence: Presence) -> AsyncIterator[Presence]:
        """The table held by this request while the block runs (its battles, seats and
        presence change only so), as the last holder, in any process, left it."""
        async with self.shared.held(presence, self._reload):
            self._seated_since(presence)
            yield presence

    async def _reload(self, code: str) -> TableRow | None:
        return await run_in_threadpool(self.store.get_table, code)

    async def code_of_watch(self, watch: str) -> str:
        """The invite code of the table this watch code follows; TableNotFound if none."""
        code = await run_in_threadpool(self.store.table_code_of_watch, watch)
        if code is None:
            raise TableNotFound(
                "There is no live table to watch with this link: check it, or ask for a new one."
            )
        return code

    def seat_of(self, presence: Presence, player: str) -> Seated:
        """The seat the browser `player` holds at this table (a watcher if none)."""
        for index, seat in enumerate(presence.row.seats):
            if seat.holder == player:
                return Seated(index, host=index == HOST, player=player)
        return Seated(None)

    @staticmethod
    def still_holds(presence: Presence, who: Seated) -> bool:
        """True while `who` holds its seat (a person who left it, in another tab, no more)."""
        if who.seat is None:
            return False
        return who.player is None or presence.row.seats[who.seat].holder == who.player

    async def close(self, code: str, reason: str) -> None:
        """Close the table (the host asked, or it was idle): its sockets are told."""
        presence = self._tables.get(code)
        if presence is None or presence.row.closed is not None:
            return
        async with self.held(presence):
            if presence.row.closed is not None:
                return  # closed while this waited (the host, and the idle clock, at once)
            await self._save(presence, replace(presence.row, closed=reason))
            self._tell(presence, {"type": "closed", "reason": reason})
        self._tables.pop(code, None)

    async def state(self, code: str, event: str | None = None, *, held: bool = False) -> Message:
        """The whole table, in a `table` message: what a device shows when it (re)joins (`held`
        when the asker holds the table, and its presence is the newest there is)."""
        presence = await self.table(code, look=not held)
        row = presence.row
        self._seated_since(presence)
        shown, last = await run_in_threadpool(self._round_and_last, row.round_id)
        match = None
        if row.match_id is not None:
            match = await run_in_threadpool(self.matches.get, row.match_id)
            match = _without_ids(match)
        left = None
        if presence.deadline is not None:
            left = round(max(0.0, presence.deadline - self._clock()), 1)
        return {
            "type": "table",
            "event": event,
            "watch": row.watch,
            "rules": row.rules,
            "best_of": row.best_of,
            "clock_s": row.clock_s,
            "seats": [
                {
                    "kind": seat.kind,
                    "name": seat.name,
                    "taken": seat.holder is not None,
                    "away": index in presence.away_since,
                }
                for index, seat in enumerate(row.seats)
            ],
            "round": _public_round(shown),
            "last_battle": last,
            "match": match,
            "flipped": sorted(presence.flipped),
            "waiting": self._waiting(presence, shown) if shown["outcome"] is None else [],
            "clock_left_s": left,
            "tally": await self._tally(row.code),
            "give_after_s": self.settings.live_give_after_s,
        }

    def _round_and_last(self, round_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        shown = self.rounds.get(round_id)  # which holds the round in memory
        assert shown is not None
        live = self.rounds.held.get(round_id)
        last = None if live is None or live.round.last_battle is None else live.round.last_battle
        return shown, None if last is None else last.to_dict()

    async def _round(self, presence: Presence) -> dict[str, Any]:
        """The table's round as it stands. Call it holding the table. A round in memory as the
        table's last holder left it (`Presence.round_at`) is not read from the database again:
        only a holder of the table plays its round."""
        round_id = presence.row.round_id
        known = None
        if presence.round_at is not None and presence.round_at[0] == round_id:
            known = presence.round_at[1]
        # A look at a round in memory takes microseconds: here, as a click is played, unless
        # another request holds the round (then in a thread, waiting for it).
        shown = self.rounds.get(round_id, wait=False, known=known)
        if shown is None:
            shown = await run_in_threadpool(self.rounds.get, round_id)
        assert shown is not None
        self._note_round(presence)
        return shown

    def _seated_since(self, presence: Presence) -> None:
        """Let go of the table's round in memory if its seats are not the table's: another
        process has seated someone since it was read (their battles and clock unchanged, so
        nothing else would say so), and it is read again, seats and all. As the table is taken
        (`held`), or shown (`state`): the table's row is the newest there is then."""
        live = self.rounds.held.get(presence.row.round_id)
        if live is not None and live.seats != presence.row.round_seats():
            self.rounds.held.forget(presence.row.round_id)

    def _note_round(self, presence: Presence) -> None:
        """Keep in the presence where the table's round stands in the database now, as this
        process (which holds the table) last read or wrote it."""
        live = self.rounds.held.get(presence.row.round_id)
        presence.round_at = None if live is None else (presence.row.round_id, live.stored)

    def _waiting(self, presence: Presence, round_: dict[str, Any]) -> list[int]:
        """The people's seats still in that have not flipped for the next battle."""
        return [
            index
            for index, seat in enumerate(presence.row.seats)
            if seat.kind == "person"
            and round_["counts"][index] > 0
            and index not in presence.flipped
        ]

    async def _play(
        self, presence: Presence, count: int | None, *, by: str, late: Sequence[int] = ()
    ) -> None:
        """Play (holding the table's lock), commit, then tell every socket: `count` battles, or
        to the round's end with None."""
        row = presence.row
        battles: list[dict[str, Any]] = []
        played = 0
        while True:
            asked = 2000 if count is None else count - played
            result = None
            if asked <= self.settings.inline_battles:  # a flip's battle: played as a click is
                result = self.rounds.play(row.round_id, asked, wait=False, at_table=row.code)
            if result is None:
                result = await run_in_threadpool(
                    self.rounds.play, row.round_id, asked, at_table=row.code
                )
            assert result is not None
            shown, records = result
            self._note_round(presence)
            played += len(records)
            battles = (battles + [battle.to_dict() for battle in records])[-SHOWN_BATTLES:]
            if shown["outcome"] is not None or count is not None or not records:
                break
        presence.flipped.clear()
        presence.deadline = None
        if self._clock() - row.touched_at >= TOUCH_EVERY_S:
            await self._save(presence, row)
        message: Message = {
            "type": "played",
            "by": by,
            "late": list(late),
            "played": played,
            "battles": battles,
            "round": _public_round(shown),
        }
        if shown["outcome"] is not None:
            message["tally"] = await self._tally(row.code)
            if row.match_id is not None:
                match = await run_in_threadpool(self.matches.get, row.match_id)
                message["match"] = _without_ids(match)
        self._tell(presence, message)

    async def _tally(self, code: str) -> list[dict[str, Any]]:
        """Each person's rounds at the table, by name: `[{"name", "won", "lost", "drawn"}]`."""
        scores = await run_in_threadpool(self.store.table_tally, code)
        return [asdict(score) for score in scores]

    async def _save(self, presence: Presence, row: TableRow) -> None:
        row = replace(row, touched_at=self._clock())
        await run_in_threadpool(self.store.save_table, row)
        presence.row = row
        presence.saved = secrets.token_hex(4)  # the other processes read the row again

    async def _reseat(self, row: TableRow) -> None:
        await run_in_threadpool(self.rounds.reseat, row.round_id, row.round_seats())

    @staticmethod
    def _tell(presence: Presence, message: Message) -> None:
        """Tell every socket of the table `message`, as this holder lets the table go (after
        what was told before it): call it holding the table."""
        assert presence.lock.locked(), "told without holding the table"
        presence.told.append(message)


def four_seats(seats: Sequence[Seat]) -> tuple[Seat, ...]:
    """A table's seats padded to the four a choice of seats lists (the rest computers)."""
    return tuple(seats[:SEATS]) + tuple(Seat("computer") for _ in range(SEATS - len(seats)))


def _public_round(shown: dict[str, Any]) -> dict[str, Any]:
    """The round as every device (a watcher's too) may see it: without its id, which would
    let anyone who hears it look its battles up, nor its match's."""
    return {key: value for key, value in shown.items() if key not in ("id", "match_id")}


def _without_ids(match: dict[str, Any]) -> dict[str, Any]:
    """A match as every device may see it: its rounds' winners, not their ids."""
    rounds = [{"winner": r["winner"], "over": r["over"]} for r in match["rounds"]]
    return {**{k: v for k, v in match.items() if k != "id"}, "rounds": rounds}


def _closed_words(reason: str) -> str:
    return {"host": "its host closed it", "idle": "nobody played for an hour"}.get(reason, reason)
