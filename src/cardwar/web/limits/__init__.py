"""How much may be asked of the server at once (`Limits`): token buckets for writes and
newcomers, one long run of battles and one of statistics a browser, and the line for chance
estimates; each refusal a RateLimited (429). Kept in this process's memory (`in_process.py`), or
with a broker in its Redis for every process of the server at once (`in_redis.py`): each pair
named `InProcess…`/`Redis…`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from cardwar.web.limits.in_process import InProcessEstimates, InProcessGate, InProcessLongRuns
from cardwar.web.settings import Settings

if TYPE_CHECKING:
    from cardwar.web.broker import Broker


class Gate(Protocol):
    """Where the token buckets are kept: in this process (`InProcessGate`), or in the broker's
    Redis (`RedisGate`)."""

    async def admit(self, what: str, *checks: tuple[str, str]) -> None:
        """Take a token from each (bucket kind, key), or none at all and raise RateLimited."""


class Lines(Protocol):
    """Long requests of one kind under way at once, one a browser (`InProcessLongRuns`,
    `RedisLongRuns`)."""

    async def enter(self, who: str) -> None:
        """Count a long run in for `who`, or raise RateLimited."""

    async def leave(self, who: str) -> None:
        """Count `who`'s long run out."""


class Turns(Protocol):
    """The line for chance estimates (`InProcessEstimates`, `RedisEstimates`)."""

    def turn(self) -> Any:
        """An async context manager: a turn to compute an estimate while the block runs, after
        waiting in line; RateLimited at once if the line is full."""


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
            self.gate = InProcessGate(kinds, settings.clock)
            self.long_runs = InProcessLongRuns(settings.long_runs, "battles")
            self.statistics = InProcessLongRuns(settings.statistics_runs, "statistics")
            self.estimates = InProcessEstimates(at_once, waiting)
        else:
            from cardwar.web.limits.in_redis import RedisEstimates, RedisGate, RedisLongRuns

            self.gate = RedisGate(broker, kinds, settings.clock)
            self.long_runs = RedisLongRuns(broker, settings.long_runs, "battles")
            self.statistics = RedisLongRuns(broker, settings.statistics_runs, "statistics")
            self.estimates = RedisEstimates(broker, at_once, waiting)

    async def write(self, what: str, player: str, address: str) -> None:
        """A write counts against its browser, its network address and the whole server."""
        await self.gate.admit(what, ("writes", player), ("address", address), ("server", "*"))

    async def newcomer(self, address: str) -> None:
        """A new player id counts against its network address, so that one client cannot keep
        out everyone else's."""
        await self.gate.admit("newcomers", ("newcomers", address))
