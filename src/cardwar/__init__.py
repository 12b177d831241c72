"""cardwar: the card game War, done properly."""

from cardwar.cards import DECK, Card, Rank, Suit
from cardwar.engine import Round
from cardwar.errors import (
    CardError,
    CardwarError,
    DealError,
    HistoryError,
    MatchError,
    MatchOverError,
    RoundError,
    RoundOverError,
    RulesError,
    SeedError,
)
from cardwar.records import Battle, Outcome, Reason, Step
from cardwar.rules import PRESETS, Gather, LimitOutcome, Rules, Shortage

__all__ = [
    "DECK",
    "PRESETS",
    "Battle",
    "Card",
    "CardError",
    "CardwarError",
    "DealError",
    "Gather",
    "HistoryError",
    "LimitOutcome",
    "MatchError",
    "MatchOverError",
    "Outcome",
    "Rank",
    "Reason",
    "Round",
    "RoundError",
    "RoundOverError",
    "Rules",
    "RulesError",
    "SeedError",
    "Shortage",
    "Step",
    "Suit",
]
