"""A task of the server stopped for sure (`stop`).

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
from typing import Any

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
