"""The FastAPI app, assembled: its settings, services, routes, error answers and lifespan, behind
one guard. The routes are in `routes/`, what they depend on in `deps.py`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRouter

from cardwar.web.assets import Assets, CompressAnswers, RevalidatedFiles
from cardwar.web.deps import Services
from cardwar.web.errors import ANSWERS
from cardwar.web.games import Games
from cardwar.web.guard import Guard
from cardwar.web.limits import Limits
from cardwar.web.matches import Matches
from cardwar.web.players import PlayerIds, Players
from cardwar.web.routes import matches, me, pages, rounds, rules, simulations
from cardwar.web.settings import Settings
from cardwar.web.store import Store
from cardwar.web.workers import Worker

# In this order: the click (first of `rounds`) is the first route the router tries.
ROUTERS: tuple[APIRouter, ...] = (
    rounds.router,
    matches.router,
    simulations.router,
    me.router,
    rules.router,
    pages.router,
)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the database; remove old rounds at start-up and then every `prune_every_s`; at
    the end, stop the worker and close the database."""
    games: Games = app.state.games
    every: float = app.state.settings.prune_every_s

    async def prune_now_and_then() -> None:
        while True:
            await asyncio.sleep(every)
            await run_in_threadpool(games.prune)

    games.open()
    await run_in_threadpool(games.prune)
    pruning = asyncio.create_task(prune_now_and_then())
    yield
    pruning.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await pruning
    games.close()


def create_app(settings: Settings | None = None) -> Guard:
    """The whole web game over the SQLite file named in `settings`, behind its guard."""
    settings = settings if settings is not None else Settings()
    store = Store(settings.db_path)
    worker = Worker()
    games = Games(store, settings, worker)
    services = Services(
        settings=settings,
        games=games,
        matches=Matches(store, games),
        players=Players(store),
        worker=worker,
        ids=PlayerIds(store.secret()),
        limits=Limits(settings),
        assets=Assets(settings.static_dir),
    )
    app = FastAPI(
        title="cardwar",
        summary="The card game War: deal rounds and play their battles.",
        version="1",
        lifespan=lifespan,
        # Every router's routes go straight into the app's own list: `include_router` would
        # keep each router behind a wrapper that matches its routes again on every request
        # (measured: a click's CPU 8% higher).
        routes=[route for router in ROUTERS for route in router.routes],
        # /docs and /redoc would load their scripts from elsewhere: /openapi.json is the
        # document, and nothing leaves this machine.
        docs_url=None,
        redoc_url=None,
        # No OpenTelemetry hooks, even if the environment configures an exporter.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.services = services
    app.state.games, app.state.settings = games, settings
    app.state.estimates = services.limits.estimates
    for kind, answer in ANSWERS.items():
        app.add_exception_handler(kind, answer)
    # The page's versioned files are a route of `pages` (matched first), served from memory;
    # these are the same files at their plain URLs, for a page or a script that asks there.
    app.mount("/static", RevalidatedFiles(directory=settings.static_dir), name="static")
    # JSON and the plain files, compressed as they go; the page's own files come compressed.
    app.add_middleware(CompressAnswers, minimum_size=500, compresslevel=settings.gzip_level)
    return Guard(app, settings)
