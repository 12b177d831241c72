"""The one settings object of the web app."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def _default_db() -> Path:
    return Path(os.environ.get("CARDWAR_DB", "cardwar.db"))


@dataclass(frozen=True, slots=True)
class Settings:
    """Where the rounds are kept and how the server behaves, and protects itself."""

    db_path: Path = field(default_factory=_default_db)
    """The SQLite file (created when missing, readable by its owner only); `--db` sets it."""
    cache_size: int = 512
    """Rounds kept live in memory; any other is resumed from its stored snapshot when asked for."""
    cookie_name: str = "cardwar_player"
    """The anonymous id that keeps a person's scoreboard: no account, nothing else stored."""
    max_battles: int = 100_000
    """The safety cap: every round ends after this many battles, even one with no battle limit
    (as a battle-limit ending). `--max-battles`."""
    keep_days: float = 30.0
    """Rounds untouched for this many days, finished or abandoned, are removed. `--keep-days`."""
    keep_players_days: float = 365.0
    """A browser's house rules and scoreboard are forgotten after a year without a visit."""
    max_body: int = 64 * 1024
    """Request bodies over this many bytes are refused with 413 before they are read whole."""
    hosts: tuple[str, ...] = LOOPBACK_HOSTS
    """Names the Host header may carry (any port): the addresses the server listens on. Other
    names are refused, so a web page elsewhere cannot reach the game by DNS rebinding."""
    any_ip_host: bool = False
    """Also accept any IP address as the Host (when listening on all addresses)."""
    writes_per_minute: float = 60.0
    """New rounds and house-rules changes one browser may make per minute, on average (429
    beyond it); the whole server allows twenty times as many."""
    writes_burst: int = 30
    """New rounds and house-rules changes one browser may make at once before that rate."""
    new_players_per_minute: float = 120.0
    """New anonymous ids the server hands out to one network address per minute, on average,
    after a first 60 at once (429 beyond it)."""
    long_runs: int = 2
    """Requests of more than a click's battles played or sent at the same time (429 beyond it);
    each browser may have one."""
    clock: Callable[[], float] = time.time
    """Seconds since the epoch; tests replace it to move time on."""
