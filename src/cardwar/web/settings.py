"""The one settings object of the web app: every knob of the server, with its default.

`cardwar serve` reads its options' defaults from here; nothing else repeats them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
STATIC = Path(__file__).parent / "static"


def default_db() -> Path | str:
    """The database when none is named: $CARDWAR_DB (a path or a postgresql:// URL), else
    ./cardwar.db."""
    named = os.environ.get("CARDWAR_DB", "cardwar.db")
    return named if "://" in named else Path(named)


@dataclass(frozen=True, slots=True)
class Settings:
    """Where the rounds are kept and how the server listens, behaves, and protects itself."""

    # -- where and how it runs (`cardwar serve`) --------------------------------------------------

    db: Path | str = field(default_factory=default_db)
    """The database: a SQLite file (created when missing, readable by its owner only), or a
    PostgreSQL database's postgresql:// URL; `--db` sets it (docs/deploy.md)."""
    broker: str | None = None
    """The broker of several processes: a redis:// URL (docs/deploy.md), which carries the
    live tables' messages between them and keeps the limits server-wide; None, one process
    alone. `--broker`."""
    listen_host: str = "127.0.0.1"
    """The address `cardwar serve` listens on: this computer only. `--host`."""
    port: int = 8000
    """The port `cardwar serve` listens on. `--port`."""
    trusted_proxies: tuple[str, ...] = ()
    """The proxies in front (nginx), by address or network, whose X-Forwarded-For and
    X-Forwarded-Proto this server believes: the player's address (for limits and logs) and the
    scheme (cookies `Secure` under HTTPS). None: no forwarded header is believed.
    `--trusted-proxy`."""
    network_command: str = "cardwar serve --host 0.0.0.0"
    """The command that starts this game again for the phones and computers of its network, as
    it runs where it was started (`cardwar serve` works it out): the invite shows it while the
    game listens on this computer alone."""
    grace_s: int = 8
    """Requests in flight get this long to finish when the server is told to stop."""
    drain_s: float = 1.0
    """Told SIGTERM, a process first drains this long (live sockets told to come back, new
    connections answered 503), then stops (`site/draining.py`); 0 stops at once. `--drain`."""
    metrics: str | None = None
    """HOST:PORT where the operator's Prometheus reads the figures (`GET /metrics`), never the
    game's own port; None serves none. `--metrics`."""
    log_format: str = "text"
    """How the log is written: "text", a line of words, or "json", an object a line.
    `--log-format`."""
    log_addresses: bool = False
    """Whether the log names players' network addresses (a refusal's, say). `--log-addresses`."""
    shared_socket: bool = False
    """One of several processes on one listening socket (`cardwar serve --workers N`), which
    their supervisor holds: told SIGTERM on its own, such a process stops at once."""
    static_dir: Path = STATIC
    """The page's own files, read and versioned once at start-up (tests point at a copy)."""
    worker_at_start: bool = True
    """Start the worker process with the server and prepare the simulator in it too, so that
    the first long run or statistics wait for neither (tests of the API alone turn it off: a
    process each would cost them more than the test)."""
    gzip_level: int = 6
    """How hard JSON answers are compressed (1-9) for a client that takes gzip: zlib's own
    default, a quarter of the time of 9 for nearly the same size. The page's files are
    compressed once, at start-up, as hard as gzip goes."""

    # -- rounds ---------------------------------------------------------------------------------

    max_battles: int = 100_000
    """The safety cap: every round ends after this many battles, even one with no battle limit
    (as a battle-limit ending). `--max-battles`."""
    max_cap: ClassVar[int] = 10_000_000
    """The most `max_battles` may be set to."""
    max_count: ClassVar[int] = 100_000
    """The most battles one request may ask for (`POST /api/rounds/{id}/battles`)."""
    max_simulated: ClassVar[int] = 200_000
    """The most random rounds one request for statistics may ask for (`POST /api/simulations`)."""
    cache_size: int = 512
    """Rounds kept live in memory; any other is resumed from its stored snapshot when asked for."""
    inline_battles: int = 100
    """A request for at most this many battles (a click) is played in a thread of the server
    process: a hop to the worker would cost more than the battles. Longer runs go to the worker
    process."""
    chunk_bytes: int = 64 * 1024
    """A long run's answer is sent in pieces of this many bytes."""
    replay_here: int = 5_000
    """A replay, or a story, of a round of up to this many battles is played in a thread; a
    longer one in the worker process."""
    simulation_seconds: float = 2.0
    """The most one request for statistics may play for."""
    simulation_batch: int = 10_000
    """Statistics are played in batches of this many rounds, the clock checked between them."""

    # -- keeping and forgetting -------------------------------------------------------------------

    keep_days: float = 30.0
    """Rounds untouched for this many days, finished or abandoned, are removed. `--keep-days`."""
    keep_players_days: float = 365.0
    """A browser's house rules and scoreboard are forgotten after a year without a visit."""
    prune_every_s: float = 3600.0
    """How often old rounds and players are removed (and once at start-up)."""
    cookie_name: str = "cardwar_player"
    """The anonymous id that keeps a person's scoreboard: no account, nothing else stored."""
    cookie_max_age_s: int = 10 * 365 * 24 * 3600
    """How long a browser keeps that cookie."""

    # -- protection -------------------------------------------------------------------------------

    max_body: int = 64 * 1024
    """Request bodies over this many bytes are refused with 413 before they are read whole."""
    hosts: tuple[str, ...] = LOOPBACK_HOSTS
    """Names the Host header may carry (any port): the addresses the server listens on. Other
    names are refused, so a web page elsewhere cannot reach the game by DNS rebinding."""
    any_ip_host: bool = False
    """Also accept any IP address as the Host (when listening on all addresses)."""
    writes_per_minute: float = 60.0
    """New rounds and house-rules changes one browser may make per minute, on average (429
    beyond it)."""
    writes_burst: int = 30
    """New rounds and house-rules changes one browser may make at once before that rate."""
    address_writes_times: int = 4
    """One network address may make this many times a browser's writes (rate and burst)."""
    server_writes_times: int = 20
    """The whole server allows this many times a browser's writes (rate and burst)."""
    new_players_per_minute: float = 120.0
    """New anonymous ids the server hands out to one network address per minute, on average,
    after a first `new_players_burst` at once (429 beyond it)."""
    new_players_burst: int = 60
    """New anonymous ids one network address may be handed at once before that rate."""
    long_runs: int = 2
    """Requests of more than a click's battles played or sent at the same time (429 beyond it);
    each browser may have one."""
    statistics_runs: int = 2
    """Requests for statistics played at the same time (429 beyond it); each browser may have
    one, beside its long run of battles."""
    estimates_at_once: int = 1
    """Chance estimates computed at the same time: one leaves the other core to the clicks."""
    estimates_waiting: int = 8
    """Chance estimates that may wait in line for their turn (about 30 ms); beyond them, 429."""
    clock: Callable[[], float] = time.time
    """Seconds since the epoch; tests replace it to move time on."""

    # -- live tables (docs/api.md#live-tables) -----------------------------------------------------

    live_sockets: int = 10_000
    """Live-table sockets this process keeps open at once (about 16 KB each when idle:
    benchmarks/README.md, idle sockets), fewer under a limit of open files; one more is refused
    plainly. `--live-sockets`."""
    live_sockets_per_address: int = 256
    """Live-table sockets one network address keeps open at once (a household, a school behind
    one router: 64 tables of four); one more from it is refused plainly, so that one client
    cannot take the whole server's `live_sockets`."""
    live_tables_per_browser: int = 8
    """Open live tables one browser may have opened; a ninth is refused until one closes."""
    live_idle_s: float = 3600.0
    """A live table nobody has touched for this long is closed, and its sockets are told."""
    live_message_bytes: int = 4096
    """The largest message a socket may send; a larger one closes it (1009)."""
    live_messages_per_s: int = 20
    """Messages a socket may send in any one second; one more closes it (1008)."""
    live_give_after_s: float = 120.0
    """How long a person must be away before the host may give their seat to the computer."""
    live_unseen_s: float = 10.0
    """A person's seat with no socket open in any process for this long (one taken whose socket
    never opened, or not reopened after a restart) counts as away from then on."""
    live_tick_s: float = 0.5
    """How often the server looks at the turn clocks and the idle tables."""

    # -- connections (docs/deploy.md#connections) -------------------------------------------------

    max_head: int = 32 * 1024
    """A request's line and headers together may be this many bytes (nginx's own default room
    for a head); a longer head is refused with 431 as it passes the cap, never read whole."""
    request_s: float = 10.0
    """A request, head and body, must arrive within this long of its connection opening or of
    the answer before it, however slowly it trickles; else the connection is closed."""
    open_files_kept: int = 128
    """Open files `cardwar serve` keeps for everything but its clients' connections: the
    database's files or connections, the broker, the worker process, the page's files, logs."""
    http_connections: int = 1000
    """Connections a process takes at once beside its `live_sockets`; past them, and past what
    the open-file limit leaves, a new one is answered 503 and closed."""

    # -- the database slow or away (docs/deploy.md#the-database-slow-or-away) ----------------------

    database_deadline_s: float = 3.0
    """The longest one call may hold its database connection; past it the call is abandoned
    and its request answered 503 with Retry-After, so that a database that hangs holds no
    request, nor anyone queued behind it, for longer."""
    database_pool: int = 10
    """PostgreSQL connections one server process keeps at most (a lost one is replaced)."""
    database_down_after_s: float = 10.0
    """/healthz says 503 once the database has not answered for this long: a moment's loss is
    ridden out, one that lasts is a supervisor's or a balancer's to act on."""
