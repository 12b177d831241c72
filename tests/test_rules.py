"""Rules, presets and their validation (SPEC §5)."""

from typing import Any

import pytest

from cardwar import PRESETS, Gather, LimitOutcome, Rules, RulesError, Shortage


def test_classic_is_the_seed_table() -> None:
    """Classic: two players, one down, lose when short, 500-battle draw, highest wins."""
    classic = Rules.preset("classic")
    assert classic == Rules()
    assert (classic.players, classic.war_down, classic.battle_limit) == (2, 1, 500)
    assert classic.shortage is Shortage.LOSE
    assert classic.limit_outcome is LimitOutcome.DRAW
    assert classic.gather is Gather.WINNER_FIRST
    assert classic.time_limit_s is None and classic.hand_size is None
    assert classic.low_wins is False
    assert classic.cards_per_hand == 26


def test_presets_are_what_the_spec_says() -> None:
    """Each preset differs from classic exactly as SPEC §5 describes."""
    classic = Rules()
    assert Rules.preset("traditional") == Rules(
        war_down=3, shortage=Shortage.LAST_CARD, battle_limit=None
    )
    assert Rules.preset("peace") == Rules(low_wins=True)
    timed = Rules.preset("timed")
    assert timed.time_limit_s == 600
    assert timed.limit_outcome is LimitOutcome.MOST_CARDS
    assert (timed.war_down, timed.shortage, timed.battle_limit) == (3, Shortage.LAST_CARD, None)
    assert Rules.preset("short") == Rules(hand_size=13)
    assert Rules.preset("short").cards_per_hand == 13
    assert set(PRESETS) == {"classic", "traditional", "peace", "timed", "short"}
    assert classic.cards_per_hand == 26


@pytest.mark.parametrize(("players", "hand"), [(2, 26), (3, 17), (4, 13)])
def test_hand_size_shares_the_deck(players: int, hand: int) -> None:
    """Without hand_size each seat gets 52 // players cards."""
    assert Rules(players=players).cards_per_hand == hand


def test_unknown_preset_names_the_choices() -> None:
    """An unknown preset is refused with the list of presets."""
    with pytest.raises(RulesError, match="preset 'blitz': unknown, must be one of classic"):
        Rules.preset("blitz")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"war_down": 9}, "war_down: 9 is out of range, must be 0..5"),
        ({"war_down": -1}, "war_down: -1 is out of range"),
        ({"war_down": True}, "war_down: must be a whole number from 0 to 5, not True"),
        ({"war_down": "3"}, "war_down: must be a whole number"),
        ({"players": 5}, "players: 5 is out of range, must be 2..4"),
        ({"players": 1}, "players: 1 is out of range"),
        ({"hand_size": 27}, "hand_size: 27 is out of range, must be null or 1..26"),
        ({"players": 4, "hand_size": 14}, "hand_size: 14 is out of range, must be null or 1..13"),
        ({"hand_size": 0}, "hand_size: 0 is out of range"),
        ({"battle_limit": 0}, "battle_limit: 0 is out of range, must be null or 1..100000"),
        ({"battle_limit": 100001}, "battle_limit: 100001 is out of range"),
        ({"time_limit_s": 59}, "time_limit_s: 59 is out of range, must be null or 60..7200"),
        ({"time_limit_s": 7201}, "time_limit_s: 7201 is out of range"),
        ({"shortage": "forfeit"}, "shortage: 'forfeit' is not allowed, must be one of lose"),
        ({"gather": "random"}, "gather: 'random' is not allowed, must be one of winner_first"),
        ({"limit_outcome": "win"}, "limit_outcome: 'win' is not allowed"),
        ({"low_wins": 1}, "low_wins: must be true or false, not 1"),
        ({"speed": 3}, "rules: unknown field 'speed', must be one of battle_limit"),
    ],
)
def test_bad_rules_name_the_field(fields: dict[str, Any], message: str) -> None:
    """A rule out of range, of the wrong type or unknown is refused, naming the field."""
    with pytest.raises(RulesError) as caught:
        Rules.from_dict(fields)
    assert str(caught.value).startswith(message)


def test_rules_must_be_an_object() -> None:
    """Rules given as a list rather than fields are refused with a message."""
    with pytest.raises(RulesError, match="rules: must be an object"):
        Rules.from_dict([1, 2])  # type: ignore[arg-type]


def test_from_dict_overrides_a_base() -> None:
    """Fields override the preset they are laid over, and nothing else."""
    rules = Rules.from_dict({"war_down": 2}, base=Rules.preset("peace"))
    assert rules == Rules(war_down=2, low_wins=True)


def test_strings_become_enum_members() -> None:
    """JSON strings for the choice fields are held as enum members."""
    rules = Rules.from_dict({"shortage": "last_card", "gather": "table"})
    assert rules.shortage is Shortage.LAST_CARD
    assert rules.gather is Gather.TABLE


@pytest.mark.parametrize("name", list(PRESETS))
def test_json_round_trips(name: str) -> None:
    """Every preset survives to_dict and from_dict unchanged, as plain JSON values."""
    rules = Rules.preset(name)
    data = rules.to_dict()
    assert all(isinstance(value, int | str | bool | None) for value in data.values())
    assert Rules.from_dict(data) == rules


def test_rules_are_frozen() -> None:
    """A Rules value cannot be changed after it is made."""
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.war_down = 3  # type: ignore[misc]
