"""/api/matches: start a match, deal its next round, and look at it."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from cardwar.web.deps import MatchesDep, services, write
from cardwar.web.routing import body_route, errors
from cardwar.web.schemas import MatchDealtOut, MatchOut, NewMatch, NoBody, seat_values

router = APIRouter()


@body_route(router, "/api/matches", NewMatch, MatchDealtOut, "Start a match", status_code=201)
async def new_match(request: Request) -> JSONResponse:
    """Start a match of 1, 3 or 5 rounds under a preset and house rules, with the people and
    computers at its table, and deal its first round. Draws do not count: a drawn round is
    played again."""
    body, who = await write(request, NewMatch, "new matches")
    server = services(request)
    dealt = await run_in_threadpool(
        server.matches.create, who.id, best_of=body.best_of, preset=body.preset,
        rules=body.rules, seed=body.seed, seats=seat_values(body.seats),
    )  # fmt: skip
    return server.reply(dealt, who, status_code=201)


@body_route(
    router, "/api/matches/{match_id}/rounds", NoBody, MatchDealtOut,
    "Deal a match's next round", status_code=201, more_errors=(403, 404, 409),
)  # fmt: skip
async def next_round(request: Request) -> JSONResponse:
    """Deal the match's next round: refused (409) once the match is over, or while its
    last round is still being played."""
    _, who = await write(request, NoBody, "new rounds")
    match_id: str = request.path_params["match_id"]
    server = services(request)
    dealt = await run_in_threadpool(server.matches.next_round, match_id, who.id)
    return server.reply(dealt, who, status_code=201)


@router.get(
    "/api/matches/{match_id}",
    response_model=MatchOut,
    responses=errors(404),
    summary="Look at a match",
)
async def get_match(match_id: str, matches: MatchesDep) -> JSONResponse:
    """The match: its rounds, the score, who leads and who won."""
    return JSONResponse(await run_in_threadpool(matches.get, match_id))
