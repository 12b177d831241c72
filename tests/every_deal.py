"""What the tests of the exact answers share: every rank sequence of a small deck, made
here independently of the kernels, and the check of the exact game against the readable
engine, deal by deal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from cardwar import Reason, Round, Rules
from cardwar.cards import RANK_SHIFT
from cardwar.sim.exact.deck import SmallDeck, split_deal
from cardwar.sim.exact.kernels.every_deal import play_each
from cardwar.sim.exact.kernels.packed import bits_for
from cardwar.sim.kernels.codes import REASONS, rules_array


def sequences(deck: SmallDeck) -> Iterator[list[int]]:
    """Every distinct sequence of the deck's ranks, in lexicographic order."""
    ranks = sorted(rank for rank in range(deck.ranks) for _ in range(deck.suits))
    while True:
        yield list(ranks)
        i = len(ranks) - 2
        while i >= 0 and ranks[i] >= ranks[i + 1]:
            i -= 1
        if i < 0:
            return
        j = len(ranks) - 1
        while ranks[j] <= ranks[i]:
            j -= 1
        ranks[i], ranks[j] = ranks[j], ranks[i]
        ranks[i + 1 :] = reversed(ranks[i + 1 :])


# The engine's position is bytes of card indices, rank-major (255 between piles): by ranks, each
# index's rank (index >> 2, cardwar.cards.RANK_SHIFT), the separator kept.
_BY_RANK = bytes(i >> RANK_SHIFT if i < 52 else i for i in range(256))


def rank_position(round_: Round) -> bytes:
    """The round's position by ranks alone: suits never decide a battle."""
    return round_.position().translate(_BY_RANK)


def check_against_engine(rules: Rules, deck: SmallDeck, *, packed: bool) -> Counter[str]:
    """Play every sequence of `deck` on the exact game (`packed` in registers, or on the
    rings) and on the readable engine, and assert they agree deal by deal: winner, reason,
    battles, wars and final piles by ranks for a deal that ends; for a deal that loops, that the
    engine never ends, that its position by ranks first repeats at the battle the exact game
    gives, `length` battles after it was first held. Returns how the deals ended."""
    rows = np.array(list(sequences(deck)), np.int64)
    out = np.zeros((len(rows), 6 + deck.cards), np.int64)
    play_each(rules_array(rules), rows, bits_for(deck.ranks), packed, out)
    seen: Counter[str] = Counter()
    for ranks, got in zip(rows.tolist(), out.tolist(), strict=True):
        winner, reason, battles, wars, length, first = got[:6]
        round_ = Round(rules, deal=split_deal(ranks, deck.half), watch_loops=False)
        why = REASONS[reason]
        seen[why.value] += 1
        if why is Reason.CYCLE:
            positions = {rank_position(round_): 0}
            for battle in range(1, battles + 1):
                round_.play_battle()
                assert round_.outcome is None, ranks
                here = rank_position(round_)
                if battle < battles:
                    assert here not in positions, (ranks, battle)
                    positions[here] = battle
            assert positions.get(here) == battles - length, (ranks, battles, length)
            assert round_.wars == wars, ranks
            continue
        round_.play(battles)
        assert round_.outcome is not None, ranks
        assert (round_.outcome.winner, round_.outcome.reason) == (
            None if winner < 0 else winner,
            why,
        ), ranks
        assert (round_.battles, round_.wars) == (battles, wars), ranks
        piles = [[card.rank - 2 for card in pile] for pile in round_.piles]
        assert piles == [got[6 : 6 + first], got[6 + first : 6 + first + len(piles[1])]], ranks
    return seen
