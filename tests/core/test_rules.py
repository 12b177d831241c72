"""Rules, presets and their validation (docs/rules.md#house-rules, #presets)."""

import json
from typing import Any

import pytest

from cardwar import PRESETS, Gather, LimitOutcome, Rules, RulesError, Shortage
from cardwar.rules import describe_fields


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


def test_presets_are_what_the_rules_say() -> None:
    """Each preset differs from classic exactly as docs/rules.md#presets describes."""
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
    with pytest.raises(RulesError) as caught:
        Rules.preset("blitz")
    assert str(caught.value) == (
        "preset 'blitz': unknown, must be one of classic, traditional, peace, timed, short"
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"war_down": 9}, "war_down: 9 is out of range, must be 0..5"),
        ({"war_down": -1}, "war_down: -1 is out of range, must be 0..5"),
        ({"war_down": True}, "war_down: must be a whole number from 0 to 5, not True"),
        ({"war_down": "3"}, "war_down: must be a whole number from 0 to 5, not '3'"),
        ({"players": 5}, "players: 5 is out of range, must be 2..4"),
        ({"players": 1}, "players: 1 is out of range, must be 2..4"),
        ({"hand_size": 27}, "hand_size: 27 is out of range, must be null or 1..26"),
        ({"players": 4, "hand_size": 14}, "hand_size: 14 is out of range, must be null or 1..13"),
        ({"players": 3, "hand_size": 18}, "hand_size: 18 is out of range, must be null or 1..17"),
        ({"hand_size": 0}, "hand_size: 0 is out of range, must be null or 1..26"),
        ({"hand_size": "x"}, "hand_size: must be null or a whole number from 1 to 26, not 'x'"),
        ({"battle_limit": 0}, "battle_limit: 0 is out of range, must be null or 1..100000"),
        (
            {"battle_limit": 100001},
            "battle_limit: 100001 is out of range, must be null or 1..100000",
        ),
        (
            {"battle_limit": 2.5},
            "battle_limit: must be null or a whole number from 1 to 100000, not 2.5",
        ),
        ({"time_limit_s": 59}, "time_limit_s: 59 is out of range, must be null or 60..7200"),
        ({"time_limit_s": 7201}, "time_limit_s: 7201 is out of range, must be null or 60..7200"),
        (
            {"time_limit_s": False},
            "time_limit_s: must be null or a whole number from 60 to 7200, not False",
        ),
        (
            {"shortage": "forfeit"},
            "shortage: 'forfeit' is not allowed, must be one of lose, last_card",
        ),
        (
            {"gather": "random"},
            "gather: 'random' is not allowed, must be one of winner_first, table, shuffled, "
            "natural",
        ),
        (
            {"limit_outcome": "win"},
            "limit_outcome: 'win' is not allowed, must be one of draw, most_cards",
        ),
        ({"low_wins": 1}, "low_wins: must be true or false, not 1"),
        (
            {"speed": 3},
            "rules: unknown field 'speed', must be one of battle_limit, gather, hand_size,"
            " limit_outcome, low_wins, players, shortage, time_limit_s, war_down",
        ),
    ],
)
def test_bad_rules_name_the_field(fields: dict[str, Any], message: str) -> None:
    """A rule out of range, of the wrong type or unknown is refused with a message that names
    the field and says what it allows, whole."""
    with pytest.raises(RulesError) as caught:
        Rules.from_dict(fields)
    assert str(caught.value) == message


def test_rules_must_be_an_object() -> None:
    """Rules given as a list rather than fields are refused with a message."""
    with pytest.raises(RulesError) as caught:
        Rules.from_dict([1, 2])  # type: ignore[arg-type]  # a bad value on purpose
    assert str(caught.value) == 'rules: must be an object of rule fields, such as {"war_down": 3}'


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
    assert {type(value) for value in data.values()} <= {int, str, bool, type(None)}
    assert Rules.from_dict(data) == rules


def test_rules_are_frozen() -> None:
    """A Rules value cannot be changed after it is made."""
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.war_down = 3  # type: ignore[misc]  # a write refused on purpose


@pytest.mark.parametrize("name", [None, ["classic"], "Classic"])
def test_a_preset_is_named_exactly(name: object) -> None:
    """Only a preset's own name, as a string, picks it; anything else is refused the same way."""
    with pytest.raises(RulesError) as caught:
        Rules.preset(name)  # type: ignore[arg-type]  # bad values on purpose
    assert str(caught.value) == (
        f"preset {name!r}: unknown, must be one of classic, traditional, peace, timed, short"
    )


def test_a_house_mix_is_named_by_its_preset_or_none() -> None:
    """Rules equal to a preset carry its name; a mix of one's own has none."""
    assert [rules.preset_name for rules in PRESETS.values()] == list(PRESETS)
    assert Rules(war_down=2).preset_name is None


def test_every_field_says_what_it_allows() -> None:
    """The field guide gives each rule's classic default, whether it may be null, and its range
    or its choices, as plain JSON values (the API's `GET /api/rules` and the House rules panel)."""
    assert describe_fields() == {
        "players": {"default": 2, "nullable": False, "min": 2, "max": 4},
        "hand_size": {"default": None, "nullable": True, "min": 1, "max": 26},
        "war_down": {"default": 1, "nullable": False, "min": 0, "max": 5},
        "shortage": {"default": "lose", "nullable": False, "choices": ["lose", "last_card"]},
        "battle_limit": {"default": 500, "nullable": True, "min": 1, "max": 100_000},
        "limit_outcome": {"default": "draw", "nullable": False, "choices": ["draw", "most_cards"]},
        "time_limit_s": {"default": None, "nullable": True, "min": 60, "max": 7200},
        "low_wins": {"default": False, "nullable": False, "choices": [False, True]},
        "gather": {
            "default": "winner_first",
            "nullable": False,
            "choices": ["winner_first", "table", "shuffled", "natural"],
        },
    }
    # As the API sends it: whole numbers, never 26.0.
    assert json.dumps(describe_fields()["hand_size"]) == (
        '{"default": null, "nullable": true, "min": 1, "max": 26}'
    )
