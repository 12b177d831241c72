"""A small deck for exact answers: R ranks in S suits (`8x1`, `4x3`: ranks first), its deals
numbered, and which of them are played under which rules.

A deck is every distinct sequence of its ranks (suits never matter), in lexicographic order,
numbered from 0; a sequence is dealt in two halves, top card first, the first player taking
`n // 2` cards. A range of those numbers is a shard of the work: shards add up exactly, on
threads, in batches or on a cluster.

Which deals are played (docs/findings.md says why each choice matters):

- An even deck under rules that treat both seats alike plays a deal and its mirror (the halves
  swapped) once: the sequences whose first half does not come after the second, by ranks, as
  Mathieu and Delahaye count. The mirror is then the same game with the seats swapped.
- An odd deck (halves of different sizes) plays every deal, and so does any deck under rules
  that do not treat the seats alike (`table` order, or `natural` with cards face down, where
  which seat laid a card first decides where it goes), since there a deal and its mirror are
  two different games. `every_sequence` plays every sequence of any deck.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from cardwar.errors import RulesError
from cardwar.rules import Gather, Rules
from cardwar.sim.errors import DeckError
from cardwar.sim.exact.kernels.packed import fits

MAX_SEQUENCES = 2**63 - 1  # the kernels count sequences in signed 64-bit integers
RANK_CODES = "23456789TJQKA"
SUIT_CODES = "CDHS"


@dataclass(frozen=True, slots=True)
class SmallDeck:
    """R ranks (the lowest R: 2, 3, …) in S suits each."""

    ranks: int
    suits: int

    @classmethod
    def parse(cls, text: str) -> SmallDeck:
        """`RANKSxSUITS`, such as `8x1` or `4x3`; DeckError naming what is wrong otherwise."""
        match = re.fullmatch(r"\s*(\d{1,2})\s*[xX]\s*(\d{1,2})\s*", str(text))
        if match is None:
            raise DeckError(f"deck {text!r}: write the deck as RANKSxSUITS, such as 8x1 or 4x3")
        deck = cls(int(match[1]), int(match[2]))
        if not 1 <= deck.ranks <= 13 or not 1 <= deck.suits <= 4:
            raise DeckError(f"deck {text}: 1 to 13 ranks in 1 to 4 suits")
        if deck.cards < 2:
            raise DeckError(f"deck {text}: a deal needs at least 2 cards, one a player")
        if deck.sequences > MAX_SEQUENCES:
            raise DeckError(
                f"deck {text}: {deck.sequences:,} deals do not fit in a 64-bit count "
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
            raise DeckError(f"sequence {index}: must be 0 to {self.sequences - 1}")
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
        raise RulesError("deck: a deck is split in two halves, so players must be 2")
    if not rules.deterministic:
        raise RulesError(
            "deck: plays each deal once, so the return order must be fixed "
            "(winner_first, table or natural), not shuffled"
        )
    if rules.hand_size is not None:
        raise RulesError(
            f"deck: deals the whole deck, n // 2 cards to the first player, so hand_size "
            f"must be null, not {rules.hand_size} (a smaller deck is a smaller RANKSxSUITS)"
        )
