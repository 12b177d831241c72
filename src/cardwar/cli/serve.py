"""`cardwar serve`: run the web game until interrupted, after saying where to open it.

Only this command loads the web stack and the simulator's compiled code (`main` imports this
module when asked to serve), so `cardwar round` starts without them.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvicorn
from rich.console import Console

from cardwar.cli.shared import print_line
from cardwar.engine import Round
from cardwar.rules import CLASSIC
from cardwar.sim.chance import chance_to_win
from cardwar.web import Settings, create_app
from cardwar.web.settings import LOOPBACK_HOSTS

WILDCARDS = {"0.0.0.0", "::", "[::]", ""}


def serve(
    out: Console,
    *,
    host: str,
    port: int,
    db: Path | None,
    max_battles: int,
    keep_days: float,
    allow_hosts: Sequence[str] = (),
) -> int:
    """Run the web game until interrupted, after saying where to open it."""
    wide = host in WILDCARDS
    names = [*LOOPBACK_HOSTS, host.strip("[]"), *allow_hosts]
    if host not in LOOPBACK_HOSTS:
        names += [socket.gethostname(), socket.getfqdn()]
    options: dict[str, Any] = {
        "listen_host": host,
        "port": port,
        "max_battles": max_battles,
        "keep_days": keep_days,
        "hosts": tuple(dict.fromkeys(name.lower() for name in names if name)),
        "any_ip_host": wide,
    }
    if db is not None:
        options["db_path"] = db
    settings = Settings(**options)
    app = create_app(settings)
    # Load the simulator's compiled code now, not during a player's first chance estimate:
    # loading holds Python's lock for most of a second.
    chance_to_win(Round(CLASSIC, seed=1), runs=1)
    shown = "127.0.0.1" if wide else f"[{host}]" if ":" in host else host
    print_line(
        out, f"cardwar: open http://{shown}:{port} in your browser (Ctrl+C stops the server)"
    )
    print_line(out, f"cardwar: rounds are kept in {settings.db_path.resolve()}")
    if host not in LOOPBACK_HOSTS:
        print_line(
            out,
            f"cardwar: warning: listening on {host}, not only this computer: anyone who can "
            "reach it on your network can play here",
        )
    uvicorn.run(
        app,
        host=settings.listen_host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=settings.grace_s,
    )
    return 0
