"""What a live table refuses, one error a cause (docs/api.md#live-tables).

Every error of a live table is a `TableError` and says, once, how it is answered: `status` over
HTTP, and `close`, the code a socket is closed with (None: the socket is told, in an `error`
message, and kept). A validation, a permission, a rate and a state are told apart by their status
(422, 403, 429 and 409), as the rest of the API tells them apart; a table busy in another process
is 503, a try again, as is a broker out of reach (`BrokerDown`), whose words it does not share.
"""

from __future__ import annotations

from typing import ClassVar

from cardwar.errors import CardwarError
from cardwar.web.errors import TryAgain


class TableError(CardwarError):
    """Base of every refusal of a live table: its words name what is wrong."""

    status: ClassVar[int] = 409
    """The HTTP status it is answered with."""
    close: ClassVar[int | None] = None
    """The close code of a socket it ends (None: the socket is kept, and told)."""


# -- no such table, or no more ------------------------------------------------------------------


class TableNotFound(TableError, LookupError):
    """No live table has this code (or this watch code)."""

    status, close = 404, 4404


class TableClosed(TableError):
    """The table has closed: its rounds stay, nothing more is played."""

    status, close = 410, 4410


# -- what does not fit (422) ---------------------------------------------------------------------


class NoSuchSeat(TableError):
    """A seat number the table does not have."""

    status = 422


class BadName(TableError):
    """A name that cannot be a seat's: empty, too long, or with control characters."""

    status = 422


class BadEmoji(TableError):
    """A reaction that is not one of the table's."""

    status = 422


class BadMessage(TableError):
    """A socket's message that is not one the server knows, or a field of it that does not fit."""

    status = 422


class BadRules(TableError):
    """Rules a table cannot deal: for a number of players other than its seats."""

    status = 422


class BadClock(TableError):
    """A turn clock that is not one of those a host may choose."""

    status = 422


# -- who may (403) -------------------------------------------------------------------------------


class NotHost(TableError, PermissionError):
    """What only the host (the browser that opened the table) may do."""

    status = 403


class NotSeated(TableError, PermissionError):
    """What only a person holding a seat may do: a watcher, or one who left the seat."""

    status = 403


# -- what the table is now (409) -----------------------------------------------------------------


class SeatTaken(TableError):
    """The seat is held by another browser."""


class ComputersSeat(TableError):
    """The seat is played by the computer (and no one who held it may reclaim it)."""


class SeatedElsewhere(TableError):
    """The browser already holds another seat of this table."""


class NameTaken(TableError):
    """Another seat of the table goes by this name (case aside)."""


class HostStays(TableError):
    """The host closes the table rather than leave it."""


class PersonAtTable(TableError):
    """The seat's person is at the table: it is not the host's to give."""


class NotYours(TableError):
    """A seat given to the computer that this browser never held, or one not given."""


class RoundOver(TableError):
    """The round is over: nothing is flipped or played until the host deals the next."""


class RoundInPlay(TableError):
    """The round is still being played: the next is dealt once it is over."""


class OutOfCards(TableError):
    """The seat has no cards left this round: the others play on."""


class TooManyTables(TableError):
    """The browser has as many open tables as it may."""


# -- not yet (429) -------------------------------------------------------------------------------


class TooSoon(TableError, TryAgain):
    """Asked again before the table allows it: in `retry_after` whole seconds."""

    status = 429

    def __init__(self, words: str, retry_after: float) -> None:
        super().__init__(words)
        self.retry_after = max(1, int(retry_after) + (retry_after % 1 > 0))


# -- not now (503) -------------------------------------------------------------------------------


class TableBusy(TableError, TryAgain):
    """Another process of several holds the table longer than a request waits for it (a long
    run there): try again. Never a broker out of reach (`BrokerDown`), nor a process that died
    holding it (its lease lapses first: `presence.py`)."""

    status = 503


def every_error() -> tuple[type[TableError], ...]:
    """Every kind of `TableError` there is (each answered by its own status)."""
    found: list[type[TableError]] = []
    waiting: list[type[TableError]] = [TableError]
    while waiting:
        kind = waiting.pop()
        found.append(kind)
        waiting.extend(kind.__subclasses__())
    return tuple(found)
