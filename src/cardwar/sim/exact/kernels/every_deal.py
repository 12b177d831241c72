"""Every deal of a small deck: a range of its rank sequences played one after another, each from
the one before by stepping to the next distinct permutation, split into two halves (the first
player `n // 2` cards, top card first), tallied as they end, and each loop named once
(`cardwar.sim.exact` is the Python side and says which deals are played).

A thread plays its range into its own rows: the counters and histograms of `random_rounds`, the
rounds too long for them (`longs`), the loops it found by name (`loops`: name, length, deals, and
the first deal that fell into it), the longest rounds (`records`) and the round with the most
cards turned face up (`turned`). It stops early, leaving `ranks` at the next sequence to play, when
its loop table is half full or `longs` could overflow, so the caller can empty them and call it
again: exact, in bounded memory, however many loops there are.

Deals whose piles pack into a word are played in registers (`packed`); bigger decks on the
rings of the full rules (`round.play_round`), their cards being their ranks (all of one suit,
so that positions compare by ranks, as on a packed deck).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardwar.cards import RANK_SHIFT
from cardwar.sim.exact.kernels.packed import loop_name, play
from cardwar.sim.exact.kernels.sequences import next_sequence
from cardwar.sim.kernels.codes import (
    CYCLE,
    R_GATHER,
    R_LAST_CARD,
    R_LIMIT,
    R_LOW_WINS,
    R_MOST_CARDS,
    R_WAR_DOWN,
    RES_BATTLES,
    RES_LOOP,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
)
from cardwar.sim.kernels.plain import advance
from cardwar.sim.kernels.ring import deal, peek, size_of
from cardwar.sim.kernels.round import play_round
from cardwar.sim.kernels.tally import keep_record, tally_result
from cardwar.sim.kernels.workspace import PILES, RESULT, workspace

# A row of `loops`: a loop's name, its length, the deals that fall into it and the first of
# them. The table lives in an `exact.driver.ExactSession` until its `take()`, which makes it bigger
# (`regrow`) whenever the kernel stops at half full.
L_NAME0, L_NAME1, L_LENGTH, L_DEALS, L_FIRST = range(5)
LOOP = 5
LOOP_ROWS = 1 << 12  # a power of two, to start with
# A row of `seen`: a position on a named loop, and that loop's row in `loops` + 1 (0: empty). A
# cache, one position a slot, the latest kept: a deal that falls into a loop seen before finds
# its name there without walking round the loop again: on the rings of a deck too big to pack,
# where a battle is dear. A packed deck walks round the loop to its name instead, which costs
# less than a cache that holds its loops (11x1 has 823,488 positions on 55,592 loops: at
# 1 << 16 rows the cache missed five times in six, and a miss walked the loop twice; at 1 << 21
# rows its misses cost more than the walk; benchmarks/README.md, "Faster per core").
S_POS0, S_POS1, S_ROW = range(3)
SEEN = 3
SEEN_ROWS = 1 << 16  # a power of two
# `state`: the rows of `loops` in use.
ST_LOOPS = 0
STATE = 1
# `turned`: the round with the most cards turned face up (battles + wars), its deal's index, its
# battles and wars.
T_TURNED, T_INDEX, T_BATTLES, T_WARS = range(4)
TURNED = 4


@njit(cache=True, inline="always")
def _slot(name0: int, name1: int, rows: int) -> int:
    mixed = name0 * -7046029254386353131 + name1 * -4417276706812531889  # odd 64-bit constants
    return (mixed >> 17) & (rows - 1)


@njit(cache=True)
def _loop_row(loops: np.ndarray, state: np.ndarray, name0: int, name1: int, length: int) -> int:
    """The row of the loop named (name0, name1) in `loops`, made if it is new."""
    rows = loops.shape[0]
    at = _slot(name0, name1, rows)
    while loops[at, L_LENGTH] != 0:
        if loops[at, L_NAME0] == name0 and loops[at, L_NAME1] == name1:
            return at
        at = (at + 1) & (rows - 1)
    loops[at, L_NAME0] = name0
    loops[at, L_NAME1] = name1
    loops[at, L_LENGTH] = length
    loops[at, L_FIRST] = -1
    state[ST_LOOPS] += 1
    return at


@njit(cache=True)
def regrow(old: np.ndarray, new: np.ndarray, state: np.ndarray) -> None:
    """Every loop of `old` into the (empty, bigger) table `new`."""
    state[ST_LOOPS] = 0
    for row in range(old.shape[0]):
        if old[row, L_LENGTH] != 0:
            at = _loop_row(new, state, old[row, L_NAME0], old[row, L_NAME1], old[row, L_LENGTH])
            new[at, L_DEALS] = old[row, L_DEALS]
            new[at, L_FIRST] = old[row, L_FIRST]


@njit(cache=True, inline="always")
def _seen(seen: np.ndarray, pos0: int, pos1: int) -> int:
    """The row in `loops` of the loop the position lies on, if the cache holds it; or -1."""
    at = _slot(pos0, pos1, seen.shape[0])
    if seen[at, S_ROW] != 0 and seen[at, S_POS0] == pos0 and seen[at, S_POS1] == pos1:
        return int(seen[at, S_ROW]) - 1
    return -1


@njit(cache=True, inline="always")
def _remember(seen: np.ndarray, pos0: int, pos1: int, row: int) -> None:
    at = _slot(pos0, pos1, seen.shape[0])
    seen[at, S_POS0] = pos0
    seen[at, S_POS1] = pos1
    seen[at, S_ROW] = row + 1


@njit(cache=True, inline="always")
def packed_rules(rules: np.ndarray) -> tuple[int, bool, bool, int, int, bool]:
    """The rules as `packed.play` takes them: cards a war step needs (down and up), fighting
    on with the last card, Peace, the return order, the battle limit (0: none), and whether
    the biggest pile wins at the limit."""
    return (
        rules[R_WAR_DOWN] + 1, rules[R_LAST_CARD] != 0, rules[R_LOW_WINS] != 0,
        rules[R_GATHER], rules[R_LIMIT], rules[R_MOST_CARDS] != 0,
    )  # fmt: skip


@njit(cache=True)
def pack(ranks: np.ndarray, start: int, count: int, b: int) -> int:
    """`count` ranks from `start` as a packed pile: rank + 1 in `b` bits each, top card lowest."""
    word = 0
    for i in range(count):
        word |= (ranks[start + i] + 1) << (b * i)
    return word


@njit(cache=True)
def _ring_name(ws: np.ndarray, b: int, flip: bool) -> tuple[int, int]:
    """The position in the workspace's piles as two words, by ranks: the first seat's count, then
    every card, the first seat's pile then the other's (`flip` swaps the seats)."""
    first = 1 if flip else 0
    name0 = size_of(ws, PILES, first)
    name1 = 0
    room = (63 - 5) // b  # cards that fit in the first word beside the count
    at = 0
    for k in range(2):
        seat = first if k == 0 else 1 - first
        for i in range(size_of(ws, PILES, seat)):
            card = (peek(ws, PILES, seat, i) >> RANK_SHIFT) + 1
            if at < room:
                name0 |= card << (5 + b * at)
            else:
                name1 |= card << (b * (at - room))
            at += 1
    return name0, name1


@njit(cache=True)
def _ring_loop_name(
    rules: np.ndarray, ws: np.ndarray, length: int, b: int, seatings: bool
) -> tuple[int, int]:
    """`packed.loop_name` on the rings: the smallest of the loop's positions from the one in
    the piles on, over both seatings if `seatings`."""
    best0, best1 = _ring_name(ws, b, False)
    for step in range(length):
        for flip in (False, True):
            if flip and not seatings:
                continue
            name0, name1 = _ring_name(ws, b, flip)
            if name0 < best0 or (name0 == best0 and name1 < best1):
                best0, best1 = name0, name1
        if step < length - 1:
            advance(rules, ws, PILES, 1)
    return best0, best1


# Over 80 lines on purpose: one loop over the sequences with its tallies and loop table kept
# inline, since a helper taking arrays costs numba's reference counting (plain.py's head).
@njit(cache=True)
def play_range(
    rules: np.ndarray, ranks: np.ndarray, index: int, count: int, mirror: bool, seatings: bool,
    bits: int, packed: bool, counters: np.ndarray, battles_hist: np.ndarray,
    wars_hist: np.ndarray, longs: np.ndarray, loops: np.ndarray, seen: np.ndarray,
    state: np.ndarray, records: np.ndarray, turned: np.ndarray,
) -> int:  # fmt: skip
    """Play up to `count` sequences from `ranks` (sequence number `index`), leaving `ranks` at
    the next one; with `mirror`, skip those whose first half comes after the second (the mirror
    of one played). Returns how many sequences it went through: fewer than `count` when its
    loop table is half full or `longs` has no room left."""
    n = ranks.shape[0]
    half = n // 2
    need, last_card, low, gather, limit, most_cards = packed_rules(rules)
    ws = workspace()
    cards = np.zeros(n, np.int64)
    sizes = np.array([half, n - half], np.int64)
    s0 = s1 = 0
    done = 0
    while done < count:
        if state[ST_LOOPS] >= loops.shape[0] // 2 or longs[0] + longs[1] + 2 > longs.shape[0] - 2:
            break
        play_it = True
        if mirror:
            for i in range(half):
                if ranks[i] != ranks[half + i]:
                    play_it = ranks[i] < ranks[half + i]
                    break
        if play_it:
            if packed:
                p0 = pack(ranks, 0, half, bits)
                p1 = pack(ranks, half, n - half, bits)
                p0, p1, s0, s1, winner, reason, battles, wars, length = play(
                    p0, p1, half, n - half, bits, need, last_card, low, gather, limit, most_cards
                )
            else:
                for i in range(n):
                    cards[i] = ranks[i] << RANK_SHIFT
                deal(ws, PILES, cards, sizes)
                play_round(rules, ws)
                winner, reason = ws[RESULT + RES_WINNER], ws[RESULT + RES_REASON]
                battles, wars = ws[RESULT + RES_BATTLES], ws[RESULT + RES_WARS]
                length = ws[RESULT + RES_LOOP]
                p0, p1 = _ring_name(ws, bits, False)
            if reason == CYCLE:
                if packed:
                    name0, name1 = loop_name(
                        p0, p1, s0, s1, length, bits, need, last_card, low, gather, seatings
                    )
                    row = _loop_row(loops, state, name0, name1, length)
                else:
                    row = _seen(seen, p0, p1)
                    if row < 0:
                        name0, name1 = _ring_loop_name(rules, ws, length, bits, seatings)
                        row = _loop_row(loops, state, name0, name1, length)
                        _remember(seen, p0, p1, row)
                loops[row, L_DEALS] += 1
                if loops[row, L_FIRST] < 0:
                    loops[row, L_FIRST] = index
            else:
                tally_result(
                    counters, battles_hist, wars_hist, longs, winner, reason, battles, wars
                )
                keep_record(records, battles, wars, index, winner, reason)
                if battles + wars > turned[T_TURNED]:
                    turned[T_TURNED] = battles + wars
                    turned[T_INDEX] = index
                    turned[T_BATTLES] = battles
                    turned[T_WARS] = wars
        done += 1
        index += 1
        if not next_sequence(ranks):
            break
    return done


@njit(cache=True, parallel=True)
def play_ranges(
    rules: np.ndarray, ranks: np.ndarray, indices: np.ndarray, counts: np.ndarray,
    mirror: bool, seatings: bool, bits: int, packed: bool, counters: np.ndarray,
    battles_hist: np.ndarray, wars_hist: np.ndarray, longs: np.ndarray, loops: np.ndarray,
    seen: np.ndarray, state: np.ndarray, records: np.ndarray, turned: np.ndarray,
    done: np.ndarray,
) -> None:  # fmt: skip
    """`play_range` for each row of `ranks` (one thread's range each), into that row of every
    other array; `done` gets how many sequences each went through."""
    for part in prange(ranks.shape[0]):
        done[part] = play_range(
            rules, ranks[part], indices[part], counts[part], mirror, seatings, bits, packed,
            counters[part], battles_hist[part], wars_hist[part], longs[part], loops[part],
            seen[part], state[part], records[part], turned[part],
        )  # fmt: skip
