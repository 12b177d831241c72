"""The exact answers' kernels are a second implementation of the rules: on every deal of the
one-suit decks 8x1 and 9x1 it agrees with the readable engine round by round. One suit means no
tie, so the cards face down and the shortage rule never come into play, and the cards as they
lie are the winner's first: `natural` is `winner_first` there (checked on the enumerator's own
results), and only the two orders that differ are held to the engine."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar import Rules
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.kernels.packed import bits_for
from cardwar.sim.kernels.codes import rules_array

from every_deal import check_against_engine, play_each, sequences


@pytest.mark.parametrize("deck", ["8x1", "9x1"])
@pytest.mark.parametrize("gather", ["winner_first", "table"])
def test_every_one_suit_deal_agrees_with_the_engine(deck: str, gather: str) -> None:
    """Every sequence of the deck, in registers, deal by deal as the engine plays it."""
    rules = Rules(gather=gather, battle_limit=None)
    seen = check_against_engine(rules, SmallDeck.parse(deck), packed=True)
    if gather == "winner_first":  # no loop at 8 cards (Spivey); at 9, 218,680 deals loop
        assert seen["cycle"] == (218_680 if deck == "9x1" else 0)


def test_on_the_rings_too() -> None:
    """Bigger decks are played on the rings of the full rules: held to the engine the same way."""
    check_against_engine(Rules(battle_limit=None), SmallDeck.parse("8x1"), packed=False)


def test_with_one_suit_natural_is_winner_first() -> None:
    """With no tie the cards as they lie are the winner's first: the same result deal by deal."""
    deck = SmallDeck.parse("9x1")
    rows = np.array(list(sequences(deck)), np.int64)
    results = []
    for gather in ("natural", "winner_first"):
        out = np.zeros((len(rows), 6 + deck.cards), np.int64)
        play_each(
            rules_array(Rules(gather=gather, battle_limit=None)), rows, bits_for(9), True, out
        )
        results.append(out)
    assert np.array_equal(results[0], results[1])
