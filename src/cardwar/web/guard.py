"""What stands in front of the app, as four pure ASGI middlewares: the headers every answer
carries, the Host it answers to, the type of request bodies, and their size."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from cardwar.web.settings import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# No inline script or style anywhere: the page is files from this server and nothing else, its
# manifest and service worker included (`manifest-src` would fall back to `default-src 'none'`).
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; manifest-src 'self'; worker-src 'self'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
# An answer that does not say how long it may be kept (every API answer, every error) is not
# kept at all: a round, a scoreboard, a refusal are each true only now.
NOT_KEPT = (b"cache-control", b"no-store")
CHANGES = {"POST", "PUT", "PATCH", "DELETE"}


def host_name(header: str) -> str:
    """The name in a Host header, without its port and brackets, lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else ""
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class SecurityHeaders:
    """Adds the security headers to every answer (a refusal of the middleware inside included),
    and `Cache-Control: no-store` to any that does not say otherwise."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), *SECURITY_HEADERS]
                if not any(key.lower() == b"cache-control" for key, _ in headers):
                    headers.append(NOT_KEPT)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class KnownHosts:
    """Refuses a Host the server does not listen on (400), against DNS rebinding: one of
    `hosts`, or with `any_ip` any IP address."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], any_ip: bool) -> None:
        self.app = app
        self.hosts = {name.lower() for name in hosts}
        self.any_ip = any_ip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = header(scope, "host")
            if not self._known(host_name(host)):
                if scope["type"] == "websocket":  # refused before it opens: a 403 answer
                    await send({"type": "websocket.close", "code": 1008})
                    return
                shown = host[:40] or "(none)"
                await refuse(send, 400, f"host: {shown} is not an address of this server")
                return
        await self.app(scope, receive, send)

    def _known(self, name: str) -> bool:
        if name in self.hosts:
            return True
        if not self.any_ip:
            return False
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True


class JsonBodies:
    """Refuses a state-changing request whose body is not `application/json` (415)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in CHANGES:
            kind = header(scope, "content-type").split(";")[0].strip()
            if kind.lower() != "application/json":
                detail = "content-type: must be application/json (the body may be empty)"
                await refuse(send, 415, detail)
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuses a state-changing request's body over `most` bytes (413) before it is read whole:
    a body is read up to the cap and handed on from memory."""

    def __init__(self, app: ASGIApp, most: int) -> None:
        self.app = app
        self.most = most

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in CHANGES:
            await self.app(scope, receive, send)
            return
        length = header(scope, "content-length").strip()
        if length.isdigit() and int(length) > self.most:
            await refuse(send, 413, self._too_large())
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > self.most:
                await refuse(send, 413, self._too_large())
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, replay(bytes(body), receive), send)

    def _too_large(self) -> str:
        return f"body: larger than {self.most} bytes, the most this server reads"


class Guard:
    """What stands in front of the app, four middlewares in Starlette's way, outermost first:
    `SecurityHeaders`, `KnownHosts`, `JsonBodies`, `BodyLimit`. `app` is the app behind them."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self._outermost = SecurityHeaders(
            KnownHosts(
                JsonBodies(BodyLimit(app, settings.max_body)),
                settings.hosts,
                settings.any_ip_host,
            )
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._outermost(scope, receive, send)


def header(scope: Scope, name: str) -> str:
    """The request header `name` (lower case), or an empty string."""
    wanted = name.encode("latin-1")
    for key, value in scope["headers"]:
        if key.lower() == wanted:
            return bytes(value).decode("latin-1")
    return ""


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
