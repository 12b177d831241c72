"""The rounds the server plays: create, look up and play them, one request per round at a time.

Routes call this; it calls the engine and the store. Each round is guarded by a lock, so twenty
simultaneous one-battle clicks play exactly twenty battles. A battle is committed to SQLite
before its answer leaves, so a restart, or a killed process, loses nothing that was answered.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cardwar.engine import MAX_SEED, Battle, Round
from cardwar.errors import RoundOverError, RulesError
from cardwar.rules import Rules
from cardwar.web.store import Scoreboard, Store

LOCK_STRIPES = 64


class RoundNotFound(LookupError):
    """No round has this id."""


@dataclass(slots=True)
class Live:
    """A round held in memory with the wall-clock time it started (for timed rounds)."""

    round: Round
    created_at: float


class Games:
    """Every round of the server, kept in SQLite and, while in use, in memory."""

    def __init__(self, store: Store, cache_size: int = 512) -> None:
        self.store = store
        self._cache: OrderedDict[str, Live] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    def create(
        self,
        player: str | None,
        *,
        preset: str = "classic",
        rules: Mapping[str, Any] | None = None,
        seed: int | None = None,
        deal: Sequence[Sequence[str]] | None = None,
    ) -> dict[str, Any]:
        """Deal a new round (the server picks the seed when none is given) and store it;
        returns it in the API's shape."""
        base = Rules.preset(preset)
        full_rules = base if rules is None else Rules.from_dict(rules, base=base)
        if seed is None:
            seed = secrets.randbelow(MAX_SEED + 1)
        round_ = Round(full_rules, seed=seed, deal=deal)
        round_id = secrets.token_urlsafe(12)
        live = Live(round_, time.time())  # the clock of a timed round starts at the deal
        self.store.insert(round_id, player, round_, live.created_at)
        self._remember(round_id, live)
        return round_.to_dict(round_id)

    def get(self, round_id: str, *, wait: bool = True) -> dict[str, Any] | None:
        """The round with this id, in the API's shape, taken while no one else plays it.

        A timed round whose clock has run out is ended first. With `wait=False`, returns None
        at once if another request holds the round.
        """
        with self._holding(round_id, wait) as held:
            if not held:
                return None
            return self._current(round_id).to_dict(round_id)

    def play(
        self, round_id: str, count: int, *, wait: bool = True
    ) -> tuple[dict[str, Any], list[Battle]] | None:
        """Play up to `count` battles, stopping when the round ends; raises on a finished round.

        Returns the round in the API's shape, taken before anyone else may play it, and the
        battles' records. With `wait=False`, returns None at once if another request holds it.
        """
        with self._holding(round_id, wait) as held:
            if not held:
                return None
            live = self._load(round_id)
            round_ = live.round
            if round_.outcome is not None:
                raise RoundOverError(
                    f"round {round_id} is over ({round_.outcome.reason.value}): "
                    "start a new round to play on"
                )
            if self._check_clock(round_id, live):
                return round_.to_dict(round_id), []
            battles = round_.play(count)
            self._save(round_id, round_)
            return round_.to_dict(round_id), battles

    def latest(self, player: str) -> tuple[dict[str, Any], Battle | None] | None:
        """The player's most recent round, finished or not, in the API's shape, with the
        record of its last battle (what the table shows again after a reload)."""
        round_id = self.store.latest_id(player)  # the round itself comes from the cache if live
        if round_id is None:
            return None
        with self._holding(round_id, wait=True):
            round_ = self._current(round_id)
            return round_.to_dict(round_id), round_.last_battle

    def house_rules(self, player: str) -> Rules:
        """The rules the player chose for their next rounds (classic until they choose)."""
        stored = self.store.house_rules(player)
        if stored is None:
            return Rules.preset("classic")
        try:
            return Rules.from_dict(stored)
        except RulesError:  # stored by an older version with other limits: start afresh
            return Rules.preset("classic")

    def choose_house_rules(
        self, player: str, *, preset: str = "classic", rules: Mapping[str, Any] | None = None
    ) -> Rules:
        """Check and remember the player's choice of rules; returns them filled in."""
        base = Rules.preset(preset)
        chosen = base if rules is None else Rules.from_dict(rules, base=base)
        self.store.set_house_rules(player, chosen.to_dict())
        return chosen

    def scoreboard(self, player: str) -> Scoreboard:
        """The player's rounds won, lost and drawn."""
        return self.store.scoreboard(player)

    # -- inside ----------------------------------------------------------------------------------

    @contextmanager
    def _holding(self, round_id: str, wait: bool) -> Iterator[bool]:
        """Hold the round's lock; yield False, holding nothing, if it is taken and not `wait`."""
        lock = self._locks[hash(round_id) % LOCK_STRIPES]
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
            raise RoundNotFound(f"round {round_id!r}: no such round")
        live = Live(Round.from_history(row.history), row.created_at)
        self._remember(round_id, live)
        return live

    def _remember(self, round_id: str, live: Live) -> None:
        with self._cache_lock:
            self._cache[round_id] = live
            self._cache.move_to_end(round_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _save(self, round_id: str, round_: Round) -> None:
        try:
            self.store.update(round_id, round_)
        except BaseException:
            # The live round is now ahead of the file: forget it, so the next request rebuilds
            # the round exactly as stored.
            with self._cache_lock:
                self._cache.pop(round_id, None)
            raise

    def _check_clock(self, round_id: str, live: Live) -> bool:
        """End a timed round whose clock has run out; True if this call ended it."""
        limit = live.round.rules.time_limit_s
        if limit is None or live.round.outcome is not None:
            return False
        if time.time() - live.created_at < limit:
            return False
        live.round.call_time()
        self._save(round_id, live.round)
        return True
