"""A battle's record: immutable, and the same after a trip through JSON."""

import pytest

from cardwar import Battle, Rules

from helpers import dealt

CLASSIC = Rules.preset("classic")


def test_records_are_immutable() -> None:
    """A battle record cannot be changed after the engine hands it out."""
    battle = dealt(CLASSIC, "9S 2C", "8H 3C").play_battle()
    with pytest.raises(AttributeError):
        battle.winner = 1  # type: ignore[misc]  # a write refused on purpose


def test_a_battle_record_as_json() -> None:
    """A battle's record in plain JSON values (the API's battle record), and back to the same
    record: three seats, one short in the war and turning nothing."""
    battle = dealt(Rules(players=3), "9S 2C KD", "9H 3C 7S 8S", "9D 4C").play_battle()
    data = {
        "number": 1,
        "steps": [
            {"up": ["9S", "9H", "9D"], "down": [0, 0, 0], "short": []},
            {"up": ["KD", "7S", None], "down": [1, 1, 1], "short": [2]},
        ],
        "winner": 0,
        "taken": 8,
        "wars": 1,
        "counts": [8, 1, 0],
        "outcome": None,
    }
    assert battle.to_dict() == data
    assert Battle.from_dict(data) == battle
    last = dealt(CLASSIC, "AS", "2H").play_battle()
    assert last.to_dict()["outcome"] == {"winner": 0, "reason": "all_cards"}
    assert Battle.from_dict(last.to_dict()) == last
