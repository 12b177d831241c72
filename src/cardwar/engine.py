"""The readable rules engine: a round is rules + deal + seed + how many battles were played.

Inside a round a card is its index into `DECK` (0..51), so a rank is `card >> 2` and a position
packs into bytes for exact loop detection; every record handed out holds `Card` values.
"""

from __future__ import annotations

import base64
import random
import struct
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from cardwar.cards import DECK, Card
from cardwar.errors import CardError, DealError, RoundOverError, RulesError, quote
from cardwar.rules import Gather, LimitOutcome, Rules, Shortage

MAX_SEED = 2**63 - 1
_tuple_new = tuple.__new__
_INDEX: dict[Card, int] = {card: i for i, card in enumerate(DECK)}


class Reason(StrEnum):
    """Why a round ended (SPEC §4)."""

    ALL_CARDS = "all_cards"
    """Everyone else ran out of cards: the last player with cards wins."""
    OPPONENT_SHORT = "opponent_short"
    """The last opponents could not finish a war and lost (`shortage: "lose"`)."""
    BOTH_SHORT = "both_short"
    """Every war player was short at the same point: a draw."""
    BATTLE_LIMIT = "battle_limit"
    """The battle limit was reached: a draw."""
    MOST_CARDS = "most_cards"
    """The battle limit was reached and the cards counted: the single leader wins."""
    TIME_UP = "time_up"
    """The clock ran out and the cards were counted: the single leader wins."""
    MOST_CARDS_TIE = "most_cards_tie"
    """The cards were counted and the leaders tie: a draw."""
    CYCLE = "cycle"
    """A position repeated with nothing left to chance, so the round could never end: a draw."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a round ended; `winner` is a seat, or None for a draw."""

    winner: int | None
    reason: Reason

    def to_dict(self) -> dict[str, int | str | None]:
        """`{"winner": seat or null, "reason": "..."}`."""
        return {"winner": self.winner, "reason": self.reason.value}


# Records are NamedTuples rather than frozen dataclasses: they are just as immutable, and the
# engine makes one or more per battle, where a frozen dataclass's __init__ costs twice as much.
class Step(NamedTuple):
    """One laying of cards: the first turn of a battle, or one war.

    `up[seat]` is the card the seat turned face up (None if it turned none), `down[seat]` how many
    cards it laid face down (a short player's forfeited cards count here), and `short` the seats
    that were short at this step.
    """

    up: tuple[Card | None, ...]
    down: tuple[int, ...]
    short: tuple[int, ...] = ()


class Battle(NamedTuple):
    """Everything one press of Turn cards did, enough to animate or narrate it."""

    number: int
    steps: tuple[Step, ...]
    winner: int | None
    taken: int
    counts: tuple[int, ...]
    outcome: Outcome | None

    @property
    def wars(self) -> int:
        """How many ties this battle broke with a war (a double war is two)."""
        return sum(1 for step in self.steps[1:] if any(card is not None for card in step.up))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Battle:
        """The record that `to_dict()` wrote."""
        steps = tuple(
            Step(
                tuple(None if code is None else Card.parse(code) for code in step["up"]),
                tuple(step["down"]),
                tuple(step["short"]),
            )
            for step in data["steps"]
        )
        outcome = data["outcome"]
        return cls(
            data["number"],
            steps,
            data["winner"],
            data["taken"],
            tuple(data["counts"]),
            None if outcome is None else Outcome(outcome["winner"], Reason(outcome["reason"])),
        )

    def to_dict(self) -> dict[str, object]:
        """The record as plain JSON values (the API's battle record)."""
        return {
            "number": self.number,
            "steps": [
                {
                    "up": [None if card is None else card.code for card in step.up],
                    "down": list(step.down),
                    "short": list(step.short),
                }
                for step in self.steps
            ],
            "winner": self.winner,
            "taken": self.taken,
            "wars": self.wars,
            "counts": list(self.counts),
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
        }


def check_seed(seed: object) -> int:
    """The seed if it is a whole number in 0..2**63-1; raises RulesError naming it otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise RulesError(f"seed: must be a whole number from 0 to {MAX_SEED}, not {quote(seed)}")
    return seed


def parse_deal(
    deal: Sequence[Sequence[str | Card]], players: int | None = None
) -> list[list[Card]]:
    """An explicit deal as piles of cards (top first), checked as SPEC §2 asks."""
    if isinstance(deal, str | bytes) or not isinstance(deal, Sequence):
        raise DealError("deal: must be a list of piles, one per seat, each a list of card codes")
    if not 2 <= len(deal) <= 4:
        raise DealError(f"deal: has {len(deal)} piles, must have 2 to 4 (one per seat)")
    if players is not None and len(deal) != players:
        raise DealError(f"deal: has {len(deal)} piles but the rules have players={players}")
    piles: list[list[Card]] = []
    seen: dict[Card, int] = {}
    for seat, pile in enumerate(deal):
        if isinstance(pile, str | bytes) or not isinstance(pile, Sequence):
            raise DealError(f"deal: pile {seat} must be a list of card codes such as ['9S', 'KD']")
        if not pile:
            raise DealError(f"deal: pile {seat} is empty, every seat needs at least one card")
        cards = []
        for code in pile:
            try:
                card = code if isinstance(code, Card) else Card.parse(code)
            except CardError as error:
                raise DealError(f"deal: pile {seat}: {error}") from None
            if card in seen:
                raise DealError(
                    f"deal: card {card.code} appears twice (pile {seen[card]} and pile {seat})"
                )
            seen[card] = seat
            cards.append(card)
        piles.append(cards)
    return piles


class Round:
    """One round of War: play it a battle at a time with `play_battle()`."""

    # The two-player no-tie shortcut; tests switch it off to check it against the general path.
    _quick = True

    def __init__(
        self,
        rules: Rules,
        *,
        seed: int = 0,
        deal: Sequence[Sequence[str | Card]] | None = None,
        cap: int | None = None,
    ) -> None:
        """A new round: a random deal from `seed`, or the explicit `deal` (seed then only
        drives shuffled returns). `cap` is a safety cap on battles beyond the rules (the web
        server's `--max-battles`): the round ends there as at a battle limit."""
        if not isinstance(rules, Rules):
            raise RulesError("rules: must be a Rules value")
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise RulesError(f"cap: must be a whole number 1 or more, not {quote(cap)}")
        self.rules = rules
        self.seed = check_seed(seed)
        self.cap = cap
        self._rng = random.Random(seed)
        if deal is None:
            order = list(range(52))
            self._rng.shuffle(order)
            size, players = rules.cards_per_hand, rules.players
            piles = [order[seat : size * players : players] for seat in range(players)]
            self.explicit_deal = False
        else:
            piles = [[_INDEX[c] for c in pile] for pile in parse_deal(deal, rules.players)]
            self.explicit_deal = True
        self._deal: tuple[tuple[int, ...], ...] = tuple(tuple(pile) for pile in piles)
        self._piles: list[deque[int]] = [deque(pile) for pile in piles]
        self._zeros = (0,) * len(piles)
        self._table: list[int] = []
        self.cards_in_play = sum(len(pile) for pile in piles)
        self.battles = 0
        self.wars = 0
        self.outcome: Outcome | None = None
        self.last_battle: Battle | None = None  # what the table shows after a reload
        self.out_at: list[int | None] = [None] * len(piles)
        """The battle after which each seat first held no cards (SPEC §3: it is out)."""
        self.time_up = False  # the caller's clock ran out and ended the round
        limits = [limit for limit in (rules.battle_limit, cap) if limit is not None]
        self._limit = min(limits) if limits else None
        # A round with no battle limit and a fixed return order may loop: watch for it.
        self._watching = rules.battle_limit is None and rules.deterministic
        self._watch: _LoopWatch | None = None

    # -- reading the state -------------------------------------------------------------------

    @property
    def counts(self) -> tuple[int, ...]:
        """Cards in each seat's pile."""
        return tuple(map(len, self._piles))

    @property
    def piles(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's pile, top card first."""
        return tuple(tuple(DECK[c] for c in pile) for pile in self._piles)

    @property
    def deal(self) -> tuple[tuple[Card, ...], ...]:
        """The piles as dealt, top card first."""
        return tuple(tuple(DECK[c] for c in pile) for pile in self._deal)

    @property
    def table(self) -> tuple[Card, ...]:
        """Cards left on the table by a drawn war (empty unless the round ended `both_short`)."""
        return tuple(DECK[c] for c in self._table)

    @property
    def over(self) -> bool:
        """True once the round has an outcome."""
        return self.outcome is not None

    # -- playing -------------------------------------------------------------------------------

    def play(self, count: int | None = None) -> list[Battle]:
        """Play up to `count` battles (all of them when None), stopping when the round ends."""
        records: list[Battle] = []
        while self.outcome is None and (count is None or len(records) < count):
            records.append(self.play_battle())
        return records

    def play_battle(self) -> Battle:
        """Play one battle, wars included, and return its record."""
        if self.outcome is not None:
            raise RoundOverError(
                f"the round is over ({self.outcome.reason.value}): start a new one"
            )
        piles = self._piles
        if self._quick and len(piles) == 2 and piles[0] and piles[1]:
            record = self._quick_battle()
            if record is not None:
                return record
        up: list[int | None] = [pile.popleft() if pile else None for pile in piles]
        first = Step(_cards(up), self._zeros)
        # (seat, card) in the order the cards were laid; a seat with no card is out.
        laid = [(seat, card) for seat, card in enumerate(up) if card is not None]
        contenders = [seat for seat, _ in laid]
        ranks = [card >> 2 for _, card in laid]
        best = min(ranks) if self.rules.low_wins else max(ranks)
        if ranks.count(best) == 1:  # no tie: by far the most common battle
            steps: tuple[Step, ...] = (first,)
            winner: int | None = contenders[ranks.index(best)]
            lost_short = False
        else:
            tied = [seat for seat, rank in zip(contenders, ranks, strict=True) if rank == best]
            wars, winner, lost_short = self._war(tied, laid)
            steps = (first, *wars)

        taken = 0
        if winner is None:
            self._table = [card for _, card in laid]
        else:
            gather = self.rules.gather
            if gather is Gather.WINNER_FIRST:
                cards = [c for s, c in laid if s == winner]
                cards += [c for s, c in laid if s != winner]
            else:
                cards = [card for _, card in laid]
                if gather is Gather.SHUFFLED:
                    self._rng.shuffle(cards)
            piles[winner].extend(cards)
            taken = len(cards)
        self.battles += 1
        counts = tuple(map(len, piles))
        if 0 in counts:
            self._mark_out(counts)
        self.outcome = self._ending(winner, lost_short, counts)
        self.last_battle = Battle(self.battles, steps, winner, taken, counts, self.outcome)
        return self.last_battle

    def _quick_battle(self) -> Battle | None:
        """The common battle, two players and no tie, without the general bookkeeping.

        Exactly what the general path does for that case, only faster: the engine must reach
        200,000 battles a second with records (tests check both paths agree on many rounds).
        Returns None, having touched nothing, when the top cards tie.
        """
        p0, p1 = self._piles
        a, b = p0[0], p1[0]
        ra, rb = a >> 2, b >> 2
        if ra == rb:
            return None
        p0.popleft()
        p1.popleft()
        rules = self.rules
        winner = 0 if (ra > rb) is not rules.low_wins else 1
        if rules.gather is Gather.WINNER_FIRST and winner == 1:
            cards = [b, a]
        else:
            cards = [a, b]
            if rules.gather is Gather.SHUFFLED:
                self._rng.shuffle(cards)
        (p1 if winner else p0).extend(cards)
        self.battles += 1
        counts = (len(p0), len(p1))
        if counts[0] and counts[1]:
            self.outcome = None
        else:
            self._mark_out(counts)
            self.outcome = Outcome(winner, Reason.ALL_CARDS)
        limit = self._limit
        if self.outcome is None and (
            self._watching or (limit is not None and self.battles >= limit)
        ):
            self.outcome = self._ending(winner, False, counts)
        # tuple.__new__ skips NamedTuple's Python-level __new__: a third of this path's time.
        first = _tuple_new(Step, ((DECK[a], DECK[b]), self._zeros, ()))
        record: Battle = _tuple_new(
            Battle, (self.battles, (first,), winner, 2, counts, self.outcome)
        )
        self.last_battle = record
        return record

    def _war(
        self, tied: list[int], laid: list[tuple[int, int]]
    ) -> tuple[list[Step], int | None, bool]:
        """Fight the wars that follow a tie among `tied`, laying cards onto `laid`.

        Returns the war steps, the winner (None for a draw) and whether a player lost by being
        short. Only the tied players fight; everyone else's cards stay on the table.
        """
        rules, piles = self.rules, self._piles
        lose = rules.shortage is Shortage.LOSE
        need = rules.war_down + 1
        steps: list[Step] = []
        lost_short = False
        while True:
            down = [0] * len(piles)
            up: list[int | None] = [None] * len(piles)
            short = tuple(seat for seat in tied if len(piles[seat]) < need)
            if lose:
                fighters = [seat for seat in tied if seat not in short]
            else:  # last_card: a short player still fights while they hold a card
                fighters = [seat for seat in tied if piles[seat]]
                if len(fighters) < 2:
                    # No war is fought, so only the players who dropped out were short of it.
                    short = tuple(seat for seat in tied if not piles[seat])
            if not fighters:
                # Everyone short at once: a draw, and the cards stay where they are.
                steps.append(Step(_cards(up), tuple(down), short))
                return steps, None, lost_short
            lost_short = lost_short or (lose and bool(short))
            fought = len(fighters) > 1
            for seat in tied:
                pile = piles[seat]
                if seat in fighters:
                    if not fought:
                        continue  # the last one standing wins without laying a card
                    lay = min(rules.war_down, len(pile) - 1)
                    for _ in range(lay):
                        laid.append((seat, pile.popleft()))
                    card = pile.popleft()
                    laid.append((seat, card))
                    down[seat], up[seat] = lay, card
                elif lose:
                    # A short player cannot finish the war: their remaining cards join the table.
                    down[seat] = len(pile)
                    laid.extend((seat, card) for card in pile)
                    pile.clear()
            steps.append(Step(_cards(up), tuple(down), short))
            if not fought:
                return steps, fighters[0], lost_short
            self.wars += 1
            ranks = [card >> 2 for card in up if card is not None]
            best = min(ranks) if rules.low_wins else max(ranks)
            tied = [seat for seat, rank in zip(fighters, ranks, strict=True) if rank == best]
            if len(tied) == 1:
                return steps, tied[0], lost_short

    def _mark_out(self, counts: tuple[int, ...]) -> None:
        for seat, count in enumerate(counts):
            if count == 0 and self.out_at[seat] is None:
                self.out_at[seat] = self.battles

    def call_time(self) -> Outcome:
        """End the round by a count because its clock ran out (the caller owns the clock)."""
        if self.outcome is not None:
            raise RoundOverError(
                f"the round is over ({self.outcome.reason.value}): start a new one"
            )
        if self.rules.time_limit_s is None:
            raise RulesError("time_limit_s: this round has no clock, so time cannot run out")
        self.outcome = self._count(Reason.TIME_UP)
        self.time_up = True
        return self.outcome

    # -- endings -------------------------------------------------------------------------------

    def _ending(
        self, winner: int | None, lost_short: bool, counts: tuple[int, ...]
    ) -> Outcome | None:
        if winner is None:
            return Outcome(None, Reason.BOTH_SHORT)
        if len(counts) - counts.count(0) == 1:
            return Outcome(winner, Reason.OPPONENT_SHORT if lost_short else Reason.ALL_CARDS)
        limit = self._limit
        if limit is not None and self.battles >= limit:
            if self.rules.limit_outcome is LimitOutcome.MOST_CARDS:
                return self._count(Reason.MOST_CARDS)
            return Outcome(None, Reason.BATTLE_LIMIT)
        if self._watching:
            if self._watch is None:
                self._watch = _LoopWatch(self)
            if self._watch.repeats_at(self.battles):
                return Outcome(None, Reason.CYCLE)
        return None

    def _count(self, reason: Reason) -> Outcome:
        counts = self.counts
        most = max(counts)
        leaders = [seat for seat, count in enumerate(counts) if count == most]
        if len(leaders) > 1:
            return Outcome(None, Reason.MOST_CARDS_TIE)
        return Outcome(leaders[0], reason)

    def _position(self) -> bytes:
        # 255 is no card, so it separates the piles unambiguously.
        return b"\xff".join(bytes(pile) for pile in self._piles)

    def look_ahead(self) -> None:
        """Settle now whether, and at which battle, this round loops before its cap.

        A round with no battle limit and a fixed return order watches for a loop as it goes,
        which costs a little on every battle and, the moment the loop shows, a walk back to where
        it began. A server calls this once, away from its players' requests, so that no battle
        ever pays for it again. Without a cap (or rules that cannot loop) it does nothing.
        """
        if self._watching and self.cap is not None:
            if self._watch is None:
                self._watch = _LoopWatch(self)
            self._watch.look(self.cap)

    def _fresh(self) -> Round:
        """This round as dealt, with no cap and no watch of its own (a loop watch's scout)."""
        fresh = Round(self.rules, seed=self.seed, deal=self.deal)
        fresh._watching = False
        return fresh

    # -- history -------------------------------------------------------------------------------

    @classmethod
    def rebuild(
        cls,
        rules: Rules,
        *,
        seed: int = 0,
        deal: Sequence[Sequence[str | Card]] | None = None,
        battles: int = 0,
        time_up: bool = False,
        cap: int | None = None,
    ) -> Round:
        """The exact round that `battles` battles (and a clock that ran out) make of this deal."""
        if isinstance(battles, bool) or not isinstance(battles, int) or battles < 0:
            raise RulesError(f"battles: must be a whole number 0 or more, not {quote(battles)}")
        round_ = cls(rules, seed=seed, deal=deal, cap=cap)
        played = round_.play(battles)
        if len(played) < battles:
            raise RulesError(f"battles: the round ended after {len(played)}, not {battles}")
        if time_up:
            round_.call_time()
        return round_

    def history(self) -> dict[str, Any]:
        """What rebuilds this round exactly: rules, seed, the deal if explicit, battles played,
        whether its clock ran out, and its safety cap."""
        return {
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deal": [[card.code for card in pile] for pile in self.deal]
            if self.explicit_deal
            else None,
            "battles": self.battles,
            "time_up": self.time_up,
            "cap": self.cap,
        }

    @classmethod
    def from_history(cls, history: Mapping[str, Any]) -> Round:
        """The round that `history()` describes; every value is checked as it is rebuilt."""
        rules = history.get("rules", {})
        return cls.rebuild(
            Rules.from_dict(rules),
            seed=history.get("seed", 0),
            deal=history.get("deal"),
            battles=history.get("battles", 0),
            time_up=history.get("time_up", False) is True,
            cap=history.get("cap"),
        )

    def snapshot(self) -> dict[str, Any]:
        """The round as it stands, as plain JSON values: `resume()` restores it exactly without
        replaying a battle, however long it has run. The web server stores one per battle."""
        snap = self.history()
        snap.update(
            piles=[list(pile) for pile in self._piles],  # card indices into DECK, top first
            table=list(self._table),
            wars=self.wars,
            out_at=list(self.out_at),
            outcome=None if self.outcome is None else self.outcome.to_dict(),
            last_battle=None if self.last_battle is None else self.last_battle.to_dict(),
            rng=_pack_state(self._rng) if self.rules.gather is Gather.SHUFFLED else None,
            watch=None if self._watch is None else self._watch.state(),
        )
        return snap

    @classmethod
    def resume(cls, snap: Mapping[str, Any]) -> Round:
        """The round that `snapshot()` described, exactly, generator and loop watch included."""
        round_ = cls(
            Rules.from_dict(snap["rules"]), seed=snap["seed"], deal=snap["deal"], cap=snap["cap"]
        )
        piles, table = snap["piles"], snap["table"]
        held = sorted(card for pile in [*piles, table] for card in pile)
        if len(piles) != round_.rules.players or held != sorted(sum(round_._deal, ())):
            raise DealError("snapshot: its piles do not hold the cards of its deal")
        round_._piles = [deque(pile) for pile in piles]
        round_._table = list(table)
        round_.battles, round_.wars, round_.time_up = snap["battles"], snap["wars"], snap["time_up"]
        round_.out_at = list(snap.get("out_at") or [None] * len(piles))
        outcome = snap["outcome"]
        if outcome is not None:
            round_.outcome = Outcome(outcome["winner"], Reason(outcome["reason"]))
        if snap["last_battle"] is not None:
            round_.last_battle = Battle.from_dict(snap["last_battle"])
        if snap["rng"] is not None:
            round_._rng.setstate(_unpack_state(snap["rng"]))
        if snap["watch"] is not None:
            round_._watch = _LoopWatch.resume(round_, snap["watch"])
        return round_

    def to_dict(self, round_id: str | None = None) -> dict[str, object]:
        """The round in the API's shape (SPEC §7); `piles`, and an explicit deal as dealt, only
        once it is over."""
        out: dict[str, object] = {
            "id": round_id,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "battles": self.battles,
            "wars": self.wars,
            "counts": list(self.counts),
            "out_at": list(self.out_at),
            "outcome": None if self.outcome is None else self.outcome.to_dict(),
        }
        if self.outcome is not None:
            out["piles"] = [[card.code for card in pile] for pile in self.piles]
            if self.explicit_deal:  # for replaying or sharing it: no peeking before the end
                out["deal"] = [[card.code for card in pile] for pile in self.deal]
        return out


class _LoopWatch:
    """Finds the battle at which a round with a fixed return order first repeats a position,
    exactly and in constant memory, however long the round runs.

    A scout plays the same round from its deal, ahead of it, by Brent's algorithm: it keeps one
    position and compares every later one with it, keeping a new one at battles 1, 3, 7, 15, ...
    If the first repeat comes at battle E (the position after E battles is the one after some
    earlier mu battles, and the loop is E - mu long), the scout notices by battle 3E - 2. So a
    scout t battles in without a find proves that no repeat comes before battle (t + 2) / 3, and
    the round may play on while its scout stays three times as far ahead. Once the scout knows
    the loop's length, two more copies from the deal, that length apart, walk on together until
    they meet, which is at the first repeat. A scout whose round ends has proved there is no loop.
    """

    def __init__(self, round_: Round) -> None:
        self._scout = round_._fresh()
        self._kept = self._scout._position()
        self._power = 1  # Brent: how far the scout may go past the kept position this time
        self._length = 0  # battles since the kept position
        self.end: int | None = None
        """The battle at which the first repeat is reached, once known."""
        self.ends_otherwise = False
        """True once the scout's round ended: this round never loops."""

    def repeats_at(self, battles: int) -> bool:
        """True if the position after `battles` battles is the round's first repeat."""
        self.look(battles)
        return self.end == battles

    def look(self, battles: int) -> None:
        """Scout far enough to know whether the round first repeats by battle `battles`."""
        while self.end is None and not self.ends_otherwise and self._scout.battles < 3 * battles:
            self._step()

    def _step(self) -> None:
        scout = self._scout
        if self._power == self._length:
            self._kept = scout._position()
            self._power *= 2
            self._length = 0
        scout.play_battle()
        self._length += 1
        if scout.outcome is not None:
            self.ends_otherwise = True
        elif scout._position() == self._kept:
            self.end = self._first_repeat(self._length)

    def _first_repeat(self, length: int) -> int:
        behind, ahead = self._scout._fresh(), self._scout._fresh()
        ahead.play(length)
        while behind._position() != ahead._position():
            behind.play_battle()
            ahead.play_battle()
        return behind.battles + length

    def state(self) -> dict[str, Any]:
        """The watch as plain JSON values, to resume it exactly (`Round.snapshot`)."""
        return {
            "scout": [list(pile) for pile in self._scout._piles],
            "scout_battles": self._scout.battles,
            "kept": list(self._kept),
            "power": self._power,
            "length": self._length,
            "end": self.end,
            "ends_otherwise": self.ends_otherwise,
        }

    @classmethod
    def resume(cls, round_: Round, state: Mapping[str, Any]) -> _LoopWatch:
        """The watch that `state()` describes, for `round_`."""
        watch = cls.__new__(cls)
        watch._scout = round_._fresh()
        watch._scout._piles = [deque(pile) for pile in state["scout"]]
        watch._scout.battles = state["scout_battles"]
        watch._kept = bytes(state["kept"])
        watch._power, watch._length = state["power"], state["length"]
        watch.end, watch.ends_otherwise = state["end"], state["ends_otherwise"]
        return watch


def _pack_state(rng: random.Random) -> str:
    """A Mersenne Twister's state (625 words) as 3.3 KB of base64."""
    version, words, gauss = rng.getstate()
    assert version == 3 and gauss is None  # the engine never draws from a Gaussian
    return base64.b64encode(struct.pack(f"<{len(words)}I", *words)).decode("ascii")


def _unpack_state(packed: str) -> tuple[Any, ...]:
    raw = base64.b64decode(packed)
    return (3, struct.unpack(f"<{len(raw) // 4}I", raw), None)


def _cards(ids: Iterable[int | None]) -> tuple[Card | None, ...]:
    return tuple(None if c is None else DECK[c] for c in ids)
