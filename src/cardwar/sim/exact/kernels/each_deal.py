"""Every deal of a range of a packed deck's sequences, one row each, as the CPU kernel plays it
(`every_deal.play_range`: the same step from sequence to sequence, mirror filter, `packed.play`
and loop name): what each deal came to, for tests to hold the GPU kernel (`gpu`) to the CPU one
deal by deal, and for anyone asking what one deal does."""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.exact.kernels.every_deal import pack, packed_rules
from cardwar.sim.exact.kernels.packed import loop_name, play
from cardwar.sim.exact.kernels.sequences import next_sequence
from cardwar.sim.kernels.codes import CYCLE

# A row of `out`: whether the sequence was played (0: the mirror of one played), then the deal's
# winner (or NO_WINNER), reason's code, battles, wars (for a loop: to the repeat the loop watch
# saw), a loop's length (0 if none) and its name (two words; 0, 0 if none).
E_PLAYED, E_WINNER, E_REASON, E_BATTLES, E_WARS, E_LENGTH, E_NAME0, E_NAME1 = range(8)
EACH = 8


@njit(cache=True)
def play_each_in_range(
    rules: np.ndarray, ranks: np.ndarray, count: int, mirror: bool, seatings: bool, bits: int,
    out: np.ndarray,
) -> None:  # fmt: skip
    """Play `count` sequences from `ranks` (stepping it on), one row of `out` each."""
    n = ranks.shape[0]
    half = n // 2
    need, last_card, low, gather, limit, most_cards = packed_rules(rules)
    for row in range(count):
        play_it = True
        if mirror:
            for i in range(half):
                if ranks[i] != ranks[half + i]:
                    play_it = ranks[i] < ranks[half + i]
                    break
        out[row, :] = 0
        if play_it:
            p0 = pack(ranks, 0, half, bits)
            p1 = pack(ranks, half, n - half, bits)
            p0, p1, s0, s1, winner, reason, battles, wars, length = play(
                p0, p1, half, n - half, bits, need, last_card, low, gather, limit, most_cards
            )
            out[row, E_PLAYED] = 1
            out[row, E_WINNER] = winner
            out[row, E_REASON] = reason
            out[row, E_BATTLES] = battles
            out[row, E_WARS] = wars
            out[row, E_LENGTH] = length
            if reason == CYCLE:
                out[row, E_NAME0], out[row, E_NAME1] = loop_name(
                    p0, p1, s0, s1, length, bits, need, last_card, low, gather, seatings
                )
        if row < count - 1:
            next_sequence(ranks)
