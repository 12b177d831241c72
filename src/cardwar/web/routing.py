"""How the API's routes are declared: `RequestRoute` and the one parser for every route with a
body, and the error answers a route documents."""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError

from cardwar.web.errors import BadBody
from cardwar.web.schemas import ErrorOut

Model = TypeVar("Model", bound=BaseModel)
Endpoint = Callable[[Request], Coroutine[Any, Any, Response]]


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorOut, "description": description}


ERRORS: dict[int | str, dict[str, Any]] = {
    403: _error("The match belongs to another browser"),
    404: _error("No round (or match, battle or live table) has this id"),
    409: _error("The round is already over, or the match is decided or busy with a round"),
    410: _error("The live table has closed"),
    413: _error("The body is larger than the server reads (64 KB)"),
    415: _error("The body is not sent as application/json"),
    422: _error("The body does not fit: the message names the field and what it allows"),
    429: _error("Too many of these too fast: the Retry-After header says when to try again"),
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The documented error answers of a route."""
    return {code: ERRORS[code] for code in codes}


class RequestRoute(APIRoute):
    """A FastAPI route whose endpoint takes the bare `Request` and returns the `Response`.

    FastAPI still matches and documents it (the parameters and body go in `openapi_extra`), but
    skips its per-request dependency solving, which was half of a click's CPU (measured with
    `benchmarks/api.py`: benchmarks/README.md, "Measurements behind the code"). Every route with
    a body is one, so that one parser reads every body (`parse`), whatever it holds.
    """

    def get_route_handler(self) -> Endpoint:
        endpoint: Endpoint = self.endpoint
        return endpoint


def body_openapi(model: type[BaseModel], *path: str) -> dict[str, Any]:
    """The OpenAPI entry of a `RequestRoute`: its path parameters and its optional JSON body."""
    return {
        "parameters": [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in path
        ],
        "requestBody": {
            "required": False,
            "content": {"application/json": {"schema": model.model_json_schema()}},
        },
    }


def body_route(
    router: APIRouter,
    path: str,
    body: type[BaseModel],
    response: type[BaseModel],
    summary: str,
    *,
    method: str = "POST",
    status_code: int = 200,
    more_errors: tuple[int, ...] = (),
) -> Callable[[Endpoint], Endpoint]:
    """Register the decorated endpoint as a `RequestRoute` that reads its JSON `body` with
    `parse`, and document it."""

    def register(endpoint: Endpoint) -> Endpoint:
        router.add_api_route(
            path,
            endpoint,
            methods=[method],
            status_code=status_code,
            response_model=response,
            responses=errors(*more_errors, 413, 415, 422, 429),
            summary=summary,
            openapi_extra=body_openapi(body, *re.findall(r"{(\w+)}", path)),
            route_class_override=RequestRoute,
        )
        return endpoint

    return register


def parse(model: type[Model], raw: bytes) -> Model:
    """A request body as `model`; an empty body is the model's defaults. Anything that is not
    a JSON object of the model's fields is a 422 that names the body or the field."""
    if not raw.strip():
        return model()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadBody("body: not UTF-8 text") from None
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        raise RequestValidationError(error.errors()) from None
