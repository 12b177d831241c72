"""`cardwar serve` in a child process, as a person runs it: the tests' live server, started and
stopped by the fixtures (conftest.py) and the tests that restart or kill it."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, NoReturn

import httpx2 as httpx


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on right now (another process
    may take it before it is used: `LiveServer.start` notices, and takes another)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# The fixtures wait for events (a line printed, a port answering, a process ending), never for
# a time. This only bounds a wait for one that never comes, so that a hung server fails its
# test with its output rather than hanging the suite: a busy machine delays the events, and
# never comes near it.
HANG_S = 120.0
# While a port still refuses connections: try again after this long, or at once if the process
# ends meanwhile.
RETRY_S = 0.05
# One request to a port that may not be the server's (another process may listen there) waits
# this long for its answer, then the process is looked at and the request sent again: a slow
# answer is only another try, never a failure.
PROBE_S = 2.0
PORT_TRIES = 5  # fresh ports tried when another process listens on the one chosen first


class Output:
    """A child process's stdout and stderr as they come: copied line by line into a log file
    (flushed, so a test may read it) and kept, with waits for some words or for the end."""

    def __init__(self, stream: IO[bytes], log: Path) -> None:
        self._lines: list[str] = []
        self._ended = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._copy, args=(stream, log), daemon=True)
        self._thread.start()

    def _copy(self, stream: IO[bytes], log: Path) -> None:
        try:
            with stream, log.open("ab") as sink:
                for line in iter(stream.readline, b""):
                    sink.write(line)
                    sink.flush()
                    with self._changed:
                        self._lines.append(line.decode(errors="replace"))
                        self._changed.notify_all()
        finally:
            with self._changed:
                self._ended = True
                self._changed.notify_all()

    @property
    def text(self) -> str:
        with self._changed:
            return "".join(self._lines)

    def wait_for(self, words: str, times: int = 1) -> bool:
        """Wait until `words` are printed (`times` times: True) or the output ends (False: the
        process has closed it, so it is ending). Raises TimeoutError if HANG_S pass with
        neither and no new line: every line printed is a sign of life (a first start tells
        each kernel family it compiles, which a loaded machine may stretch well past HANG_S in
        all)."""
        with self._changed:
            while not (self._ended or "".join(self._lines).count(words) >= times):
                seen = len(self._lines)
                if not self._changed.wait_for(
                    lambda seen=seen: self._ended or len(self._lines) > seen, HANG_S
                ):
                    raise TimeoutError(
                        f"neither {words!r} nor the end, nor any new line, within {HANG_S:.0f} s"
                    )
            return "".join(self._lines).count(words) >= times

    def ended(self, within: float) -> bool:
        """True once the output has ended, waiting up to `within` seconds for that."""
        with self._changed:
            return self._changed.wait_for(lambda: self._ended, within)

    def close(self) -> None:
        """Wait until everything printed is copied (once the process has ended)."""
        self._thread.join(HANG_S)


class PortTaken(Exception):
    """Another process listened on the port first: the server could not bind it."""


class LiveServer:
    """`cardwar serve` in a child process on a loopback port, as a person would run it."""

    def __init__(
        self,
        db: Path | str,
        env: dict[str, str] | None = None,
        log: Path | None = None,
        args: Sequence[str] = (),
        host: str = "127.0.0.1",
        before: Sequence[str] = (),
        open_files: tuple[int, int] | None = None,
    ) -> None:
        self.db = db
        self.host = host  # where it listens (`--host`), and where the test reaches it
        self.before = tuple(before)  # what runs the command (`ip netns exec HOST`, say)
        self.open_files = open_files  # its limit of open files (soft, hard), if not this one's
        self.env = env or {}  # more of the server's environment (NUMBA_CACHE_DIR, say)
        self.args = tuple(args)  # more options of `cardwar serve` (--broker, --workers)
        # A log beside the file, unless told (a URL, or a second server on the file).
        self.log = log or Path(db).with_suffix(".log")
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.output: Output | None = None
        self._served = False  # once served, the address stays: the test and its pages use it
        self._launched = 0.0
        self.took_to_url = 0.0
        """Seconds from the last launch to the address printed (a first start is timed so)."""

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> LiveServer:
        """Start the server and wait until it answers.

        The waits are for the server's own signs of life, however long a busy machine makes
        them take: it prints its address (the simulator is prepared in the background after
        that), then its port answers. A server that exits
        fails the test at once, with its output. The first start moves to another port if
        another process listens on this one; a restart keeps the address."""
        for _ in range(1 if self._served else PORT_TRIES):
            self._launch()
            try:
                self._wait_until_serving()
            except PortTaken:
                if self._served:
                    raise RuntimeError(
                        f"cardwar serve could not listen on {self.url} again: another process"
                        f" took the port\n{self._said()}"
                    ) from None
                self.port = free_port()
                continue
            except BaseException:
                self.kill()
                raise
            self._served = True
            return self
        raise RuntimeError(f"cardwar serve found {PORT_TRIES} ports taken\n{self._said()}")

    def _launch(self) -> None:
        command = [*self.before, sys.executable, "-m", "cardwar.cli", "serve"]
        command += ["--port", str(self.port), "--db", str(self.db), *self.args]
        if self.host != "127.0.0.1":
            command += ["--host", self.host]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
            preexec_fn=None if self.open_files is None else self._limit_open_files,
        )
        self._launched = time.monotonic()
        assert self.process.stdout is not None
        self.output = Output(self.process.stdout, self.log)

    def _limit_open_files(self) -> None:
        """In the child, before it runs: the limit of open files it was given (`ulimit -n`)."""
        assert self.open_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, self.open_files)

    def _wait_until_serving(self) -> None:
        assert self.process is not None and self.output is not None
        try:
            printed = self.output.wait_for(self.url)
            self.took_to_url = time.monotonic() - self._launched
        except TimeoutError:
            raise RuntimeError(
                f"cardwar serve printed no address, and nothing more for {HANG_S:.0f} s: hung?"
                f"\n{self._said()}"
            ) from None
        if not printed:
            self._exited()
        hung = time.monotonic() + HANG_S
        while True:
            try:
                answer = httpx.get(f"{self.url}/api/rules", timeout=PROBE_S)
            except httpx.TransportError:  # not listening yet, slow to answer, or not ours
                if self.output.ended(RETRY_S):
                    self._exited()
                if time.monotonic() > hung:
                    raise RuntimeError(
                        f"cardwar serve printed its address but has not answered on it for"
                        f" {HANG_S:.0f} s, and runs on\n{self._said()}"
                    ) from None
                continue
            if answer.status_code == 200 and "presets" in answer.text:
                if self.process.poll() is None:
                    return
            # Not our server's answer, or it ended just now: ours cannot listen there.
            if self.output.ended(HANG_S):
                self._exited()
            raise RuntimeError(
                f"{self.url} answered {answer.status_code}, not as cardwar serve does, and the"
                f" server runs on\n{self._said()}"
            )

    def _exited(self) -> NoReturn:
        """The process closed its output before serving: why it ended, from what it said."""
        assert self.process is not None and self.output is not None
        status = self.process.wait(HANG_S)
        self.output.close()
        if "address already in use" in self.output.text.lower():
            raise PortTaken
        raise RuntimeError(
            f"cardwar serve exited with status {status} before it answered\n{self._said()}"
        )

    def _said(self) -> str:
        return f"--- cardwar serve said:\n{self.output.text if self.output else ''}---"

    def client(self) -> httpx.Client:
        """An HTTP client of the server that waits out a busy machine: httpx's own timeout, 5 s,
        is shorter than a server's first long work may take there (a deal that starts its
        worker process, say); only a hang reaches HANG_S."""
        return httpx.Client(base_url=self.url, timeout=HANG_S)

    def wait(self) -> int:
        """Wait for the process to end by itself (after a signal the test sent); its status."""
        assert self.process is not None and self.output is not None
        status = self.process.wait(HANG_S)
        self.output.close()
        return status

    def kill(self) -> None:
        """Kill the process at once (SIGKILL), as a crash would."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.wait()

    def stop(self) -> None:
        """Stop the process politely (SIGTERM, as Ctrl+C would), then make sure it is gone."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(HANG_S)
                except subprocess.TimeoutExpired:
                    self.process.kill()
            self.wait()
