"""The workspace: everything one round at a time is played in, held in ONE int64 array, region
by region: the round's piles, the loop watch's kept position, a second set of piles, the table,
a battle's scratch rows, Brent's state, the result and the generator's state.

Why one array rather than a NamedTuple of arrays: numba counts references to every array a
function, or a helper inlined into it, takes, with an atomic add and subtract, and removes the
pairs only where LLVM has not merged those of different arrays. A NamedTuple of fifteen arrays,
passed to the same helpers, left such pairs inside the battle loop and at every call, at a
fifth of the old kernels' speed (benchmarks/README.md, "Measurements behind the code"). One
array, always the same one, leaves none inside a loop and
one pair per call, fewer than the old kernels' separate arrays.

A set of piles is an offset into the workspace (PILES, KEPT or BEHIND): seat `s`'s ring of RING
slots from `p + s * RING`, then every seat's head (its top slot) from `p + HEAD`, then every
seat's count from `p + SIZE` (see `ring`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.codes import CARDS, RESULT_SIZE, RING, SEATS

# Within a set of piles.
HEAD = SEATS * RING
SIZE = HEAD + SEATS
PILE_SET = SIZE + SEATS

# The regions of a workspace, one after another.
PILES = 0  # the round's piles
KEPT = PILES + PILE_SET  # the position the loop watch keeps (`loops`)
BEHIND = KEPT + PILE_SET  # a second copy of the round, for finding where a loop began
TABLE = BEHIND + PILE_SET  # the cards on the table, in the order laid
TABLE_SEAT = TABLE + CARDS  # the seat that laid each
UP = TABLE_SEAT + CARDS  # a battle's scratch: each seat's face-up card (-1 for none),
UP_AT = UP + SEATS  # where on the table it lies,
TIED = UP_AT + SEATS  # the seats tied for the best card,
FIGHTERS = TIED + SEATS  # the seats that fight the war,
SHORTS = FIGHTERS + SEATS  # and the seats short of cards for it
POWER = SHORTS + SEATS  # Brent's power of two,
LENGTH = POWER + 1  # the battles since the watch kept a position,
KEPT_KEY = LENGTH + 1  # and the kept position's key (`loops.position_key`)
RESULT = KEPT_KEY + 1  # what a round's play leaves: codes.RES_* from here
RNG = RESULT + RESULT_SIZE  # the generator's 64 bits (`rng`)
# The watch's record of the round's course, so that where a loop began is found without playing
# the round again (`loops`): the key of the position after each battle, up to HISTORY battles,
HISTORY = 1 << 16
KEYS = RNG + 1
# and every CHECK_EVERY battles the whole position: each seat's count, the wars fought so far,
# then every card, seat by seat, top first.
CHECK_EVERY = 1 << 8
CHECK = SEATS + 1 + CARDS
CHECKS = KEYS + HISTORY
WORKSPACE = CHECKS + (HISTORY // CHECK_EVERY) * CHECK


@njit(cache=True)
def workspace() -> np.ndarray:
    """A fresh workspace, for a kernel (one per thread) or for Python (`DealPlayer` keeps one
    between deals): the one place one is made."""
    return np.zeros(WORKSPACE, np.int64)
