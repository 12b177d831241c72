"""What a route may ask for: its app's services, the current player, the limits.

As `Annotated` aliases for the routes whose parameters FastAPI solves, and as plain functions
of the request for the `RequestRoute`s, which read their own request (`routing.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from cardwar.web.assets import Assets
from cardwar.web.game.matches import Matches
from cardwar.web.game.players import PlayerIds, Players
from cardwar.web.game.rounds import Rounds
from cardwar.web.limits import Limits
from cardwar.web.routing import parse
from cardwar.web.settings import Settings
from cardwar.web.site.draining import Drain
from cardwar.web.warming import Warming
from cardwar.web.workers import Worker

if TYPE_CHECKING:  # redis-py loads only for a server with a broker
    from cardwar.web.broker import Broker

Body = TypeVar("Body", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Player:
    """The anonymous id in the browser's cookie; `new` when this request is the first."""

    id: str
    new: bool
    https: bool = False
    """Whether the request came over HTTPS (as a trusted proxy says): its cookie is `Secure`."""


@dataclass(frozen=True, slots=True)
class Services:
    """Everything one app's routes work with, made once by `create_app`."""

    settings: Settings
    rounds: Rounds
    matches: Matches
    players: Players
    worker: Worker
    ids: PlayerIds
    limits: Limits
    assets: Assets
    warming: Warming
    """The simulator made ready in the background: what needs it waits for it."""
    drain: Drain
    """The process's drain once told to stop (SIGTERM): /healthz says 503 meanwhile."""
    broker: Broker | None = None
    """The broker of several processes (`Settings.broker`), or None for a process alone."""

    def reply(
        self, content: Any, who: Player | None = None, status_code: int = 200
    ) -> JSONResponse:
        """`content` as JSON; a new player's answer also gives the browser its cookie."""
        response = JSONResponse(content, status_code=status_code)
        if who is not None and who.new:
            response.set_cookie(
                self.settings.cookie_name,
                who.id,
                max_age=self.settings.cookie_max_age_s,
                httponly=True,
                samesite="lax",
                secure=who.https,
            )
        return response


def services(request: Request) -> Services:
    """The services of the app that took this request."""
    found: Services = request.app.state.services
    return found


def address(request: Request) -> str:
    """The network address the request came from."""
    return request.client.host if request.client is not None else "(unknown)"


async def current_player(request: Request) -> Player:
    """The player named by the cookie, or a new signed id (newcomers are rate-limited by
    network address, so one client cannot keep out everyone else's)."""
    server = services(request)
    known = request.cookies.get(server.settings.cookie_name, "")
    https = request.url.scheme == "https"
    if server.ids.valid(known):
        return Player(known, new=False, https=https)
    await server.limits.newcomer(address(request))
    return Player(server.ids.issue(), new=True, https=https)


async def admit_write(what: str, request: Request, who: Player) -> None:
    """Count a write against its browser, its network address and the whole server."""
    await services(request).limits.write(what, who.id, address(request))


async def write(request: Request, model: type[Body], what: str) -> tuple[Body, Player]:
    """The one idiom of a route that writes: its body read as `model` (422 naming the field if it
    does not fit), its player, and the write counted (as `what`) against the rate limits."""
    body = parse(model, await request.body())
    who = await current_player(request)
    await admit_write(what, request, who)
    return body, who


def cookie_key(request: Request) -> str:
    """Whom a long run counts for: the cookie's player, or every stranger together."""
    server = services(request)
    known = request.cookies.get(server.settings.cookie_name, "")
    return known if server.ids.valid(known) else "(no cookie)"


# FastAPI runs a plain `def` dependency in a worker thread; these take no time, so they are
# `async def`, run on the event loop.


async def _services(request: Request) -> Services:
    return services(request)


async def _rounds(request: Request) -> Rounds:
    return services(request).rounds


async def _matches(request: Request) -> Matches:
    return services(request).matches


async def _limits(request: Request) -> Limits:
    return services(request).limits


async def _current_player(request: Request) -> Player:
    return await current_player(request)


ServicesDep = Annotated[Services, Depends(_services)]
RoundsDep = Annotated[Rounds, Depends(_rounds)]
MatchesDep = Annotated[Matches, Depends(_matches)]
LimitsDep = Annotated[Limits, Depends(_limits)]
CurrentPlayer = Annotated[Player, Depends(_current_player)]
