"""The rounds the server plays: each round's lock, the live rounds kept in memory, and the clock
of a timed round.

Routes call this; it calls the engine, the store and the worker process. Each round is guarded
by a lock, so twenty simultaneous one-battle clicks play exactly twenty battles. A battle is
committed to the database before its answer leaves, so a restart, or a killed process, loses
nothing that was answered. Several processes may serve one database: a round held in memory is
checked against its row before a look (reloaded if another process played it; a live table's
presence may say where its round stands instead: `get`'s `known`), and its row is
written only if no other process wrote it meanwhile (`Store.update`'s `since`); a play that
lost that race plays again from where the other left the round, holding its row this time, so
each battle is played once, in order, whichever process was asked. A play does not look first:
the write's own condition is the look, which saves a query a click.

Work is bounded: every round stops at the server's safety cap of battles, a round is loaded from
its stored snapshot rather than replayed, and the only long work there is (a request for
thousands of battles, or settling at the deal whether a round with no limit loops) runs in the
worker process (`workers.py`), so that it never holds up the event loop's clicks.
"""

from __future__ import annotations

import secrets
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cardwar import persist
from cardwar.engine import Round
from cardwar.errors import RoundOverError
from cardwar.match import PAGE_SEEDS, Match
from cardwar.records import Battle
from cardwar.rules import Rules
from cardwar.web.errors import LiveRoundError, MatchNotFound, RateLimited, RoundNotFound
from cardwar.web.game.seats import DEFAULT_SEATS, Seat, at_table, check_seats, seats_json
from cardwar.web.game.views import holdings, round_view
from cardwar.web.settings import Settings
from cardwar.web.site.metrics import BATTLES
from cardwar.web.store import MatchUpdate, RoundMoved, Store
from cardwar.web.workers import Worker, deal_and_look_ahead, long_run, play_on, render

DAY = 24 * 3600


def stored_state(round_: Round) -> tuple[int, int]:
    """A round's battles and clock as the store's columns hold them."""
    return round_.battles, int(round_.time_up)


def seated(stored: tuple[Seat, ...] | None, round_: Round) -> tuple[Seat, ...]:
    """Who sits at a round: the seats its row keeps, or the default seats for a row from
    before seats."""
    return stored if stored is not None else at_table(DEFAULT_SEATS, round_.rules.players)


def moved_meanwhile(round_id: str) -> RateLimited:
    return RateLimited(
        f"battles: round {round_id} was played through another server process at the same time"
        " as this long run, whose battles were not kept",
        1,
    )


@dataclass(slots=True)
class RoundInMemory:
    """A round held in memory with the wall-clock time it started (for timed rounds), the
    match it belongs to, if any, and who sits at its table (names filled in)."""

    round: Round
    created_at: float
    match_id: str | None = None
    seats: tuple[Seat, ...] = ()
    table: str | None = None
    """The code of the live table that plays it: its battles are played there, nowhere else."""
    stored: tuple[int, int] = (0, 0)
    """Its battles and clock (1 once run out) as this process last read or wrote them: another
    process serving the same database may have played it since (`Loader.load`)."""

    def people_in(self) -> tuple[int, ...]:
        """The seats a person plays who still hold cards: a run that stops when they are all
        out (`stop_when_out`, docs/api.md#play-battles) watches these."""
        counts = self.round.counts
        return tuple(
            index
            for index, seat in enumerate(self.seats)
            if seat.kind == "person" and counts[index] > 0
        )


def score(round_: Round, was_out: int | None, seat: int = 0) -> str | None:
    """What a play that was not refused adds to a person's tally: "won", "lost", "drawn" or
    nothing, for the person at `seat`, who was out since battle `was_out` before it. A person
    knocked out while the others play on has lost, then and there, whatever the computers do
    after; otherwise the round counts once it ends."""
    if was_out is not None:
        return None  # counted when the person went out
    out = round_.out_at[seat]
    if out is not None and (round_.outcome is None or out < round_.battles):
        return "lost"
    if round_.outcome is None:
        return None
    winner = round_.outcome.winner
    return "drawn" if winner is None else "won" if winner == seat else "lost"


def refuse_if_over(round_id: str, round_: Round) -> None:
    """Refuse (RoundOverError, naming the round) to play on a round that has ended."""
    if round_.outcome is not None:
        raise RoundOverError(
            f"round {round_id} is over ({round_.outcome.reason.value}): "
            "start a new round to play on"
        )


def refuse_off_table(round_id: str, live: RoundInMemory, at_table: str | None) -> None:
    """Refuse (RoundOverError's 409) a battle of a live table's round asked anywhere but at
    that table: there, each person flips on their own device."""
    if live.table is not None and live.table != at_table:
        raise LiveRoundError(f"round {round_id} is played at a live table: each person flips there")


def match_after(store: Store, match_id: str, round_id: str, winner: int | None) -> MatchUpdate:
    """The match once the round `round_id` has ended with `winner`: saved with the round's
    last battle, in the same write."""
    row = store.matches.get(match_id)
    if row is None:
        raise MatchNotFound.of(match_id)
    position = row.rounds.index(round_id)
    if position < len(row.winners):  # already counted (a clock called after a long run)
        return MatchUpdate(
            match_id,
            row.winners,
            Match.of(row.best_of, row.rules["players"], row.winners).winner,
        )
    match = Match.of(row.best_of, row.rules["players"], row.winners).add(winner)
    return MatchUpdate(match_id, match.winners, match.winner)


class RoundLock:
    """A lock that can be weakly referenced (a bare `threading.Lock` cannot)."""

    __slots__ = ("__weakref__", "acquire", "release")

    def __init__(self) -> None:
        lock = threading.Lock()
        self.acquire = lock.acquire
        self.release = lock.release


class Memory:
    """The rounds in memory: a lock for each round, and the latest rounds used, at most `size`
    of them (the rest are read back from the store when asked for)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._cache: OrderedDict[str, RoundInMemory] = OrderedDict()
        self._cache_lock = threading.Lock()
        # One lock per round, alive while anyone holds or waits for it: a round's long run
        # never holds up another round's click (locks shared between rounds once did).
        self.locks: weakref.WeakValueDictionary[str, RoundLock] = weakref.WeakValueDictionary()
        self._locks_lock = threading.Lock()

    @contextmanager
    def locked(self, round_id: str, wait: bool) -> Iterator[bool]:
        """Lock the round; yield False, locking nothing, if another has it and not `wait`."""
        with self._locks_lock:
            lock = self.locks.get(round_id)
            if lock is None:
                lock = self.locks[round_id] = RoundLock()
        if not lock.acquire(blocking=wait):
            yield False
            return
        try:
            yield True
        finally:
            lock.release()

    def get(self, round_id: str) -> RoundInMemory | None:
        """The round in memory, now the latest used; None if it is not held."""
        with self._cache_lock:
            live = self._cache.get(round_id)
            if live is not None:
                self._cache.move_to_end(round_id)
            return live

    def keep(self, round_id: str, live: RoundInMemory) -> None:
        """Hold the round in memory as the latest used, letting go of the oldest beyond `size`."""
        with self._cache_lock:
            self._cache[round_id] = live
            self._cache.move_to_end(round_id)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)

    def forget(self, round_id: str | None = None) -> None:
        """Let go of the round in memory (of every round, with no id)."""
        with self._cache_lock:
            if round_id is None:
                self._cache.clear()
            else:
                self._cache.pop(round_id, None)


class Loader:
    """The rounds in memory over their rows: each loaded (from its snapshot, or the cache once
    its row says no other process has played it since), shown in the API's shape, saved (only
    over the row it was loaded from), and its clock called. `Rounds` plays them, through one."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._clock = settings.clock
        self.memory = Memory(settings.cache_size)

    def current(
        self, round_id: str, *, look: bool = True, known: tuple[int, int] | None = None
    ) -> tuple[RoundInMemory, bool]:
        """The round as it stands now, and whether this call ended it: a timed round whose
        clock has run out is ended first. Call it holding the round's lock. Without `look`, a
        round in memory is taken as it is, unchecked against its row: for a play, whose save
        finds out (RoundMoved) if another process played it since. With `known` (the battles
        and clock the caller knows its row has), a round in memory that has them is taken as
        it is too."""
        live = self.load(round_id, look=look, known=known)
        try:
            return live, self.check_clock(round_id, live)
        except RoundMoved:
            # Another process ended or played it first: take it as it is now, holding its row.
            with self.store.round_locked(round_id):
                live = self.load(round_id)
                return live, self.check_clock(round_id, live)

    def load(
        self, round_id: str, *, look: bool = True, known: tuple[int, int] | None = None
    ) -> RoundInMemory:
        live = self.memory.get(round_id)
        if live is not None and (not look or live.stored == known):
            return live
        if live is not None:
            now = self.store.round_state(round_id)
            if now is not None and (now.battles, now.time_up) == live.stored:
                return live
            # Played or ended by another process since, or pruned: read again.
            self.memory.forget(round_id)
        row = self.store.get(round_id)
        if row is None:
            raise RoundNotFound.of(round_id)
        # The snapshot resumes the round as it stands: nothing is replayed, however long it ran.
        assert row.snapshot is not None  # the store fills in any row from before snapshots
        round_ = persist.resume(row.snapshot)
        seats = seated(row.seats, round_)
        live = RoundInMemory(
            round_, row.created_at, row.match_id, seats, row.live_table, stored_state(round_)
        )
        self.memory.keep(round_id, live)
        return live

    def view(self, round_id: str, live: RoundInMemory) -> dict[str, Any]:
        """The round in the API's shape, with what only the server knows: its match, and the
        seconds left on its clock (null with no clock, or once the round is over)."""
        shown = round_view(live.round, round_id)
        limit = live.round.rules.time_limit_s
        left = None
        if limit is not None and live.round.outcome is None:
            left = round(max(0.0, limit - (self._clock() - live.created_at)), 1)
        shown["match_id"] = live.match_id
        shown["time_left_s"] = left
        shown["seats"] = seats_json(live.seats)
        return shown

    def save(self, round_id: str, live: RoundInMemory, was_out: Sequence[int | None]) -> None:
        """Store the round after a play that was not refused, with what it adds to seat 0's
        scoreboard and to each person's tally (`was_out`: each seat's `out_at` before it)."""
        round_ = live.round
        match = None
        if live.match_id is not None and round_.outcome is not None:
            match = match_after(self.store, live.match_id, round_id, round_.outcome.winner)
        people = [
            (seat.name, result)
            for index, seat in enumerate(live.seats)
            if seat.kind == "person"
            and (result := score(round_, was_out[index], index)) is not None
        ]
        try:
            self.store.update(
                round_id,
                round_,
                score=score(round_, was_out[0]),
                people=people,
                match=match,
                since=live.stored,
                seats=None if live.table is None else live.seats,
            )
            where = "solo" if live.table is None else "live"
            BATTLES.labels(where).inc(round_.battles - live.stored[0])
            live.stored = stored_state(round_)
        except BaseException:
            # The live round is now ahead of the file: forget it, so the next request resumes
            # the round exactly as stored.
            self.memory.forget(round_id)
            raise

    def check_clock(self, round_id: str, live: RoundInMemory) -> bool:
        """End a timed round whose clock has run out; True if this call ended it."""
        limit = live.round.rules.time_limit_s
        if limit is None or live.round.outcome is not None:
            return False
        if self._clock() - live.created_at < limit:
            return False
        was_out = list(live.round.out_at)
        live.round.call_time()
        self.save(round_id, live, was_out)
        return True


class Rounds:
    """Every round of the server, kept in the database and, while in use, in memory (`memory`)."""

    def __init__(self, store: Store, settings: Settings, worker: Worker) -> None:
        self.store, self.settings, self._clock = store, settings, settings.clock
        self.loader = Loader(store, settings)
        self.memory = self.loader.memory
        self.worker = worker
        self.long_running: set[str] = set()
        """Rounds a long run is playing now: a click on one is told to wait, not left waiting."""

    def create(
        self,
        player: str | None,
        *,
        preset: str = "classic",
        rules: Mapping[str, Any] | None = None,
        seed: int | None = None,
        deal: Sequence[Sequence[str]] | None = None,
        match_id: str | None = None,
        seats: Sequence[Seat] | None = None,
        live_table: str | None = None,
    ) -> dict[str, Any]:
        """Deal a new round (the server picks the seed when none is given) with the four
        `seats` chosen for it (you against the computers when None) and store it; returns it
        in the API's shape. May wait for the worker: call it from a thread."""
        full_rules = Rules.choose(preset, rules)
        table = at_table(check_seats(seats, full_rules.players), full_rules.players)
        if seed is None:
            seed = secrets.randbelow(PAGE_SEEDS)
        round_ = Round(full_rules, seed=seed, deal=deal, cap=self.settings.max_battles)
        if full_rules.battle_limit is None and full_rules.deterministic:
            # It may loop: settle where, away from the event loop, so no click ever pays.
            snapshot = self.worker.run(
                deal_and_look_ahead,
                full_rules.to_dict(),
                seed,
                persist.history(round_)["deal"],
                self.settings.max_battles,
            )
            round_ = persist.resume(snapshot)
        round_id = secrets.token_urlsafe(16)  # 128 random bits
        # A clock starts now.
        live = RoundInMemory(
            round_, self._clock(), match_id, table, live_table, stored_state(round_)
        )
        self.store.insert(round_id, player, round_, live.created_at, match_id, table, live_table)
        self.memory.keep(round_id, live)
        return self.loader.view(round_id, live)

    def get(
        self, round_id: str, *, wait: bool = True, known: tuple[int, int] | None = None
    ) -> dict[str, Any] | None:
        """The round with this id, in the API's shape, taken while no one else plays it.

        A timed round whose clock has run out is ended first. With `wait=False`, returns None
        at once if another request holds the round. With `known`, the battles and clock its
        row is known to have (a live table's presence keeps them), a round in memory that has
        them is not checked against its row.
        """
        with self.memory.locked(round_id, wait) as locked:
            if not locked:
                return None
            live, _ = self.loader.current(round_id, known=known)
            return self.loader.view(round_id, live)

    def play(
        self,
        round_id: str,
        count: int,
        *,
        wait: bool = True,
        stop_when_out: bool = False,
        at_table: str | None = None,
        seats: tuple[Seat, ...] | None = None,
    ) -> tuple[dict[str, Any], list[Battle]] | None:
        """Play up to `count` battles here, stopping when the round ends (or, `stop_when_out`,
        once no person at the table has cards left); raises on a finished round. For a click's
        few battles: `play_long` plays many. A live table (`at_table`) says who sits at it
        (`seats`, read from its row under its lock): the battles carry them, stored with them.

        Returns the round in the API's shape, taken before anyone else may play it, and the
        battles' records. With `wait=False`, returns None at once if another request holds it.
        """
        with self.memory.locked(round_id, wait) as locked:
            if not locked:
                return None
            try:
                return self._play(round_id, count, stop_when_out, at_table, seats)
            except RoundMoved:
                # Another process played it first: play on from where it left the round, this
                # time holding its row, so that this play cannot lose again.
                with self.store.round_locked(round_id):
                    return self._play(round_id, count, stop_when_out, at_table, seats)

    def _play(
        self,
        round_id: str,
        count: int,
        stop_when_out: bool,
        at_table: str | None,
        seats: tuple[Seat, ...] | None,
    ) -> tuple[dict[str, Any], list[Battle]]:
        live, time_up = self.loader.current(round_id, look=False)
        if time_up:
            return self.loader.view(round_id, live), []
        round_ = live.round
        refuse_if_over(round_id, round_)
        refuse_off_table(round_id, live, at_table)
        if seats is not None:
            live.seats = seats  # the table's, as its battles are played
        was_out = list(round_.out_at)
        watched = live.people_in() if stop_when_out else ()
        battles = list(play_on(round_, count, watched))
        self.loader.save(round_id, live, was_out)
        return self.loader.view(round_id, live), battles

    def play_long(self, round_id: str, count: int, stop_when_out: bool = False) -> bytes:
        """Play up to `count` battles in the worker process (stopping as `play` does) and return
        the whole answer as JSON, rendered there. Call it from a thread: it waits for the round
        and the worker."""
        with self.memory.locked(round_id, wait=True):
            live, time_up = self.loader.current(round_id)
            if time_up:
                return render({"round": self.loader.view(round_id, live), "battles": []})
            refuse_if_over(round_id, live.round)
            refuse_off_table(round_id, live, None)
            was_out = list(live.round.out_at)
            shown = self.loader.view(round_id, live)
            extra = {key: shown[key] for key in ("match_id", "time_left_s", "seats")}
            watched = live.people_in() if stop_when_out else ()
            self.long_running.add(round_id)
            try:
                snapshot, body = self.worker.run(
                    long_run, persist.snapshot(live.round), count, round_id, extra, watched
                )
            finally:
                self.long_running.discard(round_id)
            live.round = persist.resume(snapshot)
            try:
                self.loader.save(round_id, live, was_out)
            except RoundMoved:
                raise moved_meanwhile(round_id) from None  # its battles were never answered
            return bytes(body)

    def chance(self, round_id: str) -> dict[str, Any]:
        """Each seat's chance to win the round from where it stands (a certainty once it is
        over), with what each seat holds of the best cards. Call it from a thread: the
        estimate takes a few milliseconds, GIL released, and is made on a copy, so the round
        is free for clicks meanwhile."""
        from cardwar.sim.runs.chance import (  # `cardwar serve` loaded it at start
            chance_to_win,
            settled,
        )

        with self.memory.locked(round_id, wait=True):
            round_ = self.loader.current(round_id)[0].round
            held = holdings(round_)
            if round_.outcome is not None:
                return {**settled(round_).to_dict(), **held}
            copy = persist.resume(persist.snapshot(round_))
        return {**chance_to_win(copy).to_dict(), **held}

    def latest(self, player: str) -> tuple[dict[str, Any], Battle | None] | None:
        """The player's most recent round, finished or not, in the API's shape, with the
        record of its last battle (what the table shows again after a reload)."""
        round_id = self.store.latest_id(player)  # the round itself comes from the cache if live
        if round_id is None:
            return None
        with self.memory.locked(round_id, wait=True):
            live, _ = self.loader.current(round_id)
            return self.loader.view(round_id, live), live.round.last_battle

    def history(self, round_id: str) -> dict[str, Any]:
        """The round's deal and battles so far (`persist.history`), for looking back on it."""
        with self.memory.locked(round_id, wait=True):
            return persist.history(self.loader.current(round_id)[0].round)

    # -- the server's life -----------------------------------------------------------------------

    def prune(self) -> tuple[int, int]:
        """Remove rounds and players older than the settings keep; returns how many went."""
        now = self._clock()
        removed = self.store.prune(
            rounds_before=now - self.settings.keep_days * DAY,
            players_before=now - self.settings.keep_players_days * DAY,
        )
        self.memory.forget()  # a pruned round must not live on in memory
        return removed

    def open(self) -> None:
        """Open the database again after `close` (a server that starts, stops and starts)."""
        self.store.open()

    def close(self) -> None:
        """Stop the worker and close the database."""
        self.worker.close()
        self.store.close()
