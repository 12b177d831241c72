"""The chance to win from where a round stands: its continuations, each from the piles shuffled
afresh, played to their ends and counted by who won (`cardwar.sim.runs.chance` is the Python
side)."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.codes import R_PLAYERS, RES_WINNER, SEATS
from cardwar.sim.kernels.ring import deal
from cardwar.sim.kernels.rng import seed_game, shuffle
from cardwar.sim.kernels.round import play_round
from cardwar.sim.kernels.workspace import PILES, RESULT, workspace

DRAWS = SEATS  # where `chances` counts draws, after a count for each seat


@njit(cache=True, nogil=True)
def chances(
    rules: np.ndarray, cards: np.ndarray, sizes: np.ndarray, seed: int, runs: int,
    out: np.ndarray,
) -> None:  # fmt: skip
    """Play `runs` continuations of a round from where it stands, each seat holding the cards it
    holds but in an order nobody knows (each pile shuffled afresh), and count who wins each:
    `out[seat]` for a seat, `out[DRAWS]` for a draw. `rules[R_LIMIT]` is the battles left, if
    any. Releases the GIL, so a server can run it in a thread beside its event loop."""
    players = rules[R_PLAYERS]
    ws = workspace()
    mixed = cards.copy()
    for run in range(runs):
        seed_game(ws, seed, run)
        start = 0
        for seat in range(players):
            shuffle(mixed, start, sizes[seat], ws)
            start += sizes[seat]
        deal(ws, PILES, mixed, sizes)
        play_round(rules, ws)
        winner = ws[RESULT + RES_WINNER]
        out[winner if winner >= 0 else DRAWS] += 1
