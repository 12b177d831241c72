"""Every deal of a small deck, each played once: exact answers rather than estimates.

A deck of R ranks and S suits (`8x1`, `4x3`) is every distinct sequence of its ranks (suits never
matter), split into two halves, top card first. A deal and its mirror (the halves swapped) are
played once: only sequences whose first half does not come after the second, by ranks. This is
how Delahaye and Mathieu count deals (Pour la Science 565, 2024), so the figures can be set side
by side.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardwar.errors import RulesError
from cardwar.rules import Rules
from cardwar.sim.kernels.codes import rules_array
from cardwar.sim.kernels.sequences import play_sequences
from cardwar.sim.tally import Tally

MAX_SEQUENCES = 50_000_000  # about two minutes here for the longest of these decks
BATCH = 200_000


@dataclass(frozen=True, slots=True)
class SmallDeck:
    """R ranks (the lowest R: 2, 3, …) in S suits each."""

    ranks: int
    suits: int

    @classmethod
    def parse(cls, text: str) -> SmallDeck:
        """`RANKSxSUITS`, such as `8x1` or `4x3`; RulesError naming what is wrong otherwise."""
        match = re.fullmatch(r"\s*(\d{1,2})\s*[xX]\s*(\d)\s*", str(text))
        if match is None:
            raise RulesError(
                f"--enumerate {text!r}: write the deck as RANKSxSUITS, such as 8x1 or 4x3"
            )
        deck = cls(int(match[1]), int(match[2]))
        if not 1 <= deck.ranks <= 13 or not 1 <= deck.suits <= 4:
            raise RulesError(f"--enumerate {text}: 1 to 13 ranks in 1 to 4 suits")
        if deck.cards % 2:
            raise RulesError(f"--enumerate {text}: {deck.cards} cards cannot be split in halves")
        if deck.sequences > MAX_SEQUENCES:
            raise RulesError(
                f"--enumerate {text}: {deck.sequences:,} deals is too many to finish here "
                f"(at most {MAX_SEQUENCES:,}); try a smaller deck, or simulate instead"
            )
        return deck

    @property
    def cards(self) -> int:
        """Cards in the deck."""
        return self.ranks * self.suits

    @property
    def sequences(self) -> int:
        """Distinct sequences of the deck's ranks."""
        return math.factorial(self.cards) // int(math.factorial(self.suits) ** self.ranks)

    def sequence_at(self, index: int) -> np.ndarray:
        """The `index`-th sequence in lexicographic order (ranks 0 .. R-1)."""
        if not 0 <= index < self.sequences:
            raise RulesError(f"sequence {index}: must be 0 to {self.sequences - 1}")
        counts = [self.suits] * self.ranks
        sequence = []
        for _ in range(self.cards):
            for rank in range(self.ranks):
                if counts[rank] == 0:
                    continue
                counts[rank] -= 1
                after = _arrangements(counts)
                if index < after:
                    sequence.append(rank)
                    break
                index -= after
                counts[rank] += 1
        return np.array(sequence, np.int64)

    def __str__(self) -> str:
        return f"{self.ranks}x{self.suits}"


def _arrangements(counts: list[int]) -> int:
    arrangements = math.factorial(sum(counts))
    for count in counts:
        arrangements //= math.factorial(count)
    return arrangements


@dataclass
class Exhaustive:
    """What every deal of a deck (or a range of its sequences) came to."""

    deck: SmallDeck
    ended: Tally = field(default_factory=Tally)
    loops: dict[bytes, int] = field(default_factory=dict)  # a loop's smallest position: length
    cycles: int = 0

    def add(self, other: Exhaustive) -> None:
        """Add another range of the same deck (exactly)."""
        self.ended.add(other.ended)
        self.loops.update(other.loops)
        self.cycles += other.cycles

    @property
    def deals(self) -> int:
        """Deals played (mirrors once)."""
        return self.ended.games + self.cycles

    def to_dict(self) -> dict[str, Any]:
        """The figures as plain JSON values."""
        lengths: dict[int, int] = {}
        for length in self.loops.values():
            lengths[length] = lengths.get(length, 0) + 1
        ended = self.ended.to_dict(2)
        return {
            "deck": str(self.deck),
            "games": self.deals,  # as every `cardwar simulate` answer (README's command line)
            "deals": self.deals,
            "cycles": self.cycles,
            "distinct_cycles": [
                {"length": length, "count": count} for length, count in sorted(lengths.items())
            ],
            "ended": ended["games"],
            "wins": ended["wins"],
            "draws": ended["draws"],
            "reasons": ended["reasons"],
            "battles": ended["battles"],
            "wars_per_round": ended["wars_per_round"],
        }


def play_every_deal(
    rules: Rules,
    deck: SmallDeck,
    *,
    first: int = 0,
    count: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Exhaustive:
    """Play sequences `first` .. `first + count - 1` of `deck` (all of them by default)."""
    if rules.players != 2:
        raise RulesError("--enumerate: a deck is split in two halves, so players must be 2")
    total = deck.sequences
    count = total - first if count is None else count
    if not 0 <= first <= first + count <= total:
        raise RulesError(f"sequences {first}..{first + count - 1}: must lie within 0..{total - 1}")
    array = rules_array(rules)
    out = Exhaustive(deck)
    if count == 0:
        return out
    ranks = deck.sequence_at(first)
    done = 0
    while done < count:
        size = min(BATCH, count - done)
        tally = Tally()
        keys = np.zeros((size, deck.cards + 2), np.int64)
        lengths = np.zeros(size, np.int64)
        loops = play_sequences(
            array, ranks, size, tally.counters, tally.battles, tally.wars, keys, lengths
        )
        out.ended.add(tally)
        out.cycles += loops
        for row in range(loops):
            out.loops[keys[row].astype(np.int8).tobytes()] = int(lengths[row])
        done += size
        if progress is not None:
            progress(size)
    return out
