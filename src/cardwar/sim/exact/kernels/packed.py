"""A two-player round on ranks alone, each pile packed in one 64-bit word: the exact
game (`every_deal`), played in registers.

Suits never decide a battle, so on a small deck a position is its ranks. A card is its rank + 1
(never 0) in `bits` bits, a pile is its cards from the top in the low bits up, so taking the
top card is a shift, putting cards under the pile an or at `bits * size`, and a position is two
words that compare exactly: equal words, equal positions. This holds while the whole deck fits
in one word below its sign bit (`cards * bits <= 63`: every one-suit deck, and 4 suits of up to
5 ranks); bigger decks are played on the rings of `ring` instead (`every_deal`).

The rules are those of `cardwar.engine` for two players, every return order but `shuffled`:
`battle` is the common battle, written for registers, and `war` the rest (a tie, its wars,
shortages, and picking the table up in the order the rules say). They take and give numbers
only, so that the kernels inline them without counting references (see `plain`).

A loop is found with Brent's algorithm on the two words, compared exactly every battle (two
compares), with no need of a fingerprint. A loop's name (`loop_name`) is its smallest position
over one turn of it, as two words, and, when the rules treat both seats alike (a deal and its
mirror are the same game), over both seatings.
"""

from __future__ import annotations

from numba import njit

from cardwar.sim.kernels.codes import (
    ALL_CARDS,
    BATTLE_LIMIT,
    BOTH_SHORT,
    CYCLE,
    GATHER_NATURAL,
    GATHER_TABLE,
    MOST_CARDS,
    MOST_CARDS_TIE,
    NO_WINNER,
    OPPONENT_SHORT,
)

GOES_ON = -1  # the code a battle gives when the round goes on


def bits_for(ranks: int) -> int:
    """Bits a card takes: enough for rank + 1 (1 .. ranks, never 0)."""
    return ranks.bit_length()


def fits(cards: int, ranks: int) -> bool:
    """True if a pile of every card fits in one word below its sign bit."""
    return cards * bits_for(ranks) <= 63


@njit(cache=True, inline="always")
def _first(p: int, b: int, k: int) -> int:
    """The first `k` cards of pile `p` (k * b < 63)."""
    return p & ((1 << (b * k)) - 1)


@njit(cache=True, inline="always")
def _card(p: int, b: int, mask: int, i: int) -> int:
    """The i-th card from the top of pile `p`."""
    return (p >> (b * i)) & mask


# Over 80 lines on purpose: a war's steps in one loop over the packed words, since an inlined
# helper taking arrays costs numba's reference counting on every call (plain.py's head).
@njit(cache=True)
def war(
    p0: int, p1: int, s0: int, s1: int, b: int, need: int, last_card: bool, low: bool,
    gather: int,
) -> tuple[int, int, int, int, int, int, int]:  # fmt: skip
    """The battle whose top cards tie: its wars, fought as `cardwar.engine.Round._war` fights
    them for two players, and the winner picking the table up. Returns the piles and counts
    after it, the winner (or NO_WINNER), the wars fought, and how the round ended (GOES_ON,
    ALL_CARDS, OPPONENT_SHORT or BOTH_SHORT)."""
    mask = (1 << b) - 1
    full = 0  # war steps of `need` cards each, before the last step
    k0 = 0  # the last step's cards, for each seat
    k1 = 0
    wars = 0
    winner = NO_WINNER
    fought_last = False
    end = GOES_ON
    while True:
        r0 = s0 - 1 - full * need - k0  # cards not yet laid
        r1 = s1 - 1 - full * need - k1
        if k0 == need and k1 == need:  # the step before this one tied, a whole one
            full += 1
            k0 = 0
            k1 = 0
        # (A step that tied short of whole, under last_card, left a seat with no card: this
        # step ends the battle laying nothing, and that step stays the last one laid.)
        if last_card:
            if r0 == 0 and r1 == 0:
                end = BOTH_SHORT
                break
            if r0 == 0 or r1 == 0:
                winner = 1 if r0 == 0 else 0  # alone in the war: wins without laying
                end = ALL_CARDS
                break
            # Not min(): numba's CUDA target cannot type its *args overload (`kernels.gpu`).
            k0 = need if need < r0 else r0
            k1 = need if need < r1 else r1
        else:
            if r0 < need and r1 < need:
                end = BOTH_SHORT
                break
            if r0 < need or r1 < need:
                # The short player's last cards join the table in its turn of this step.
                winner = 1 if r0 < need else 0
                k0 = r0 if winner == 1 else 0
                k1 = r1 if winner == 0 else 0
                end = OPPONENT_SHORT
                break
            k0 = need
            k1 = need
        wars += 1
        u0 = _card(p0, b, mask, full * need + k0)
        u1 = _card(p1, b, mask, full * need + k1)
        if u0 != u1:
            winner = 1 if (u0 > u1) == low else 0
            fought_last = True
            break
    l0 = 1 + full * need + k0  # cards each seat laid
    l1 = 1 + full * need + k1
    if end == BOTH_SHORT:
        return p0 >> (b * l0), p1 >> (b * l1), s0 - l0, s1 - l1, NO_WINNER, wars, end

    # The table, in the order the rules pick it up, `at` cards of it in `out` from the low bits.
    out = 0
    at = 0
    if gather == GATHER_TABLE:
        out = (p0 & mask) | ((p1 & mask) << b)
        at = 2
        for step in range(full):
            for seat in range(2):
                chunk = _first((p1 if seat else p0) >> (b * (1 + step * need)), b, need)
                out |= chunk << (b * at)
                at += need
        start = 1 + full * need
        out |= _first(p0 >> (b * start), b, k0) << (b * at)
        at += k0
        out |= _first(p1 >> (b * start), b, k1) << (b * at)
        at += k1
    elif gather == GATHER_NATURAL:
        # As the cards lie: the card that won the last step, then every other card, last laid
        # first: step by step from the last, the second seat's (last laid) before the first's.
        lw = l1 if winner == 1 else l0
        if fought_last:
            out = _card(p1 if winner == 1 else p0, b, mask, lw - 1)
            at = 1
        for step in range(full + 1, -1, -1):
            if step == full + 1:
                start, counts = 1 + full * need, (k0, k1)
            elif step == 0:
                start, counts = 0, (1, 1)
            else:
                start, counts = 1 + (step - 1) * need, (need, need)
            for seat in (1, 0):
                p = p1 if seat else p0
                for i in range(start + counts[seat] - 1, start - 1, -1):
                    if fought_last and seat == winner and i == lw - 1:
                        continue
                    out |= _card(p, b, mask, i) << (b * at)
                    at += 1
    else:  # the winner's cards as laid, then the other's
        lw, ll = (l1, l0) if winner == 1 else (l0, l1)
        out = _first(p1 if winner == 1 else p0, b, lw)
        out |= _first(p0 if winner == 1 else p1, b, ll) << (b * lw)
        at = lw + ll
    p0 >>= b * l0
    p1 >>= b * l1
    s0 -= l0
    s1 -= l1
    if winner == 1:
        p1 |= out << (b * s1)
        s1 += at
    else:
        p0 |= out << (b * s0)
        s0 += at
    return p0, p1, s0, s1, winner, wars, end


@njit(cache=True, inline="always")
def battle(
    p0: int, p1: int, s0: int, s1: int, b: int, need: int, last_card: bool, low: bool,
    gather: int,
) -> tuple[int, int, int, int, int, int, int]:  # fmt: skip
    """One battle, as `war` returns it: with no tie, in a few register steps; with no card
    face down, a tie too (the published game's, one battle in four or five on a four-suit deck),
    unless it ends in a shortage."""
    mask = (1 << b) - 1
    a = p0 & mask
    c = p1 & mask
    if a == c:
        if need != 1:
            return war(p0, p1, s0, s1, b, need, last_card, low, gather)
        # No card down: the tied pairs are the tops of both piles, then one pair decides.
        t = 1
        while t < s0 and t < s1 and _card(p0, b, mask, t) == _card(p1, b, mask, t):
            t += 1
        if t == s0 or t == s1:  # a tied player has no card left: a shortage
            return war(p0, p1, s0, s1, b, need, last_card, low, gather)
        u0 = _card(p0, b, mask, t)
        u1 = _card(p1, b, mask, t)
        w = 1 if (u0 > u1) == low else 0
        laid = t + 1
        if gather == GATHER_TABLE:  # step by step, seat by seat
            out = 0
            for i in range(laid):
                out |= (_card(p0, b, mask, i) | (_card(p1, b, mask, i) << b)) << (2 * b * i)
        elif gather == GATHER_NATURAL:  # the winner's card, the loser's, then the ties, last first
            out = (u1 | (u0 << b)) if w == 1 else (u0 | (u1 << b))
            for i in range(t):
                tie = _card(p0, b, mask, t - 1 - i)
                out |= (tie | (tie << b)) << (b * (2 + 2 * i))
        else:  # the winner's cards as laid, then the loser's
            out = _first(p1 if w == 1 else p0, b, laid)
            out |= _first(p0 if w == 1 else p1, b, laid) << (b * laid)
        p0 >>= b * laid
        p1 >>= b * laid
        s0 -= laid
        s1 -= laid
        if w == 1:
            p1 |= out << (b * s1)
            s1 += 2 * laid
        else:
            p0 |= out << (b * s0)
            s0 += 2 * laid
        return p0, p1, s0, s1, w, t, GOES_ON
    w = 1 if (a > c) == low else 0
    p0 >>= b
    p1 >>= b
    s0 -= 1
    s1 -= 1
    if gather == GATHER_TABLE:
        pair = a | (c << b)
    else:  # the winner's card first (for `natural` too, with no tie)
        pair = (c | (a << b)) if w == 1 else (a | (c << b))
    if w == 1:
        p1 |= pair << (b * s1)
        s1 += 2
    else:
        p0 |= pair << (b * s0)
        s0 += 2
    return p0, p1, s0, s1, w, 0, GOES_ON


@njit(cache=True, inline="always")
def play(
    p0: int, p1: int, s0: int, s1: int, b: int, need: int, last_card: bool, low: bool,
    gather: int, limit: int, most_cards: bool,
) -> tuple[int, int, int, int, int, int, int, int, int]:  # fmt: skip
    """Play the deal `p0`, `p1` (`s0`, `s1` cards) to its end. With no `limit` it watches for a
    loop (Brent's algorithm on the two words). Returns the piles and counts it ends with (for a
    loop, a position on the loop), the winner (or NO_WINNER), the reason's code, the battles
    played (for a loop, to the repeat it saw), the wars fought, and a loop's length (0 if
    none)."""
    battles = 0
    wars = 0
    kept0 = p0
    kept1 = p1
    power = 1
    length = 0
    while True:
        p0, p1, s0, s1, winner, fought, end = battle(
            p0, p1, s0, s1, b, need, last_card, low, gather
        )
        battles += 1
        wars += fought
        if end != GOES_ON:
            return p0, p1, s0, s1, winner, end, battles, wars, 0
        if s0 == 0 or s1 == 0:
            return p0, p1, s0, s1, winner, ALL_CARDS, battles, wars, 0
        if limit != 0:
            if battles >= limit:
                if not most_cards:
                    return p0, p1, s0, s1, NO_WINNER, BATTLE_LIMIT, battles, wars, 0
                if s0 == s1:
                    return p0, p1, s0, s1, NO_WINNER, MOST_CARDS_TIE, battles, wars, 0
                return p0, p1, s0, s1, 0 if s0 > s1 else 1, MOST_CARDS, battles, wars, 0
        elif p0 == kept0 and p1 == kept1:
            return p0, p1, s0, s1, NO_WINNER, CYCLE, battles, wars, length + 1
        else:
            length += 1
            if length == power:
                kept0 = p0
                kept1 = p1
                power *= 2
                length = 0


@njit(cache=True, inline="always")
def _before(a0: int, a1: int, b0: int, b1: int) -> bool:
    """True if position (a0, a1) comes before (b0, b1): by the first word, then the second."""
    return a0 < b0 or (a0 == b0 and a1 < b1)


@njit(cache=True)
def loop_name(
    p0: int, p1: int, s0: int, s1: int, length: int, b: int, need: int, last_card: bool,
    low: bool, gather: int, seatings: bool,
) -> tuple[int, int]:  # fmt: skip
    """A loop's name: the smallest of its `length` positions, from (p0, p1) on, over both
    seatings if `seatings`. Every deal that falls into the loop gets the same name."""
    best0, best1 = p0, p1
    for _ in range(length):
        if _before(p0, p1, best0, best1):
            best0, best1 = p0, p1
        if seatings and _before(p1, p0, best0, best1):
            best0, best1 = p1, p0
        p0, p1, s0, s1, _, _, _ = battle(p0, p1, s0, s1, b, need, last_card, low, gather)
    return best0, best1


@njit(cache=True)
def first_repeat(
    p0: int,
    p1: int,
    s0: int,
    s1: int,
    length: int,
    b: int,
    need: int,
    last_card: bool,
    low: bool,
    gather: int,
) -> tuple[int, int]:
    """For the deal `p0`, `p1` that loops `length` battles round: the battles to its first
    repeated position, as the readable engine counts them, and the wars fought to there (two
    copies of the deal, `length` apart, walk on together until they meet)."""
    a0, a1, t0, t1 = p0, p1, s0, s1
    wars = 0
    for _ in range(length):
        a0, a1, t0, t1, _, fought, _ = battle(a0, a1, t0, t1, b, need, last_card, low, gather)
        wars += fought
    start = 0
    while a0 != p0 or a1 != p1:
        a0, a1, t0, t1, _, fought, _ = battle(a0, a1, t0, t1, b, need, last_card, low, gather)
        p0, p1, s0, s1, _, _, _ = battle(p0, p1, s0, s1, b, need, last_card, low, gather)
        wars += fought
        start += 1
    return start + length, wars
