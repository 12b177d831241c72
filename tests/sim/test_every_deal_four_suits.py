"""The exact answers' kernels are a second implementation of the rules: on every deal of the
four-suit decks 2x4 and 3x4 (two and three values) it agrees with the readable engine round by
round, under every fixed return order, with 0, 1 and 2 cards face down and both shortage rules;
positions compare by ranks, as the enumerator's do."""

from __future__ import annotations

import pytest

from cardwar import Rules
from cardwar.sim.exact.deck import SmallDeck

from every_deal import check_against_engine

RULES = [
    Rules(gather=gather, war_down=down, shortage=shortage, battle_limit=None)
    for gather in ("winner_first", "table", "natural")
    for down in (0, 1, 2)
    for shortage in ("lose", "last_card")
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.gather}-{r.war_down}-{r.shortage}")
def test_every_two_value_deal_agrees_with_the_engine(rules: Rules) -> None:
    """2x4: 70 sequences, ties at every other battle, shortages in most deals."""
    for packed in (True, False):
        check_against_engine(rules, SmallDeck.parse("2x4"), packed=packed)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: f"{r.gather}-{r.war_down}-{r.shortage}")
def test_every_three_value_deal_agrees_with_the_engine(rules: Rules) -> None:
    """3x4: all 34,650 sequences, in registers."""
    seen = check_against_engine(rules, SmallDeck.parse("3x4"), packed=True)
    assert sum(seen.values()) == 34_650


def test_three_values_on_the_rings_too() -> None:
    """Bigger decks are played on the rings of the full rules: held to the engine the same way,
    here with the published game (natural, no card down)."""
    rules = Rules(gather="natural", war_down=0, battle_limit=None)
    seen = check_against_engine(rules, SmallDeck.parse("3x4"), packed=False)
    assert seen["cycle"] == 720  # 360 deals and their mirrors
