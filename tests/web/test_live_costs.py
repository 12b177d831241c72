"""What a flip costs a table this process has in hand (docs/architecture.md): no read of the
database (the battle it plays is one write), and one round trip to the broker: the table's
sockets all being in this process, its lock is kept after each flip (`LINGER_S`), and the next
flip only writes the presence back with what was told."""

from __future__ import annotations

import collections
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from cardwar.web.broker import Broker
from cardwar.web.store.database import Database

from devices import ann_and_mia, served, until
from helpers import ClientFactory

__all__ = ["served"]  # a fixture, used by name
FLIPS = 20


def test_a_flip_reads_nothing_from_the_database(
    served: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twenty battles of two flips each, the round in memory: no SELECT, one UPDATE a battle,
    and at most one broker round trip a flip (none on one process)."""
    counts: collections.Counter[str] = collections.Counter()
    execute, call = Database.execute, Broker.call

    def counted(self: Database, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        counts[sql.split()[0].upper()] += 1
        return execute(self, sql, parameters)

    async def called(self: Broker, command: Callable[[], Awaitable[Any]]) -> Any:
        counts["broker"] += 1
        return await call(self, command)

    client = served(live_tick_s=3600, live_messages_per_s=1000)
    with ann_and_mia(client) as (_, ann, b):
        for _ in range(2):  # the first battle reads the round into memory
            ann.send_json({"type": "flip"})
            until(b, "flipped")
            b.send_json({"type": "flip"})
            until(ann, "played")
            until(b, "played")
        monkeypatch.setattr(Database, "execute", counted)
        monkeypatch.setattr(Broker, "call", called)
        for _ in range(FLIPS):
            ann.send_json({"type": "flip"})
            until(b, "flipped")
            b.send_json({"type": "flip"})
            until(ann, "played")
            until(b, "played")
        cost = dict(counts)  # before the sockets close (each closing costs its own)
    assert cost.get("SELECT", 0) == 0
    assert cost.get("UPDATE") == FLIPS  # the battle, committed before anyone is told
    assert cost.get("broker", 0) <= 2 * FLIPS  # two flips a battle
