"""Many random rounds of one rule set at once, their statistics kept as they go: counters and
histograms, one row per thread, that `cardwar.sim.tally.Tally` adds up exactly; the rounds
longer than a histogram holds, each by its exact length; and the longest rounds, each by its
game number, so that its deal can be dealt again.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardwar.sim.kernels.codes import (
    CARDS,
    R_PLAYERS,
    RES_BATTLES,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
)
from cardwar.sim.kernels.rng import seed_game, shuffle
from cardwar.sim.kernels.round import play_dealt
from cardwar.sim.kernels.tally import keep_record, tally_round
from cardwar.sim.kernels.workspace import RESULT, workspace


@njit(cache=True)
def random_deal(
    players: int, hand: int, ws: np.ndarray, deck: np.ndarray, cards: np.ndarray,
    sizes: np.ndarray,
) -> None:  # fmt: skip
    """Shuffle the deck with the generator of `ws` and deal `hand` cards to each seat, one at a
    time, seat 0 first: the deal in `cards` / `sizes`, every pile top first (the first card a
    seat is dealt is its top)."""
    for i in range(CARDS):
        deck[i] = i
    shuffle(deck, 0, CARDS, ws)
    for seat in range(players):
        sizes[seat] = hand
        for i in range(hand):
            cards[seat * hand + i] = deck[i * players + seat]


@njit(cache=True)
def hands_deal(
    ws: np.ndarray, hands: np.ndarray, hand_sizes: np.ndarray, cards: np.ndarray,
    sizes: np.ndarray,
) -> None:  # fmt: skip
    """Deal each seat the cards `hands` names for it (every seat's one after another), each
    seat's in a fresh order from the generator of `ws`, seat 0 first."""
    start = 0
    for seat in range(hand_sizes.shape[0]):
        sizes[seat] = hand_sizes[seat]
        for i in range(hand_sizes[seat]):
            cards[start + i] = hands[start + i]
        shuffle(cards, start, hand_sizes[seat], ws)
        start += hand_sizes[seat]


@njit(cache=True)
def deal_round(
    players: int, hand: int, seed: int, game: int, hands: np.ndarray, hand_sizes: np.ndarray,
    ws: np.ndarray, deck: np.ndarray, cards: np.ndarray, sizes: np.ndarray,
) -> None:  # fmt: skip
    """Deal game number `game` of the run `seed`: a random deal of `hand` cards a seat, or the
    given `hands` in fresh orders when there are any."""
    seed_game(ws, seed, game)
    if hand_sizes.shape[0] > 0:
        hands_deal(ws, hands, hand_sizes, cards, sizes)
    else:
        random_deal(players, hand, ws, deck, cards, sizes)


@njit(cache=True)
def play_rounds(
    rules: np.ndarray, hand: int, seed: int, first: int, last: int,
    hands: np.ndarray, hand_sizes: np.ndarray,
    counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray, longs: np.ndarray,
    records: np.ndarray,
) -> None:  # fmt: skip
    """Play rounds `first` .. `last - 1` of the run `seed`, each on its own deal, adding each
    round's result to the statistics (one row each, for this thread) and keeping the longest
    among `records`."""
    ws = workspace()
    players = rules[R_PLAYERS]
    deck = np.zeros(CARDS, np.int64)
    cards = np.zeros(CARDS, np.int64)
    sizes = np.zeros(players, np.int64)
    for game in range(first, last):
        deal_round(players, hand, seed, game, hands, hand_sizes, ws, deck, cards, sizes)
        play_dealt(rules, cards, sizes, ws)
        tally_round(ws, counters, battles_hist, wars_hist, longs)
        keep_record(
            records, ws[RESULT + RES_BATTLES], ws[RESULT + RES_WARS], game,
            ws[RESULT + RES_WINNER], ws[RESULT + RES_REASON],
        )  # fmt: skip


@njit(cache=True, parallel=True)
def play_rounds_parallel(
    rules: np.ndarray, hand: int, seed: int, first: int, last: int,
    hands: np.ndarray, hand_sizes: np.ndarray,
    counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray, longs: np.ndarray,
    records: np.ndarray,
) -> None:  # fmt: skip
    """`play_rounds` over as many slices as `counters` has rows, one slice per thread. Each game
    is seeded by its number alone, so the statistics are the same however many threads run."""
    slices = counters.shape[0]
    rounds = last - first
    for part in prange(slices):
        lo = first + rounds * part // slices
        hi = first + rounds * (part + 1) // slices
        play_rounds(
            rules, hand, seed, lo, hi, hands, hand_sizes, counters[part], battles_hist[part],
            wars_hist[part], longs[part], records[part],
        )  # fmt: skip
