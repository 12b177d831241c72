"""/healthz: whether this process can serve, for a load balancer or a supervisor
(docs/deploy.md#health): 200 when it can, 503 with Retry-After when it cannot.

It answers within `WITHIN_S` whatever hangs behind it. Each part (the database, the broker) is
looked at by one `Probe` at a time, which every /healthz asked meanwhile shares: a look that
answers in time is what /healthz says; one that does not is said as it stands (unreachable,
since the look began), and goes on without it, so that a database or a broker that hangs costs
a balancer's check no more than `WITHIN_S`, and no thread or connection more than one look.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from cardwar.web.deps import ServicesDep
from cardwar.web.schemas import HealthOut

router = APIRouter()

WITHIN_S = 0.5
"""The longest /healthz waits for its looks: a balancer's checks give up after 2 to 3 s."""


class Probe:
    """Looks at one part, one look at a time, and keeps what the looks saw."""

    def __init__(self, look: Callable[[], Awaitable[bool]]) -> None:
        self._look = look
        self._task: asyncio.Task[bool] | None = None
        self._began = 0.0
        self.answered_at: float | None = None
        """When (time.monotonic) the part last answered; None if it never has."""
        self.down_since: float | None = None
        """When the looks began to go unanswered (failed, or not ended); None while it answers."""

    async def see(self, within: float) -> bool:
        """Look at the part (or join the look under way) for `within` seconds at most; True if
        it answered."""
        if self._task is None or self._task.done():
            self._began = time.monotonic()
            self._task = asyncio.ensure_future(self._run())
        done, _ = await asyncio.wait({self._task}, timeout=within)
        if done:
            return self._task.result()
        if self.down_since is None:  # a look that hangs: out of reach since it began
            self.down_since = self._began
        return False

    async def _run(self) -> bool:
        try:
            answered = await self._look()
        except Exception:  # any failure of the look is the part's: not reachable
            answered = False
        if answered:
            self.answered_at, self.down_since = time.monotonic(), None
        elif self.down_since is None:
            self.down_since = self._began
        return answered

    def answered_s_ago(self, now: float) -> float | None:
        """Seconds since the part last answered (None: never, since this process began)."""
        return None if self.answered_at is None else round(now - self.answered_at, 1)


@dataclass(frozen=True, slots=True)
class Probes:
    """The probes of one app: its database's, and its broker's (None without one)."""

    database: Probe
    broker: Probe | None


def probes_of(app: FastAPI, server: ServicesDep) -> Probes:
    """The app's probes, made at its first /healthz."""
    found: Probes | None = getattr(app.state, "probes", None)
    if found is None:
        store, broker = server.rounds.store, server.broker

        async def database() -> bool:
            return await run_in_threadpool(store.reachable)  # within the store's deadline

        found = Probes(Probe(database), None if broker is None else Probe(broker.reachable))
        app.state.probes = found
    return found


def _said(reachable: bool | None) -> str:
    return {True: "reachable", False: "unreachable", None: "none"}[reachable]


@router.get(
    "/healthz",
    response_model=HealthOut,
    summary="Whether this server process can serve",
    responses={
        503: {
            "model": HealthOut,
            "description": "Its database or broker is out of reach, or it drains",
        }
    },
)
async def health(request: Request, server: ServicesDep) -> JSONResponse:
    """The database and the broker (`none` without one), each `reachable` or `unreachable`
    (as a look within a second saw it), and how long ago each last answered. 503 with
    Retry-After while the broker is unreachable, the database has been for longer than
    `Settings.database_down_after_s`, or the process drains before it stops (`site/draining.py`).
    A broker that answers while this process has not yet heard its live tables' channels
    again is not reachable yet."""
    probes = probes_of(request.app, server)
    looks = [probes.database.see(WITHIN_S)]
    if probes.broker is not None:
        looks.append(probes.broker.see(WITHIN_S))
    seen = await asyncio.gather(*looks)
    now = time.monotonic()
    database = seen[0]
    broker = None
    if probes.broker is not None:
        broker = seen[1] and request.app.state.live.hub.listening
    down_since = probes.database.down_since
    database_ok = database or (
        down_since is not None and now - down_since < server.settings.database_down_after_s
    )
    draining = server.drain.draining
    ok = database_ok and broker is not False and not draining
    body = {
        "ok": ok,
        "database": _said(database),
        "broker": _said(broker),
        "database_answered_s_ago": probes.database.answered_s_ago(now),
        "broker_answered_s_ago": None
        if probes.broker is None
        else probes.broker.answered_s_ago(now),
        "draining": draining,
    }
    headers = None if ok else {"Retry-After": "2"}
    return JSONResponse(body, status_code=200 if ok else 503, headers=headers)
