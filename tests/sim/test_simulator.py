"""The fast simulator is a second implementation of the rules: it must agree with the readable
engine round by round where nothing is left to chance, and in its statistics where something is."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from cardwar import DECK, PRESETS, Card, Reason, Round, Rules
from cardwar.cards import INDEX, rank_of
from cardwar.engine import check_seed, parse_deal
from cardwar.errors import DealError
from cardwar.sim.kernels.codes import (
    CODES,
    REASONS,
    RES_BATTLES,
    RES_LOOP,
    RES_REASON,
    RES_WARS,
    RES_WINNER,
    RESULT_SIZE,
    rules_array,
)
from cardwar.sim.kernels.ring import pile, rank
from cardwar.sim.kernels.rng import seed_game
from cardwar.sim.kernels.round import play_dealt
from cardwar.sim.kernels.workspace import PILES, RESULT, TABLE, workspace
from cardwar.sim.runs.hands import Hands
from cardwar.sim.runs.run import dealt_game, simulate

DETERMINISTIC = [name for name, rules in PRESETS.items() if rules.deterministic]


@dataclass(frozen=True, slots=True)
class DealResult:
    """One explicit deal played to its end: as the readable engine would report it."""

    winner: int | None
    reason: Reason
    battles: int
    wars: int
    piles: tuple[tuple[Card, ...], ...]
    table: tuple[Card, ...]


class DealPlayer:
    """Plays explicit deals one after another on the kernels, reusing its workspace."""

    def __init__(self, rules: Rules, seed: int = 0) -> None:
        self.rules = rules
        self._array = rules_array(rules)
        self._work = workspace()
        seed_game(self._work, check_seed(seed), 0)

    def play(self, deal: Sequence[Sequence[str | Card]]) -> DealResult:
        """Play `deal` (one pile per seat, top card first) to its end."""
        piles = parse_deal(deal, self.rules.players)
        cards = np.array([INDEX[card] for pile in piles for card in pile], np.int64)
        sizes = np.array([len(pile) for pile in piles], np.int64)
        work = self._work
        left = play_dealt(self._array, cards, sizes, work)
        result = work[RESULT : RESULT + RESULT_SIZE]
        winner = int(result[RES_WINNER])
        return DealResult(
            winner=None if winner < 0 else winner,
            reason=REASONS[int(result[RES_REASON])],
            battles=int(result[RES_BATTLES]),
            wars=int(result[RES_WARS]),
            piles=tuple(
                tuple(DECK[card] for card in pile(work, PILES, seat))
                for seat in range(self.rules.players)
            ),
            table=tuple(DECK[card] for card in work[TABLE : TABLE + left]),
        )


def engine_result(rules: Rules, deal: list[list[Card]]) -> tuple[object, ...]:
    """What the readable engine makes of an explicit deal, played to its end."""
    round_ = Round(rules, deal=deal)
    round_.play()
    assert round_.outcome is not None
    outcome = round_.outcome
    return (outcome.winner, outcome.reason, round_.battles, round_.wars, round_.piles, round_.table)


def simulator_result(player: DealPlayer, deal: list[list[Card]]) -> tuple[object, ...]:
    """What the simulator makes of the same deal."""
    got = player.play(deal)
    return (got.winner, got.reason, got.battles, got.wars, got.piles, got.table)


def random_rules(chance: random.Random, *, small: bool) -> Rules:
    """Any rule set with a fixed return order. Without a battle limit, table order and the
    natural one can run millions of battles on a full deck, so there they get a limit."""
    limit = chance.choice([None, 1, 7, 60, 500]) if small else chance.choice([None, 60, 500])
    gather = chance.choice(["winner_first", "table", "natural"])
    if not small and gather != "winner_first":
        limit = limit or 500
    return Rules.from_dict(
        {
            "players": chance.randint(2, 4),
            "war_down": chance.randint(0, 5),
            "shortage": chance.choice(["lose", "last_card"]),
            "gather": gather,
            "battle_limit": limit,
            "limit_outcome": chance.choice(["draw", "most_cards"]),
            "low_wins": chance.random() < 0.3,
        }
    )


def small_deal(chance: random.Random, players: int, rank_heavy: bool) -> list[list[Card]]:
    """Tiny uneven piles; rank-heavy ones draw from few ranks, so ties and shortages abound."""
    cards = list(DECK[:16]) if rank_heavy else list(DECK)  # 2s to 5s: four ranks, sixteen cards
    chance.shuffle(cards)
    piles, start = [], 0
    for _ in range(players):
        size = chance.randint(1, 4 if rank_heavy else 8)
        piles.append(cards[start : start + size])
        start += size
    return piles


def cases() -> Iterator[tuple[Rules, list[list[Card]]]]:
    """10,500 deals: every fixed-order preset on full random deals, and random rule sets on
    full deals and on small and rank-heavy ones, with 2, 3 and 4 players and loops."""
    chance = random.Random(20261130)
    for name in DETERMINISTIC:
        for seed in range(300):
            yield PRESETS[name], [list(pile) for pile in Round(PRESETS[name], seed=seed).deal]
    for _ in range(1500):
        rules = random_rules(chance, small=False)
        yield rules, [list(pile) for pile in Round(rules, seed=chance.randrange(2**32)).deal]
    for i in range(7500):
        rules = random_rules(chance, small=True)
        yield rules, small_deal(chance, rules.players, rank_heavy=i % 3 == 0)


def test_the_simulator_agrees_with_the_engine_round_by_round() -> None:
    """On 10,500 deals the two agree on winner, reason, battles, wars, final piles and table."""
    players: dict[Rules, DealPlayer] = {}
    seen: Counter[Reason] = Counter()
    tables = Counter[int]()
    for rules, deal in cases():
        player = players.setdefault(rules, DealPlayer(rules))
        expected = engine_result(rules, deal)
        assert simulator_result(player, deal) == expected, (rules, deal)
        seen[expected[1]] += 1  # type: ignore[index]  # the reason is known to be a Reason here
        tables[rules.players] += 1
    # The cases reach every ending that needs no clock, and every size of table.
    assert set(seen) == set(Reason) - {Reason.TIME_UP}
    assert min(seen.values()) >= 20
    assert set(tables) == {2, 3, 4}


def test_a_loop_ends_at_its_first_repeat_on_a_full_deck() -> None:
    """The loop example of docs/rules.md#loops: table order, no limit, seed 28 loops after 133
    battles."""
    rules = Rules.from_dict({"battle_limit": None, "gather": "table"})
    deal = [list(pile) for pile in Round(rules, seed=28).deal]
    got = DealPlayer(rules).play(deal)
    assert (got.winner, got.reason, got.battles) == (None, Reason.CYCLE, 133)
    assert simulator_result(DealPlayer(rules), deal) == engine_result(rules, deal)


@pytest.mark.parametrize("preset", ["classic", "traditional"])
def test_shuffled_returns_agree_within_sampling_error(preset: str) -> None:
    """With shuffled returns each implementation draws its own luck: over 2,000 rounds each,
    the mean length and the share of each ending agree within sampling error (4 sigma)."""
    rules = Rules.from_dict({"gather": "shuffled"}, base=PRESETS[preset])
    rounds = 2000
    engine_battles, engine_reasons = [], Counter[str]()
    for seed in range(rounds):
        round_ = Round(rules, seed=seed)
        round_.play()
        assert round_.outcome is not None
        engine_battles.append(round_.battles)
        engine_reasons[round_.outcome.reason.value] += 1
    summary = simulate(rules, rounds, seed=7).to_dict(rules.players)
    mean = sum(engine_battles) / rounds
    spread = math.sqrt(sum((b - mean) ** 2 for b in engine_battles) / (rounds - 1))
    error = spread * math.sqrt(2 / rounds)  # the difference of two independent means
    assert abs(summary["battles"]["mean"] - mean) < 4 * error
    for reason in Reason:
        p = (engine_reasons[reason.value] + summary["reasons"][reason.value]) / (2 * rounds)
        margin = 4 * math.sqrt(2 * p * (1 - p) / rounds) + 1e-9
        share = summary["reasons"][reason.value] / rounds
        assert abs(share - engine_reasons[reason.value] / rounds) <= margin, reason


def test_a_seed_gives_the_same_tally_however_the_work_is_split() -> None:
    """Rounds are seeded one by one: one worker, two, or two halves added give one tally."""
    rules = PRESETS["classic"]
    whole = simulate(rules, 3000, seed=11, workers=1)
    shared = simulate(rules, 3000, seed=11, workers=2)
    halves = simulate(rules, 1000, seed=11, workers=1)
    halves.add(simulate(rules, 2000, seed=11, first=1000, workers=2))
    for other in (shared, halves):
        assert other.to_dict(2, histograms=True) == whole.to_dict(2, histograms=True)
    assert simulate(rules, 3000, seed=12).to_dict(2) != whole.to_dict(2)


def test_the_tally_adds_up() -> None:
    """Wins and draws make the games; reasons make the games; the histogram holds every round;
    the classic table's limit shows as the longest round."""
    summary = simulate(PRESETS["classic"], 5000, seed=3).to_dict(2, histograms=True)
    assert summary["rounds"] == 5000
    assert sum(summary["wins"]) + summary["draws"] == 5000
    assert sum(summary["reasons"].values()) == 5000
    assert sum(summary["histograms"]["battles"]) == 5000
    # Every limit ending is a round of 500 battles (a few more end at 500 by taking all).
    assert summary["histograms"]["battles"][500] >= summary["reasons"]["battle_limit"] > 0
    assert len(summary["histograms"]["battles"]) == 501 and summary["battles"]["max"] == 500
    assert summary["battles"]["median"] <= summary["battles"]["p90"] <= 500
    assert summary["draws"] == summary["reasons"]["battle_limit"] + summary["reasons"]["both_short"]


def test_a_loop_reports_its_length_beside_the_battles_to_its_first_repeat() -> None:
    """A loop comes back with its own length and a true count of battles: the engine, unwatched,
    holds the same position that many battles earlier, and never repeated before."""
    rules = Rules.from_dict({"battle_limit": None, "gather": "table"})
    deal = [list(pile) for pile in Round(rules, seed=28).deal]
    ws = workspace()
    cards = np.array([INDEX[card] for pile in deal for card in pile], np.int64)
    sizes = np.array([len(pile) for pile in deal], np.int64)
    play_dealt(rules_array(rules), cards, sizes, ws)
    reason, battles, length = (int(ws[RESULT + at]) for at in (RES_REASON, RES_BATTLES, RES_LOOP))
    assert (REASONS[reason], battles) == (Reason.CYCLE, 133) and 0 < length <= battles
    round_ = Round(rules, deal=deal, watch_loops=False)
    positions = [round_.position()]
    for _ in range(battles):
        round_.play_battle()
        positions.append(round_.position())
    assert positions[battles] == positions[battles - length]
    assert all(positions[k] != positions[k - length] for k in range(length, battles))


def test_the_kernels_speak_the_core_s_codes() -> None:
    """A reason's code is its place in `Reason` (the tally counts them in that order), and a
    card index's rank is the core's `rank_of`: the kernels take both from the core."""
    assert REASONS == tuple(Reason)
    assert [CODES[reason] for reason in Reason] == list(range(len(Reason)))
    assert [rank.py_func(INDEX[card]) for card in DECK] == [rank_of(INDEX[card]) for card in DECK]


@pytest.mark.parametrize(
    "rules",
    [
        PRESETS["classic"],
        PRESETS["peace"],
        PRESETS["short"],
        Rules(war_down=0, battle_limit=60, limit_outcome="most_cards"),
        Rules(war_down=5, battle_limit=100_000, low_wins=True),
    ],
    ids=["classic", "peace", "short", "none-down-most-cards", "five-down-peace"],
)
def test_the_common_table_s_own_kernel_plays_the_same_rounds(rules: Rules) -> None:
    """The kernel of the common table (two players, the winner's cards first, short loses, a
    limit) gives exactly the figures and the longest rounds of the general kernels."""
    from cardwar.sim.runs import run

    assert run.on_the_common_table(rules)
    fast = simulate(rules, 4000, seed=9, records=5)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run, "on_the_common_table", lambda rules: False)
        general = simulate(rules, 4000, seed=9, records=5)
    assert fast.to_dict(2, histograms=True) == general.to_dict(2, histograms=True)
    assert fast.records.tolist() == general.records.tolist()


def test_the_longest_rounds_of_small_parts_add_up_to_the_whole() -> None:
    """`--records K` split in parts that each end fewer than K rounds (small Dask shards, a
    resumed checkpoint) keeps the K longest of them all, as one run does."""
    rules = PRESETS["classic"]
    whole = simulate(rules, 12, seed=4, records=10)
    parts = [simulate(rules, 3, seed=4, first=first, records=10) for first in range(0, 12, 3)]
    merged = parts[0]
    for part in parts[1:]:
        merged.add(part)
    assert len(whole.records) == 10
    assert merged.records.tolist() == whole.records.tolist()
    again = type(merged).from_state(merged.state())
    again.add(simulate(rules, 3, seed=4, first=12, records=10))
    assert again.records.tolist() == simulate(rules, 15, seed=4, records=10).records.tolist()


def test_hands_for_another_table_are_refused_before_anything_is_played() -> None:
    """Hands for two seats at a table of three name the mismatch (the kernels would deal past
    their arrays)."""
    hands = Hands.parse([["AS"], "rest"], 2)
    three = Rules(players=3)
    for run in (
        lambda: simulate(three, 10, seed=1, hands=hands),
        lambda: dealt_game(three, 1, 0, hands),
    ):
        with pytest.raises(DealError, match="hands: has 2 seats but the rules have players=3"):
            run()
