"""Runs of the fast simulator: many random rounds of one rule set, or given deals, on all cores."""

from __future__ import annotations

import os
from collections.abc import Callable

import numba
import numpy as np

from cardwar.cards import DECK, Card
from cardwar.engine import MAX_SEED, check_seed
from cardwar.rules import Gather, Rules, Shortage
from cardwar.sim import MAX_RECORDS
from cardwar.sim.errors import RunError
from cardwar.sim.kernels.codes import (
    rules_array,
)
from cardwar.sim.kernels.tally import (
    BATTLE_BINS,
    COUNTERS,
    REC_GAME,
    RECORD,
    WAR_BINS,
)
from cardwar.sim.kernels.workspace import workspace
from cardwar.sim.runs.hands import Hands, no_hands
from cardwar.sim.runs.kernels.classic import play_classic_parallel
from cardwar.sim.runs.kernels.random_rounds import deal_round, play_rounds_parallel
from cardwar.sim.tally import Tally, record_fields

BATCH = 50_000  # rounds between two progress reports


def workers_available() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def check_rounds(rounds: object) -> int:
    """`rounds` if it is a whole number of rounds, 1 or more; RunError naming it otherwise."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise RunError(f"rounds: must be a whole number 1 or more, not {rounds!r}")
    return rounds


def check_workers(workers: object) -> int:
    """`workers` if it is 1 up to the cores here; RunError naming it otherwise."""
    # numba sets this from the cores at import; its config module is not typed.
    most = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # numba does not type its config module
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= most:
        raise RunError(f"workers: must be a whole number from 1 to {most}, not {workers!r}")
    return workers


def check_records(records: object) -> int:
    """`records` if it is a number of longest rounds to keep, 0 (none) to MAX_RECORDS."""
    if isinstance(records, bool) or not isinstance(records, int) or not 0 <= records <= MAX_RECORDS:
        raise RunError(
            f"records: must be a whole number from 0 (none) to {MAX_RECORDS}, not {records!r}"
        )
    return records


def on_the_common_table(rules: Rules) -> bool:
    """True if `kernels.classic` plays these rules (the same rounds as the general kernels, only
    faster): two players, the winner's cards first, a player short of a war loses, and a battle
    limit (so no loop to watch for)."""
    return (
        rules.players == 2
        and rules.gather is Gather.WINNER_FIRST
        and rules.shortage is Shortage.LOSE
        and rules.battle_limit is not None
    )


def simulate(
    rules: Rules,
    rounds: int,
    seed: int,
    *,
    first: int = 0,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    hands: Hands | None = None,
    records: int = 0,
) -> Tally:
    """Play rounds `first` .. `first + rounds - 1` of the run `seed` (each on a random deal of its
    own, from the simulator's generator, or on `hands` in fresh orders) and tally them, keeping
    the `records` longest. The same seed and rounds give the same tally on any machine, however
    many workers share the work."""
    check_rounds(rounds)
    check_seed(seed)
    check_records(records)
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise RunError(f"first: must be a whole number 0 or more, not {first!r}")
    workers = check_workers(workers if workers is not None else workers_available())
    numba.set_num_threads(workers)
    array = rules_array(rules)
    hand_cards, hand_sizes = no_hands() if hands is None else hands.arrays(rules.players)
    tally = Tally()
    done = 0
    while done < rounds:
        size = min(BATCH * workers, rounds - done)
        counters = np.zeros((workers, COUNTERS), np.int64)
        battles = np.zeros((workers, BATTLE_BINS), np.int64)
        wars = np.zeros((workers, WAR_BINS), np.int64)
        # Room for every round of a slice to be longer than the histograms hold.
        longs = np.zeros((workers, 2 + 2 * (size // workers + 1)), np.int64)
        kept = np.full((workers, records, RECORD), -1, np.int64)
        start = first + done
        if hands is None and on_the_common_table(rules):
            play_classic_parallel(
                array, rules.cards_per_hand, seed, start, start + size, counters, battles, wars,
                longs, kept,
            )  # fmt: skip
        else:
            play_rounds_parallel(
                array, rules.cards_per_hand, seed, start, start + size, hand_cards, hand_sizes,
                counters, battles, wars, longs, kept,
            )  # fmt: skip
        tally.add(Tally.of_rows(counters, battles, wars, longs, kept))
        done += size
        if progress is not None:
            progress(size)
    return tally


def dealt_game(rules: Rules, seed: int, game: int, hands: Hands | None = None) -> list[list[Card]]:
    """The deal of game number `game` of the run `seed`, exactly as `simulate` dealt it: one
    pile per seat, top card first."""
    hand_cards, hand_sizes = no_hands() if hands is None else hands.arrays(rules.players)
    cards = np.zeros(52, np.int64)
    sizes = np.zeros(rules.players, np.int64)
    deal_round(
        rules.players, rules.cards_per_hand, seed, game, hand_cards, hand_sizes, workspace(),
        np.zeros(52, np.int64), cards, sizes,
    )  # fmt: skip
    piles, start = [], 0
    for size in sizes:
        piles.append([DECK[int(card)] for card in cards[start : start + size]])
        start += int(size)
    return piles


def records_of(
    rules: Rules, seed: int, tally: Tally, hands: Hands | None = None
) -> list[dict[str, object]]:
    """The longest rounds a run kept, each with its battles, wars, outcome, game number and
    explicit deal (one pile per seat, top card first), which `cardwar round --deal` or the page
    plays again."""
    return [
        {
            **record_fields(row),
            "game": int(row[REC_GAME]),
            "deal": [
                [card.code for card in pile]
                for pile in dealt_game(rules, seed, int(row[REC_GAME]), hands)
            ],
        }
        for row in tally.records
    ]


__all__ = ["MAX_SEED", "Tally", "rules_array", "simulate"]
