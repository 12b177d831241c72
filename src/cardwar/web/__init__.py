"""The web game: the HTTP API of SPEC §7 and the page that plays through it."""

from cardwar.web.app import create_app
from cardwar.web.settings import Settings

__all__ = ["Settings", "create_app"]
