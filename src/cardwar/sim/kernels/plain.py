"""The plain two-player battle, the common case: both players have cards, and whoever ties has
cards enough to lay every war out. Played here battle after battle with the piles' ends held as
numbers, which the readable engine's rules reduce to: the cards each player laid are simply the
tops of their piles, in order.

`plain_battles` stays one long loop, written out by hand, on purpose. numba counts references
to every array an inlined helper takes, with atomic operations, and where the helper branches
(as this battle does) LLVM merges them so that numba cannot prune them from the caller's loop:
with the battle as an inlined helper, one such pair a battle, the classic table played at a
third of the speed it plays written out here (benchmarks/README.md, "Measurements behind the
code"). In the loop, only helpers that take no array or run straight through
(`slot`, `rank`, `size_of`, `brent`) are used, and the position compare and copy of `ring` only
on the rare battles where the loop watch needs them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.battle import battle
from cardwar.sim.kernels.codes import (
    GATHER_NATURAL,
    GATHER_SHUFFLED,
    GATHER_TABLE,
    GATHER_WINNER_FIRST,
    MASK,
    R_GATHER,
    R_LOW_WINS,
    R_PLAYERS,
    R_WAR_DOWN,
)
from cardwar.sim.kernels.loops import brent, keep_check, seat_key
from cardwar.sim.kernels.ring import head_of, keep_seat, rank, same_seat, set_ends, size_of, slot
from cardwar.sim.kernels.rng import below, shuffle
from cardwar.sim.kernels.workspace import (
    CHECK_EVERY,
    HISTORY,
    KEPT,
    KEPT_KEY,
    KEYS,
    LENGTH,
    POWER,
    TABLE,
)


@njit(cache=True)
def plain_battles(
    rules: np.ndarray, ws: np.ndarray, p: int, most: int, watching: bool, before: int = 0,
    wars_before: int = 0,
) -> tuple[int, int, bool]:  # fmt: skip
    """Play up to `most` two-player battles on set `p`, for as long as both players have cards
    and nobody runs short in a war; a battle that someone is short for is left, untouched, to
    `battle`. With `watching` (set PILES only; `before` battles played and `wars_before` wars fought
    before this run), each battle goes on the loop watch and its record (`loops`), and a repeat
    stops the run. Returns (battles played, wars fought, whether it repeated).

    The winner's side is picked by arithmetic rather than branches, since who wins is a coin
    toss.
    """
    low = rules[R_LOW_WINS] != 0
    gather = rules[R_GATHER]
    need = rules[R_WAR_DOWN] + 1
    h0, h1 = head_of(ws, p, 0), head_of(ws, p, 1)
    s0, s1 = size_of(ws, p, 0), size_of(ws, p, 1)
    power, length, kept_key = ws[POWER], ws[LENGTH], ws[KEPT_KEY]
    played = 0
    wars = 0
    repeat = False
    while s0 > 0 and s1 > 0 and played < most:
        a = ws[slot(p, 0, h0, 0)]
        b = ws[slot(p, 1, h1, 0)]
        ra = rank(a)
        rb = rank(b)
        if ra != rb:
            h0 = (h0 + 1) & MASK
            h1 = (h1 + 1) & MASK
            s0 -= 1
            s1 -= 1
            w = 1 if (ra > rb) == low else 0
            if gather == GATHER_WINNER_FIRST or gather == GATHER_NATURAL:
                # With no tie, the cards as they lie are the winner's first too.
                first = b if w == 1 else a
                second = a if w == 1 else b
            elif gather == GATHER_TABLE:
                first, second = a, b
            else:
                swap = below(ws, 2)
                first = b if swap == 1 else a
                second = a if swap == 1 else b
            hw = h1 if w == 1 else h0
            sw = s1 if w == 1 else s0
            ws[slot(p, w, hw, sw)] = first
            ws[slot(p, w, hw, sw + 1)] = second
            s0 += 2 - 2 * w
            s1 += 2 * w
        else:
            # A tie: each lays `need` more cards a war, for as many wars as it takes.
            laid = 1
            fought = 0
            while True:
                if s0 - laid < need or s1 - laid < need:
                    fought = -1  # someone is short: the rules of shortage decide, in battle()
                    break
                laid += need
                fought += 1
                ra = rank(ws[slot(p, 0, h0, laid - 1)])
                rb = rank(ws[slot(p, 1, h1, laid - 1)])
                if ra != rb:
                    break
            if fought < 0:
                break
            w = 1 if (ra > rb) == low else 0
            hw = h1 if w == 1 else h0
            sw = s1 if w == 1 else s0
            if gather == GATHER_WINNER_FIRST:
                # The winner's cards in the order laid, then the other's: each pile's tops.
                hl = h0 if w == 1 else h1
                for i in range(laid):
                    ws[slot(p, w, hw, sw + i)] = ws[slot(p, w, hw, i)]
                for i in range(laid):
                    ws[slot(p, w, hw, sw + laid + i)] = ws[slot(p, 1 - w, hl, i)]
            else:
                # As laid: both first cards, then each war seat by seat.
                ws[TABLE] = a
                ws[TABLE + 1] = b
                at = 2
                for war in range(fought):
                    start = 1 + war * need
                    for i in range(need):
                        ws[TABLE + at] = ws[slot(p, 0, h0, start + i)]
                        at += 1
                    for i in range(need):
                        ws[TABLE + at] = ws[slot(p, 1, h1, start + i)]
                        at += 1
                if gather == GATHER_SHUFFLED:
                    shuffle(ws, TABLE, at, ws)
                if gather == GATHER_NATURAL:
                    # As they lie: the winning card (the last war's up card, the last of its
                    # seat's cards there), then every other card, last laid first.
                    won = at - 1 - need + need * w
                    ws[slot(p, w, hw, sw)] = ws[TABLE + won]
                    put = 1
                    for i in range(at - 1, -1, -1):
                        if i != won:
                            ws[slot(p, w, hw, sw + put)] = ws[TABLE + i]
                            put += 1
                else:
                    for i in range(at):
                        ws[slot(p, w, hw, sw + i)] = ws[TABLE + i]
            h0 = (h0 + laid) & MASK
            h1 = (h1 + laid) & MASK
            s0 += (2 - 2 * w) * laid - laid
            s1 += 2 * w * laid - laid
            wars += fought
        played += 1
        if watching and s0 > 0 and s1 > 0:
            # The position's key, as `loops.position_key` makes it, from the piles' ends.
            key = seat_key(s0, ws[slot(p, 0, h0, 0)], ws[slot(p, 0, h0, s0 - 1)]) | (
                seat_key(s1, ws[slot(p, 1, h1, 0)], ws[slot(p, 1, h1, s1 - 1)]) << 18
            )
            now = before + played
            if now < HISTORY:
                ws[KEYS + now] = key
                if now % CHECK_EVERY == 0:
                    set_ends(ws, p, 0, h0, s0)
                    set_ends(ws, p, 1, h1, s1)
                    keep_check(ws, p, 2, now, wars_before + wars)
            if (
                key == kept_key
                and s0 == size_of(ws, KEPT, 0)
                and same_seat(ws, p, 0, h0, s0, KEPT)
                and same_seat(ws, p, 1, h1, s1, KEPT)
            ):
                length += 1
                repeat = True
                break
            power, length, keep = brent(power, length)
            if keep:
                keep_seat(ws, p, 0, h0, s0, KEPT)
                keep_seat(ws, p, 1, h1, s1, KEPT)
                kept_key = key
    set_ends(ws, p, 0, h0, s0)
    set_ends(ws, p, 1, h1, s1)
    ws[POWER], ws[LENGTH], ws[KEPT_KEY] = power, length, kept_key
    return played, wars, repeat


@njit(cache=True)
def advance(rules: np.ndarray, ws: np.ndarray, p: int, count: int) -> int:
    """Play `count` battles on set `p` of a round that cannot end (one in a loop), two-player
    battles in runs (`plain_battles`), the rest by the full rules; returns the wars fought."""
    wars = 0
    done = 0
    while done < count:
        if rules[R_PLAYERS] == 2:
            played, fought, _ = plain_battles(rules, ws, p, count - done, False)
            done += played
            wars += fought
        if done < count:
            wars += battle(rules, ws, p)[1]
            done += 1
    return wars
