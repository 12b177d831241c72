"""The FastAPI app: thin routes that parse, call `Games`, and serialise, behind one guard."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import secrets
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import FastAPI, Request
from fastapi import Path as FastPath
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError

from cardwar.engine import MAX_SEED, check_seed
from cardwar.records import Battle
from cardwar.rules import PRESETS, Rules, describe_fields
from cardwar.web.errors import ANSWERS, BadBody, RateLimited
from cardwar.web.games import Games
from cardwar.web.guard import Guard, Limits, PlayerIds
from cardwar.web.matches import Matches
from cardwar.web.players import Players
from cardwar.web.schemas import (
    BattlesOut,
    ChanceOut,
    ChooseHouseRules,
    ErrorOut,
    HouseRulesOut,
    MatchDealtOut,
    MatchOut,
    MeOut,
    NewMatch,
    NewRound,
    NoBody,
    PlayBattles,
    ReplayOut,
    RoundOut,
    RulesInfoOut,
    Simulate,
    SimulationOut,
    StoryOut,
)
from cardwar.web.settings import Settings
from cardwar.web.store import Store
from cardwar.web.workers import Worker, statistics

STATIC = Path(__file__).parent / "static"
Model = TypeVar("Model", bound=BaseModel)


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


ERRORS: dict[int | str, dict[str, Any]] = {
    403: _error("The match belongs to another browser"),
    404: _error("No round (or match, or battle) has this id"),
    409: _error("The round is already over, or the match is decided or busy with a round"),
    413: _error("The body is larger than the server reads (64 KB)"),
    415: _error("The body is not sent as application/json"),
    422: _error("The body does not fit: the message names the field and what it allows"),
    429: _error("Too many of these too fast: the Retry-After header says when to try again"),
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The documented error answers of a route."""
    return {code: ERRORS[code] for code in codes}


@dataclass(frozen=True, slots=True)
class Player:
    """The anonymous id in the browser's cookie; `new` when this request is the first."""

    id: str
    new: bool


class RequestRoute(APIRoute):
    """A FastAPI route whose endpoint takes the bare `Request` and returns the `Response`.

    FastAPI still matches and documents it (the parameters and body go in `openapi_extra`), but
    skips its per-request dependency solving, which was half of a click's CPU. Side by side on
    this machine, with the paced load of `benchmarks/api.py`, it took a click's p99 from 10.6 ms
    to 7.2 ms (README, "Speed"). Every route with a body is one, so that one parser reads every
    body (`parse`), whatever it holds.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        endpoint: Callable[[Request], Coroutine[Any, Any, Response]] = self.endpoint
        return endpoint


def body_openapi(model: type[BaseModel], *path: str) -> dict[str, Any]:
    """The OpenAPI entry of a `RequestRoute`: its path parameters and its optional JSON body."""
    return {
        "parameters": [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in path
        ],
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": model.model_json_schema()}},
        },
    }


def parse(model: type[Model], raw: bytes) -> Model:
    """A request body as `model`; an empty body is the model's defaults. Anything that is not
    a JSON object of the model's fields is a 422 that names the body or the field."""
    if not raw.strip():
        return model()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadBody("body: not UTF-8 text") from None
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        raise RequestValidationError(error.errors()) from None


def _battles_content(round_: dict[str, Any], battles: list[Battle]) -> dict[str, Any]:
    return {"round": round_, "battles": [battle.to_dict() for battle in battles]}


def _house_rules(rules: Rules, best_of: int) -> dict[str, Any]:
    return {"preset": rules.preset_name, "rules": rules.to_dict(), "best_of": best_of}


RULES_INFO: dict[str, Any] = {
    "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
    "fields": describe_fields(),
}


def create_app(settings: Settings | None = None) -> Guard:
    """The whole web game over the SQLite file named in `settings`, behind its guard."""
    settings = settings if settings is not None else Settings()
    store = Store(settings.db_path)
    worker = Worker()
    games = Games(store, settings, worker)
    matches = Matches(store, games)
    players = Players(store)
    ids = PlayerIds(store.secret())
    limits = Limits(settings)
    long_runs, estimates = limits.long_runs, limits.estimates

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async def prune_now_and_then() -> None:
            while True:
                await asyncio.sleep(settings.prune_every_s)
                await run_in_threadpool(games.prune)

        games.open()
        await run_in_threadpool(games.prune)  # first at start-up, then every hour
        pruning = asyncio.create_task(prune_now_and_then())
        yield
        pruning.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pruning
        games.close()

    app = FastAPI(
        title="cardwar",
        summary="The card game War: deal rounds and play their battles.",
        version="1",
        lifespan=lifespan,
        # /docs and /redoc would load their scripts from elsewhere: /openapi.json is the
        # document, and nothing leaves this machine.
        docs_url=None,
        redoc_url=None,
        # No OpenTelemetry hooks, even if the environment configures an exporter.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.games = games
    app.state.settings = settings
    app.state.estimates = estimates

    def address(request: Request) -> str:
        return request.client.host if request.client is not None else "(unknown)"

    def current_player(request: Request) -> Player:
        """The player named by the cookie, or a new signed id (newcomers are rate-limited by
        network address, so one client cannot keep out everyone else's)."""
        known = request.cookies.get(settings.cookie_name, "")
        if ids.valid(known):
            return Player(known, new=False)
        limits.newcomer(address(request))
        return Player(ids.issue(), new=True)

    def admit_write(what: str, request: Request, who: Player) -> None:
        """A write counts against its browser, its network address and the whole server."""
        limits.write(what, who.id, address(request))

    def cookie_key(request: Request) -> str:
        """Whom a long run counts for: the cookie's player, or every stranger together."""
        known = request.cookies.get(settings.cookie_name, "")
        return known if ids.valid(known) else "(no cookie)"

    def reply(content: Any, who: Player | None = None, status_code: int = 200) -> JSONResponse:
        response = JSONResponse(content, status_code=status_code)
        if who is not None and who.new:
            response.set_cookie(
                settings.cookie_name,
                who.id,
                max_age=settings.cookie_max_age_s,
                httponly=True,
                samesite="lax",
            )
        return response

    for kind, answer in ANSWERS.items():
        app.add_exception_handler(kind, answer)

    # The click is registered before the other API routes, so the router reaches it sooner.
    async def play(request: Request) -> Response:
        """Play `count` battles (stopping early if the round ends), one record per battle."""
        round_id: str = request.path_params["round_id"]
        count = parse(PlayBattles, await request.body()).count
        # A click (a few battles) is played right here: a hop to a worker would cost more than
        # the battles. Long runs, or a round another request holds, go to the worker process
        # and are sent in chunks, so that they never stall anyone else's clicks.
        if count <= settings.inline_battles:
            played = games.play(round_id, count, wait=False)
            if played is None:
                if round_id in games.long_running:  # busy for seconds: say so, do not wait
                    raise RateLimited("battles: this round is busy with a long run", 1)
                # Another short request holds it (a read, a chance estimate): wait in a thread.
                played = await run_in_threadpool(games.play, round_id, count)
                assert played is not None
            return reply(_battles_content(*played))
        who = cookie_key(request)
        long_runs.enter(who)
        try:
            body = await run_in_threadpool(games.play_long, round_id, count)
        except BaseException:
            long_runs.leave(who)
            raise

        async def chunks() -> AsyncIterator[bytes]:
            try:
                for start in range(0, len(body), settings.chunk_bytes):
                    yield body[start : start + settings.chunk_bytes]
            finally:
                long_runs.leave(who)

        return StreamingResponse(chunks(), media_type="application/json")

    def add_body_route(
        path: str,
        endpoint: Callable[[Request], Coroutine[Any, Any, Response]],
        body: type[BaseModel],
        response: type[BaseModel],
        summary: str,
        *,
        method: str = "POST",
        status_code: int = 200,
        more_errors: tuple[int, ...] = (),
    ) -> None:
        """Register a `RequestRoute` that reads its JSON body with `parse`, and document it."""
        app.router.add_api_route(
            path,
            endpoint,
            methods=[method],
            status_code=status_code,
            response_model=response,
            responses=errors(*more_errors, 413, 415, 422, 429),
            summary=summary,
            openapi_extra=body_openapi(body, *re.findall(r"{(\w+)}", path)),
            route_class_override=RequestRoute,
        )

    add_body_route(
        "/api/rounds/{round_id}/battles", play, PlayBattles, BattlesOut, "Play battles",
        more_errors=(404, 409),
    )  # fmt: skip

    async def new_round(request: Request) -> JSONResponse:
        """Deal a round from a preset, rule overrides, a seed or an explicit deal."""
        body = parse(NewRound, await request.body())
        who = current_player(request)
        admit_write("new rounds", request, who)
        round_ = await run_in_threadpool(
            games.create, who.id, preset=body.preset, rules=body.rules, seed=body.seed,
            deal=body.deal,
        )  # fmt: skip
        return reply(round_, who, status_code=201)

    add_body_route(
        "/api/rounds", new_round, NewRound, RoundOut, "Deal a new round", status_code=201
    )

    async def new_match(request: Request) -> JSONResponse:
        """Start a match of 1, 3 or 5 rounds under a preset and house rules, and deal its first
        round. Draws do not count: a drawn round is played again."""
        body = parse(NewMatch, await request.body())
        who = current_player(request)
        admit_write("new matches", request, who)
        dealt = await run_in_threadpool(
            matches.create, who.id, best_of=body.best_of, preset=body.preset,
            rules=body.rules, seed=body.seed,
        )  # fmt: skip
        return reply(dealt, who, status_code=201)

    add_body_route("/api/matches", new_match, NewMatch, MatchDealtOut, "Start a match",
                   status_code=201)  # fmt: skip

    async def next_round(request: Request) -> JSONResponse:
        """Deal the match's next round: refused (409) once the match is over, or while its
        last round is still being played."""
        parse(NoBody, await request.body())
        who = current_player(request)
        admit_write("new rounds", request, who)
        match_id: str = request.path_params["match_id"]
        dealt = await run_in_threadpool(matches.next_round, match_id, who.id)
        return reply(dealt, who, status_code=201)

    add_body_route(
        "/api/matches/{match_id}/rounds", next_round, NoBody, MatchDealtOut,
        "Deal a match's next round", status_code=201, more_errors=(403, 404, 409),
    )  # fmt: skip

    @app.get(
        "/api/matches/{match_id}",
        response_model=MatchOut,
        responses=errors(404),
        summary="Look at a match",
    )
    async def get_match(match_id: str) -> JSONResponse:
        """The match: its rounds, the score, who leads and who won."""
        return reply(await run_in_threadpool(matches.get, match_id))

    @app.get(
        "/api/rounds/{round_id}/battles/{number}",
        response_model=ReplayOut,
        responses=errors(404, 422),
        summary="One battle of a round, played again",
    )
    async def replay(round_id: str, number: Annotated[int, FastPath(ge=1)]) -> JSONResponse:
        """Battle `number` (from 1) of the round, played again from its deal, with the counts
        before it: a round can be watched back battle by battle."""
        return reply(await run_in_threadpool(games.replay, round_id, number))

    @app.get(
        "/api/rounds/{round_id}/story",
        response_model=StoryOut,
        responses=errors(404),
        summary="A round told battle by battle",
    )
    async def story(round_id: str) -> JSONResponse:
        """Each seat's cards battle by battle (at the deal and at most 400 battles), every battle
        with a war, how often the lead changed, and the biggest war: what the page draws at a
        round's end."""
        return reply(await run_in_threadpool(games.story, round_id))

    @app.get(
        "/api/rounds/{round_id}/chance",
        response_model=ChanceOut,
        responses=errors(404, 429),
        summary="Each seat's chance to win from here",
    )
    async def chance(round_id: str) -> JSONResponse:
        """The share of 2,000 continuations of the round that each seat wins (and that are
        drawn), every pile's order being unknown: the cards each seat holds, shuffled afresh.
        Once the round is over: its outcome, as a certainty (`runs` 0). The server makes one
        estimate at a time, with eight more in line; beyond that it answers 429 at once."""
        async with estimates.turn():
            return reply(await run_in_threadpool(games.chance, round_id))

    async def simulations(request: Request) -> JSONResponse:
        """Play many random rounds of the given rules on the fast simulator; their figures and
        histograms. At most 200,000 rounds, and 2 seconds, a request."""
        body = parse(Simulate, await request.body())
        rules = Rules.choose(body.preset, body.rules)
        seed = body.seed if body.seed is not None else secrets.randbelow(MAX_SEED + 1)
        check_seed(seed)
        who = cookie_key(request)
        long_runs.enter(who)
        try:
            result = await run_in_threadpool(
                worker.run, statistics, rules.to_dict(), body.rounds, seed,
                settings.simulation_seconds, settings.simulation_batch,
            )  # fmt: skip
        finally:
            long_runs.leave(who)
        return reply(result)

    add_body_route(
        "/api/simulations", simulations, Simulate, SimulationOut, "Statistics of many rounds"
    )

    @app.get(
        "/api/rounds/{round_id}",
        response_model=RoundOut,
        responses=errors(404),
        summary="Look at a round",
    )
    async def get_round(round_id: str) -> JSONResponse:
        """The round; its piles appear only once it is over."""
        round_ = games.get(round_id, wait=False)
        if round_ is None:  # a long request holds it: wait in a worker thread, not here
            round_ = await run_in_threadpool(games.get, round_id)
        return reply(round_)

    def me_content(player: str) -> dict[str, Any]:
        board = players.scoreboard(player)
        latest = games.latest(player)
        round_, last = (None, None) if latest is None else latest
        match_id = matches.current_id(player, round_)
        return {
            "scoreboard": {
                "won": board.won,
                "lost": board.lost,
                "drawn": board.drawn,
                "matches_won": board.matches_won,
                "matches_lost": board.matches_lost,
            },
            "round": round_,
            "last_battle": None if last is None else last.to_dict(),
            "match": None if match_id is None else matches.get(match_id),
            "house_rules": _house_rules(players.house_rules(player), players.best_of(player)),
        }

    @app.get(
        "/api/me",
        response_model=MeOut,
        responses=errors(429),
        summary="This browser's scoreboard, round and house rules",
    )
    async def me(request: Request) -> JSONResponse:
        """Rounds won, lost and drawn by this browser, its latest round with that round's last
        battle (to resume the table as it was), and the house rules it chose."""
        who = current_player(request)
        return reply(await run_in_threadpool(me_content, who.id), who)

    async def choose_house_rules(request: Request) -> JSONResponse:
        """Check and remember a preset and rule overrides; the page deals its next rounds with
        them. Remembered per browser, like the scoreboard."""
        body = parse(ChooseHouseRules, await request.body())
        who = current_player(request)
        admit_write("house rules", request, who)
        chosen, best_of = await run_in_threadpool(
            functools.partial(
                players.choose_house_rules,
                who.id,
                preset=body.preset,
                rules=body.rules,
                best_of=body.best_of,
            )
        )
        return reply(_house_rules(chosen, best_of), who)

    add_body_route(
        "/api/me/house-rules", choose_house_rules, ChooseHouseRules, HouseRulesOut,
        "Choose the rules of this browser's next rounds", method="PUT",
    )  # fmt: skip

    @app.get("/api/rules", response_model=RulesInfoOut, summary="The presets and rule fields")
    def rules_info() -> dict[str, Any]:
        """Every preset filled in, and what each rule field allows."""
        return RULES_INFO

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return Guard(app, settings)
