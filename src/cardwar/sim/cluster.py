"""Work spread over a Dask cluster (`cardwar[dask]`): the client, and ranges of the work as
shards on its workers, each result merged as it comes in. Random rounds go by shards of seeds
(`cardwar.sim.runs.cluster`), a small deck's deals by shards of sequences with their checkpoint
(`cardwar.sim.exact.job`); either adds up exactly to what one machine gives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardwar.sim.errors import ClusterError

SHARDS_PER_WORKER = 4  # enough pieces to keep every worker busy to the end


def client(address: str) -> Any:
    """A Dask client of the scheduler at `address`; ClusterError naming the address if none
    answers there, or naming the extra to install if Dask is not installed."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(
            "dask: Dask is not installed here; install cardwar with its dask extra"
        ) from None
    try:
        return Client(address, timeout="5s")
    except OSError as error:
        raise ClusterError(f"dask {address}: no Dask scheduler answers there ({error})") from None


def _ranges(total: int, pieces: int) -> list[tuple[int, int]]:
    """`total` items cut into at most `pieces` ranges (first, count) of near equal size."""
    pieces = max(1, min(pieces, total))
    bounds = [total * i // pieces for i in range(pieces + 1)]
    return [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(pieces)]


def sharded(
    address: str,
    total: int,
    shard: Callable[..., Any],
    args: tuple[Any, ...],
    merge: Callable[[Any], None],
    progress: Callable[[int], None] | None,
) -> None:
    """Run `shard(*args, first, count)` over ranges covering 0..total-1 on the cluster, and
    `merge` each result as it comes in."""
    with client(address) as dask:  # first: without Dask it names the extra to install
        from distributed import as_completed

        workers = max(1, len(dask.scheduler_info()["workers"]))
        pieces = _ranges(total, workers * SHARDS_PER_WORKER)
        futures = {
            dask.submit(shard, *args, first, count, pure=False): count for first, count in pieces
        }
        for future in as_completed(futures):
            merge(future.result())
            if progress is not None:
                progress(futures[future])
