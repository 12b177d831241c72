"""The server's start: it answers at once, the simulator prepared in the background
(`cardwar/web/warming.py`) and what needs it waiting for it, a slow (first-start) preparation told
once, and `cardwar serve`'s words for it."""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import replace
from io import StringIO
from pathlib import Path
from typing import ClassVar

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from cardwar.cli import serve as serve_cli
from cardwar.cli.serve import PREPARING, Start
from cardwar.sim import warm
from cardwar.web import Settings, create_app, warming
from cardwar.web.live import invite
from cardwar.web.settings import LOOPBACK_HOSTS

from helpers import in_a_fresh_process
from live import HANG_S


def settings(tmp_path: Path) -> Settings:
    """A server's settings for a TestClient: its own database, no worker process at start."""
    hosts = (*LOOPBACK_HOSTS, "testserver")
    return Settings(db=tmp_path / "cardwar.db", hosts=hosts, worker_at_start=False)


def until_ready(client: TestClient) -> dict[str, object]:
    """`GET /api/simulator` again until it says ready (as the page asks it, more often)."""
    for _ in range(int(HANG_S / 0.05)):
        status: dict[str, object] = client.get("/api/simulator").json()
        if status["ready"]:
            return status
        time.sleep(0.05)  # the preparation tells nobody: asked again, as the page does
    raise AssertionError(f"the simulator never ready: {status}")


class Told:
    """A `Starting` that keeps what it is told, in order."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def ready(self) -> None:
        self.said.append("ready")

    def preparing(self, seconds: int) -> None:
        self.said.append(f"preparing, about {seconds} s")

    def prepared(self, took: float) -> None:
        self.said.append("prepared")


def test_a_quick_preparation_is_not_told_and_the_server_says_it_is_ready(tmp_path: Path) -> None:
    """With the cache filled (the session's warm-up did it), preparing takes less than a cache
    load: nothing is told of it, `ready` comes once, and the simulator is soon ready."""
    told = Told()
    app = create_app(settings(tmp_path), starting=told)
    with TestClient(app) as client:
        assert told.said == ["ready"]
        assert client.get("/api/rules").status_code == 200
        status = until_ready(client)
        assert status["ready"] and status["step"] is None
    assert told.said == ["ready"]


def test_the_server_answers_while_it_prepares_and_the_simulator_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slow preparation (a first start's) goes on in the background: the server answers at
    once, says where the preparation stands, and a chance estimate asked meanwhile waits for it
    and is answered once it is done, never refused. The start is told as the server answers,
    then that it prepares, then that it is done."""
    told = Told()
    going_on, finish = threading.Event(), threading.Event()

    def slow() -> None:  # a first run's compiling, until the test lets it end
        going_on.set()
        assert finish.wait(HANG_S)

    monkeypatch.setattr(warm, "STEPS", (("the slow kernels", slow), *warm.STEPS))
    monkeypatch.setattr(warming, "TELL_AFTER_S", 0.0)
    app = create_app(settings(tmp_path), starting=told)
    with TestClient(app) as client:
        assert going_on.wait(HANG_S)
        assert client.get("/api/rules").status_code == 200  # the game answers meanwhile
        status = client.get("/api/simulator").json()
        assert status["ready"] is False and status["step"] == "the slow kernels"
        assert status["done"] == 0 and status["total"] == 4 and status["first_start_s"] > 0
        round_id = client.post("/api/rounds", json={"seed": 3}).json()["id"]
        client.post(f"/api/rounds/{round_id}/battles", json={"count": 5})
        chance: list[int] = []
        asking = threading.Thread(
            target=lambda: chance.append(client.get(f"/api/rounds/{round_id}/chance").status_code)
        )
        asking.start()
        assert client.get("/api/simulator").json()["ready"] is False
        assert chance == []  # it waits for the simulator
        finish.set()
        asking.join(HANG_S)
        assert chance == [200]
        assert until_ready(client)["ready"]
    assert told.said[:2] == ["ready", f"preparing, about {warm.FIRST_RUN_S} s"]
    assert told.said[2:] == ["prepared"]


def test_serve_says_where_to_open_the_game_then_what_it_prepares() -> None:
    """`cardwar serve` prints the address first, then, on a first start, one line that says it
    prepares the simulator meanwhile and how long that takes in all, then one that it is done."""
    out = StringIO()
    start = Start(Console(file=out, width=300), ["cardwar: open http://127.0.0.1:8000"])
    start.ready()
    start.preparing(20)
    start.prepared(23.4)
    assert out.getvalue().splitlines() == [
        "cardwar: open http://127.0.0.1:8000",
        PREPARING.format(seconds=20),
        "cardwar: the simulator is ready (prepared in 23 s)",
    ]
    assert "first start only: about 20 s in all" in PREPARING.format(seconds=20)


def test_every_kernel_family_a_page_reaches_is_prepared() -> None:
    """In a fresh process, `prepare` alone readies the chance meter's kernel and both statistics
    kernels (the classic table's own and the general one): each has a compiled signature after
    it, and none before."""
    script = (
        "from cardwar.sim import warm\n"
        "from cardwar.sim.runs.kernels.chances import chances\n"
        "from cardwar.sim.runs.kernels.classic import play_classic_parallel\n"
        "from cardwar.sim.runs.kernels.random_rounds import play_rounds_parallel\n"
        "kernels = (chances, play_classic_parallel, play_rounds_parallel)\n"
        "before = [bool(kernel.signatures) for kernel in kernels]\n"
        "warm.prepare()\n"
        "print(before, [bool(kernel.signatures) for kernel in kernels])\n"
    )
    assert in_a_fresh_process(script) == "[False, False, False] [True, True, True]"


class Said:
    """`cardwar serve`'s start, kept rather than shown: the lines it would print."""

    lines: ClassVar[list[str]] = []

    def __init__(self, out: Console, said: list[str], log_format: str = "text") -> None:
        Said.lines = said


def lines_of_serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, host: str) -> list[str]:
    """What `cardwar serve --host HOST` says as it starts (the server itself not run)."""
    import uvicorn

    monkeypatch.setattr(serve_cli, "Start", Said)
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    serve_cli.serve(
        Console(file=StringIO()), host=host, port=8123, db=str(tmp_path / "c.db"),
        max_battles=100_000, keep_days=30,
    )  # fmt: skip
    return Said.lines


def test_each_command_the_start_prints_runs_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On this computer alone, the start says how to let the network in, with the command that
    started it (`python3 dev.py play`, which dev.py names; else the program by the name the
    shell finds it, or its full path); listening on the network, it gives the address phones
    open. The invite's hint names the same command."""
    monkeypatch.setenv(serve_cli.STARTED_AS, "python3 dev.py play")
    alone = lines_of_serve(monkeypatch, tmp_path, "127.0.0.1")
    assert alone[-1].endswith("start it with: python3 dev.py play --host 0.0.0.0 --port 8123")
    monkeypatch.setattr(invite, "lan_address", lambda: "192.168.1.20")
    shared = lines_of_serve(monkeypatch, tmp_path, "0.0.0.0")
    assert "cardwar: phones and computers on your network open http://192.168.1.20:8123" in shared
    assert not any("start it with" in line for line in shared)
    hint = invite.invite(
        replace(Settings(), network_command=serve_cli.network_command(8000)), "http",
        "127.0.0.1:8000", "code", "watch",
    )["hint"]  # fmt: skip
    assert hint.endswith("start it again with: python3 dev.py play --host 0.0.0.0")


def test_the_network_command_names_the_program_as_the_shell_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(serve_cli.STARTED_AS, raising=False)
    program = tmp_path / "bin" / "cardwar"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(program), "serve"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert serve_cli.network_command(8000) == f"{program} serve --host 0.0.0.0"
    monkeypatch.setenv("PATH", str(program.parent))
    assert serve_cli.network_command(8000) == "cardwar serve --host 0.0.0.0"
    monkeypatch.setattr(sys, "argv", ["/x/cardwar/cli/__main__.py", "serve"])
    assert (
        serve_cli.network_command(9)
        == f"{sys.executable} -m cardwar.cli serve --host 0.0.0.0 --port 9"
    )
