"""The simulator made ready while the server already answers (`Warming`).

A first start compiles the simulator's kernels (numba, about 20 s of one core; its cache empty),
and every start after loads them from numba's cache (under a second). Nothing of the table
itself needs them: the page, a round, a click, a live table are served from the first moment.
What needs them (a round's chance to win, statistics of many rounds, the House rules panel's
estimate of draws) waits for them to be ready, and the page says meanwhile that they are getting
ready (`GET /api/simulator`), never refuses.

Decided here: the compiling is done in a process of its own, one step at a time, which ends
with it (numba's compiler holds the interpreter's lock for seconds at a time: in this process
every click would wait behind it; in the worker process, every long run, Play to end among
them, would wait behind it); then the worker and this process load the kernels from the cache
it filled. A server without a worker at start (the tests') loads them here alone.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any, Protocol

from fastapi.concurrency import run_in_threadpool

from cardwar.web.workers import Worker

log = logging.getLogger("cardwar")

TELL_AFTER_S = 3.0
"""A preparation still going after this long is a first start's, compiling, and is told (a cache
load takes less, even on a busy machine)."""


class Told(Protocol):
    """Told how the preparation goes: `cardwar serve` says it on its terminal."""

    def preparing(self, seconds: int) -> None:
        """A first start's preparation is under way: about `seconds` in all, the game open
        meanwhile (said once, only of a slow preparation)."""

    def prepared(self, took: float) -> None:
        """The slow preparation told of is done, after `took` seconds."""


class Warming:
    """The simulator's kernels made ready in the background (`start`), and the routes that need
    them waiting for it (`ready`)."""

    def __init__(self, worker: Worker | None, told: Told | None = None) -> None:
        self._worker = worker
        self._told = told
        self._done: asyncio.Event | None = None  # made in the server's loop, as it starts
        self._task: asyncio.Task[None] | None = None
        self._compiler: Worker | None = None
        self._stopping = False
        self._loading_only = False  # known once numba's cache is found filled: nothing compiles
        self._step: tuple[int, int, str] = (0, 0, "")
        self._began = 0.0
        self._slow = False
        self.failed: str | None = None
        """Why the preparation failed, if it did (what needs the kernels then compiles them as
        it goes, as before a start prepared anything)."""

    def start(self) -> None:
        """Begin preparing, in the background."""
        self._began = time.monotonic()
        self._done = asyncio.Event()
        self._task = asyncio.create_task(self._prepare(self._done))

    async def stop(self) -> None:
        """Stop preparing (the server stops): what was compiled stays in the cache."""
        if self._task is not None and not self._task.done():
            self._stopping = True
            if self._compiler is not None:
                self._compiler.close()  # a compiler mid-kernel is stopped, not waited for
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    @property
    def is_ready(self) -> bool:
        """True once the kernels are ready (or their preparation gave up)."""
        return self._done is not None and self._done.is_set()

    async def ready(self) -> None:
        """Wait until the kernels are ready (at once, after the first seconds of a server)."""
        assert self._done is not None, "asked before the server started"
        await self._done.wait()

    def status(self) -> dict[str, Any]:
        """Where the preparation stands (`GET /api/simulator`)."""
        from cardwar.sim.warm import FIRST_RUN_S

        done, total, what = self._step
        return {
            "ready": self.is_ready,
            "compiling": not self.is_ready and not self._loading_only,
            "step": None if self.is_ready else what or None,
            "done": done,
            "total": total,
            "seconds": round(time.monotonic() - self._began, 1) if self._began else 0.0,
            "first_start_s": FIRST_RUN_S,
        }

    async def _prepare(self, done: asyncio.Event) -> None:
        from cardwar.sim.warm import STEPS, cache_is_filled, prepare, run_step

        telling = asyncio.get_running_loop().call_later(TELL_AFTER_S, self._tell)
        try:
            # A cache filled already (every start but the first) needs no compiler: the worker
            # and this process load the kernels in a second (a process of its own more, at
            # every start, cost the tests' hundred starts minutes of the machine's time).
            self._loading_only = await run_in_threadpool(cache_is_filled)
            if self._worker is not None and not self._loading_only:
                compiler = self._compiler = Worker()
                try:
                    for index, (what, _) in enumerate(STEPS):
                        self._step = (index, len(STEPS), what)
                        await run_in_threadpool(compiler.run, run_step, index)
                finally:
                    compiler.close()
                    self._compiler = None
            if self._worker is not None:
                await run_in_threadpool(self._worker.run, prepare)  # from the cache, filled

            def note(done: int, total: int, what: str) -> None:  # in the preparing thread
                self._step = (done, total, what)

            await run_in_threadpool(prepare, note)
        except Exception as error:  # said, and the game plays on without it
            if not self._stopping:  # else its compiler was stopped with the server
                self.failed = f"{type(error).__name__}: {error}"
                log.warning("cardwar: the simulator could not be prepared (%s)", self.failed)
        finally:
            telling.cancel()
            done.set()
        # The simulator's code, loaded now, lives as long as the server: out of the collector's
        # sight, as what was loaded before the server answered (`app.lifespan`).
        gc.freeze()
        if self._slow and self._told is not None:
            self._told.prepared(time.monotonic() - self._began)

    def _tell(self) -> None:
        """Still preparing after TELL_AFTER_S: a first start, compiling; said once."""
        from cardwar.sim.warm import FIRST_RUN_S

        self._slow = True
        if self._told is not None:
            self._told.preparing(FIRST_RUN_S)
