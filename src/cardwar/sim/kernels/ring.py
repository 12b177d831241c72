"""A seat's pile as a ring of RING slots in the workspace: take from the top, put under the
bottom, read the i-th card; lay a deal out, keep a copy of a position, compare two.

`p` is a set of piles (`workspace.PILES`, `KEPT` or `BEHIND`): seat `s` holds `ws[p + SIZE + s]`
cards from slot `ws[p + HEAD + s]` (its top) on, wrapping at RING. The helpers are inlined
wherever they are used, so the ring costs no calls; `slot` is the one place its arithmetic is
written. `same_seat` and `keep_seat` take a pile's ends as numbers, so a kernel holding them in
registers can use them too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.cards import RANK_SHIFT
from cardwar.sim.kernels.codes import MASK, RING
from cardwar.sim.kernels.workspace import HEAD, SIZE


@njit(cache=True, inline="always")
def slot(p: int, seat: int, head: int, i: int) -> int:
    """Where the i-th card from the top of `seat`'s pile in set `p`, whose top is at `head`,
    lies in the workspace."""
    return p + seat * RING + ((head + i) & MASK)


@njit(cache=True, inline="always")
def rank(card: int) -> int:
    """A card index's rank, as `cardwar.cards.rank_of`."""
    return card >> RANK_SHIFT


@njit(cache=True, inline="always")
def head_of(ws: np.ndarray, p: int, seat: int) -> int:
    """The slot of the top of `seat`'s pile in set `p`."""
    return int(ws[p + HEAD + seat])


@njit(cache=True, inline="always")
def size_of(ws: np.ndarray, p: int, seat: int) -> int:
    """How many cards `seat`'s pile in set `p` holds."""
    return int(ws[p + SIZE + seat])


@njit(cache=True, inline="always")
def peek(ws: np.ndarray, p: int, seat: int, i: int) -> int:
    """The i-th card from the top of `seat`'s pile in set `p` (0 is the top)."""
    return int(ws[slot(p, seat, ws[p + HEAD + seat], i)])


@njit(cache=True, inline="always")
def pop(ws: np.ndarray, p: int, seat: int) -> int:
    """Take the top card of `seat`'s pile in set `p`."""
    card = ws[slot(p, seat, ws[p + HEAD + seat], 0)]
    ws[p + HEAD + seat] = (ws[p + HEAD + seat] + 1) & MASK
    ws[p + SIZE + seat] -= 1
    return int(card)


@njit(cache=True, inline="always")
def push(ws: np.ndarray, p: int, seat: int, card: int) -> None:
    """Put `card` under `seat`'s pile in set `p`."""
    ws[slot(p, seat, ws[p + HEAD + seat], ws[p + SIZE + seat])] = card
    ws[p + SIZE + seat] += 1


@njit(cache=True, inline="always")
def set_ends(ws: np.ndarray, p: int, seat: int, head: int, size: int) -> None:
    """Set where `seat`'s pile in set `p` starts and how many cards it holds."""
    ws[p + HEAD + seat] = head
    ws[p + SIZE + seat] = size


@njit(cache=True)
def deal(ws: np.ndarray, p: int, cards: np.ndarray, sizes: np.ndarray) -> None:
    """Lay out a deal in set `p`: `cards` holds every pile one after another, top card first."""
    start = 0
    for seat in range(sizes.shape[0]):
        set_ends(ws, p, seat, 0, 0)
        for i in range(sizes[seat]):
            push(ws, p, seat, cards[start + i])
        start += sizes[seat]


@njit(cache=True, inline="always")
def same_seat(ws: np.ndarray, p: int, seat: int, head: int, size: int, q: int) -> bool:
    """True if `seat`'s pile in set `p`, `size` cards from `head`, is its pile in set `q`."""
    if size != ws[q + SIZE + seat]:
        return False
    other = ws[q + HEAD + seat]
    for i in range(size):
        if ws[slot(p, seat, head, i)] != ws[slot(q, seat, other, i)]:
            return False
    return True


@njit(cache=True, inline="always")
def same_position(ws: np.ndarray, p: int, q: int, players: int) -> bool:
    """True if sets `p` and `q` hold the same cards in the same order, seat by seat."""
    for seat in range(players):
        if ws[p + SIZE + seat] != ws[q + SIZE + seat]:
            return False
    for seat in range(players):
        if not same_seat(ws, p, seat, ws[p + HEAD + seat], ws[p + SIZE + seat], q):
            return False
    return True


@njit(cache=True, inline="always")
def keep_seat(ws: np.ndarray, p: int, seat: int, head: int, size: int, q: int) -> None:
    """Copy `seat`'s pile in set `p`, `size` cards from `head`, into set `q`."""
    set_ends(ws, q, seat, 0, size)
    for i in range(size):
        ws[slot(q, seat, 0, i)] = ws[slot(p, seat, head, i)]


@njit(cache=True, inline="always")
def keep_position(ws: np.ndarray, p: int, q: int, players: int) -> None:
    """Copy every seat's pile in set `p` into set `q`."""
    for seat in range(players):
        keep_seat(ws, p, seat, ws[p + HEAD + seat], ws[p + SIZE + seat], q)


def pile(ws: np.ndarray, p: int, seat: int) -> list[int]:
    """`seat`'s pile in set `p`, top card first, read from Python."""
    head, size = int(ws[p + HEAD + seat]), int(ws[p + SIZE + seat])
    return [int(ws[slot.py_func(p, seat, head, i)]) for i in range(size)]
