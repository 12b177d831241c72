"""The one settings object of the web app."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def _default_db() -> Path:
    return Path(os.environ.get("CARDWAR_DB", "cardwar.db"))


@dataclass(frozen=True, slots=True)
class Settings:
    """Where the rounds are kept and how the server behaves."""

    db_path: Path = field(default_factory=_default_db)
    """The SQLite file (created when missing); `CARDWAR_DB` or `--db` set it."""
    cache_size: int = 512
    """Rounds kept live in memory; any other is rebuilt from its history when asked for."""
    cookie_name: str = "cardwar_player"
    """The anonymous id that keeps a person's scoreboard: no account, nothing else stored."""
