"""The web game's failures, and the one table that says how each is answered.

Every answer to a failure is `{"detail": message}` with the status the table gives; a refusal
that can say when to try again carries Retry-After as well. The guard's own refusals (400, 413,
415) are answered before the app is reached, in the same shape (`guard.refuse`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from cardwar.errors import CardwarError, MatchOverError, RoundOverError
from cardwar.web.site.metrics import refused


def id_words(key: str) -> str:
    """An id as an error message quotes it: one longer than any we hand out is cut short."""
    return repr(key if len(key) <= 40 else key[:40] + "…")


class RoundNotFound(LookupError):
    """No round has this id."""

    @classmethod
    def of(cls, round_id: str) -> RoundNotFound:
        """The error for this id, worded."""
        return cls(f"round {id_words(round_id)}: no such round")


class MatchNotFound(LookupError):
    """No match has this id."""

    @classmethod
    def of(cls, match_id: str) -> MatchNotFound:
        """The error for this id, worded."""
        return cls(f"match {id_words(match_id)}: no such match")


class BattleNotFound(LookupError):
    """The round has not played a battle of this number."""


class MatchNotYours(PermissionError):
    """Only the browser that started a match deals its rounds."""


class MatchRoundInPlay(CardwarError):
    """A match's next round asked while its round is still being played (answered 409)."""


class LiveRoundError(CardwarError):
    """A live table's round asked to play anywhere but at its table (answered 409)."""


class BadBody(CardwarError):
    """A body that is not JSON at all (answered 422)."""


class TryAgain(Exception):
    """A refusal that says when to try again: in `retry_after` whole seconds, at least 1."""

    retry_after: int = 1


class RateLimited(TryAgain):
    """Too many requests of a kind: try again in `retry_after` seconds (answered 429)."""

    def __init__(self, what: str, retry_after: float) -> None:
        super().__init__(f"{what}: too many too fast, try again in {math.ceil(retry_after)} s")
        self.retry_after = max(1, math.ceil(retry_after))


def one_each(what: str) -> RateLimited:
    """The refusal of a browser's second long run of a kind (`what`) at once."""
    return RateLimited(f"{what}: one long run at a time for each browser", 1)


def busy(what: str) -> RateLimited:
    """The refusal of a long run beyond the server's."""
    return RateLimited(f"{what}: the server is busy with other long runs", 2)


def estimates_busy() -> RateLimited:
    """The refusal of a chance estimate beyond the line."""
    return RateLimited("chance: the server is busy with other players' estimates", 1)


class WorkerFailed(TryAgain, RuntimeError):
    """The worker process stopped while it had work (answered 503): a new one starts at once."""


class BrokerDown(TryAgain, RuntimeError):
    """The broker of several processes cannot be reached (answered 503): nothing that needed
    it was done (`broker.py`)."""

    retry_after = 2


class DatabaseDown(TryAgain, RuntimeError):
    """The database did not answer within its deadline, or its connection was lost (answered
    503; a live table's socket is told, and kept): the call was abandoned, and what it wrote
    is committed only if the database had committed it as the connection went
    (`store/connections.py`)."""

    retry_after = 2


def problem(item: Any) -> str:
    """One problem of a body that does not fit, as the answer words it."""
    if item["type"] == "json_invalid":
        message = item.get("ctx", {}).get("error", "")
        if "recursion limit" in message:
            return "body: nested too deeply"
        if "number out of range" in message:
            return "body: holds a number too large"
        return "body: not valid JSON"
    if item["type"] == "model_type":
        return "body: must be a JSON object"
    where = ".".join(str(part) for part in item["loc"] if part != "body") or "body"
    return f"{where}: {item['msg']}"


def detail(error: Exception) -> str:
    """What the answer says: the error's message, or every problem of a body, each once."""
    if isinstance(error, RequestValidationError):
        return "; ".join(dict.fromkeys(problem(item) for item in error.errors()))
    return str(error)


@dataclass(frozen=True, slots=True)
class Answer:
    """How one kind of failure is answered: an exception handler of the app."""

    status: int
    retry_after: bool = False
    """Whether the answer carries Retry-After (the error is a `TryAgain`)."""

    async def __call__(self, _: Request, error: Exception) -> JSONResponse:
        """The answer to `error`: its detail, this status, and Retry-After if it says when."""
        headers = None
        if self.retry_after:
            assert isinstance(error, TryAgain)
            headers = {"Retry-After": str(error.retry_after)}
        if self.status == 429:
            refused("rate_limit")
        return JSONResponse({"detail": detail(error)}, status_code=self.status, headers=headers)


# An error is answered by the entry of its nearest class here (Starlette walks its MRO): a
# `RoundOverError` is a `CardwarError` (422 for any other), answered 409.
ANSWERS: dict[type[Exception], Answer] = {
    RequestValidationError: Answer(422),
    CardwarError: Answer(422),
    RoundOverError: Answer(409),
    MatchOverError: Answer(409),
    MatchRoundInPlay: Answer(409),
    LiveRoundError: Answer(409),
    RoundNotFound: Answer(404),
    MatchNotFound: Answer(404),
    BattleNotFound: Answer(404),
    MatchNotYours: Answer(403),
    RateLimited: Answer(429, retry_after=True),
    WorkerFailed: Answer(503, retry_after=True),
    BrokerDown: Answer(503, retry_after=True),
    DatabaseDown: Answer(503, retry_after=True),
}
