"""/api/rules: the presets, what each rule field allows, and the seat model."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from cardwar.rules import PRESETS, describe_fields
from cardwar.web.schemas import RulesInfoOut
from cardwar.web.seats import seat_model

router = APIRouter()

RULES_INFO: dict[str, Any] = {
    "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
    "fields": describe_fields(),
    "seats": seat_model(),
}


@router.get("/api/rules", response_model=RulesInfoOut, summary="The presets, rule fields and seats")
def rules_info() -> dict[str, Any]:
    """Every preset filled in, what each rule field allows, and the seat model."""
    return RULES_INFO
