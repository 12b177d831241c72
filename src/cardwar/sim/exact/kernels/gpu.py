"""Every deal of a small deck on a CUDA GPU: the kernel of `cardwar.sim.exact.gpu`, which alone
imports this module (and so `numba.cuda`), only when `--device cuda` asks for it.

A block plays a range of sequences, `per_thread` of them to each of its threads, one deal at a
time: a thread finds its first sequence from its number (`_unrank`, a few divisions) and steps
to the next ones as the CPU kernel does (`sequences.next_sequence`). Each deal is played in
registers by the same functions as on the CPU (`packed.play`, `packed.loop_name`; numba compiles
them for the device), so only packed decks are played here.

What the deals come to is reduced on the device: each block counts into shared memory (the
counters of `kernels.tally`, and the first bins of the battles and wars histograms), then adds
its counts to the launch's global ones with atomics; a round too long for the shared bins goes
to the global histogram, and one too long for that to the `longs` list. Rows that the host
merges come out as lists filled through an atomic counter: each looping deal's loop (named as
the CPU kernel names it, one row a deal, merged by name with `results.merge_loops`), and the
candidates for the longest deals and for the most cards turned up: a deal is a candidate only
if it is at least as long as the best seen so far (`best`, an atomic maximum, or the floor the
host sets when more than one longest deal is kept), so the lists stay short. A list that runs
full is seen by the host, which plays the launch again in halves: exact in bounded memory.

`each`, when it has rows, gets one row a sequence (`E_*`), for the tests to hold each deal
against the CPU kernel's (`each_deal.play_each_in_range`).

Over 80 lines on purpose (as `every_deal.play_range`): one loop over a thread's deals with its
tallies inline, since a device function taking the shared arrays costs as much as it saves.
"""

from __future__ import annotations

from typing import Any

from numba import cuda as numba_cuda
from numba import types

from cardwar.sim.exact.kernels.each_deal import (
    E_BATTLES,
    E_LENGTH,
    E_NAME0,
    E_NAME1,
    E_PLAYED,
    E_REASON,
    E_WARS,
    E_WINNER,
)
from cardwar.sim.exact.kernels.every_deal import (
    L_DEALS,
    L_FIRST,
    L_LENGTH,
    L_NAME0,
    L_NAME1,
    pack,
    packed_rules,
)
from cardwar.sim.exact.kernels.packed import loop_name, play
from cardwar.sim.exact.kernels.sequences import next_sequence
from cardwar.sim.kernels.codes import CYCLE, REASONS, RULES_SIZE
from cardwar.sim.kernels.tally import (
    BATTLE_BINS,
    C_BATTLES,
    C_GAMES,
    C_MAX_BATTLES,
    C_MAX_WARS,
    C_REASONS,
    C_WARS,
    C_WINS,
    COUNTERS,
    REC_BATTLES,
    REC_GAME,
    REC_REASON,
    REC_WARS,
    REC_WINNER,
    WAR_BINS,
)

# numba.cuda has no types for mypy. The simulator swaps this global for its own module by
# identity, so it stays the module itself.
cuda: Any = numba_cuda
MOST_CARDS = 24  # a packed deck has at most 21 cards (7x3); room for a sequence on a thread
MOST_RANKS = 13
SHARED_BATTLES = 2048  # battles counted in a block's shared memory; longer rounds go global
SHARED_WARS = 512
# `found`: how many rows each list was given (more than its rows: it ran full).
F_LONGS, F_LOOPS, F_KEPT, F_TURNED = range(4)
FOUND = 4
# A row of `longs`: a round's battles (kind 0) or wars (kind 1), too many for the histograms.
G_VALUE, G_KIND = range(2)
LONG = 2
# `best`: the longest deal seen so far (or the floor set by the host), the most cards turned up.
B_BATTLES, B_TURNED = range(2)
BEST = 2
# A row of `turned`: as `every_deal.T_*`.
TURNED = 4
REASON_CODES = len(REASONS)


@cuda.jit(device=True, inline=True)
def _unrank(index, sequence, counts, cards, ranks, suits, total):  # type: ignore[no-untyped-def]  # numba types it
    """Write the `index`-th sequence of the deck into `sequence` (`deck.SmallDeck.sequence_at`
    on the device): the sequences that start with a rank are total * its count / cards."""
    for rank in range(ranks):
        counts[rank] = suits
    left = total
    for at in range(cards):
        remaining = cards - at
        for rank in range(ranks):
            count = counts[rank]
            if count == 0:
                continue
            after = left * count // remaining
            if index < after:
                sequence[at] = rank
                counts[rank] = count - 1
                left = after
                break
            index -= after


@cuda.jit
def play_blocks(  # type: ignore[no-untyped-def]  # numba types it
    rules, first, count, per_thread, total, cards, ranks, suits, mirror, seatings, bits,
    keep, counters, battles_hist, wars_hist, longs, loops, kept, turned, best, found, each,
):  # fmt: skip
    """Play sequences `first` .. `first + count - 1`, `per_thread` to a thread, into the
    launch's counters, histograms and lists (the module's head says how)."""
    shared_counters = cuda.shared.array(COUNTERS, types.int64)
    shared_battles = cuda.shared.array(SHARED_BATTLES, types.int32)
    shared_wars = cuda.shared.array(SHARED_WARS, types.int32)
    t = cuda.threadIdx.x
    width = cuda.blockDim.x
    for i in range(t, COUNTERS, width):
        shared_counters[i] = 0
    for i in range(t, SHARED_BATTLES, width):
        shared_battles[i] = 0
    for i in range(t, SHARED_WARS, width):
        shared_wars[i] = 0
    cuda.syncthreads()

    # A local copy for the CPU's functions: on the simulator they take numpy arrays only.
    rules_here = cuda.local.array(RULES_SIZE, types.int64)
    for i in range(RULES_SIZE):
        rules_here[i] = rules[i]
    need, last_card, low, gather, limit, most_cards = packed_rules(rules_here)
    half = cards // 2
    store = cuda.local.array(MOST_CARDS, types.int64)
    counts = cuda.local.array(MOST_RANKS, types.int64)
    reasons = cuda.local.array(REASON_CODES, types.int64)
    for i in range(REASON_CODES):
        reasons[i] = 0
    sequence = store[:cards]
    games = battles_sum = wars_sum = most_battles = most_wars = wins0 = wins1 = 0
    start = first + (cuda.blockIdx.x * width + t) * per_thread
    # (No min() or max() on the device: numba's CUDA target cannot type their *args overload.)
    stop = start + per_thread if start + per_thread < first + count else first + count
    if start < stop:
        _unrank(start, sequence, counts, cards, ranks, suits, total)
    index = start
    while index < stop:
        play_it = True
        if mirror:
            for i in range(half):
                if sequence[i] != sequence[half + i]:
                    play_it = sequence[i] < sequence[half + i]
                    break
        row = index - first
        if play_it:
            p0 = pack(sequence, 0, half, bits)
            p1 = pack(sequence, half, cards - half, bits)
            p0, p1, s0, s1, winner, reason, battles, wars, length = play(
                p0, p1, half, cards - half, bits, need, last_card, low, gather, limit, most_cards
            )
            name0 = name1 = 0
            if reason == CYCLE:
                name0, name1 = loop_name(
                    p0, p1, s0, s1, length, bits, need, last_card, low, gather, seatings
                )
                at = cuda.atomic.add(found, F_LOOPS, 1)
                if at < loops.shape[0]:
                    loops[at, L_NAME0] = name0
                    loops[at, L_NAME1] = name1
                    loops[at, L_LENGTH] = length
                    loops[at, L_DEALS] = 1
                    loops[at, L_FIRST] = index
            else:
                games += 1
                battles_sum += battles
                wars_sum += wars
                if battles > most_battles:
                    most_battles = battles
                if wars > most_wars:
                    most_wars = wars
                if winner == 0:
                    wins0 += 1
                elif winner == 1:
                    wins1 += 1
                reasons[reason] += 1
                if battles < SHARED_BATTLES:
                    cuda.atomic.add(shared_battles, battles, 1)
                elif battles < BATTLE_BINS:
                    cuda.atomic.add(battles_hist, battles, 1)
                else:
                    at = cuda.atomic.add(found, F_LONGS, 1)
                    if at < longs.shape[0]:
                        longs[at, G_VALUE] = battles
                        longs[at, G_KIND] = 0
                if wars < SHARED_WARS:
                    cuda.atomic.add(shared_wars, wars, 1)
                elif wars < WAR_BINS:
                    cuda.atomic.add(wars_hist, wars, 1)
                else:
                    at = cuda.atomic.add(found, F_LONGS, 1)
                    if at < longs.shape[0]:
                        longs[at, G_VALUE] = wars
                        longs[at, G_KIND] = 1
                # A candidate for the longest deals: one at least as long as the best so far.
                floor = cuda.atomic.max(best, B_BATTLES, battles) if keep == 1 else best[B_BATTLES]
                if battles >= floor:
                    at = cuda.atomic.add(found, F_KEPT, 1)
                    if at < kept.shape[0]:
                        kept[at, REC_BATTLES] = battles
                        kept[at, REC_WARS] = wars
                        kept[at, REC_GAME] = index
                        kept[at, REC_WINNER] = winner
                        kept[at, REC_REASON] = reason
                up = battles + wars
                if up >= cuda.atomic.max(best, B_TURNED, up):
                    at = cuda.atomic.add(found, F_TURNED, 1)
                    if at < turned.shape[0]:
                        turned[at, 0] = up
                        turned[at, 1] = index
                        turned[at, 2] = battles
                        turned[at, 3] = wars
            if each.shape[0] > 0:
                each[row, E_PLAYED] = 1
                each[row, E_WINNER] = winner
                each[row, E_REASON] = reason
                each[row, E_BATTLES] = battles
                each[row, E_WARS] = wars
                each[row, E_LENGTH] = length
                each[row, E_NAME0] = name0
                each[row, E_NAME1] = name1
        elif each.shape[0] > 0:  # the mirror of a deal played: a row of zeros
            for i in range(each.shape[1]):
                each[row, i] = 0
        index += 1
        if index < stop:
            next_sequence(sequence)

    if games > 0:
        cuda.atomic.add(shared_counters, C_GAMES, games)
        cuda.atomic.add(shared_counters, C_BATTLES, battles_sum)
        cuda.atomic.add(shared_counters, C_WARS, wars_sum)
        cuda.atomic.max(shared_counters, C_MAX_BATTLES, most_battles)
        cuda.atomic.max(shared_counters, C_MAX_WARS, most_wars)
        cuda.atomic.add(shared_counters, C_WINS, wins0)
        cuda.atomic.add(shared_counters, C_WINS + 1, wins1)
        for i in range(REASON_CODES):
            if reasons[i] > 0:
                cuda.atomic.add(shared_counters, C_REASONS + i, reasons[i])
    cuda.syncthreads()

    # The block's counts into the launch's: a maximum as a maximum, the rest added.
    for i in range(t, COUNTERS, width):
        if i == C_MAX_BATTLES or i == C_MAX_WARS:
            cuda.atomic.max(counters, i, shared_counters[i])
        elif shared_counters[i] != 0:
            cuda.atomic.add(counters, i, shared_counters[i])
    for i in range(t, SHARED_BATTLES, width):
        if shared_battles[i] != 0:
            cuda.atomic.add(battles_hist, i, shared_battles[i])
    for i in range(t, SHARED_WARS, width):
        if shared_wars[i] != 0:
            cuda.atomic.add(wars_hist, i, shared_wars[i])
