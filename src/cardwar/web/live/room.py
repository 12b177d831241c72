"""The live tables this process has in hand (`Room`): each found by its code, locked while a
request changes it, saved, and what happened at it told.

Every change of a table goes through here in the same order: lock it (`locked`: in any process,
one request at a time, the table as the last holder of its lock left it), apply one method of
the `Table`, save what changed (`save`: the row in the store first, then the presence), and tell
what happened (`tell`: sent as the lock is let go, after everything told before)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace

from fastapi.concurrency import run_in_threadpool

from cardwar.web.live.errors import TableNotFound
from cardwar.web.live.presence import Presence, Presences
from cardwar.web.live.table import Table
from cardwar.web.live.wire import Out, write
from cardwar.web.settings import Settings
from cardwar.web.store import Store
from cardwar.web.store.live import TableRow

TOUCH_EVERY_S = 60.0
"""A table's battles touch its row (for the idle clock, `Settings.live_idle_s`) at most this
often: a write of its row after every battle cost a commit and a thread's hop of its own."""


class Room:
    """This process's live tables: their presence kept through `presences` (in memory, or in
    the broker's Redis), their rows in `store`."""

    def __init__(self, store: Store, settings: Settings, presences: Presences) -> None:
        self.store = store
        self.presences = presences
        self.clock = settings.clock
        self.tables: dict[str, Presence] = {}
        """The tables this process has looked at, by code (a closed one is let go)."""
        self.on_lock: list[Callable[[Presence], None]] = []
        """What runs each time a table is locked, with the newest presence there is."""

    async def find(self, code: str, *, look: bool = False) -> Presence:
        """The table with this invite code (with `look`, as the other processes left it; a
        closed one too: `Table.open` says so); TableNotFound if none."""
        presence = self.tables.get(code)
        if presence is None:
            row = await self.reload(code)
            if row is None:
                raise TableNotFound(
                    "There is no live table with this code: check the link, or ask for a new one."
                )
            presence = self.tables.setdefault(code, Presence(Table(row)))
        elif look:
            await self.presences.look(presence, self.reload)
        return presence

    async def open_table(self, code: str, *, look: bool = False) -> Presence:
        """The open table with this code; TableNotFound or TableClosed if none."""
        presence = await self.find(code, look=look)
        presence.table.open()
        return presence

    @asynccontextmanager
    async def locked(self, presence: Presence) -> AsyncIterator[Presence]:
        """The table locked by this request while the block runs (its battles, seats and
        presence change only so), as the last holder of its lock, in any process, left it."""
        async with self.presences.locked(presence, self.reload):
            for hook in self.on_lock:
                hook(presence)
            yield presence

    async def reload(self, code: str) -> TableRow | None:
        """The table's row, read from the store again."""
        return await run_in_threadpool(self.store.live.get_table, code)

    async def code_of_watch(self, watch: str) -> str:
        """The invite code of the table this watch code follows; TableNotFound if none."""
        code = await run_in_threadpool(self.store.live.table_code_of_watch, watch)
        if code is None:
            raise TableNotFound(
                "There is no live table to watch with this link: check it, or ask for a new one."
            )
        return code

    async def save(self, presence: Presence, table: Table, *, touch: bool = False) -> None:
        """Make `table` the table's: its row stored first when it changed (or, with `touch`,
        when its last touch is older than `TOUCH_EVERY_S`). Call it with the table locked."""
        assert presence.lock.locked(), "saved without locking the table"
        row = table.row
        stale = touch and self.clock() - row.touched_at >= TOUCH_EVERY_S
        if row != presence.table.row or stale:
            row = replace(row, touched_at=self.clock())
            await run_in_threadpool(self.store.live.save_table, row)
            table = replace(table, row=row)
            presence.saved = secrets.token_hex(4)  # the other processes read the row again
        presence.table = table

    @staticmethod
    def tell(presence: Presence, *messages: Out) -> None:
        """Tell every socket of the table `messages`, as this request lets the table go (after
        what was told before them), each numbered after them (`Presence.said`). Call it with the
        table locked."""
        assert presence.lock.locked(), "told without locking the table"
        for message in messages:
            presence.said += 1
            presence.told.append(write(message)._replace(number=presence.said))
