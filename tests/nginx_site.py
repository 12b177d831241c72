"""Debian's nginx in front of real `cardwar serve` processes, as deploy/nginx-cardwar.conf puts it:
that very file, its CHANGE-ME lines given this test's addresses, run by a master process of its
own (its own prefix, pid file and logs, on loopback ports), with a self-signed certificate made
for the test. Stopped (and its files left for a failing test's reading) by the fixture."""

from __future__ import annotations

import re
import shutil
import signal
import ssl
import subprocess
import time
from pathlib import Path

import httpx2 as httpx

from live import HANG_S, RETRY_S, free_port

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "deploy" / "nginx-cardwar.conf"
NAME = "cards.test"
"""The site's name in the tests (nginx's server_name, cardwar's --allow-host)."""

MAIN = """
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    log_format upstreams '$remote_addr "$request" $status -> $upstream_addr $upstream_status';
    access_log {prefix}/access.log upstreams;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/site.conf;
}}
"""


def nginx_path() -> str | None:
    """Debian's nginx, where installed (`.ci/run` installs it)."""
    return shutil.which("nginx") or next(
        (str(path) for path in (Path("/usr/sbin/nginx"),) if path.exists()), None
    )


def certificate(where: Path, *names: str) -> tuple[Path, Path]:
    """A self-signed certificate (and its key) for `names` (host names or IP addresses)."""
    cert, key = where / "site.pem", where / "site.key"
    alt = ",".join(
        f"IP:{name}" if re.fullmatch(r"[\d.]+", name) else f"DNS:{name}" for name in names
    )
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={names[0]}", "-addext", f"subjectAltName={alt}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def site_conf(upstreams: list[str], https_port: int, http_port: int, cert: Path, key: Path) -> str:
    """deploy/nginx-cardwar.conf with this test's addresses in place of each CHANGE-ME."""
    text = SITE.read_text()
    servers = "\n".join(f"    server {where} max_fails=1 fail_timeout=5s;" for where in upstreams)
    text = re.sub(r"^    server 127\.0\.0\.1:8000 .*CHANGE-ME.*$", servers, text, flags=re.M)
    text = text.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    text = text.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;")
    text = re.sub(r"^\s*listen \[::\]:.*$", "", text, flags=re.M)  # loopback of IPv4 only
    text = text.replace("cards.example.org;", f"{NAME};")
    text = text.replace("/etc/ssl/certs/cardwar.pem;", f"{cert};")
    text = text.replace("/etc/ssl/private/cardwar.key;", f"{key};")
    assert "CHANGE-ME" not in re.sub(r"#.*", "", text), "a CHANGE-ME line the test left as is"
    return text


class Nginx:
    """nginx with the sample site in front of `upstreams` (host:port each), on loopback."""

    def __init__(self, prefix: Path, upstreams: list[str]) -> None:
        found = nginx_path()
        assert found is not None
        self.nginx = found
        self.prefix = prefix
        self.port, self.http_port = free_port(), free_port()
        prefix.mkdir(parents=True, exist_ok=True)
        self.cert, key = certificate(prefix, NAME, "127.0.0.1")
        (prefix / "site.conf").write_text(
            site_conf(upstreams, self.port, self.http_port, self.cert, key)
        )
        (prefix / "nginx.conf").write_text(MAIN.format(prefix=prefix))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def test_config(self) -> str:
        """`nginx -t` of the configuration: its words (it fails the test if it is refused)."""
        done = subprocess.run(
            [self.nginx, "-t", "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf")],
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stderr

    def start(self) -> Nginx:
        """Start it, and wait until its HTTPS port answers."""
        command = [self.nginx, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf")]
        with (self.prefix / "stderr.log").open("ab") as said:  # its own error.log has the rest
            self.process = subprocess.Popen([*command, "-g", "daemon off;"], stderr=said)
        hung = time.monotonic() + HANG_S
        with self.client() as client:
            while True:
                try:
                    client.get("/healthz")
                    return self
                except httpx.TransportError:
                    if self.process.poll() is not None:
                        raise RuntimeError(f"nginx ended: {self.said()}") from None
                    if time.monotonic() > hung:
                        raise RuntimeError(f"nginx never answered: {self.said()}") from None
                    time.sleep(RETRY_S)  # its port not yet open: nothing to wait on but time

    def client(self, **options: object) -> httpx.Client:
        """An HTTPS client of the site (its certificate trusted, its name the Host)."""
        chosen: dict[str, object] = {"verify": ssl.create_default_context(cafile=str(self.cert))}
        chosen |= options
        return httpx.Client(
            base_url=self.url, headers={"Host": NAME}, timeout=HANG_S,
            **chosen,  # type: ignore[arg-type]
        )  # fmt: skip

    def said(self) -> str:
        logs = (self.prefix / "stderr.log", self.prefix / "error.log")
        return "".join(log.read_text() for log in logs if log.exists())

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            # nginx's quick stop (SIGQUIT, its graceful one, waits for every live socket)
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(HANG_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(HANG_S)
