"""The rounds the server plays: create, look up and play them, one request per round at a time.

Routes call this; it calls the engine and the store. Each round is guarded by a lock, so twenty
simultaneous one-battle clicks play exactly twenty battles. A battle is committed to SQLite
before its answer leaves, so a restart, or a killed process, loses nothing that was answered.

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
from cardwar.engine import Round, check_seed
from cardwar.errors import RoundOverError, RulesError
from cardwar.match import PAGE_SEEDS, Match, check_best_of, round_seed
from cardwar.records import Battle
from cardwar.rules import Rules
from cardwar.story import battle_again, round_story
from cardwar.web.errors import (
    BattleNotFound,
    MatchNotFound,
    MatchNotYours,
    MatchOver,
    RoundNotFound,
)
from cardwar.web.settings import Settings
from cardwar.web.store import MatchRow, MatchUpdate, Scoreboard, Store
from cardwar.web.views import round_view
from cardwar.web.workers import Worker, deal_and_look_ahead, here, long_run, render, statistics

DAY = 24 * 3600


@dataclass(slots=True)
class Live:
    """A round held in memory with the wall-clock time it started (for timed rounds) and the
    match it belongs to, if any."""

    round: Round
    created_at: float
    match_id: str | None = None


def score(round_: Round, was_out: int | None) -> str | None:
    """What a play that was not refused adds to the person's scoreboard: "won", "lost",
    "drawn" or nothing. Seat 0 knocked out while the others play on has lost, then and there,
    whatever the computers do after; otherwise the round counts once it ends."""
    if was_out is not None:
        return None  # counted when the person went out
    out = round_.out_at[0]
    if out is not None and (round_.outcome is None or out < round_.battles):
        return "lost"
    if round_.outcome is None:
        return None
    winner = round_.outcome.winner
    return "drawn" if winner is None else "won" if winner == 0 else "lost"


class RoundLock:
    """A lock that can be weakly referenced (a bare `threading.Lock` cannot)."""

    __slots__ = ("__weakref__", "acquire", "release")

    def __init__(self) -> None:
        lock = threading.Lock()
        self.acquire = lock.acquire
        self.release = lock.release


class Games:
    """Every round of the server, kept in SQLite and, while in use, in memory."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.worker = Worker()
        self._clock = settings.clock
        self._cache: OrderedDict[str, Live] = OrderedDict()
        self._cache_lock = threading.Lock()
        # One lock per round, alive while anyone holds or waits for it: a round's long run
        # never holds up another round's click (locks shared between rounds once did).
        self._locks: weakref.WeakValueDictionary[str, RoundLock] = weakref.WeakValueDictionary()
        self._locks_lock = threading.Lock()
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
    ) -> dict[str, Any]:
        """Deal a new round (the server picks the seed when none is given) and store it;
        returns it in the API's shape. May wait for the worker: call it from a thread."""
        full_rules = Rules.choose(preset, rules)
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
        live = Live(round_, self._clock(), match_id)  # a timed round's clock starts at the deal
        self.store.insert(round_id, player, round_, live.created_at, match_id)
        self._remember(round_id, live)
        return self._view(round_id, live)

    def get(self, round_id: str, *, wait: bool = True) -> dict[str, Any] | None:
        """The round with this id, in the API's shape, taken while no one else plays it.

        A timed round whose clock has run out is ended first. With `wait=False`, returns None
        at once if another request holds the round.
        """
        with self._holding(round_id, wait) as held:
            if not held:
                return None
            live = self._load(round_id)
            self._check_clock(round_id, live)
            return self._view(round_id, live)

    def play(
        self, round_id: str, count: int, *, wait: bool = True
    ) -> tuple[dict[str, Any], list[Battle]] | None:
        """Play up to `count` battles here, stopping when the round ends; raises on a finished
        round. For a click's few battles: `play_long` plays many.

        Returns the round in the API's shape, taken before anyone else may play it, and the
        battles' records. With `wait=False`, returns None at once if another request holds it.
        """
        with self._holding(round_id, wait) as held:
            if not held:
                return None
            live = self._load(round_id)
            round_ = live.round
            self._refuse_if_over(round_id, round_)
            if self._check_clock(round_id, live):
                return self._view(round_id, live), []
            was_out = round_.out_at[0]
            battles = round_.play(count)
            self._save(round_id, live, score=score(round_, was_out))
            return self._view(round_id, live), battles

    def play_long(self, round_id: str, count: int) -> bytes:
        """Play up to `count` battles in the worker process and return the whole answer as
        JSON, rendered there. Call it from a thread: it waits for the round and the worker."""
        with self._holding(round_id, wait=True):
            live = self._load(round_id)
            self._refuse_if_over(round_id, live.round)
            if self._check_clock(round_id, live):
                return render({"round": self._view(round_id, live), "battles": []})
            was_out = live.round.out_at[0]
            shown = self._view(round_id, live)
            extra = {key: shown[key] for key in ("match_id", "time_left_s")}
            self.long_running.add(round_id)
            try:
                snapshot, body = self.worker.run(
                    long_run, persist.snapshot(live.round), count, round_id, extra
                )
            finally:
                self.long_running.discard(round_id)
            live.round = persist.resume(snapshot)
            self._save(round_id, live, score=score(live.round, was_out))
            return bytes(body)

    def chance(self, round_id: str) -> dict[str, Any]:
        """Each seat's chance to win the round from where it stands: a certainty once it is
        over. Call it from a thread: the estimate takes a few milliseconds, GIL released, and
        is made on a copy, so the round is free for clicks meanwhile."""
        from cardwar.sim.chance import chance_to_win, settled  # `cardwar serve` loaded it at start

        with self._holding(round_id, wait=True):
            round_ = self._current(round_id)
            if round_.outcome is not None:
                return settled(round_).to_dict()
            copy = persist.resume(persist.snapshot(round_))
        return chance_to_win(copy).to_dict()

    def simulate(self, rules: Rules, rounds: int, seed: int) -> dict[str, Any]:
        """Statistics of `rounds` random rounds, played in the worker process."""
        result: dict[str, Any] = self.worker.run(
            statistics,
            rules.to_dict(),
            rounds,
            seed,
            self.settings.simulation_seconds,
            self.settings.simulation_batch,
        )
        return result

    # -- looking back ----------------------------------------------------------------------------

    def replay(self, round_id: str, number: int) -> dict[str, Any]:
        """Battle `number` of the round, played again from its deal. Call it from a thread."""
        history = self._history(round_id)
        played = history["battles"]
        if not 1 <= number <= played:
            raise BattleNotFound(
                f"battle {number}: round {round_id} has played {played} so far"
                if played
                else f"battle {number}: round {round_id} has not played a battle yet"
            )
        run = self.worker.run if number > self.settings.replay_here else here
        result: dict[str, Any] = run(battle_again, history, number)
        return {**result, "round_battles": played}

    def story(self, round_id: str) -> dict[str, Any]:
        """The round told battle by battle, for its chart. Call it from a thread."""
        history = self._history(round_id)
        run = self.worker.run if history["battles"] > self.settings.replay_here else here
        result: dict[str, Any] = run(round_story, history)
        return result

    def _history(self, round_id: str) -> dict[str, Any]:
        with self._holding(round_id, wait=True):
            live = self._load(round_id)
            self._check_clock(round_id, live)
            return persist.history(live.round)

    # -- matches ---------------------------------------------------------------------------------

    def create_match(
        self,
        player: str | None,
        *,
        best_of: int,
        preset: str = "classic",
        rules: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> dict[str, Any]:
        """Start a match of `best_of` rounds under the given rules, and deal its first round;
        returns the match in the API's shape, with that round. The match's seed deals every
        round (the server picks one when none is given). Call it from a thread."""
        check_best_of(best_of)
        chosen = Rules.choose(preset, rules)
        seed = check_seed(seed) if seed is not None else secrets.randbelow(PAGE_SEEDS)
        match_id = secrets.token_urlsafe(16)
        self.store.insert_match(match_id, player, best_of, chosen.to_dict(), seed, self._clock())
        round_ = self.create(
            player, rules=chosen.to_dict(), seed=round_seed(seed, 0), match_id=match_id
        )
        return {**self.match(match_id), "round": round_}

    def next_round(self, match_id: str, player: str | None) -> dict[str, Any]:
        """Deal the match's next round; refused (409) once the match is over, or while its
        last round is still being played, and (403) for any browser but the one that started it
        (another could otherwise leave the owner waiting on a round it cannot see). Call it
        from a thread."""
        row = self._match_row(match_id)
        if row.player is not None and row.player != player:
            raise MatchNotYours(
                f"match {match_id}: only the browser that started it deals its rounds"
            )
        match = Match.of(row.best_of, row.rules["players"], row.winners)
        if match.over:
            raise MatchOver(f"match {match_id} is over: seat {match.winner} won it")
        if len(row.rounds) > len(row.winners):
            raise MatchOver(
                f"match {match_id}: round {row.rounds[-1]} is still being played; finish it "
                "before dealing the next"
            )
        seed = round_seed(row.seed, len(row.rounds))
        round_ = self.create(player, rules=row.rules, seed=seed, match_id=match_id)
        return {**self.match(match_id), "round": round_}

    def match(self, match_id: str) -> dict[str, Any]:
        """The match in the API's shape: its rounds, the score, the leader and the winner."""
        row = self._match_row(match_id)
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
        }

    def current_match_id(self, player: str, latest: dict[str, Any] | None) -> str | None:
        """The match the table shows: the latest round's, or else the player's last match
        while it is undecided (a replay or a shared deal was played in the middle of it)."""
        if latest is not None and latest["match_id"] is not None:
            return str(latest["match_id"])
        return self.store.open_match_id(player)

    def _match_row(self, match_id: str) -> MatchRow:
        row = self.store.get_match(match_id)
        if row is None:
            raise MatchNotFound.of(match_id)
        return row

    def _match_after(self, match_id: str, round_id: str, winner: int | None) -> MatchUpdate:
        """The match once the round `round_id` has ended with `winner`."""
        row = self._match_row(match_id)
        position = row.rounds.index(round_id)
        if position < len(row.winners):  # already counted (a clock called after a long run)
            return MatchUpdate(
                match_id,
                row.winners,
                Match.of(row.best_of, row.rules["players"], row.winners).winner,
            )
        match = Match.of(row.best_of, row.rules["players"], row.winners).add(winner)
        return MatchUpdate(match_id, match.winners, match.winner)

    def latest(self, player: str) -> tuple[dict[str, Any], Battle | None] | None:
        """The player's most recent round, finished or not, in the API's shape, with the
        record of its last battle (what the table shows again after a reload)."""
        round_id = self.store.latest_id(player)  # the round itself comes from the cache if live
        if round_id is None:
            return None
        with self._holding(round_id, wait=True):
            live = self._load(round_id)
            self._check_clock(round_id, live)
            return self._view(round_id, live), live.round.last_battle

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

    def prune(self) -> tuple[int, int]:
        """Remove rounds and players older than the settings keep; returns how many went."""
        now = self._clock()
        removed = self.store.prune(
            rounds_before=now - self.settings.keep_days * DAY,
            players_before=now - self.settings.keep_players_days * DAY,
        )
        with self._cache_lock:
            self._cache.clear()  # a pruned round must not live on in memory
        return removed

    def open(self) -> None:
        """Open the database again after `close` (a server that starts, stops and starts)."""
        self.store.open()

    def close(self) -> None:
        """Stop the worker and close the database."""
        self.worker.close()
        self.store.close()

    # -- inside ----------------------------------------------------------------------------------

    @contextmanager
    def _holding(self, round_id: str, wait: bool) -> Iterator[bool]:
        """Hold the round's lock; yield False, holding nothing, if it is taken and not `wait`."""
        with self._locks_lock:
            lock = self._locks.get(round_id)
            if lock is None:
                lock = self._locks[round_id] = RoundLock()
        if not lock.acquire(blocking=wait):
            yield False
            return
        try:
            yield True
        finally:
            lock.release()

    def _current(self, round_id: str) -> Round:
        """The round as it stands now, its clock checked; call it holding the round's lock."""
        live = self._load(round_id)
        self._check_clock(round_id, live)
        return live.round

    def _load(self, round_id: str) -> Live:
        with self._cache_lock:
            live = self._cache.get(round_id)
            if live is not None:
                self._cache.move_to_end(round_id)
                return live
        row = self.store.get(round_id)
        if row is None:
            raise RoundNotFound.of(round_id)
        # The snapshot resumes the round as it stands: nothing is replayed, however long it ran.
        assert row.snapshot is not None  # the store fills in any row from before snapshots
        live = Live(persist.resume(row.snapshot), row.created_at, row.match_id)
        self._remember(round_id, live)
        return live

    def _remember(self, round_id: str, live: Live) -> None:
        with self._cache_lock:
            self._cache[round_id] = live
            self._cache.move_to_end(round_id)
            while len(self._cache) > self.settings.cache_size:
                self._cache.popitem(last=False)

    @staticmethod
    def _refuse_if_over(round_id: str, round_: Round) -> None:
        if round_.outcome is not None:
            raise RoundOverError(
                f"round {round_id} is over ({round_.outcome.reason.value}): "
                "start a new round to play on"
            )

    def _view(self, round_id: str, live: Live) -> dict[str, Any]:
        """The round in the API's shape, with what only the server knows: its match, and the
        seconds left on its clock (null with no clock, or once the round is over)."""
        shown = round_view(live.round, round_id)
        limit = live.round.rules.time_limit_s
        left = None
        if limit is not None and live.round.outcome is None:
            left = round(max(0.0, limit - (self._clock() - live.created_at)), 1)
        shown["match_id"] = live.match_id
        shown["time_left_s"] = left
        return shown

    def _save(self, round_id: str, live: Live, *, score: str | None) -> None:
        round_ = live.round
        match = None
        if live.match_id is not None and round_.outcome is not None:
            match = self._match_after(live.match_id, round_id, round_.outcome.winner)
        try:
            self.store.update(round_id, round_, score=score, match=match)
        except BaseException:
            # The live round is now ahead of the file: forget it, so the next request resumes
            # the round exactly as stored.
            with self._cache_lock:
                self._cache.pop(round_id, None)
            raise

    def _check_clock(self, round_id: str, live: Live) -> bool:
        """End a timed round whose clock has run out; True if this call ended it."""
        limit = live.round.rules.time_limit_s
        if limit is None or live.round.outcome is not None:
            return False
        if self._clock() - live.created_at < limit:
            return False
        was_out = live.round.out_at[0]
        live.round.call_time()
        self._save(round_id, live, score=score(live.round, was_out))
        return True
