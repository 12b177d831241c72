"""Runs spread over a Dask cluster (`cardwar[dask]`): shards of seeds played on its workers and
added up exactly, so the result is the one a single machine gives for the same seed (a small
deck's deals go shard by shard, with their checkpoint, in `cardwar.sim.enumeration`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardwar.errors import RulesError
from cardwar.rules import Rules
from cardwar.sim.hands import Hands
from cardwar.sim.run import simulate
from cardwar.sim.tally import Tally

SHARDS_PER_WORKER = 4  # enough pieces to keep every worker busy to the end


def client(address: str) -> Any:
    """A Dask client of the scheduler at `address`; RulesError naming the address if none
    answers there, or naming the extra to install if Dask is not installed."""
    try:
        from distributed import Client
    except ImportError:
        raise RulesError(
            "--dask: Dask is not installed here; install cardwar with its dask extra"
        ) from None
    try:
        return Client(address, timeout="5s")
    except OSError as error:
        raise RulesError(f"--dask {address}: no Dask scheduler answers there ({error})") from None


def _ranges(total: int, pieces: int) -> list[tuple[int, int]]:
    """`total` items cut into at most `pieces` ranges (first, count) of near equal size."""
    pieces = max(1, min(pieces, total))
    bounds = [total * i // pieces for i in range(pieces + 1)]
    return [(bounds[i], bounds[i + 1] - bounds[i]) for i in range(pieces)]


def _simulate_shard(
    rules: dict[str, Any], seed: int, hands: Hands | None, records: int, first: int, count: int
) -> Tally:
    return simulate(Rules.from_dict(rules), count, seed, first=first, hands=hands, records=records)


def _sharded(
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


def simulate_on_dask(
    address: str,
    rules: Rules,
    rounds: int,
    seed: int,
    *,
    hands: Hands | None = None,
    records: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Tally:
    """`simulate(rules, rounds, seed, hands=hands, records=records)` played on the cluster at
    `address`."""
    if hands is not None:
        hands.arrays(rules.players)  # refused here, before any shard goes out
    tally = Tally()
    _sharded(
        address, rounds, _simulate_shard, (rules.to_dict(), seed, hands, records), tally.add,
        progress,
    )  # fmt: skip
    return tally
