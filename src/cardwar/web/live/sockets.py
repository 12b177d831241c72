"""A live table's socket, from its opening to its close (docs/api.md#the-sockets): let in (or
refused, and closed with the code its cause names), shown the table, then told everything said
at the table while what it sends is read and done, one message at a time.

A socket is transport: what it reads becomes one call of `LiveTables`, whose refusal is answered
with an `error` message (the socket kept) or, for a cause that ends it, a close with that
cause's own code (`TableError.close`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from urllib.parse import urlsplit

from fastapi import WebSocket, WebSocketDisconnect

from cardwar.web.deps import Services
from cardwar.web.errors import BrokerDown, TryAgain
from cardwar.web.guard import header
from cardwar.web.limits import Limits
from cardwar.web.live.doors import Full
from cardwar.web.live.errors import BadMessage, TableBusy, TableClosed, TableError
from cardwar.web.live.hub import Subscription
from cardwar.web.live.service import LiveTables
from cardwar.web.live.table import Who
from cardwar.web.live.wire import (
    Again,
    Close,
    Flip,
    Give,
    In,
    Leave,
    Next,
    Ping,
    Play,
    Pong,
    Problem,
    React,
    Welcome,
    read_message,
    write,
)
from cardwar.web.tasks import stop

# Close codes: the standard ones a hostile or too-slow client meets; a table that is not there
# (4404) or has closed (4410) closes with its error's own (`TableError.close`); a table busy in
# another process as it joins, 1013 with its own words (not the broker's: it is not away).
LEFT, UNREADABLE, POLICY, TOO_BIG, TRY_LATER = 1000, 1003, 1008, 1009, 1013
CLOSED = TableClosed.close
BROKER_AWAY = "the server cannot reach its broker: join again"
BEHIND = "too far behind: join again"
MADE_ROOM = (
    "The game is full, and your network holds more of its live tables than any other: this "
    "one was closed to let someone else in. Try again in a minute."
)


def same_origin(websocket: WebSocket) -> bool:
    """True when the socket was opened by a page of this very server (its Origin names the
    Host it asked): a page elsewhere cannot drive a seat with this browser's cookie."""
    origin = header(websocket.scope, "origin")
    host = header(websocket.scope, "host").lower()
    return bool(origin) and urlsplit(origin).netloc.lower() == host


async def serve(websocket: WebSocket, live: LiveTables, code: str = "", watch: str = "") -> None:
    """One socket of a table (a person's by its invite `code`, or a watcher's by `watch`),
    from its first message to its close."""
    if not same_origin(websocket):
        await websocket.close(POLICY, "origin: only a page of this server may open a table")
        return
    server: Services = websocket.app.state.services
    doors = live.doors
    await websocket.accept()
    came_from = websocket.client.host if websocket.client is not None else "(unknown)"
    # Counted in before anything is awaited: sockets that arrive at once cannot pass the caps
    # together while each waits for its table. Its own task is kept with it, so that a socket
    # of an address that holds the most can be closed to seat one of another (`Doors.let_in`).
    settings = server.settings
    ticket = doors.let_in(
        came_from, asyncio.current_task(), settings.live_sockets, settings.live_sockets_per_address
    )
    if ticket is Full.SERVER:
        await refuse(websocket, TRY_LATER, "The game has as many live tables open as it can "
                     "take right now: try again in a minute.")  # fmt: skip
        return
    if ticket is Full.ADDRESS:
        await refuse(websocket, TRY_LATER, "This network has as many live tables open as the "
                     "game lets one network have: close some, then try again.")  # fmt: skip
        return
    try:
        try:
            if watch:
                code = await live.room.code_of_watch(watch)
            table = await live.table(code, look=True)
            player = websocket.cookies.get(server.settings.cookie_name, "")
            who = Who(None)
            if not watch and server.ids.valid(player):
                who = live.who(table, player)
            await talk(websocket, live, code, who)
        except TableBusy as error:  # held elsewhere as it was shown the table: come again
            await refuse(websocket, TRY_LATER, str(error))
        except TableError as error:
            await refuse(websocket, error.close or POLICY, str(error))
        except BrokerDown:  # before it listened, or as it was shown the table: nothing heard
            await refuse(websocket, TRY_LATER, BROKER_AWAY)
        except asyncio.CancelledError:
            if not ticket.evicted:
                raise
            if ticket.task is not None:
                ticket.task.uncancel()  # closed by its own task: the one that sends on it
            await refuse(websocket, TRY_LATER, MADE_ROOM)
    finally:
        doors.let_out(ticket)


async def refuse(websocket: WebSocket, close_code: int, words: str) -> None:
    """Tell the socket why, then close it with `close_code`."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # gone already: nothing to say
        await websocket.send_text(write(Problem(words)).text)
        await websocket.close(close_code, words[:120])


async def talk(websocket: WebSocket, live: LiveTables, code: str, who: Who) -> None:
    """Send the table as it stands, then everything said at it, while reading what this
    socket says, until either side closes."""
    # The handshake's headers have been read (its origin, host and cookie), and a socket may
    # stay open for hours: it keeps none of them (about 1.3 KB a socket as uvicorn hands them).
    # Emptied where they are, the list the server and Starlette's cached `headers` both hold.
    headers = websocket.scope.get("headers")
    if isinstance(headers, list):
        headers.clear()
    for read_once in ("_cookies", "_headers"):  # Starlette's, cached as they were first read
        vars(websocket).pop(read_once, None)
    async with live.hub.subscribe(code) as heard:
        try:
            said = await _show(websocket, live, code, who)
        except (WebSocketDisconnect, RuntimeError):
            return  # gone before it was shown the table (a message too big closes it at once)
        try:
            await live.doors.arrive(code, who)
        except BrokerDown:  # the others cannot be told it is here: its page tries again
            with contextlib.suppress(BrokerDown, TableBusy):
                await live.doors.leave(code, who)  # counted in before the telling failed
            await websocket.close(TRY_LATER, BROKER_AWAY)
            return
        except TableBusy as error:  # counted out again (`Doors.arrive`): its page tries again
            await websocket.close(TRY_LATER, str(error)[:120])
            return
        reading = asyncio.create_task(read(websocket, live, code, who))
        # One wait a message, and no task and no wait-set of its own (a thousand sockets' worth
        # of them kept the collector busy): when the reading ends, `next` returns None.
        reading.add_done_callback(heard.wake)  # a bound method: no closure kept a socket
        try:
            await _hear(websocket, heard, reading, said)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await stop(reading)
            await leave(live, code, who)


async def _show(websocket: WebSocket, live: LiveTables, code: str, who: Who) -> int:
    """Welcome the socket and show it the table; the number of the last message told before
    it was shown. A function of its own so that the table shown (a round's JSON, about 1 KB) is
    not a local of `talk`, kept for the socket's life once sent."""
    await websocket.send_text(write(Welcome({"seat": who.seat, "host": who.host})).text)
    shown, said = await live.shown_to_join(code)
    await websocket.send_text(write(shown).text)
    return said


async def _hear(
    websocket: WebSocket,
    heard: Subscription,
    reading: asyncio.Task[Ending],
    shown: int,
) -> None:
    """Send the socket each message said at the table, until the reading ends or it falls
    behind (dropped by the hub, or by a broker that was lost: its page rejoins). It listened
    before it was shown the table: a message told before that (numbered up to `shown`), which
    the table it was shown holds already, is let go; every later one is told."""
    while True:
        said = await heard.next()
        if reading.done():
            ended = None if reading.cancelled() or reading.exception() else reading.result()
            if ended is not None:  # the reading closes it, with why
                await websocket.close(*ended)
            return
        if said is None:
            await websocket.close(TRY_LATER, BROKER_AWAY if heard.lost else BEHIND)
            return
        if 0 < said.number <= shown:
            continue  # told before the table was shown: it holds it already
        if said.number:
            shown = 0  # the first told after: nothing older comes now (they come in order)
        await websocket.send_text(said.text)
        if said.type == "closed":
            await websocket.close(CLOSED, "the table has closed")
            return


LEAVING: set[asyncio.Task[None]] = set()
"""The sockets' leaves under way (a task keeps only a weak reference to itself)."""


async def leave(live: LiveTables, code: str, who: Who) -> None:
    """Count the socket out of its table, to the end even if the socket's own task is being
    cancelled (its connection gone, the server stopping): the seat must not stay present for
    ever, nor the table's lock taken. A broker out of reach meanwhile, or the table busy
    elsewhere: the sweep tells the others (`Doors.unsettled`)."""
    leaving = asyncio.ensure_future(live.doors.leave(code, who))
    LEAVING.add(leaving)
    leaving.add_done_callback(LEAVING.discard)
    leaving.add_done_callback(lambda done: done.cancelled() or done.exception())
    with contextlib.suppress(BrokerDown, TableBusy):
        await asyncio.shield(leaving)


Ending = tuple[int, str] | None
"""How the reading ends: the code and reason to close the socket with, or None (it is gone)."""


async def read(websocket: WebSocket, live: LiveTables, code: str, who: Who) -> Ending:
    """Read this socket's messages and do what each asks. A binary frame (1003), a message too
    big (1009), too many (1008) or a leave (1000) end the reading with the code and reason
    `talk` closes the socket with (one task sends on a socket, never two at once); anything else
    wrong is answered with an error and the socket kept; None once the other side has gone."""
    settings = websocket.app.state.services.settings
    # The moments of the messages read in the last second, for the limit: a list, not a deque,
    # whose first block of 64 slots (about 700 bytes) every socket that ever said a word kept.
    sent: list[float] = []
    while True:
        try:
            frame = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return None
        if frame["type"] == "websocket.disconnect":
            return None
        raw = frame.get("text")
        if raw is None:
            return UNREADABLE, "messages are JSON text, not binary frames"
        now = time.monotonic()
        sent.append(now)
        while sent and now - sent[0] > 1.0:
            del sent[0]  # a few dozen at most: the limit closes the socket past it
        if len(raw.encode()) > settings.live_message_bytes:
            return TOO_BIG, f"messages are at most {settings.live_message_bytes} bytes"
        if len(sent) > settings.live_messages_per_s:
            return POLICY, f"at most {settings.live_messages_per_s} messages a second"
        try:
            if await act(websocket, live, code, who, read_message(raw)):
                return LEFT, "you left the table"  # a seat no longer this socket's
        except TableError as error:
            if error.close is not None:
                return error.close, str(error)[:120]
            await websocket.send_text(write(Problem(str(error))).text)
        except TryAgain as error:  # a limit, or the broker out of reach: said, the socket kept
            await websocket.send_text(write(Problem(str(error))).text)


async def act(websocket: WebSocket, live: LiveTables, code: str, who: Who, message: In) -> bool:
    """Do what one message asks; True when the socket's person left the table. A deal is a
    write like any other (the limits of `POST /api/rounds`), and a run to the round's end a long
    run like one over HTTP (one at a time for each browser, a few for the whole server)."""
    limits: Limits = websocket.app.state.services.limits
    if isinstance(message, Next | Again) and who.host and who.player is not None:
        address = websocket.client.host if websocket.client is not None else "(unknown)"
        await limits.write("new rounds", who.player, address)
    if isinstance(message, Play) and message.to_end and who.host and who.player is not None:
        await limits.long_runs.enter(who.player)
        try:
            await live.play_many(code, who, None, message.speed, message.tag)
        finally:
            await limits.long_runs.leave(who.player)
    elif isinstance(message, Ping):
        await websocket.send_text(write(Pong()).text)
    elif isinstance(message, Flip):
        if message.seat is not None and message.seat != who.seat:
            held = "no seat" if who.seat is None else f"seat {who.seat}"
            raise BadMessage(f"seat: you hold {held} at this table, not seat {message.seat}")
        await live.flip(code, who, message.battle)
    elif isinstance(message, Play):
        count = None if message.to_end else (message.count or 10)
        await live.play_many(code, who, count, message.speed, message.tag)
    elif isinstance(message, React):
        await live.react(code, who, message.emoji)
    elif isinstance(message, Give):
        await live.give(code, who, message.seat)
    elif isinstance(message, Next):
        await live.next_round(code, who, message)
    elif isinstance(message, Again):
        await live.again(code, who)
    elif isinstance(message, Close):
        await live.close_as_host(code, who)
    elif isinstance(message, Leave):
        await live.stand_up(code, who)
        return True
    return False
