"""What the server keeps for each browser: its house rules, its match length and its scoreboard.

A browser is known only by the anonymous, signed id in its cookie (`guard.PlayerIds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardwar.errors import RulesError
from cardwar.match import check_best_of
from cardwar.rules import Rules
from cardwar.web.store import Scoreboard, Store


class Players:
    """Every browser's choices and totals, kept in SQLite."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def house_rules(self, player: str) -> Rules:
        """The rules the player chose for their next rounds (classic until they choose)."""
        stored = self.store.house_rules(player)
        if stored is None:
            return Rules.preset("classic")
        try:
            return Rules.from_dict(stored)
        except RulesError:  # stored by an older version with other limits: start afresh
            return Rules.preset("classic")

    def best_of(self, player: str) -> int:
        """How many rounds the player's matches last: 1 (single rounds), 3 or 5."""
        return self.store.best_of(player)

    def choose_house_rules(
        self,
        player: str,
        *,
        preset: str = "classic",
        rules: Mapping[str, Any] | None = None,
        best_of: int | None = None,
    ) -> tuple[Rules, int]:
        """Check and remember the player's choice of rules, and of match length when given
        (left as it was when not); returns the rules filled in and the match length."""
        chosen = Rules.choose(preset, rules)
        if best_of is not None:
            check_best_of(best_of)
        self.store.set_house_rules(player, chosen.to_dict())
        if best_of is not None:
            self.store.set_best_of(player, best_of)
        return chosen, self.store.best_of(player)

    def scoreboard(self, player: str) -> Scoreboard:
        """The player's rounds won, lost and drawn."""
        return self.store.scoreboard(player)
