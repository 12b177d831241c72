"""Loops: a round that comes back to a position it held before, with nothing left to chance,
goes round for ever (docs/rules.md#how-a-round-ends).

The watch is Brent's algorithm on the round's own course: it keeps the position at battle 0
(in the workspace's KEPT piles), and each time the battles since it kept one reach its power of
two, it keeps the new position and doubles the power; a position equal to the kept one is a
repeat, and the battles since it was kept are the loop's length. Whole positions are compared
only when their keys agree: a position's key (`position_key`) is each seat's count, top card
and bottom card, a few numbers the battle has at hand, so most battles compare one number.

The watch also records the round's course as it goes: every position's key, and every
CHECK_EVERY battles the whole position (`record`). Once it knows the loop's length, the first
repeat is the first battle whose key is that of the position `length` battles before, the two
positions rebuilt from their checkpoints and compared whole (`first_repeat_recorded`): a few
hundred battles, where walking two copies of the round from the deal takes three times the
round (`round.first_repeat_recorded`). A round longer than the record is walked from the deal
(`round.first_repeat`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.ring import keep_position, peek, same_position, set_ends, size_of, slot
from cardwar.sim.kernels.workspace import (
    CHECK,
    CHECK_EVERY,
    CHECKS,
    HISTORY,
    KEPT,
    KEPT_KEY,
    KEYS,
    LENGTH,
    PILES,
    POWER,
)


@njit(cache=True, inline="always")
def seat_key(size: int, top: int, bottom: int) -> int:
    """A seat's part of a position's key: its count, its top card and its bottom card."""
    return size | (top << 6) | (bottom << 12)


@njit(cache=True)
def position_key(ws: np.ndarray, p: int, players: int) -> int:
    """The key of the position in set `p`: equal positions have equal keys (and a battle of
    `plain` makes the same one from its registers)."""
    key = 0
    for seat in range(players):
        size = size_of(ws, p, seat)
        if size > 0:
            key |= seat_key(size, peek(ws, p, seat, 0), peek(ws, p, seat, size - 1)) << (18 * seat)
    return key


@njit(cache=True)
def keep_check(ws: np.ndarray, p: int, players: int, at: int, wars: int) -> None:
    """Keep the whole position in set `p` as the checkpoint of battle `at` (a multiple of
    CHECK_EVERY below HISTORY), with the wars fought so far."""
    c = CHECKS + (at // CHECK_EVERY) * CHECK
    start = c + players + 1
    for seat in range(players):
        size = size_of(ws, p, seat)
        ws[c + seat] = size
        for i in range(size):
            ws[start + i] = peek(ws, p, seat, i)
        start += size
    ws[c + players] = wars


@njit(cache=True)
def load_check(ws: np.ndarray, p: int, players: int, at: int) -> int:
    """Put the checkpoint at or before battle `at` in set `p`; returns its battle and wars."""
    number = at // CHECK_EVERY
    c = CHECKS + number * CHECK
    start = c + players + 1
    for seat in range(players):
        size = ws[c + seat]
        set_ends(ws, p, seat, 0, size)
        for i in range(size):
            ws[slot(p, seat, 0, i)] = ws[start + i]
        start += size
    return int(ws[c + players])


@njit(cache=True)
def record(ws: np.ndarray, p: int, players: int, at: int, wars: int) -> int:
    """Record the position after `at` battles: its key, and at every CHECK_EVERY battles the
    whole position. Returns the key."""
    key = position_key(ws, p, players)
    if at < HISTORY:
        ws[KEYS + at] = key
        if at % CHECK_EVERY == 0:
            keep_check(ws, p, players, at, wars)
    return key


@njit(cache=True)
def watch_from(ws: np.ndarray, players: int) -> None:
    """Start watching the round from the position in its piles (battle 0)."""
    keep_position(ws, PILES, KEPT, players)
    ws[KEPT_KEY] = record(ws, PILES, players, 0, 0)
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


@njit(cache=True)
def watch_step(ws: np.ndarray, players: int, at: int, wars: int) -> bool:
    """One battle more on the round's course (`at` battles played, `wars` fought): True if its
    piles now hold the kept position (a repeat, the loop's length then at `ws[LENGTH]`)."""
    key = record(ws, PILES, players, at, wars)
    repeat = key == ws[KEPT_KEY] and same_position(ws, PILES, KEPT, players)
    if repeat:
        ws[LENGTH] += 1
    else:
        ws[POWER], ws[LENGTH], keep = brent(ws[POWER], ws[LENGTH])
        if keep:
            keep_position(ws, PILES, KEPT, players)
            ws[KEPT_KEY] = key
    return repeat
