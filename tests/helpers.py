"""Small helpers shared by the tests."""

import json
from typing import Any

from cardwar import Card, Reason, Round, Rules


def codes(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    """Cards as their codes, for readable assertions."""
    return [card.code for card in cards]


def piles(round_: Round) -> list[list[str]]:
    """Every seat's pile as codes, top first."""
    return [codes(list(pile)) for pile in round_.piles]


def dealt(rules: Rules, *seats: str, seed: int = 0) -> Round:
    """A round from explicit piles written as space-separated codes, top first."""
    return Round(rules, seed=seed, deal=[pile.split() for pile in seats])


def scores(
    won: int = 0, lost: int = 0, drawn: int = 0, matches_won: int = 0, matches_lost: int = 0
) -> dict[str, int]:
    """A scoreboard as GET /api/me shows it."""
    return {
        "won": won,
        "lost": lost,
        "drawn": drawn,
        "matches_won": matches_won,
        "matches_lost": matches_lost,
    }


def ended(round_: Round) -> tuple[int | None, Reason]:
    """The round's outcome as (winner, reason); fails if the round is still going."""
    assert round_.outcome is not None
    return round_.outcome.winner, round_.outcome.reason


def through_json(data: dict[str, Any]) -> dict[str, Any]:
    """The data as it comes back from a database or a file."""
    return dict(json.loads(json.dumps(data)))
