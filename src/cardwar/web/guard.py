"""What stands in front of the app: the Host it answers to, the size and type of request bodies,
and the headers every answer carries."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
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


class Guard:
    """Pure ASGI middleware in front of the app.

    Refuses a Host the server does not listen on (400, against DNS rebinding), a state-changing
    request whose body is not `application/json` (415), and a body over the cap (413, before it
    is read whole: a body is read up to the cap and handed on from memory). Adds the security
    headers to every answer, and `Cache-Control: no-store` to any that does not say otherwise.
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
                headers = [*message.get("headers", []), *SECURITY_HEADERS]
                if not any(key.lower() == b"cache-control" for key, _ in headers):
                    headers.append(NOT_KEPT)
                message["headers"] = headers
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
