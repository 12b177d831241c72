"""The page itself (docs/api.md#the-page): `/`, its service worker, its icon and its versioned
files, all served from memory as `assets.py` read them at start-up (the same files at their
plain `/static/…` URLs are mounted by `create_app`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.exceptions import HTTPException
from fastapi.responses import Response

from cardwar.web.assets import IMMUTABLE, REVALIDATE, Assets
from cardwar.web.deps import services

router = APIRouter()
GET_OR_HEAD = ["GET", "HEAD"]


def _assets(request: Request) -> Assets:
    return services(request).assets


@router.api_route("/", methods=GET_OR_HEAD, include_in_schema=False)
async def page(request: Request) -> Response:
    """The page that plays the game, its files named by their version; checked again on every
    load (a 304 while it is the same)."""
    head = request.method == "HEAD"
    return _assets(request).page.send(request.headers, REVALIDATE, head=head)


@router.api_route("/sw.js", methods=GET_OR_HEAD, include_in_schema=False)
async def service_worker(request: Request) -> Response:
    """The service worker, at the root so that it looks after the whole page."""
    head = request.method == "HEAD"
    return _assets(request).worker.send(request.headers, REVALIDATE, head=head)


@router.api_route("/favicon.ico", methods=GET_OR_HEAD, include_in_schema=False)
async def favicon(request: Request) -> Response:
    """The page's icon, for browsers that ask for /favicon.ico whatever the page says."""
    icon = _assets(request).files["favicon.svg"]
    return icon.send(request.headers, REVALIDATE, head=request.method == "HEAD")


@router.api_route("/static/v/{version}/{name:path}", methods=GET_OR_HEAD, include_in_schema=False)
async def versioned(version: str, name: str, request: Request) -> Response:
    """One of the page's files in one version: kept by the browser for a year, never asked
    again. Another version's files are gone (404): the page that named them is gone too."""
    asset = _assets(request).versioned(version, name)
    if asset is None:
        raise HTTPException(404)
    return asset.send(request.headers, IMMUTABLE, head=request.method == "HEAD")
