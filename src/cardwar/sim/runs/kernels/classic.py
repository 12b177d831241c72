"""The common table in one loop: random two-player rounds with the winner's cards first and a
player short of a war losing (the classic preset, Peace, the short deck, any cards down, any
battle limit), each dealt, played and tallied with the generator, the piles and the round in
registers and two small rings of bytes.

It plays exactly the rounds `random_rounds.play_rounds` plays for those rules, card for card and
figure for figure (`tests/sim/test_simulator.py` holds the two to each other), only faster: the
general kernels read the rules, the workspace's rings and the loop watch at every battle; here a
battle with no tie is a few instructions, as in the one-thread C reference the benchmarks set
beside it (`benchmarks/c/classic.c`). A round that could loop (no battle limit) or any other
rule goes through `random_rounds` (`cardwar.sim.runs.run.simulate` picks).

Written out by hand as one long loop on purpose, like `plain`: helpers that take arrays, inlined
into the battle loop, cost numba's reference counts there. Once a round, at its end, they cost
nothing worth measuring, so a round is tallied by the one `tally_result` every kernel uses
(side by side, with it and with a copy written out here: the same battles a second, within
3%).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardwar.cards import RANK_SHIFT
from cardwar.sim.kernels.codes import (
    ALL_CARDS,
    BATTLE_LIMIT,
    BOTH_SHORT,
    CARDS,
    MOST_CARDS,
    MOST_CARDS_TIE,
    NO_WINNER,
    OPPONENT_SHORT,
    R_LIMIT,
    R_LOW_WINS,
    R_MOST_CARDS,
    R_WAR_DOWN,
    RANKS,
)
from cardwar.sim.kernels.rng import seeded, splitmix
from cardwar.sim.kernels.tally import keep_record, tally_result

RING = 64  # a pile's bytes: a power of two of at least CARDS
MASK = RING - 1


# Over 80 lines on purpose: the classic table's rounds in one loop with the battle written out,
# since an inlined helper taking arrays costs numba's reference counting (plain.py's head).
@njit(cache=True)
def play_classic(
    rules: np.ndarray, hand: int, seed: int, first: int, last: int, counters: np.ndarray,
    battles_hist: np.ndarray, wars_hist: np.ndarray, longs: np.ndarray, records: np.ndarray,
) -> None:  # fmt: skip
    """Play rounds `first` .. `last - 1` of the run `seed` under `rules` (two players, the
    winner's cards first, `shortage: "lose"`, a battle limit), as `random_rounds.play_rounds`
    does."""
    need = rules[R_WAR_DOWN] + 1
    limit = rules[R_LIMIT]
    most_cards = rules[R_MOST_CARDS] != 0
    low = rules[R_LOW_WINS] != 0
    deck = np.zeros(CARDS, np.uint8)
    # Both piles in one array, seat 1's from RING on, each card by its rank alone (suits never
    # count here), turned upside down for Peace: then the higher rank always wins.
    ring = np.zeros(2 * RING, np.uint8)
    top = RANKS - 1
    for number in range(first, last):
        # The deal: `rng.seed_game`, `random_rounds.random_deal`, with the generator in a register.
        state = seeded(seed, number)
        for i in range(CARDS):
            deck[i] = i
        for i in range(CARDS - 1, 0, -1):
            state, bits = splitmix(state)
            j = int(((bits >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
            deck[i], deck[j] = deck[j], deck[i]
        for i in range(hand):
            r0 = deck[2 * i] >> RANK_SHIFT
            r1 = deck[2 * i + 1] >> RANK_SHIFT
            ring[i] = top - r0 if low else r0
            ring[RING + i] = top - r1 if low else r1
        h0 = 0
        h1 = 0
        s0 = hand
        s1 = hand
        battles = 0
        wars = 0
        winner = NO_WINNER
        reason = ALL_CARDS
        while True:
            ra = ring[h0]
            rb = ring[RING + h1]
            battles += 1
            h0 = (h0 + 1) & MASK
            h1 = (h1 + 1) & MASK
            if ra != rb:
                # No branch on who wins (it is a coin toss the processor cannot guess): the
                # winner's ring, head and count are picked, and the two cards put under its pile.
                won = ra > rb
                base = 0 if won else RING
                end = (h0 + s0 if won else h1 + s1) - 1
                ring[base + (end & MASK)] = ra if won else rb
                ring[base + ((end + 1) & MASK)] = rb if won else ra
                step = 1 if won else -1
                s0 += step
                s1 -= step
                if (s1 if won else s0) == 0:
                    winner = 0 if won else 1
                    break
            else:
                laid = 1
                short0 = False
                short1 = False
                h0 = (h0 - 1) & MASK
                h1 = (h1 - 1) & MASK
                while True:
                    short0 = s0 - laid < need
                    short1 = s1 - laid < need
                    if short0 or short1:
                        break
                    laid += need
                    wars += 1
                    ra = ring[(h0 + laid - 1) & MASK]
                    rb = ring[RING + ((h1 + laid - 1) & MASK)]
                    if ra != rb:
                        break
                if short0 and short1:
                    reason = BOTH_SHORT
                    break
                if short0 or short1:
                    winner = 1 if short0 else 0
                    reason = OPPONENT_SHORT
                    break
                # The winner's cards as laid (the top of its pile), then the other's.
                if ra > rb:
                    for i in range(laid):
                        ring[(h0 + s0 + i) & MASK] = ring[(h0 + i) & MASK]
                    for i in range(laid):
                        ring[(h0 + s0 + laid + i) & MASK] = ring[RING + ((h1 + i) & MASK)]
                    s0 += laid
                    s1 -= laid
                else:
                    for i in range(laid):
                        ring[RING + ((h1 + s1 + i) & MASK)] = ring[RING + ((h1 + i) & MASK)]
                    for i in range(laid):
                        ring[RING + ((h1 + s1 + laid + i) & MASK)] = ring[(h0 + i) & MASK]
                    s1 += laid
                    s0 -= laid
                h0 = (h0 + laid) & MASK
                h1 = (h1 + laid) & MASK
                if s0 == 0 or s1 == 0:
                    winner = 0 if s0 > 0 else 1
                    break
            if battles == limit:
                if not most_cards:
                    reason = BATTLE_LIMIT
                elif s0 == s1:
                    reason = MOST_CARDS_TIE
                else:
                    winner = 0 if s0 > s1 else 1
                    reason = MOST_CARDS
                break
        tally_result(counters, battles_hist, wars_hist, longs, winner, reason, battles, wars)
        if records.shape[0] > 0:
            keep_record(records, battles, wars, number, winner, reason)


@njit(cache=True, parallel=True)
def play_classic_parallel(
    rules: np.ndarray, hand: int, seed: int, first: int, last: int, counters: np.ndarray,
    battles_hist: np.ndarray, wars_hist: np.ndarray, longs: np.ndarray, records: np.ndarray,
) -> None:  # fmt: skip
    """`play_classic` over as many slices as `counters` has rows, one slice per thread, each
    round seeded by its number alone (as `random_rounds.play_rounds_parallel`)."""
    slices = counters.shape[0]
    rounds = last - first
    for part in prange(slices):
        lo = first + rounds * part // slices
        hi = first + rounds * (part + 1) // slices
        play_classic(
            rules, hand, seed, lo, hi, counters[part], battles_hist[part], wars_hist[part],
            longs[part], records[part],
        )  # fmt: skip
