"""What stands in front of the app and beside its routes: the Host it answers to, the size and
type of request bodies, the headers every answer carries, signed player ids, and rate limits."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import json
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from cardwar.web.errors import RateLimited
from cardwar.web.settings import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# No inline script or style anywhere: the page is files from this server and nothing else.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
CHANGES = {"POST", "PUT", "PATCH", "DELETE"}


def host_name(header: str) -> str:
    """The name in a Host header, without its port and brackets, lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else ""
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """Pure ASGI middleware in front of the app.

    Refuses a Host the server does not listen on (400, against DNS rebinding), a state-changing
    request whose body is not `application/json` (415), and a body over the cap (413, before it
    is read whole: a body is read up to the cap and handed on from memory). Adds the security
    headers to every answer.
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.hosts = {name.lower() for name in settings.hosts}
        self.any_ip = settings.any_ip_host
        self.max_body = settings.max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        host = headers.get("host", b"").decode("latin-1")
        if not self._host_ok(host_name(host)):
            shown = host[:40] or "(none)"
            await refuse(send_with_headers, 400, f"host: {shown} is not an address of this server")
            return
        if scope["method"] in CHANGES:
            kind = headers.get("content-type", b"").decode("latin-1").split(";")[0].strip()
            if kind.lower() != "application/json":
                detail = "content-type: must be application/json (the body may be empty)"
                await refuse(send_with_headers, 415, detail)
                return
            length = headers.get("content-length", b"").decode("latin-1").strip()
            if length.isdigit() and int(length) > self.max_body:
                await refuse(send_with_headers, 413, self._too_large())
                return
            body = bytearray()
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                body += message.get("body", b"")
                if len(body) > self.max_body:
                    await refuse(send_with_headers, 413, self._too_large())
                    return
                if not message.get("more_body", False):
                    break
            receive = replay(bytes(body), receive)
        await self.app(scope, receive, send_with_headers)

    def _host_ok(self, name: str) -> bool:
        if name in self.hosts:
            return True
        if not self.any_ip:
            return False
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def _too_large(self) -> str:
        return f"body: larger than {self.max_body} bytes, the most this server reads"


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands over `body` at once, then waits as the original would."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


async def refuse(send: Send, status: int, detail: str) -> None:
    """Answer `{"detail": ...}` with `status`, as every other error is answered."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class PlayerIds:
    """Anonymous player ids, signed with the server's key so that nobody can make their own:
    a rate limit per browser means something only if a browser cannot be invented at will."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def issue(self) -> str:
        """A new id: 128 random bits and their signature."""
        token = secrets.token_urlsafe(16)
        return f"{token}.{self._sign(token)}"

    def valid(self, value: str) -> bool:
        """True if `value` is an id this server issued."""
        token, dot, signature = value.partition(".")
        return bool(dot) and len(value) <= 64 and hmac.compare_digest(signature, self._sign(token))

    def _sign(self, token: str) -> str:
        digest = hmac.new(self._key, token.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:12]).decode()


class Buckets:
    """Token buckets by key: `per_second` tokens come back each second, up to `burst`. Only the
    most recently used keys are kept: a forgotten key starts again with a full bucket."""

    def __init__(
        self, per_second: float, burst: int, clock: Callable[[], float], keys: int = 100_000
    ) -> None:
        self._rate, self._burst, self._clock, self._keys = per_second, burst, clock, keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait(self, key: str) -> float:
        """0.0 if `key` may go on now; else the seconds until it may (nothing is taken)."""
        tokens, _ = self._refill(key)
        return 0.0 if tokens >= 1 else (1 - tokens) / self._rate

    def take(self, key: str) -> None:
        """Use one token of `key`'s bucket (after `wait` said it may)."""
        tokens, now = self._refill(key)
        self._buckets[key] = (tokens - 1, now)
        self._buckets.move_to_end(key)
        while len(self._buckets) > self._keys:
            self._buckets.popitem(last=False)

    def _refill(self, key: str) -> tuple[float, float]:
        now = self._clock()
        tokens, then = self._buckets.get(key, (float(self._burst), now))
        return min(self._burst, tokens + (now - then) * self._rate), now


def admit(what: str, *checks: tuple[Buckets, str]) -> None:
    """Take a token from each (buckets, key) pair, or none at all and raise RateLimited."""
    waits = [buckets.wait(key) for buckets, key in checks]
    if max(waits) > 0:
        raise RateLimited(what, max(waits))
    for buckets, key in checks:
        buckets.take(key)


class LongRuns:
    """Requests of many battles played or being sent at once: at most `most`, one a browser."""

    def __init__(self, most: int) -> None:
        self._most = most
        self._who: set[str] = set()

    def enter(self, who: str) -> None:
        """Count a long run in for `who`, or raise RateLimited."""
        if who in self._who:
            raise RateLimited("battles: one long run at a time for each browser", 1)
        if len(self._who) >= self._most:
            raise RateLimited("battles: the server is busy with other long runs", 2)
        self._who.add(who)

    def leave(self, who: str) -> None:
        """Count `who`'s long run out."""
        self._who.discard(who)


class Estimates:
    """Chance estimates (a few milliseconds of numba each, in a thread): `at_once` computed at a
    time, `waiting` more in line, and any beyond that turned away at once.

    Every thread computing an estimate competes for the processor with the event loop that
    answers clicks, and the page asks for one after every battle it shows: unchecked, a hundred
    players clicking ten times a second left the clicks waiting 80 ms (benchmarks/load.py). An
    estimate turned away costs its player nothing but the meter for that battle.
    """

    def __init__(self, at_once: int, waiting: int) -> None:
        self._slots = asyncio.Semaphore(at_once)
        self._most = at_once + waiting
        self._in = 0

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait for a turn to compute an estimate, or raise RateLimited if the line is full."""
        if self._in >= self._most:
            raise RateLimited("chance: the server is busy with other players' estimates", 1)
        self._in += 1
        try:
            async with self._slots:
                yield
        finally:
            self._in -= 1


class Limits:
    """Every rate limit of the server, sized by its settings."""

    def __init__(self, settings: Settings) -> None:
        per_minute, burst, clock = settings.writes_per_minute, settings.writes_burst, settings.clock
        by_address, all_of_them = settings.address_writes_times, settings.server_writes_times
        self._writes = Buckets(per_minute / 60, burst, clock)
        self._by_address = Buckets(by_address * per_minute / 60, by_address * burst, clock)
        self._all_writes = Buckets(all_of_them * per_minute / 60, all_of_them * burst, clock)
        self._newcomers = Buckets(
            settings.new_players_per_minute / 60, settings.new_players_burst, clock
        )
        self.long_runs = LongRuns(settings.long_runs)
        self.estimates = Estimates(settings.estimates_at_once, settings.estimates_waiting)

    def write(self, what: str, player: str, address: str) -> None:
        """A write counts against its browser, its network address and the whole server."""
        admit(what, (self._writes, player), (self._by_address, address), (self._all_writes, "*"))

    def newcomer(self, address: str) -> None:
        """A new player id counts against its network address, so that one client cannot keep
        out everyone else's."""
        admit("newcomers", (self._newcomers, address))
