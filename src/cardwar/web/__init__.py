"""The web game: the HTTP API of docs/api.md and the page that plays through it.

`create_app` is imported when first asked for, so that `cardwar.web.settings`, whose defaults
the command line shows, loads without FastAPI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardwar.web.settings import Settings

if TYPE_CHECKING:
    from cardwar.web.app import create_app

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from cardwar.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
