"""/api/rounds: deal a round, play its battles, look at it, watch it back, and its chances."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Request
from fastapi import Path as FastPath
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response, StreamingResponse

from cardwar.web.deps import (
    RoundsDep,
    ServicesDep,
    cookie_key,
    services,
    write,
)
from cardwar.web.errors import RateLimited
from cardwar.web.game import replays
from cardwar.web.routing import body_route, errors, parse
from cardwar.web.schemas import (
    BattlesOut,
    ChanceOut,
    NewRound,
    PlayBattles,
    ReplayOut,
    RoundOut,
    StoryOut,
    seat_values,
)

router = APIRouter()


# The click comes first of every route, so that the router reaches it soonest.
@body_route(
    router, "/api/rounds/{round_id}/battles", PlayBattles, BattlesOut, "Play battles",
    more_errors=(404, 409),
)  # fmt: skip
async def play(request: Request) -> Response:
    """Play `count` battles (stopping early if the round ends, or as the last person still in
    goes out when asked to), one record per battle."""
    round_id: str = request.path_params["round_id"]
    asked = parse(PlayBattles, await request.body())
    count, stop = asked.count, asked.stop_when_out
    server = services(request)
    rounds = server.rounds
    # A click (a few battles) is played in a thread of this process: a hop to the worker
    # process would cost more than the battles, and on the event loop a database that hangs
    # would stop every other request with it (its deadline ends the call: 503). Long runs, or a
    # round another request holds, go to the worker process and are sent in chunks, so that
    # they never stall anyone else's clicks.
    if count <= server.settings.inline_battles:
        played = await run_in_threadpool(
            rounds.play, round_id, count, wait=False, stop_when_out=stop
        )
        if played is None:
            if round_id in rounds.long_running:  # busy for seconds: say so, do not wait
                raise RateLimited("battles: this round is busy with a long run", 1)
            # Another short request holds it (a read, a chance estimate): wait for it.
            played = await run_in_threadpool(rounds.play, round_id, count, stop_when_out=stop)
            assert played is not None
        shown, battles = played
        return JSONResponse({"round": shown, "battles": [battle.to_dict() for battle in battles]})
    who = cookie_key(request)
    long_runs = server.limits.long_runs
    await long_runs.enter(who)
    try:
        body = await run_in_threadpool(rounds.play_long, round_id, count, stop)
    except BaseException:
        await long_runs.leave(who)
        raise
    chunk = server.settings.chunk_bytes

    async def chunks() -> AsyncIterator[bytes]:
        try:
            for start in range(0, len(body), chunk):
                yield body[start : start + chunk]
        finally:
            await long_runs.leave(who)

    return StreamingResponse(chunks(), media_type="application/json")


@body_route(router, "/api/rounds", NewRound, RoundOut, "Deal a new round", status_code=201)
async def new_round(request: Request) -> JSONResponse:
    """Deal a round from a preset, rule overrides, a seed or an explicit deal, with the people
    and computers at its table."""
    body, who = await write(request, NewRound, "new rounds")
    server = services(request)
    round_ = await run_in_threadpool(
        server.rounds.create, who.id, preset=body.preset, rules=body.rules, seed=body.seed,
        deal=body.deal, seats=seat_values(body.seats),
    )  # fmt: skip
    return server.reply(round_, who, status_code=201)


@router.get(
    "/api/rounds/{round_id}/battles/{number}",
    response_model=ReplayOut,
    responses=errors(404, 422),
    summary="One battle of a round, played again",
)
async def replay(
    round_id: str, number: Annotated[int, FastPath(ge=1)], rounds: RoundsDep
) -> JSONResponse:
    """Battle `number` (from 1) of the round, played again from its deal, with the counts
    before it: a round can be watched back battle by battle."""
    return JSONResponse(await run_in_threadpool(replays.replay, rounds, round_id, number))


@router.get(
    "/api/rounds/{round_id}/story",
    response_model=StoryOut,
    responses=errors(404),
    summary="A round told battle by battle",
)
async def story(round_id: str, rounds: RoundsDep) -> JSONResponse:
    """Each seat's cards battle by battle (at the deal and at most 400 battles), every battle
    with a war, how often the lead changed, and the biggest war: what the page draws at a
    round's end."""
    return JSONResponse(await run_in_threadpool(replays.story, rounds, round_id))


@router.get(
    "/api/rounds/{round_id}/chance",
    response_model=ChanceOut,
    responses=errors(404, 429),
    summary="Each seat's chance to win from here",
)
async def chance(round_id: str, server: ServicesDep) -> JSONResponse:
    """The share of 2,000 continuations of the round that each seat wins (and that are
    drawn), every pile's order being unknown: the cards each seat holds, shuffled afresh.
    Once the round is over: its outcome, as a certainty (`runs` 0). The server makes one
    estimate at a time, with more in line (see Settings: `estimates_at_once`,
    `estimates_waiting`); beyond that it answers 429 at once. In a server's first seconds
    (a first start: about 20 s) it waits for the simulator to be ready (`GET /api/simulator`)."""
    await server.warming.ready()
    rounds = server.rounds
    async with server.limits.estimates.turn():
        return JSONResponse(await run_in_threadpool(rounds.chance, round_id))


@router.get(
    "/api/rounds/{round_id}",
    response_model=RoundOut,
    responses=errors(404),
    summary="Look at a round",
)
async def get_round(round_id: str, rounds: RoundsDep) -> JSONResponse:
    """The round; its piles appear only once it is over."""
    # In a thread: it may read the database, and may wait for a long request that holds it.
    return JSONResponse(await run_in_threadpool(rounds.get, round_id))
