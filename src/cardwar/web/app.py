"""The FastAPI app: thin routes that parse, call `Games`, and serialise."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from cardwar.engine import Battle
from cardwar.errors import CardwarError, RoundOverError
from cardwar.rules import PRESETS, Rules, describe_fields
from cardwar.web.games import Games, RoundNotFound
from cardwar.web.schemas import (
    BattlesOut,
    ChooseHouseRules,
    ErrorOut,
    HouseRulesOut,
    MeOut,
    NewRound,
    PlayBattles,
    RoundOut,
    RulesInfoOut,
)
from cardwar.web.settings import Settings
from cardwar.web.store import Store

STATIC = Path(__file__).parent / "static"
COOKIE_MAX_AGE = 10 * 365 * 24 * 3600
INLINE_BATTLES = 100  # at most this many battles are played on the event loop itself
ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "No round has this id"},
    422: {"model": ErrorOut, "description": "The body does not fit SPEC §7"},
}


@dataclass(frozen=True, slots=True)
class Player:
    """The anonymous id in the browser's cookie; `new` when this request is the first."""

    id: str
    new: bool


async def current_player(request: Request) -> Player:
    """The player named by the cookie, or a new anonymous id when it is missing or malformed."""
    settings: Settings = request.app.state.settings
    known = request.cookies.get(settings.cookie_name, "")
    if 16 <= len(known) <= 64 and known.replace("-", "").replace("_", "").isalnum():
        return Player(known, new=False)
    return Player(secrets.token_urlsafe(16), new=True)


PlayerDep = Annotated[Player, Depends(current_player)]


class RequestRoute(APIRoute):
    """A FastAPI route whose endpoint takes the bare `Request` and returns the `Response`.

    FastAPI still matches and documents it (the parameters and body go in `openapi_extra`), but
    skips its per-request dependency solving, which was half of a click's CPU. Side by side on
    this machine, with the paced load of `benchmarks/api.py`, it took a click's p99 from 10.6 ms
    to 7.2 ms (README, "Speed").
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint: Callable[[Request], Coroutine[Any, Any, Response]] = self.endpoint
        return endpoint


PLAY_OPENAPI: dict[str, Any] = {
    "parameters": [
        {"name": "round_id", "in": "path", "required": True, "schema": {"type": "string"}}
    ],
    "requestBody": {
        "required": False,
        "content": {"application/json": {"schema": PlayBattles.model_json_schema()}},
    },
}


RULES_INFO: dict[str, Any] = {
    "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
    "fields": describe_fields(),
}


def _house_rules(rules: Rules) -> dict[str, Any]:
    return {"preset": rules.preset_name, "rules": rules.to_dict()}


def _battles_content(round_: dict[str, Any], battles: list[Battle]) -> dict[str, Any]:
    return {"round": round_, "battles": [battle.to_dict() for battle in battles]}


def _play_content(games: Games, round_id: str, count: int) -> dict[str, Any]:
    played = games.play(round_id, count)
    assert played is not None  # play() waits for the round unless told not to
    return _battles_content(*played)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The whole web game over the SQLite file named in `settings`."""
    settings = settings if settings is not None else Settings()
    games = Games(Store(settings.db_path), cache_size=settings.cache_size)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        games.store.close()

    app = FastAPI(
        title="cardwar",
        summary="The card game War: deal rounds and play their battles (SPEC §7).",
        version="1",
        lifespan=lifespan,
        # No OpenTelemetry hooks, even if the environment configures an exporter: nothing
        # about a player leaves the machine.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.games = games
    app.state.settings = settings

    def reply(content: Any, who: Player, status_code: int = 200) -> JSONResponse:
        response = JSONResponse(content, status_code=status_code)
        if who.new:
            response.set_cookie(
                settings.cookie_name,
                who.id,
                max_age=COOKIE_MAX_AGE,
                httponly=True,
                samesite="lax",
            )
        return response

    @app.exception_handler(RequestValidationError)
    async def bad_body(_: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors():
            where = ".".join(str(part) for part in item["loc"] if part != "body") or "body"
            problems.append(f"{where}: {item['msg']}")
        return JSONResponse({"detail": "; ".join(problems)}, status_code=422)

    @app.exception_handler(RoundOverError)
    async def round_over(_: Request, error: RoundOverError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=409)

    @app.exception_handler(CardwarError)
    async def bad_value(_: Request, error: CardwarError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=422)

    @app.exception_handler(RoundNotFound)
    async def not_found(_: Request, error: RoundNotFound) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=404)

    # The click is registered before the other API routes, so the router reaches it sooner.
    async def play(request: Request) -> JSONResponse:
        """Play `count` battles (stopping early if the round ends), one record per battle."""
        round_id: str = request.path_params["round_id"]
        raw = await request.body()
        try:
            count = PlayBattles.model_validate_json(raw).count if raw else 1
        except ValidationError as error:
            raise RequestValidationError(error.errors()) from None
        who = await current_player(request)
        # A click (a few battles) is played right here: a hop to a worker thread would cost
        # more than the battles. Long runs, or a round another request holds, go to a worker
        # thread so that they never stall everyone else's clicks.
        played = games.play(round_id, count, wait=False) if count <= INLINE_BATTLES else None
        if played is None:
            content = await run_in_threadpool(_play_content, games, round_id, count)
        else:
            content = _battles_content(*played)
        return reply(content, who)

    app.router.add_api_route(
        "/api/rounds/{round_id}/battles",
        play,
        methods=["POST"],
        response_model=BattlesOut,
        responses={
            **ERRORS,
            409: {"model": ErrorOut, "description": "The round is already over"},
        },
        summary="Play battles",
        openapi_extra=PLAY_OPENAPI,
        route_class_override=RequestRoute,
    )

    @app.post(
        "/api/rounds",
        status_code=201,
        response_model=RoundOut,
        responses={422: ERRORS[422]},
        summary="Deal a new round",
    )
    async def new_round(
        who: PlayerDep, body: Annotated[NewRound | None, Body()] = None
    ) -> JSONResponse:
        """Deal a round from a preset, rule overrides, a seed or an explicit deal."""
        body = body if body is not None else NewRound()
        round_ = games.create(
            who.id, preset=body.preset, rules=body.rules, seed=body.seed, deal=body.deal
        )
        return reply(round_, who, status_code=201)

    @app.get(
        "/api/rounds/{round_id}",
        response_model=RoundOut,
        responses={404: ERRORS[404]},
        summary="Look at a round",
    )
    async def get_round(round_id: str, who: PlayerDep) -> JSONResponse:
        """The round; its piles appear only once it is over."""
        round_ = games.get(round_id, wait=False)
        if round_ is None:  # a long request holds it: wait in a worker thread, not here
            round_ = await run_in_threadpool(games.get, round_id)
        return reply(round_, who)

    @app.get("/api/me", response_model=MeOut, summary="This browser's scoreboard and round")
    def me(who: PlayerDep) -> JSONResponse:  # sync: FastAPI runs it in a worker thread
        """Rounds won, lost and drawn by this browser, its latest round with that round's last
        battle (to resume the table as it was), and the house rules it chose."""
        board = games.scoreboard(who.id)
        latest = games.latest(who.id)
        round_, last = (None, None) if latest is None else latest
        content = {
            "scoreboard": {"won": board.won, "lost": board.lost, "drawn": board.drawn},
            "round": round_,
            "last_battle": None if last is None else last.to_dict(),
            "house_rules": _house_rules(games.house_rules(who.id)),
        }
        return reply(content, who)

    @app.put(
        "/api/me/house-rules",
        response_model=HouseRulesOut,
        responses={422: ERRORS[422]},
        summary="Choose the rules of this browser's next rounds",
    )
    def choose_house_rules(who: PlayerDep, body: ChooseHouseRules) -> JSONResponse:
        """Check and remember a preset and rule overrides; the page deals its next rounds with
        them. Remembered per browser, like the scoreboard."""
        chosen = games.choose_house_rules(who.id, preset=body.preset, rules=body.rules)
        return reply(_house_rules(chosen), who)

    @app.get("/api/rules", response_model=RulesInfoOut, summary="The presets and rule fields")
    def rules_info() -> dict[str, Any]:
        """Every preset of SPEC §5 filled in, and what each rule field allows."""
        return RULES_INFO

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
