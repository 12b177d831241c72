"""The API's request and response shapes (docs/api.md), separate from domain values and rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from cardwar.engine import MAX_SEED
from cardwar.match import BEST_OF
from cardwar.rules import PRESETS, describe_fields
from cardwar.web.game.seats import MAX_NAME, SEATS, Seat
from cardwar.web.settings import Settings

MAX_COUNT = Settings.max_count


def _one_three_or_five(value: int) -> int:
    if value not in BEST_OF:
        raise PydanticCustomError("best_of", "Input should be 1, 3 or 5")
    return value


# A match's length: a whole number 1, 3 or 5 (not true, not 3.0), like the seed, strictly.
BestOf = Annotated[
    StrictInt,
    AfterValidator(_one_three_or_five),
    WithJsonSchema({"type": "integer", "enum": [1, 3, 5]}),
]
CARD_PATTERN = "^([2-9TJQKAtjqka]|10)[CDHScdhs]$"

# The bodies are checked by the rules engine itself, so its messages name each field and what
# it allows; these schemas say the same limits in the OpenAPI document.


def _rules_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for name, field in describe_fields().items():
        if name == "low_wins":
            kind: dict[str, Any] = {"type": "boolean"}
        elif "choices" in field:
            kind = {"type": "string", "enum": field["choices"]}
        else:
            kind = {"type": "integer", "minimum": field["min"], "maximum": field["max"]}
        properties[name] = {"anyOf": [kind, {"type": "null"}]} if field["nullable"] else kind
    properties["hand_size"]["description"] = "at most 52 // players (26, 17 or 13)"
    return {"type": "object", "properties": properties, "additionalProperties": False}


DEAL_SCHEMA = {
    "type": "array",
    "minItems": 2,
    "maxItems": 4,
    "items": {
        "type": "array",
        "minItems": 1,
        "maxItems": 52,
        "items": {"type": "string", "pattern": CARD_PATTERN},
    },
}


def _nullable(schema: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def document(field: dict[str, Any]) -> None:
        field.pop("anyOf", None)
        field["anyOf"] = [schema, {"type": "null"}]

    return document


def _one_of_presets(field: dict[str, Any]) -> None:
    field["enum"] = list(PRESETS)


class SeatIn(BaseModel):
    """Who plays one seat: a person or the computer, and the name it goes by."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["person", "computer"] = Field(description="seat 0 is always 'person'")
    name: StrictStr = Field(
        "",
        description=f"at most {MAX_NAME} characters once trimmed, no control characters; empty "
        "for the default (You, Computer, Computer N, Player N+1)",
    )

    def seat(self) -> Seat:
        """The seat as the server's own value."""
        return Seat(self.kind, self.name)


def _four_seats(value: list[SeatIn]) -> list[SeatIn]:
    if len(value) != SEATS:
        raise PydanticCustomError(
            "seats", "must list exactly {want} seats, seat 0 first, not {got}",
            {"want": SEATS, "got": len(value)},
        )  # fmt: skip
    return value


# Always four, seat 0 first; those beyond the rules' players are kept, unused.
Seats = Annotated[
    list[SeatIn],
    AfterValidator(_four_seats),
    Field(json_schema_extra={"minItems": SEATS, "maxItems": SEATS}),
]
SEATS_FIELD = Field(
    None,
    description="who plays each seat, seat 0 first: exactly 4, those beyond the rules' players "
    "unused; names of the seats in play must differ, case aside",
)


def seat_values(seats: list[SeatIn] | None) -> tuple[Seat, ...] | None:
    """A body's seats as the server's own values (None when the body left them out)."""
    return None if seats is None else tuple(seat.seat() for seat in seats)


class RulesChoice(BaseModel):
    """A preset and the rule fields that override it: how every body names its rules."""

    model_config = ConfigDict(extra="forbid")

    preset: StrictStr = Field(
        "classic", description="the rules to start from", json_schema_extra=_one_of_presets
    )
    rules: dict[str, Any] | None = Field(
        None,
        description="rule fields overriding the preset",
        json_schema_extra=_nullable(_rules_schema()),
    )


SEED = Field(
    None,
    description="0..2**63-1; the server picks one if absent",
    json_schema_extra=_nullable({"type": "integer", "minimum": 0, "maximum": MAX_SEED}),
)


class NewRound(RulesChoice):
    """Body of `POST /api/rounds`; every field is optional."""

    seed: StrictInt | None = SEED
    deal: list[list[StrictStr]] | None = Field(
        None,
        description="one pile per seat (as many as the rules' players), each listed top card "
        "first, such as ['9S', 'KD']; no card twice",
        json_schema_extra=_nullable(DEAL_SCHEMA),
    )
    seats: Seats | None = SEATS_FIELD


class NewMatch(RulesChoice):
    """Body of `POST /api/matches`: how many rounds, and the rules of every one."""

    best_of: BestOf = Field(3, description="1, 3 or 5; draws do not count")
    seed: StrictInt | None = SEED
    seats: Seats | None = SEATS_FIELD


class NoBody(BaseModel):
    """An empty body (or none at all)."""

    model_config = ConfigDict(extra="forbid")


class ChooseHouseRules(RulesChoice):
    """Body of `PUT /api/me/house-rules`: a preset and the fields that override it, and how
    many rounds a match lasts (left as it was when missing)."""

    best_of: BestOf | None = Field(
        None, description="1 (single rounds), 3 or 5; null or missing keeps the current choice"
    )
    seats: Seats | None = Field(
        None,
        description="who plays each seat, seat 0 first: exactly 4; null or missing keeps the "
        "current choice",
    )


MAX_SIMULATED = Settings.max_simulated


class Simulate(RulesChoice):
    """Body of `POST /api/simulations`: rules as for a new round, and how many rounds."""

    rounds: Annotated[StrictInt, Field(ge=1, le=MAX_SIMULATED)] = Field(
        20_000,
        description=f"random rounds to play, 1..{MAX_SIMULATED}; the server stops after "
        f"{Settings().simulation_seconds:g} seconds and says so",
    )
    seed: StrictInt | None = SEED


class PlayBattles(BaseModel):
    """Body of `POST /api/rounds/{id}/battles`."""

    model_config = ConfigDict(extra="forbid")

    count: Annotated[StrictInt, Field(ge=1, le=MAX_COUNT)] = Field(
        1, description=f"battles to play, 1..{MAX_COUNT}; play stops early when the round ends"
    )
    stop_when_out: StrictBool = Field(
        False,
        description="stop, too, after the battle that puts the last person at the table who"
        " still had cards out (the computers would play on)",
    )


class RulesOut(BaseModel):
    """Every rule field (docs/rules.md#house-rules), filled in."""

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
    """How a round ended: the winning seat (null for a draw) and why (docs/rules.md#endings)."""

    winner: int | None
    reason: str


class SeatOut(BaseModel):
    """Who plays a seat, and its name."""

    kind: str = Field(description="'person' or 'computer'")
    name: str


class RoundOut(BaseModel):
    """A round. `piles` (each top card first) is present only once the round is over."""

    model_config = ConfigDict(extra="forbid")

    id: str
    rules: RulesOut
    seed: int
    battles: int
    wars: int
    counts: list[int]
    out_at: list[int | None] = Field(
        description="for each seat, the battle after which it held no cards (null: never)"
    )
    outcome: OutcomeOut | None
    piles: list[list[str]] | None = None
    deal: list[list[str]] | None = Field(
        None, description="an explicit deal as dealt, once the round is over (to replay it)"
    )
    match_id: str | None = Field(None, description="the match the round belongs to, if any")
    time_left_s: float | None = Field(
        None, description="seconds left on the round's clock; null with none, or once over"
    )
    seats: list[SeatOut] = Field(
        description="who plays each seat in play, seat 0 first, names filled in"
    )


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


class PersonOut(BaseModel):
    """The rounds one person, by name, won, lost and drew at this browser's table."""

    name: str
    won: int
    lost: int
    drawn: int


class ScoreboardOut(BaseModel):
    """Rounds and matches finished by this browser's anonymous player id (seat 0's), and a
    tally per person's name."""

    won: int
    lost: int
    drawn: int
    matches_won: int
    matches_lost: int
    people: list[PersonOut] = Field(description="a tally per person's name, by name case aside")


class HouseRulesOut(BaseModel):
    """The rules a browser chose for its next rounds, and the preset they are, if any."""

    preset: str | None = Field(description="the preset these rules are exactly, or null")
    rules: RulesOut
    best_of: int = Field(description="rounds a match lasts: 1 (single rounds), 3 or 5")
    seats: list[SeatOut] = Field(
        description="who plays each of the 4 seats, seat 0 first; an empty name is the default"
    )


class MatchRoundOut(BaseModel):
    """One round of a match: its id, whether it is over, and who won it (null: a draw, or not
    over yet)."""

    id: str
    over: bool
    winner: int | None


class MatchOut(BaseModel):
    """A match: best of 1, 3 or 5 rounds, draws not counting."""

    id: str
    seed: int = Field(description="deals every round of the match: round k from this seed")
    best_of: int
    needed: int = Field(description="rounds a seat must win to take the match")
    rules: RulesOut
    rounds: list[MatchRoundOut]
    score: list[int] = Field(description="rounds won by each seat")
    draws: int
    leader: int | None = Field(description="the seat with most rounds won; null while tied")
    winner: int | None
    over: bool
    seats: list[SeatOut] = Field(description="who plays each seat in play at every round")


class MatchDealtOut(MatchOut):
    """A match and the round just dealt for it."""

    round: RoundOut


class HeldTableOut(BaseModel):
    """An open live table where this browser holds a seat, or held the one the host gave to
    the computer."""

    code: str = Field(description="the table's invite code: its link is /?table={code}")
    host: bool = Field(description="true for a table this browser opened")
    names: list[str] = Field(description="each seat's name, seat 0 first (empty: a free seat)")
    given: int | None = Field(
        description="the seat the host gave to the computer from this browser, which it may"
        " take back (null: it holds its seat)"
    )


class MeOut(BaseModel):
    """What the page needs to resume: the scoreboard, the latest round with its last battle,
    its match if it is one's, the house rules chosen for the next round, and the live tables
    where this browser holds a seat."""

    scoreboard: ScoreboardOut
    round: RoundOut | None
    last_battle: BattleOut | None
    match: MatchOut | None
    house_rules: HouseRulesOut
    tables: list[HeldTableOut]


class ReplayOut(BaseModel):
    """One battle of a round, played again from its deal, and the counts before it."""

    battle: BattleOut
    counts_before: list[int]
    round_battles: int = Field(description="battles the round has played so far")


class StoryPointOut(BaseModel):
    """Each seat's cards after a battle (battle 0: as dealt)."""

    battle: int
    counts: list[int]


class StoryWarOut(BaseModel):
    """A battle that held a war: how many, what it took, who won it."""

    battle: int
    wars: int
    taken: int
    winner: int | None


class StoryOut(BaseModel):
    """A round told battle by battle: each seat's cards at the deal and at most 400 battles,
    the battles each seat won, every battle with a war, how often the lead changed, and the
    biggest war."""

    battles: int
    points: list[StoryPointOut]
    won: list[int]
    wars: list[StoryWarOut]
    lead_changes: int
    biggest_war: StoryWarOut | None


class FieldOut(BaseModel):
    """What one rule field allows: a range of whole numbers or a list of choices."""

    default: int | str | bool | None
    nullable: bool
    min: int | None = None
    max: int | None = None
    choices: list[str | bool] | None = None


class SeatModelOut(BaseModel):
    """The seats of a choice (docs/api.md#people-at-the-table): how many, the longest name, the
    default seats, and each seat's default name by players (as a string) and kind."""

    count: int
    name_max: int
    default: list[SeatOut]
    default_names: dict[str, dict[str, list[str]]]


class BiggerTableOut(BaseModel):
    """What a table of three or four sets, unless the player chose it (docs/rules.md#bigger-tables):
    a battle limit, and what happens there."""

    battle_limit: int
    limit_outcome: str


class RulesInfoOut(BaseModel):
    """The presets (docs/rules.md#presets), filled in, what every rule field allows, the seat
    model, and each bigger table's own ending, by players (as a string)."""

    presets: dict[str, RulesOut]
    fields: dict[str, FieldOut]
    seats: SeatModelOut
    bigger_tables: dict[str, BiggerTableOut]


class ErrorOut(BaseModel):
    """What went wrong, naming the field and what is allowed."""

    detail: str


class HoldingOut(BaseModel):
    """What one seat holds of the best cards."""

    cards: int = Field(description="cards in the seat's pile")
    best: int = Field(description="cards of the best rank: aces, or twos under Peace")
    high: int = Field(description="cards of the four best ranks: A K Q J, or 2 3 4 5 under Peace")


class ChanceOut(BaseModel):
    """Each seat's chance to win from here, over `runs` continuations with every pile's order
    unknown, and what each seat holds of the best cards."""

    battles: int
    runs: int
    you: float
    seats: list[float]
    draw: float
    holdings: list[HoldingOut]
    best_rank: Literal["A", "2"]
    best_in_play: int = Field(description="cards of the best rank dealt in this round")
    high_in_play: int = Field(description="cards of the four best ranks dealt in this round")


class SpreadOut(BaseModel):
    """Mean, median, 90th percentile and most, of battles or wars a round."""

    mean: float | None
    median: int | None
    p90: int | None
    max: int | None


class HistogramsOut(BaseModel):
    """Rounds by their number of battles, and by their number of wars (index = the number)."""

    battles: list[int]
    wars: list[int]


class SimulationOut(BaseModel):
    """What the rounds of a simulation came to."""

    rules: RulesOut
    seed: int
    rounds_asked: int
    stopped_by_time: bool = Field(description="true if the server stopped at its 2 seconds")
    seconds: float
    rounds: int = Field(description="rounds played")
    wins: list[int]
    draws: int
    reasons: dict[str, int]
    battles: SpreadOut
    wars_per_round: SpreadOut
    histograms: HistogramsOut


class HealthOut(BaseModel):
    """Whether this server process can serve (`GET /healthz`, docs/deploy.md#health)."""

    ok: bool = Field(
        description="false while the broker (if any) is unreachable, or the database has been"
        " for longer than the server allows (10 s unless set)"
    )
    database: Literal["reachable", "unreachable"]
    broker: Literal["reachable", "unreachable", "none"] = Field(
        description="'none' for a server of one process, which has no broker"
    )
    database_answered_s_ago: float | None = Field(
        description="seconds since the database last answered; null if it never has since start"
    )
    broker_answered_s_ago: float | None = Field(
        description="seconds since the broker last answered; null without one, or never"
    )
    draining: bool = Field(
        description="true once the process was told to stop (SIGTERM) and drains: not ok"
    )


class SimulatorOut(BaseModel):
    """Whether the simulator is ready (`GET /api/simulator`): a first start prepares it in the
    background, and what needs it waits meanwhile."""

    ready: bool = Field(description="true once the chance meter and the statistics can answer")
    compiling: bool = Field(
        description="true while a first start compiles it (every later start loads it in a "
        "second, and what needs it waits that second on the server)"
    )
    step: str | None = Field(description="what is being prepared now, in words (None when ready)")
    done: int = Field(ge=0, description="steps of the preparation done")
    total: int = Field(ge=0, description="steps of the preparation in all")
    seconds: float = Field(ge=0, description="seconds since the preparation began")
    first_start_s: int = Field(
        description="about how long a first start's preparation takes in all (later starts: "
        "under a second)"
    )
