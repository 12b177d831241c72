"""/healthz: whether this process can reach its database and its broker, for a load balancer
(docs/deploy.md): 200 when it can serve, 503 with Retry-After when it cannot."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from cardwar.web.deps import ServicesDep
from cardwar.web.schemas import HealthOut

router = APIRouter()


def _said(reachable: bool | None) -> str:
    return {True: "reachable", False: "unreachable", None: "none"}[reachable]


@router.get(
    "/healthz",
    response_model=HealthOut,
    summary="Whether this server process can serve",
    responses={503: {"model": HealthOut, "description": "Its database or broker is out of reach"}},
)
async def health(request: Request, server: ServicesDep) -> JSONResponse:
    """The database and the broker (`none` without one), each `reachable` or `unreachable`;
    503 with Retry-After unless every one is reachable. A broker that answers while this
    process has not yet heard its live tables' channels again is not reachable yet."""
    database = await run_in_threadpool(server.rounds.store.reachable)
    broker = None
    if server.broker is not None:
        broker = await server.broker.reachable() and request.app.state.live.hub.listening
    ok = database and broker is not False
    body = {"ok": ok, "database": _said(database), "broker": _said(broker)}
    headers = None if ok else {"Retry-After": "2"}
    return JSONResponse(body, status_code=200 if ok else 503, headers=headers)
