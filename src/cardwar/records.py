"""What a round hands out: why it ended, how it ended, and one record per battle.

A battle's record is enough to animate it (the page), send it (the API), narrate it (the command
line) and store it (golden transcripts); `Progress` is where a round stands between battles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from cardwar.cards import Card


class Reason(StrEnum):
    """Why a round ended (docs/rules.md#how-a-round-ends)."""

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

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """The outcome that `to_dict()` wrote."""
        return cls(data["winner"], Reason(data["reason"]))


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
            None if outcome is None else Outcome.from_dict(outcome),
        )

    def to_dict(self) -> dict[str, object]:
        """The record as plain JSON values (docs/api.md#the-battle-record)."""
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


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a round stands between battles: everything that changes as it is played.

    Piles and the table hold card indices (`cardwar.cards.INDEX`), each pile top first. `rng` is
    the round's generator state (`random.Random.getstate()`), or None where nothing draws from
    it after the deal. `Round.progress()` gives one and `Round.restore()` puts one back.
    """

    piles: tuple[tuple[int, ...], ...]
    table: tuple[int, ...] = ()
    battles: int = 0
    wars: int = 0
    out_at: tuple[int | None, ...] | None = None
    """The battle after which each seat first held no cards; None for none out yet."""
    outcome: Outcome | None = None
    last_battle: Battle | None = None
    time_up: bool = False
    rng: tuple[Any, ...] | None = None
