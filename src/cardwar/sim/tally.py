"""Statistics of many rounds, kept as counts and histograms that merge exactly (by adding), so a
run split over threads, batches or machines gives the same figures as one piece."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardwar.sim.kernels import games as K  # the layout of a run's counters
from cardwar.sim.kernels.codes import REASONS


@dataclass
class Tally:
    """What a run of rounds adds up to: counters, and histograms of battles and wars a round."""

    counters: np.ndarray = field(default_factory=lambda: np.zeros(K.COUNTERS, np.int64))
    battles: np.ndarray = field(default_factory=lambda: np.zeros(K.BATTLE_BINS, np.int64))
    wars: np.ndarray = field(default_factory=lambda: np.zeros(K.WAR_BINS, np.int64))

    def add(self, other: Tally) -> None:
        """Add another tally's rounds to this one (exactly: every figure is a sum or a max)."""
        most = [max(self.counters[i], other.counters[i]) for i in (K.C_MAX_BATTLES, K.C_MAX_WARS)]
        self.counters += other.counters
        self.battles += other.battles
        self.wars += other.wars
        self.counters[K.C_MAX_BATTLES], self.counters[K.C_MAX_WARS] = most

    @classmethod
    def of_rows(cls, counters: np.ndarray, battles: np.ndarray, wars: np.ndarray) -> Tally:
        """One tally from per-thread rows, the way `play_games_parallel` leaves them."""
        merged = cls(counters.sum(axis=0), battles.sum(axis=0), wars.sum(axis=0))
        merged.counters[K.C_MAX_BATTLES] = counters[:, K.C_MAX_BATTLES].max()
        merged.counters[K.C_MAX_WARS] = counters[:, K.C_MAX_WARS].max()
        return merged

    @property
    def games(self) -> int:
        """Rounds played."""
        return int(self.counters[K.C_GAMES])

    @property
    def total_battles(self) -> int:
        """Battles played, over every round."""
        return int(self.counters[K.C_BATTLES])

    def to_dict(self, players: int, *, histograms: bool = False) -> dict[str, Any]:
        """The figures as plain JSON values: games, wins per seat, draws, each reason, battles
        and wars a round (mean, median, p90, max); the histograms too if asked."""
        games = self.games
        wins = [int(self.counters[K.C_WINS + seat]) for seat in range(players)]
        out: dict[str, Any] = {
            "games": games,
            "wins": wins,
            "draws": games - sum(wins),
            "reasons": {
                reason.value: int(self.counters[K.C_REASONS + i])
                for i, reason in enumerate(REASONS)
            },
            "battles": _spread(
                self.battles, self.total_battles, games, self.counters[K.C_MAX_BATTLES]
            ),
            "wars_per_round": _spread(
                self.wars, int(self.counters[K.C_WARS]), games, self.counters[K.C_MAX_WARS]
            ),
        }
        if histograms:
            out["histograms"] = {"battles": _trimmed(self.battles), "wars": _trimmed(self.wars)}
        return out


def _spread(hist: np.ndarray, total: int, games: int, most: int) -> dict[str, Any]:
    """Mean, median, 90th percentile and maximum of a histogram whose last bin holds everything
    from there up (a percentile that falls there is reported as "at least" that bin)."""
    if games == 0:
        return {"mean": None, "median": None, "p90": None, "max": None}
    cumulative = np.cumsum(hist)

    def percentile(share: float) -> int:
        return int(np.searchsorted(cumulative, share * games, side="left"))

    return {
        "mean": round(total / games, 3),
        "median": percentile(0.5),
        "p90": percentile(0.9),
        "max": int(most),
    }


def _trimmed(hist: np.ndarray) -> list[int]:
    """A histogram as a list, without its empty tail."""
    filled = np.nonzero(hist)[0]
    return [] if filled.size == 0 else [int(n) for n in hist[: filled[-1] + 1]]
