"""What an operator watches (docs/deploy.md#watching-the-site): Prometheus's text format, from
the `prometheus-client` library, on an address of its own that `cardwar serve --metrics
HOST:PORT` names; never on the game's own port, so never through the site's proxy.

The figures: requests and their latency by route (`Watched`, only while metrics are served),
open live sockets and the live tables they sit at, battles played and stored, refusals by
their reason, and the database's and the broker's errors and round trips. They are counted in
every process; with `--workers N`, each process writes its own to files in a folder of the
supervisor's (prometheus-client's multiprocess mode, PROMETHEUS_MULTIPROC_DIR), and the
supervisor serves them summed (`serve_many_metrics`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import Counter, Gauge, Histogram

TIMES = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Latency buckets, in seconds: a click takes about a millisecond, a long run seconds."""

REQUESTS = Counter(
    "cardwar_requests", "HTTP requests answered, by route, method and status",
    ["route", "method", "status"],
)  # fmt: skip
REQUEST_SECONDS = Histogram(
    "cardwar_request_seconds", "Time to answer an HTTP request, by route", ["route"],
    buckets=TIMES,
)  # fmt: skip
LIVE_SOCKETS = Gauge(
    "cardwar_live_sockets", "Live tables' sockets open", multiprocess_mode="livesum"
)
LIVE_TABLES = Gauge(
    "cardwar_live_tables", "Live tables with a socket open here", multiprocess_mode="livesum"
)
BATTLES = Counter(
    "cardwar_battles", "Battles played and stored, by where: alone (solo) or at a live table",
    ["where"],
)  # fmt: skip
REFUSALS = Counter(
    "cardwar_refusals", "Requests, connections and sockets refused, by reason", ["reason"]
)
DATABASE_SECONDS = Histogram(
    "cardwar_database_seconds", "Time a request held a database connection", buckets=TIMES
)
DATABASE_ERRORS = Counter(
    "cardwar_database_errors", "Database calls that failed: out of reach, or past deadline"
)
BROKER_SECONDS = Histogram(
    "cardwar_broker_seconds", "Round trip of a call to the broker (Redis)", buckets=TIMES
)
BROKER_ERRORS = Counter("cardwar_broker_errors", "Broker calls that failed or timed out")


def refused(reason: str) -> None:
    """Count a refusal (`reason`: a short name, such as `rate_limit` or `connections_full`)."""
    REFUSALS.labels(reason).inc()


class Watched:
    """An ASGI app counted: each HTTP request by its route (the path as the app declares it,
    `/api/rounds/{round_id}/battles`, never the ids), method and status, and its time."""

    def __init__(self, app: Any, routes: Iterable[Any]) -> None:
        self.app = app
        self._paths = {route.endpoint: route.path for route in routes if hasattr(route, "endpoint")}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)  # the app's own (`state`), as if this were the app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # an answer never started: the server failed it
        started = time.perf_counter()

        async def noted(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noted)
        finally:
            route = self._route(scope)
            REQUESTS.labels(route, scope["method"], str(status)).inc()
            REQUEST_SECONDS.labels(route).observe(time.perf_counter() - started)

    def _route(self, scope: Any) -> str:
        endpoint = scope.get("endpoint")
        if endpoint is not None and endpoint in self._paths:
            return str(self._paths[endpoint])
        if scope.get("path", "").startswith("/static/"):
            return "/static"
        return "unmatched"  # refused before routing (a Host, a size), or no such route


def serve_metrics(address: str, registry: Any = None) -> Callable[[], None]:
    """Serve the figures on `address` (HOST:PORT) in a thread of this process; returns what
    stops it."""
    from prometheus_client import REGISTRY, start_http_server

    host, port = split_address(address)
    server, thread = start_http_server(port, host, registry=registry or REGISTRY)

    def stop() -> None:
        server.shutdown()
        thread.join()

    return stop


def serve_many_metrics(address: str, folder: str) -> Callable[[], None]:
    """Serve the figures of every process of `cardwar serve --workers N`, which each write to
    `folder` (PROMETHEUS_MULTIPROC_DIR), summed; a process that has ended no longer counts in
    the open sockets and live tables."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.multiprocess import MultiProcessCollector

    class Living(MultiProcessCollector):
        def collect(self) -> Any:
            forget_the_ended(folder)
            return super().collect()  # type: ignore[no-untyped-call]

    registry = CollectorRegistry()
    Living(registry, path=folder)  # type: ignore[no-untyped-call]
    return serve_metrics(address, registry)


def forget_the_ended(folder: str) -> None:
    """Let go of the live figures of processes that have ended (each writes its own file)."""
    from prometheus_client.multiprocess import mark_process_dead

    for name in os.listdir(folder):
        if not name.startswith("gauge_live") or not name.endswith(".db"):
            continue
        pid = int(name.rsplit("_", 1)[1].removesuffix(".db"))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            mark_process_dead(pid, folder)  # type: ignore[no-untyped-call]
        except PermissionError:
            pass  # alive, another user's


def split_address(address: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets) as (host, port); ValueError naming what is wrong."""
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{address!r} is not HOST:PORT (such as 127.0.0.1:9464)")
    return host.strip("[]"), int(port)
