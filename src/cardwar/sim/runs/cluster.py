"""Random rounds spread over a Dask cluster (`cardwar[dask]`): shards of seeds played on its
workers and added up exactly, so the result is the one a single machine gives for the same seed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardwar.rules import Rules
from cardwar.sim.cluster import sharded
from cardwar.sim.runs.hands import Hands
from cardwar.sim.runs.run import simulate
from cardwar.sim.tally import Tally


def _simulate_shard(
    rules: dict[str, Any], seed: int, hands: Hands | None, records: int, first: int, count: int
) -> Tally:
    return simulate(Rules.from_dict(rules), count, seed, first=first, hands=hands, records=records)


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
    sharded(
        address, rounds, _simulate_shard, (rules.to_dict(), seed, hands, records), tally.add,
        progress,
    )  # fmt: skip
    return tally
