"""The table as an installed app, in Debian's Chromium (docs/api.md#installing): its manifest and
icons, the service worker that keeps the page's own files, the page opening from them with the
server away, and a first load that comes compressed and light
(docs/api.md#compression-and-caching)."""

from __future__ import annotations

import re
import struct
from typing import Any
from urllib.parse import urljoin

from playwright.sync_api import Browser, Page, Request, expect

from browsing import DESKTOP, PHONE, Watch, audit, open_page, press
from live import LiveServer

# The page's own requests while the server cannot be reached fail, as they should; Chromium logs
# each failed load as a console error, which these tests expect and nothing else.
OFFLINE_LOADS = ("net::ERR_INTERNET_DISCONNECTED", "net::ERR_FAILED")


def controlled(page: Page) -> str:
    """Wait until the service worker looks after the page (it claims the page it was installed
    from); its script's URL."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    url: str = page.evaluate("navigator.serviceWorker.controller.scriptURL")
    return url


def kept(page: Page) -> dict[str, list[str]]:
    """Every cache of the page's origin, by name, with the URLs it holds."""
    found: dict[str, list[str]] = page.evaluate(
        """async () => {
          const found = {};
          for (const name of await caches.keys()) {
            found[name] = (await (await caches.open(name)).keys()).map((request) => request.url);
          }
          return found;
        }"""
    )
    return found


def png_size(body: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    assert body[:8] == b"\x89PNG\r\n\x1a\n" and body[12:16] == b"IHDR"
    width, height = struct.unpack(">II", body[16:24])
    return width, height


def test_the_manifest_is_linked_valid_and_its_icons_load(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The page links a manifest with the table's name, start, standalone display, colours and
    our icons (an SVG and PNGs of 192 and 512, a maskable one), each of which loads at its size."""
    page, watch = open_page(browser, shared_server, PHONE)
    href = page.locator('link[rel="manifest"]').get_attribute("href")
    assert href is not None and href.startswith("/static/v/")
    response = page.request.get(shared_server.url + href)
    assert response.ok and response.headers["content-type"] == "application/manifest+json"
    manifest: dict[str, Any] = response.json()
    assert manifest["name"] == "War · cardwar" and manifest["short_name"] == "War"
    assert (manifest["start_url"], manifest["scope"], manifest["display"]) == (
        "/",
        "/",
        "standalone",
    )
    theme = page.locator('meta[name="theme-color"]').get_attribute("content")
    felt = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--felt')")
    assert manifest["theme_color"] == theme == felt.strip()
    assert manifest["background_color"].startswith("#")
    sizes = set()
    for icon in manifest["icons"]:
        loaded = page.request.get(urljoin(shared_server.url + href, icon["src"]))
        assert loaded.ok and loaded.headers["content-type"] == icon["type"], icon
        if icon["type"] == "image/png":
            width, height = png_size(loaded.body())
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add((icon["sizes"], icon.get("purpose", "any")))
        else:
            assert icon["sizes"] == "any" and b"<svg" in loaded.body()
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= sizes
    touch = page.locator('link[rel="apple-touch-icon"]').get_attribute("href")
    assert touch is not None and png_size(page.request.get(shared_server.url + touch).body()) == (
        180,
        180,
    )
    watch.check(shared_server)
    page.context.close()


def test_the_service_worker_keeps_the_page_and_never_an_answer(
    browser: Browser, shared_server: LiveServer
) -> None:
    """The service worker registers at the root, looks after the page after a reload, keeps the
    page and its files of this version in a cache named by that version, and keeps no API answer
    however much is played."""
    page, watch = open_page(browser, shared_server, DESKTOP)
    assert controlled(page) == shared_server.url + "/sw.js"
    page.reload()
    expect(page.get_by_role("button", name="Turn cards", exact=True)).to_be_enabled()
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    press(page, "Turn cards")
    press(page, "Play 10 battles")
    caches = kept(page)
    ((name, urls),) = caches.items()
    version = page.locator('link[rel="stylesheet"]').get_attribute("href")
    assert version is not None and name == "cardwar-" + version.split("/")[3]
    assert shared_server.url + "/" in urls and shared_server.url + version in urls
    assert not [url for url in urls if "/api/" in url]
    watch.check(shared_server)
    page.context.close()


def test_the_table_opens_offline_and_says_it_cannot_reach_the_game(
    browser: Browser, shared_server: LiveServer
) -> None:
    """With the service worker in charge and the network gone, a reload still opens the table
    from its kept files, every one of them from the worker, and the page says plainly that it
    cannot reach the game (the table it shows: test_browser_offline.py)."""
    page, watch = open_page(browser, shared_server, PHONE)
    controlled(page)
    page.context.set_offline(True)
    served: list[tuple[str, bool]] = []
    page.on(
        "response", lambda response: served.append((response.url, response.from_service_worker))
    )
    page.reload()
    message = page.get_by_test_id("message")
    expect(message).to_have_text("Can't reach the game, trying again…")
    expect(message).to_have_class(re.compile(r"\berror\b"))
    expect(page.get_by_role("button", name="Turn cards", exact=True)).to_be_visible()
    assert page.title() == "War · cardwar"
    assert [url for url, worker in served if "/static/v/" in url and not worker] == []
    assert (shared_server.url + "/", True) in served
    audit(page)
    page.context.set_offline(False)
    watch.errors = [error for error in watch.errors if not error.endswith(OFFLINE_LOADS)]
    watch.check(shared_server)
    page.context.close()


def test_the_first_load_comes_compressed_and_light(
    browser: Browser, shared_server: LiveServer
) -> None:
    """A first visit downloads each of the page's files once (the service worker keeps them
    from the browser's cache), every text file gzipped, under 200 KB as sent; the next visit
    takes them all from the service worker."""
    context = browser.new_context(**DESKTOP, reduced_motion="reduce")  # type: ignore[arg-type]
    finished: list[Request] = []
    context.on("requestfinished", lambda request: finished.append(request))
    page = context.new_page()
    watch = Watch(page)
    page.goto(shared_server.url + "/")
    controlled(page)
    expect(page.get_by_role("button", name="Turn cards", exact=True)).to_be_enabled()
    files = [request for request in finished if "/api/" not in request.url]
    downloaded: dict[str, int] = {}
    for request in files:
        response = request.response()
        assert response is not None and response.status == 200, request.url
        if not response.headers["content-type"].startswith("image/png"):
            assert response.headers.get("content-encoding") == "gzip", request.url
        # Chromium counts a body taken from its own cache (or a 304's) as 0 bytes or fewer.
        body = request.sizes()["responseBodySize"]
        if body > 0:
            assert request.url not in downloaded, f"{request.url} downloaded twice"
            downloaded[request.url] = body
    # The worker kept the page's files straight from the browser's cache: each came once.
    assert {url for url in downloaded if "/static/v/" in url} == {
        request.url for request in files if "/static/v/" in request.url
    }
    assert 0 < sum(downloaded.values()) < 200_000
    served: list[tuple[str, bool]] = []
    page.on(
        "response", lambda response: served.append((response.url, response.from_service_worker))
    )
    page.reload()
    expect(page.get_by_role("button", name="Turn cards", exact=True)).to_be_enabled()
    versioned = [worker for url, worker in served if "/static/v/" in url]
    assert versioned and all(versioned)
    watch.check(shared_server)
    context.close()
