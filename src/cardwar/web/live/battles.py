"""A live table's round (`Battles`): read as it stands, played battle by battle or many at once,
committed, then told; dealt again; and the whole table as a device is shown it (`shown`).

The rounds of a live table are ordinary rounds (`cardwar.web.game.rounds`), played only here, each
battle committed to the store before any device hears of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from functools import partial
from typing import Any

from fastapi.concurrency import run_in_threadpool

from cardwar.rules import Rules
from cardwar.web.game.matches import Matches
from cardwar.web.game.rounds import Rounds
from cardwar.web.game.seats import Seat, seats_json
from cardwar.web.live.presence import Presence
from cardwar.web.live.room import Room
from cardwar.web.live.table import RoundView, four_seats
from cardwar.web.live.wire import Played, Shown
from cardwar.web.settings import Settings
from cardwar.web.store.live import TableRow
from cardwar.web.tasks import to_the_end

SHOWN_BATTLES = 10
"""The most battle records one message carries; a longer run sends its last ones."""
TO_END = 2000
"""The battles a run to the end asks of the rounds at a time."""


class Battles:
    """The rounds of every live table of this process, over `room`."""

    def __init__(self, room: Room, rounds: Rounds, matches: Matches, settings: Settings) -> None:
        self.room, self.rounds, self.matches, self.settings = room, rounds, matches, settings

    async def round(self, presence: Presence) -> dict[str, Any]:
        """The table's round as it stands. Call it with the table locked. A round in memory as
        the table's last holder left it (`Presence.round_at`) is not read from the database
        again: only a holder of the table's lock plays its round."""
        round_id = presence.table.row.round_id
        known = None
        if presence.round_at is not None and presence.round_at[0] == round_id:
            known = presence.round_at[1]
        # In a thread, as a click is played: a look may read the database (and end a timed
        # round's clock there), which may hang; the event loop never waits for it.
        shown = await run_in_threadpool(partial(self.rounds.get, round_id, known=known))
        assert shown is not None
        self._note_round(presence)
        return shown

    async def view(self, presence: Presence) -> RoundView:
        """What the table needs of its round as it stands (`round`)."""
        return RoundView.of(await self.round(presence))

    async def play(
        self,
        presence: Presence,
        count: int | None,
        *,
        by: str,
        late: Sequence[int] = (),
        speed: str | None = None,
        tag: int | None = None,
    ) -> None:
        """Play `count` battles (None: to the round's end), commit them, then tell every socket
        (at the host's `speed`, with the host's `tag`, when the host played them). Call it with
        the table locked. It runs to its end even if its caller is cancelled (a socket gone): a
        battle is played in a thread, which commits it whatever becomes of the caller, and a
        battle committed is told."""
        await to_the_end(self._play(presence, count, by, late, speed, tag))

    async def _play(
        self,
        presence: Presence,
        count: int | None,
        by: str,
        late: Sequence[int],
        speed: str | None,
        tag: int | None,
    ) -> None:
        row = presence.table.row
        play = partial(self.rounds.play, row.round_id, at_table=row.code, seats=row.round_seats())
        battles: list[dict[str, Any]] = []
        played = 0
        while True:
            asked = TO_END if count is None else count - played
            result = await run_in_threadpool(play, asked)  # as a click is played
            assert result is not None
            shown, records = result
            self._note_round(presence)
            played += len(records)
            battles = (battles + [battle.to_dict() for battle in records])[-SHOWN_BATTLES:]
            if shown["outcome"] is not None or count is not None or not records:
                break
        await self.room.save(presence, presence.table.played(), touch=True)
        match = tally = None
        if shown["outcome"] is not None:
            tally = await self.tally(row.code)
            if row.match_id is not None:
                match = _without_ids(await run_in_threadpool(self.matches.get, row.match_id))
        message = Played(
            by, list(late), played, battles, _public_round(shown), match, tally, speed, tag
        )
        self.room.tell(presence, message)

    async def tally(self, code: str) -> list[dict[str, Any]]:
        """Each person's rounds at the table, by name: `[{"name", "won", "lost", "drawn"}]`."""
        scores = await run_in_threadpool(self.room.store.live.table_tally, code)
        return [asdict(score) for score in scores]

    def deal_first(
        self, host: str, rules: Rules, best_of: int, seats: tuple[Seat, ...], code: str
    ) -> tuple[str, str | None]:
        """Deal a new table's first round (of a match when `best_of` > 1): its id and the
        match's. In a thread: it writes to the store."""
        if best_of > 1:
            match = self.matches.create(
                host, best_of=best_of, rules=rules.to_dict(), seats=seats, live_table=code
            )
            return str(match["round"]["id"]), str(match["id"])
        made = self.rounds.create(host, rules=rules.to_dict(), seats=seats, live_table=code)
        return str(made["id"]), None

    def deal_next(
        self,
        row: TableRow,
        *,
        rules: Rules | None = None,
        best_of: int | None = None,
        fresh: bool = False,
    ) -> tuple[str, str | None]:
        """Deal the table's next round: the match's next, or a fresh deal of the same rules (a
        new match of the same length once one is decided). With new `rules` or `best_of`, or
        `fresh` (the round in play left unfinished), a fresh deal (a new match) of those. In a
        thread."""
        seats = row.round_seats()
        fresh = fresh or rules is not None or best_of not in (None, row.best_of)
        if row.match_id is not None and not fresh:
            match = self.matches.get(row.match_id)
            if not match["over"]:
                made = self.matches.next_round(row.match_id, row.host, live_table=row.code)
                return str(made["round"]["id"]), row.match_id
        chosen = Rules.choose("classic", row.rules) if rules is None else rules
        length = row.best_of if best_of is None else best_of
        return self.deal_first(row.host, chosen, length, four_seats(seats), row.code)

    async def shown(self, presence: Presence, event: str | None = None) -> Shown:
        """The whole table, as a device shows it when it (re)joins."""
        table = presence.table
        row = table.row
        shown, last = await run_in_threadpool(self._round_and_last, row.round_id)
        shown["seats"] = seats_json(row.round_seats())  # the table's now, before a battle
        match = None
        if row.match_id is not None:
            match = _without_ids(await run_in_threadpool(self.matches.get, row.match_id))
        left = None
        if table.deadline is not None:
            left = round(max(0.0, table.deadline - self.room.clock()), 1)
        seats = [
            {
                "kind": seat.kind,
                "name": seat.name,
                "taken": seat.holder is not None,
                "away": index in table.here.away_since,
            }
            for index, seat in enumerate(row.seats)
        ]
        return Shown(
            event, row.watch, row.rules, row.best_of, row.clock_s, seats, _public_round(shown),
            last, match, sorted(table.flipped), list(table.waiting(RoundView.of(shown))),
            sorted(table.asked), left,
            await self.tally(row.code), self.settings.live_give_after_s,
        )  # fmt: skip

    def _round_and_last(self, round_id: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        shown = self.rounds.get(round_id)  # which holds the round in memory
        assert shown is not None
        live = self.rounds.memory.get(round_id)
        last = None if live is None or live.round.last_battle is None else live.round.last_battle
        return shown, None if last is None else last.to_dict()

    def _note_round(self, presence: Presence) -> None:
        """Keep in the presence where the table's round stands in the database now, as this
        process (which holds the table's lock) last read or wrote it."""
        round_id = presence.table.row.round_id
        live = self.rounds.memory.get(round_id)
        presence.round_at = None if live is None else (round_id, live.stored)


def _public_round(shown: dict[str, Any]) -> dict[str, Any]:
    """The round as every device (a watcher's too) may see it: without its id, which would
    let anyone who hears it look its battles up, nor its match's."""
    return {key: value for key, value in shown.items() if key not in ("id", "match_id")}


def _without_ids(match: dict[str, Any]) -> dict[str, Any]:
    """A match as every device may see it: its rounds' winners, not their ids."""
    rounds = [{"winner": r["winner"], "over": r["over"]} for r in match["rounds"]]
    return {**{k: v for k, v in match.items() if k != "id"}, "rounds": rounds}
