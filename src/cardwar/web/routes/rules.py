"""/api/rules: the presets, and what each rule field allows."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from cardwar.rules import PRESETS, describe_fields
from cardwar.web.schemas import RulesInfoOut

router = APIRouter()

RULES_INFO: dict[str, Any] = {
    "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
    "fields": describe_fields(),
}


@router.get("/api/rules", response_model=RulesInfoOut, summary="The presets and rule fields")
def rules_info() -> dict[str, Any]:
    """Every preset filled in, and what each rule field allows."""
    return RULES_INFO
