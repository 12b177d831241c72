"""Statistics of many rounds, kept as counts and histograms that merge exactly (by adding), so a
run split over threads, batches or machines gives the same figures as one piece.

Battles (and wars) a round are counted one by one in a histogram up to its size, and every
round longer than that is kept by its exact length beside it, so the median and the 90th
percentile are the true values however long the rounds (docs/rules.md and
docs/architecture.md, "The fast simulator").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardwar.sim.kernels import tally as K  # the layout of a run's counters
from cardwar.sim.kernels.codes import REASONS


@dataclass
class Tally:
    """What a run of rounds adds up to: counters, histograms of battles and wars a round, and the
    exact lengths of the rounds too long for the histograms."""

    counters: np.ndarray = field(default_factory=lambda: np.zeros(K.COUNTERS, np.int64))
    battles: np.ndarray = field(default_factory=lambda: np.zeros(K.BATTLE_BINS, np.int64))
    wars: np.ndarray = field(default_factory=lambda: np.zeros(K.WAR_BINS, np.int64))
    long_battles: Counter[int] = field(default_factory=Counter)
    long_wars: Counter[int] = field(default_factory=Counter)
    records: np.ndarray = field(default_factory=lambda: np.zeros((0, K.RECORD), np.int64))
    """The longest rounds, one row each (`random_rounds.REC_*`), longest first, the earlier round
    first among equals: however the work was split, the same rounds."""
    keep: int = 0
    """How many of the longest rounds to keep (`--records`): a merge keeps that many, however
    few each part found."""

    def add(self, other: Tally) -> None:
        """Add another tally's rounds to this one (exactly: every figure is a sum or a max, and
        the longest rounds of both are the longest of the two)."""
        most = [max(self.counters[i], other.counters[i]) for i in (K.C_MAX_BATTLES, K.C_MAX_WARS)]
        self.counters += other.counters
        self.battles += other.battles
        self.wars += other.wars
        self.counters[K.C_MAX_BATTLES], self.counters[K.C_MAX_WARS] = most
        self.long_battles.update(other.long_battles)
        self.long_wars.update(other.long_wars)
        self.keep = max(self.keep, other.keep)
        self.records = longest(np.concatenate([self.records, other.records]), self.keep)

    @classmethod
    def of_rows(
        cls, counters: np.ndarray, battles: np.ndarray, wars: np.ndarray, longs: np.ndarray,
        records: np.ndarray | None = None,
    ) -> Tally:  # fmt: skip
        """One tally from per-thread rows, the way the kernels leave them (`longs`: each row
        counts its listed battles and wars first, battles from the front, wars from the end)."""
        merged = cls(counters.sum(axis=0), battles.sum(axis=0), wars.sum(axis=0))
        if records is not None:
            merged.keep = records.shape[1]
            merged.records = longest(records.reshape(-1, K.RECORD), merged.keep)
        merged.counters[K.C_MAX_BATTLES] = counters[:, K.C_MAX_BATTLES].max()
        merged.counters[K.C_MAX_WARS] = counters[:, K.C_MAX_WARS].max()
        merged.add_longs(longs)
        return merged

    def add_longs(self, longs: np.ndarray) -> None:
        """Add the rounds too long for the histograms, listed in per-thread rows of `longs` (each
        counting its battles and wars first, battles from the front, wars from the end)."""
        for row in longs:
            n_battles, n_wars = int(row[0]), int(row[1])
            if n_battles:
                self.long_battles.update(_counts(row[2 : 2 + n_battles]))
            if n_wars:
                self.long_wars.update(_counts(row[row.shape[0] - n_wars :]))

    @property
    def rounds(self) -> int:
        """Rounds played."""
        return int(self.counters[K.C_GAMES])

    @property
    def total_battles(self) -> int:
        """Battles played, over every round."""
        return int(self.counters[K.C_BATTLES])

    def to_dict(self, players: int, *, histograms: bool = False) -> dict[str, Any]:
        """The figures as plain JSON values: rounds, wins per seat, draws, each reason, battles
        and wars a round (mean, median, p90, max, all exact); the histograms too if asked."""
        rounds = self.rounds
        wins = [int(self.counters[K.C_WINS + seat]) for seat in range(players)]
        out: dict[str, Any] = {
            "rounds": rounds,
            "wins": wins,
            "draws": rounds - sum(wins),
            "reasons": {
                reason.value: int(self.counters[K.C_REASONS + i])
                for i, reason in enumerate(REASONS)
            },
            "battles": _spread(
                self.battles, self.long_battles, self.total_battles, rounds,
                self.counters[K.C_MAX_BATTLES],
            ),
            "wars_per_round": _spread(
                self.wars, self.long_wars, int(self.counters[K.C_WARS]), rounds,
                self.counters[K.C_MAX_WARS],
            ),
        }  # fmt: skip
        if histograms:
            out["histograms"] = {"battles": _trimmed(self.battles), "wars": _trimmed(self.wars)}
            if self.long_battles or self.long_wars:
                out["histograms"]["longer"] = {
                    "battles": {str(n): c for n, c in sorted(self.long_battles.items())},
                    "wars": {str(n): c for n, c in sorted(self.long_wars.items())},
                }
        return out

    def state(self) -> dict[str, Any]:
        """Every figure as plain JSON values, to be restored exactly by `from_state`."""
        return {
            "counters": [int(n) for n in self.counters],
            "battles": _trimmed(self.battles),
            "wars": _trimmed(self.wars),
            "long_battles": {str(n): c for n, c in self.long_battles.items()},
            "long_wars": {str(n): c for n, c in self.long_wars.items()},
            "records": self.records.tolist(),
            "keep": self.keep,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Tally:
        """The tally that `state()` wrote."""
        tally = cls()
        tally.counters[:] = state["counters"]
        tally.battles[: len(state["battles"])] = state["battles"]
        tally.wars[: len(state["wars"])] = state["wars"]
        tally.long_battles.update({int(n): c for n, c in state["long_battles"].items()})
        tally.long_wars.update({int(n): c for n, c in state["long_wars"].items()})
        tally.records = np.array(state["records"], np.int64).reshape(-1, K.RECORD)
        tally.keep = int(state["keep"])
        return tally


def record_fields(row: np.ndarray) -> dict[str, Any]:
    """One kept longest round's battles, wars and outcome as JSON values (a row of
    `kernels.tally.REC_*`): what a run's records and an exact job's records both say of it."""
    return {
        "battles": int(row[K.REC_BATTLES]),
        "wars": int(row[K.REC_WARS]),
        "winner": None if row[K.REC_WINNER] < 0 else int(row[K.REC_WINNER]),
        "reason": REASONS[int(row[K.REC_REASON])].value,
    }


def longest(records: np.ndarray, keep: int) -> np.ndarray:
    """The `keep` longest of `records` rows (unused rows, at -1 battles, left out): by battles,
    then the earlier game first."""
    used = records[records[:, K.REC_BATTLES] >= 0]
    order = np.lexsort((used[:, K.REC_GAME], -used[:, K.REC_BATTLES]))
    return used[order[:keep]]


def _counts(values: np.ndarray) -> dict[int, int]:
    found, times = np.unique(values, return_counts=True)
    return {int(n): int(c) for n, c in zip(found, times, strict=True)}


def _spread(
    hist: np.ndarray, longer: Counter[int], total: int, rounds: int, most: int
) -> dict[str, Any]:
    """Mean, median, 90th percentile and maximum of the rounds in a histogram and, beyond its
    last bin, in `longer` by their exact values: every figure exact."""
    if rounds == 0:
        return {"mean": None, "median": None, "p90": None, "max": None}
    cumulative = np.cumsum(hist)
    inside = int(cumulative[-1])
    beyond = sorted(longer.items())

    def percentile(share: float) -> int:
        wanted = share * rounds
        if wanted <= inside:
            return int(np.searchsorted(cumulative, wanted, side="left"))
        seen = inside
        for value, count in beyond:
            seen += count
            if seen >= wanted:
                return value
        raise AssertionError("the histogram and its longer rounds hold every round")

    return {
        "mean": round(total / rounds, 3),
        "median": percentile(0.5),
        "p90": percentile(0.9),
        "max": int(most),
    }


def _trimmed(hist: np.ndarray) -> list[int]:
    """A histogram as a list, without its empty tail."""
    filled = np.nonzero(hist)[0]
    return [] if filled.size == 0 else [int(n) for n in hist[: filled[-1] + 1]]
