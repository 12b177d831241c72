"""A small, fast, seedable generator (splitmix64) and the shuffle the kernels make with it.

Its 64 bits of state live in the workspace at RNG, stored as an int64 (the same bits: numba
converts between int64 and uint64 of one width without changing them). The sequence is part of
what a seed means: the same seed gives the same statistics on any machine, so neither the
generator nor the way a game is seeded may change.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.workspace import RNG


@njit(cache=True, inline="always")
def splitmix(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """splitmix64, the one generator: the next state after `state`, and its 64 random bits (a
    kernel that keeps the state in a register calls this; others `next_random`)."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def seeded(seed: int, game: int) -> np.uint64:
    """The generator's state for round number `game` of the run `seed`: independent of how
    rounds are split up."""
    state = np.uint64(seed) * np.uint64(0xD1B54A32D192ED03) + np.uint64(game)
    state, _ = splitmix(state)
    state, _ = splitmix(state)
    return state


@njit(cache=True, inline="always")
def next_random(ws: np.ndarray) -> np.uint64:
    """The next 64 random bits of the generator in workspace `ws`."""
    state, bits = splitmix(np.uint64(ws[RNG]))
    ws[RNG] = np.int64(state)
    return bits


@njit(cache=True, inline="always")
def below(ws: np.ndarray, n: int) -> int:
    """A random whole number in 0..n-1 (multiply-shift; its bias is under n / 2**32)."""
    return int(((next_random(ws) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def seed_game(ws: np.ndarray, seed: int, game: int) -> None:
    """Seed the generator of `ws` for round number `game` of a run: independent of how rounds
    are split up."""
    ws[RNG] = np.int64(seeded(seed, game))


@njit(cache=True, inline="always")
def shuffle(cards: np.ndarray, start: int, count: int, ws: np.ndarray) -> None:
    """Shuffle `cards[start : start + count]` in place with the generator of `ws`
    (Fisher–Yates, from the last place)."""
    for i in range(count - 1, 0, -1):
        j = below(ws, i + 1)
        cards[start + i], cards[start + j] = cards[start + j], cards[start + i]
