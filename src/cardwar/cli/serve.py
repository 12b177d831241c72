"""`cardwar serve`: run the web game until interrupted, after saying where to open it.

Only this command loads the web stack (`main` imports this module when asked to serve), so
`cardwar round` starts without it; the app answers at once and prepares the simulator's compiled
code in the background, and this command says so on a first start.
"""

from __future__ import annotations

import argparse
import socket
import textwrap
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from cardwar.cli.shared import days, port, print_line, seconds_up_to, whole
from cardwar.errors import CardwarError
from cardwar.web import Settings
from cardwar.web.settings import LOOPBACK_HOSTS

if TYPE_CHECKING:  # uvicorn loads only when asked to serve (`cardwar round` never does)
    from cardwar.web.connections import Sized

SERVER = Settings()  # the server's defaults, which `cardwar serve --help` shows
WILDCARDS = {"0.0.0.0", "::", "[::]", ""}
PREPARING = (
    "cardwar: preparing the simulator in the background, first start only: about {seconds} s "
    "in all. The game is open meanwhile; the chance meter and the statistics follow when it is "
    "ready."
)
PREPARED = "cardwar: the simulator is ready (prepared in {took:.0f} s)"


class Start:
    """How the server's start goes, on `out` (or in the log, when it is JSON): where to open the
    game as soon as it answers, and, on a first start, that the simulator is being prepared
    meanwhile, then that it is."""

    def __init__(self, out: Console, said: list[str], log_format: str = "text") -> None:
        self._out, self._said, self._json = out, said, log_format == "json"

    def _say(self, line: str) -> None:
        if self._json:
            import logging

            logging.getLogger("cardwar").info(line)
        else:
            print_line(self._out, line)

    def ready(self) -> None:
        """Say where to open the game, and what else its start found worth saying."""
        for line in self._said:
            self._say(line)

    def preparing(self, seconds: int) -> None:
        """Say, once, that a first start prepares the simulator, and how long it takes."""
        self._say(PREPARING.format(seconds=seconds))

    def prepared(self, took: float) -> None:
        """Say that it is done."""
        self._say(PREPARED.format(took=took))


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
    trusted_proxies: Sequence[str] = (),
    live_sockets: int = SERVER.live_sockets,
    drain_s: float = SERVER.drain_s,
    metrics: str | None = None,
    log_format: str = SERVER.log_format,
    log_addresses: bool = False,
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
        "trusted_proxies": tuple(trusted_proxies),
        "live_sockets": live_sockets,
        "drain_s": drain_s,
        "metrics": metrics,
        "log_format": log_format,
        "log_addresses": log_addresses,
    }
    if db is not None:
        options["db"] = db
    if broker is not None:
        options["broker"] = broker
    options["network_command"] = network_command(port)
    settings, sized = sized_settings(options)
    said = start_lines(settings, sized, host, port)
    start = Start(out, said, log_format)
    if workers > 1:
        said[0] += f", {workers} server processes"
        return serve_many(out, settings, options, workers, start)
    import uvicorn  # the web stack loads only when asked to serve

    from cardwar.web.app import create_app

    if settings.broker is not None:
        reach_broker(settings.broker)
    app = create_app(settings, starting=start)
    uvicorn.run(app, **uvicorn_options(settings))
    return 0


def start_lines(settings: Settings, sized: Sized, host: str, port: int) -> list[str]:
    """What the start says once the server answers: where to open the game, where rounds are
    kept, how many connections it takes, and who else can play (with the command that lets
    the network in, or the address phones open)."""
    wide = host in WILDCARDS
    shown = "127.0.0.1" if wide else f"[{host}]" if ":" in host else host
    said = [
        f"cardwar: open http://{shown}:{port} in your browser (Ctrl+C stops the server)",
        f"cardwar: rounds are kept in {kept_in(settings.db)}",
        sized_line(sized),
    ]
    if host in LOOPBACK_HOSTS:
        said.append(
            "cardwar: only this computer can play; to let the phones and computers of your "
            f"network play too, stop it and start it with: {settings.network_command}"
        )
    else:
        from cardwar.web.live.invite import lan_address

        reached = lan_address() if wide else shown
        if reached is not None:
            said.append(
                f"cardwar: phones and computers on your network open http://{reached}:{port}"
            )
        said.append(
            f"cardwar: warning: listening on {host}, not only this computer: anyone who can "
            "reach it on your network can play here"
        )
    return said


STARTED_AS = "CARDWAR_STARTED_AS"
"""Set by `python3 dev.py play` to itself, so that the commands the game prints run as printed
in a clone whose program is not on the shell's path."""


def network_command(port: int) -> str:
    """The command that starts this game again for its network, as it runs here: the command
    that started it (`dev.py play` says so), else the `cardwar` program by the name the shell
    finds it, or by its full path."""
    import os
    import shutil
    import sys

    started = os.environ.get(STARTED_AS)
    if started is None:
        program = Path(sys.argv[0])
        if program.name != "cardwar":  # `python -m cardwar.cli`
            started = f"{sys.executable} -m cardwar.cli serve"
        elif (found := shutil.which("cardwar")) and Path(found).resolve() == program.resolve():
            started = "cardwar serve"
        else:
            started = f"{program.resolve()} serve"
    again = f"{started} --host 0.0.0.0"
    return again if port == SERVER.port else f"{again} --port {port}"


def sized_settings(options: dict[str, Any]) -> tuple[Settings, Sized]:
    """The server's settings from `options`, with this process's open files raised to the most
    it may have (its children, `--workers`' processes, inherit them) and its caps of
    connections and live sockets sized from them (docs/deploy.md#connections): the figures are
    said at the start, and a connection or socket past them is refused, and logged, never left
    to find the process out of open files."""
    from cardwar.web.connections import BoundedHttp, Bounds, Sized, open_files
    from cardwar.web.site.logs import Addresses

    settings = settings_of(options)
    Addresses.named = settings.log_addresses  # this process's log, and each worker's
    before, now = open_files()
    try:
        sized = Sized.of(settings, now)
    except ValueError as error:
        raise ServeError(str(error)) from None
    if sized.live_sockets != settings.live_sockets:
        options["live_sockets"] = sized.live_sockets  # a worker process is handed it so
        settings = settings_of(options)
    BoundedHttp.bounds = Bounds.of(settings, sized)
    return settings, replace(sized, raised_from=before)


def sized_line(sized: Sized) -> str:
    """How many connections the server takes, and why no more (its open files), in words."""
    files = "no limit" if sized.open_files is None else f"{sized.open_files}"
    if sized.raised_from is not None and sized.raised_from != sized.open_files:
        files += f", raised from {sized.raised_from}"
    return (
        f"cardwar: up to {sized.connections} connections at once, {sized.live_sockets} of them "
        f"live tables' sockets (open files: {files})"
    )


class ServeError(CardwarError):
    """`cardwar serve` cannot start as asked (exit status 2, and the reason)."""


def settings_of(options: dict[str, Any]) -> Settings:
    """The server's settings from `cardwar serve`'s options (also as JSON, in a worker)."""
    chosen = dict(options)
    if "db" in chosen:
        chosen["db"] = chosen["db"] if "://" in chosen["db"] else Path(chosen["db"])
    for listed in ("hosts", "trusted_proxies"):  # lists, once handed over as JSON
        if listed in chosen:
            chosen[listed] = tuple(chosen[listed])
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
    one stops). The database is upgraded here, once, first; each process prepares the
    simulator in the background as one process does (`web/warming.py`)."""
    import json
    import os

    import uvicorn

    from cardwar.web.site.draining import Supervisor
    from cardwar.web.store import Store

    assert settings.broker is not None
    reach_broker(settings.broker)
    Store(settings.db).close()  # brought up to date once, before any process opens it
    os.environ[OPTIONS_VARIABLE] = json.dumps(options, default=str)
    os.environ[SUPERVISOR_VARIABLE] = str(os.getpid())
    stop_metrics = None
    if settings.metrics is not None:  # each process counts into a folder, read here summed
        import tempfile

        from cardwar.web.site.metrics import serve_many_metrics

        folder = tempfile.TemporaryDirectory(prefix="cardwar-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder.name
        stop_metrics = serve_many_metrics(settings.metrics, folder.name)
    config = uvicorn.Config(
        f"{__name__}:app_of_environment",
        factory=True,
        workers=workers,
        # How long a process may take to start (or to answer its supervisor) before it is
        # given up on: uvicorn's 5 s aborted rolling restarts on a busy machine, keeping the
        # old process, since a start loads the simulator's kernels and a worker process.
        timeout_worker_healthcheck=STARTING_S,
        **uvicorn_options(settings),
    )
    start.ready()
    try:
        # uvicorn.run's own way to several processes, its supervisor draining them at its stop
        Supervisor(config, sockets=[config.bind_socket()]).run()
    finally:
        if stop_metrics is not None:
            stop_metrics()
            folder.cleanup()
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
    # sized as the supervisor sized them (this process inherits its open files), and the
    # bounds of this process's connections set with them
    settings, _ = sized_settings(json.loads(os.environ[OPTIONS_VARIABLE]))
    return create_app(replace(settings, shared_socket=True))


def _stop_without(supervisor: int) -> None:
    import os
    import signal
    import time

    from cardwar.web.workers import PARENT_LOOK_S

    while os.getppid() == supervisor:
        time.sleep(PARENT_LOOK_S)
    os.kill(os.getpid(), signal.SIGTERM)


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How uvicorn serves the app: quiet, bounded, and sized for live tables' sockets."""
    from cardwar.web.connections import BoundedHttp
    from cardwar.web.live.transport import SocketProtocol
    from cardwar.web.site.logs import log_config

    return {
        # Its heads bounded, late requests closed, connections capped (BoundedHttp); a live
        # socket, once open, is closed by uvicorn when a ping of its goes unanswered (20 s, and
        # 20 s to answer: its defaults), so a silent one holds its place 40 s at most.
        "http": BoundedHttp,
        "host": settings.listen_host,
        "port": settings.port,
        "log_level": "warning",
        "access_log": False,
        "server_header": False,
        # Forwarded headers believed only from the proxies named (uvicorn's own default
        # believes any from 127.0.0.1: a local client could pose as any number of newcomers).
        "proxy_headers": bool(settings.trusted_proxies),
        "forwarded_allow_ips": list(settings.trusted_proxies) or None,
        "timeout_graceful_shutdown": settings.grace_s,
        # A live table's socket message over its size is refused as it arrives (1009), never
        # read whole first (the app checks it again: docs/api.md#limits-of-live-tables).
        "ws_max_size": settings.live_message_bytes,
        # A live table's messages are under a kilobyte: compressing them saves little, and each
        # socket's compressor took half its memory (about 45 KB of 90: benchmarks/tables.py).
        "ws_per_message_deflate": False,
        # Its own log's format when the log is JSON (`web/site/logs.py`), which covers cardwar's.
        **(
            {} if settings.log_format == "text" else {"log_config": log_config(settings.log_format)}
        ),
        # uvicorn's sans-I/O WebSocket protocol, made lighter for sockets kept open for hours
        # (about 15 KB each: cardwar/web/live/transport.py).
        "ws": SocketProtocol,
    }


def add_parser(commands: Any) -> None:
    """`cardwar serve` and its options, among the `commands` of `cardwar`."""
    serve = commands.add_parser(
        "serve",
        help="start the web game",
        description=textwrap.fill(
            "Start the web game in your browser: you against the computer, or people at one "
            "device. It answers at once, and prepares the simulator in the background (a first "
            "start compiles it, about 20 s). "
            "Rounds, house rules and scoreboards are kept in one SQLite file, readable by you "
            "only; nothing leaves this machine. The server protects itself: it ends every round "
            f"at a safety cap of battles, reads no body over {SERVER.max_body // 1024} KB "
            f"and no request head over {SERVER.max_head // 1024} KB, closes a connection that "
            f"sends no whole request within {SERVER.request_s:g} seconds, takes as many "
            "connections as its open files allow (raised to the most it may have), "
            "answers only to its own addresses, limits how fast each browser deals new rounds, "
            "and removes rounds nobody has touched for a while. SIGTERM or Ctrl+C stops it "
            "within 10 seconds, losing no answered battle (SIGTERM drains first: --drain).",
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
    serve.add_argument(
        "--live-sockets",
        type=whole(1, 1_000_000),
        default=SERVER.live_sockets,
        metavar="N",
        help="live tables' sockets each process keeps open at once (default: "
        f"{SERVER.live_sockets:,}, about 16 KB each; fewer under a limit of open files)",
    )
    serve.add_argument(
        "--drain",
        type=seconds_up_to(30),
        default=SERVER.drain_s,
        metavar="SECONDS",
        help="told SIGTERM (an upgrade, systemctl stop), first tell live tables' sockets to "
        "come back and answer new connections 503 for SECONDS, so that a proxy sends them to "
        f"another process, then stop (default: {SERVER.drain_s:g}; 0 stops at once; "
        "docs/deploy.md#stopping-without-cutting-a-table)",
    )
    serve.add_argument(
        "--metrics",
        default=None,
        type=metrics_address,
        metavar="HOST:PORT",
        help="serve the figures an operator watches (requests and their latency by route, live "
        "sockets and tables, battles, refusals, the database's and the broker's errors and "
        "round trips) in Prometheus's format at http://HOST:PORT/metrics, an address of their "
        "own, never the game's port (default: none; docs/deploy.md#watching-the-site)",
    )
    serve.add_argument(
        "--log-format",
        choices=("text", "json"),
        default=SERVER.log_format,
        help="the log as lines of words (text, the default) or one JSON object a line (json)",
    )
    serve.add_argument(
        "--log-addresses",
        action="store_true",
        help="name players' network addresses in the log (a refusal's); without it the log "
        "says 'an address'. It never names a cookie or an invite code",
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        type=proxy_address,
        metavar="ADDRESS",
        help="a proxy in front of this server (nginx: deploy/), by its address or network, "
        "whose X-Forwarded-For and X-Forwarded-Proto are believed; may be given more than "
        "once. Without it no forwarded header is believed: each connection counts as its own "
        "address (docs/deploy.md#behind-a-proxy)",
    )


def metrics_address(text: str) -> str:
    """`--metrics`'s HOST:PORT, as written."""
    from cardwar.web.site.metrics import split_address

    try:
        split_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def proxy_address(text: str) -> str:
    """`--trusted-proxy`'s ADDRESS: an IP address or network, as written."""
    import ipaddress

    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an IP address or network (such as 10.0.0.10 or 10.0.0.0/24)"
        ) from None
    return text


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
        trusted_proxies=args.trusted_proxy,
        live_sockets=args.live_sockets,
        drain_s=args.drain,
        metrics=args.metrics,
        log_format=args.log_format,
        log_addresses=args.log_addresses,
    )
