"""The page itself: `/` and its icon (its scripts and styles are mounted at /static)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).parent.parent / "static"

router = APIRouter()


@router.get("/", include_in_schema=False)
def page() -> FileResponse:
    """The page that plays the game."""
    return FileResponse(STATIC / "index.html", media_type="text/html")


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The page's icon, for browsers that ask for /favicon.ico whatever the page says."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")
