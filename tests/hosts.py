"""Hosts of a site on this one machine: each a network namespace (iproute2) with one link to this
machine, a veth pair, `10.R.N.1` on this side and `10.R.N.2` on the host's (R a block of
addresses of this test run's own). The test makes them and removes them, and traffic goes only
to addresses on the links it made: a host reaches the database and the broker through relays
that listen on its link's address here (tests/relay.py), and nginx reaches the host at its own.

Taking a host away (`cut`) sets its link down: nothing is closed, nothing answers, as when a
machine loses power or its network. Needs root, and a kernel that lets it make namespaces."""

from __future__ import annotations

import os
import secrets
import subprocess
from dataclasses import dataclass


def ip(*args: str) -> subprocess.CompletedProcess[str]:
    """`ip ARGS`: the command's result, raising with its words if it failed."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True)
    if done.returncode:
        raise OSError(f"ip {' '.join(args)}: {done.stderr.strip()}")
    return done


def can_make_hosts() -> str | None:
    """None where namespaces can be made here; else why not (the test skips, saying so)."""
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    probe = f"cwprobe{secrets.token_hex(3)}"
    try:
        ip("netns", "add", probe)
    except FileNotFoundError:
        return "iproute2's ip is not installed"
    except OSError as error:
        return str(error)
    ip("netns", "del", probe)
    return None


@dataclass
class Host:
    """One namespace, and its link to this machine."""

    name: str
    here: str
    """This machine's address on the link (relays listen there; the host's proxy is there)."""
    there: str
    """The host's address on the link (its cardwar listens there)."""
    link: str
    """The name of this side's end of the link."""

    @property
    def run(self) -> tuple[str, ...]:
        """What runs a command on the host."""
        return ("ip", "netns", "exec", self.name)

    def cut(self) -> None:
        """Take the host away: its link down, nothing closed."""
        ip("link", "set", self.link, "down")

    def mend(self) -> None:
        """Bring it back: its link up, its address and route as they were."""
        ip("link", "set", self.link, "up")
        ip("addr", "replace", f"{self.here}/30", "dev", self.link)


class Hosts:
    """`count` hosts made now, removed by `remove` (links and namespaces, every one)."""

    def __init__(self, count: int) -> None:
        tag = secrets.token_hex(2)
        block = 100 + int(tag, 16) % 100  # 10.100-199.N.x: a block of this run's own
        self.hosts: list[Host] = []
        try:
            for n in range(1, count + 1):
                name = f"cw{tag}h{n}"
                host = Host(name, f"10.{block}.{n}.1", f"10.{block}.{n}.2", f"cw{tag}v{n}")
                self.hosts.append(host)
                ip("netns", "add", name)
                ip("link", "add", host.link, "type", "veth", "peer", "name", "eth0", "netns", name)
                ip("addr", "add", f"{host.here}/30", "dev", host.link)
                ip("link", "set", host.link, "up")
                for args in (
                    ("addr", "add", f"{host.there}/30", "dev", "eth0"),
                    ("link", "set", "eth0", "up"),
                    ("link", "set", "lo", "up"),
                ):
                    ip("-n", name, *args)
        except BaseException:
            self.remove()
            raise

    def remove(self) -> None:
        """Remove every host made: its namespace, and with it both ends of its link."""
        for host in self.hosts:
            subprocess.run(["ip", "netns", "del", host.name], capture_output=True)
            subprocess.run(["ip", "link", "del", host.link], capture_output=True)
        self.hosts = []
