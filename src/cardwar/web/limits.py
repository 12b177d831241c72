"""How much may be asked of the server at once: token buckets for writes and newcomers, one long
run of battles and one of statistics a browser, and the line for chance estimates; each refusal a
RateLimited (429). In this process's memory; with a broker, in its Redis, for every process of
the server at once (`limits_shared.py`)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

from cardwar.web.errors import RateLimited, busy, estimates_busy, one_each
from cardwar.web.settings import Settings

if TYPE_CHECKING:
    from cardwar.web.broker import Broker


class Buckets:
    """Token buckets by key: `per_second` tokens come back each second, up to `burst`. Only the
    most recently used keys are kept: a forgotten key starts again with a full bucket."""

    def __init__(
        self, per_second: float, burst: int, clock: Callable[[], float], keys: int = 100_000
    ) -> None:
        self._rate, self._burst, self._clock, self._keys = per_second, burst, clock, keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait(self, key: str) -> float:
        """0.0 if `key` may go on now; else the seconds until it may (nothing is taken)."""
        tokens, _ = self._refill(key)
        return 0.0 if tokens >= 1 else (1 - tokens) / self._rate

    def take(self, key: str) -> None:
        """Use one token of `key`'s bucket (after `wait` said it may)."""
        tokens, now = self._refill(key)
        self._buckets[key] = (tokens - 1, now)
        self._buckets.move_to_end(key)
        while len(self._buckets) > self._keys:
            self._buckets.popitem(last=False)

    def _refill(self, key: str) -> tuple[float, float]:
        now = self._clock()
        tokens, then = self._buckets.get(key, (float(self._burst), now))
        return min(self._burst, tokens + (now - then) * self._rate), now


def admit(what: str, *checks: tuple[Buckets, str]) -> None:
    """Take a token from each (buckets, key) pair, or none at all and raise RateLimited."""
    waits = [buckets.wait(key) for buckets, key in checks]
    if max(waits) > 0:
        raise RateLimited(what, max(waits))
    for buckets, key in checks:
        buckets.take(key)


class Gate(Protocol):
    """Where the token buckets are kept: here (`Here`), or in the broker's Redis."""

    async def admit(self, what: str, *checks: tuple[str, str]) -> None:
        """Take a token from each (bucket kind, key), or none at all and raise RateLimited."""


class Here:
    """The buckets of one process, in its memory, by kind: (tokens a second, burst) each."""

    def __init__(self, kinds: dict[str, tuple[float, int]], clock: Callable[[], float]) -> None:
        self._buckets = {kind: Buckets(rate, burst, clock) for kind, (rate, burst) in kinds.items()}

    async def admit(self, what: str, *checks: tuple[str, str]) -> None:
        admit(what, *((self._buckets[kind], key) for kind, key in checks))


class Lines(Protocol):
    """Long requests of one kind under way at once, one a browser (`LongRuns`)."""

    async def enter(self, who: str) -> None:
        """Count a long run in for `who`, or raise RateLimited."""

    async def leave(self, who: str) -> None:
        """Count `who`'s long run out."""


class LongRuns:
    """Long requests of one kind (`what`: many battles, or statistics) under way at once: at
    most `most`, one a browser."""

    def __init__(self, most: int, what: str) -> None:
        self._most, self._what = most, what
        self._who: set[str] = set()

    async def enter(self, who: str) -> None:
        """Count a long run in for `who`, or raise RateLimited."""
        if who in self._who:
            raise one_each(self._what)
        if len(self._who) >= self._most:
            raise busy(self._what)
        self._who.add(who)

    async def leave(self, who: str) -> None:
        """Count `who`'s long run out."""
        self._who.discard(who)


class Turns(Protocol):
    """The line for chance estimates (`Estimates`)."""

    def turn(self) -> Any:
        """An async context manager: a turn to compute an estimate while the block runs, after
        waiting in line; RateLimited at once if the line is full."""


class Estimates:
    """Chance estimates (a few milliseconds of numba each, in a thread): `at_once` computed at a
    time, `waiting` more in line, and any beyond that turned away at once.

    Every thread computing an estimate competes for the processor with the event loop that
    answers clicks, and the page asks for one after every battle it shows: unchecked, many
    players clicking fast left the clicks waiting (measured with `benchmarks/load.py`:
    benchmarks/README.md, "Measurements behind the code"). An estimate turned away costs its
    player nothing but the meter for that battle.
    """

    def __init__(self, at_once: int, waiting: int) -> None:
        self._slots = asyncio.Semaphore(at_once)
        self._most = at_once + waiting
        self._in = 0

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for a turn to compute an estimate, or raise RateLimited if the line is full."""
        if self._in >= self._most:
            raise estimates_busy()
        self._in += 1
        try:
            async with self._slots:
                yield
        finally:
            self._in -= 1


class Limits:
    """Every rate limit of the server, sized by its settings: in this process, or with a
    `broker` in its Redis, for the whole server."""

    def __init__(self, settings: Settings, broker: Broker | None = None) -> None:
        per_minute, burst = settings.writes_per_minute, settings.writes_burst
        by_address, all_of_them = settings.address_writes_times, settings.server_writes_times
        kinds = {
            "writes": (per_minute / 60, burst),
            "address": (by_address * per_minute / 60, by_address * burst),
            "server": (all_of_them * per_minute / 60, all_of_them * burst),
            "newcomers": (settings.new_players_per_minute / 60, settings.new_players_burst),
        }
        at_once, waiting = settings.estimates_at_once, settings.estimates_waiting
        # Two lines, so that statistics a page asked for by itself (the House rules panel's
        # draw estimate) never turn away the battles its player asked for.
        self.gate: Gate
        self.long_runs: Lines
        self.statistics: Lines
        self.estimates: Turns
        if broker is None:
            self.gate = Here(kinds, settings.clock)
            self.long_runs = LongRuns(settings.long_runs, "battles")
            self.statistics = LongRuns(settings.statistics_runs, "statistics")
            self.estimates = Estimates(at_once, waiting)
        else:
            from cardwar.web.limits_shared import SharedEstimates, SharedGate, SharedLongRuns

            self.gate = SharedGate(broker, kinds, settings.clock)
            self.long_runs = SharedLongRuns(broker, settings.long_runs, "battles")
            self.statistics = SharedLongRuns(broker, settings.statistics_runs, "statistics")
            self.estimates = SharedEstimates(broker, at_once, waiting)

    async def write(self, what: str, player: str, address: str) -> None:
        """A write counts against its browser, its network address and the whole server."""
        await self.gate.admit(what, ("writes", player), ("address", address), ("server", "*"))

    async def newcomer(self, address: str) -> None:
        """A new player id counts against its network address, so that one client cannot keep
        out everyone else's."""
        await self.gate.admit("newcomers", ("newcomers", address))
