"""The fast simulator's kernels: numba over integer arrays, the rules of SPEC §3–5 once more.

The readable engine (`cardwar.engine`) is the reference; this is a second implementation, held
to it by `tests/test_simulator.py`, which plays thousands of deals on both and compares winner,
reason, battles, wars and final piles round by round.

Layout. A card is its index into `cardwar.cards.DECK` (rank-major, so its rank is `card >> 2`).
A seat's pile is a ring of `RING` slots in row `seat` of `piles`, with `head[seat]` its top and
`size[seat]` its count. Laid cards collect in `table_card` / `table_seat` in the order laid.
Rules travel as an int64 array indexed by the R_* constants below; results as the codes of
`cardwar.engine.Reason` in its order.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from cardwar.sim.kernels.codes import (
    ALL_CARDS,
    BATTLE_LIMIT,
    BOTH_SHORT,
    CYCLE,
    GATHER_SHUFFLED,
    GATHER_TABLE,
    GATHER_WINNER_FIRST,
    MASK,
    MOST_CARDS,
    MOST_CARDS_TIE,
    NO_WINNER,
    OPPONENT_SHORT,
    R_GATHER,
    R_LAST_CARD,
    R_LIMIT,
    R_LOW_WINS,
    R_MOST_CARDS,
    R_PLAYERS,
    R_WAR_DOWN,
    RES_BATTLES,
    RES_LOOP,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
    RING,
)

# -- a small, fast, seedable generator: splitmix64 -------------------------------------------------


@njit(cache=True, inline="always")
def next_random(state: np.ndarray) -> np.uint64:
    """The next 64 random bits of the generator whose state is `state[0]`."""
    state[0] = state[0] + np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.uint64(z ^ (z >> np.uint64(31)))


@njit(cache=True, inline="always")
def below(state: np.ndarray, n: int) -> int:
    """A random whole number in 0..n-1 (multiply-shift; its bias is under n / 2**32)."""
    return int(((next_random(state) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def seed_game(state: np.ndarray, seed: int, game: int) -> None:
    """Seed `state` for game number `game` of a run: independent of how games are split up."""
    state[0] = np.uint64(seed) * np.uint64(0xD1B54A32D192ED03) + np.uint64(game)
    next_random(state)
    next_random(state)


# -- piles -----------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _pop(piles: np.ndarray, head: np.ndarray, size: np.ndarray, seat: int) -> int:
    card = piles[seat, head[seat]]
    head[seat] = (head[seat] + 1) & MASK
    size[seat] -= 1
    return int(card)


@njit(cache=True, inline="always")
def _push(piles: np.ndarray, head: np.ndarray, size: np.ndarray, seat: int, card: int) -> None:
    piles[seat, (head[seat] + size[seat]) & MASK] = card
    size[seat] += 1


@njit(cache=True)
def deal_piles(
    cards: np.ndarray, sizes: np.ndarray, piles: np.ndarray, head: np.ndarray, size: np.ndarray
) -> None:
    """Lay out a deal: `cards` holds every pile one after another, top card first."""
    start = 0
    for seat in range(sizes.shape[0]):
        head[seat] = 0
        size[seat] = 0
        for i in range(sizes[seat]):
            _push(piles, head, size, seat, cards[start + i])
        start += sizes[seat]


@njit(cache=True)
def random_deal(
    rules: np.ndarray, hand: int, rng: np.ndarray, piles: np.ndarray, head: np.ndarray,
    size: np.ndarray, deck: np.ndarray,
) -> None:  # fmt: skip
    """Shuffle the 52 cards with `rng` and deal `hand` to each seat, one at a time, seat 0 first."""
    for i in range(52):
        deck[i] = i
    for i in range(51, 0, -1):
        j = below(rng, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    players = rules[R_PLAYERS]
    for seat in range(players):
        head[seat] = 0
        size[seat] = 0
    for i in range(hand * players):
        _push(piles, head, size, i % players, deck[i])


@njit(cache=True)
def same_position(
    piles: np.ndarray, head: np.ndarray, size: np.ndarray,
    kept: np.ndarray, kept_size: np.ndarray, players: int,
) -> bool:  # fmt: skip
    """True if the piles hold exactly the kept position (`kept` rows are top first)."""
    for seat in range(players):
        if size[seat] != kept_size[seat]:
            return False
    for seat in range(players):
        h = head[seat]
        for i in range(size[seat]):
            if piles[seat, (h + i) & MASK] != kept[seat, i]:
                return False
    return True


@njit(cache=True)
def keep_position(
    piles: np.ndarray, head: np.ndarray, size: np.ndarray,
    kept: np.ndarray, kept_size: np.ndarray, players: int,
) -> None:  # fmt: skip
    """Copy the piles into `kept` (top first)."""
    for seat in range(players):
        kept_size[seat] = size[seat]
        h = head[seat]
        for i in range(size[seat]):
            kept[seat, i] = piles[seat, (h + i) & MASK]


# -- one battle ------------------------------------------------------------------------------------


@njit(cache=True)
def battle(
    rules: np.ndarray, piles: np.ndarray, head: np.ndarray, size: np.ndarray,
    table_card: np.ndarray, table_seat: np.ndarray, work: np.ndarray, rng: np.ndarray,
) -> tuple[int, int, bool, int]:  # fmt: skip
    """Play one battle, wars included, exactly as `Round.play_battle` does.

    Returns (winner or NO_WINNER, wars fought, whether a player lost by being short, cards left
    on the table: nonzero only when nobody could finish a war).
    """
    players = rules[R_PLAYERS]
    low = rules[R_LOW_WINS] != 0
    gather = rules[R_GATHER]
    # The common case, two players with cards whose top cards differ, without the bookkeeping.
    if players == 2 and size[0] > 0 and size[1] > 0:
        a = piles[0, head[0]]
        b = piles[1, head[1]]
        ra = a >> 2
        rb = b >> 2
        if ra != rb:
            head[0] = (head[0] + 1) & MASK
            head[1] = (head[1] + 1) & MASK
            size[0] -= 1
            size[1] -= 1
            winner = 0 if (ra > rb) != low else 1
            first, second = a, b
            if gather == GATHER_WINNER_FIRST:
                if winner == 1:
                    first, second = b, a
            elif gather == GATHER_SHUFFLED:
                if below(rng, 2) == 1:
                    first, second = b, a
            _push(piles, head, size, winner, first)
            _push(piles, head, size, winner, second)
            return winner, 0, False, 0

    # work rows: 0 = each seat's face-up card this step (-1 for none), 1 = tied seats,
    # 2 = fighters, 3 = short seats.
    up = work[0]
    tied = work[1]
    laid = 0
    n_tied = 0
    best = -1
    for seat in range(players):
        up[seat] = -1
        if size[seat] > 0:
            card = _pop(piles, head, size, seat)
            up[seat] = card
            table_card[laid] = card
            table_seat[laid] = seat
            laid += 1
            rank = card >> 2
            if best < 0 or (rank < best if low else rank > best):
                best = rank
    for seat in range(players):
        if up[seat] >= 0 and (up[seat] >> 2) == best:
            tied[n_tied] = seat
            n_tied += 1

    wars = 0
    lost_short = False
    winner = NO_WINNER
    if n_tied == 1:
        winner = tied[0]
    else:
        fighters = work[2]
        short = work[3]
        need = rules[R_WAR_DOWN] + 1
        lose = rules[R_LAST_CARD] == 0
        while True:
            n_short = 0
            n_fighters = 0
            for i in range(n_tied):
                seat = tied[i]
                if size[seat] < need:
                    short[n_short] = seat
                    n_short += 1
            if lose:
                for i in range(n_tied):
                    seat = tied[i]
                    if size[seat] >= need:
                        fighters[n_fighters] = seat
                        n_fighters += 1
            else:
                for i in range(n_tied):
                    seat = tied[i]
                    if size[seat] > 0:
                        fighters[n_fighters] = seat
                        n_fighters += 1
                if n_fighters < 2:
                    n_short = 0
                    for i in range(n_tied):
                        if size[tied[i]] == 0:
                            short[n_short] = tied[i]
                            n_short += 1
            if n_fighters == 0:
                return NO_WINNER, wars, lost_short, laid  # everyone short: cards stay put
            if lose and n_short > 0:
                lost_short = True
            fought = n_fighters > 1
            for i in range(n_tied):
                seat = tied[i]
                fighting = False
                for j in range(n_fighters):
                    if fighters[j] == seat:
                        fighting = True
                if fighting:
                    if not fought:
                        continue
                    lay = min(rules[R_WAR_DOWN], size[seat] - 1)
                    for _ in range(lay):
                        table_card[laid] = _pop(piles, head, size, seat)
                        table_seat[laid] = seat
                        laid += 1
                    card = _pop(piles, head, size, seat)
                    table_card[laid] = card
                    table_seat[laid] = seat
                    laid += 1
                    up[seat] = card
                elif lose:
                    while size[seat] > 0:  # a short player's last cards join the table
                        table_card[laid] = _pop(piles, head, size, seat)
                        table_seat[laid] = seat
                        laid += 1
            if not fought:
                winner = fighters[0]
                break
            wars += 1
            best = -1
            for j in range(n_fighters):
                rank = up[fighters[j]] >> 2
                if best < 0 or (rank < best if low else rank > best):
                    best = rank
            n_tied = 0
            for j in range(n_fighters):
                if (up[fighters[j]] >> 2) == best:
                    tied[n_tied] = fighters[j]
                    n_tied += 1
            if n_tied == 1:
                winner = tied[0]
                break

    # The winner puts the table under their pile, in the order the rules say.
    if gather == GATHER_WINNER_FIRST:
        for i in range(laid):
            if table_seat[i] == winner:
                _push(piles, head, size, winner, table_card[i])
        for i in range(laid):
            if table_seat[i] != winner:
                _push(piles, head, size, winner, table_card[i])
    else:
        if gather == GATHER_SHUFFLED:
            for i in range(laid - 1, 0, -1):
                j = below(rng, i + 1)
                table_card[i], table_card[j] = table_card[j], table_card[i]
        for i in range(laid):
            _push(piles, head, size, winner, table_card[i])
    return winner, wars, lost_short, 0


# -- a whole round ---------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _finish(result: np.ndarray, winner: int, reason: int, battles: int, wars: int) -> None:
    result[RES_WINNER] = winner
    result[RES_REASON] = reason
    result[RES_BATTLES] = battles
    result[RES_WARS] = wars


@njit(cache=True)
def _at_limit(
    rules: np.ndarray, size: np.ndarray, result: np.ndarray, battles: int, wars: int
) -> None:
    if rules[R_MOST_CARDS] != 0:
        seat, reason = _count(size, rules[R_PLAYERS], MOST_CARDS)
    else:
        seat, reason = NO_WINNER, BATTLE_LIMIT
    _finish(result, seat, reason, battles, wars)


@njit(cache=True)
def _count(size: np.ndarray, players: int, reason: int) -> tuple[int, int]:
    most = -1
    leaders = 0
    leader = NO_WINNER
    for seat in range(players):
        if size[seat] > most:
            most = size[seat]
            leaders = 1
            leader = seat
        elif size[seat] == most:
            leaders += 1
    if leaders > 1:
        return NO_WINNER, MOST_CARDS_TIE
    return leader, reason


@njit(cache=True)
def play_round(
    rules: np.ndarray, piles: np.ndarray, head: np.ndarray, size: np.ndarray,
    table_card: np.ndarray, table_seat: np.ndarray, work: np.ndarray, rng: np.ndarray,
    loop: np.ndarray, loop_size: np.ndarray, result: np.ndarray,
) -> int:  # fmt: skip
    """Play the dealt round in `piles` to its end; fill `result` (winner, reason, battles, wars)
    and return the number of cards left on the table (only after a draw by shortage).

    With no battle limit and a fixed return order the round watches for a loop (Brent's
    algorithm on its own course); once it repeats, the caller finds where the loop began
    (`first_repeat`) and replays to there.
    """
    players = rules[R_PLAYERS]
    limit = rules[R_LIMIT]
    watching = limit == 0 and rules[R_GATHER] != GATHER_SHUFFLED
    battles = 0
    wars = 0
    power = 1
    length = 0
    if watching:
        keep_position(piles, head, size, loop, loop_size, players)
    while True:
        if players == 2:
            # Two players, no tie: by far the most common battle, played here with the piles'
            # ends in registers. It stops at a tie, an empty pile, the limit or a repeat.
            battles, wars, power, length, repeat = _plain_battles(
                rules,
                piles,
                head,
                size,
                battles,
                wars,
                power,
                length,
                loop,
                loop_size,
                rng,
                table_card,
            )
            if size[0] == 0 or size[1] == 0:
                _finish(result, 0 if size[0] > 0 else 1, ALL_CARDS, battles, wars)
                return 0
            if limit != 0 and battles >= limit:
                _at_limit(rules, size, result, battles, wars)
                return 0
            if repeat:
                _finish(result, NO_WINNER, CYCLE, -length, wars)  # play_dealt finds the rest
                return 0
        winner, fought, lost_short, left = battle(
            rules, piles, head, size, table_card, table_seat, work, rng
        )
        battles += 1
        wars += fought
        if winner == NO_WINNER:
            _finish(result, NO_WINNER, BOTH_SHORT, battles, wars)
            return left
        holding = 0
        for seat in range(players):
            if size[seat] > 0:
                holding += 1
        if holding == 1:
            _finish(result, winner, OPPONENT_SHORT if lost_short else ALL_CARDS, battles, wars)
            return 0
        if limit != 0 and battles >= limit:
            _at_limit(rules, size, result, battles, wars)
            return 0
        if watching:
            length += 1
            if same_position(piles, head, size, loop, loop_size, players):
                _finish(result, NO_WINNER, CYCLE, -length, wars)  # play_dealt finds the rest
                return 0
            if power == length:
                keep_position(piles, head, size, loop, loop_size, players)
                power *= 2
                length = 0


@njit(cache=True)
def _plain_battles(
    rules: np.ndarray, piles: np.ndarray, head: np.ndarray, size: np.ndarray, battles: int,
    wars: int, power: int, length: int, loop: np.ndarray, loop_size: np.ndarray,
    rng: np.ndarray, table: np.ndarray,
) -> tuple[int, int, int, int, bool]:  # fmt: skip
    """Play two-player battles for as long as nobody runs short in a war (see `play_round`).

    Returns the battles and wars played so far, the loop watch's state, and whether the
    position after the last battle is one kept by the watch (a repeat). The piles' ends live in
    registers; the winner's side is picked by arithmetic rather than branches, since who wins is
    a coin toss. A war is played here when both players can lay every card it asks for: the
    cards each laid are then simply the tops of their piles, in order. Otherwise the battle is
    left, untouched, to `battle`.
    """
    limit = rules[R_LIMIT]
    low = rules[R_LOW_WINS] != 0
    gather = rules[R_GATHER]
    need = rules[R_WAR_DOWN] + 1
    watching = limit == 0 and gather != GATHER_SHUFFLED
    flat = piles.reshape(-1)
    h0, h1, s0, s1 = head[0], head[1], size[0], size[1]
    repeat = False
    while s0 > 0 and s1 > 0 and (limit == 0 or battles < limit):
        a = flat[h0]
        b = flat[RING + h1]
        ra = a >> 2
        rb = b >> 2
        if ra != rb:
            h0 = (h0 + 1) & MASK
            h1 = (h1 + 1) & MASK
            s0 -= 1
            s1 -= 1
            w = 1 if (ra > rb) == low else 0
            if gather == GATHER_WINNER_FIRST:
                first = b if w == 1 else a
                second = a if w == 1 else b
            elif gather == GATHER_TABLE:
                first, second = a, b
            else:
                swap = below(rng, 2)
                first = b if swap == 1 else a
                second = a if swap == 1 else b
            hw = h1 if w == 1 else h0
            sw = s1 if w == 1 else s0
            base = w * RING
            flat[base + ((hw + sw) & MASK)] = first
            flat[base + ((hw + sw + 1) & MASK)] = second
            s0 += 2 - 2 * w
            s1 += 2 * w
        else:
            # A tie: each lays `need` more cards a war, for as many wars as it takes.
            laid = 1
            fought = 0
            while True:
                if s0 - laid < need or s1 - laid < need:
                    fought = -1  # someone is short: the rules of shortage decide, in battle()
                    break
                laid += need
                fought += 1
                ra = flat[(h0 + laid - 1) & MASK] >> 2
                rb = flat[RING + ((h1 + laid - 1) & MASK)] >> 2
                if ra != rb:
                    break
            if fought < 0:
                break
            w = 1 if (ra > rb) == low else 0
            if gather == GATHER_WINNER_FIRST:
                # The winner's cards in the order laid, then the other's: each pile's tops.
                hw = h1 if w == 1 else h0
                hl = h0 if w == 1 else h1
                sw = s1 if w == 1 else s0
                base = w * RING
                other = (1 - w) * RING
                for i in range(laid):
                    flat[base + ((hw + sw + i) & MASK)] = flat[base + ((hw + i) & MASK)]
                for i in range(laid):
                    flat[base + ((hw + sw + laid + i) & MASK)] = flat[other + ((hl + i) & MASK)]
            else:
                # As laid: both first cards, then each war seat by seat.
                table[0] = a
                table[1] = flat[RING + h1]
                at = 2
                for war in range(fought):
                    start = 1 + war * need
                    for i in range(need):
                        table[at] = flat[(h0 + start + i) & MASK]
                        at += 1
                    for i in range(need):
                        table[at] = flat[RING + ((h1 + start + i) & MASK)]
                        at += 1
                if gather == GATHER_SHUFFLED:
                    for i in range(at - 1, 0, -1):
                        j = below(rng, i + 1)
                        table[i], table[j] = table[j], table[i]
                hw = h1 if w == 1 else h0
                sw = s1 if w == 1 else s0
                base = w * RING
                for i in range(at):
                    flat[base + ((hw + sw + i) & MASK)] = table[i]
            h0 = (h0 + laid) & MASK
            h1 = (h1 + laid) & MASK
            s0 += (2 - 2 * w) * laid - laid
            s1 += 2 * w * laid - laid
            wars += fought
        battles += 1
        if watching and s0 > 0 and s1 > 0:
            length += 1
            if s0 == loop_size[0]:
                same = True
                for i in range(s0):
                    if flat[(h0 + i) & MASK] != loop[0, i]:
                        same = False
                        break
                if same:
                    for i in range(s1):
                        if flat[RING + ((h1 + i) & MASK)] != loop[1, i]:
                            same = False
                            break
                if same:
                    repeat = True
                    break
            if power == length:
                loop_size[0] = s0
                loop_size[1] = s1
                for i in range(s0):
                    loop[0, i] = flat[(h0 + i) & MASK]
                for i in range(s1):
                    loop[1, i] = flat[RING + ((h1 + i) & MASK)]
                power *= 2
                length = 0
    head[0], head[1], size[0], size[1] = h0, h1, s0, s1
    return battles, wars, power, length, repeat


@njit(cache=True)
def _same_piles(
    piles: np.ndarray, head: np.ndarray, size: np.ndarray,
    other: np.ndarray, other_head: np.ndarray, other_size: np.ndarray, players: int,
) -> bool:  # fmt: skip
    for seat in range(players):
        if size[seat] != other_size[seat]:
            return False
    for seat in range(players):
        for i in range(size[seat]):
            if piles[seat, (head[seat] + i) & MASK] != other[seat, (other_head[seat] + i) & MASK]:
                return False
    return True


class Table:
    """Work arrays for one round at a time (one per thread): piles, table, scratch, loop watch,
    and a second set of piles for finding where a loop began."""

    def __init__(self) -> None:
        (
            self.piles, self.head, self.size, self.table_card, self.table_seat, self.work,
            self.loop, self.loop_size,
        ) = workspace()  # fmt: skip
        self.behind = self.piles.copy()
        self.behind_head = self.head.copy()
        self.behind_size = self.size.copy()
        self.rng = np.zeros(1, np.uint64)
        self.result = np.zeros(5, np.int64)


@njit(cache=True)
def play_dealt(
    rules: np.ndarray, cards: np.ndarray, sizes: np.ndarray,
    piles: np.ndarray, head: np.ndarray, size: np.ndarray,
    table_card: np.ndarray, table_seat: np.ndarray, work: np.ndarray, rng: np.ndarray,
    loop: np.ndarray, loop_size: np.ndarray,
    behind: np.ndarray, behind_head: np.ndarray, behind_size: np.ndarray, result: np.ndarray,
) -> int:  # fmt: skip
    """Play the deal `cards` / `sizes` (every pile top first, one after another) to its end:
    `result` gets (winner, reason, battles, wars) and `piles` the final piles, exactly as the
    readable engine would leave them. Returns the cards left on the table by a shortage draw."""
    players = rules[R_PLAYERS]
    deal_piles(cards, sizes, piles, head, size)
    left = play_round(
        rules, piles, head, size, table_card, table_seat, work, rng, loop, loop_size, result
    )
    if result[RES_REASON] != CYCLE:
        return left
    # The round came back to a position it held before, `length` battles apart. Two copies of
    # the deal, that far apart, walk on together until they meet: the first repeat.
    length = -result[RES_BATTLES]
    deal_piles(cards, sizes, piles, head, size)
    deal_piles(cards, sizes, behind, behind_head, behind_size)
    wars = 0
    for _ in range(length):
        wars += battle(rules, piles, head, size, table_card, table_seat, work, rng)[1]
    start = 0
    while not _same_piles(piles, head, size, behind, behind_head, behind_size, players):
        wars += battle(rules, piles, head, size, table_card, table_seat, work, rng)[1]
        battle(rules, behind, behind_head, behind_size, table_card, table_seat, work, rng)
        start += 1
    result[RES_BATTLES] = start + length
    result[RES_WARS] = wars
    result[RES_LOOP] = length
    return 0


# -- many rounds at once, statistics kept as they go -----------------------------------------------

BATTLE_BINS = 1 << 16  # battles 0..65535 counted one by one; longer rounds in the last bin
WAR_BINS = 1 << 12
# The small counters of a run, by index in a row of `counters`.
C_GAMES, C_BATTLES, C_WARS, C_MAX_BATTLES, C_MAX_WARS = 0, 1, 2, 3, 4
C_WINS = 5  # four seats
C_REASONS = 9  # eight reasons
COUNTERS = 17


@njit(cache=True)
def workspace() -> tuple[np.ndarray, ...]:
    """Fresh work arrays for one round at a time: piles with their heads and sizes, the table
    (cards and seats), scratch rows, and the loop watch's kept position and sizes."""
    return (
        np.zeros((4, RING), np.int64),
        np.zeros(4, np.int64),
        np.zeros(4, np.int64),
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros((4, 4), np.int64),
        np.zeros((4, 52), np.int64),
        np.zeros(4, np.int64),
    )


@njit(cache=True)
def tally_round(
    result: np.ndarray, counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray
) -> None:
    """Add one finished round (`result`) to the statistics."""
    winner, reason, battles, wars = result[0], result[1], result[2], result[3]
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
def play_games(
    rules: np.ndarray, hand: int, seed: int, first: int, last: int,
    counters: np.ndarray, battles_hist: np.ndarray, wars_hist: np.ndarray,
) -> None:  # fmt: skip
    """Play games `first` .. `last - 1` of the run `seed`, each on its own random deal, adding
    each round's result to the statistics (one row each, for this thread)."""
    piles, head, size, table_card, table_seat, work, loop, loop_size = workspace()
    behind, behind_head, behind_size = piles.copy(), head.copy(), size.copy()
    rng = np.zeros(1, np.uint64)
    result = np.zeros(5, np.int64)
    deck = np.zeros(52, np.int64)
    cards = np.zeros(52, np.int64)
    sizes = np.zeros(rules[R_PLAYERS], np.int64)
    players = rules[R_PLAYERS]
    for game in range(first, last):
        seed_game(rng, seed, game)
        random_deal(rules, hand, rng, piles, head, size, deck)
        at = 0
        for seat in range(players):
            sizes[seat] = size[seat]
            for i in range(size[seat]):
                cards[at] = piles[seat, i]
                at += 1
        play_dealt(
            rules, cards, sizes, piles, head, size, table_card, table_seat, work, rng,
            loop, loop_size, behind, behind_head, behind_size, result,
        )  # fmt: skip
        tally_round(result, counters, battles_hist, wars_hist)


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


# -- every deal of a small deck ----------------------------------------------------------------


@njit(cache=True)
def next_sequence(ranks: np.ndarray) -> bool:
    """Step `ranks` to the next distinct sequence in lexicographic order; False after the last."""
    n = ranks.shape[0]
    i = n - 2
    while i >= 0 and ranks[i] >= ranks[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while ranks[j] <= ranks[i]:
        j -= 1
    ranks[i], ranks[j] = ranks[j], ranks[i]
    ranks[i + 1 :] = ranks[i + 1 :][::-1].copy()
    return True


@njit(cache=True)
def _key_of(
    piles: np.ndarray, head: np.ndarray, size: np.ndarray, key: np.ndarray, flip: bool
) -> None:
    """The position by ranks alone (suits never matter), seat by seat; `flip` swaps the seats."""
    at = 0
    for k in range(2):
        seat = 1 - k if flip else k
        key[at] = size[seat]
        at += 1
        for i in range(size[seat]):
            key[at] = piles[seat, (head[seat] + i) & MASK] >> 2
            at += 1


@njit(cache=True)
def _less(a: np.ndarray, b: np.ndarray) -> bool:
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return bool(a[i] < b[i])
    return False


@njit(cache=True)
def play_sequences(
    rules: np.ndarray, ranks: np.ndarray, count: int, counters: np.ndarray,
    battles_hist: np.ndarray, wars_hist: np.ndarray, keys: np.ndarray, lengths: np.ndarray,
) -> int:  # fmt: skip
    """Play the next `count` rank sequences from `ranks` (left at the one after): each split
    into two halves, top card first, and played unless it is the mirror of one already played
    (the first half may not come after the second). Rounds that end are tallied; each loop
    leaves the smallest position of its loop, by ranks and over both seatings, in `keys` and
    its length in `lengths`. Returns how many loops there were."""
    n = ranks.shape[0]
    half = n // 2
    piles, head, size, table_card, table_seat, work, loop, loop_size = workspace()
    behind, behind_head, behind_size = piles.copy(), head.copy(), size.copy()
    rng = np.zeros(1, np.uint64)
    result = np.zeros(5, np.int64)
    cards = np.zeros(n, np.int64)
    sizes = np.full(2, half, np.int64)
    used = np.zeros(13, np.int64)
    key = np.zeros(n + 2, np.int64)
    best = np.zeros(n + 2, np.int64)
    loops = 0
    for _ in range(count):
        mirrored = False
        for i in range(half):
            if ranks[i] != ranks[half + i]:
                mirrored = ranks[i] > ranks[half + i]
                break
        if not mirrored:
            used[:] = 0
            for i in range(n):  # suits in the order each rank appears: they never matter
                cards[i] = ranks[i] * 4 + used[ranks[i]]
                used[ranks[i]] += 1
            play_dealt(
                rules, cards, sizes, piles, head, size, table_card, table_seat, work, rng,
                loop, loop_size, behind, behind_head, behind_size, result,
            )  # fmt: skip
            if result[RES_REASON] == CYCLE:
                length = result[RES_LOOP]
                _key_of(piles, head, size, best, False)
                for step in range(length):
                    for flip in (False, True):
                        _key_of(piles, head, size, key, flip)
                        if _less(key, best):
                            best[:] = key
                    if step < length - 1:
                        battle(rules, piles, head, size, table_card, table_seat, work, rng)
                keys[loops, :] = best
                lengths[loops] = length
                loops += 1
            else:
                tally_round(result, counters, battles_hist, wars_hist)
        if not next_sequence(ranks):
            break
    return loops


# -- the chance to win from here ----------------------------------------------------------------


@njit(cache=True, nogil=True)
def chances(
    rules: np.ndarray, cards: np.ndarray, sizes: np.ndarray, seed: int, runs: int,
    out: np.ndarray,
) -> None:  # fmt: skip
    """Play `runs` continuations of a round from where it stands, each seat holding the cards it
    holds but in an order nobody knows (each pile shuffled afresh), and count who wins each:
    `out[seat]` for a seat, `out[4]` for a draw. `rules[R_LIMIT]` is the battles left, if any.
    Releases the GIL, so a server can run it in a thread beside its event loop."""
    players = rules[R_PLAYERS]
    piles, head, size, table_card, table_seat, work, loop, loop_size = workspace()
    rng = np.zeros(1, np.uint64)
    result = np.zeros(5, np.int64)
    mixed = cards.copy()
    for run in range(runs):
        seed_game(rng, seed, run)
        start = 0
        for seat in range(players):
            for i in range(sizes[seat] - 1, 0, -1):
                j = below(rng, i + 1)
                mixed[start + i], mixed[start + j] = mixed[start + j], mixed[start + i]
            start += sizes[seat]
        deal_piles(mixed, sizes, piles, head, size)
        play_round(
            rules, piles, head, size, table_card, table_seat, work, rng, loop, loop_size, result
        )
        winner = result[RES_WINNER]
        out[winner if winner >= 0 else 4] += 1
