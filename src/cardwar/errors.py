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


class RoundOverError(CardwarError):
    """A battle asked of a round that has already ended."""


def quote(value: object, limit: int = 40) -> str:
    """`repr(value)`, cut to a short prefix: an error message never echoes a huge input."""
    try:
        text = repr(value)
    except ValueError:  # an int of more than 4,300 digits will not even be written out
        return f"a {type(value).__name__} too long to write out"
    return text if len(text) <= limit else text[: limit - 1] + "…"
