"""/api/tables: live tables, people each on their own device (docs/api.md#live-tables). Open
one, look at it, take a seat, its invite as a QR code, and its sockets: a person's (or a
visitor's, who watches) at /api/tables/{code}/live, a watcher's at /api/watch/{watch}/live."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import socket
import time
from collections import deque
from typing import Any
from urllib.parse import urlsplit

import segno
from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, Response

from cardwar.web.deps import Services, current_player, services, write
from cardwar.web.errors import BrokerDown, NotHost, TableClosed, TableNotFound, TableRefused
from cardwar.web.guard import header, host_name
from cardwar.web.live import LiveTables
from cardwar.web.live_room import Seated
from cardwar.web.live_schemas import (
    BadMessage,
    Close,
    Flip,
    Give,
    Leave,
    Next,
    OpenTable,
    Ping,
    Play,
    React,
    TakeSeat,
    read_message,
)
from cardwar.web.routing import RequestRoute, body_openapi, errors
from cardwar.web.schemas import seat_values
from cardwar.web.settings import LOOPBACK_HOSTS
from cardwar.web.tasks import stop

router = APIRouter()

# Close codes: the standard ones a hostile or too-slow client meets, and our own for a table
# that is not there (4404) or has closed (4410).
TOO_BIG, POLICY, TRY_LATER, NO_TABLE, CLOSED = 1009, 1008, 1013, 4404, 4410
BROKER_AWAY = "the server cannot reach its broker: join again"


def tables(request: Request | WebSocket) -> LiveTables:
    found: LiveTables = request.app.state.live
    return found


def lan_address() -> str | None:
    """This computer's address on its network, as others on it reach it (no packet is sent:
    a UDP socket's connect only picks the way out), or None without a network."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        found: str = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if found.startswith("127.") else found


def invite(request: Request, server: Services, code: str, watch: str) -> dict[str, Any]:
    """Where others open the table: its invite and watch links, on the address they can reach,
    and whether anyone but this computer can (with what to do when not)."""
    settings = server.settings
    host = header(request.scope, "host")
    name = host_name(host)
    base = f"{request.url.scheme}://{host}"
    shared = settings.listen_host not in LOOPBACK_HOSTS
    if shared and name in LOOPBACK_HOSTS:
        address = settings.listen_host if settings.listen_host not in ("0.0.0.0", "::") else None
        address = address or lan_address()
        if address is not None:
            base = f"{request.url.scheme}://{address}:{settings.port}"
    hint = None
    if not shared:
        hint = (
            "Only this computer can open these links: the game listens here alone. To let "
            "others on your network in, start it with: cardwar serve --host 0.0.0.0"
        )
    return {
        "code": code,
        "invite_url": f"{base}/?table={code}",
        "watch_url": f"{base}/?watch={watch}",
        "shared": shared,
        "hint": hint,
    }


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
        "invite": invite(request, server, row.code, row.watch),
        "you": {"seat": 0, "host": True},
        "table": await tables(request).state(row.code),
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
    """The table, the seat this browser holds at it (null when none), and its links."""
    server = services(request)
    who = await current_player(request)
    live = tables(request)
    presence = await live.table(code, look=True)
    seated = live.seat_of(presence, who.id)
    content = {
        "invite": invite(request, server, code, presence.row.watch),
        "you": {"seat": seated.seat, "host": seated.host},
        "table": await live.state(code),
    }
    return server.reply(content, who)


async def _sit(request: Request) -> JSONResponse:
    code = request.path_params["code"]
    body, who = await write(request, TakeSeat, "seats taken")
    seated = await tables(request).sit(code, who.id, body.seat, body.name)
    content = {
        "you": {"seat": seated.seat, "host": seated.host},
        "table": await tables(request).state(code),
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
    presence = await tables(request).table(code, look=True)
    links = invite(request, services(request), code, presence.row.watch)
    made = segno.make(links["watch_url" if watch else "invite_url"], error="m")
    # An image of its own (an <img>'s source): its namespace, and a viewBox so that it scales.
    size = made.symbol_size(scale=6)[0]
    drawn = io.BytesIO()
    made.save(
        drawn, kind="svg", scale=6, dark="#1d232a", light="#ffffff", xmldecl=False, nl=False,
        title="Watch link" if watch else "Invite link", svgclass=None, lineclass=None,
    )  # fmt: skip
    svg = drawn.getvalue().decode()
    svg = svg.replace(f'width="{size}" height="{size}"', f'viewBox="0 0 {size} {size}"', 1)
    return Response(svg, media_type="image/svg+xml")


# -- the sockets ---------------------------------------------------------------------------------


def same_origin(websocket: WebSocket) -> bool:
    """True when the socket was opened by a page of this very server (its Origin names the
    Host it asked): a page elsewhere cannot drive a seat with this browser's cookie."""
    origin = header(websocket.scope, "origin")
    host = header(websocket.scope, "host").lower()
    return bool(origin) and urlsplit(origin).netloc.lower() == host


@router.websocket("/api/tables/{code}/live")
async def person_socket(websocket: WebSocket, code: str) -> None:
    """A person's socket (or a visitor's without a seat, who watches)."""
    await serve_socket(websocket, code=code)


@router.websocket("/api/watch/{watch}/live")
async def watcher_socket(websocket: WebSocket, watch: str) -> None:
    """A watcher's socket: the whole table, live, and nothing to do at it."""
    await serve_socket(websocket, watch=watch)


async def serve_socket(websocket: WebSocket, code: str = "", watch: str = "") -> None:
    """One socket of a table, from its first message to its close."""
    if not same_origin(websocket):
        await websocket.close(POLICY, "origin: only a page of this server may open a table")
        return
    live = tables(websocket)
    server: Services = websocket.app.state.services
    await websocket.accept()
    if live.sockets >= server.settings.live_sockets:
        await refuse(websocket, TRY_LATER, "The game has as many live tables open as it can "
                     "take right now: try again in a minute.")  # fmt: skip
        return
    came_from = websocket.client.host if websocket.client is not None else "(unknown)"
    if live.sockets_from[came_from] >= server.settings.live_sockets_per_address:
        await refuse(websocket, TRY_LATER, "This network has as many live tables open as the "
                     "game lets one network have: close some, then try again.")  # fmt: skip
        return
    # Counted before anything is awaited: sockets that arrive at once cannot pass the caps
    # together while each waits for its table.
    live.sockets += 1
    live.sockets_from[came_from] += 1
    try:
        try:
            if watch:
                code = await live.code_of_watch(watch)
            presence = await live.table(code, look=True)
        except TableNotFound as error:
            await refuse(websocket, NO_TABLE, str(error))
            return
        except TableClosed as error:
            await refuse(websocket, CLOSED, str(error))
            return
        except BrokerDown:
            await refuse(websocket, TRY_LATER, BROKER_AWAY)
            return
        player = websocket.cookies.get(server.settings.cookie_name, "")
        who = Seated(None)
        if not watch and server.ids.valid(player):
            who = live.seat_of(presence, player)
        try:
            await talk(websocket, live, code, who, server)
        except BrokerDown:  # before it listened, or as it was shown the table: nothing heard
            await refuse(websocket, TRY_LATER, BROKER_AWAY)
    finally:
        live.sockets -= 1
        live.sockets_from[came_from] -= 1
        if not live.sockets_from[came_from]:
            del live.sockets_from[came_from]


async def refuse(websocket: WebSocket, close_code: int, words: str) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # gone already: nothing to say
        await websocket.send_json({"type": "error", "message": words})
        await websocket.close(close_code, words[:120])


async def talk(
    websocket: WebSocket, live: LiveTables, code: str, who: Seated, server: Services
) -> None:
    """Send the table as it stands, then everything said at it, while reading what this
    socket says, until either side closes."""
    async with live.hub.subscribe(code) as heard:
        you = {"seat": who.seat, "host": who.host}
        try:
            await websocket.send_json({"type": "welcome", "you": you})
            await websocket.send_json(await live.state(code))
        except (WebSocketDisconnect, RuntimeError):
            return  # gone before it was shown the table (a message too big closes it at once)
        try:
            await live.arrive(code, who)
        except BrokerDown:  # the others cannot be told it is here: its page tries again
            with contextlib.suppress(BrokerDown):
                await live.leave(code, who)  # counted in before the telling failed
            await websocket.close(TRY_LATER, BROKER_AWAY)
            return
        reading = asyncio.create_task(read(websocket, live, code, who, server))
        # One wait a message, and no task and no wait-set of its own (a thousand sockets' worth
        # of them kept the collector busy): when the reading ends, `next` returns None.
        reading.add_done_callback(lambda _: heard.wake())
        try:
            while True:
                message = await heard.next()
                if reading.done():
                    ended = None if reading.cancelled() or reading.exception() else reading.result()
                    if ended is not None:  # the reading closes it, with why
                        await websocket.close(*ended)
                    break
                if message is None:  # too slow to keep up: its page rejoins
                    await websocket.close(TRY_LATER, "too far behind: join again")
                    break
                await websocket.send_json(message)
                if message["type"] == "closed":
                    await websocket.close(CLOSED, "the table has closed")
                    break
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await stop(reading)
            await leave(live, code, who)


LEAVING: set[asyncio.Task[None]] = set()
"""The sockets' leaves under way (a task keeps only a weak reference to itself)."""


async def leave(live: LiveTables, code: str, who: Seated) -> None:
    """Count the socket out of its table, to the end even if the socket's own task is being
    cancelled (its connection gone, the server stopping): the seat must not stay present for
    ever, nor the table's lock taken. A broker out of reach meanwhile: the others hear of it
    when they rejoin."""
    leaving = asyncio.ensure_future(live.leave(code, who))
    LEAVING.add(leaving)
    leaving.add_done_callback(LEAVING.discard)
    leaving.add_done_callback(lambda done: done.cancelled() or done.exception())
    with contextlib.suppress(BrokerDown):
        await asyncio.shield(leaving)


async def read(
    websocket: WebSocket, live: LiveTables, code: str, who: Seated, server: Services
) -> tuple[int, str] | None:
    """Read this socket's messages and do what each asks. A message too big (1009), too many
    (1008) or a leave (1000) end the reading with the code and reason `talk` closes the socket
    with (one task sends on a socket, never two at once); anything else wrong is answered with
    an error and the socket kept; None once the other side has gone."""
    settings = server.settings
    sent: deque[float] = deque()
    while True:
        try:
            raw = await websocket.receive_text()
        except (WebSocketDisconnect, RuntimeError, KeyError):
            return None
        now = time.monotonic()
        sent.append(now)
        while sent and now - sent[0] > 1.0:
            sent.popleft()
        if len(raw.encode()) > settings.live_message_bytes:
            return TOO_BIG, f"messages are at most {settings.live_message_bytes} bytes"
        if len(sent) > settings.live_messages_per_s:
            return POLICY, f"at most {settings.live_messages_per_s} messages a second"
        try:
            await act(websocket, live, code, who, read_message(raw))
        except LeftTable:
            return 1000, "you left the table"  # a seat no longer this socket's
        except (BadMessage, TableRefused, NotHost, TableClosed, BrokerDown) as error:
            await websocket.send_json({"type": "error", "message": str(error)})


class LeftTable(Exception):
    """The socket's person left the table: the socket closes (`talk` closes it)."""


async def act(websocket: WebSocket, live: LiveTables, code: str, who: Seated, message: Any) -> None:
    """Do what one message asks."""
    if isinstance(message, Ping):
        await websocket.send_json({"type": "pong"})
    elif isinstance(message, Flip):
        if message.seat is not None and message.seat != who.seat:
            held = "no seat" if who.seat is None else f"seat {who.seat}"
            raise TableRefused(f"seat: you hold {held} at this table, not seat {message.seat}")
        await live.flip(code, who, message.battle)
    elif isinstance(message, Play):
        await live.play_many(code, who, None if message.to_end else 10)
    elif isinstance(message, React):
        await live.react(code, who, message.emoji)
    elif isinstance(message, Give):
        await live.give(code, who, message.seat)
    elif isinstance(message, Next):
        await live.next_round(code, who)
    elif isinstance(message, Close):
        if not who.host:
            raise NotHost("Only the table's host closes it.")
        await live.close(code, "host")
    elif isinstance(message, Leave):
        await live.stand_up(code, who)
        raise LeftTable
