"""Explicit deals as JSON lines, read and written in bulk: a file's bytes parsed into card
indices deal by deal, the deals played on every core, and each result written back as the JSON
line `cardwar simulate --deals` prints, all without a Python object per card.

`read_line` takes the plain form a deal is written in (`[["9S", "2C"], ["9H", "3C"]]`, any
spacing, lower case and `10` for a ten accepted) and checks it as `cardwar.engine.parse_deal`
does; any line it does not take, it leaves to Python, which takes it or names its problem
(`cardwar.sim.runs.deals`). `write_result` writes exactly what `json.dumps` writes.
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
    SEATS,
)
from cardwar.sim.kernels.ring import peek, size_of
from cardwar.sim.kernels.rng import seed_game
from cardwar.sim.kernels.round import play_dealt
from cardwar.sim.kernels.workspace import PILES, RESULT, workspace

# What `read_line` makes of a line.
BLANK, DEAL, OTHER = range(3)
# A deal's row: the cards of every pile one after another, then each pile's size.
SIZES = CARDS
DEAL_ROW = CARDS + SEATS
RESULT_ROOM = 448  # the most bytes a result line takes, newline included (445, with 52 cards)
_RANK_OF = np.full(128, -1, np.int64)
for _rank, _code in enumerate("23456789TJQKA"):
    _RANK_OF[ord(_code)] = _RANK_OF[ord(_code.lower())] = _rank
_SUIT_OF = np.full(128, -1, np.int64)
for _suit, _code in enumerate("CDHS"):
    _SUIT_OF[ord(_code)] = _SUIT_OF[ord(_code.lower())] = _suit
CODES = np.frombuffer(b"23456789TJQKA", np.uint8).copy()
SUITS = np.frombuffer(b"CDHS", np.uint8).copy()
_WINNER = np.frombuffer(b'{"winner": ', np.uint8).copy()
_NULL = np.frombuffer(b"null", np.uint8).copy()
_REASON = np.frombuffer(b', "reason": "', np.uint8).copy()
_BATTLES = np.frombuffer(b'", "battles": ', np.uint8).copy()
_WARS = np.frombuffer(b', "wars": ', np.uint8).copy()
_PILES = np.frombuffer(b', "piles": [', np.uint8).copy()
SPACE = np.zeros(256, np.bool_)
for _char in b" \t\r":
    SPACE[_char] = True


@njit(cache=True, inline="always")
def _skip(buf: np.ndarray, at: int, end: int) -> int:
    while at < end and SPACE[buf[at]]:
        at += 1
    return at


@njit(cache=True)
def read_line(buf: np.ndarray, start: int, end: int, players: int, row: np.ndarray) -> int:
    """Read the line `buf[start:end]` into `row` (cards, then pile sizes). Returns BLANK for an
    empty line, DEAL for a deal taken, OTHER for anything else (left to Python)."""
    at = _skip(buf, start, end)
    if at == end:
        return BLANK
    if buf[at] != ord("["):
        return OTHER
    at += 1
    seen = 0  # the cards met so far, one bit each
    cards = 0
    piles = 0
    while True:
        at = _skip(buf, at, end)
        if at == end or buf[at] != ord("[") or piles == SEATS:
            return OTHER
        at += 1
        size = 0
        while True:
            at = _skip(buf, at, end)
            if at < end and buf[at] == ord("]") and size == 0:
                return OTHER  # an empty pile: Python names it
            if at + 3 >= end or buf[at] != ord('"') or buf[at + 1] >= 128:
                return OTHER
            rank = _RANK_OF[buf[at + 1]]
            at += 2
            if buf[at - 1] == ord("1") and buf[at] == ord("0"):
                rank = 8
                at += 1
            if rank < 0 or at + 1 >= end or buf[at] >= 128 or buf[at + 1] != ord('"'):
                return OTHER
            suit = _SUIT_OF[buf[at]]
            if suit < 0:
                return OTHER
            card = rank * 4 + suit
            if seen >> card & 1:
                return OTHER  # a card twice: Python names it
            seen |= 1 << card
            row[cards] = card
            cards += 1
            size += 1
            at = _skip(buf, at + 2, end)
            if at == end:
                return OTHER
            if buf[at] == ord(","):
                at += 1
                continue
            if buf[at] == ord("]"):
                at += 1
                break
            return OTHER
        row[SIZES + piles] = size
        piles += 1
        at = _skip(buf, at, end)
        if at == end:
            return OTHER
        if buf[at] == ord(","):
            at += 1
            continue
        if buf[at] == ord("]"):
            at += 1
            break
        return OTHER
    if piles != players or _skip(buf, at, end) != end:
        return OTHER
    return DEAL


@njit(cache=True, inline="always")
def _put(out: np.ndarray, at: int, text: np.ndarray) -> int:
    for i in range(text.shape[0]):
        out[at + i] = text[i]
    return at + int(text.shape[0])


@njit(cache=True, inline="always")
def _put_int(out: np.ndarray, at: int, value: int) -> int:
    """A whole number 0 or more, in decimal."""
    end = at
    while True:
        out[end] = ord("0") + value % 10
        value //= 10
        end += 1
        if value == 0:
            break
    lo, hi = at, end - 1
    while lo < hi:  # the digits came last first
        out[lo], out[hi] = out[hi], out[lo]
        lo += 1
        hi -= 1
    return end


@njit(cache=True)
def write_result(
    ws: np.ndarray, players: int, reasons: np.ndarray, lengths: np.ndarray, out: np.ndarray,
    at: int,
) -> int:  # fmt: skip
    """Write the result of the round just played in `ws` at `out[at:]` as one JSON line,
    `{"winner": 0, "reason": "all_cards", "battles": 9, "wars": 1, "piles": [[...], []]}`
    (`reasons` holds each reason's name, `lengths` its length); returns where it ended."""
    winner = ws[RESULT + RES_WINNER]
    at = _put(out, at, _WINNER)
    if winner < 0:
        at = _put(out, at, _NULL)
    else:
        at = _put_int(out, at, winner)
    at = _put(out, at, _REASON)
    reason = ws[RESULT + RES_REASON]
    at = _put(out, at, reasons[reason, : lengths[reason]])
    at = _put(out, at, _BATTLES)
    at = _put_int(out, at, ws[RESULT + RES_BATTLES])
    at = _put(out, at, _WARS)
    at = _put_int(out, at, ws[RESULT + RES_WARS])
    at = _put(out, at, _PILES)
    for seat in range(players):
        if seat > 0:
            out[at] = ord(",")
            out[at + 1] = ord(" ")
            at += 2
        out[at] = ord("[")
        at += 1
        for i in range(size_of(ws, PILES, seat)):
            if i > 0:
                out[at] = ord(",")
                out[at + 1] = ord(" ")
                at += 2
            card = peek(ws, PILES, seat, i)
            out[at] = ord('"')
            out[at + 1] = CODES[card >> 2]
            out[at + 2] = SUITS[card & 3]
            out[at + 3] = ord('"')
            at += 4
        out[at] = ord("]")
        at += 1
    out[at] = ord("]")
    out[at + 1] = ord("}")
    out[at + 2] = ord("\n")
    return at + 3


@njit(cache=True, parallel=True)
def play_lines(
    rules: np.ndarray, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, seed: int,
    first: int, reasons: np.ndarray, lengths: np.ndarray, kinds: np.ndarray,
    deals: np.ndarray, out: np.ndarray, sizes: np.ndarray, battles: np.ndarray, parts: int,
) -> None:  # fmt: skip
    """Read, play and write the lines `buf[starts[i]:ends[i]]`, in `parts` slices on as many
    threads: `kinds[i]` says what each line was (BLANK, DEAL or OTHER, which is not played:
    its row in `deals` is left for Python to fill and play), `out[i]` holds each result line,
    `sizes[i]` its length in bytes and `battles[i]` the battles it played. The shuffled
    return order draws from the generator seeded by `seed` and the deal's number, `first + i`."""
    players = rules[R_PLAYERS]
    lines = starts.shape[0]
    for part in prange(parts):
        ws = workspace()
        lo = lines * part // parts
        hi = lines * (part + 1) // parts
        for i in range(lo, hi):
            kinds[i] = read_line(buf, starts[i], ends[i], players, deals[i])
            if kinds[i] != DEAL:
                continue
            row = deals[i]
            seed_game(ws, seed, first + i)
            total = 0
            for seat in range(players):
                total += row[SIZES + seat]
            play_dealt(rules, row[:total], row[SIZES : SIZES + players], ws)
            sizes[i] = write_result(ws, players, reasons, lengths, out[i], 0)
            battles[i] = ws[RESULT + RES_BATTLES]


@njit(cache=True)
def play_row(
    rules: np.ndarray, row: np.ndarray, seed: int, number: int, reasons: np.ndarray,
    lengths: np.ndarray, out: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Play one deal row (a line Python read), as `play_lines` plays each; returns the bytes of
    its result line and the battles played."""
    ws = workspace()
    players = rules[R_PLAYERS]
    seed_game(ws, seed, number)
    total = 0
    for seat in range(players):
        total += row[SIZES + seat]
    play_dealt(rules, row[:total], row[SIZES : SIZES + players], ws)
    return write_result(ws, players, reasons, lengths, out, 0), ws[RESULT + RES_BATTLES]
