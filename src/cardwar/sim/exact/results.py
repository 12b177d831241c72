"""What the deals of a small deck came to, exactly: the deals that ended (a tally), the loops by
name, and the deal with the most cards turned face up; results of ranges add up exactly.

Each deal is played to its end, or to a loop: with no battle limit a position that repeats
(by ranks) means the round never ends. A loop is counted with its length, and named by its
smallest position (over both seatings, where the seats are alike), so that `distinct_cycles`
holds each loop once with how many deals fall into it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardwar.sim.exact.deck import SmallDeck, split_deal
from cardwar.sim.exact.kernels import every_deal as E
from cardwar.sim.exact.kernels.packed import bits_for
from cardwar.sim.kernels.tally import (
    REC_GAME,
)
from cardwar.sim.tally import Tally, record_fields

LISTED_LOOPS = 1000  # distinct loops listed one by one; all of them are counted by length


def no_loops() -> np.ndarray:
    """An empty table of loops: rows of `every_deal.L_*` (name, length, deals, first deal)."""
    return np.zeros((0, E.LOOP), np.int64)


def merge_loops(*tables: np.ndarray) -> np.ndarray:
    """Tables of loops as one: each name once, its deals added, its first deal the earliest;
    rows sorted by name."""
    rows = np.concatenate(tables)
    if len(rows) == 0:
        return no_loops()
    order = np.lexsort((rows[:, E.L_NAME1], rows[:, E.L_NAME0]))
    rows = rows[order]
    new = np.ones(len(rows), np.bool_)
    new[1:] = (rows[1:, E.L_NAME0] != rows[:-1, E.L_NAME0]) | (
        rows[1:, E.L_NAME1] != rows[:-1, E.L_NAME1]
    )
    starts = np.flatnonzero(new)
    merged = rows[starts].copy()
    merged[:, E.L_DEALS] = np.add.reduceat(rows[:, E.L_DEALS], starts)
    merged[:, E.L_FIRST] = np.minimum.reduceat(rows[:, E.L_FIRST], starts)
    return merged


@dataclass
class ExactResults:
    """What the deals of a deck, or of a range of its sequences, came to: the deals that ended
    (a tally), the loops by name, and the deal with the most cards turned face up."""

    deck: SmallDeck
    ended: Tally = field(default_factory=Tally)
    loops: np.ndarray = field(default_factory=no_loops)
    """One row a loop, sorted by name: its name (two words), its length, the deals that fall
    into it and the first of them (`every_deal.L_*`)."""
    turned: list[int] = field(default_factory=lambda: [-1, -1, 0, 0])
    """The deal with the most cards turned face up: [turned, its index, battles, wars]."""
    sequences: int = 0
    """Sequences gone through (played, or skipped as the mirror of one played)."""

    def add(self, other: ExactResults) -> None:
        """Add another range of the same deck (exactly)."""
        self.ended.add(other.ended)
        if len(other.loops):
            self.loops = merge_loops(self.loops, other.loops)
        self.keep_turned(other.turned)
        self.sequences += other.sequences

    def keep_turned(self, turned: list[int]) -> None:
        """Keep `turned` if it turned more cards up (or as many, in an earlier deal)."""
        if turned[0] > self.turned[0] or (
            turned[0] == self.turned[0] >= 0 and turned[1] < self.turned[1]
        ):
            self.turned = list(turned)

    @property
    def cycles(self) -> int:
        """Deals that loop for ever."""
        return int(self.loops[:, E.L_DEALS].sum())

    @property
    def deals(self) -> int:
        """Deals played (a mirror once, where it is the same game)."""
        return self.ended.rounds + self.cycles

    def to_dict(self, *, histograms: bool = False) -> dict[str, Any]:
        """The figures as plain JSON values. Distinct loops are listed up to LISTED_LOOPS, those
        with the most deals first; all of them are counted by length."""
        deck = self.deck
        ended = self.ended.to_dict(2, histograms=histograms)
        loops = self.loops
        lengths, where = np.unique(loops[:, E.L_LENGTH], return_inverse=True)
        counts = np.bincount(where, minlength=len(lengths))
        deals = np.bincount(where, weights=loops[:, E.L_DEALS], minlength=len(lengths))
        order = np.lexsort(
            (loops[:, E.L_NAME1], loops[:, E.L_NAME0], loops[:, E.L_LENGTH], -loops[:, E.L_DEALS])
        )[:LISTED_LOOPS]
        out: dict[str, Any] = {
            "deck": str(deck),
            "rounds": self.deals,  # as in every `cardwar simulate` answer
            "deals": self.deals,
            "cycles": self.cycles,
            "distinct_cycle_count": len(loops),
            "distinct_cycles": [
                {
                    "length": int(loops[row, E.L_LENGTH]),
                    "deals": int(loops[row, E.L_DEALS]),
                    "position": self.position(
                        (int(loops[row, E.L_NAME0]), int(loops[row, E.L_NAME1]))
                    ),
                    "first_deal": int(loops[row, E.L_FIRST]),
                }
                for row in order
            ],
            "loop_lengths": [
                {"length": int(length), "loops": int(count), "deals": int(total)}
                for length, count, total in zip(lengths, counts, deals, strict=True)
            ],
            "ended": ended["rounds"],
            "wins": ended["wins"],
            "draws": ended["draws"],
            "reasons": ended["reasons"],
            "battles": ended["battles"],
            "wars_per_round": ended["wars_per_round"],
            "longest": self.record(0) if len(self.ended.records) else None,
            "most_turned_up": None
            if self.turned[0] < 0
            else {
                "turned_up": self.turned[0],
                "battles": self.turned[2],
                "wars": self.turned[3],
                "index": self.turned[1],
                "deal": deck.deal_at(self.turned[1]),
            },
        }
        if histograms:
            out["histograms"] = ended["histograms"]
        return out

    def record(self, at: int) -> dict[str, Any]:
        """The `at`-th longest deal that ended: battles, wars, outcome, its index, its deal."""
        row = self.ended.records[at]
        index = int(row[REC_GAME])
        return {
            **record_fields(row),
            "index": index,
            "deal": self.deck.deal_at(index),
        }

    def records(self) -> list[dict[str, Any]]:
        """Every longest deal kept, longest first."""
        return [self.record(at) for at in range(len(self.ended.records))]

    def position(self, name: tuple[int, int]) -> list[list[str]]:
        """A loop's named position as a deal (two piles of codes, top first) that plays it."""
        return split_deal(*_ranks_of(name, self.deck))

    def state(self) -> dict[str, Any]:
        """Every figure as plain JSON values (a checkpoint), restored by `from_state`; the loops
        as the base64 of their table's bytes, which may hold millions of them."""
        return {
            "ended": self.ended.state(),
            "loops": base64.b64encode(self.loops.astype("<i8").tobytes()).decode("ascii"),
            "turned": self.turned,
            "sequences": self.sequences,
        }

    @classmethod
    def from_state(cls, deck: SmallDeck, state: dict[str, Any]) -> ExactResults:
        """The figures that `state()` wrote."""
        loops = np.frombuffer(base64.b64decode(state["loops"]), "<i8").astype(np.int64)
        return cls(
            deck,
            Tally.from_state(state["ended"]),
            loops.reshape(-1, E.LOOP),
            list(state["turned"]),
            state["sequences"],
        )


def _ranks_of(name: tuple[int, int], deck: SmallDeck) -> tuple[list[int], int]:
    """A loop's name (a position as `every_deal` writes it) as ranks, and the first pile's size."""
    b = bits_for(deck.ranks)
    mask = (1 << b) - 1
    if deck.packed:  # one word a pile, rank + 1 from the low bits
        piles = []
        for word in name:
            pile = []
            while word:
                pile.append((word & mask) - 1)
                word >>= b
            piles.append(pile)
        return piles[0] + piles[1], len(piles[0])
    # the first seat's count, then every card (`every_deal._ring_name`)
    first, rest = name
    size = first & 31
    room = (63 - 5) // b
    ranks = [((first >> (5 + b * i)) & mask) - 1 for i in range(room)]
    ranks += [((rest >> (b * i)) & mask) - 1 for i in range(deck.cards - room)]
    return ranks[: deck.cards], size
