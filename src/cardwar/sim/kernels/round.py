"""A round played to its end: battles until someone holds every card, a shortage decides, the
battle limit is reached or a loop shows (docs/rules.md#how-a-round-ends); and, for a loop, where
it began.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardwar.sim.kernels.battle import battle
from cardwar.sim.kernels.codes import (
    ALL_CARDS,
    BATTLE_LIMIT,
    BOTH_SHORT,
    CYCLE,
    GATHER_SHUFFLED,
    MOST_CARDS,
    MOST_CARDS_TIE,
    NO_WINNER,
    OPPONENT_SHORT,
    R_GATHER,
    R_LIMIT,
    R_MOST_CARDS,
    R_PLAYERS,
    RES_BATTLES,
    RES_LOOP,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
)
from cardwar.sim.kernels.loops import load_check, watch_from, watch_step
from cardwar.sim.kernels.plain import advance, plain_battles
from cardwar.sim.kernels.ring import deal, same_position, size_of
from cardwar.sim.kernels.workspace import BEHIND, CHECK_EVERY, HISTORY, KEYS, LENGTH, PILES, RESULT

NO_LIMIT = 1 << 62  # battles enough to stand for no limit


@njit(cache=True, inline="always")
def _finish(
    ws: np.ndarray, winner: int, reason: int, battles: int, wars: int, loop: int = 0
) -> None:
    ws[RESULT + RES_WINNER] = winner
    ws[RESULT + RES_REASON] = reason
    ws[RESULT + RES_BATTLES] = battles
    ws[RESULT + RES_WARS] = wars
    ws[RESULT + RES_LOOP] = loop


@njit(cache=True)
def _count(ws: np.ndarray, players: int, reason: int) -> tuple[int, int]:
    """The single seat holding the most cards, with `reason`; or a tie."""
    most = -1
    leaders = 0
    leader = NO_WINNER
    for seat in range(players):
        size = size_of(ws, PILES, seat)
        if size > most:
            most = size
            leaders = 1
            leader = seat
        elif size == most:
            leaders += 1
    if leaders > 1:
        return NO_WINNER, MOST_CARDS_TIE
    return leader, reason


@njit(cache=True)
def _at_limit(rules: np.ndarray, ws: np.ndarray, battles: int, wars: int) -> None:
    if rules[R_MOST_CARDS] != 0:
        seat, reason = _count(ws, rules[R_PLAYERS], MOST_CARDS)
    else:
        seat, reason = NO_WINNER, BATTLE_LIMIT
    _finish(ws, seat, reason, battles, wars)


@njit(cache=True)
def play_round(rules: np.ndarray, ws: np.ndarray) -> int:
    """Play the round dealt in the workspace's piles to its end; fill its result and return the
    number of cards left on the table (only after a draw by shortage).

    With no battle limit and a fixed return order the round watches for a loop (`loops`); on a
    repeat it stops with reason CYCLE and the loop's length at RES_LOOP (RES_BATTLES is then
    the battles played to the repeat it saw; `play_dealt` finds the first).
    """
    players = rules[R_PLAYERS]
    limit = rules[R_LIMIT]
    watching = limit == 0 and rules[R_GATHER] != GATHER_SHUFFLED
    battles = 0
    wars = 0
    if watching:
        watch_from(ws, players)
    while True:
        if players == 2:
            # Two players, no one short in a war: by far the most common battle. The run stops
            # at a shortage, an empty pile, the limit or a repeat.
            most = limit - battles if limit != 0 else NO_LIMIT
            played, fought, repeat = plain_battles(rules, ws, PILES, most, watching, battles, wars)
            battles += played
            wars += fought
            if size_of(ws, PILES, 0) == 0 or size_of(ws, PILES, 1) == 0:
                _finish(ws, 0 if size_of(ws, PILES, 0) > 0 else 1, ALL_CARDS, battles, wars)
                return 0
            if limit != 0 and battles >= limit:
                _at_limit(rules, ws, battles, wars)
                return 0
            if repeat:
                _finish(ws, NO_WINNER, CYCLE, battles, wars, ws[LENGTH])
                return 0
        winner, fought, lost_short, left = battle(rules, ws, PILES)
        battles += 1
        wars += fought
        if winner == NO_WINNER:
            _finish(ws, NO_WINNER, BOTH_SHORT, battles, wars)
            return left
        holding = 0
        for seat in range(players):
            if size_of(ws, PILES, seat) > 0:
                holding += 1
        if holding == 1:
            _finish(ws, winner, OPPONENT_SHORT if lost_short else ALL_CARDS, battles, wars)
            return 0
        if limit != 0 and battles >= limit:
            _at_limit(rules, ws, battles, wars)
            return 0
        if watching and watch_step(ws, players, battles, wars):
            _finish(ws, NO_WINNER, CYCLE, battles, wars, ws[LENGTH])
            return 0


@njit(cache=True)
def first_repeat(
    rules: np.ndarray, cards: np.ndarray, sizes: np.ndarray, length: int, ws: np.ndarray
) -> tuple[int, int]:
    """The deal `cards` / `sizes` loops, `length` battles round: returns the battles to its first
    repeat (as the readable engine counts them) and the wars fought to there, and leaves its
    piles there. Two copies of the deal, that far apart, walk on together until they meet."""
    players = rules[R_PLAYERS]
    deal(ws, PILES, cards, sizes)
    deal(ws, BEHIND, cards, sizes)
    wars = advance(rules, ws, PILES, length)
    start = 0
    while not same_position(ws, PILES, BEHIND, players):
        wars += advance(rules, ws, PILES, 1)
        advance(rules, ws, BEHIND, 1)
        start += 1
    return start + length, wars


@njit(cache=True)
def rebuild(rules: np.ndarray, ws: np.ndarray, p: int, players: int, at: int) -> int:
    """Put the position after `at` battles (within the watch's record) in set `p`, from its
    checkpoint; returns the wars fought to there."""
    wars = load_check(ws, p, players, at)
    return wars + advance(rules, ws, p, at % CHECK_EVERY)


@njit(cache=True)
def first_repeat_recorded(
    rules: np.ndarray, ws: np.ndarray, length: int, seen_at: int
) -> tuple[int, int]:
    """`first_repeat` from the watch's record of a round that repeated after `seen_at` battles
    (within the record), `length` battles round: the first battle whose position's key is that
    of the position `length` battles before, the two positions rebuilt and compared whole (a key
    tells positions apart, never makes them equal). Leaves the piles at the first repeat."""
    players = rules[R_PLAYERS]
    for start in range(seen_at - length + 1):
        if ws[KEYS + start] != ws[KEYS + start + length]:
            continue  # different keys: different positions, and no repeat before either
        rebuild(rules, ws, BEHIND, players, start)
        wars = rebuild(rules, ws, PILES, players, start + length)
        if same_position(ws, PILES, BEHIND, players):
            return start + length, wars
    raise AssertionError("the position after seen_at battles repeats the one length before")


@njit(cache=True)
def play_dealt(rules: np.ndarray, cards: np.ndarray, sizes: np.ndarray, ws: np.ndarray) -> int:
    """Play the deal `cards` / `sizes` (every pile top first, one after another) to its end: the
    workspace's result gets winner, reason, battles, wars (and a loop's length) and its piles
    the final piles, exactly as the readable engine would leave them. Returns the cards left on
    the table by a shortage draw."""
    deal(ws, PILES, cards, sizes)
    left = play_round(rules, ws)
    if ws[RESULT + RES_REASON] == CYCLE:
        length, seen_at = ws[RESULT + RES_LOOP], ws[RESULT + RES_BATTLES]
        if seen_at < HISTORY:
            battles, wars = first_repeat_recorded(rules, ws, length, seen_at)
        else:
            battles, wars = first_repeat(rules, cards, sizes, length, ws)
        ws[RESULT + RES_BATTLES] = battles
        ws[RESULT + RES_WARS] = wars
    return left
