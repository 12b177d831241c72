"""Golden transcripts: seeded rounds of every preset, told by `cardwar round`, diffed line by line.

After a deliberate change to the rules or the wording, rewrite them with
`UPDATE_GOLDEN=1 python3 dev.py test tests/core/test_golden.py` and read the diff before committing.
"""

import difflib
import os
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from cardwar.cli import main

GOLDEN = Path(__file__).parent / "golden"

CASES = {
    "classic-seed-1": ["--preset", "classic", "--seed", "1"],
    "classic-seed-2": ["--preset", "classic", "--seed", "2"],
    "traditional-seed-1": ["--preset", "traditional", "--seed", "1"],
    "traditional-seed-2": ["--preset", "traditional", "--seed", "2"],
    "peace-seed-1": ["--preset", "peace", "--seed", "1"],
    "peace-seed-2": ["--preset", "peace", "--seed", "2"],
    "timed-seed-1": ["--preset", "timed", "--seed", "1"],
    "short-seed-1": ["--preset", "short", "--seed", "1"],
    "short-seed-2": ["--preset", "short", "--seed", "2"],
    "three-players-traditional-seed-3": [
        "--preset", "traditional", "--rules", '{"players": 3}', "--seed", "3",
    ],
    "four-players-classic-seed-4": [
        "--preset", "classic", "--rules", '{"players": 4}', "--seed", "4",
    ],
    "table-order-no-limit-cycle-seed-28": [
        "--rules", '{"gather": "table", "battle_limit": null}', "--seed", "28",
    ],
}  # fmt: skip


def transcript(args: list[str]) -> str:
    """What `cardwar round ARGS` prints."""
    out = StringIO()
    assert main(["round", *args], Console(file=out, width=200)) == 0
    return out.getvalue()


@pytest.mark.parametrize("name", list(CASES))
def test_transcript_matches_golden(name: str) -> None:
    """The seeded round is told exactly as the stored transcript, line for line."""
    path = GOLDEN / f"{name}.txt"
    actual = transcript(CASES[name])
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
        pytest.fail(f"{path.name} rewritten: read `git diff` and run again without UPDATE_GOLDEN")
    expected = path.read_text(encoding="utf-8")
    diff = "\n".join(
        difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "golden", "now", n=1, lineterm=""
        )
    )
    assert not diff, f"{path.name} differs:\n{diff}"
