"""What goes over a live table's wire, both ways (docs/api.md#the-sockets).

In: the bodies of the HTTP requests and the messages a socket sends, each a JSON object with a
`type`, checked here (pydantic, one discriminated union). Out: one type per message the server
sends, each written once as JSON (`write`) however many sockets it goes to, as `Said`: the
table's events (`table.py`) and the messages of the service and the socket (`Played`, `Shown`,
`Welcome`, `Problem`, `Pong`). `OUT` names each outbound type's `type` and fields, in the
order docs/api.md's table lists them."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
)

from cardwar.web.live.errors import BadMessage
from cardwar.web.live.table import (
    Asked,
    Away,
    Back,
    Closed,
    Event,
    Flipped,
    Given,
    Left,
    Reacted,
    Reclaimed,
    Seated,
)
from cardwar.web.schemas import RulesChoice, SeatIn


class Strict(BaseModel):
    """A body or message that names only the fields it has (any other is refused)."""

    model_config = ConfigDict(extra="forbid")


class OpenTable(RulesChoice):
    """Open a live table: its rules (a preset, and any fields over it), rounds to a match,
    its seats in play (seat 0 is the host, a person), and its turn clock."""

    best_of: Literal[1, 3, 5] = 1
    seats: list[SeatIn] = Field(min_length=2, max_length=4)
    clock_s: Literal[10, 30] | None = None


class TakeSeat(Strict):
    """Sit at a person's free seat of a live table, by a name."""

    seat: StrictInt
    name: StrictStr


class Flip(Strict):
    """Flip your card for the next battle (`battle`: its number, so a late flip is let go)."""

    type: Literal["flip"]
    seat: StrictInt | None = None
    battle: StrictInt | None = None


SPEEDS = ("slow", "normal", "fast", "instant")
"""The speeds of Play to end, as the host's page names them: each device shows the host's."""
MOST_AT_ONCE = 500
"""The most battles the host plays in one `play` message."""


class Play(Strict):
    """The host plays battles at once: `count` of them (10 when absent), or (`to_end`) the rest
    of the round; `speed`, the host's, is how every device shows them; `tag`, a number the
    host's page chose, is told back with them, so that it knows its own battles."""

    type: Literal["play"]
    to_end: StrictBool = False
    count: Annotated[StrictInt, Field(ge=1, le=MOST_AT_ONCE)] | None = None
    speed: Literal["slow", "normal", "fast", "instant"] | None = None
    tag: Annotated[StrictInt, Field(ge=0, le=2**31)] | None = None


class React(Strict):
    """A reaction shown on your seat: 👏 😮 😂 or 🙈, at most one a second."""

    type: Literal["react"]
    emoji: StrictStr


class Give(Strict):
    """The host gives a person's seat to the computer (free, or away two minutes)."""

    type: Literal["give"]
    seat: StrictInt


class Next(Strict):
    """The host deals the next round, once this one is over (with `abandon`, at once: the round
    in play is left unfinished and counts for no one); with `preset` or `rules` (as a new
    round's body names them, for as many players as the table has seats) and `best_of`, the
    table plays by those from this round on."""

    type: Literal["next"]
    preset: StrictStr | None = None
    rules: dict[str, Any] | None = None
    best_of: Literal[1, 3, 5] | None = None
    abandon: StrictBool = False

    @property
    def chooses(self) -> bool:
        """True when the host chose new rules or a new match length with it."""
        return self.preset is not None or self.rules is not None or self.best_of is not None


class Again(Strict):
    """A person asks for another round once this one is over: the host is told (the host's own
    deals it)."""

    type: Literal["again"]


class Close(Strict):
    """The host closes the table."""

    type: Literal["close"]


class Leave(Strict):
    """A person other than the host leaves the table: their seat is free again."""

    type: Literal["leave"]


class Ping(Strict):
    """Is the server there? It answers `pong`."""

    type: Literal["ping"]


In = Flip | Play | React | Give | Next | Again | Close | Leave | Ping
"""Every message a socket may send."""
_IN_TAGGED = Annotated[In, Field(discriminator="type")]
TYPES = ("flip", "play", "react", "give", "next", "again", "close", "leave", "ping")
_IN: TypeAdapter[Any] = TypeAdapter(_IN_TAGGED)


def read_message(raw: str) -> In:
    """A socket's message, checked; BadMessage, naming the field, for anything else."""
    try:
        message: In = _IN.validate_json(raw)
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "json_invalid":
            raise BadMessage("message: not a JSON object") from None
        if first["type"] in ("union_tag_invalid", "union_tag_not_found", "model_attributes_type"):
            raise BadMessage(f"type: must be one of {', '.join(TYPES)}") from None
        if first["type"] == "model_type":
            raise BadMessage("message: must be a JSON object with a type") from None
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        raise BadMessage(f"{where}: {first['msg']}") from None
    return message


# -- out -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Welcome:
    """First on every socket: who it is at the table (`{"seat", "host"}`, seat None to watch)."""

    you: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Shown:
    """The whole table, as a device shows it (docs/api.md#the-table-a-device-is-shown)."""

    event: str | None
    watch: str
    rules: dict[str, Any]
    best_of: int
    clock_s: int | None
    seats: list[dict[str, Any]]
    round: dict[str, Any]
    last_battle: dict[str, Any] | None
    match: dict[str, Any] | None
    flipped: list[int]
    waiting: list[int]
    asked: list[int]
    clock_left_s: float | None
    tally: list[dict[str, Any]]
    give_after_s: float


@dataclass(frozen=True, slots=True)
class Played:
    """Battles were played and committed: `by` whom ("flips", "clock" or "host"), the seats the
    clock flipped for, how many, the last records, the round; at a round's end the tally (and
    the match, in one); the host's `speed` and `tag` when the host played them."""

    by: str
    late: list[int]
    played: int
    battles: list[dict[str, Any]]
    round: dict[str, Any]
    match: dict[str, Any] | None = None
    tally: list[dict[str, Any]] | None = None
    speed: str | None = None
    tag: int | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """A message that could not be done, and why; the socket is kept."""

    message: str


@dataclass(frozen=True, slots=True)
class Pong:
    """The answer to `ping`."""


Out = Welcome | Shown | Played | Problem | Pong | Event
"""Every message the server sends."""

OUT: dict[type[Any], tuple[str, tuple[str, ...]]] = {
    Welcome: ("welcome", ("you",)),
    Shown: ("table", ("event", *(f.name for f in fields(Shown) if f.name != "event"))),
    Flipped: ("flipped", ("seat", "waiting")),
    Played: (
        "played",
        ("by", "late", "played", "battles", "round", "match", "tally", "speed", "tag"),
    ),
    Seated: ("seated", ("seat", "name")),
    Away: ("away", ("seat",)),
    Back: ("back", ("seat",)),
    Given: ("given", ("seat", "name")),
    Reclaimed: ("reclaimed", ("seat", "name")),
    Left: ("left", ("seat", "name")),
    Reacted: ("reaction", ("seat", "emoji")),
    Asked: ("asked", ("seat", "name")),
    Closed: ("closed", ("reason",)),
    Problem: ("error", ("message",)),
    Pong: ("pong", ()),
}
"""Each outbound type's `type` on the wire, and the fields it writes (`Given.play` is the
table's word to the service, not a device's)."""
_UNLESS_NONE = {(Played, "match"), (Played, "tally"), (Played, "speed"), (Played, "tag")}
"""Fields left out of a message while they are None, rather than written null."""


class Said(NamedTuple):
    """A message as it goes to every socket: its `type`, and its JSON text, written once; and
    its `number` at its table (1, 2, …: every message told there, in the order told, by every
    process; 0 for none), so that a socket shown the table after a message was told, but before
    the message reached it, lets it go rather than hear it twice (`sockets._hear`). Between
    processes it goes as its number and its text (`carried`, `heard`)."""

    type: str
    text: str
    number: int = 0

    @classmethod
    def heard(cls, carried: str) -> Said:
        """A message as another process carried it (`carried`), read once."""
        number, _, text = carried.partition(" ")
        return cls(json.loads(text)["type"], text, int(number))

    @property
    def carried(self) -> str:
        """The message as it is carried to the other processes: its number, then its text."""
        return f"{self.number} {self.text}"


def body(message: Out) -> dict[str, Any]:
    """`message` as a JSON object: its `type` and its fields."""
    kind, names = OUT[type(message)]
    found: dict[str, Any] = {"type": kind}
    for name in names:
        value = getattr(message, name)
        if value is None and (type(message), name) in _UNLESS_NONE:
            continue
        found[name] = list(value) if isinstance(value, tuple) else value
    return found


def write(message: Out) -> Said:
    """`message` as every socket is sent it."""
    found = body(message)
    text = json.dumps(found, ensure_ascii=False, separators=(",", ":"))
    return Said(found["type"], text)
