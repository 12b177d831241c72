"""A live table as the processes that serve it share it (`Presences`).

A table's `Presence` is what a process holds of it: the `Table` itself (its row, and who has
flipped, the turn clock, who is away, the last reactions), the sockets at each seat, and the lock
that keeps its battles in order. Everything that changes it is done with the table locked
(`Presences.locked`), and so is everything that saves its row. A server of one process keeps it
in memory (`InProcessPresences`: locking is the table's asyncio lock, nothing more). A server with
a broker keeps it in Redis as well (`RedisPresences`): locking takes the table's Redis lock too,
reads what the last holder of the lock left, and writes it back as it lets go; a row another
process saved meanwhile is read again from the database.

What is told at a table is told with it locked (`Presence.told`), and goes out as it is let go,
after everything told before and before the next holder's: in memory, to the hub's listeners; in
Redis, published on the table's channel by the script that writes the presence back and lets go,
so that a flip costs two round trips to the broker (take, give back), not three. A table whose
sockets are all in one process has its lock kept there after each request (`LINGER_S`): its next
flip costs one round trip (write back and publish), until another process asks for the lock.
Each is numbered after everything told before it (`Presence.said`, kept with the presence), so
that a socket that listens before it is shown the table lets go what the table it was shown
holds already.

Sockets are counted by process, so that the sockets of a process that died (`kill -9`) stop
counting once its heartbeat lapses: a seat whose person had them alone is then away.

Decided here: a table's Redis lock is a short lease (`LEASE_S`), renewed every `RENEW_S` while
its holder works (a long run, a slow database), so that a process that dies holding it (`kill
-9`) stops the table for at most a few seconds, however long a request may hold it. A wait for
it is bounded (`WAIT_S`, longer than a lease: a dead holder alone never runs it out): beyond it,
the asker is told the table is busy (`TableBusy`, a try again), never that the broker is away.
Two holders at once (one whose renewal could not reach the broker for a whole lease) cannot
play a battle twice: the database refuses the second write of a round's battles (`RoundMoved`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from cardwar.web.errors import BrokerDown
from cardwar.web.live.errors import TableBusy
from cardwar.web.live.hub import Hub
from cardwar.web.live.table import Attendance, Table
from cardwar.web.live.wire import Said
from cardwar.web.store.live import TableRow

if TYPE_CHECKING:
    from cardwar.web.broker import Broker, RedisHub

Reload = Callable[[str], Awaitable[TableRow | None]]
"""Reads a table's row from the database again (by its code)."""

LEASE_S = 4.0
"""How long a table's Redis lock lasts unless its holder renews it: how long a process that dies
holding it (`kill -9`) stops the table."""
RENEW_S = 1.0
"""How often a holder renews its lease while it holds the table (a request of a few
milliseconds never does)."""
WAIT_S = 10.0
"""How long a process waits for a table another holds before it gives up (`TableBusy`): longer
than a lease, so that a holder that died never makes a table busy."""
ALIVE_S = 5.0
"""A process's heartbeat lasts this long: its sockets count while it is renewed."""
LINGER_S = 1.0
"""How long a process keeps a table's lock after its request, when the table's sockets are all
in this process: the next flip there costs one round trip to the broker, not two. Another
process that asks for the table (`hub.WANT`) has it given back at once."""
TRUSTED_S = LEASE_S / 2
"""How long after it was last renewed a kept lock is used without asking Redis: half a lease,
so that a lease that lapsed (a stalled process) is never taken for one still held."""
KEEP_S = 2 * 3600.0
"""A table's presence in Redis outlives its last change by this much (a table idle for an hour
is closed: `Settings.live_idle_s`)."""

# Take the lock and read the presence in one round trip, with the note of where the table's
# round stands, which is taken away: a holder that never gives the lock back (it died, or the
# broker went away) leaves no note, and the next holder reads the round from the database. A
# lock this process kept (`LINGER_S`) is taken again under the same token, renewed. A lock
# another holds is asked for (`hub.WANT`, on the table's channel): a process that kept it after its
# request gives it back at once.
_TAKE = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1, redis.call('GET', KEYS[2]), redis.call('GETDEL', KEYS[3])}
end
redis.call('PUBLISH', KEYS[4], 'want')
return {0, false, false}
"""
# Publish what was told while held (ARGV[5] on, on the table's channel: KEYS[4]), then write the
# presence (and the round's note, if any) back and let go, in one round trip, only if the lock is
# still ours. What was told is published whoever holds the lock now: it was committed (a holder
# whose lease lapsed told it as late as it was played).
_GIVE_BACK = """
for i = 5, #ARGV do
  redis.call('PUBLISH', KEYS[4], ARGV[i])
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  if ARGV[4] ~= '' then
    redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[3])
  end
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
"""

# Renew the lease, only if the lock is still ours.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# Publish what was told (ARGV[5] on, on the table's channel: KEYS[3]) and write the presence
# back, keeping the lock for this process's next request (`LINGER_S`), its lease renewed: one
# round trip. The round's note stays away while the lock is kept: a holder that dies keeping it
# leaves none, and the next holder reads the round from the database.
_KEEP = """
for i = 5, #ARGV do
  redis.call('PUBLISH', KEYS[3], ARGV[i])
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return 1
end
return 0
"""

# Give the lock back, leaving the presence as it was (a holder cancelled before it began).
_DROP = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


_GIVING: set[asyncio.Task[None]] = set()
"""Locks being given back once the broker is back, and leases being renewed (a task keeps only
a weak reference to itself)."""


def _retrieved(done: asyncio.Future[Any]) -> None:
    """A lock given back in the background: its failure is the broker's, logged there."""
    if not done.cancelled():
        done.exception()


def _in_background(work: Awaitable[None]) -> None:
    """Run `work` to its end whoever waits (a lock given back, a lease renewed)."""
    task = asyncio.ensure_future(work)
    _GIVING.add(task)
    task.add_done_callback(_GIVING.discard)
    task.add_done_callback(_retrieved)


@dataclass(slots=True)
class _Kept:
    """A table's lock this process kept after its last request (`LINGER_S`)."""

    token: str
    renewed: float
    """When its lease was last renewed (asked, by `time.monotonic`): trusted for TRUSTED_S."""
    presence: Presence
    release: asyncio.TimerHandle = field(init=False)
    """Gives it back, unless a request takes it again first."""


@dataclass(slots=True)
class Presence:
    """A table as this process holds it: the `Table`, the sockets at each seat (by process),
    and the lock that keeps its battles in order. Changed only while the table is locked
    (`Presences.locked`), which shares it between processes."""

    table: Table
    sockets: dict[int, dict[str, int]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    saved: str | None = None
    """Which save of its row this process read last (a new one each save): another process's
    save makes the row be read again."""
    round_at: tuple[str, tuple[int, int]] | None = None
    """The table's round and its battles and clock as the table's last holder left them in the
    database (None: not known): a process whose round in memory has them need not read it."""
    said: int = 0
    """How many messages have been told at the table, by every process (the number of the last:
    `Said.number`), as the last holder of its lock left it."""
    told: list[Said] = field(default_factory=list)
    """What has been told at the table while this process holds its lock: sent, in order, as
    it lets go (`Presences.locked`)."""

    @property
    def code(self) -> str:
        """The table's invite code."""
        return self.table.row.code


def process_name() -> str:
    """This process among every process of every machine serving the same database."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Presences(Protocol):
    """How a table's presence is kept by the processes serving it."""

    process: str
    """This process's name in a presence's socket counts."""

    def locked(self, presence: Presence, reload: Reload) -> Any:
        """An async context manager: the table locked by this process while the block runs, its
        presence (and row) as the last holder of the lock left them; what the block told
        (`Presence.told`) goes out as it lets go, even if the block failed (it was committed)."""

    async def look(self, presence: Presence, reload: Reload) -> None:
        """Bring `presence` (and its row) up to date without locking the table in every process
        (in this one, nothing changes it meanwhile)."""

    async def alive(self, processes: Iterable[str]) -> set[str]:
        """Which of `processes` are serving now."""

    async def beat(self) -> None:
        """Say that this process is serving (every tick)."""

    async def stop(self) -> None:
        """Let go of every table this process keeps, as the server stops."""


class InProcessPresences:
    """The presences of a server of one process: in memory, locked by each table's asyncio
    lock; what is told goes to the listeners of `hub`, in this process."""

    process = "here"

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    @asynccontextmanager
    async def locked(self, presence: Presence, reload: Reload) -> AsyncIterator[None]:
        async with presence.lock:
            try:
                yield
            finally:
                told, presence.told = presence.told, []
                for message in told:
                    await self.hub.publish(presence.code, message)

    async def look(self, presence: Presence, reload: Reload) -> None:
        """Nothing to look at: this process is the only one."""

    async def alive(self, processes: Iterable[str]) -> set[str]:
        return set(processes)

    async def beat(self) -> None:
        """Nobody to tell."""

    async def stop(self) -> None:
        """Nothing kept: a table's lock is its asyncio lock."""


class RedisPresences:
    """The presences of a server of several processes: in Redis, under a lock a table. A lock
    taken for a table whose sockets are all in this process is kept after the request
    (`LINGER_S`) and used again by the next, until another process asks for it (`hub.WANT`, heard
    through `hub`)."""

    def __init__(self, broker: Broker, hub: RedisHub | None = None) -> None:
        self.broker = broker
        self.process = process_name()
        self._take = broker.redis.register_script(_TAKE)
        self._give_back = broker.redis.register_script(_GIVE_BACK)
        self._keep = broker.redis.register_script(_KEEP)
        self._drop = broker.redis.register_script(_DROP)
        self._renew = broker.redis.register_script(_RENEW)
        self._hub = hub
        self._kept: dict[str, _Kept] = {}
        """The locks this process kept after a request, by table."""
        self._holding: set[str] = set()
        """The tables a request of this process holds now."""
        self._wanted: set[str] = set()
        """Of those, the ones another process asked for meanwhile: given back, not kept."""
        if hub is not None:
            hub.wanted = self.wanted

    def _keys(self, code: str) -> list[str]:
        keys = [self.broker.key(kind, code) for kind in ("lock", "live", "round")]
        return [*keys, self.broker.channel(code)]

    @asynccontextmanager
    async def locked(self, presence: Presence, reload: Reload) -> AsyncIterator[None]:
        code = presence.code
        keys = self._keys(code)
        async with presence.lock:  # one asker of this process at a time takes the Redis lock
            self._holding.add(code)
            self._wanted.discard(code)  # an older ask: one still waiting asks again
            try:
                kept = self._kept.pop(code, None)
                if kept is not None:
                    kept.release.cancel()
                if kept is not None and time.monotonic() - kept.renewed < TRUSTED_S:
                    # Held all along: what this process has is what Redis keeps.
                    token, lease = kept.token, _Lease(self.broker, self._renew, keys[0], kept.token)
                else:  # a kept lock whose lease may have lapsed is taken again, as any other
                    token = secrets.token_hex(8) if kept is None else kept.token
                    lease = await self._taken_anew(presence, keys, token, reload)
                try:
                    yield
                except BaseException:
                    lease.end()
                    # The block's own failure (or its cancellation) is the one that goes on: a
                    # broker gone meanwhile must not turn a cancelled task into one that carries on.
                    with contextlib.suppress(BrokerDown):
                        await asyncio.shield(self._let_go(keys, token, _written(presence)))
                    raise
                lease.end()
                if self._may_keep(presence):
                    going = self._keep_for_later(presence, keys, token, _written(presence))
                    await asyncio.shield(asyncio.ensure_future(going))
                else:
                    await asyncio.shield(self._let_go(keys, token, _written(presence)))
            finally:
                self._holding.discard(code)

    async def _taken_anew(
        self, presence: Presence, keys: list[str], token: str, reload: Reload
    ) -> _Lease:
        """Take the table's lock from Redis with its presence, and make `presence` what it
        keeps; the lease, renewed while the block runs."""
        # Taking and giving back run to their end even if the asker is cancelled (its socket
        # gone): a lock taken and never given back would stop the table for `LEASE_S`.
        taking = asyncio.ensure_future(self._taken(keys, token))
        try:
            kept, note = await asyncio.shield(taking)
        except asyncio.CancelledError:
            taking.add_done_callback(
                lambda done: (
                    done.cancelled()
                    or done.exception() is not None  # never taken: nothing to give back
                    or self._let_go(keys, token, None)
                )
            )
            raise
        lease = _Lease(self.broker, self._renew, keys[0], token)
        try:
            await _apply(presence, kept, reload)
        except BaseException:
            # Cancelled (its socket gone) or failed while it read the row: what this process
            # has is older than what Redis keeps, and is not written back over it (it was,
            # and a newer save's mark went with an older row: every process after was shown
            # the round before the one dealt, tests/web/test_live_fuzz.py over two processes).
            lease.end()
            with contextlib.suppress(BrokerDown):
                await asyncio.shield(self._let_go(keys, token, None))
            raise
        presence.round_at = _round_note(note)
        return lease

    def _may_keep(self, presence: Presence) -> bool:
        """Whether to keep the table's lock after this request: only while this process hears
        the other processes ask for it, and only for a table whose sockets are all here (a
        table with sockets elsewhere is asked for by every flip there)."""
        if self._hub is None or not self._hub.listening or presence.code in self._wanted:
            return False
        processes = {name for counts in presence.sockets.values() for name in counts}
        return processes == {self.process}

    async def _keep_for_later(
        self, presence: Presence, keys: list[str], token: str, state: Written
    ) -> None:
        """Publish what was told and write the presence back, keeping the lock for this
        process's next request, given back after LINGER_S unless one comes (at once if another
        process asked for it meanwhile). Runs to its end even if its asker is cancelled."""
        renewed = time.monotonic()
        args: list[str | int] = [token, state.kept, int(KEEP_S * 1000), int(LEASE_S * 1000)]
        args += state.told
        lock_live_channel = [keys[0], keys[1], keys[3]]
        try:
            ours = await self.broker.call(lambda: self._keep(keys=lock_live_channel, args=args))
        except BrokerDown:
            _in_background(self._give_later(keys, token, state._replace(told=())))
            raise
        if ours:  # else its lease lapsed (a stalled process): nothing left to give back
            wait = 0.0 if presence.code in self._wanted else LINGER_S
            kept = _Kept(token, renewed, presence)
            kept.release = asyncio.get_running_loop().call_later(wait, self._release, kept)
            self._kept[presence.code] = kept

    def wanted(self, code: str) -> None:
        """Another process asks for the table's lock: a lock kept is given back now, and one
        held by a request here is given back as it ends."""
        kept = self._kept.get(code)
        if kept is not None:
            kept.release.cancel()
            self._release(kept)
        elif code in self._holding:
            self._wanted.add(code)

    def _release(self, kept: _Kept) -> None:
        _in_background(self._released(kept))

    async def _released(self, kept: _Kept) -> None:
        """Give back a lock kept after a request, with the round's note (unless a request has
        taken it again meanwhile)."""
        presence = kept.presence
        async with presence.lock:
            if self._kept.get(presence.code) is not kept:
                return
            del self._kept[presence.code]
            with contextlib.suppress(BrokerDown):  # given back later (`_give_later`)
                await self._give(
                    self._keys(presence.code), kept.token, _written(presence), later=True
                )

    async def stop(self) -> None:
        """Give back every lock kept, as the server stops (or another process would wait for
        each until its lease lapsed)."""
        for kept in list(self._kept.values()):
            kept.release.cancel()
            await self._released(kept)

    async def _taken(self, keys: list[str], token: str) -> tuple[bytes | None, bytes | None]:
        """Take the table's lock, waiting while another process holds it; what it keeps, and
        the note of where its round stands (taken away with it)."""
        began, pause = time.monotonic(), 0.001
        while True:
            taken, kept, note = await self.broker.call(
                lambda: self._take(keys=keys, args=[token, int(LEASE_S * 1000)])
            )
            if taken:
                return cast("bytes | None", kept), cast("bytes | None", note)
            if time.monotonic() - began > WAIT_S:
                raise TableBusy("This table is busy elsewhere just now: try again in a moment.")
            await asyncio.sleep(pause)  # another process holds the table: a moment
            pause = min(pause * 2, 0.02)

    def _let_go(self, keys: list[str], token: str, state: Written | None) -> asyncio.Future[Any]:
        """Publish what was told, write `state` back (the presence and the round's note; None:
        leave them, and nothing was told) and give the lock back, if it is still ours.
        If the broker is out of reach, BrokerDown, and the lock is given back in the background
        once it answers, until the lease would have lapsed anyway (`_give_later`); what was
        told is not published then, late (as a publish that failed was not: each message
        carries the round as it stands, and a page that rejoins is shown the whole table)."""
        going = asyncio.ensure_future(self._give(keys, token, state, later=True))
        going.add_done_callback(_retrieved)
        return going

    async def _give(self, keys: list[str], token: str, state: Written | None, later: bool) -> None:
        try:
            if state is None:
                await self.broker.call(lambda: self._drop(keys=keys[:1], args=[token]))
            else:
                args: list[str | bytes | int] = [token, state.kept, int(KEEP_S * 1000)]
                args += [state.note, *state.told]
                await self.broker.call(lambda: self._give_back(keys=keys, args=args))
        except BrokerDown:
            if later:
                untold = None if state is None else state._replace(told=())
                _in_background(self._give_later(keys, token, untold))
            raise

    async def _give_later(self, keys: list[str], token: str, state: Written | None) -> None:
        """Give back a lock whose giving back found the broker out of reach, once it answers
        again: a table is not held up for the rest of the lease by a broker that came back
        sooner. Ends when given back, or once the lease has lapsed."""
        ends, pause = time.monotonic() + LEASE_S, 0.1
        while time.monotonic() + pause < ends:
            await asyncio.sleep(pause)  # the broker's way back is not an event this can await
            pause = min(pause * 2, 2.0)
            with contextlib.suppress(BrokerDown):
                await self._give(keys, token, state, later=False)
                return

    async def look(self, presence: Presence, reload: Reload) -> None:
        # With the table's asyncio lock (not its Redis lock) while it looks: a request of this
        # process that locked the table during the look's read of the row would have what it
        # read, newer, overwritten by the look's older row, and then written back to Redis under
        # the newer save's mark (`Presence.saved`), so that no process read that row again: a
        # watcher that joined through it was shown the round before the one dealt, and never
        # told of the deal (tests/web/test_live_fuzz.py over two processes). A look that finds
        # the lock taken waits its turn, then reads: never what this process had before (a
        # guest seated through another process was shown as a watcher, benchmarks/scale.py).
        async with presence.lock:
            held = self._kept.get(presence.code)
            if held is not None and time.monotonic() - held.renewed < TRUSTED_S:
                return  # held all along: what this process has is what Redis keeps
            key = self.broker.key("live", presence.code)
            kept = await self.broker.call(lambda: self.broker.redis.get(key))
            await _apply(presence, kept, reload)

    async def alive(self, processes: Iterable[str]) -> set[str]:
        named = [name for name in processes if name != self.process]
        if not named:
            return {self.process}
        keys = [self.broker.key("alive", name) for name in named]
        beats = await self.broker.call(lambda: self.broker.redis.mget(keys))
        return {self.process} | {
            name for name, beat in zip(named, beats, strict=True) if beat is not None
        }

    async def beat(self) -> None:
        key = self.broker.key("alive", self.process)
        await self.broker.call(lambda: self.broker.redis.set(key, b"1", px=int(ALIVE_S * 1000)))


class _Lease:
    """A table's lease in Redis, renewed every RENEW_S while its holder holds it (`end`: no
    more): a process that dies stops renewing, and the lock lapses within LEASE_S."""

    def __init__(self, broker: Broker, renew: Any, key: str, token: str) -> None:
        self._broker, self._script, self._key, self._token = broker, renew, key, token
        self._ended = False
        self._due = asyncio.get_running_loop().call_later(RENEW_S, self._renew)

    def _renew(self) -> None:
        _in_background(self._renewed())

    async def _renewed(self) -> None:
        """Renew the lease once, and again in RENEW_S while it is held and still ours (a broker
        out of reach now: tried again then, the lease lasting meanwhile)."""
        kept = 1
        with contextlib.suppress(BrokerDown):
            kept = await self._broker.call(
                lambda: self._script(keys=[self._key], args=[self._token, int(LEASE_S * 1000)])
            )
        if kept and not self._ended:
            self._due = asyncio.get_running_loop().call_later(RENEW_S, self._renew)

    def end(self) -> None:
        """The holder lets go: renew no more (a renewal under way finds the lock given back,
        or renews a lock given back a moment later)."""
        self._ended = True
        self._due.cancel()


class Written(NamedTuple):
    """What a holder of a table gives back to Redis as it lets go."""

    kept: str
    """The presence, as JSON."""
    note: bytes
    """The note of where the table's round stands (empty: none)."""
    told: tuple[str, ...]
    """What was told while held, each message as the hub publishes it."""


def _written(presence: Presence) -> Written:
    """What a holder writes back (what was told is taken out of the presence)."""
    at = presence.round_at
    note = b"" if at is None else json.dumps([at[0], *at[1]]).encode()
    told, presence.told = presence.told, []
    return Written(
        json.dumps(_state(presence), separators=(",", ":")), note, tuple(m.carried for m in told)
    )


def _round_note(note: bytes | None) -> tuple[str, tuple[int, int]] | None:
    """Where the table's round stands, from its note in Redis (None: no note)."""
    if note is None:
        return None
    round_id, battles, time_up = json.loads(note)
    return round_id, (battles, time_up)


def _state(presence: Presence) -> dict[str, Any]:
    """What a presence keeps in Redis (seats as the strings JSON makes of them)."""
    table = presence.table
    return {
        "saved": presence.saved,
        "said": presence.said,
        "sockets": {str(seat): counts for seat, counts in presence.sockets.items() if counts},
        "away": {str(seat): since for seat, since in table.here.away_since.items()},
        "flipped": sorted(table.flipped),
        "deadline": table.deadline,
        "reacted": {str(seat): when for seat, when in table.here.reacted.items()},
        "asked": sorted(table.asked),
    }


async def _apply(presence: Presence, kept: bytes | str | None, reload: Reload) -> None:
    """Make `presence` what Redis keeps of it (`kept`, JSON, or None if nothing yet), reading
    its row again if another process saved it since this one last read it."""
    state = json.loads(kept) if kept is not None else None
    saved = None if state is None else state["saved"]
    if state is None or saved != presence.saved:
        row = await reload(presence.code)
        if row is not None:
            presence.table = replace(presence.table, row=row)
        presence.saved = saved
    if state is None:
        return  # nothing kept yet (a table no process has held, or one idle for hours)
    presence.said = state.get("said", 0)  # none: kept by a cardwar before messages were numbered
    presence.sockets = {int(seat): counts for seat, counts in state["sockets"].items()}
    presence.table = replace(
        presence.table,
        here=Attendance(
            away_since={int(seat): since for seat, since in state["away"].items()},
            reacted={int(seat): when for seat, when in state["reacted"].items()},
        ),
        flipped=frozenset(state["flipped"]),
        deadline=state["deadline"],
        asked=frozenset(state.get("asked", ())),
    )
