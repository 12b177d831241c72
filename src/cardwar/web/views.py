"""The API's view of a round (docs/api.md#the-round): the whole round, as the core describes it,
less what a player may not see yet."""

from __future__ import annotations

from typing import Any

from cardwar.engine import Round
from cardwar.persist import round_json


def round_view(round_: Round, round_id: str | None) -> dict[str, Any]:
    """The round in the API's shape. No peeking: its `piles`, and an explicit deal as dealt,
    appear only once it is over (for replaying or sharing it)."""
    shown = {"id": round_id, **round_json(round_)}
    if round_.outcome is None:
        del shown["piles"]
        shown.pop("deal", None)
    return shown
