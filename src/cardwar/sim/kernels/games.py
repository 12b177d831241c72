"""Many random rounds of one rule set at once, their statistics kept as they go: counters and
histograms, one row per thread, that `cardwar.sim.tally.Tally` adds up exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardwar.sim.kernels.codes import (
    CARDS,
    R_PLAYERS,
    REASONS,
    RES_BATTLES,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
    SEATS,
)
from cardwar.sim.kernels.rng import seed_game, shuffle
from cardwar.sim.kernels.round import play_dealt
from cardwar.sim.kernels.workspace import RESULT, workspace

BATTLE_BINS = 1 << 16  # battles 0..65535 counted one by one; longer rounds in the last bin
WAR_BINS = 1 << 12
# The small counters of a run, by index in a row of `counters`.
C_GAMES, C_BATTLES, C_WARS, C_MAX_BATTLES, C_MAX_WARS = range(5)
C_WINS = C_MAX_WARS + 1  # a count for each seat
C_REASONS = C_WINS + SEATS  # a count for each reason, in the order of `Reason`
COUNTERS = C_REASONS + len(REASONS)


@njit(cache=True)
def tally_round(
    ws: np.ndarray, counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray
) -> None:
    """Add the round just played in `ws` to the statistics."""
    winner, reason = ws[RESULT + RES_WINNER], ws[RESULT + RES_REASON]
    battles, wars = ws[RESULT + RES_BATTLES], ws[RESULT + RES_WARS]
    counters[C_GAMES] += 1
    counters[C_BATTLES] += battles
    counters[C_WARS] += wars
    counters[C_MAX_BATTLES] = max(counters[C_MAX_BATTLES], battles)
    counters[C_MAX_WARS] = max(counters[C_MAX_WARS], wars)
    if winner >= 0:
        counters[C_WINS + winner] += 1
    counters[C_REASONS + reason] += 1
    battles_hist[min(battles, BATTLE_BINS - 1)] += 1
    wars_hist[min(wars, WAR_BINS - 1)] += 1


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
def play_games(
    rules: np.ndarray, hand: int, seed: int, first: int, last: int,
    counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray,
) -> None:  # fmt: skip
    """Play games `first` .. `last - 1` of the run `seed`, each on its own random deal, adding
    each round's result to the statistics (one row each, for this thread)."""
    ws = workspace()
    players = rules[R_PLAYERS]
    deck = np.zeros(CARDS, np.int64)
    cards = np.zeros(CARDS, np.int64)
    sizes = np.zeros(players, np.int64)
    for game in range(first, last):
        seed_game(ws, seed, game)
        random_deal(players, hand, ws, deck, cards, sizes)
        play_dealt(rules, cards, sizes, ws)
        tally_round(ws, counters, battles_hist, wars_hist)


@njit(cache=True, parallel=True)
def play_games_parallel(
    rules: np.ndarray, hand: int, seed: int, first: int, last: int,
    counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray,
) -> None:  # fmt: skip
    """`play_games` over as many slices as `counters` has rows, one slice per thread. Each game
    is seeded by its number alone, so the statistics are the same however many threads run."""
    slices = counters.shape[0]
    games = last - first
    for part in prange(slices):
        lo = first + games * part // slices
        hi = first + games * (part + 1) // slices
        play_games(rules, hand, seed, lo, hi, counters[part], battles_hist[part], wars_hist[part])
