"""The readable rules engine: dealing, battles, wars and how a round ends (docs/rules.md).

Inside a round a card is its index into `DECK` (`cardwar.cards.INDEX`: rank-major, so a rank is
`rank_of(card)`), which makes a position a few bytes to compare for loop detection; every
record handed out holds `Card` values. Keeping and rebuilding rounds is `cardwar.persist`; the
loop watch is `cardwar.loops`.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence

from cardwar.cards import DECK, INDEX, Card, rank_of
from cardwar.errors import (
    CardError,
    DealError,
    HistoryError,
    RoundError,
    RoundOverError,
    RulesError,
    SeedError,
    quote,
)
from cardwar.loops import LoopWatch
from cardwar.records import Battle, Outcome, Progress, Reason, Step
from cardwar.rules import Gather, LimitOutcome, Rules, Shortage

MAX_SEED = 2**63 - 1
_tuple_new = tuple.__new__


def check_cap(cap: object) -> int | None:
    """A safety cap on battles checked: None, or a whole number 1 or more (RoundError)."""
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise RoundError(f"cap: must be a whole number 1 or more, not {quote(cap)}")
    return cap


def check_seed(seed: object) -> int:
    """The seed if it is a whole number in 0..2**63-1; raises SeedError naming it otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise SeedError(f"seed: must be a whole number from 0 to {MAX_SEED}, not {quote(seed)}")
    return seed


def parse_deal(
    deal: Sequence[Sequence[str | Card]], players: int | None = None
) -> list[list[Card]]:
    """An explicit deal as piles of cards (top first), checked as docs/rules.md#the-deal asks."""
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


def _dealt(
    rules: Rules, rng: random.Random, deal: Sequence[Sequence[str | Card]] | None
) -> list[list[int]]:
    """The piles of a new round: `deal` checked, or a random deal from `rng` (the deck shuffled,
    then dealt a card at a time round the table; cards beyond the hands are set aside)."""
    if deal is not None:
        return [[INDEX[c] for c in pile] for pile in parse_deal(deal, rules.players)]
    order = list(range(52))
    rng.shuffle(order)
    size, players = rules.cards_per_hand, rules.players
    return [order[seat : size * players : players] for seat in range(players)]


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
        watch_loops: bool = True,
    ) -> None:
        """A new round: a random deal from `seed`, or the explicit `deal` (seed then only
        drives shuffled returns). `cap` is a safety cap on battles beyond the rules (the web
        server's `--max-battles`): the round ends there as at a battle limit. With
        `watch_loops=False` a round that could loop for ever is not watched (a loop watch's own
        scouts, which are watched from outside)."""
        if not isinstance(rules, Rules):
            raise RoundError("rules: must be a Rules value")
        self.rules = rules
        self.seed = check_seed(seed)
        self.cap = check_cap(cap)
        self._rng = random.Random(seed)
        piles = _dealt(rules, self._rng, deal)
        self.explicit_deal = deal is not None
        self._deal: tuple[tuple[int, ...], ...] = tuple(tuple(pile) for pile in piles)
        self.deal = tuple(tuple(DECK[c] for c in pile) for pile in piles)
        """The piles as dealt, top card first."""
        self._piles: list[deque[int]] = [deque(pile) for pile in piles]
        self._zeros = (0,) * len(piles)
        self._table: list[int] = []
        self.cards_in_play = sum(len(pile) for pile in piles)
        self.battles = 0
        self.wars = 0
        self.outcome: Outcome | None = None
        self.last_battle: Battle | None = None  # what the table shows after a reload
        self.out_at: list[int | None] = [None] * len(piles)
        """The battle after which each seat first held no cards: it is out from then on."""
        self.time_up = False  # the caller's clock ran out and ended the round
        limits = [limit for limit in (rules.battle_limit, cap) if limit is not None]
        self._limit = min(limits) if limits else None
        # A round with no battle limit and a fixed return order may loop: watch for it.
        self._watching = watch_loops and rules.battle_limit is None and rules.deterministic
        self.loop_watch: LoopWatch | None = None
        """The watch for a repeated position, once the round has needed one."""

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
        _refuse_when_over(self.outcome)
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
        ranks = [rank_of(card) for _, card in laid]
        best = min(ranks) if self.rules.low_wins else max(ranks)
        if ranks.count(best) == 1:  # no tie: by far the most common battle
            steps: tuple[Step, ...] = (first,)
            winner: int | None = contenders[ranks.index(best)]
            lost_short = False
        else:
            tied = [seat for seat, rank in zip(contenders, ranks, strict=True) if rank == best]
            wars, winner, lost_short, fought = _fight(self.rules, piles, tied, laid)
            self.wars += fought
            steps = (first, *wars)

        taken = 0
        if winner is None:
            self._table = [card for _, card in laid]
        else:
            cards = _gathered(self.rules.gather, laid, winner, steps, self._rng)
            piles[winner].extend(cards)
            taken = len(cards)
        self.battles += 1
        counts = tuple(map(len, piles))
        if 0 in counts:
            _mark_out(self.out_at, counts, self.battles)
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
        ra, rb = rank_of(a), rank_of(b)
        if ra == rb:
            return None
        p0.popleft()
        p1.popleft()
        rules = self.rules
        winner = 0 if (ra > rb) is not rules.low_wins else 1
        # With no tie, picking the cards up as they lie is the winner's card first too.
        if rules.gather in _WINNERS_CARD_FIRST and winner == 1:
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
            _mark_out(self.out_at, counts, self.battles)
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

    def call_time(self) -> Outcome:
        """End the round by a count because its clock ran out (the caller owns the clock)."""
        _refuse_when_over(self.outcome)
        if self.rules.time_limit_s is None:
            raise RulesError("time_limit_s: this round has no clock, so time cannot run out")
        self.outcome = _counted(self.counts, Reason.TIME_UP)
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
                return _counted(counts, Reason.MOST_CARDS)
            return Outcome(None, Reason.BATTLE_LIMIT)
        if self._watching and self._watch().repeats_at(self.battles):
            return Outcome(None, Reason.CYCLE)
        return None

    def look_ahead(self) -> None:
        """Settle now whether, and at which battle, this round loops before its cap.

        A round with no battle limit and a fixed return order watches for a loop as it goes,
        which costs a little on every battle and, the moment the loop shows, a walk back to where
        it began. A server calls this once, away from its players' requests, so that no battle
        ever pays for it again. Without a cap (or rules that cannot loop) it does nothing.
        """
        if self._watching and self.cap is not None:
            self._watch().look(self.cap)

    def _watch(self) -> LoopWatch:
        if self.loop_watch is None:
            self.loop_watch = LoopWatch(self.scout)
        return self.loop_watch

    # -- the seam for keeping a round and watching it for loops ----------------------------------

    def scout(self) -> Round:
        """This round as dealt, with no cap and no loop watch of its own (a loop watch's scout)."""
        return Round(self.rules, seed=self.seed, deal=self.deal, watch_loops=False)

    def position(self) -> bytes:
        """The exact order of every pile as bytes: equal only for equal positions."""
        # 255 is no card, so it separates the piles unambiguously.
        return b"\xff".join(bytes(pile) for pile in self._piles)

    def progress(self) -> Progress:
        """Where the round stands: piles, table, counts, endings and the generator's state
        (only for shuffled returns, the one rule that draws from it after the deal)."""
        return Progress(
            piles=tuple(tuple(pile) for pile in self._piles),
            table=tuple(self._table),
            battles=self.battles,
            wars=self.wars,
            out_at=tuple(self.out_at),
            outcome=self.outcome,
            last_battle=self.last_battle,
            time_up=self.time_up,
            rng=self._rng.getstate() if self.rules.gather is Gather.SHUFFLED else None,
        )

    def restore(self, progress: Progress) -> None:
        """Put the round where `progress` says, exactly, without playing a battle; refused
        (HistoryError, changing nothing) unless its piles and table hold the cards of the deal."""
        _check_progress(progress, self._deal)
        piles, table = progress.piles, progress.table
        self._piles = [deque(pile) for pile in piles]
        self._table = list(table)
        self.battles, self.wars, self.time_up = progress.battles, progress.wars, progress.time_up
        self.out_at = list(progress.out_at or [None] * len(piles))
        self.outcome, self.last_battle = progress.outcome, progress.last_battle
        if progress.rng is not None:
            self._rng.setstate(progress.rng)


_WINNERS_CARD_FIRST = frozenset({Gather.WINNER_FIRST, Gather.NATURAL})


def _fight(
    rules: Rules, piles: list[deque[int]], tied: list[int], laid: list[tuple[int, int]]
) -> tuple[list[Step], int | None, bool, int]:
    """Fight the wars that follow a tie among `tied`, taking cards from `piles` and laying them
    onto `laid`.

    Returns the war steps, the winner (None for a draw), whether a player lost by being short,
    and how many wars were fought. Only the tied players fight; everyone else's cards stay on
    the table.
    """
    fought_wars = 0
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
            return steps, None, lost_short, fought_wars
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
            return steps, fighters[0], lost_short, fought_wars
        fought_wars += 1
        ranks = [rank_of(card) for card in up if card is not None]
        best = min(ranks) if rules.low_wins else max(ranks)
        tied = [seat for seat, rank in zip(fighters, ranks, strict=True) if rank == best]
        if len(tied) == 1:
            return steps, tied[0], lost_short, fought_wars


def _gathered(
    gather: Gather,
    laid: list[tuple[int, int]],
    winner: int,
    steps: tuple[Step, ...],
    rng: random.Random,
) -> list[int]:
    """The cards of a battle `winner` won, in the order they go under the pile (`gather`, see
    docs/rules.md#gather); `steps` are the battle's, the last holding the card that won it."""
    if gather is Gather.WINNER_FIRST:
        cards = [c for s, c in laid if s == winner]
        return cards + [c for s, c in laid if s != winner]
    if gather is Gather.NATURAL:
        return _as_they_lie(laid, steps[-1].up[winner])
    cards = [card for _, card in laid]
    if gather is Gather.SHUFFLED:
        rng.shuffle(cards)
    return cards


def _counted(counts: tuple[int, ...], reason: Reason) -> Outcome:
    """The outcome of a count (`reason` is why the cards were counted): the biggest pile wins,
    and two or more at the top is a draw."""
    most = max(counts)
    leaders = [seat for seat, count in enumerate(counts) if count == most]
    if len(leaders) > 1:
        return Outcome(None, Reason.MOST_CARDS_TIE)
    return Outcome(leaders[0], reason)


def _as_they_lie(laid: list[tuple[int, int]], winning: Card | None) -> list[int]:
    """The table picked up as it lies (docs/rules.md#gather, `natural`): the card that won the
    last step first, then every other card, last laid first. When the winner turned no card in
    the last step (everyone else in the war was short), every card is taken last laid first."""
    cards = [card for _, card in reversed(laid)]
    if winning is not None:
        cards.remove(INDEX[winning])
        cards.insert(0, INDEX[winning])
    return cards


def _refuse_when_over(outcome: Outcome | None) -> None:
    """Refuse (RoundOverError) to go on with a round that has an outcome."""
    if outcome is not None:
        raise RoundOverError(f"the round is over ({outcome.reason.value}): start a new one")


def _mark_out(out_at: list[int | None], counts: tuple[int, ...], battle: int) -> None:
    """Note `battle` as the one after which each seat that now holds no card first did."""
    for seat, count in enumerate(counts):
        if count == 0 and out_at[seat] is None:
            out_at[seat] = battle


def _check_progress(progress: Progress, deal: tuple[tuple[int, ...], ...]) -> None:
    """Refuse (HistoryError) a snapshot whose piles and table do not hold the cards of `deal`."""
    piles, table = progress.piles, progress.table
    held = sorted(card for pile in [*piles, table] for card in pile)
    if len(piles) != len(deal) or held != sorted(sum(deal, ())):
        raise HistoryError("snapshot: its piles do not hold the cards of its deal")


def _cards(ids: Iterable[int | None]) -> tuple[Card | None, ...]:
    return tuple(None if c is None else DECK[c] for c in ids)
