"""`cardwar serve`: run the web game until interrupted, after saying where to open it.

Only this command loads the web stack (`main` imports this module when asked to serve), so
`cardwar round` starts without it; the app prepares the simulator's compiled code as it starts,
and this command shows how that goes on a first run.
"""

from __future__ import annotations

import argparse
import socket
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from cardwar.cli.shared import days, port, print_line, whole
from cardwar.errors import CardwarError
from cardwar.sim.warm import FIRST_RUN_S
from cardwar.web import Settings
from cardwar.web.settings import LOOPBACK_HOSTS

SERVER = Settings()  # the server's defaults, which `cardwar serve --help` shows
WILDCARDS = {"0.0.0.0", "::", "[::]", ""}
PREPARING = f"cardwar: preparing the simulator, first run only: about {FIRST_RUN_S} s"


class Start:
    """How the server's start goes, on `out`: a slow preparation of the simulator as a progress
    line (a line a step when `out` is not a terminal), then where to open the game."""

    def __init__(self, out: Console, said: list[str]) -> None:
        self._out, self._said = out, said
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def preparing(self, done: int, total: int, what: str) -> None:
        """Show the step under way (`what`), or end the line when all are `done`."""
        if not self._out.is_terminal:
            if what:
                print_line(self._out, f"{PREPARING} ({what}, {done + 1} of {total})")
            return
        if self._bar is None:
            self._bar = Progress(
                TextColumn(PREPARING),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.description}"),
                console=self._out,
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(what, total=total)
        assert self._task is not None
        self._bar.update(self._task, completed=done, description=what)
        if not what:
            self._bar.stop()

    def ready(self) -> None:
        """Say where to open the game, and what else its start found worth saying."""
        for line in self._said:
            print_line(self._out, line)


def kept_in(db: Path | str) -> str:
    """The database as the start says it: a file's full path, or the URL without a password."""
    from cardwar.web.store.engines import where

    return str(db.resolve()) if isinstance(db, Path) else str(where(db))


def serve(
    out: Console,
    *,
    host: str,
    port: int,
    db: str | None,
    max_battles: int,
    keep_days: float,
    allow_hosts: Sequence[str] = (),
    broker: str | None = None,
    workers: int = 1,
    give_after: float = SERVER.live_give_after_s,
) -> int:
    """Run the web game until interrupted, after saying where to open it."""
    if broker is not None:
        from cardwar.web.broker import split_url

        split_url(broker)  # a URL that is not one: said before anything starts
    if workers > 1 and broker is None:
        raise ServeError(
            f"--workers {workers}: several processes share their live tables and limits through "
            "a broker: name one with --broker redis://HOST:6379 (docs/deploy.md)"
        )
    wide = host in WILDCARDS
    names = [*LOOPBACK_HOSTS, host.strip("[]"), *allow_hosts]
    if host not in LOOPBACK_HOSTS:
        names += [socket.gethostname(), socket.getfqdn()]
    options: dict[str, Any] = {
        "listen_host": host,
        "port": port,
        "max_battles": max_battles,
        "keep_days": keep_days,
        "live_give_after_s": give_after,
        "hosts": tuple(dict.fromkeys(name.lower() for name in names if name)),
        "any_ip_host": wide,
    }
    if db is not None:
        options["db"] = db
    if broker is not None:
        options["broker"] = broker
    settings = settings_of(options)
    shown = "127.0.0.1" if wide else f"[{host}]" if ":" in host else host
    said = [
        f"cardwar: open http://{shown}:{port} in your browser (Ctrl+C stops the server)",
        f"cardwar: rounds are kept in {kept_in(settings.db)}",
    ]
    if host not in LOOPBACK_HOSTS:
        said.append(
            f"cardwar: warning: listening on {host}, not only this computer: anyone who can "
            "reach it on your network can play here"
        )
    if workers > 1:
        said[0] += f", {workers} server processes"
        return serve_many(out, settings, options, workers, Start(out, said))
    import uvicorn  # the web stack loads only when asked to serve

    from cardwar.web.app import create_app

    if settings.broker is not None:
        reach_broker(settings.broker)
    app = create_app(settings, starting=Start(out, said))
    uvicorn.run(app, **uvicorn_options(settings))
    return 0


class ServeError(CardwarError):
    """`cardwar serve` cannot start as asked (exit status 2, and the reason)."""


def settings_of(options: dict[str, Any]) -> Settings:
    """The server's settings from `cardwar serve`'s options (also as JSON, in a worker)."""
    chosen = dict(options)
    if "db" in chosen:
        chosen["db"] = chosen["db"] if "://" in chosen["db"] else Path(chosen["db"])
    if "hosts" in chosen:
        chosen["hosts"] = tuple(chosen["hosts"])
    return Settings(**chosen)


def reach_broker(url: str) -> None:
    """ServeError unless the broker at `url` answers now (a server must not start without
    it)."""
    import asyncio

    from redis.exceptions import RedisError

    from cardwar.web.broker import COMMAND_S, Broker, shown

    async def answer() -> str | None:
        broker = Broker(url)
        try:
            async with asyncio.timeout(COMMAND_S):
                await broker.redis.ping()
        except TimeoutError:
            return f"no answer in {COMMAND_S:g} s"
        except (RedisError, OSError) as error:
            return " ".join(str(error).split())
        finally:
            await broker.close()
        return None

    failed = asyncio.run(answer())
    if failed is not None:
        raise ServeError(f"--broker {shown(url)}: cannot reach the broker there ({failed})")


STARTING_S = 60
"""How long one of several server processes may take to start, or to answer its supervisor."""
OPTIONS_VARIABLE = "CARDWAR_SERVE_OPTIONS"
"""How `serve_many` hands its options to each server process (JSON)."""
SUPERVISOR_VARIABLE = "CARDWAR_SERVE_SUPERVISOR"
"""The process id of `serve_many` (uvicorn's supervisor), handed to each server process: its
own parent at its start may already be another, when the supervisor was killed as it began."""


def serve_many(
    out: Console, settings: Settings, options: dict[str, Any], workers: int, start: Start
) -> int:
    """Run `workers` server processes on one listening socket (uvicorn's supervisor: one that
    dies is replaced; SIGHUP replaces them one at a time, each new one serving before its old
    one stops). The database is upgraded and the simulator prepared here, once, first."""
    import asyncio
    import json
    import os

    import uvicorn

    from cardwar.web.app import prepare_simulator
    from cardwar.web.store import Store

    assert settings.broker is not None
    reach_broker(settings.broker)
    Store(settings.db).close()  # brought up to date once, before any process opens it
    # numba's cache filled here, once, so that each process loads the kernels, not compiles
    # them (a first run says so on `start`, as one process's start does)
    asyncio.run(prepare_simulator(start, None))
    os.environ[OPTIONS_VARIABLE] = json.dumps(options, default=str)
    os.environ[SUPERVISOR_VARIABLE] = str(os.getpid())
    start.ready()
    uvicorn.run(
        f"{__name__}:app_of_environment",
        factory=True,
        workers=workers,
        # How long a process may take to start (or to answer its supervisor) before it is
        # given up on: uvicorn's 5 s aborted rolling restarts on a busy machine, keeping the
        # old process, since a start loads the simulator's kernels and a worker process.
        timeout_worker_healthcheck=STARTING_S,
        **uvicorn_options(settings),
    )
    return 0


def app_of_environment() -> Any:
    """One server process of `serve_many`: the app of the options it was handed. It stops
    (as SIGTERM stops it) once its supervisor has gone without stopping it (killed outright),
    rather than live on, an orphan holding the port and serving as nobody's."""
    import json
    import os
    import threading

    from cardwar.web.app import create_app

    supervisor = int(os.environ[SUPERVISOR_VARIABLE])
    threading.Thread(target=_stop_without, args=(supervisor,), daemon=True).start()
    return create_app(settings_of(json.loads(os.environ[OPTIONS_VARIABLE])))


def _stop_without(supervisor: int) -> None:
    import os
    import signal
    import time

    from cardwar.web.workers import PARENT_LOOK_S

    while os.getppid() == supervisor:
        time.sleep(PARENT_LOOK_S)
    os.kill(os.getpid(), signal.SIGTERM)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How uvicorn serves the app: quiet, and sized for live tables' sockets."""
    from cardwar.web.live.transport import SocketProtocol

    return {
        "host": settings.listen_host,
        "port": settings.port,
        "log_level": "warning",
        "access_log": False,
        "server_header": False,
        "timeout_graceful_shutdown": settings.grace_s,
        # A live table's socket message over its size is refused as it arrives (1009), never
        # read whole first (the app checks it again: docs/api.md#limits-of-live-tables).
        "ws_max_size": settings.live_message_bytes,
        # A live table's messages are under a kilobyte: compressing them saves little, and each
        # socket's compressor took half its memory (about 45 KB of 90: benchmarks/tables.py).
        "ws_per_message_deflate": False,
        # uvicorn's sans-I/O WebSocket protocol, made lighter for sockets kept open for hours
        # (about 16 KB each at most: cardwar/web/live/transport.py).
        "ws": SocketProtocol,
    }


def add_parser(commands: Any) -> None:
    """`cardwar serve` and its options, among the `commands` of `cardwar`."""
    serve = commands.add_parser(
        "serve",
        help="start the web game",
        description=textwrap.fill(
            "Start the web game in your browser: you against the computer, or people at one "
            "device. It prepares the simulator before it answers (a first run compiles it). "
            "Rounds, house rules and scoreboards are kept in one SQLite file, readable by you "
            "only; nothing leaves this machine. The server protects itself: it ends every round "
            f"at a safety cap of battles, reads no body over {SERVER.max_body // 1024} KB, "
            "answers only to its own addresses, limits how fast each browser deals new rounds, "
            "and removes rounds nobody has touched for a while. SIGTERM or Ctrl+C stops it "
            "within 10 seconds, losing no answered battle.",
            width=79,
        ),
    )
    serve.add_argument(
        "--host",
        default=SERVER.listen_host,
        help=f"address to listen on (default: {SERVER.listen_host}, this computer only); "
        "0.0.0.0 lets other devices on your network play, and is warned about",
    )
    serve.add_argument(
        "--port", type=port, default=SERVER.port, help=f"port to listen on ({SERVER.port})"
    )
    serve.add_argument(
        "--db",
        default=None,
        metavar="PATH|URL",
        help="where rounds and scores are kept: a SQLite file, or a PostgreSQL database's "
        "postgresql:// URL (default: $CARDWAR_DB or ./cardwar.db); brought to this cardwar's "
        "schema as the server starts",
    )
    serve.add_argument(
        "--max-battles",
        type=whole(1, Settings.max_cap),
        default=SERVER.max_battles,
        metavar="N",
        help="safety cap: end every round after N battles, even one whose rules have no "
        f"battle limit, as a battle-limit ending (default: {SERVER.max_battles})",
    )
    serve.add_argument(
        "--keep-days",
        type=days,
        default=SERVER.keep_days,
        metavar="DAYS",
        help="remove rounds, finished or abandoned, that nobody has touched for DAYS days; "
        f"scoreboards keep their totals (default: {SERVER.keep_days:g})",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests addressed to NAME (a host name this computer is reached "
        "by); may be given more than once",
    )
    add_site_options(serve)
    serve.set_defaults(run=run)


def add_site_options(serve: Any) -> None:
    """`cardwar serve`'s options for a site of several processes, and for its live tables."""
    serve.add_argument(
        "--broker",
        default=None,
        metavar="URL",
        help="a Redis server's redis:// URL, which carries live tables' messages between "
        "processes and keeps the limits server-wide; needed by --workers, and by several "
        "machines serving one PostgreSQL database (docs/deploy.md)",
    )
    serve.add_argument(
        "--give-after",
        type=whole(5, 3600),
        default=int(SERVER.live_give_after_s),
        metavar="SECONDS",
        help="at a live table, how long a person is away before the host may let the computer "
        f"play their seat (default: {SERVER.live_give_after_s:g}); they may take it back",
    )
    serve.add_argument(
        "--workers",
        type=whole(1, 64),
        default=1,
        metavar="N",
        help="run N server processes on this port (default: 1); more than one needs --broker",
    )


def run(out: Console, args: argparse.Namespace) -> int:
    """`cardwar serve` with the options parsed."""
    return serve(
        out,
        host=args.host,
        port=args.port,
        db=args.db,
        max_battles=args.max_battles,
        keep_days=args.keep_days,
        allow_hosts=args.allow_host,
        broker=args.broker,
        workers=args.workers,
        give_after=args.give_after,
    )
