"""Explicit deals from a file of JSON lines, played on the fast simulator in bulk: the file's
bytes are read, the deals played and the results written by the kernels of `kernels.lines`,
a batch of lines at a time on every core, at a quarter to a third of a random run's pace
(benchmarks/README.md: the JSON in and out is the rest). A line those kernels do not take is
read here, as `cardwar.engine.parse_deal` reads a deal, and either played or refused, naming
its line and its problem."""

from __future__ import annotations

import json
from collections.abc import Callable

import numba
import numpy as np

from cardwar.cards import INDEX
from cardwar.engine import check_seed, parse_deal
from cardwar.errors import CardwarError, DealError
from cardwar.rules import Rules
from cardwar.sim.errors import DealsFileError
from cardwar.sim.kernels.codes import REASONS, rules_array
from cardwar.sim.runs.kernels import lines as L

LINES = 1 << 15  # lines in a batch


def _reason_names() -> tuple[np.ndarray, np.ndarray]:
    names = [reason.value.encode() for reason in REASONS]
    table = np.zeros((len(names), max(map(len, names))), np.uint8)
    for at, name in enumerate(names):
        table[at, : len(name)] = np.frombuffer(name, np.uint8)
    return table, np.array([len(name) for name in names], np.int64)


def play_deal_lines(
    rules: Rules, data: bytes, write: Callable[[str], object], *, seed: int = 0,
    workers: int | None = None,
) -> int:  # fmt: skip
    """Play every deal of `data` (one JSON deal a line, one pile per seat, top card first) and
    `write` one JSON result a line for each, in order; returns the battles played. A line that
    is not a deal for these rules raises DealsFileError naming it, after the results before it."""
    check_seed(seed)
    array = rules_array(rules)
    workers = workers or int(numba.get_num_threads())
    numba.set_num_threads(workers)
    reasons, lengths = _reason_names()
    buf = np.frombuffer(data, np.uint8)
    breaks = np.flatnonzero(buf == ord("\n"))
    starts = np.concatenate([[0], breaks + 1]).astype(np.int64)
    ends = np.concatenate([breaks, [len(buf)]]).astype(np.int64)
    if len(buf) and buf[-1] == ord("\n"):  # no line after the last newline
        starts, ends = starts[:-1], ends[:-1]
    battles_played = 0
    for first in range(0, len(starts), LINES):
        lo, hi = starts[first : first + LINES], ends[first : first + LINES]
        count = len(lo)
        kinds = np.zeros(count, np.int64)
        deals = np.zeros((count, L.DEAL_ROW), np.int64)
        out = np.zeros((count, L.RESULT_ROOM), np.uint8)
        sizes = np.zeros(count, np.int64)
        battles = np.zeros(count, np.int64)
        L.play_lines(
            array, buf, lo, hi, seed, first, reasons, lengths, kinds, deals, out, sizes,
            battles, min(workers, count),
        )  # fmt: skip
        failed: DealsFileError | None = None
        for at in np.flatnonzero(kinds == L.OTHER):
            number = first + int(at) + 1
            try:
                row = _read(bytes(data[lo[at] : hi[at]]), rules.players)
            except CardwarError as error:
                failed = DealsFileError(f"deals line {number}: {error}")
                kinds[at:] = L.BLANK  # nothing from here on is written
                break
            deals[at] = row
            sizes[at], battles[at] = L.play_row(
                array, row, seed, first + int(at), reasons, lengths, out[at]
            )
        kept = np.arange(L.RESULT_ROOM) < np.where(kinds == L.BLANK, 0, sizes)[:, None]
        write(out[kept].tobytes().decode("ascii"))
        battles_played += int(battles[kinds != L.BLANK].sum())
        if failed is not None:
            raise failed
    return battles_played


def _read(line: bytes, players: int) -> np.ndarray:
    """A line the kernels did not take, read as `cardwar.engine.parse_deal` reads a deal."""
    try:
        deal = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DealError(f"not valid JSON ({error})") from None
    piles = parse_deal(deal, players)
    row = np.zeros(L.DEAL_ROW, np.int64)
    cards = [INDEX[card] for pile in piles for card in pile]
    row[: len(cards)] = cards
    row[L.SIZES : L.SIZES + len(piles)] = [len(pile) for pile in piles]
    return row
