"""docs/rules.md, `cardwar round --help` and the rules themselves say the same things."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from cardwar import PRESETS, Reason
from cardwar.cli import main
from cardwar.rules import describe_fields

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = (ROOT / "docs" / "rules.md").read_text()


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header row starts with `header`, cells stripped."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("`") for cell in line.strip("|").split("|")])
    return rows


def test_the_readme_points_at_the_rules() -> None:
    """The README links the project's own rules, not a contract outside the repository."""
    assert "docs/rules.md" in (ROOT / "README.md").read_text()


def test_the_presets_table_is_the_presets() -> None:
    """Every preset's row in docs/rules.md holds exactly the preset's values."""
    header = table_rows(RULES_MD, "preset")
    fields = list(describe_fields())
    written = {row[0]: dict(zip(fields, row[1:], strict=True)) for row in header}
    expected = {
        name: {
            field: "null" if value is None else str(value).lower() if isinstance(value, bool)
            else str(value)
            for field, value in rules.to_dict().items()
        }
        for name, rules in PRESETS.items()
    }  # fmt: skip
    assert written == expected


def test_every_ending_is_explained() -> None:
    """The endings table has one row per SPEC §4 reason, and nothing else."""
    reasons = [row[0] for row in table_rows(RULES_MD, "reason")]
    assert reasons == [reason.value for reason in Reason]


@pytest.mark.parametrize("field", list(describe_fields()))
def test_every_field_has_its_section_and_values(field: str) -> None:
    """Each rule field has a heading naming it, and every choice or bound is written out."""
    assert re.search(rf"^### .+`{field}`", RULES_MD, re.MULTILINE)
    described = describe_fields()[field]
    words = [str(choice).lower() for choice in described.get("choices") or []]
    if "min" in described and field != "hand_size":  # hand_size's bound depends on players
        words += [str(described["min"]), str(described["max"])]
    for word in words:
        assert f"`{word}`" in RULES_MD


def test_round_help_lists_every_preset_and_field_with_its_values() -> None:
    """`cardwar round --help` names each preset and each field with what it allows."""
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_, contextlib.redirect_stdout(out):
        main(["round", "--help"], Console(file=io.StringIO()))
    assert exit_.value.code == 0
    text = out.getvalue()
    for name in PRESETS:
        assert re.search(rf"^  {name} +\S", text, re.MULTILINE)
    for name, field in describe_fields().items():
        line = next(line for line in text.splitlines() if line.startswith(f"  {name} "))
        if "min" in field:
            assert f"{field['min']}..{field['max']}" in line
        else:
            assert all(str(choice).lower() in line for choice in field["choices"])
    assert "docs/rules.md" in text
