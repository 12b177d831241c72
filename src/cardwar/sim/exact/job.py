"""A whole exact job, on this machine's cores or over a Dask cluster, resumable.

On this machine the job is played in batches of a second or two (`play_every_deal` on every
core), so that a long run shows its progress and the time it has left, a Ctrl+C lands between
two batches, and the checkpoint is never far behind. On a cluster each piece is a range of
sequence numbers played by one worker on all of its cores, and the checkpoint is kept piece by
piece. Either way the figures are merged exactly: the same as one run in one piece.

A job may also be played shard by shard into a shard file (`sim.exact.shards`): the same
batches on this machine, or a shard a task on a cluster, each finished shard a line of the file,
a run stopped losing at most the shard it was playing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from cardwar.rules import Rules
from cardwar.sim.cluster import SHARDS_PER_WORKER, client
from cardwar.sim.exact.checkpoint import Checkpoint, Job
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.driver import ExactSession, play_every_deal
from cardwar.sim.exact.results import ExactResults
from cardwar.sim.exact.shards import ShardPlan, ShardWriter

BATCH_SECONDS = 2.0  # a batch on this machine takes about this long
FIRST_BATCH = 1 << 16  # sequences in the first batch, before the pace is known
SAVE_SECONDS = 30.0  # at most this long between two saves of the checkpoint
MOST_IN_A_PIECE = 2_000_000_000  # sequences: 5 or 6 minutes of a worker's two cores on 5x4


def run_job(
    checkpoint: Checkpoint,
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    stopping: Callable[[], bool] = lambda: False,
) -> Checkpoint:
    """Play what is left of the checkpoint's job, saving the checkpoint as it goes, until the
    job is done or `stopping()` says to stop (checked between batches, or pieces)."""
    if dask is not None:
        return _on_dask(checkpoint, dask, progress, stopping)
    job = checkpoint.job
    session = ExactSession(
        job.rules, job.deck, every_sequence=job.every_sequence, workers=workers,
        records=job.records,
    )  # fmt: skip
    played: list[tuple[int, int]] = []  # ranges played since the checkpoint last took them
    seconds = 0.0
    size = FIRST_BATCH
    saved = time.monotonic()
    pause = SAVE_SECONDS  # between two saves: longer when a save itself takes long

    def keep() -> None:
        nonlocal played, seconds, pause
        started = time.perf_counter()
        checkpoint.finish(played, session.take(), seconds)
        checkpoint.save()
        played, seconds = [], 0.0
        pause = max(SAVE_SECONDS, 20 * (time.perf_counter() - started))

    for first, stop in checkpoint.remaining():
        at = first
        while at < stop:
            if stopping():
                keep()
                return checkpoint
            count = min(size, stop - at)
            started = time.perf_counter()
            session.play(at, count)
            took = time.perf_counter() - started
            seconds += took
            played.append((at, at + count))
            at += count
            if progress is not None:
                progress(count)
            if time.monotonic() - saved > pause:
                keep()
                saved = time.monotonic()
            # The next batch about BATCH_SECONDS long, growing at most fourfold at a time.
            size = max(1024, min(4 * count, int(count * BATCH_SECONDS / max(took, 1e-3))))
    keep()
    return checkpoint


def play_shards(
    writer: ShardWriter,
    numbers: list[int],
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    stopping: Callable[[], bool] = lambda: False,
) -> None:
    """Play the shards `numbers` that the writer's file does not hold yet, writing each one's line
    as it finishes, until all are written or `stopping()` says to stop (a shard begun is then
    left out, to be played again)."""
    todo = [number for number in numbers if number not in writer.shards.lines]
    plan = writer.plan
    if dask is not None:
        _shards_on_dask(writer, todo, dask, progress, stopping)
        return
    session = shard_session(plan, workers)
    for number in todo:
        found, seconds = play_shard(session, plan, number, progress, stopping)
        if found is None:
            return
        writer.write(number, found, seconds)


def play_shard(
    session: ExactSession,
    plan: ShardPlan,
    number: int,
    progress: Callable[[int], None] | None = None,
    stopping: Callable[[], bool] = lambda: False,
) -> tuple[ExactResults | None, float]:
    """Play shard `number` in batches of about BATCH_SECONDS: what it came to and the seconds it
    took, or None if `stopping()` said to stop before its end."""
    first, stop = plan.span(number)
    at, size, seconds = first, FIRST_BATCH, 0.0
    session.take()  # nothing of an earlier shard left over
    while at < stop:
        if stopping():
            return None, seconds
        count = min(size, stop - at)
        started = time.perf_counter()
        session.play(at, count)
        took = time.perf_counter() - started
        seconds += took
        at += count
        if progress is not None:
            progress(count)
        size = max(1024, min(4 * count, int(count * BATCH_SECONDS / max(took, 1e-3))))
    return session.take(), seconds


def shard_session(plan: ShardPlan, workers: int | None = None) -> ExactSession:
    """A session that plays the shards of `plan`'s job on `workers` threads."""
    job = plan.job
    return ExactSession(
        job.rules, job.deck, every_sequence=job.every_sequence, workers=workers,
        records=job.records,
    )  # fmt: skip


def _shards_on_dask(
    writer: ShardWriter,
    todo: list[int],
    address: str,
    progress: Callable[[int], None] | None,
    stopping: Callable[[], bool],
) -> None:
    job = writer.plan.job
    with client(address) as dask:  # first: without Dask it names the extra to install
        from distributed import as_completed

        futures = {}
        for number in todo:
            first, stop = writer.plan.span(number)
            future = dask.submit(
                _piece, job.rules.to_dict(), job.deck, first, stop, job.every_sequence,
                job.records, pure=False,
            )  # fmt: skip
            futures[future] = number
        for future in as_completed(futures):
            found, seconds = future.result()
            number = futures[future]
            writer.write(number, found, seconds)
            if progress is not None:
                progress(found.sequences)
            if stopping():
                for other in futures:
                    other.cancel()
                break


def pieces(checkpoint: Checkpoint, workers: int) -> list[tuple[int, int]]:
    """What is left of the job, cut into pieces (first, stop) for a cluster of `workers`."""
    left = checkpoint.remaining()
    total = sum(stop - first for first, stop in left)
    size = max(1, min(MOST_IN_A_PIECE, -(-total // (workers * SHARDS_PER_WORKER))))
    return [(at, min(at + size, stop)) for first, stop in left for at in range(first, stop, size)]


def _piece(
    rules: dict[str, Any], deck: SmallDeck, first: int, stop: int, every_sequence: bool,
    records: int,
) -> tuple[ExactResults, float]:  # fmt: skip
    started = time.perf_counter()
    found = play_every_deal(
        Rules.from_dict(rules), deck, first=first, count=stop - first,
        every_sequence=every_sequence, records=records,
    )  # fmt: skip
    return found, time.perf_counter() - started


def _on_dask(
    checkpoint: Checkpoint,
    address: str,
    progress: Callable[[int], None] | None,
    stopping: Callable[[], bool],
) -> Checkpoint:
    job: Job = checkpoint.job
    saved = time.monotonic()
    with client(address) as dask:  # first: without Dask it names the extra to install
        from distributed import as_completed

        workers = max(1, len(dask.scheduler_info()["workers"]))
        futures = {
            dask.submit(
                _piece, job.rules.to_dict(), job.deck, first, stop, job.every_sequence,
                job.records, pure=False,
            ): (first, stop)
            for first, stop in pieces(checkpoint, workers)
        }  # fmt: skip
        for future in as_completed(futures):
            found, seconds = future.result()
            first, stop = futures[future]
            checkpoint.finish([(first, stop)], found, seconds)
            if progress is not None:
                progress(stop - first)
            if time.monotonic() - saved > SAVE_SECONDS:
                checkpoint.save()
                saved = time.monotonic()
            if stopping():
                for other in futures:
                    other.cancel()
                break
    checkpoint.save()
    return checkpoint
