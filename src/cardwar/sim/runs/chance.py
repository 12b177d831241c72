"""The chance to win from where a round stands, estimated on the fast simulator: every seat keeps
the cards it holds, in an order nobody knows (each pile shuffled afresh), and the round is played
on to its end thousands of times."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardwar.cards import INDEX
from cardwar.engine import Round
from cardwar.errors import RoundOverError
from cardwar.sim.kernels.codes import R_LIMIT, rules_array
from cardwar.sim.runs.kernels.chances import DRAWS, chances

RUNS = 2000


@dataclass(frozen=True, slots=True)
class Chance:
    """How often each seat won, and how often the round was drawn, over `runs` continuations."""

    battles: int
    runs: int
    seats: tuple[float, ...]
    draw: float

    def to_dict(self) -> dict[str, object]:
        """Plain JSON values: the share for each seat, for a draw, and for you (seat 0)."""
        return {
            "battles": self.battles,
            "runs": self.runs,
            "you": self.seats[0],
            "seats": list(self.seats),
            "draw": self.draw,
        }


def settled(round_: Round) -> Chance:
    """A finished round's "chance": certain, for its winner or for a draw."""
    assert round_.outcome is not None
    winner = round_.outcome.winner
    seats = tuple(1.0 if seat == winner else 0.0 for seat in range(round_.rules.players))
    return Chance(round_.battles, 0, seats, 1.0 if winner is None else 0.0)


def chance_to_win(round_: Round, runs: int = RUNS) -> Chance:
    """Estimate each seat's chance to win `round_` from here (its clock aside)."""
    if round_.outcome is not None:
        raise RoundOverError(f"the round is over ({round_.outcome.reason.value}): nothing to guess")
    rules = rules_array(round_.rules)
    limits = [limit - round_.battles for limit in (round_.rules.battle_limit, round_.cap) if limit]
    rules[R_LIMIT] = min(limits) if limits else 0
    piles = round_.piles
    cards = np.array([INDEX[card] for pile in piles for card in pile], np.int64)
    sizes = np.array([len(pile) for pile in piles], np.int64)
    out = np.zeros(DRAWS + 1, np.int64)
    # The same position always gets the same estimate: the generator is seeded by it.
    seed = hash((round_.seed, round_.battles)) & 0x7FFF_FFFF_FFFF_FFFF
    chances(rules, cards, sizes, seed, runs, out)
    players = round_.rules.players
    return Chance(
        battles=round_.battles,
        runs=runs,
        seats=tuple(round(int(out[seat]) / runs, 4) for seat in range(players)),
        draw=round(int(out[DRAWS]) / runs, 4),
    )
