"""The server's start: the simulator prepared in the app's lifespan before anyone is answered, a
slow (first-run) preparation told step by step, and `cardwar serve`'s words for it."""

from __future__ import annotations

import threading
from io import StringIO
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from cardwar.cli.serve import PREPARING, Start
from cardwar.sim import warm
from cardwar.web import Settings, create_app
from cardwar.web import app as web_app
from cardwar.web.settings import LOOPBACK_HOSTS

from helpers import in_a_fresh_process
from live import HANG_S


def settings(tmp_path: Path) -> Settings:
    """A server's settings for a TestClient: its own database, no worker process at start."""
    hosts = (*LOOPBACK_HOSTS, "testserver")
    return Settings(db=tmp_path / "cardwar.db", hosts=hosts, worker_at_start=False)


class Told:
    """A `Starting` that keeps what it is told; `first` is set when the first step is told."""

    def __init__(self) -> None:
        self.said: list[tuple[int, int, str] | str] = []
        self.first = threading.Event()

    def preparing(self, done: int, total: int, what: str) -> None:
        self.said.append((done, total, what))
        self.first.set()

    def ready(self) -> None:
        self.said.append("ready")


def test_a_quick_preparation_is_not_told_and_the_server_says_it_is_ready(tmp_path: Path) -> None:
    """With the cache filled (the session's warm-up did it), preparing takes less than a cache
    load: nothing is told of it, and `ready` comes once, before the first answer."""
    told = Told()
    app = create_app(settings(tmp_path), starting=told)
    with TestClient(app) as client:
        assert told.said == ["ready"]
        assert client.get("/api/rules").status_code == 200
    assert told.said == ["ready"]


def test_a_slow_preparation_is_told_step_by_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A preparation still going after TELL_AFTER_S is told its step under way, each step as it
    comes, then that all are done, and only then is the server ready."""
    told = Told()

    def slow() -> None:  # a first run's compiling, until the test has seen it told
        assert told.first.wait(HANG_S)

    steps = (("the slow kernels", slow), ("the quick kernels", lambda: None))
    monkeypatch.setattr(warm, "STEPS", steps)
    monkeypatch.setattr(web_app, "TELL_AFTER_S", 0.0)
    app = create_app(settings(tmp_path), starting=told)
    with TestClient(app):
        pass
    assert told.said[0] == (0, 2, "the slow kernels")
    assert told.said[-2:] == [(2, 2, ""), "ready"]
    assert set(told.said[1:-2]) <= {(1, 2, "the quick kernels")}


def test_serve_says_what_it_prepares_then_where_to_open_the_game() -> None:
    """Off a terminal (a log), `cardwar serve` writes a line a step of a slow preparation, then
    the address."""
    out = StringIO()
    start = Start(Console(file=out, width=200), ["cardwar: open http://127.0.0.1:8000"])
    start.preparing(0, 3, "the chance meter")
    start.preparing(1, 3, "statistics of the classic table")
    start.preparing(3, 3, "")
    start.ready()
    assert out.getvalue().splitlines() == [
        f"{PREPARING} (the chance meter, 1 of 3)",
        f"{PREPARING} (statistics of the classic table, 2 of 3)",
        "cardwar: open http://127.0.0.1:8000",
    ]
    assert "first run only" in PREPARING


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
