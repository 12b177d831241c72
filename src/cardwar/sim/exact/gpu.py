"""Every deal of a small deck on a CUDA GPU (`cardwar simulate --enumerate … --device cuda`): the
same figures as `driver.ExactSession` on the CPU, played by `kernels.gpu` in launches of a few
million sequences, each launch's counts and lists added up here exactly.

`numba.cuda` is imported by the functions here, never when this module or the CPU path is
imported: a machine with no GPU pays nothing for it, and says so in one line (`require_cuda`).
Only packed decks are played on the GPU (a pile in one word: every one-suit deck, and four
suits of up to five ranks, `deck.SmallDeck.packed`); any rule set that the exact CPU kernel
plays is played here too.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from cardwar.rules import Rules
from cardwar.sim.errors import DeckError, DeviceError
from cardwar.sim.exact.checkpoint import Checkpoint
from cardwar.sim.exact.deck import SmallDeck, check_rules, mirrors_once, seats_alike
from cardwar.sim.exact.kernels.each_deal import EACH
from cardwar.sim.exact.kernels.every_deal import LOOP
from cardwar.sim.exact.kernels.packed import bits_for
from cardwar.sim.exact.results import ExactResults, merge_loops, no_loops
from cardwar.sim.kernels.codes import rules_array
from cardwar.sim.kernels.tally import BATTLE_BINS, COUNTERS, REC_BATTLES, RECORD, WAR_BINS
from cardwar.sim.tally import Tally, longest

THREADS = 128  # a block's threads
PER_THREAD = 16  # sequences a thread plays in a launch, found from its number once
LAUNCH = 1 << 22  # sequences a launch plays at most
LIST_ROWS = 1 << 14  # rows of each list of candidates a launch fills (`kernels.gpu`)
BATCH_SECONDS = 2.0  # a batch of a job takes about this long (as `job.run_job`'s)
SAVE_SECONDS = 30.0  # at most this long between two saves of the checkpoint (as there)


def cuda_present() -> bool:
    """True if numba finds a CUDA device here (or its simulator, `NUMBA_ENABLE_CUDASIM=1`)."""
    from numba import cuda

    return bool(cuda.is_available())  # type: ignore[no-untyped-call]  # numba.cuda is untyped


def require_cuda() -> None:
    """DeviceError, in one line, unless a CUDA device is present."""
    if not cuda_present():
        raise DeviceError(
            "device cuda: no CUDA device here (numba.cuda.is_available() is false: no NVIDIA "
            "GPU, or no CUDA driver); leave it out to play on the CPU"
        )


def check_packed(deck: SmallDeck) -> None:
    """DeckError unless the GPU kernel plays `deck`: its piles must pack in one word."""
    if not deck.packed:
        raise DeckError(
            f"deck {deck}: --device cuda plays decks whose piles pack in one 64-bit word "
            "(cards x bits a card at most 63: one suit of up to 13 ranks, 2 suits of up to 7, "
            "3 of up to 7, 4 of up to 5); play it on the CPU"
        )


class GpuSession:
    """`driver.ExactSession` on a CUDA GPU: ranges of a deck's sequences played into figures that
    last until `take()`. The launch's shape can be made small (tests, on the simulator)."""

    def __init__(
        self, rules: Rules, deck: SmallDeck, *, every_sequence: bool = False, records: int = 1,
        threads: int = THREADS, per_thread: int = PER_THREAD, launch: int = LAUNCH,
        list_rows: int = LIST_ROWS,
    ) -> None:  # fmt: skip
        check_rules(rules)
        check_packed(deck)
        require_cuda()
        from numba import cuda

        from cardwar.sim.exact.kernels import gpu

        self._cuda, self._kernel = cuda, gpu
        self.rules, self.deck = rules, deck
        self._keep = max(1, records)
        self._rules = cuda.to_device(rules_array(rules))
        self._mirror = mirrors_once(rules, deck, every_sequence)
        self._seatings = seats_alike(rules)
        self._threads, self._per_thread, self._launch = threads, per_thread, launch
        self._lists = {
            name: cuda.device_array((max(1, rows), width), np.int64)
            for name, rows, width in (
                ("longs", list_rows, gpu.LONG), ("loops", launch, LOOP),
                ("kept", list_rows, RECORD), ("turned", list_rows, gpu.TURNED),
            )
        }  # fmt: skip
        self._no_each = cuda.device_array((0, EACH), np.int64)
        self._found = self._fresh()

    def _fresh(self) -> ExactResults:
        found = ExactResults(self.deck)
        found.ended.keep = self._keep
        return found

    def play(self, first: int, count: int, progress: Callable[[int], None] | None = None) -> None:
        """Play sequences `first` .. `first + count - 1`, a launch at a time."""
        total = self.deck.sequences
        if not 0 <= first <= first + count <= total:
            raise DeckError(
                f"sequences {first}..{first + count - 1}: must lie within 0..{total - 1}"
            )
        for start in range(first, first + count, self._launch):
            size = min(self._launch, first + count - start)
            self._play_piece(start, size)
            if progress is not None:
                progress(size)

    def _play_piece(self, first: int, count: int, each: Any = None) -> None:
        """One launch, or two of half the size if one of its lists ran full."""
        found = self._run(first, count, each)
        if found is not None:
            self._found.add(found)
            return
        half = count // 2
        self._play_piece(first, half, None if each is None else each[:half])
        self._play_piece(first + half, count - half, None if each is None else each[half:])

    def each(self, first: int, count: int) -> np.ndarray:
        """What each of sequences `first` .. `first + count - 1` came to, a row each
        (`kernels.each_deal.E_*`), played by the kernel that tallies them, as `play` plays
        them. Their figures are added to the session's, as `play` adds them."""
        rows = self._cuda.device_array((count, EACH), np.int64)
        for start in range(first, first + count, self._launch):
            size = min(self._launch, first + count - start)
            self._play_piece(start, size, rows[start - first : start - first + size])
        return np.asarray(rows.copy_to_host())

    def _run(self, first: int, count: int, each: Any = None) -> ExactResults | None:
        """Launch the kernel on one range; its figures, or None if one of its lists ran full."""
        cuda, gpu = self._cuda, self._kernel
        ended = self._found.ended
        best = np.full(gpu.BEST, -1, np.int64)
        if len(ended.records) >= self._keep:
            best[gpu.B_BATTLES] = ended.records[self._keep - 1, REC_BATTLES]
        best[gpu.B_TURNED] = self._found.turned[0]
        device = {
            "counters": np.zeros(COUNTERS, np.int64), "battles": np.zeros(BATTLE_BINS, np.int64),
            "wars": np.zeros(WAR_BINS, np.int64), "best": best,
            "found": np.zeros(gpu.FOUND, np.int64),
        }  # fmt: skip
        on = {name: cuda.to_device(array) for name, array in device.items()}
        lists = self._lists
        deck = self.deck
        span = self._threads * self._per_thread
        gpu.play_blocks[-(-count // span), self._threads](
            self._rules, first, count, self._per_thread, deck.sequences, deck.cards, deck.ranks,
            deck.suits, self._mirror, self._seatings, bits_for(deck.ranks), self._keep,
            on["counters"], on["battles"], on["wars"], lists["longs"], lists["loops"],
            lists["kept"], lists["turned"], on["best"], on["found"],
            self._no_each if each is None else each,
        )  # fmt: skip
        filled = on["found"].copy_to_host()
        rows = {"longs": gpu.F_LONGS, "loops": gpu.F_LOOPS, "kept": gpu.F_KEPT,
                "turned": gpu.F_TURNED}  # fmt: skip
        if any(filled[at] > lists[name].shape[0] for name, at in rows.items()):
            return None
        got = {
            name: lists[name][: filled[at]].copy_to_host()
            if filled[at]
            else np.zeros((0, lists[name].shape[1]), np.int64)
            for name, at in rows.items()
        }
        return self._figures(count, {name: on[name].copy_to_host() for name in on}, got)

    def _figures(
        self, count: int, totals: dict[str, np.ndarray], got: dict[str, np.ndarray]
    ) -> ExactResults:
        """One launch's figures as `ExactResults`."""
        gpu = self._kernel
        ended = Tally(totals["counters"], totals["battles"], totals["wars"], keep=self._keep)
        longs = got["longs"]
        ended.long_battles = Counter(longs[longs[:, gpu.G_KIND] == 0, gpu.G_VALUE].tolist())
        ended.long_wars = Counter(longs[longs[:, gpu.G_KIND] == 1, gpu.G_VALUE].tolist())
        ended.records = longest(got["kept"], self._keep)
        found = ExactResults(self.deck, ended)
        found.loops = merge_loops(got["loops"]) if len(got["loops"]) else no_loops()
        for row in got["turned"].tolist():
            found.keep_turned(row)
        found.sequences = count
        return found

    def take(self) -> ExactResults:
        """Everything played since the last `take`, exactly; the figures start afresh."""
        found, self._found = self._found, self._fresh()
        return found


def play_every_deal_on_gpu(
    rules: Rules,
    deck: SmallDeck,
    *,
    first: int = 0,
    count: int | None = None,
    every_sequence: bool = False,
    records: int = 1,
    **shape: int,
) -> ExactResults:
    """`driver.play_every_deal` on a CUDA GPU: sequences `first` .. `first + count - 1` (all of
    them by default); `shape` as `GpuSession` takes it."""
    session = GpuSession(rules, deck, every_sequence=every_sequence, records=records, **shape)
    session.play(first, deck.sequences - first if count is None else count)
    return session.take()


def run_gpu_job(
    checkpoint: Checkpoint,
    *,
    progress: Callable[[int], None] | None = None,
    stopping: Callable[[], bool] = lambda: False,
) -> Checkpoint:
    """`job.run_job` on a CUDA GPU: what is left of the checkpoint's job, in batches of about
    BATCH_SECONDS, the checkpoint saved every SAVE_SECONDS and at the end, until done or
    `stopping()` (checked between batches)."""
    job = checkpoint.job
    session = GpuSession(
        job.rules, job.deck, every_sequence=job.every_sequence, records=job.records
    )
    size = LAUNCH
    saved = time.monotonic()
    for first, stop in checkpoint.remaining():
        at = first
        while at < stop:
            if stopping():
                checkpoint.save()
                return checkpoint
            count = min(size, stop - at)
            started = time.perf_counter()
            session.play(at, count)
            took = time.perf_counter() - started
            checkpoint.finish([(at, at + count)], session.take(), took)
            if time.monotonic() - saved > SAVE_SECONDS:
                checkpoint.save()
                saved = time.monotonic()
            at += count
            if progress is not None:
                progress(count)
            size = max(LAUNCH, min(4 * count, int(count * BATCH_SECONDS / max(took, 1e-3))))
    checkpoint.save()
    return checkpoint
