"""Every deal of a small deck, each played once: its rank sequences one after another, in
lexicographic order, each split into two halves (`cardwar.sim.exhaustive` says why)."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.cards import RANK_SHIFT
from cardwar.sim.kernels.codes import CYCLE, RANKS, RES_LOOP, RES_REASON
from cardwar.sim.kernels.games import tally_round
from cardwar.sim.kernels.plain import advance
from cardwar.sim.kernels.ring import peek, rank, size_of
from cardwar.sim.kernels.round import play_dealt
from cardwar.sim.kernels.workspace import PILES, RESULT, workspace


@njit(cache=True)
def next_sequence(ranks: np.ndarray) -> bool:
    """Step `ranks` to the next distinct sequence in lexicographic order; False after the last."""
    n = ranks.shape[0]
    i = n - 2
    while i >= 0 and ranks[i] >= ranks[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while ranks[j] <= ranks[i]:
        j -= 1
    ranks[i], ranks[j] = ranks[j], ranks[i]
    ranks[i + 1 :] = ranks[i + 1 :][::-1].copy()
    return True


@njit(cache=True, inline="always")
def _key_of(ws: np.ndarray, key: np.ndarray, flip: bool) -> None:
    """The two-seat position by ranks alone (suits never matter), seat by seat, each pile's
    count first; `flip` swaps the seats."""
    at = 0
    for k in range(2):
        seat = 1 - k if flip else k
        key[at] = size_of(ws, PILES, seat)
        at += 1
        for i in range(size_of(ws, PILES, seat)):
            key[at] = rank(peek(ws, PILES, seat, i))
            at += 1


@njit(cache=True, inline="always")
def _less(a: np.ndarray, b: np.ndarray) -> bool:
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return bool(a[i] < b[i])
    return False


@njit(cache=True)
def smallest_key(
    rules: np.ndarray, length: int, ws: np.ndarray, key: np.ndarray, best: np.ndarray
) -> None:
    """A loop's name: the smallest of its `length` positions, from the one in the piles on, by
    ranks and over both seatings, left in `best` (`key` is scratch). Two deals in the same loop
    get the same name. Leaves the piles one battle short of going round."""
    _key_of(ws, best, False)
    for step in range(length):
        for flip in (False, True):
            _key_of(ws, key, flip)
            if _less(key, best):
                best[:] = key
        if step < length - 1:
            advance(rules, ws, PILES, 1)


@njit(cache=True)
def play_sequences(
    rules: np.ndarray, ranks: np.ndarray, count: int, counters: np.ndarray,
    battles_hist: np.ndarray, wars_hist: np.ndarray, keys: np.ndarray, lengths: np.ndarray,
) -> int:  # fmt: skip
    """Play the next `count` rank sequences from `ranks` (left at the one after): each split
    into two halves, top card first, and played unless it is the mirror of one already played
    (the first half may not come after the second). Rounds that end are tallied; each loop
    leaves the smallest position of its loop, by ranks and over both seatings, in `keys` and
    its length in `lengths`. Returns how many loops there were."""
    n = ranks.shape[0]
    half = n // 2
    ws = workspace()
    cards = np.zeros(n, np.int64)
    sizes = np.full(2, half, np.int64)
    used = np.zeros(RANKS, np.int64)
    key = np.zeros(n + 2, np.int64)
    best = np.zeros(n + 2, np.int64)
    loops = 0
    for _ in range(count):
        mirrored = False
        for i in range(half):
            if ranks[i] != ranks[half + i]:
                mirrored = ranks[i] > ranks[half + i]
                break
        if not mirrored:
            used[:] = 0
            for i in range(n):  # suits in the order each rank appears: they never matter
                cards[i] = (ranks[i] << RANK_SHIFT) + used[ranks[i]]
                used[ranks[i]] += 1
            play_dealt(rules, cards, sizes, ws)
            if ws[RESULT + RES_REASON] == CYCLE:
                lengths[loops] = ws[RESULT + RES_LOOP]
                smallest_key(rules, lengths[loops], ws, key, best)
                keys[loops, :] = best
                loops += 1
            else:
                tally_round(ws, counters, battles_hist, wars_hist)
        if not next_sequence(ranks):
            break
    return loops
