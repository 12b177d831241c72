"""The FastAPI app, assembled: its settings, services, routes, error answers and lifespan, behind
one guard. The routes are in `routes/`, what they depend on in `deps.py`."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRouter

from cardwar.web import routes
from cardwar.web.assets import Assets, CompressAnswers, RevalidatedFiles
from cardwar.web.connections import BoundedHttp
from cardwar.web.deps import Services
from cardwar.web.errors import ANSWERS, Answer, BrokerDown, TryAgain
from cardwar.web.game.matches import Matches
from cardwar.web.game.players import PlayerIds, Players
from cardwar.web.game.rounds import Rounds
from cardwar.web.guard import Guard
from cardwar.web.limits import Limits
from cardwar.web.live.errors import TableBusy, every_error
from cardwar.web.live.hub import Hub, InProcessHub
from cardwar.web.live.presence import InProcessPresences, Presences
from cardwar.web.live.service import LiveTables
from cardwar.web.live.transport import LiveSockets
from cardwar.web.settings import Settings
from cardwar.web.site.draining import Drain
from cardwar.web.site.metrics import Watched, serve_metrics
from cardwar.web.store import Store
from cardwar.web.tasks import stop
from cardwar.web.warming import Warming
from cardwar.web.workers import Worker

if TYPE_CHECKING:
    from cardwar.web.broker import Broker

# In this order: the click (first of `rounds`) is the first route the router tries.
ROUTERS: tuple[APIRouter, ...] = (
    routes.rounds.router,
    routes.matches.router,
    routes.simulations.router,
    routes.me.router,
    routes.rules.router,
    routes.tables.router,
    routes.health.router,
    routes.pages.router,
)


class Starting(Protocol):
    """Told how the server's start goes: `cardwar serve` shows it on its terminal."""

    def ready(self) -> None:
        """The server is about to answer."""

    def preparing(self, seconds: int) -> None:
        """A first start's preparation of the simulator is under way in the background: about
        `seconds` in all, the game open meanwhile (`warming.py`)."""

    def prepared(self, took: float) -> None:
        """That preparation is done, after `took` seconds."""


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the database and prepare the simulator in the background (`Warming`); remove old
    rounds at start-up and then every `prune_every_s`; at the end, stop the worker and close the
    database."""
    rounds: Rounds = app.state.rounds
    starting: Starting | None = app.state.starting
    settings: Settings = app.state.settings
    warming: Warming = app.state.services.warming
    # Everything loaded so far lives as long as the server: out of the collector's sight, so
    # that no full collection walks it again (`Warming` does the same with the simulator's
    # code once it is loaded).
    gc.collect()
    gc.freeze()
    # The collector's young generation at 50,000 objects, not 700: a live table's socket keeps
    # about 170 objects for as long as it is open, and at 700 the battles' short-lived objects
    # were swept into the old generation so often that full collections (80-380 ms over a
    # thousand sockets' objects) stalled the loop every few seconds, every device's battle with
    # it. Cycles are still collected; a few megabytes more wait for it (benchmarks/tables.py:
    # flip to both told p99 67 ms before, 35 and 52 ms in two runs after, memory the same).
    gc.set_threshold(50_000, 20, 100)

    async def prune_now_and_then(every: float) -> None:
        while True:
            await asyncio.sleep(every)
            await run_in_threadpool(rounds.prune)

    async def look_at_live_tables(every: float) -> None:
        while True:
            await asyncio.sleep(every)
            # A broker out of reach (logged by the broker), or a table busy in another process:
            # the next tick again.
            with contextlib.suppress(BrokerDown, TableBusy):
                await live.tick()

    live: LiveTables = app.state.live
    broker = app.state.services.broker
    await live.hub.start()  # with a broker out of reach, BrokerDown: the server does not start
    rounds.open()
    await run_in_threadpool(rounds.prune)
    warming.start()  # the game answers meanwhile: what needs the simulator waits for it
    drain = app.state.services.drain
    drain.install(asyncio.get_running_loop())  # SIGTERM drains first
    BoundedHttp.drain = drain  # its connections answered 503 meanwhile
    chores = [
        asyncio.create_task(prune_now_and_then(settings.prune_every_s)),
        asyncio.create_task(look_at_live_tables(settings.live_tick_s)),
    ]
    # the figures on their own address; a process of several leaves it to their supervisor
    stop_metrics = None
    if settings.metrics is not None and not settings.shared_socket:
        stop_metrics = await run_in_threadpool(serve_metrics, settings.metrics)
    if starting is not None:
        starting.ready()
    yield
    if stop_metrics is not None:
        await run_in_threadpool(stop_metrics)
    for chore in chores:
        await stop(chore)
    await warming.stop()
    with contextlib.suppress(BrokerDown):  # its locks lapse by themselves
        await live.room.presences.stop()
    await live.hub.stop()
    if broker is not None:
        await broker.close()
    rounds.close()


def create_app(settings: Settings | None = None, *, starting: Starting | None = None) -> Guard:
    """The whole web game over the SQLite file named in `settings`, behind its guard; how its
    start goes is told to `starting`."""
    settings = settings if settings is not None else Settings()
    store = Store(
        settings.db, deadline_s=settings.database_deadline_s, pool_size=settings.database_pool
    )
    worker = Worker()
    broker: Broker | None = None
    hub: Hub = InProcessHub()
    presences: Presences = InProcessPresences(hub)
    if settings.broker is not None:
        from cardwar.web.broker import Broker, RedisHub  # redis-py, only for a broker
        from cardwar.web.live.presence import RedisPresences

        broker = Broker(settings.broker)
        redis_hub = RedisHub(broker)
        hub, presences = redis_hub, RedisPresences(broker, redis_hub)
    rounds = Rounds(store, settings, worker)
    services = Services(
        settings=settings,
        rounds=rounds,
        matches=Matches(store, rounds),
        players=Players(store),
        worker=worker,
        ids=PlayerIds(store.secret()),
        limits=Limits(settings, broker),
        assets=Assets(settings.static_dir),
        broker=broker,
        warming=Warming(worker if settings.worker_at_start else None, starting),
        drain=Drain(settings.drain_s, shared=settings.shared_socket),
    )
    app = FastAPI(
        title="cardwar",
        summary="The card game War: deal rounds and play their battles.",
        version="1",
        lifespan=lifespan,
        # Every router's routes go straight into the app's own list: `include_router` would
        # keep each router behind a wrapper that matches its routes again on every request
        # (a click's CPU higher: benchmarks/README.md, "Measurements behind the code").
        routes=[route for router in ROUTERS for route in router.routes],
        # /docs and /redoc would load their scripts from elsewhere: /openapi.json is the
        # document, and nothing leaves this machine.
        docs_url=None,
        redoc_url=None,
        # No OpenTelemetry hooks, even if the environment configures an exporter.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.services = services
    app.state.live = LiveTables(store, rounds, services.matches, hub, settings, presences)
    app.state.rounds, app.state.settings = rounds, settings
    app.state.starting = starting
    app.state.estimates = services.limits.estimates
    for kind, answer in ANSWERS.items():
        app.add_exception_handler(kind, answer)
    for table_error in every_error():  # each a status of its own (`live/errors.py`)
        retry = issubclass(table_error, TryAgain)
        app.add_exception_handler(table_error, Answer(table_error.status, retry_after=retry))
    # The page's versioned files are a route of `pages` (matched first), served from memory;
    # these are the same files at their plain URLs, for a page or a script that asks there.
    app.mount("/static", RevalidatedFiles(directory=settings.static_dir), name="static")
    # JSON and the plain files, compressed as they go; the page's own files come compressed.
    app.add_middleware(CompressAnswers, minimum_size=500, compresslevel=settings.gzip_level)
    inner: Any = app
    if settings.metrics is not None:  # each request counted, by its route
        inner = Watched(app, app.routes)
    return Guard(LiveSockets(inner), settings)  # a live socket the shortest way (`transport`)
