"""A match: best of 1, 3 or 5 rounds, draws not counting (docs/rules.md#matches)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cardwar.errors import MatchError, MatchOverError, quote

BEST_OF = (1, 3, 5)
PAGE_SEEDS = 2**53
"""Seeds the server picks (a match's rounds' too) are below this, so the page holds them exactly
(a JavaScript number is exact up to 2**53) and can replay or share a deal; a client may still
give any seed up to MAX_SEED."""
_SEED_MASK = PAGE_SEEDS - 1


def round_seed(match_seed: int, index: int) -> int:
    """The seed of round `index` (from 0) of the match seeded `match_seed`: a match's seed
    deals all its rounds, so a match can be played again round for round."""
    mixed = (match_seed + (index + 1) * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)
    mixed = ((mixed ^ (mixed >> 30)) * 0xBF58476D1CE4E5B9) & ((1 << 64) - 1)
    mixed = ((mixed ^ (mixed >> 27)) * 0x94D049BB133111EB) & ((1 << 64) - 1)
    return (mixed ^ (mixed >> 31)) & _SEED_MASK


def check_best_of(best_of: object) -> int:
    """`best_of` if it is 1, 3 or 5; MatchError naming it otherwise."""
    if isinstance(best_of, bool) or best_of not in BEST_OF:
        raise MatchError(f"best_of: must be 1, 3 or 5, not {quote(best_of)}")
    assert isinstance(best_of, int)
    return best_of


@dataclass(frozen=True, slots=True)
class Match:
    """The rounds of a match so far, as their winners (None for a draw), and what they add up to.

    The first seat to win a majority of `best_of` rounds wins the match; a drawn round is played
    again, so a match may hold more rounds than `best_of`.
    """

    best_of: int
    players: int
    winners: tuple[int | None, ...] = ()

    def __post_init__(self) -> None:
        check_best_of(self.best_of)
        if not 2 <= self.players <= 4:
            raise MatchError(f"players: {self.players} is out of range, must be 2..4")
        for winner in self.winners:
            if winner is not None and not 0 <= winner < self.players:
                raise MatchError(f"winners: seat {winner} is not at a table of {self.players}")
        decided = [i for i, _ in enumerate(self.winners) if self._winner_after(i + 1) is not None]
        if decided and decided[0] < len(self.winners) - 1:
            raise MatchError("winners: the match was decided before its last round")

    @property
    def needed(self) -> int:
        """Rounds a seat must win to take the match: a majority of `best_of`."""
        return self.best_of // 2 + 1

    @property
    def score(self) -> tuple[int, ...]:
        """Rounds won by each seat."""
        return tuple(self.winners.count(seat) for seat in range(self.players))

    @property
    def draws(self) -> int:
        """Drawn rounds, which do not count."""
        return self.winners.count(None)

    @property
    def winner(self) -> int | None:
        """The seat that has won the match, or None while it goes on."""
        return self._winner_after(len(self.winners))

    @property
    def over(self) -> bool:
        """True once a seat has won the match."""
        return self.winner is not None

    @property
    def leader(self) -> int | None:
        """The seat with the most rounds won, or None while the leaders tie."""
        score = self.score
        most = max(score)
        leaders = [seat for seat, won in enumerate(score) if won == most]
        return leaders[0] if len(leaders) == 1 else None

    def add(self, winner: int | None) -> Match:
        """The match after one more round; refused once the match is over."""
        if self.over:
            raise MatchOverError(f"the match is over: seat {self.winner} has won it")
        return Match(self.best_of, self.players, (*self.winners, winner))

    def _winner_after(self, rounds: int) -> int | None:
        counts = [0] * self.players
        for winner in self.winners[:rounds]:
            if winner is not None:
                counts[winner] += 1
                if counts[winner] == self.needed:
                    return winner
        return None

    @classmethod
    def of(cls, best_of: int, players: int, winners: Sequence[int | None]) -> Match:
        """A match from its rounds' winners."""
        return cls(best_of, players, tuple(winners))
