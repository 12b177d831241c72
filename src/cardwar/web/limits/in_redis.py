"""The rate limits of a server of several processes, in the broker's Redis: the same token
buckets, long-run lines and line for chance estimates as `in_process.py`, counted once for the
whole server, so that four processes never mean four times a limit. Each check is one Lua
script, one round trip, all or nothing.

Decided here: a long run or an estimate is held on a lease (`RUN_LEASE_S`, `TURN_LEASE_S`), so
that one whose process died frees its place by itself; a wait in the estimates' line looks
again every `LOOK_S`, since Redis has no semaphore to wait on.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial

from cardwar.web.broker import Broker
from cardwar.web.errors import RateLimited, busy, estimates_busy, one_each

RUN_LEASE_S = 600.0
"""The longest a long run counts, if its process never counts it out (it died)."""
TURN_LEASE_S = 30.0
"""The longest an estimate's turn counts, likewise (an estimate takes milliseconds)."""
LOOK_S = 0.003
"""How often a wait in the estimates' line looks for a turn."""

# KEYS: the buckets; ARGV: now, then each bucket's rate and burst. Take a token from every one,
# or from none: the seconds to wait then (0 when taken).
_ADMIT = """
local now = tonumber(ARGV[1])
local found, wait = {}, 0
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local kept = redis.call('HMGET', key, 'tokens', 'at')
  local tokens = tonumber(kept[1]) or burst
  local at = tonumber(kept[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
  found[i] = tokens
  if tokens < 1 then wait = math.max(wait, (1 - tokens) / rate) end
end
if wait > 0 then return tostring(wait) end
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  redis.call('HSET', key, 'tokens', tostring(found[i] - 1), 'at', ARGV[1])
  redis.call('EXPIRE', key, math.ceil(burst / rate) + 60)
end
return '0'
"""
# KEYS[1]: who runs (a sorted set, scored by when each lease ends); ARGV: now, who, most, lease.
_ENTER = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 'one each' end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'busy' end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[4]), ARGV[2])
return 'in'
"""
# KEYS: the turns, the line (sorted sets scored by when each lease ends); ARGV: now, token,
# at once, waiting, lease. 'turn', 'wait' (in line) or 'full'.
_TURN = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[5]), ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[2])
  return 'turn'
end
if redis.call('ZSCORE', KEYS[2], ARGV[2]) or redis.call('ZCARD', KEYS[2]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[2])
  return 'wait'
end
return 'full'
"""


class RedisGate:
    """The token buckets of every process, in Redis: (tokens a second, burst) by kind."""

    def __init__(
        self, broker: Broker, kinds: dict[str, tuple[float, int]], clock: Callable[[], float]
    ) -> None:
        self.broker, self._kinds, self._clock = broker, kinds, clock
        self._admit = broker.redis.register_script(_ADMIT)

    async def admit(self, what: str, *checks: tuple[str, str]) -> None:
        keys = [self.broker.key("bucket", kind, key) for kind, key in checks]
        args: list[float] = [self._clock()]
        for kind, _ in checks:
            args += self._kinds[kind]
        wait = float(await self.broker.call(lambda: self._admit(keys=keys, args=args)))
        if wait > 0:
            raise RateLimited(what, wait)


class RedisLongRuns:
    """Long runs of one kind (`what`) under way in every process: at most `most`, one a
    browser."""

    def __init__(self, broker: Broker, most: int, what: str) -> None:
        self.broker, self._most, self._what = broker, most, what
        self._key = broker.key("runs", what)
        self._enter = broker.redis.register_script(_ENTER)

    async def enter(self, who: str) -> None:
        args: list[str | float] = [_now(), who, self._most, RUN_LEASE_S]
        said = await self.broker.call(lambda: self._enter(keys=[self._key], args=args))
        if said == b"one each":
            raise one_each(self._what)
        if said == b"busy":
            raise busy(self._what)

    async def leave(self, who: str) -> None:
        await self.broker.call(lambda: self.broker.redis.zrem(self._key, who))


class RedisEstimates:
    """The line for chance estimates of every process: `at_once` computed at a time, `waiting`
    more in line, any beyond turned away at once."""

    def __init__(self, broker: Broker, at_once: int, waiting: int) -> None:
        self.broker, self._at_once, self._waiting = broker, at_once, waiting
        self._keys = [broker.key("estimates", "turns"), broker.key("estimates", "line")]
        self._turn = broker.redis.register_script(_TURN)

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        token = secrets.token_hex(8)
        while True:
            args: list[str | float] = [_now(), token, self._at_once, self._waiting, TURN_LEASE_S]
            said = await self.broker.call(partial(self._turn, keys=self._keys, args=args))
            if said == b"turn":
                break
            if said == b"full":
                raise estimates_busy()
            await asyncio.sleep(LOOK_S)  # in line: look again in a moment
        try:
            yield
        finally:
            await self.broker.call(lambda: self.broker.redis.zrem(self._keys[0], token))


def _now() -> float:
    """Seconds since the epoch, for the leases: every machine's clock (NTP keeps them close;
    a lease is seconds or minutes long)."""
    return time.time()
