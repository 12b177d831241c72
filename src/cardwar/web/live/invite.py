"""Where others open a live table: its invite and watch links on the address they can reach
(this computer's address on its network, found without sending a packet), and either link as a
QR code drawn here (docs/api.md#the-invite-as-a-qr-code)."""

from __future__ import annotations

import io
import socket
from typing import Any

import segno

from cardwar.web.guard import host_name
from cardwar.web.settings import LOOPBACK_HOSTS, Settings


def lan_address() -> str | None:
    """This computer's address on its network, as others on it reach it (no packet is sent:
    a UDP socket's connect only picks the way out), or None without a network."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        found: str = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if found.startswith("127.") else found


def invite(settings: Settings, scheme: str, host: str, code: str, watch: str) -> dict[str, Any]:
    """The table's links as a page at `scheme`://`host` opens them, on the address others can
    reach, and whether anyone but this computer can (with what to do when not)."""
    name = host_name(host)
    base = f"{scheme}://{host}"
    # Behind a proxy (a site: docs/deploy.md), the page's own address is the site's, which
    # everyone reaches; this process's address is the proxy's to know, not the players'.
    shared = settings.listen_host not in LOOPBACK_HOSTS or bool(settings.trusted_proxies)
    if shared and name in LOOPBACK_HOSTS and not settings.trusted_proxies:
        address = settings.listen_host if settings.listen_host not in ("0.0.0.0", "::") else None
        address = address or lan_address()
        if address is not None:
            base = f"{scheme}://{address}:{settings.port}"
    hint = None
    if not shared:
        hint = (
            "Only this computer can open these links: the game listens here alone. To let the "
            "phones and computers of your network in, stop it (Ctrl+C where it runs) and start "
            f"it again with: {settings.network_command}"
        )
    return {
        "code": code,
        "invite_url": f"{base}/?table={code}",
        "watch_url": f"{base}/?watch={watch}",
        "shared": shared,
        "hint": hint,
    }


def qr_svg(link: str, title: str) -> str:
    """`link` as a QR code: an SVG image of its own, which scales (a viewBox, no size)."""
    made = segno.make(link, error="m")
    size = made.symbol_size(scale=6)[0]
    drawn = io.BytesIO()
    made.save(
        drawn, kind="svg", scale=6, dark="#1d232a", light="#ffffff", xmldecl=False, nl=False,
        title=title, svgclass=None, lineclass=None,
    )  # fmt: skip
    svg = drawn.getvalue().decode()
    return svg.replace(f'width="{size}" height="{size}"', f'viewBox="0 0 {size} {size}"', 1)
