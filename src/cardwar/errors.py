"""Errors a player or a script can act on: every one is a ValueError with a plain message."""

from __future__ import annotations


class CardwarError(ValueError):
    """Base of every error cardwar raises for bad input."""


class CardError(CardwarError):
    """A card code that is not one of the 52 (`card 1X: rank must be ...`)."""


class RulesError(CardwarError):
    """A rule value out of range, an unknown field, or an unknown preset."""


class DealError(CardwarError):
    """An explicit deal that cannot be played: wrong pile count, a card twice, an empty pile."""


class SeedError(CardwarError):
    """A seed that is not a whole number from 0 to 2**63-1."""


class RoundError(CardwarError):
    """A round asked for with values it cannot have: rules that are not a Rules value, a safety
    cap below one battle."""


class HistoryError(CardwarError):
    """A stored round that does not fit its deal: a battle count it never reached, a snapshot
    whose piles do not hold the deal's cards."""


class RoundOverError(CardwarError):
    """A battle asked of a round that has already ended."""


class MatchError(CardwarError):
    """A match that cannot be: a length other than 1, 3 or 5, a seat that is not at its table."""


class MatchOverError(MatchError):
    """A round added to a match that a seat has already won."""


def quote(value: object, limit: int = 40) -> str:
    """`repr(value)`, cut to a short prefix: an error message never echoes a huge input."""
    try:
        text = repr(value)
    except ValueError:  # an int of more than 4,300 digits will not even be written out
        return f"a {type(value).__name__} too long to write out"
    return text if len(text) <= limit else text[: limit - 1] + "…"
