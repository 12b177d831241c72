"""The server's players: who a browser is, by the signed anonymous id in its cookie, and what the
server keeps for it (its house rules with the seats at its table, its match length and its
scoreboard)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from cardwar.errors import RulesError
from cardwar.match import check_best_of
from cardwar.rules import Rules
from cardwar.web.game.seats import DEFAULT_SEATS, SEATS, Seat, check_seats
from cardwar.web.store import Scoreboard, Store
from cardwar.web.store.live import TableRow


class PlayerIds:
    """Anonymous player ids, signed with the server's key so that nobody can make their own:
    a rate limit per browser means something only if a browser cannot be invented at will."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def issue(self) -> str:
        """A new id: 128 random bits and their signature."""
        token = secrets.token_urlsafe(16)
        return f"{token}.{self._sign(token)}"

    def valid(self, value: str) -> bool:
        """True if `value` is an id this server issued."""
        token, dot, signature = value.partition(".")
        return bool(dot) and len(value) <= 64 and hmac.compare_digest(signature, self._sign(token))

    def _sign(self, token: str) -> str:
        digest = hmac.new(self._key, token.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:12]).decode()


class Players:
    """Every browser's choices and totals, kept in SQLite."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def tables(self, player: str) -> list[TableRow]:
        """The open live tables where the player holds a seat, the latest opened first."""
        return self.store.live.tables_held_by(player)

    def house_rules(self, player: str) -> Rules:
        """The rules the player chose for their next rounds (classic until they choose)."""
        stored = self.store.players.house_rules(player)
        if stored is None:
            return Rules.preset("classic")
        try:
            return Rules.from_dict(stored)
        except RulesError:  # stored by an older version with other limits: start afresh
            return Rules.preset("classic")

    def seats(self, player: str) -> tuple[Seat, ...]:
        """The four seats the player chose, seat 0 first (you against the computers until they
        choose)."""
        stored = self.store.players.seats(player)
        return stored if stored is not None and len(stored) == SEATS else DEFAULT_SEATS

    def best_of(self, player: str) -> int:
        """How many rounds the player's matches last: 1 (single rounds), 3 or 5."""
        return self.store.players.best_of(player)

    def choose_house_rules(
        self,
        player: str,
        *,
        preset: str = "classic",
        rules: Mapping[str, Any] | None = None,
        best_of: int | None = None,
        seats: Sequence[Seat] | None = None,
    ) -> tuple[Rules, int, tuple[Seat, ...]]:
        """Check and remember the player's choice of rules, and of match length and seats when
        given (left as they were when not); returns the rules filled in, the match length and
        the seats. The seats kept are checked against the rules chosen, as new ones are: a
        table of three must not seat two people of the same name."""
        chosen = Rules.choose(preset, rules)
        if best_of is not None:
            check_best_of(best_of)
        kept = check_seats(self.seats(player) if seats is None else seats, chosen.players)
        self.store.players.set_house_rules(player, chosen.to_dict(), kept)
        if best_of is not None:
            self.store.players.set_best_of(player, best_of)
        return chosen, self.store.players.best_of(player), kept

    def scoreboard(self, player: str) -> Scoreboard:
        """The player's rounds won, lost and drawn."""
        return self.store.players.scoreboard(player)
