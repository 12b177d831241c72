"""What the server writes to its log, and how (docs/deploy.md#watching-the-site): words a line,
or with `cardwar serve --log-format json` one JSON object a line, `{"time", "level", "logger",
"message"}` (and `"error"`, a traceback, when there is one), for a collector to read.

Neither says a player's cookie or a table's invite code, ever, nor a player's network address
unless the operator asks for it (`--log-addresses`): a refusal of too many sockets from one
address says "an address" otherwise.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, ClassVar

FORMATS = ("text", "json")


class Addresses:
    """Whether the log names players' addresses (`--log-addresses`): set once, at the start."""

    named: ClassVar[bool] = False

    @classmethod
    def shown(cls, address: str) -> str:
        """`address` as the log says it."""
        return address if cls.named else "an address"


class JsonLines(logging.Formatter):
    """One JSON object a line."""

    def format(self, record: logging.LogRecord) -> str:
        written: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            written["error"] = self.formatException(record.exc_info)
        return json.dumps(written, ensure_ascii=False)


def log_config(kind: str) -> dict[str, Any] | None:
    """uvicorn's `log_config` for the log's `kind` ("text": uvicorn's own, None), which covers
    cardwar's own lines too: at INFO, so that the start's lines are in it."""
    if kind == "text":
        return None
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLines}},
        "handlers": {"json": handler},
        "loggers": {
            name: {"handlers": ["json"], "level": "INFO", "propagate": False}
            for name in ("cardwar", "uvicorn", "uvicorn.error", "uvicorn.access")
        },
    }
