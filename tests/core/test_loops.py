"""The loop watch: a round with no battle limit and a fixed return order ends `cycle` at its first
repeated position, found exactly, in constant memory, and kept through snapshots."""

import tracemalloc

import pytest

from cardwar import Gather, Outcome, Reason, Round, Rules
from cardwar.persist import resume, snapshot

from helpers import dealt, ended, piles, through_json

CLASSIC = Rules.preset("classic")


def positions_until_repeat(round_: Round) -> int:
    """Battles played when the first repeated position appears, found by brute force."""
    seen = [piles(round_)]
    while True:
        round_.play_battle()
        position = piles(round_)
        if position in seen:
            return len(seen)
        seen.append(position)


def test_small_deal_cycles_under_table_gather() -> None:
    """2C 3C v 3D 2D under table order loops: the position after battle 6 is that after 2."""
    rules = Rules(gather="table", battle_limit=None)
    round_ = dealt(rules, "2C 3C", "3D 2D")
    round_.play()
    assert ended(round_) == (None, Reason.CYCLE)
    assert round_.battles == 6
    assert (
        positions_until_repeat(dealt(Rules(gather="table", battle_limit=10), "2C 3C", "3D 2D")) == 6
    )


def test_full_deck_cycle_ends_at_the_first_repeat() -> None:
    """Seeded full deals that loop under table order end with cycle at the first repeat."""
    rules = Rules(gather="table", battle_limit=None)
    brute = Rules(gather="table", battle_limit=100_000)
    cycles = 0
    for seed in range(40):
        round_ = Round(rules, seed=seed)
        round_.play()
        assert round_.outcome is not None
        if round_.outcome.reason is Reason.CYCLE:
            cycles += 1
            assert positions_until_repeat(Round(brute, seed=seed)) == round_.battles
    assert cycles >= 5


def test_loop_watch_memory_stays_flat_however_long_the_round() -> None:
    """Cycle detection keeps a few copies of the piles, not every position (was ~130 B a battle):
    a fixed-order round with no limit that runs 3,000,000+ battles holds no more after 30,000."""
    rules = Rules.from_dict({"battle_limit": None, "gather": "table", "war_down": 0})
    round_ = Round(rules, seed=39)
    round_.play(2_000)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(30_000):  # one at a time: play() would hold every record it returns
            round_.play_battle()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert round_.outcome is None
    assert grown < 16_000  # the old set of positions grew by about 3.9 MB here


def test_a_safety_cap_ends_an_endless_round_as_a_battle_limit() -> None:
    """The server's cap ends a round that has no battle limit, as a limit ending
    (docs/rules.md#safety-cap)."""
    rules = Rules.from_dict({"battle_limit": None, "gather": "table", "war_down": 0})
    round_ = Round(rules, seed=39, cap=250)
    round_.play()
    assert (round_.battles, round_.outcome) == (250, Outcome(None, Reason.BATTLE_LIMIT))
    counted = Round(Rules.from_dict({"limit_outcome": "most_cards"}, base=rules), seed=39, cap=250)
    counted.play()
    assert counted.battles == 250 and counted.outcome is not None
    assert counted.outcome.reason in {Reason.MOST_CARDS, Reason.MOST_CARDS_TIE}
    assert Round(rules, seed=39).play(250)[-1].outcome is None  # no cap: it plays on


def test_a_cap_never_lengthens_a_round_and_loops_still_end_first() -> None:
    """The rules' own limit stands when it is lower; a loop before the cap ends as a cycle."""
    short = Round(CLASSIC, seed=3, cap=100_000)
    short.play()
    assert short.battles <= 500
    assert Round(CLASSIC, seed=3, cap=7).play()[-1].number == 7
    rules = Rules(gather="table", battle_limit=None)
    capped = Round(rules, deal=[["2C", "3C"], ["3D", "2D"]], cap=1000)
    capped.play()
    assert (capped.battles, capped.outcome) == (6, Outcome(None, Reason.CYCLE))


def test_shuffled_returns_never_call_a_cycle() -> None:
    """With shuffled returns a repeat is not a loop, so no cycle is ever declared."""
    rules = Rules(gather="shuffled", battle_limit=None)
    round_ = dealt(rules, "2C 3C", "3D 2D", seed=3)
    round_.play()
    assert round_.outcome is not None and round_.outcome.reason is not Reason.CYCLE


def test_a_settled_loop_is_kept_in_the_snapshot() -> None:
    """Once a round has settled where it loops (`look_ahead`), its snapshot says so and a round
    resumed from it knows too, without scouting again."""
    rules = Rules(gather=Gather.TABLE, battle_limit=None)
    live = Round(rules, deal=[["2C", "3C"], ["3D", "2D"]], cap=1000)
    live.look_ahead()
    snap = through_json(snapshot(live))
    assert snap["watch"]["end"] == 6
    again = resume(snap)
    assert snapshot(again)["watch"] == snap["watch"]
    again.play()
    assert (again.battles, again.outcome) == (6, Outcome(None, Reason.CYCLE))


@pytest.mark.parametrize("battles", [1, 345, 690])
def test_a_round_resumed_part_way_still_ends_at_its_first_repeat(battles: int) -> None:
    """A looping round stored and resumed at any battle ends `cycle` at battle 691, its first
    repeat, just as it does played straight through."""
    rules = Rules(gather=Gather.TABLE, battle_limit=None)
    live = Round(rules, seed=23)
    live.play(battles)
    again = resume(through_json(snapshot(live)))
    again.play(2000)
    assert (again.battles, again.outcome) == (691, Outcome(None, Reason.CYCLE))


@pytest.mark.parametrize(
    ("rules", "cap"),
    [
        (CLASSIC, 1000),
        (Rules(gather=Gather.SHUFFLED, battle_limit=None), 1000),
        (Rules(gather=Gather.TABLE, battle_limit=None), None),
    ],
    ids=["a battle limit", "shuffled returns", "no cap"],
)
def test_look_ahead_leaves_a_round_that_cannot_loop_or_has_no_cap_alone(
    rules: Rules, cap: int | None
) -> None:
    """Settling a loop ahead of time does nothing to a round with a battle limit or shuffled
    returns (it cannot loop) or with no safety cap (nothing bounds the look)."""
    round_ = Round(rules, deal=[["2C", "3C"], ["3D", "2D"]], cap=cap)
    before = snapshot(round_)
    round_.look_ahead()
    assert snapshot(round_) == before
    assert before["watch"] is None


def test_a_watch_whose_scout_ended_with_cards_on_the_table_resumes() -> None:
    """A scout whose round ended in a draw by shortage left cards on the table, not in its
    piles: a snapshot of the watch still resumes, and says the same again."""
    rules = Rules(gather=Gather.TABLE, battle_limit=None)
    live = dealt(rules, "9S 2C", "9H 3C")
    live.cap = 100
    live.look_ahead()
    snap = through_json(snapshot(live))
    assert snap["watch"]["ends_otherwise"] and snap["watch"]["scout"] == [[0], [4]]
    again = resume(snap)
    assert snapshot(again)["watch"] == snap["watch"]
    assert again.play() == live.play()
