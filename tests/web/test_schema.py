"""schemathesis against the app's own OpenAPI document: whatever a client sends, in or out of
the schema, the server never answers 5xx, never answers outside its schema, and never with a
status it does not document."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS

from cardwar.web import Settings, create_app
from cardwar.web.settings import LOOPBACK_HOSTS

# The app is built at import (schemathesis reads its schema then), so its folder is too; every
# process that collects this file removes it as it exits, run or not.
FOLDER = Path(tempfile.mkdtemp(prefix="cardwar-schema-"))
atexit.register(shutil.rmtree, FOLDER, ignore_errors=True)
APP = create_app(Settings(db=FOLDER / "schema.db", hosts=(*LOOPBACK_HOSTS, "testserver")))
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)

# Every built-in check but one: "positive_data_acceptance" expects every body the schema admits
# to be accepted, and a JSON schema cannot say that a card may not be dealt twice, or that four
# players get at most 13 cards each. Those bodies get a documented 422 naming the problem.
CHECK_NAMES = [name for name in CHECKS.get_all_names() if name != "positive_data_acceptance"]


@pytest.fixture(scope="module", autouse=True)
def stop_the_worker() -> Iterator[None]:
    """The app may start its worker process for a long run; stop it when the module is done."""
    yield
    APP.app.state.rounds.close()


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_the_api_keeps_to_its_openapi_document(case: schemathesis.Case) -> None:
    """No 5xx, no answer outside the schema, no undocumented status, bad data refused."""
    case.call_and_validate(
        headers={"content-type": "application/json"},
        checks=[CHECKS.get_by_names([name])[0] for name in CHECK_NAMES],
    )
