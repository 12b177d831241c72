"""A long run's progress on standard error, with the time it has left, so that standard output
stays clean for --json: a Rich bar on a terminal, else a plain line every minute (a run in the
background, its standard error in a log)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

LINE_SECONDS = 60.0


@contextmanager
def progress_bar(total: int, what: str, done: int = 0) -> Iterator[Callable[[int], None]]:
    """Yields `advance(n)`, to call as `n` more of `total` are done (`done` are done already)."""
    console = Console(stderr=True)
    if not console.is_terminal:
        yield _lines(total, what, done)
        return
    bar = Progress(
        TextColumn(f"[bold]{what}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    with bar:
        task = bar.add_task(what, total=total, completed=done)
        yield lambda n: bar.advance(task, n)


def _lines(total: int, what: str, done: int) -> Callable[[int], None]:
    started = last = time.monotonic()
    at = [done]

    def advance(n: int) -> None:
        nonlocal last
        at[0] += n
        now = time.monotonic()
        if now - last < LINE_SECONDS or at[0] >= total:
            return
        last = now
        pace = (at[0] - done) / max(now - started, 1e-9)
        left = (total - at[0]) / pace if pace > 0 else float("inf")
        sys.stderr.write(
            f"{what}: {100 * at[0] / total:.1f}% ({at[0]:,} of {total:,}), "
            f"{duration(now - started)} so far, about {duration(left)} left\n"
        )
        sys.stderr.flush()

    return advance


def duration(seconds: float) -> str:
    """Seconds as a person reads them: `42 s`, `3 min 5 s`, `2 h 10 min`."""
    if seconds == float("inf"):
        return "an unknown time"
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
