"""Runs spread over a Dask cluster (`cardwar[dask]`): shards of seeds, or of a small deck's
deals, played on its workers and added up exactly, so the result is the one a single machine
gives for the same seed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardwar.errors import RulesError
from cardwar.rules import Rules
from cardwar.sim.exhaustive import Exhaustive, SmallDeck, play_every_deal
from cardwar.sim.run import simulate
from cardwar.sim.tally import Tally

SHARDS_PER_WORKER = 4  # enough pieces to keep every worker busy to the end


def _client(address: str) -> Any:
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
    rules: dict[str, Any], seed: int, first: int, count: int
) -> tuple[np.ndarray, ...]:
    tally = simulate(Rules.from_dict(rules), count, seed, first=first)
    return tally.counters, tally.battles, tally.wars


def _enumerate_shard(rules: dict[str, Any], deck: SmallDeck, first: int, count: int) -> Exhaustive:
    return play_every_deal(Rules.from_dict(rules), deck, first=first, count=count)


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
    from distributed import as_completed

    with _client(address) as client:
        workers = max(1, len(client.scheduler_info()["workers"]))
        pieces = _ranges(total, workers * SHARDS_PER_WORKER)
        futures = {
            client.submit(shard, *args, first, count, pure=False): count for first, count in pieces
        }
        for future in as_completed(futures):
            merge(future.result())
            if progress is not None:
                progress(futures[future])


def simulate_on_dask(
    address: str,
    rules: Rules,
    games: int,
    seed: int,
    *,
    progress: Callable[[int], None] | None = None,
) -> Tally:
    """`simulate(rules, games, seed)` played on the cluster at `address`."""
    tally = Tally()
    _sharded(
        address, games, _simulate_shard, (rules.to_dict(), seed),
        lambda arrays: tally.add(Tally(*arrays)), progress,
    )  # fmt: skip
    return tally


def enumerate_on_dask(
    address: str,
    rules: Rules,
    deck: SmallDeck,
    *,
    progress: Callable[[int], None] | None = None,
) -> Exhaustive:
    """`play_every_deal(rules, deck)` played on the cluster at `address`."""
    found = Exhaustive(deck)
    _sharded(
        address, deck.sequences, _enumerate_shard, (rules.to_dict(), deck), found.add, progress
    )
    return found
