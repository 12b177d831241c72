"""/api/rules: the presets, what each rule field allows, the seat model and the bigger tables."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from cardwar.rules import BIGGER_TABLES, PRESETS, describe_fields
from cardwar.web.game.seats import seat_model
from cardwar.web.schemas import RulesInfoOut

router = APIRouter()

RULES_INFO: dict[str, Any] = {
    "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
    "fields": describe_fields(),
    "seats": seat_model(),
    "bigger_tables": {str(players): fields for players, fields in BIGGER_TABLES.items()},
}


@router.get(
    "/api/rules",
    response_model=RulesInfoOut,
    summary="The presets, rule fields, seats and bigger tables",
)
def rules_info() -> dict[str, Any]:
    """Every preset filled in, what each rule field allows, the seat model, and what a table of
    three or four sets unless the player chose it."""
    return RULES_INFO
