"""Every deal of a small deck, each played once, on every core: ranges of its sequences played
into tables that last from one range to the next, taken out as `ExactResults`."""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from cardwar.rules import Rules
from cardwar.sim.errors import DeckError
from cardwar.sim.exact.deck import SmallDeck, check_rules, mirrors_once, seats_alike
from cardwar.sim.exact.kernels import every_deal as E
from cardwar.sim.exact.kernels.each_deal import EACH, play_each_in_range
from cardwar.sim.exact.kernels.packed import bits_for
from cardwar.sim.exact.results import ExactResults, merge_loops
from cardwar.sim.kernels.codes import rules_array
from cardwar.sim.kernels.tally import (
    BATTLE_BINS,
    COUNTERS,
    RECORD,
    WAR_BINS,
)
from cardwar.sim.tally import Tally, longest

LONGS = 1 << 16  # room a thread has for rounds longer than the histograms, between two calls
SLICE = 1 << 20  # sequences a thread plays before the threads take their next slices


class ExactSession:
    """Plays ranges of a deck's sequences on `workers` threads, into tables that last from one
    range to the next (so a loop met again is known by its name at once), until `take()`
    empties them into an `ExactResults`."""

    def __init__(
        self,
        rules: Rules,
        deck: SmallDeck,
        *,
        every_sequence: bool = False,
        workers: int | None = None,
        records: int = 1,
    ) -> None:
        check_rules(rules)
        self.rules, self.deck = rules, deck
        self.workers = workers or int(numba.get_num_threads())
        self._array = rules_array(rules)
        self._mirror = mirrors_once(rules, deck, every_sequence)
        self._seatings = seats_alike(rules)
        self._bits = bits_for(deck.ranks)
        self._keep = max(1, records)
        parts = self.workers
        self._counters = np.zeros((parts, COUNTERS), np.int64)
        self._battles = np.zeros((parts, BATTLE_BINS), np.int64)
        self._wars = np.zeros((parts, WAR_BINS), np.int64)
        self._longs = np.zeros((parts, LONGS), np.int64)
        self._loops = np.zeros((parts, E.LOOP_ROWS, E.LOOP), np.int64)
        # (a packed deck names its loops without the cache: every_deal's `seen`)
        seen_rows = 1 if deck.packed else E.SEEN_ROWS
        self._seen = np.zeros((parts, seen_rows, E.SEEN), np.int64)
        self._state = np.zeros((parts, E.STATE), np.int64)
        self._kept = np.full((parts, self._keep, RECORD), -1, np.int64)
        self._turned = np.full((parts, E.TURNED), -1, np.int64)
        self._listed = Tally()  # the rounds too long for the histograms, emptied from _longs
        self._sequences = 0

    def play(self, first: int, count: int, progress: Callable[[int], None] | None = None) -> None:
        """Play sequences `first` .. `first + count - 1` on every thread."""
        total = self.deck.sequences
        if not 0 <= first <= first + count <= total:
            raise DeckError(
                f"sequences {first}..{first + count - 1}: must lie within 0..{total - 1}"
            )
        numba.set_num_threads(self.workers)
        # The threads play neighbouring slices side by side, a slice each, then the next ones:
        # with a deal and its mirror played once, the deals played crowd the start of the order
        # (a first half before the second), and two halves of a long range would leave one
        # thread with most of the work.
        width = max(1, min(SLICE, -(-count // self.workers))) * self.workers
        for start in range(first, first + count, width):
            self._play_slices(start, min(width, first + count - start), progress)

    def _play_slices(self, first: int, count: int, progress: Callable[[int], None] | None) -> None:
        """Play sequences `first` .. `first + count - 1`, a slice a thread."""
        total = self.deck.sequences
        parts = self.workers
        bounds = [first + count * part // parts for part in range(parts + 1)]
        ranks = np.stack(
            [self.deck.sequence_at(min(bounds[part], total - 1)) for part in range(parts)]
        )
        indices = np.array(bounds[:-1], np.int64)
        left = np.diff(np.array(bounds, np.int64))
        done = np.zeros(parts, np.int64)
        while left.sum() > 0:
            E.play_ranges(
                self._array, ranks, indices, left, self._mirror, self._seatings, self._bits,
                self.deck.packed, self._counters, self._battles, self._wars, self._longs,
                self._loops, self._seen, self._state, self._kept, self._turned, done,
            )  # fmt: skip
            # Empty what a thread may have filled; a loop table half full is made twice as big.
            self._listed.add_longs(self._longs)
            self._longs[:] = 0
            if (self._state[:, E.ST_LOOPS] >= self._loops.shape[1] // 2).any():
                bigger = np.zeros((parts, 2 * self._loops.shape[1], E.LOOP), np.int64)
                for part in range(parts):
                    E.regrow(self._loops[part], bigger[part], self._state[part])
                self._loops = bigger
                self._seen[:] = 0  # it names rows of the old table
            indices += done
            left -= done
            self._sequences += int(done.sum())
            if progress is not None:
                progress(int(done.sum()))

    def take(self) -> ExactResults:
        """Everything played since the last `take`, exactly; the tables start afresh."""
        out = ExactResults(self.deck)
        out.ended = Tally.of_rows(self._counters, self._battles, self._wars, self._longs)
        out.ended.add(self._listed)
        out.ended.keep = self._keep
        out.ended.records = longest(self._kept.reshape(-1, RECORD), self._keep)
        used = [table[table[:, E.L_LENGTH] != 0] for table in self._loops]
        out.loops = merge_loops(*used)
        for turned in self._turned.tolist():
            out.keep_turned(turned)
        out.sequences = self._sequences
        for table in (self._counters, self._battles, self._wars, self._loops, self._seen,
                      self._state):  # fmt: skip
            table[:] = 0
        self._kept[:] = -1
        self._turned[:] = -1
        self._listed = Tally()
        self._sequences = 0
        return out


def play_every_deal(
    rules: Rules,
    deck: SmallDeck,
    *,
    first: int = 0,
    count: int | None = None,
    every_sequence: bool = False,
    workers: int | None = None,
    records: int = 1,
    progress: Callable[[int], None] | None = None,
) -> ExactResults:
    """Play sequences `first` .. `first + count - 1` of `deck` (all of them by default) on
    `workers` threads, keeping the `records` longest deals that end (at least the longest)."""
    session = ExactSession(
        rules, deck, every_sequence=every_sequence, workers=workers, records=records
    )
    session.play(first, deck.sequences - first if count is None else count, progress)
    return session.take()


def play_each_deal(
    rules: Rules, deck: SmallDeck, first: int, count: int, *, every_sequence: bool = False
) -> np.ndarray:
    """What each of sequences `first` .. `first + count - 1` of a packed deck came to, a row
    each (`kernels.each_deal.E_*`), on one core: the CPU's answer deal by deal, which the GPU
    kernel's (`gpu.GpuSession.each`) must equal."""
    check_rules(rules)
    if not deck.packed or not 0 <= first <= first + count <= deck.sequences:
        raise DeckError(f"deck {deck}: deal by deal only on a packed deck, within its sequences")
    out = np.zeros((count, EACH), np.int64)
    if count:
        play_each_in_range(
            rules_array(rules), deck.sequence_at(first), count,
            mirrors_once(rules, deck, every_sequence), seats_alike(rules),
            bits_for(deck.ranks), out,
        )  # fmt: skip
    return out
