"""Loops: a round that comes back to a position it held before, with nothing left to chance,
goes round for ever (docs/rules.md#how-a-round-ends).

The watch is Brent's algorithm on the round's own course: it keeps the position at battle 0
(in the workspace's KEPT piles), and each time the battles since it kept one reach its power of
two, it keeps the new position and doubles the power; a position equal to the kept one is a
repeat, and the battles since it was kept are the loop's length. It never needs a list of
positions. Once it sees a repeat, `round.first_repeat` finds where the loop began.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.ring import keep_position, same_position
from cardwar.sim.kernels.workspace import KEPT, LENGTH, PILES, POWER


@njit(cache=True, inline="always")
def watch_from(ws: np.ndarray, players: int) -> None:
    """Start watching the round from the position in its piles."""
    keep_position(ws, PILES, KEPT, players)
    ws[POWER] = 1
    ws[LENGTH] = 0


@njit(cache=True, inline="always")
def brent(power: int, length: int) -> tuple[int, int, bool]:
    """Brent's bookkeeping after a battle that did not repeat: the power and count to go on
    with, and True if the position is to be kept now (the count has reached the power: it
    starts again from 0 and the power doubles). On a repeat, the loop's length is `length + 1`.
    It takes and gives numbers only, so a kernel holding them in registers uses it too."""
    length += 1
    if length == power:
        return 2 * power, 0, True
    return power, length, False


@njit(cache=True, inline="always")
def watch_step(ws: np.ndarray, players: int) -> bool:
    """One battle more on the round's course: True if its piles now hold the kept position (a
    repeat, the loop's length then at `ws[LENGTH]`)."""
    repeat = same_position(ws, PILES, KEPT, players)
    if repeat:
        ws[LENGTH] += 1
    else:
        ws[POWER], ws[LENGTH], keep = brent(ws[POWER], ws[LENGTH])
        if keep:
            keep_position(ws, PILES, KEPT, players)
    return repeat
