"""The server's matches: start one, deal its rounds from its seed, and show its score.

A match's rounds are ordinary rounds (`rounds.py` deals and plays them, and counts each in its
match as it ends); this is what a match adds around them.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from cardwar.engine import check_seed
from cardwar.errors import MatchOverError
from cardwar.match import PAGE_SEEDS, Match, check_best_of, round_seed
from cardwar.rules import Rules
from cardwar.web.errors import MatchNotFound, MatchNotYours, MatchRoundInPlay
from cardwar.web.game.rounds import Rounds
from cardwar.web.game.seats import DEFAULT_SEATS, Seat, at_table, check_seats, seats_json
from cardwar.web.store import MatchRow, Store


class Matches:
    """Every match of the server, kept in SQLite; its rounds are dealt by `Rounds`."""

    def __init__(self, store: Store, rounds: Rounds) -> None:
        self.store = store
        self.rounds = rounds

    def create(
        self,
        player: str | None,
        *,
        best_of: int,
        preset: str = "classic",
        rules: Mapping[str, Any] | None = None,
        seed: int | None = None,
        seats: Sequence[Seat] | None = None,
        live_table: str | None = None,
    ) -> dict[str, Any]:
        """Start a match of `best_of` rounds under the given rules and with the four `seats`
        chosen (you against the computers when None), and deal its first round; returns the
        match in the API's shape, with that round. The match's seed deals every round (the
        server picks one when none is given), and its seats sit at every round. Call it from a
        thread."""
        check_best_of(best_of)
        chosen = Rules.choose(preset, rules)
        checked = check_seats(seats, chosen.players)
        seed = check_seed(seed) if seed is not None else secrets.randbelow(PAGE_SEEDS)
        match_id = secrets.token_urlsafe(16)
        now = self.rounds.settings.clock()
        # A live table's match is the table's (nobody's own table shows it); its rounds still
        # count on the scoreboard of the browser that opened the table.
        owner = None if live_table is not None else player
        self.store.matches.insert(match_id, owner, best_of, chosen.to_dict(), seed, now, checked)
        round_ = self.rounds.create(
            player, rules=chosen.to_dict(), seed=round_seed(seed, 0), match_id=match_id,
            seats=checked, live_table=live_table,
        )  # fmt: skip
        return {**self.get(match_id), "round": round_}

    def next_round(
        self, match_id: str, player: str | None, live_table: str | None = None
    ) -> dict[str, Any]:
        """Deal the match's next round; refused (409) once the match is over, or while its
        last round is still being played, and (403) for any browser but the one that started it
        (another could otherwise leave the owner waiting on a round it cannot see). Call it
        from a thread."""
        row = self._row(match_id)
        if row.player is not None and row.player != player:
            raise MatchNotYours(
                f"match {match_id}: only the browser that started it deals its rounds"
            )
        match = Match.of(row.best_of, row.rules["players"], row.winners)
        if match.over:
            raise MatchOverError(f"match {match_id} is over: seat {match.winner} won it")
        if len(row.rounds) > len(row.winners):
            raise MatchRoundInPlay(
                f"match {match_id}: round {row.rounds[-1]} is still being played; finish it "
                "before dealing the next"
            )
        seed = round_seed(row.seed, len(row.rounds))
        round_ = self.rounds.create(
            player, rules=row.rules, seed=seed, match_id=match_id, seats=row.seats,
            live_table=live_table,
        )  # fmt: skip
        return {**self.get(match_id), "round": round_}

    def get(self, match_id: str) -> dict[str, Any]:
        """The match in the API's shape: its rounds, the score, the leader and the winner."""
        row = self._row(match_id)
        match = Match.of(row.best_of, row.rules["players"], row.winners)
        rounds = [
            {"id": round_id, "winner": row.winners[i] if i < len(row.winners) else None,
             "over": i < len(row.winners)}
            for i, round_id in enumerate(row.rounds)
        ]  # fmt: skip
        return {
            "id": match_id,
            "seed": row.seed,
            "best_of": row.best_of,
            "needed": match.needed,
            "rules": row.rules,
            "rounds": rounds,
            "score": list(match.score),
            "draws": match.draws,
            "leader": match.leader,
            "winner": match.winner,
            "over": match.over,
            "seats": seats_json(at_table(row.seats or DEFAULT_SEATS, row.rules["players"])),
        }

    def current_id(self, player: str, latest: dict[str, Any] | None) -> str | None:
        """The match the table shows: the latest round's, or else the player's last match
        while it is undecided (a replay or a shared deal was played in the middle of it)."""
        if latest is not None and latest["match_id"] is not None:
            return str(latest["match_id"])
        return self.store.matches.open_id(player)

    def _row(self, match_id: str) -> MatchRow:
        row = self.store.matches.get(match_id)
        if row is None:
            raise MatchNotFound.of(match_id)
        return row
