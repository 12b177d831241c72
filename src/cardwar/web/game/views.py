"""The API's view of a round (docs/api.md#the-round): the whole round, as the core describes it,
less what a player may not see yet; and what each seat holds of the best cards."""

from __future__ import annotations

from typing import Any

from cardwar.cards import Rank
from cardwar.engine import Round
from cardwar.persist import round_json

HIGH = frozenset({Rank.ACE, Rank.KING, Rank.QUEEN, Rank.JACK})
HIGH_IN_PEACE = frozenset({Rank.TWO, Rank.THREE, Rank.FOUR, Rank.FIVE})


def round_view(round_: Round, round_id: str | None) -> dict[str, Any]:
    """The round in the API's shape. No peeking: its `piles`, and an explicit deal as dealt,
    appear only once it is over (for replaying or sharing it)."""
    shown = {"id": round_id, **round_json(round_)}
    if round_.outcome is None:
        del shown["piles"]
        shown.pop("deal", None)
    return shown


def holdings(round_: Round) -> dict[str, Any]:
    """What each seat holds of the best cards, for the chance meter's reason in words
    (docs/api.md#the-chance-to-win): its cards, how many of the best rank (aces, or twos under
    Peace), how many of the four best ranks (A K Q J, or 2 3 4 5 under Peace); and how many of
    each were dealt in this round (a short deck may deal fewer than four aces)."""
    low = round_.rules.low_wins
    best = Rank.TWO if low else Rank.ACE
    high = HIGH_IN_PEACE if low else HIGH
    dealt = [card.rank for pile in round_.deal for card in pile]
    return {
        "holdings": [
            {
                "cards": len(pile),
                "best": sum(card.rank == best for card in pile),
                "high": sum(card.rank in high for card in pile),
            }
            for pile in round_.piles
        ],
        "best_rank": best.symbol,
        "best_in_play": dealt.count(best),
        "high_in_play": sum(rank in high for rank in dealt),
    }
