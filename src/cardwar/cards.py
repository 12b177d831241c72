"""Cards and their two-character notation: rank then suit, `9S`, `TH`, `AD`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

from cardwar.errors import CardError, quote


class Rank(IntEnum):
    """A card's rank; the integer value orders them, two lowest, ace highest."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def symbol(self) -> str:
        """The one-character code: `2`-`9`, `T`, `J`, `Q`, `K`, `A`."""
        return _RANK_SYMBOLS[self - 2]

    @property
    def label(self) -> str:
        """How a person writes the rank: `10` rather than `T`."""
        return "10" if self is Rank.TEN else self.symbol


class Suit(Enum):
    """A card's suit. Suits never decide a battle; they only tell two equal ranks apart."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def glyph(self) -> str:
        """The suit as a symbol for people: ♣ ♦ ♥ ♠."""
        return _SUIT_GLYPHS[self.value]


_RANK_SYMBOLS = "23456789TJQKA"
_SUIT_GLYPHS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


@dataclass(frozen=True, slots=True)
class Card:
    """One of the 52 cards. Build it with `Card.parse("QH")`; `str(card)` gives the code back."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, code: str) -> Card:
        """The card for a two-character code such as `9S` or `TH`; raises CardError otherwise."""
        if not isinstance(code, str):
            raise CardError(f"card {quote(code)}: a card is written as a string such as '9S'")
        card = _BY_CODE.get(code.upper())
        if card is not None:
            return card
        if len(code) != 2:
            raise CardError(
                f"card {quote(code)}: a card is a rank then a suit, such as '9S' or 'TH'"
            )
        rank, suit = code[0].upper(), code[1].upper()
        if rank not in _RANK_SYMBOLS:
            raise CardError(f"card {code}: rank must be one of 2-9, T, J, Q, K, A")
        raise CardError(f"card {code}: suit {suit!r} must be one of C, D, H, S")

    @property
    def code(self) -> str:
        """The two-character code, `QH`."""
        return self.rank.symbol + self.suit.value

    @property
    def label(self) -> str:
        """The card as a person reads it: `10♥`, `Q♠`."""
        return self.rank.label + self.suit.glyph

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"


# The 52 cards in a fixed order: by rank, then clubs, diamonds, hearts, spades.
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)

# The card index: a card's place in DECK, 0..51. DECK is rank-major, four cards to a rank, so an
# index's rank (0 for a two .. 12 for an ace) is `index >> RANK_SHIFT`, and ranks compare as
# the cards' do. The engine plays on indices, the simulator's kernels too, and a snapshot
# stores them: this is the one place that says how they are made.
RANK_SHIFT = 2
INDEX: dict[Card, int] = {card: index for index, card in enumerate(DECK)}


def rank_of(index: int) -> int:
    """The rank of a card index, 0 (a two) .. 12 (an ace): the cards' order, suits aside."""
    return index >> RANK_SHIFT


_BY_CODE: dict[str, Card] = {card.code: card for card in DECK}
# People write the ten as "10"; accept "10H" as well as "TH" on the way in, and give back "TH".
_BY_CODE.update({"10" + card.suit.value: card for card in DECK if card.rank is Rank.TEN})
