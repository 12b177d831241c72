"""A task of the server stopped for sure (`stop`), and work run to its end (`to_the_end`).

Python 3.11's `asyncio.wait_for` can lose a cancellation: when what it waits for is done in the
same turn of the loop as its task is cancelled, it returns the result, and the task goes on as if
it had never been cancelled (Python 3.12 waits differently). redis-py sent every command through it
while the broker had a socket timeout, so a task that talked to the broker could outlive a
`cancel()`: the live tables' tick went on after a server's shutdown had cancelled it, the shutdown
waited for it for ever, and the process never ended (a `--workers` process whose supervisor was
killed, one start in eight; a loop of broker commands, cancelled at 300 random moments, went on 133
times; without the socket timeout, which is where redis-py calls `wait_for`, none of 200 did).

The broker's client now runs without that socket timeout (broker.py), so a cancellation of a
task at its commands is not lost; `stop` still cancels until the task has ended, for any other
`wait_for` a task may be in when a server shuts down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")

AGAIN_S = (0.001, 0.1)
"""How long `stop` waits for a cancelled task to end before it cancels it again: the first wait,
doubled at each try up to the second (a task busy with broker commands lost a cancellation in
most of its moments at times, in step with waits of one length: 43 tries of 0.1 s once)."""


async def stop(task: asyncio.Task[Any]) -> None:
    """Cancel `task` and wait until it has ended, cancelling it again while it goes on (its
    cancellation lost); how it ended is taken and dropped."""
    wait, longest = AGAIN_S
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=wait)
        wait = min(2 * wait, longest)
    if not task.cancelled():
        task.exception()  # retrieved: a chore's failure at the end is not worth a warning


async def to_the_end(work: Awaitable[T]) -> T:
    """`work`'s result, `work` run to its end even if the caller is cancelled meanwhile (its
    socket gone): then the cancellation comes after, once it has ended. For work that commits
    and then tells (a live table's battle): a thread's commit goes on whatever becomes of its
    caller, and a battle committed must be told, its table's lock held until it is."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()
