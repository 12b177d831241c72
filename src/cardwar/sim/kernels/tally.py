"""A run's statistics as the kernels keep them: the layout of a thread's counters, histograms and
records (`cardwar.sim.tally.Tally` adds them up exactly), and the one tally of an ended round,
for every random round and every deal of a small deck alike."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.codes import (
    REASONS,
    RES_BATTLES,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
    SEATS,
)
from cardwar.sim.kernels.workspace import RESULT

BATTLE_BINS = 1 << 16  # battles 0..65535 counted one by one; longer rounds listed (`longs`)
WAR_BINS = 1 << 12
# The small counters of a run, by index in a row of `counters`.
C_GAMES, C_BATTLES, C_WARS, C_MAX_BATTLES, C_MAX_WARS = range(5)
C_WINS = C_MAX_WARS + 1  # a count for each seat
C_REASONS = C_WINS + SEATS  # a count for each reason, in the order of `Reason`
COUNTERS = C_REASONS + len(REASONS)
# A row of `longs`: how many rounds are listed, then their battles; then as many wars.
# A record, the fields of one of the longest rounds, in a row of `records`.
REC_BATTLES, REC_WARS, REC_GAME, REC_WINNER, REC_REASON = range(5)
RECORD = 5


@njit(cache=True)
def keep_record(
    records: np.ndarray, battles: int, wars: int, game: int, winner: int, reason: int
) -> None:
    """Keep the round among `records` (rows longest first, unused rows at -1 battles) if it is
    one of the longest: by battles, then the earlier game first, so the same rounds are kept
    however the rounds are shared out."""
    last = records.shape[0] - 1
    if last < 0:
        return
    if battles < records[last, REC_BATTLES] or (
        battles == records[last, REC_BATTLES] and game > records[last, REC_GAME] >= 0
    ):
        return
    at = last
    while at > 0 and (
        battles > records[at - 1, REC_BATTLES]
        or (battles == records[at - 1, REC_BATTLES] and game < records[at - 1, REC_GAME])
    ):
        records[at, :] = records[at - 1, :]
        at -= 1
    records[at, REC_BATTLES] = battles
    records[at, REC_WARS] = wars
    records[at, REC_GAME] = game
    records[at, REC_WINNER] = winner
    records[at, REC_REASON] = reason


@njit(cache=True)
def tally_result(
    counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray, longs: np.ndarray,
    winner: int, reason: int, battles: int, wars: int,
) -> None:  # fmt: skip
    """Add a round that ended (`winner` or NO_WINNER, `reason`, its battles and wars) to the
    statistics. A round longer than the histograms hold is listed in `longs` by its exact
    battles (or wars); the caller leaves room for every round it plays (`longs[0]` and
    `longs[1]` count the listed ones)."""
    counters[C_GAMES] += 1
    counters[C_BATTLES] += battles
    counters[C_WARS] += wars
    counters[C_MAX_BATTLES] = max(counters[C_MAX_BATTLES], battles)
    counters[C_MAX_WARS] = max(counters[C_MAX_WARS], wars)
    if winner >= 0:
        counters[C_WINS + winner] += 1
    counters[C_REASONS + reason] += 1
    if battles < BATTLE_BINS:
        battles_hist[battles] += 1
    else:
        longs[2 + longs[0]] = battles
        longs[0] += 1
    if wars < WAR_BINS:
        wars_hist[wars] += 1
    else:
        longs[longs.shape[0] - 1 - longs[1]] = wars  # wars from the far end
        longs[1] += 1


@njit(cache=True)
def tally_round(
    ws: np.ndarray, counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray,
    longs: np.ndarray,
) -> None:  # fmt: skip
    """Add the round just played in `ws` to the statistics (`tally_result`)."""
    tally_result(
        counters, battles_hist, wars_hist, longs, ws[RESULT + RES_WINNER],
        ws[RESULT + RES_REASON], ws[RESULT + RES_BATTLES], ws[RESULT + RES_WARS],
    )  # fmt: skip
