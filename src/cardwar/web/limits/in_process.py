"""The rate limits of one process, in its memory: token buckets for writes and newcomers
(`InProcessGate`), the long runs under way (`InProcessLongRuns`) and the line for chance
estimates (`InProcessEstimates`); each refusal a RateLimited (429). `in_redis.py` keeps the same
for a server of several processes."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from cardwar.web.errors import RateLimited, busy, estimates_busy, one_each


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


class InProcessGate:
    """The buckets of one process, in its memory, by kind: (tokens a second, burst) each."""

    def __init__(self, kinds: dict[str, tuple[float, int]], clock: Callable[[], float]) -> None:
        self._buckets = {kind: Buckets(rate, burst, clock) for kind, (rate, burst) in kinds.items()}

    async def admit(self, what: str, *checks: tuple[str, str]) -> None:
        admit(what, *((self._buckets[kind], key) for kind, key in checks))


class InProcessLongRuns:
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


class InProcessEstimates:
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
