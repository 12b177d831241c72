"""The rules of a round as one frozen value, with the named presets (docs/rules.md#presets)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from cardwar.errors import RulesError, quote


class Shortage(StrEnum):
    """What happens to a war player who lacks the cards to finish a war."""

    LOSE = "lose"
    """The short player cannot finish the war and loses the round (the classic table)."""
    LAST_CARD = "last_card"
    """The short player lays all but the last card down and fights with the last one."""


class Gather(StrEnum):
    """The order in which a battle's winner puts the table's cards under their pile."""

    WINNER_FIRST = "winner_first"
    """The winner's own cards in the order laid, then everyone else's in the order laid."""
    TABLE = "table"
    """Every card in the order it was laid."""
    SHUFFLED = "shuffled"
    """The table is shuffled with the round's generator first."""
    NATURAL = "natural"
    """Picked up as the cards lie: the winning card, then the rest, last laid first."""


class LimitOutcome(StrEnum):
    """How a round that reaches its battle limit ends."""

    DRAW = "draw"
    """The round is a draw."""
    MOST_CARDS = "most_cards"
    """The cards are counted; the single leader wins."""


MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_WAR_DOWN = 5
MAX_BATTLE_LIMIT = 100_000
MIN_TIME_LIMIT_S, MAX_TIME_LIMIT_S = 60, 7200


@dataclass(frozen=True, slots=True, init=False)
class Rules:
    """Every rule a round is played by. Variants are values of this one class, never subclasses.

    The choices may be given as their enum members or as the plain strings that JSON carries
    (`Rules(gather="table")`); the value always holds the enum members. Every field is checked
    as the value is made, with a message naming it (docs/rules.md#house-rules).
    """

    players: int
    hand_size: int | None
    war_down: int
    shortage: Shortage
    battle_limit: int | None
    limit_outcome: LimitOutcome
    time_limit_s: int | None
    low_wins: bool
    gather: Gather

    def __init__(
        self,
        players: int = 2,
        hand_size: int | None = None,
        war_down: int = 1,
        shortage: Shortage | str = Shortage.LOSE,
        battle_limit: int | None = 500,
        limit_outcome: LimitOutcome | str = LimitOutcome.DRAW,
        time_limit_s: int | None = None,
        low_wins: bool = False,
        gather: Gather | str = Gather.WINNER_FIRST,
    ) -> None:
        _check_int("players", players, MIN_PLAYERS, MAX_PLAYERS)
        if hand_size is not None:
            _check_int("hand_size", hand_size, 1, 52 // players, nullable=True)
        _check_int("war_down", war_down, 0, MAX_WAR_DOWN)
        _check_choice("shortage", shortage, Shortage)
        if battle_limit is not None:
            _check_int("battle_limit", battle_limit, 1, MAX_BATTLE_LIMIT, nullable=True)
        _check_choice("limit_outcome", limit_outcome, LimitOutcome)
        if time_limit_s is not None:
            _check_int(
                "time_limit_s", time_limit_s, MIN_TIME_LIMIT_S, MAX_TIME_LIMIT_S, nullable=True
            )
        if not isinstance(low_wins, bool):
            raise RulesError(f"low_wins: must be true or false, not {quote(low_wins)}")
        _check_choice("gather", gather, Gather)
        # Frozen: the fields are set once, here, through object.__setattr__.
        for name, value in (
            ("players", players),
            ("hand_size", hand_size),
            ("war_down", war_down),
            ("shortage", Shortage(shortage)),
            ("battle_limit", battle_limit),
            ("limit_outcome", LimitOutcome(limit_outcome)),
            ("time_limit_s", time_limit_s),
            ("low_wins", low_wins),
            ("gather", Gather(gather)),
        ):
            object.__setattr__(self, name, value)

    @property
    def cards_per_hand(self) -> int:
        """How many cards each seat is dealt: `hand_size`, or the whole deck shared out."""
        return self.hand_size if self.hand_size is not None else 52 // self.players

    @property
    def deterministic(self) -> bool:
        """True when, after the deal, nothing is left to chance (so a loop can be detected)."""
        return self.gather is not Gather.SHUFFLED

    @classmethod
    def preset(cls, name: str) -> Rules:
        """The named preset: classic, traditional, peace, timed or short."""
        try:
            return PRESETS[name]
        except (KeyError, TypeError):
            known = ", ".join(PRESETS)
            raise RulesError(f"preset {quote(name)}: unknown, must be one of {known}") from None

    @classmethod
    def choose(cls, preset: str = "classic", overrides: Mapping[str, Any] | None = None) -> Rules:
        """The named preset with the JSON-style `overrides` laid over it: the one place a preset
        and house rules are combined (the command line, the web server and the API all ask)."""
        base = cls.preset(preset)
        return base if overrides is None else cls.from_dict(overrides, base=base)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, base: Rules | None = None) -> Rules:
        """Rules from JSON-style fields laid over `base` (classic when omitted)."""
        if not isinstance(data, Mapping):
            raise RulesError('rules: must be an object of rule fields, such as {"war_down": 3}')
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            known = ", ".join(sorted(_FIELDS))
            raise RulesError(f"rules: unknown field {quote(unknown[0])}, must be one of {known}")
        return replace(base if base is not None else CLASSIC, **data)

    @property
    def preset_name(self) -> str | None:
        """The name of the preset these rules are exactly, or None for a house mix."""
        return next((name for name, rules in PRESETS.items() if rules == self), None)

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain JSON values."""
        # Every field is a plain value or a StrEnum, so no deep copy (asdict) is needed; this
        # runs on every API answer.
        return {
            name: str(value) if isinstance(value, StrEnum) else value
            for name in _FIELDS
            for value in (getattr(self, name),)
        }


def describe_fields() -> dict[str, dict[str, Any]]:
    """What each rule field allows, as plain JSON values: the classic default, whether it may
    be null, and a range or the choices. `hand_size` may be at most 52 // players."""
    ranges: dict[str, tuple[int, int]] = {
        "players": (MIN_PLAYERS, MAX_PLAYERS),
        "hand_size": (1, 52 // MIN_PLAYERS),
        "war_down": (0, MAX_WAR_DOWN),
        "battle_limit": (1, MAX_BATTLE_LIMIT),
        "time_limit_s": (MIN_TIME_LIMIT_S, MAX_TIME_LIMIT_S),
    }
    choices: dict[str, list[str | bool]] = {
        "shortage": [member.value for member in Shortage],
        "limit_outcome": [member.value for member in LimitOutcome],
        "low_wins": [False, True],
        "gather": [member.value for member in Gather],
    }
    defaults = CLASSIC.to_dict()
    described: dict[str, dict[str, Any]] = {}
    for name in _FIELDS:
        entry: dict[str, Any] = {
            "default": defaults[name],
            "nullable": name in {"hand_size", "battle_limit", "time_limit_s"},
        }
        if name in ranges:
            entry["min"], entry["max"] = ranges[name]
        else:
            entry["choices"] = choices[name]
        described[name] = entry
    return described


def _check_int(name: str, value: object, low: int, high: int, *, nullable: bool = False) -> None:
    # bool is an int in Python; `war_down: true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        allowed = (
            f"null or a whole number from {low} to {high}"
            if nullable
            else (f"a whole number from {low} to {high}")
        )
        raise RulesError(f"{name}: must be {allowed}, not {quote(value)}")
    if not low <= value <= high:
        allowed = f"null or {low}..{high}" if nullable else f"{low}..{high}"
        raise RulesError(f"{name}: {quote(value)} is out of range, must be {allowed}")


def _check_choice(name: str, value: object, choices: type[StrEnum]) -> None:
    allowed = [member.value for member in choices]
    if value not in allowed:
        raise RulesError(
            f"{name}: {quote(value)} is not allowed, must be one of {', '.join(allowed)}"
        )


_FIELDS = tuple(field.name for field in fields(Rules))
CLASSIC = Rules()
PRESETS: dict[str, Rules] = {
    "classic": CLASSIC,
    "traditional": Rules(war_down=3, shortage=Shortage.LAST_CARD, battle_limit=None),
    "peace": Rules(low_wins=True),
    "timed": Rules(
        war_down=3,
        shortage=Shortage.LAST_CARD,
        battle_limit=None,
        time_limit_s=600,
        limit_outcome=LimitOutcome.MOST_CARDS,
    ),
    "short": Rules(hand_size=13),
}

# A bigger table's own ending (docs/rules.md#bigger-tables): the House rules panel lays these
# over the rules when three or four players are chosen, on each field the player has not made
# their own. The presets and `Rules` stay as they are (two players draw at 500 battles, as the
# classic rules say). Measured with the engine over 6,000 seeds of the classic table: with
# three players most rounds loop (51 cards, won cards back in a fixed order) and only 13 in 100
# end by play within 500 battles, 9 in 100 within 150, so the limit mostly says when to count;
# with four, 250 battles let just over half the rounds (52 in 100) end by play and bound the
# rest (500 would let 85 in 100). Counted, a tie is rare (0.2 and 1.4 in 100).
BIGGER_TABLES: dict[int, dict[str, Any]] = {
    3: {"battle_limit": 150, "limit_outcome": LimitOutcome.MOST_CARDS.value},
    4: {"battle_limit": 250, "limit_outcome": LimitOutcome.MOST_CARDS.value},
}
