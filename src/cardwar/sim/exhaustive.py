"""Every deal of a small deck, each played once: exact answers rather than estimates.

A deck of R ranks and S suits (`8x1`, `4x3`: ranks first) is every distinct sequence of its
ranks (suits never matter), in lexicographic order, numbered from 0; a sequence is dealt in two
halves, top card first, the first player taking `n // 2` cards. A range of those numbers is a
shard of the work: shards add up exactly, on threads, in batches or on a cluster.

Which deals are played (docs/findings.md says why each choice matters):

- An even deck under rules that treat both seats alike plays a deal and its mirror (the halves
  swapped) once: the sequences whose first half does not come after the second, by ranks, as
  Mathieu and Delahaye count. The mirror is then the same game with the seats swapped.
- An odd deck (halves of different sizes) plays every deal, and so does any deck under rules
  that do not treat the seats alike (`table` order, or `natural` with cards face down, where
  which seat laid a card first decides where it goes), since there a deal and its mirror are
  two different games. `every_sequence` plays every sequence of any deck.

Each deal is played to its end, or to a loop: with no battle limit a position that repeats
(by ranks) means the round never ends. A loop is counted with its length, and named by its
smallest position (over both seatings, where the seats are alike), so that `distinct_cycles`
holds each loop once with how many deals fall into it.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from cardwar.errors import RulesError
from cardwar.rules import Gather, Rules
from cardwar.sim.kernels import every_deal as E
from cardwar.sim.kernels.codes import REASONS, rules_array
from cardwar.sim.kernels.packed import bits_for, fits
from cardwar.sim.kernels.random_rounds import (
    BATTLE_BINS,
    COUNTERS,
    REC_BATTLES,
    REC_GAME,
    REC_REASON,
    REC_WARS,
    REC_WINNER,
    RECORD,
    WAR_BINS,
)
from cardwar.sim.tally import Tally, longest

MAX_SEQUENCES = 2**63 - 1  # the kernels count sequences in signed 64-bit integers
RANK_CODES = "23456789TJQKA"
SUIT_CODES = "CDHS"
LONGS = 1 << 16  # room a thread has for rounds longer than the histograms, between two calls


@dataclass(frozen=True, slots=True)
class SmallDeck:
    """R ranks (the lowest R: 2, 3, …) in S suits each."""

    ranks: int
    suits: int

    @classmethod
    def parse(cls, text: str) -> SmallDeck:
        """`RANKSxSUITS`, such as `8x1` or `4x3`; RulesError naming what is wrong otherwise."""
        match = re.fullmatch(r"\s*(\d{1,2})\s*[xX]\s*(\d{1,2})\s*", str(text))
        if match is None:
            raise RulesError(
                f"--enumerate {text!r}: write the deck as RANKSxSUITS, such as 8x1 or 4x3"
            )
        deck = cls(int(match[1]), int(match[2]))
        if not 1 <= deck.ranks <= 13 or not 1 <= deck.suits <= 4:
            raise RulesError(f"--enumerate {text}: 1 to 13 ranks in 1 to 4 suits")
        if deck.cards < 2:
            raise RulesError(f"--enumerate {text}: a deal needs at least 2 cards, one a player")
        if deck.sequences > MAX_SEQUENCES:
            raise RulesError(
                f"--enumerate {text}: {deck.sequences:,} deals do not fit in a 64-bit count "
                "(at most 2**63 - 1); the biggest decks that do are 13x1, 11x2, 8x3 and 6x4"
            )
        return deck

    @property
    def cards(self) -> int:
        """Cards in the deck."""
        return self.ranks * self.suits

    @property
    def half(self) -> int:
        """Cards the first player is dealt: `cards // 2`."""
        return self.cards // 2

    @property
    def sequences(self) -> int:
        """Distinct sequences of the deck's ranks."""
        return math.factorial(self.cards) // int(math.factorial(self.suits) ** self.ranks)

    @property
    def packed(self) -> bool:
        """True if a deal is played in registers, each pile one word (`kernels.packed`)."""
        return fits(self.cards, self.ranks)

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

    def deal_at(self, index: int) -> list[list[str]]:
        """The deal of sequence `index`: two piles of card codes, top first, each rank's suits
        given in the order its cards come (suits never matter)."""
        ranks = [int(rank) for rank in self.sequence_at(index)]
        return split_deal(ranks, self.half)

    def __str__(self) -> str:
        return f"{self.ranks}x{self.suits}"


def split_deal(ranks: list[int], half: int) -> list[list[str]]:
    """Ranks (0 for a two) as two piles of card codes, the first `half` long."""
    used = [0] * 13
    codes = []
    for rank in ranks:
        codes.append(RANK_CODES[rank] + SUIT_CODES[used[rank]])
        used[rank] += 1
    return [codes[:half], codes[half:]]


def _arrangements(counts: list[int]) -> int:
    arrangements = math.factorial(sum(counts))
    for count in counts:
        arrangements //= math.factorial(count)
    return arrangements


def seats_alike(rules: Rules) -> bool:
    """True if the rules treat both seats alike, so that a deal and its mirror are the same game
    with the seats swapped: the winner's cards first, or picked up as they lie with no card face
    down (then a war's two cards are of one rank, and which seat laid one first is no matter)."""
    return rules.gather is Gather.WINNER_FIRST or (
        rules.gather is Gather.NATURAL and rules.war_down == 0
    )


def mirrors_once(rules: Rules, deck: SmallDeck, every_sequence: bool = False) -> bool:
    """True if a deal and its mirror are played once: an even deck, rules with both seats alike,
    and not every sequence asked for."""
    return deck.cards % 2 == 0 and seats_alike(rules) and not every_sequence


def check_rules(rules: Rules) -> None:
    """RulesError unless `rules` can be enumerated: two players, a fixed return order, the whole
    deck dealt (a clock, which never runs out in a run, is left as it is)."""
    if rules.players != 2:
        raise RulesError("--enumerate: a deck is split in two halves, so players must be 2")
    if not rules.deterministic:
        raise RulesError(
            "--enumerate: plays each deal once, so the return order must be fixed "
            "(winner_first, table or natural), not shuffled"
        )
    if rules.hand_size is not None:
        raise RulesError(
            f"--enumerate: deals the whole deck, n // 2 cards to the first player, so hand_size "
            f"must be null, not {rules.hand_size} (a smaller deck is a smaller RANKSxSUITS)"
        )


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
class Exhaustive:
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

    def add(self, other: Exhaustive) -> None:
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
            "battles": int(row[REC_BATTLES]),
            "wars": int(row[REC_WARS]),
            "winner": None if row[REC_WINNER] < 0 else int(row[REC_WINNER]),
            "reason": REASONS[int(row[REC_REASON])].value,
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
    def from_state(cls, deck: SmallDeck, state: dict[str, Any]) -> Exhaustive:
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


SLICE = 1 << 20  # sequences a thread plays before the threads take their next slices


class Enumerator:
    """Plays ranges of a deck's sequences on `workers` threads, into tables that last from one
    range to the next (so a loop met again is known by its name at once), until `take()`
    empties them into an `Exhaustive`."""

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
        self._seen = np.zeros((parts, E.SEEN_ROWS, E.SEEN), np.int64)
        self._state = np.zeros((parts, E.STATE), np.int64)
        self._kept = np.full((parts, self._keep, RECORD), -1, np.int64)
        self._turned = np.full((parts, E.TURNED), -1, np.int64)
        self._listed = Tally()  # the rounds too long for the histograms, emptied from _longs
        self._sequences = 0

    def play(self, first: int, count: int, progress: Callable[[int], None] | None = None) -> None:
        """Play sequences `first` .. `first + count - 1` on every thread."""
        total = self.deck.sequences
        if not 0 <= first <= first + count <= total:
            raise RulesError(
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

    def take(self) -> Exhaustive:
        """Everything played since the last `take`, exactly; the tables start afresh."""
        out = Exhaustive(self.deck)
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
) -> Exhaustive:
    """Play sequences `first` .. `first + count - 1` of `deck` (all of them by default) on
    `workers` threads, keeping the `records` longest deals that end (at least the longest)."""
    enumerator = Enumerator(
        rules, deck, every_sequence=every_sequence, workers=workers, records=records
    )
    enumerator.play(first, deck.sequences - first if count is None else count, progress)
    return enumerator.take()
