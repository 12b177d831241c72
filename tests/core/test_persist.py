"""Keeping a round and bringing it back: history rebuilds it, a snapshot resumes it, exactly."""

from collections.abc import Callable
from typing import Any

import pytest

from cardwar import Gather, HistoryError, Outcome, Reason, Round, Rules
from cardwar.persist import from_history, history, rebuild, resume, round_json, snapshot

from helpers import dealt, through_json

CLASSIC = Rules.preset("classic")


@pytest.mark.parametrize("preset", ["classic", "traditional", "peace", "short"])
def test_rebuild_gives_the_identical_round(preset: str) -> None:
    """Rules + seed + battles played rebuild the exact state, generator included."""
    rules = Rules.from_dict({"gather": "shuffled"}, base=Rules.preset(preset))
    live = Round(rules, seed=9)
    live.play(37)
    again = rebuild(rules, seed=9, battles=37)
    assert again.piles == live.piles
    assert (again.battles, again.wars, again.outcome) == (live.battles, live.wars, live.outcome)
    assert again.last_battle == live.last_battle
    assert again.play(20) == live.play(20)


@pytest.mark.parametrize(
    ("battles", "message"),
    [
        (-1, "battles: must be a whole number 0 or more, not -1"),
        (True, "battles: must be a whole number 0 or more, not True"),
        (2.0, "battles: must be a whole number 0 or more, not 2.0"),
        ("3", "battles: must be a whole number 0 or more, not '3'"),
    ],
)
def test_rebuild_refuses_a_battle_count_that_is_not_a_count(battles: object, message: str) -> None:
    """Rebuilding takes a whole number of battles, never a negative, a bool or a string."""
    with pytest.raises(HistoryError) as error:
        rebuild(CLASSIC, seed=1, battles=battles)  # type: ignore[arg-type]  # a bad value on purpose
    assert str(error.value) == message


def test_rebuild_refuses_more_battles_than_the_round_has() -> None:
    """Asking to rebuild past the end of a round is an error naming the battle count."""
    with pytest.raises(HistoryError) as caught:
        rebuild(CLASSIC, deal=[["AS"], ["2H"]], battles=5)
    assert str(caught.value) == "battles: the round ended after 1, not 5"


def test_rebuild_with_time_up() -> None:
    """A round whose clock ran out rebuilds with the outcome it had when the clock was called."""
    round_ = rebuild(Rules.preset("timed"), seed=4, battles=10, time_up=True)
    live = Round(Rules.preset("timed"), seed=4)
    live.play(10)
    live.call_time()
    assert round_.outcome == live.outcome == Outcome(1, Reason.TIME_UP)
    assert round_.counts == live.counts == (24, 28)


def test_rebuild_and_a_new_round_have_the_same_defaults() -> None:
    """Rebuilt with nothing but rules, a round is the new round those rules deal from seed 0;
    with a battle count, it is that round after those battles."""
    again = rebuild(CLASSIC)
    assert (again.seed, again.battles, again.deal) == (0, 0, Round(CLASSIC).deal)
    live = Round(CLASSIC)
    live.play(5)
    assert rebuild(CLASSIC, battles=5).piles == live.piles


def test_an_empty_history_is_a_new_classic_round() -> None:
    """Every field of a history may be left out: classic rules, seed 0, a random deal, no
    battle played, the clock still running and no safety cap."""
    again = from_history({})
    assert (again.rules, again.seed, again.explicit_deal) == (CLASSIC, 0, False)
    assert (again.deal, again.battles, again.cap) == (Round(CLASSIC).deal, 0, None)
    assert (again.outcome, again.time_up) == (None, False)


@pytest.mark.parametrize("kind", ["explicit deal", "clock ran out", "safety cap"])
def test_history_rebuilds_every_kind_of_round(kind: str) -> None:
    """A round's history, through JSON, rebuilds it exactly: an explicit deal is dealt again
    (not re-dealt from the seed), a clock that ran out has run out, and a safety cap still ends
    the round where it ended."""
    if kind == "explicit deal":
        live = dealt(CLASSIC, "9S 2C KD 4H", "9H 3C 7S 5D", seed=3)
        live.play(1)
    elif kind == "clock ran out":
        live = dealt(Rules.preset("timed"), "5S 2C 7D", "4H 3C", seed=3)
        live.play(1)
        live.call_time()
    else:
        live = Round(Rules(gather=Gather.TABLE, war_down=0, battle_limit=None), seed=39, cap=250)
        live.play()
    again = from_history(through_json(history(live)))
    assert (again.explicit_deal, again.deal, again.piles) == (
        live.explicit_deal,
        live.deal,
        live.piles,
    )
    assert (again.battles, again.outcome, again.time_up, again.cap) == (
        live.battles, live.outcome, live.time_up, live.cap,
    )  # fmt: skip


def test_a_snapshot_keeps_the_seed_the_deal_and_who_went_out() -> None:
    """A resumed round has the seed and deal it was dealt with and knows which seats are out."""
    live = dealt(Rules(players=3, gather=Gather.SHUFFLED), "2S", "AS 3C 5D", "KS 4C 6D", seed=12)
    live.play(1)
    again = resume(through_json(snapshot(live)))
    assert (again.seed, again.explicit_deal, again.deal) == (12, True, live.deal)
    assert again.out_at == live.out_at == [1, None, None]
    random_deal = Round(CLASSIC, seed=77)
    random_deal.play(3)
    again = resume(through_json(snapshot(random_deal)))
    assert (again.seed, again.explicit_deal, again.deal) == (77, False, random_deal.deal)
    assert round_json(again) == round_json(random_deal)


def test_a_snapshot_from_before_seats_went_out_resumes_with_none_out() -> None:
    """A snapshot stored before the round noted when seats went out resumes with none out."""
    live = Round(Rules(players=3), seed=2)
    live.play(2)
    snap = through_json(snapshot(live))
    del snap["out_at"]
    assert resume(snap).out_at == [None, None, None]


@pytest.mark.parametrize(
    "spoil",
    [
        lambda snap: snap["piles"][0].__setitem__(0, 51),
        lambda snap: snap["piles"][0].append(snap["piles"][1][0]),
        lambda snap: snap.update(piles=[snap["piles"][0] + snap["piles"][1]]),
        lambda snap: snap["piles"].append([]),
    ],
    ids=["a card not dealt", "a card twice", "one pile for two seats", "a pile too many"],
)
def test_a_snapshot_whose_piles_do_not_hold_its_deal_is_refused(
    spoil: Callable[[dict[str, Any]], None],
) -> None:
    """A snapshot whose piles are not the cards of its deal, one pile per seat, is refused."""
    live = dealt(CLASSIC, "9S 2C KD 4H", "9H 3C 7S 5D")
    live.play(1)
    snap = through_json(snapshot(live))
    spoil(snap)
    with pytest.raises(HistoryError) as caught:
        resume(snap)
    assert str(caught.value) == "snapshot: its piles do not hold the cards of its deal"


def test_a_snapshot_carries_the_generator_only_when_returns_are_shuffled() -> None:
    """The generator's state (3.3 KB) is stored only for shuffled returns, the one rule that
    draws from it after the deal; every other round's snapshot leaves it out."""
    for gather in Gather:
        round_ = Round(Rules(gather=gather), seed=5)
        round_.play(3)
        assert (snapshot(round_)["rng"] is not None) == (gather is Gather.SHUFFLED)
