"""The cards each seat starts with, for "what if I start with these cards?" runs (`cardwar
simulate --hands`): one entry per seat, a list of card codes or "rest" (the cards no other seat
names, at most one seat). Every round deals those hands, each in a fresh random order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardwar.cards import DECK, INDEX, Card
from cardwar.errors import CardError, quote
from cardwar.sim.errors import HandsError

REST = "rest"


@dataclass(frozen=True, slots=True)
class Hands:
    """Each seat's cards, as card indices (`cardwar.cards.INDEX`)."""

    seats: tuple[tuple[int, ...], ...]

    @classmethod
    def parse(cls, data: Any, players: int) -> Hands:
        """Hands from their JSON value, checked: one entry per seat, known cards, none twice,
        at most one "rest", and no seat left without a card. HandsError naming the problem."""
        if isinstance(data, str | bytes) or not isinstance(data, Sequence):
            raise HandsError(
                "hands: must be a list with one entry per seat, each a list of card codes or "
                '"rest", such as [["AS", "AH", "AD", "AC"], "rest"]'
            )
        if len(data) != players:
            raise HandsError(f"hands: has {len(data)} seats but the rules have players={players}")
        named: dict[Card, int] = {}
        rest: int | None = None
        seats: list[list[Card] | None] = []
        for seat, entry in enumerate(data):
            if entry == REST:
                if rest is not None:
                    raise HandsError(
                        f'hands: seats {rest} and {seat} both take "rest"; at most one may'
                    )
                rest = seat
                seats.append(None)
                continue
            if isinstance(entry, str | bytes) or not isinstance(entry, Sequence):
                raise HandsError(
                    f'hands: seat {seat} must be a list of card codes or "rest", not {quote(entry)}'
                )
            cards = []
            for code in entry:
                try:
                    card = Card.parse(code)
                except CardError as error:
                    raise HandsError(f"hands: seat {seat}: {error}") from None
                if card in named:
                    raise HandsError(
                        f"hands: card {card.code} is named twice "
                        f"(seat {named[card]} and seat {seat})"
                    )
                named[card] = seat
                cards.append(card)
            if not cards:
                raise HandsError(f"hands: seat {seat} has no card; every seat needs at least one")
            seats.append(cards)
        if rest is not None:
            left = [card for card in DECK if card not in named]
            if not left:
                raise HandsError(f'hands: seat {rest} takes "rest", but no card is left for it')
            seats[rest] = left
        return cls(tuple(tuple(INDEX[card] for card in cards or ()) for cards in seats))

    def arrays(self, players: int) -> tuple[np.ndarray, np.ndarray]:
        """Every seat's cards one after another, and how many each seat has: as the kernels
        take them, for a table of `players` (HandsError if the hands are for another)."""
        if len(self.seats) != players:
            raise HandsError(
                f"hands: has {len(self.seats)} seats but the rules have players={players}"
            )
        cards = np.array([card for seat in self.seats for card in seat], np.int64)
        return cards, np.array([len(seat) for seat in self.seats], np.int64)

    def to_json(self) -> list[list[str]]:
        """Each seat's cards as codes."""
        return [[DECK[card].code for card in seat] for seat in self.seats]


def no_hands() -> tuple[np.ndarray, np.ndarray]:
    """What the kernels take for "no hands given: deal at random"."""
    return np.zeros(0, np.int64), np.zeros(0, np.int64)
