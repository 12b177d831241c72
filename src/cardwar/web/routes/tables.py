"""/api/tables: live tables, people each on their own device (docs/api.md#live-tables). Open
one, look at it, take a seat, its invite as a QR code. Its sockets, a person's (or a visitor's,
who watches) at /api/tables/{code}/live and a watcher's at /api/watch/{watch}/live, are not
FastAPI's routes: `cardwar/web/live/transport.py` takes them the shortest way (`LiveSockets`)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from cardwar.web.deps import Services, current_player, services, write
from cardwar.web.guard import header
from cardwar.web.live import wire
from cardwar.web.live.invite import invite, qr_svg
from cardwar.web.live.service import LiveTables
from cardwar.web.live.wire import OpenTable, TakeSeat
from cardwar.web.routing import RequestRoute, body_openapi, errors
from cardwar.web.schemas import seat_values

router = APIRouter()


def tables(request: Request) -> LiveTables:
    found: LiveTables = request.app.state.live
    return found


def links(request: Request, server: Services, code: str, watch: str) -> dict[str, Any]:
    """The table's invite, on the address others can reach (`invite.invite`)."""
    host = header(request.scope, "host")
    return invite(server.settings, request.url.scheme, host, code, watch)


async def _opened(request: Request) -> JSONResponse:
    body, who = await write(request, OpenTable, "new live tables")
    server = services(request)
    seats = seat_values(body.seats)
    assert seats is not None
    row = await tables(request).open(
        who.id, preset=body.preset, rules=body.rules, best_of=body.best_of, seats=seats,
        clock_s=body.clock_s,
    )  # fmt: skip
    content = {
        "invite": links(request, server, row.code, row.watch),
        "you": {"seat": 0, "host": True},
        "table": wire.body(await tables(request).shown(row.code)),
    }
    return server.reply(content, who, status_code=201)


def _body_route(
    path: str, endpoint: Any, model: type[Any], summary: str, status: int, *codes: int
) -> None:
    router.add_api_route(
        path, endpoint, methods=["POST"], status_code=status, summary=summary,
        responses=errors(*codes, 413, 415, 422, 429),
        openapi_extra=body_openapi(model, *re.findall(r"{(\w+)}", path)),
        route_class_override=RequestRoute,
    )  # fmt: skip


_body_route("/api/tables", _opened, OpenTable, "Open a live table", 201, 409)


@router.get(
    "/api/tables/{code}",
    summary="A live table, as its invite link shows it",
    responses=errors(404, 410),
)
async def look(code: str, request: Request) -> JSONResponse:
    """The table, the seat this browser holds at it (null when none) or the seat that went to
    the computer from it (`given`, which it may take back), and its links."""
    server = services(request)
    who = await current_player(request)
    live = tables(request)
    table = await live.table(code, look=True)
    seated = live.who(table, who.id)
    content = {
        "invite": links(request, server, code, table.row.watch),
        "you": {"seat": seated.seat, "host": seated.host, "given": table.row.given_from(who.id)},
        "table": wire.body(await live.shown(code)),
    }
    return server.reply(content, who)


async def _sit(request: Request) -> JSONResponse:
    code = request.path_params["code"]
    body, who = await write(request, TakeSeat, "seats taken")
    seated = await tables(request).sit(code, who.id, body.seat, body.name)
    content = {
        "you": {"seat": seated.seat, "host": seated.host},
        "table": wire.body(await tables(request).shown(code)),
    }
    return services(request).reply(content, who)


_body_route(
    "/api/tables/{code}/seats", _sit, TakeSeat, "Take a seat at a live table", 200, 404, 409
)


@router.get(
    "/api/tables/{code}/invite.svg",
    summary="The invite link as a QR code",
    responses=errors(404, 410),
    response_class=Response,
)
async def qr(code: str, request: Request, watch: bool = False) -> Response:
    """The table's invite link (or, with `watch`, its watch link) as a QR code, drawn here."""
    table = await tables(request).table(code, look=True)
    found = links(request, services(request), code, table.row.watch)
    link, title = (
        (found["watch_url"], "Watch link") if watch else (found["invite_url"], "Invite link")
    )
    svg = qr_svg(link, title)  # an <img>'s source: an image of its own, which scales
    return Response(svg, media_type="image/svg+xml")
