"""How much may be asked of the server at once: token buckets for writes and newcomers, one long
run of battles and one of statistics a browser, and the line for chance estimates; each refusal a
RateLimited (429)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from cardwar.web.errors import RateLimited
from cardwar.web.settings import Settings


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


class LongRuns:
    """Long requests of one kind (`what`: many battles, or statistics) under way at once: at
    most `most`, one a browser."""

    def __init__(self, most: int, what: str) -> None:
        self._most, self._what = most, what
        self._who: set[str] = set()

    def enter(self, who: str) -> None:
        """Count a long run in for `who`, or raise RateLimited."""
        if who in self._who:
            raise RateLimited(f"{self._what}: one long run at a time for each browser", 1)
        if len(self._who) >= self._most:
            raise RateLimited(f"{self._what}: the server is busy with other long runs", 2)
        self._who.add(who)

    def leave(self, who: str) -> None:
        """Count `who`'s long run out."""
        self._who.discard(who)


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
            raise RateLimited("chance: the server is busy with other players' estimates", 1)
        self._in += 1
        try:
            async with self._slots:
                yield
        finally:
            self._in -= 1


class Limits:
    """Every rate limit of the server, sized by its settings."""

    def __init__(self, settings: Settings) -> None:
        per_minute, burst, clock = settings.writes_per_minute, settings.writes_burst, settings.clock
        by_address, all_of_them = settings.address_writes_times, settings.server_writes_times
        self._writes = Buckets(per_minute / 60, burst, clock)
        self._by_address = Buckets(by_address * per_minute / 60, by_address * burst, clock)
        self._all_writes = Buckets(all_of_them * per_minute / 60, all_of_them * burst, clock)
        self._newcomers = Buckets(
            settings.new_players_per_minute / 60, settings.new_players_burst, clock
        )
        # Two lines, so that statistics a page asked for by itself (the House rules panel's
        # draw estimate) never turn away the battles its player asked for.
        self.long_runs = LongRuns(settings.long_runs, "battles")
        self.statistics = LongRuns(settings.statistics_runs, "statistics")
        self.estimates = Estimates(settings.estimates_at_once, settings.estimates_waiting)

    def write(self, what: str, player: str, address: str) -> None:
        """A write counts against its browser, its network address and the whole server."""
        admit(what, (self._writes, player), (self._by_address, address), (self._all_writes, "*"))

    def newcomer(self, address: str) -> None:
        """A new player id counts against its network address, so that one client cannot keep
        out everyone else's."""
        admit("newcomers", (self._newcomers, address))
