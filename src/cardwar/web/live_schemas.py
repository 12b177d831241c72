"""What the live tables' API reads (docs/api.md#live-tables): the bodies of its HTTP requests
and the messages a socket sends, each a JSON object with a `type`, checked here. What the
server sends is built by `live_room.py` and `live.py` and listed in docs/api.md."""

from __future__ import annotations

from typing import Annotated, Any, Literal

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


class Play(Strict):
    """The host plays 10 battles at once, or (`to_end`) the rest of the round."""

    type: Literal["play"]
    to_end: StrictBool = False


class React(Strict):
    """A reaction shown on your seat: 👏 😮 😂 or 🙈, at most one a second."""

    type: Literal["react"]
    emoji: StrictStr


class Give(Strict):
    """The host gives a person's seat to the computer (free, or away two minutes)."""

    type: Literal["give"]
    seat: StrictInt


class Next(Strict):
    """The host deals the next round, once this one is over."""

    type: Literal["next"]


class Close(Strict):
    """The host closes the table."""

    type: Literal["close"]


class Leave(Strict):
    """A person other than the host leaves the table: their seat is free again."""

    type: Literal["leave"]


class Ping(Strict):
    """Is the server there? It answers `pong`."""

    type: Literal["ping"]


Message = Flip | Play | React | Give | Next | Close | Leave | Ping
"""Every message a socket may send."""
SocketMessage = Annotated[Message, Field(discriminator="type")]
TYPES = ("flip", "play", "react", "give", "next", "close", "leave", "ping")
_MESSAGE: TypeAdapter[Any] = TypeAdapter(SocketMessage)


class BadMessage(ValueError):
    """A socket's message that is not one the server knows; its words name what is wrong."""


def read_message(raw: str) -> Message:
    """A socket's message, checked; BadMessage, naming the field, for anything else."""
    try:
        message: Message = _MESSAGE.validate_json(raw)
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
