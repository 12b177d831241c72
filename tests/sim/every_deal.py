"""What the tests of the exact answers share: every rank sequence of a small deck, made
here independently of the kernels, and the check of the exact game against the readable
engine, deal by deal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np
from numba import njit

from cardwar import Reason, Round, Rules
from cardwar.cards import RANK_SHIFT
from cardwar.sim.exact.deck import SmallDeck, split_deal
from cardwar.sim.exact.kernels.every_deal import pack, packed_rules
from cardwar.sim.exact.kernels.packed import bits_for, first_repeat, play
from cardwar.sim.kernels import cache
from cardwar.sim.kernels.codes import (
    CYCLE,
    REASONS,
    RES_BATTLES,
    RES_LOOP,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
    rules_array,
)
from cardwar.sim.kernels.ring import deal, peek, size_of
from cardwar.sim.kernels.round import first_repeat as ring_first_repeat
from cardwar.sim.kernels.round import play_round
from cardwar.sim.kernels.workspace import PILES, RESULT, workspace

# The tests' own kernel over the enumerator's (stamped with the kernels' sources, as theirs are,
# so that a change to any of them compiles it afresh).
cache.stamp_also(__file__)


@njit(cache=True)
def play_each(
    rules: np.ndarray, sequences: np.ndarray, bits: int, packed: bool, out: np.ndarray
) -> None:
    """Every row of `sequences` played as `play_range` plays it, one row of `out` each: winner,
    reason, battles, wars, a loop's length, and the final piles by ranks (the first seat's
    count, then its ranks, then the other's), for the tests to hold against the engine. For a
    loop, `battles` and `wars` are to its first repeat, as the engine counts them."""
    n = sequences.shape[1]
    half = n // 2
    need, last_card, low, gather, limit, most_cards = packed_rules(rules)
    ws = workspace()
    cards = np.zeros(n, np.int64)
    sizes = np.array([half, n - half], np.int64)
    mask = (1 << bits) - 1
    for row in range(sequences.shape[0]):
        ranks = sequences[row]
        if packed:
            q0 = pack(ranks, 0, half, bits)
            q1 = pack(ranks, half, n - half, bits)
            p0, p1, s0, s1, winner, reason, battles, wars, length = play(
                q0, q1, half, n - half, bits, need, last_card, low, gather, limit, most_cards
            )
            if reason == CYCLE:
                battles, wars = first_repeat(
                    q0, q1, half, n - half, length, bits, need, last_card, low, gather
                )
            out[row, 5] = s0
            for i in range(s0):
                out[row, 6 + i] = ((p0 >> (bits * i)) & mask) - 1
            for i in range(s1):
                out[row, 6 + s0 + i] = ((p1 >> (bits * i)) & mask) - 1
        else:
            for i in range(n):
                cards[i] = ranks[i] << RANK_SHIFT
            deal(ws, PILES, cards, sizes)
            play_round(rules, ws)
            winner, reason = ws[RESULT + RES_WINNER], ws[RESULT + RES_REASON]
            battles, wars = ws[RESULT + RES_BATTLES], ws[RESULT + RES_WARS]
            length = ws[RESULT + RES_LOOP]
            if reason == CYCLE:
                battles, wars = ring_first_repeat(rules, cards, sizes, length, ws)
            s0 = size_of(ws, PILES, 0)
            out[row, 5] = s0
            for i in range(s0):
                out[row, 6 + i] = peek(ws, PILES, 0, i) >> RANK_SHIFT
            for i in range(size_of(ws, PILES, 1)):
                out[row, 6 + s0 + i] = peek(ws, PILES, 1, i) >> RANK_SHIFT
        out[row, 0] = winner
        out[row, 1] = reason
        out[row, 2] = battles
        out[row, 3] = wars
        out[row, 4] = length


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
