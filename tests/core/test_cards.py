"""Cards and their notation."""

import pytest

from cardwar import DECK, Card, CardError, Rank, Suit

from helpers import format_cards, parse_cards


def test_deck_has_52_distinct_cards() -> None:
    """The deck holds each rank-suit pair exactly once."""
    assert len(DECK) == 52
    assert len(set(DECK)) == 52


@pytest.mark.parametrize("card", DECK, ids=str)
def test_notation_round_trips(card: Card) -> None:
    """Parsing a card's code gives the same card back, and its repr evaluates to it."""
    assert Card.parse(str(card)) == card
    assert eval(repr(card)) == card


def test_parse_reads_rank_and_suit() -> None:
    """`QH` is the queen of hearts, `TS` the ten of spades."""
    assert Card.parse("QH") == Card(Rank.QUEEN, Suit.HEARTS)
    assert Card.parse("TS").rank is Rank.TEN


def test_parse_accepts_ten_as_10_and_lower_case() -> None:
    """People write `10H` and `qh`; both are read, and written back in the canonical form."""
    assert str(Card.parse("10H")) == "TH"
    assert str(Card.parse("qh")) == "QH"


def test_labels_are_for_people() -> None:
    """A card's label uses 10 and suit symbols."""
    assert Card.parse("TH").label == "10♥"
    assert Card.parse("9S").label == "9♠"
    assert Card.parse("AD").label == "A♦"


def test_ranks_order_two_to_ace() -> None:
    """Two is lowest and ace highest; suits never order cards."""
    assert list(Rank) == sorted(Rank)
    assert Rank.ACE > Rank.KING > Rank.TWO


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("1X", "card 1X: rank must be one of 2-9, T, J, Q, K, A"),
        ("9Z", "card 9Z: suit 'Z' must be one of C, D, H, S"),
        ("9", "card '9': a card is a rank then a suit, such as '9S' or 'TH'"),
        ("KING", "card 'KING': a card is a rank then a suit, such as '9S' or 'TH'"),
        ("", "card '': a card is a rank then a suit, such as '9S' or 'TH'"),
        ("tz", "card tz: suit 'Z' must be one of C, D, H, S"),
        ("xh", "card xh: rank must be one of 2-9, T, J, Q, K, A"),
        ("11H", "card '11H': a card is a rank then a suit, such as '9S' or 'TH'"),
    ],
)
def test_bad_codes_name_the_problem(code: str, message: str) -> None:
    """A code that is not a card raises CardError whose whole message says what is wrong; a
    lower-case rank is read as a rank, so only the suit is blamed."""
    with pytest.raises(CardError) as caught:
        Card.parse(code)
    assert str(caught.value) == message


def test_parse_refuses_non_strings() -> None:
    """A number where a code belongs is refused with a message, not a crash."""
    with pytest.raises(CardError) as caught:
        Card.parse(9)  # type: ignore[arg-type]  # a bad value on purpose
    assert str(caught.value) == "card 9: a card is written as a string such as '9S'"


@pytest.mark.parametrize(
    ("code", "quoted"),
    [
        ("x" * 38, "'" + "x" * 38 + "'"),  # a repr of exactly 40 characters is quoted whole
        ("x" * 39, "'" + "x" * 38 + "…"),
        ("y" * 100_000, "'" + "y" * 38 + "…"),
        (10**5000, "a int too long to write out"),
    ],
    ids=["40 characters", "41 characters", "100,000 characters", "an int of 5,001 digits"],
)
def test_error_messages_quote_at_most_40_characters(code: object, quoted: str) -> None:
    """A bad value is quoted whole up to 40 characters and cut to 39 and an ellipsis beyond, so
    a message never echoes a huge input; an int too long for Python to write is named."""
    with pytest.raises(CardError) as caught:
        Card.parse(code)  # type: ignore[arg-type]  # bad values on purpose
    reason = (
        "a card is written as a string such as '9S'"
        if isinstance(code, int)
        else "a card is a rank then a suit, such as '9S' or 'TH'"
    )
    assert str(caught.value) == f"card {quoted}: {reason}"


def test_card_errors_are_value_errors() -> None:
    """Every bad-input error is a ValueError, as callers expect."""
    assert issubclass(CardError, ValueError)


def test_parse_and_format_many() -> None:
    """A list of codes parses in order and formats back to the same text."""
    cards = parse_cards(["9S", "2C", "KD"])
    assert format_cards(cards) == "9S 2C KD"
