"""One battle, wars included, by the full rules, exactly as `cardwar.engine.Round.play_battle`
plays it: any number of players, shortages, every return order. (Two players with cards enough
for their wars play faster in `plain`.)

Laid cards collect in the workspace's TABLE / TABLE_SEAT, in the order laid.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.codes import (
    GATHER_NATURAL,
    GATHER_SHUFFLED,
    GATHER_WINNER_FIRST,
    NO_WINNER,
    R_GATHER,
    R_LAST_CARD,
    R_LOW_WINS,
    R_PLAYERS,
    R_WAR_DOWN,
)
from cardwar.sim.kernels.ring import pop, push, rank, size_of
from cardwar.sim.kernels.rng import shuffle
from cardwar.sim.kernels.workspace import FIGHTERS, SHORTS, TABLE, TABLE_SEAT, TIED, UP, UP_AT


@njit(cache=True, inline="always")
def _lay(ws: np.ndarray, p: int, seat: int, laid: int) -> int:
    """Take `seat`'s top card onto the table as its `laid`-th card; returns the card."""
    card = pop(ws, p, seat)
    ws[TABLE + laid] = card
    ws[TABLE_SEAT + laid] = seat
    return card


@njit(cache=True, inline="always")
def _beats(rank_: int, best: int, low: bool) -> bool:
    """True if `rank_` beats the best rank so far (`best` < 0: none yet)."""
    return best < 0 or (rank_ < best if low else rank_ > best)


# Over 80 lines on purpose: the general battle, wars and shortages, in one piece, since an
# inlined helper taking arrays costs numba's reference counting on every call (plain.py's head).
@njit(cache=True)
def battle(rules: np.ndarray, ws: np.ndarray, p: int) -> tuple[int, int, bool, int]:
    """Play one battle on set `p`, wars included, exactly as `Round.play_battle` does (the
    generator of `ws` shuffles the table if the rules say so).

        Returns (winner or NO_WINNER, wars fought, whether a player lost by being short, cards left
        on the table: nonzero only when nobody could finish a war).
    """
    players = rules[R_PLAYERS]
    low = rules[R_LOW_WINS] != 0
    gather = rules[R_GATHER]
    laid = 0
    n_tied = 0
    best = -1
    for seat in range(players):
        ws[UP + seat] = -1
        if size_of(ws, p, seat) > 0:
            card = _lay(ws, p, seat, laid)
            ws[UP_AT + seat] = laid
            laid += 1
            ws[UP + seat] = card
            if _beats(rank(card), best, low):
                best = rank(card)
    for seat in range(players):
        if ws[UP + seat] >= 0 and rank(ws[UP + seat]) == best:
            ws[TIED + n_tied] = seat
            n_tied += 1

    wars = 0
    lost_short = False
    winner = NO_WINNER
    winning = -1  # where the card that won the last step lies, if the winner turned one there
    if n_tied == 1:
        winner = ws[TIED]
        winning = ws[UP_AT + winner]
    else:
        need = rules[R_WAR_DOWN] + 1
        lose = rules[R_LAST_CARD] == 0
        while True:
            n_short = 0
            n_fighters = 0
            for i in range(n_tied):
                seat = ws[TIED + i]
                if size_of(ws, p, seat) < need:
                    ws[SHORTS + n_short] = seat
                    n_short += 1
            if lose:
                for i in range(n_tied):
                    seat = ws[TIED + i]
                    if size_of(ws, p, seat) >= need:
                        ws[FIGHTERS + n_fighters] = seat
                        n_fighters += 1
            else:
                for i in range(n_tied):
                    seat = ws[TIED + i]
                    if size_of(ws, p, seat) > 0:
                        ws[FIGHTERS + n_fighters] = seat
                        n_fighters += 1
                if n_fighters < 2:
                    n_short = 0
                    for i in range(n_tied):
                        if size_of(ws, p, ws[TIED + i]) == 0:
                            ws[SHORTS + n_short] = ws[TIED + i]
                            n_short += 1
            if n_fighters == 0:
                return NO_WINNER, wars, lost_short, laid  # everyone short: cards stay put
            if lose and n_short > 0:
                lost_short = True
            fought = n_fighters > 1
            for i in range(n_tied):
                seat = ws[TIED + i]
                fighting = False
                for j in range(n_fighters):
                    if ws[FIGHTERS + j] == seat:
                        fighting = True
                if fighting:
                    if not fought:
                        continue
                    for _ in range(min(rules[R_WAR_DOWN], size_of(ws, p, seat) - 1)):
                        _lay(ws, p, seat, laid)
                        laid += 1
                    ws[UP + seat] = _lay(ws, p, seat, laid)
                    ws[UP_AT + seat] = laid
                    laid += 1
                elif lose:
                    while size_of(ws, p, seat) > 0:  # a short player's last cards join the table
                        _lay(ws, p, seat, laid)
                        laid += 1
            if not fought:
                winner = ws[FIGHTERS]
                break
            wars += 1
            best = -1
            for j in range(n_fighters):
                if _beats(rank(ws[UP + ws[FIGHTERS + j]]), best, low):
                    best = rank(ws[UP + ws[FIGHTERS + j]])
            n_tied = 0
            for j in range(n_fighters):
                if rank(ws[UP + ws[FIGHTERS + j]]) == best:
                    ws[TIED + n_tied] = ws[FIGHTERS + j]
                    n_tied += 1
            if n_tied == 1:
                winner = ws[TIED]
                winning = ws[UP_AT + winner]
                break

    # The winner puts the table under their pile, in the order the rules say.
    if gather == GATHER_WINNER_FIRST:
        for i in range(laid):
            if ws[TABLE_SEAT + i] == winner:
                push(ws, p, winner, ws[TABLE + i])
        for i in range(laid):
            if ws[TABLE_SEAT + i] != winner:
                push(ws, p, winner, ws[TABLE + i])
    elif gather == GATHER_NATURAL:
        # As the cards lie: the winning card, then the rest, last laid first.
        if winning >= 0:
            push(ws, p, winner, ws[TABLE + winning])
        for i in range(laid - 1, -1, -1):
            if i != winning:
                push(ws, p, winner, ws[TABLE + i])
    else:
        if gather == GATHER_SHUFFLED:
            shuffle(ws, TABLE, laid, ws)
        for i in range(laid):
            push(ws, p, winner, ws[TABLE + i])
    return winner, wars, lost_short, 0
