"""The API's request and response shapes (SPEC §7), separate from domain values and rows."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

MAX_COUNT = 100_000


class NewRound(BaseModel):
    """Body of `POST /api/rounds`; every field is optional."""

    model_config = ConfigDict(extra="forbid")

    preset: StrictStr = Field("classic", description="classic, traditional, peace, timed or short")
    rules: dict[str, Any] | None = Field(None, description="SPEC §5 fields overriding the preset")
    seed: StrictInt | None = Field(None, description="0..2**63-1; the server picks one if absent")
    deal: list[list[StrictStr]] | None = Field(
        None, description="one pile per seat, each listed top card first, such as ['9S', 'KD']"
    )


class ChooseHouseRules(BaseModel):
    """Body of `PUT /api/me/house-rules`: a preset and the fields that override it."""

    model_config = ConfigDict(extra="forbid")

    preset: StrictStr = Field("classic", description="classic, traditional, peace, timed or short")
    rules: dict[str, Any] | None = Field(None, description="SPEC §5 fields overriding the preset")


class PlayBattles(BaseModel):
    """Body of `POST /api/rounds/{id}/battles`."""

    model_config = ConfigDict(extra="forbid")

    count: Annotated[StrictInt, Field(ge=1, le=MAX_COUNT)] = Field(
        1, description=f"battles to play, 1..{MAX_COUNT}; play stops early when the round ends"
    )


class RulesOut(BaseModel):
    """Every rule of SPEC §5, filled in."""

    players: int
    hand_size: int | None
    war_down: int
    shortage: str
    battle_limit: int | None
    limit_outcome: str
    time_limit_s: int | None
    low_wins: bool
    gather: str


class OutcomeOut(BaseModel):
    """How a round ended: the winning seat (null for a draw) and the SPEC §4 reason."""

    winner: int | None
    reason: str


class RoundOut(BaseModel):
    """A round. `piles` (each top card first) is present only once the round is over."""

    model_config = ConfigDict(extra="forbid")

    id: str
    rules: RulesOut
    seed: int
    battles: int
    wars: int
    counts: list[int]
    outcome: OutcomeOut | None
    piles: list[list[str]] | None = None


class StepOut(BaseModel):
    """One laying of cards: the first turn, or one war. Lists run seat by seat."""

    up: list[str | None] = Field(description="the card each seat turned face up, or null")
    down: list[int] = Field(description="how many cards each seat laid face down")
    short: list[int] = Field(description="seats that were short of cards at this step")


class BattleOut(BaseModel):
    """One battle, step by step: all the page needs to animate it."""

    number: int
    steps: list[StepOut]
    winner: int | None
    taken: int
    wars: int
    counts: list[int]
    outcome: OutcomeOut | None


class BattlesOut(BaseModel):
    """The round after play, and one record per battle played."""

    round: RoundOut
    battles: list[BattleOut]


class ScoreboardOut(BaseModel):
    """Rounds finished by this browser's anonymous player id."""

    won: int
    lost: int
    drawn: int


class HouseRulesOut(BaseModel):
    """The rules a browser chose for its next rounds, and the preset they are, if any."""

    preset: str | None = Field(description="the preset these rules are exactly, or null")
    rules: RulesOut


class MeOut(BaseModel):
    """What the page needs to resume: the scoreboard, the latest round with its last battle,
    and the house rules chosen for the next round."""

    scoreboard: ScoreboardOut
    round: RoundOut | None
    last_battle: BattleOut | None
    house_rules: HouseRulesOut


class FieldOut(BaseModel):
    """What one rule field allows: a range of whole numbers or a list of choices."""

    default: int | str | bool | None
    nullable: bool
    min: int | None = None
    max: int | None = None
    choices: list[str | bool] | None = None


class RulesInfoOut(BaseModel):
    """The presets of SPEC §5, filled in, and what every rule field allows."""

    presets: dict[str, RulesOut]
    fields: dict[str, FieldOut]


class ErrorOut(BaseModel):
    """What went wrong, naming the field and what is allowed."""

    detail: str
