"""The loop watch: the battle at which a round with a fixed return order first repeats a
position, found exactly and in constant memory, however long the round runs.

A round with no battle limit and a return order that leaves nothing to chance can come back to a
position it held before, and then it would repeat for ever (docs/rules.md#how-a-round-ends,
`cycle`). Keeping every position would cost memory without bound; this keeps a scout and one
earlier position instead (Brent's algorithm).

A scout plays the same round from its deal, ahead of it: it keeps one position and compares every
later one with it, keeping a new one at battles 1, 3, 7, 15, ... If the first repeat comes at
battle E (the position after E battles is the one after some earlier mu battles, and the loop is
E - mu long), the scout notices by battle 3E - 2. So a scout t battles in without a find proves
that no repeat comes before battle (t + 2) / 3, and the round may play on while its scout stays
three times as far ahead. Once the scout knows the loop's length, two more copies from the deal,
that length apart, walk on together until they meet, which is at the first repeat. A scout whose
round ends has proved there is no loop.

The watch knows a round only through the `Scout` seam below, so it does not depend on the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from cardwar.records import Outcome, Progress


class Scout(Protocol):
    """What the watch needs of a round: a copy as dealt that it can play and compare."""

    @property
    def battles(self) -> int:
        """Battles played so far."""
        ...

    @property
    def outcome(self) -> Outcome | None:
        """How the round ended, or None while it goes on."""
        ...

    def play_battle(self) -> object:
        """Play one battle."""
        ...

    def position(self) -> bytes:
        """The exact order of every pile, as bytes that compare equal only for equal positions."""
        ...

    def progress(self) -> Progress:
        """Where the round stands."""
        ...

    def restore(self, progress: Progress) -> None:
        """Put the round where `progress` says."""
        ...


class LoopWatch:
    """Finds the first repeated position of the round that `deal()` deals afresh each time."""

    def __init__(self, deal: Callable[[], Scout]) -> None:
        """A watch over the round that `deal()` gives, as dealt, with no watch of its own."""
        self._deal = deal
        self._scout = deal()
        self._kept = self._scout.position()
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
            self._kept = scout.position()
            self._power *= 2
            self._length = 0
        scout.play_battle()
        self._length += 1
        if scout.outcome is not None:
            self.ends_otherwise = True
        elif scout.position() == self._kept:
            self.end = self._first_repeat(self._length)

    def _first_repeat(self, length: int) -> int:
        behind, ahead = self._deal(), self._deal()
        for _ in range(length):
            ahead.play_battle()
        while behind.position() != ahead.position():
            behind.play_battle()
            ahead.play_battle()
        return behind.battles + length

    def state(self) -> dict[str, Any]:
        """The watch as plain JSON values, to resume it exactly (`cardwar.persist.snapshot`)."""
        scout = self._scout.progress()
        return {
            "scout": [list(pile) for pile in scout.piles],
            "scout_battles": scout.battles,
            "kept": list(self._kept),
            "power": self._power,
            "length": self._length,
            "end": self.end,
            "ends_otherwise": self.ends_otherwise,
        }

    @classmethod
    def resume(cls, deal: Callable[[], Scout], state: Mapping[str, Any]) -> LoopWatch:
        """The watch that `state()` described, over the round that `deal()` deals."""
        watch = cls(deal)
        piles = tuple(tuple(pile) for pile in state["scout"])
        # Between battles the scout's cards are all in its piles, unless its round ended with
        # cards left on the table (`both_short`): those are the dealt cards its piles lack, in
        # an order that no longer matters, since a scout whose round ended plays no more.
        left = Counter(card for pile in watch._scout.progress().piles for card in pile)
        left.subtract(card for pile in piles for card in pile)
        table = tuple(sorted(left.elements()))
        watch._scout.restore(Progress(piles, table=table, battles=state["scout_battles"]))
        watch._kept = bytes(state["kept"])
        watch._power, watch._length = state["power"], state["length"]
        watch.end, watch.ends_otherwise = state["end"], state["ends_otherwise"]
        return watch
