"""The page's own files as the server sends them (docs/api.md#compression-and-caching): read once
at start-up, named by a hash of them all, compressed once, and kept by browsers for a year.

`/` is index.html with every `/static/…` URL rewritten to `/static/v/<version>/…`. The version
is a hash of every file, so a change to any one of them renames them all: a relative ES-module
import resolves inside the same version, and a browser never mixes the files of two versions.
Versioned files are immutable; `/`, the service worker `/sw.js` (it must sit at the root to
look after the whole page) and the unversioned `/static/…` are revalidated on every load by
their ETag. The versioned files are served from memory as they were when hashed, so a file
edited while the server runs never appears under the old version's name.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Receive, Scope, Send

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# Spelled out rather than guessed from the system: on some machines `mimetypes` reads the
# registry or /etc/mime.types, and a module script sent as text/plain does not run.
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
}
# The browser fetches the install icons itself, when it installs: the service worker keeps the
# rest, everything the page loads.
NOT_KEPT_OFFLINE = (".png",)
PAGE, WORKER = "index.html", "sw.js"
_STATIC_URL = re.compile(r'="/static/')
_WORKER_LINE = re.compile(r"^const (VERSION|FILES) = .*;$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Asset:
    """One file as it is sent: its bytes, gzipped if that makes them smaller, its media type
    and its ETag."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: str

    @classmethod
    def of(cls, name: str, body: bytes) -> Asset:
        """The file `name` with these contents, compressed once, here."""
        media_type = MEDIA_TYPES.get(Path(name).suffix, "application/octet-stream")
        packed = None
        if not media_type.startswith("image/png"):
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            packed = packed if len(packed) < len(body) else None
        return cls(body, packed, media_type, f'"{hashlib.sha256(body).hexdigest()[:20]}"')

    def send(
        self, headers: Mapping[str, str], cache_control: str, *, head: bool = False
    ) -> Response:
        """The answer to a request with these `headers`: gzipped if the client takes it, and
        304 with no body when its `If-None-Match` names this version. The gzipped bytes have
        an ETag of their own (`"…-gz"`), as two representations must."""
        sent = {"cache-control": cache_control}
        body, tag = self.body, self.etag
        if self.gzipped is not None:
            sent["vary"] = "Accept-Encoding"
            if takes_gzip(headers.get("accept-encoding", "")):
                body, tag = self.gzipped, self.etag[:-1] + '-gz"'
                sent["content-encoding"] = "gzip"
        sent["etag"] = tag
        if tag in etags(headers.get("if-none-match", "")):
            sent.pop("content-encoding", None)
            return Response(status_code=304, headers=sent)
        sent["content-length"] = str(len(body))
        return Response(b"" if head else body, media_type=self.media_type, headers=sent)


def etags(header: str) -> set[str]:
    """The entity tags an If-None-Match header names, weak ones as strong (a GET compares them
    weakly); "*" stays as it is."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def takes_gzip(header: str) -> bool:
    """True if an Accept-Encoding header names gzip. Its weight is not read, as Starlette's GZip
    middleware, which compresses the JSON answers, does not read it: every answer of the server
    decides alike."""
    return "gzip" in header.lower()


def version_of(files: Mapping[str, bytes]) -> str:
    """The version of a set of files: a hash of every name and its contents."""
    digest = hashlib.sha256()
    for name in sorted(files):
        body = files[name]
        digest.update(b"%s\0%d\0" % (name.encode(), len(body)))
        digest.update(body)
    return digest.hexdigest()[:16]


class Assets:
    """The page, its service worker and its versioned files, from `directory` as it stands now."""

    def __init__(self, directory: Path) -> None:
        files = {
            path.relative_to(directory).as_posix(): path.read_bytes()
            for path in sorted(directory.rglob("*"))
            if path.is_file() and not any(part.startswith(".") for part in path.parts)
        }
        self.version = version_of(files)
        self.prefix = f"/static/v/{self.version}/"
        self.files = {
            name: Asset.of(name, body) for name, body in files.items() if name not in (PAGE, WORKER)
        }
        """The versioned files, by their name under the static directory."""
        page = _STATIC_URL.sub(f'="{self.prefix}', files[PAGE].decode())
        self.page = Asset.of(PAGE, page.encode())
        kept = [
            "/",
            *(self.prefix + name for name in self.files if not name.endswith(NOT_KEPT_OFFLINE)),
        ]
        self.worker = Asset.of(WORKER, worker_script(files[WORKER].decode(), self.version, kept))

    def versioned(self, version: str, name: str) -> Asset | None:
        """The file `name` of `version`, or None: an old version's files are gone."""
        return self.files.get(name) if version == self.version else None


def worker_script(template: str, version: str, kept: list[str]) -> bytes:
    """sw.js with this version and the files to keep written into its first two constants."""
    values = {"VERSION": json.dumps(version), "FILES": json.dumps(kept)}
    script, found = _WORKER_LINE.subn(
        lambda line: f"const {line[1]} = {values[line[1]]};", template
    )
    if found != 2:
        raise ValueError(
            f"{WORKER}: needs one `const VERSION = …;` and one `const FILES = …;` line"
        )
    return script.encode()


class RevalidatedFiles(StaticFiles):
    """The static directory at its plain, unversioned URLs: checked again on every use (an old
    page, or a script, may still ask for them there)."""

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        """The file, as StaticFiles answers it (with its ETag, and 304 when unchanged), to be
        checked again on every use."""
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["cache-control"] = REVALIDATE
        return response


# The paths `routes/pages.py` answers from memory, compressed already.
OWN_PATHS = ("/", "/sw.js", "/favicon.ico")
OWN_PREFIX = "/static/v/"


class CompressAnswers(GZipMiddleware):
    """Starlette's GZip middleware for JSON and the plain static files, as they go. The page's
    own files pass by: they were compressed once at start-up, and say so (the middleware would
    otherwise add a second `Vary` to each plain one)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path in OWN_PATHS or path.startswith(OWN_PREFIX)):
            await self.app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)
