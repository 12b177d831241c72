"""cardwar: the card game War, done properly."""

from cardwar.cards import DECK, Card, Rank, Suit
from cardwar.engine import Round
from cardwar.errors import CardError, CardwarError, DealError, RoundOverError, RulesError
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
    "LimitOutcome",
    "Outcome",
    "Rank",
    "Reason",
    "Round",
    "RoundOverError",
    "Rules",
    "RulesError",
    "Shortage",
    "Step",
    "Suit",
]
