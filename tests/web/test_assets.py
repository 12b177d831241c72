"""The page's files as the server sends them (docs/api.md#compression-and-caching): versioned by
their contents, compressed, kept by browsers for a year or checked again on every load; API
answers compressed and never kept; and the service worker and manifest that install the table
(docs/api.md#installing)."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cardwar.web.assets import IMMUTABLE, worker_script
from cardwar.web.settings import STATIC

from helpers import ClientFactory

VERSIONED = re.compile(r'(?:href|src)="(/static/v/([0-9a-f]{16})/([^"]+))"')


def linked(client: TestClient) -> list[tuple[str, str, str]]:
    """Every versioned URL the page names, with its version and file name."""
    return VERSIONED.findall(client.get("/").text)


def raw(client: TestClient, url: str, **headers: str) -> tuple[Any, bytes]:
    """The answer to GET `url` and its body exactly as sent (compressed or not)."""
    with client.stream("GET", url, headers=headers) as response:
        return response, b"".join(response.iter_raw())


def kept_by_the_worker(client: TestClient) -> list[str]:
    """The URLs the service worker keeps, as the server wrote them into /sw.js."""
    found = re.search(r"^const FILES = (.*);$", client.get("/sw.js").text, re.MULTILINE)
    assert found is not None
    files: list[str] = json.loads(found[1])
    return files


def test_the_page_names_its_files_by_version_and_is_checked_again(client: TestClient) -> None:
    """`/` names every file by one version and is sent `no-cache` with an ETag, answered 304
    while it is unchanged (a weak tag too); each versioned file is the file itself, kept a year."""
    page = client.get("/")
    assert page.headers["cache-control"] == "no-cache"
    assert "/static/" not in VERSIONED.sub("", page.text)  # no file left unversioned
    found = linked(client)
    assert {"style.css", "app.js", "favicon.svg", "manifest.webmanifest"} <= {n for *_, n in found}
    assert len({version for _, version, _ in found}) == 1
    for headers in ({}, {"accept-encoding": "identity"}):
        first = client.get("/", headers=headers)
        tag = first.headers["etag"]
        for asked in (tag, f"W/{tag}", f'"other", {tag}'):
            again = client.get("/", headers={**headers, "if-none-match": asked})
            assert (again.status_code, again.content) == (304, b"")
            assert again.headers["etag"] == tag and again.headers["cache-control"] == "no-cache"
        assert client.get("/", headers={**headers, "if-none-match": '"x"'}).status_code == 200
    for url, _, name in found:
        response = client.get(url)
        assert response.status_code == 200
        assert (
            response.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        )
        assert response.content == (STATIC / name).read_bytes()


def test_files_are_compressed_once_and_sent_as_the_client_asks(client: TestClient) -> None:
    """Text files go gzipped to a client that takes gzip (with an ETag of their own), plain to one
    that does not; images already compressed go as they are; HEAD has the headers and no
    body."""
    ((style, _, _),) = [item for item in linked(client) if item[2] == "style.css"]
    packed, body = raw(client, style, **{"accept-encoding": "gzip, br"})
    assert (
        packed.headers["content-encoding"] == "gzip" and packed.headers["vary"] == "Accept-Encoding"
    )
    assert gzip.decompress(body) == (STATIC / "style.css").read_bytes()
    assert int(packed.headers["content-length"]) == len(body) < len(gzip.decompress(body)) / 3
    for refused in ("identity", "br", ""):
        plain, body = raw(client, style, **{"accept-encoding": refused})
        assert "content-encoding" not in plain.headers
        assert plain.headers["vary"] == "Accept-Encoding"  # once
        assert body == (STATIC / "style.css").read_bytes()
        assert plain.headers["etag"] != packed.headers["etag"]
    icon = next(url for url, _, name in linked(client) if name.endswith(".png"))
    image, body = raw(client, icon, **{"accept-encoding": "gzip"})
    assert "content-encoding" not in image.headers and image.headers["content-type"] == "image/png"
    head = client.head(style, headers={"accept-encoding": "gzip"})
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == packed.headers["content-length"]


def test_a_changed_file_gets_a_new_version(make_client: ClientFactory, tmp_path: Path) -> None:
    """Changing any one file gives every URL of the page a new version (so the modules' relative
    imports stay within one version) and the page a new ETag; the old version's files are gone."""
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    before = make_client(static_dir=static)
    old = linked(before)
    old_tag = before.get("/").headers["etag"]
    (static / "state.js").write_text((static / "state.js").read_text() + "\n// changed\n")
    after = make_client(static_dir=static)
    new = linked(after)
    assert {version for _, version, _ in new}.isdisjoint({version for _, version, _ in old})
    assert [name for *_, name in new] == [name for *_, name in old]
    assert after.get("/").headers["etag"] != old_tag
    (version,) = {version for _, version, _ in new}
    imported = after.get(f"/static/v/{version}/state.js")  # as app.js imports "./state.js"
    assert imported.text.endswith("// changed\n")
    gone = after.get(old[0][0])
    assert gone.status_code == 404 and gone.headers["cache-control"] == "no-store"
    # The old server sends what it hashed, whatever the file says now.
    assert before.get(f"/static/v/{old[0][1]}/state.js").text == (STATIC / "state.js").read_text()


def test_a_file_the_server_does_not_have_is_404(client: TestClient) -> None:
    """A versioned URL of no file, or that climbs out of the directory, is 404 and not kept."""
    (_, version, _) = linked(client)[0]
    for url in (f"/static/v/{version}/nothing.js", f"/static/v/{version}/../settings.py"):
        response = client.get(url)
        assert response.status_code == 404 and response.headers["cache-control"] == "no-store"


def test_the_plain_static_urls_are_checked_again(client: TestClient) -> None:
    """The same files at their plain /static/ URLs are sent `no-cache` with an ETag, 304 while
    unchanged, and compressed too."""
    first = client.get("/static/app.js", headers={"accept-encoding": "gzip"})
    assert first.headers["cache-control"] == "no-cache"
    assert first.headers["content-encoding"] == "gzip"
    again = client.get("/static/app.js", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304
    icon = client.get("/favicon.ico")
    assert icon.headers["content-type"] == "image/svg+xml" and icon.headers["etag"]
    assert (
        client.get("/favicon.ico", headers={"if-none-match": icon.headers["etag"]}).status_code
        == 304
    )


def test_api_answers_are_compressed_and_never_kept(client: TestClient) -> None:
    """Every API answer, errors and the guard's refusals included, says `no-store`; JSON of some
    size goes gzipped, a long run's chunks too."""
    created = client.post("/api/rounds", json={"seed": 5})
    round_id = created.json()["id"]
    answers = [
        created,
        client.get("/api/me"),
        client.get(f"/api/rounds/{round_id}"),
        client.get("/api/rounds/nope"),
        client.post("/api/rounds", json={"seed": -1}),
        client.post("/api/rounds", content=b"{}", headers={"content-type": "text/plain"}),
        client.get("/api/me", headers={"host": "elsewhere.example"}),
        client.get("/openapi.json"),
    ]
    for response in answers:
        assert response.headers["cache-control"] == "no-store", response.url
    clicks, body = raw(client, "/api/rules", **{"accept-encoding": "gzip"})  # a few KB of JSON
    assert clicks.headers["content-encoding"] == "gzip"
    assert json.loads(gzip.decompress(body))["presets"]["classic"]["war_down"] == 1
    long_run = client.post(
        f"/api/rounds/{round_id}/battles", json={"count": 400}, headers={"accept-encoding": "gzip"}
    )
    assert long_run.headers["content-encoding"] == "gzip"
    assert long_run.headers["cache-control"] == "no-store"
    assert long_run.json()["round"]["battles"] == len(long_run.json()["battles"]) > 100


def test_the_service_worker_keeps_every_file_the_page_loads(client: TestClient) -> None:
    """/sw.js is served at the root, checked again on every load, with the page's version
    written in and every file the page loads (each module any module imports) to keep, and
    nothing of the API."""
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and worker.headers["cache-control"] == "no-cache"
    assert worker.headers["content-type"].startswith("text/javascript")
    assert "service-worker-allowed" not in worker.headers  # its own scope, the root, is enough
    (_, version, _) = linked(client)[0]
    assert f'const VERSION = "{version}";' in worker.text
    kept = kept_by_the_worker(client)
    assert kept[0] == "/" and not [url for url in kept if url.startswith("/api")]
    loaded = {name for *_, name in linked(client) if not name.endswith(".png")}
    for module in STATIC.glob("*.js"):
        loaded |= set(
            re.findall(r'^(?:import|export)\b[^;"]*"\./([\w/-]+\.js)";', module.read_text(), re.M)
        )
    loaded.discard("sw.js")
    assert {f"/static/v/{version}/{name}" for name in loaded} <= set(kept)
    assert all(client.get(url).status_code == 200 for url in kept)


def test_a_service_worker_without_its_two_lines_is_refused() -> None:
    """The server writes the version and the files into sw.js's two constants, and will not
    start with a worker that lacks them."""
    written = worker_script('const VERSION = "x";\nconst FILES = [];\nrest;\n', "abc", ["/"])
    assert written == b'const VERSION = "abc";\nconst FILES = ["/"];\nrest;\n'
    with pytest.raises(ValueError, match=r"sw\.js: needs one `const VERSION"):
        worker_script("const VERSION = 1;\n", "abc", ["/"])


def test_the_manifest_is_served_as_one(client: TestClient) -> None:
    """The manifest goes as application/manifest+json, its icons beside it in the same version,
    and the page's policy lets the browser read the manifest and run the worker."""
    (url,) = [url for url, _, name in linked(client) if name == "manifest.webmanifest"]
    response = client.get(url)
    assert response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()
    for icon in manifest["icons"]:
        assert client.get(url.rsplit("/", 1)[0] + "/" + icon["src"]).status_code == 200
    policy = client.get("/").headers["content-security-policy"]
    assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy
