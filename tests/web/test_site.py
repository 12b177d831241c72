"""cardwar as a site (docs/deploy.md#a-site-on-the-internet): forwarded headers believed only
from a trusted proxy, and deploy/'s nginx site in front of a real `cardwar serve` on loopback,
over TLS, a live table's socket through it."""

from __future__ import annotations

import json
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from live import HANG_S, LiveServer
from nginx_site import NAME, Nginx, nginx_path

NEWCOMERS = 70
"""New players asked for at once, each said (by X-Forwarded-For) to come from its own address:
more than one address is handed at once (`Settings.new_players_burst`, 60)."""


def newcomers_refused(client: object, forwarded: bool = True) -> int:
    """How many of NEWCOMERS new players (no cookie) are refused (429) a new round."""
    refused = 0
    for n in range(NEWCOMERS):
        headers = {"X-Forwarded-For": f"203.0.113.{n + 1}"} if forwarded else {}
        client.cookies.clear()  # type: ignore[attr-defined]  # a new player each time
        answer = client.post("/api/rounds", json={}, headers=headers)  # type: ignore[attr-defined]
        assert answer.status_code in (201, 429), answer.text
        refused += answer.status_code == 429
    return refused


@pytest.mark.parametrize(
    ("trusted", "believed"),
    [((), False), (("127.0.0.1",), True), (("10.9.9.0/24",), False)],
    ids=["no proxy trusted", "this one trusted", "another trusted"],
)
def test_forwarded_headers_are_believed_only_from_a_trusted_proxy(
    tmp_path: Path, trusted: tuple[str, ...], believed: bool
) -> None:
    """70 new players from one client, each claiming its own address in X-Forwarded-For: only a
    proxy named by --trusted-proxy is believed (70 addresses, none refused); from anyone else
    the claims count for nothing, and the address is refused past its 60 newcomers at once."""
    args = [arg for proxy in trusted for arg in ("--trusted-proxy", proxy)]
    server = LiveServer(tmp_path / "live.db", args=args).start()
    try:
        with server.client() as client:
            refused = newcomers_refused(client)
    finally:
        server.stop()
    assert (refused == 0) is believed, refused


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[Nginx, LiveServer]]:
    """deploy/'s nginx site over TLS in front of `cardwar serve`, which trusts it alone."""
    if nginx_path() is None:
        pytest.skip("nginx is not installed here (.ci/run installs Debian's)")
    server = LiveServer(
        tmp_path / "live.db", args=["--trusted-proxy", "127.0.0.1", "--allow-host", NAME]
    ).start()
    nginx = Nginx(tmp_path / "nginx", [f"127.0.0.1:{server.port}"])
    try:
        nginx.test_config()
        yield nginx.start(), server
    finally:
        nginx.stop()
        server.stop()


def test_the_sample_nginx_site_serves_the_game_over_tls(site: tuple[Nginx, LiveServer]) -> None:
    """Through deploy/nginx-cardwar.conf: the page over HTTPS, a player's cookie `Secure`, a
    live table's socket over wss:// (a battle played through it), /metrics never public, plain
    HTTP sent to HTTPS, and a client's own X-Forwarded-For replaced by nginx: 70 claimed
    addresses are still one, refused past its newcomers."""
    nginx, _ = site
    with nginx.client() as client:
        page = client.get("/")
        assert page.status_code == 200 and "<title>" in page.text
        opened = client.post("/api/tables", json={"seats": [
            {"kind": "person", "name": "Ann"}, {"kind": "computer", "name": ""}]})  # fmt: skip
        assert opened.status_code == 201, opened.text
        cookie = opened.headers["set-cookie"]
        assert "; Secure" in cookie and "HttpOnly" in cookie
        assert client.get("/metrics").status_code == 404
        code = opened.json()["invite"]["code"]
        context = ssl.create_default_context(cafile=str(nginx.cert))
        cookies = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        site = f"{NAME}:{nginx.port}"  # as a browser names it, reached on loopback here
        with connect(
            f"wss://{site}/api/tables/{code}/live", ssl=context, server_hostname=NAME,
            sock=socket.create_connection(("127.0.0.1", nginx.port), HANG_S),
            additional_headers={"Cookie": cookies, "Origin": f"https://{site}"},
            open_timeout=HANG_S,
        ) as live:  # fmt: skip
            heard = json.loads(live.recv(HANG_S))
            assert heard == {"type": "welcome", "you": {"seat": 0, "host": True}}, heard
            live.send(json.dumps({"type": "flip"}))
            while heard["type"] != "played":
                heard = json.loads(live.recv(HANG_S))
            assert heard["played"] == 1 and heard["battles"][-1]["number"] == 1
    with nginx.client() as fresh:
        assert newcomers_refused(fresh) > 0
    with nginx.client(verify=False) as plain:
        moved = plain.get(f"http://127.0.0.1:{nginx.http_port}/", follow_redirects=False)
        assert moved.status_code == 301
        assert moved.headers["location"] == f"https://{NAME}/"
