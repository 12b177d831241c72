"""The server's worker process, and the work it does there: plain functions of plain values.

The only long work there is (a request for thousands of battles, settling at the deal whether a
round with no limit loops, a long replay, statistics of many rounds) runs in one worker process,
so that it never holds up the event loop's clicks.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from cardwar import persist
from cardwar.engine import Round
from cardwar.records import Battle
from cardwar.rules import Rules
from cardwar.web.errors import WorkerFailed
from cardwar.web.game.views import round_view


def render(content: Any) -> bytes:
    """JSON exactly as the API's responses write it."""
    return json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def deal_and_look_ahead(
    rules: dict[str, Any], seed: int, deal: list[list[str]] | None, cap: int
) -> dict[str, Any]:
    """Deal a round and settle at once whether it loops before the cap; returns its snapshot."""
    round_ = Round(Rules.from_dict(rules), seed=seed, deal=deal, cap=cap)
    round_.look_ahead()
    return persist.snapshot(round_)


def play_on(round_: Round, count: int, watched: Sequence[int] = ()) -> Iterator[Battle]:
    """Play up to `count` battles, a battle at a time, until the round ends or, when `watched`
    names seats, the battle after which none of them holds a card (the people at a bigger
    table are out, and the computers would play on without them)."""
    for _ in range(count):
        if round_.outcome is not None:
            return
        battle = round_.play_battle()
        yield battle
        if watched and not any(battle.counts[seat] for seat in watched):
            return


def long_run(
    snapshot: dict[str, Any],
    count: int,
    round_id: str,
    extra: dict[str, Any],
    watched: Sequence[int] = (),
) -> tuple[dict[str, Any], bytes]:
    """Play up to `count` battles of the round that `snapshot` describes (`play_on`) and render
    the whole answer here, a battle at a time (so no list of records is ever held); returns the
    new snapshot and the answer's JSON. `extra` holds the round's fields that only the server
    knows (its match, its clock as the run began)."""
    round_ = persist.resume(snapshot)
    parts = [render(battle.to_dict()) for battle in play_on(round_, count, watched)]
    shown = {**round_view(round_, round_id), **extra}
    if round_.outcome is not None and "time_left_s" in shown:
        shown["time_left_s"] = None
    body = b'{"round":%s,"battles":[%s]}' % (render(shown), b",".join(parts))
    return persist.snapshot(round_), body


def statistics(
    rules: dict[str, Any], rounds: int, seed: int, seconds: float, batch: int
) -> dict[str, Any]:
    """Play up to `rounds` random rounds on the fast simulator, `batch` at a time, stopping
    after `seconds`, and return their figures with histograms."""
    from cardwar.sim.runs.run import simulate  # loaded in the worker process only
    from cardwar.sim.tally import Tally

    chosen = Rules.from_dict(rules)
    started = time.perf_counter()
    tally = Tally()
    stopped_by_time = False
    while tally.rounds < rounds:
        if tally.rounds and time.perf_counter() - started > seconds:
            stopped_by_time = True
            break
        size = min(batch, rounds - tally.rounds)
        tally.add(simulate(chosen, size, seed, first=tally.rounds, workers=1))
    return {
        "rules": chosen.to_dict(),
        "seed": seed,
        "rounds_asked": rounds,
        "stopped_by_time": stopped_by_time,
        "seconds": round(time.perf_counter() - started, 3),
        **tally.to_dict(chosen.players, histograms=True),
    }


def here(function: Any, *args: Any) -> Any:
    """Run `function(*args)` in this thread: `Worker.run` for work too short to send away."""
    return function(*args)


PARENT_LOOK_S = 1.0
"""How often the worker looks whether the server that started it is still there."""


def _quiet_worker(server: int) -> None:
    # Ctrl+C reaches the whole process group; the server, not its worker, answers it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A server killed outright (SIGKILL, out of memory) cannot stop its worker: the worker sees
    # it has been given to another parent and ends itself, rather than live on, an orphan
    # holding its memory and the server's output.
    threading.Thread(target=_end_with, args=(server,), daemon=True).start()


def _end_with(server: int) -> None:
    while os.getppid() == server:
        time.sleep(PARENT_LOOK_S)
    os._exit(0)


class Worker:
    """One worker process for long work, started when first needed."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def run(self, function: Any, *args: Any) -> Any:
        """Run `function(*args)` in the worker process and wait for its result."""
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_quiet_worker,
                    initargs=(os.getpid(),),
                )
            pool = self._pool
        try:
            return pool.submit(function, *args).result()
        except BrokenProcessPool:
            # The worker died (killed, or out of memory): start a new one next time, and say so.
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            raise WorkerFailed("the server's worker process stopped; try again") from None

    def close(self) -> None:
        """Stop the worker, abandoning work in progress (nothing was answered for it)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            # The pool keeps its processes in a private dict; shutdown() alone would wait for
            # a long run to finish, and the server has promised to stop within seconds.
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(5)
            pool.shutdown(wait=True)  # now quick: lets the pool release its queues and locks
