"""/api/simulations: statistics of many random rounds, played on the fast simulator."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from cardwar.engine import MAX_SEED, check_seed
from cardwar.rules import Rules
from cardwar.web.deps import ServicesDep, cookie_key, services
from cardwar.web.routing import body_route, parse
from cardwar.web.schemas import Simulate, SimulationOut, SimulatorOut
from cardwar.web.workers import statistics

router = APIRouter()


@body_route(router, "/api/simulations", Simulate, SimulationOut, "Statistics of many rounds")
async def simulations(request: Request) -> JSONResponse:
    """Play many random rounds of the given rules on the fast simulator; their figures and
    histograms. How many rounds, and for how long, a request may play: see Settings
    (`max_simulated`, `simulation_seconds`). In a server's first seconds (a first start: about
    20 s) it waits for the simulator to be ready (`GET /api/simulator`)."""
    body = parse(Simulate, await request.body())
    rules = Rules.choose(body.preset, body.rules)
    seed = body.seed if body.seed is not None else secrets.randbelow(MAX_SEED + 1)
    check_seed(seed)
    server = services(request)
    settings = server.settings
    who = cookie_key(request)
    await server.warming.ready()
    await server.limits.statistics.enter(who)
    try:
        result = await run_in_threadpool(
            server.worker.run, statistics, rules.to_dict(), body.rounds, seed,
            settings.simulation_seconds, settings.simulation_batch,
        )  # fmt: skip
    finally:
        await server.limits.statistics.leave(who)
    return JSONResponse(result)


@router.get(
    "/api/simulator",
    response_model=SimulatorOut,
    summary="Whether the simulator is ready",
)
async def simulator(server: ServicesDep) -> JSONResponse:
    """Whether the chance meter and the statistics can answer at once: a server's first start
    prepares the simulator in the background (about 20 s), and what needs it waits meanwhile.
    A page asks again every 2 s while it is not, and says "getting ready" until it is."""
    return JSONResponse(server.warming.status())
