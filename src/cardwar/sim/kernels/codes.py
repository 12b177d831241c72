"""The integers the kernels and Python share, each stated once: the card index and the rings it
lives in, the rules array, gather and reason codes, and what a round leaves in its result.

What the core states (the card index, `Reason`, `Gather`, the most players) is taken from it;
numba compiles these module constants into the kernels.
"""

from __future__ import annotations

import numpy as np

from cardwar.cards import DECK, RANK_SHIFT, Rank
from cardwar.records import Reason
from cardwar.rules import MAX_PLAYERS, Gather, LimitOutcome, Rules, Shortage

# A card is its index into `cardwar.cards.DECK` (`cardwar.cards.INDEX`): rank-major, so its rank
# is `card >> RANK_SHIFT` and ranks compare as the cards' do.
CARDS = len(DECK)
RANKS = len(Rank)
SEATS = MAX_PLAYERS
assert CARDS == RANKS << RANK_SHIFT
RING = 64  # a pile's slots: a power of two of at least CARDS
MASK = RING - 1
assert RING >= CARDS and RING & MASK == 0

# The rules array, indexed by these.
R_PLAYERS, R_WAR_DOWN, R_LAST_CARD, R_LIMIT, R_MOST_CARDS, R_LOW_WINS, R_GATHER = range(7)
RULES_SIZE = 7

# A return order's code is its place in `Gather`.
GATHERS: dict[Gather, int] = {gather: code for code, gather in enumerate(Gather)}
GATHER_WINNER_FIRST = GATHERS[Gather.WINNER_FIRST]
GATHER_TABLE = GATHERS[Gather.TABLE]
GATHER_SHUFFLED = GATHERS[Gather.SHUFFLED]
GATHER_NATURAL = GATHERS[Gather.NATURAL]

# A reason's code is its place in `Reason`: the tally counts them in that order.
REASONS: tuple[Reason, ...] = tuple(Reason)
CODES: dict[Reason, int] = {reason: code for code, reason in enumerate(REASONS)}
ALL_CARDS = CODES[Reason.ALL_CARDS]
OPPONENT_SHORT = CODES[Reason.OPPONENT_SHORT]
BOTH_SHORT = CODES[Reason.BOTH_SHORT]
BATTLE_LIMIT = CODES[Reason.BATTLE_LIMIT]
MOST_CARDS = CODES[Reason.MOST_CARDS]
MOST_CARDS_TIE = CODES[Reason.MOST_CARDS_TIE]
CYCLE = CODES[Reason.CYCLE]
NO_WINNER = -1

# What one round's play leaves, in this order from `workspace.RESULT`: the winner (or
# NO_WINNER), the reason's code, the battles played and the wars fought; for a loop (reason
# CYCLE), its length in battles, 0 otherwise.
RES_WINNER, RES_REASON, RES_BATTLES, RES_WARS, RES_LOOP = range(5)
RESULT_SIZE = 5


def rules_array(rules: Rules) -> np.ndarray:
    """The rules as the kernels read them. The clock (`time_limit_s`) plays no part: a
    simulated round takes no time, as in `cardwar round`."""
    array = np.zeros(RULES_SIZE, np.int64)
    array[R_PLAYERS] = rules.players
    array[R_WAR_DOWN] = rules.war_down
    array[R_LAST_CARD] = rules.shortage is Shortage.LAST_CARD
    array[R_LIMIT] = rules.battle_limit or 0
    array[R_MOST_CARDS] = rules.limit_outcome is LimitOutcome.MOST_CARDS
    array[R_LOW_WINS] = rules.low_wins
    array[R_GATHER] = GATHERS[rules.gather]
    return array
