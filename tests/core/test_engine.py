"""The readable engine on hand-built deals: every shortage case, gather order and ending."""

import random
from collections.abc import Callable

import pytest

from cardwar import (
    DECK,
    Card,
    DealError,
    Outcome,
    Reason,
    Round,
    RoundError,
    RoundOverError,
    Rules,
    RulesError,
    SeedError,
)

from helpers import codes, dealt, ended, piles

CLASSIC = Rules.preset("classic")
TRADITIONAL = Rules.preset("traditional")


# -- shortage: lose ---------------------------------------------------------------------------


def test_lose_war_on_your_last_card_loses_the_round() -> None:
    """Your turned card was your last and it ties: you are short, the Computer takes all."""
    round_ = dealt(CLASSIC, "9S", "9H 2C 3C")
    round_.play_battle()
    assert ended(round_) == (1, Reason.OPPONENT_SHORT)
    assert piles(round_) == [[], ["2C", "3C", "9H", "9S"]]


def test_lose_short_player_gives_up_remaining_cards() -> None:
    """Three down: holding two cards at the tie, you are short and both join the table."""
    rules = Rules(war_down=3)
    round_ = dealt(rules, "9S 2C 3C", "9H 4C 5C 6C 7C")
    battle = round_.play_battle()
    assert battle.steps[1].short == (0,)
    assert battle.steps[1].down == (2, 0)
    assert battle.taken == 4
    assert ended(round_) == (1, Reason.OPPONENT_SHORT)
    assert piles(round_) == [[], ["4C", "5C", "6C", "7C", "9H", "9S", "2C", "3C"]]


def test_lose_both_short_keeps_cards_where_they_are() -> None:
    """Both short at the same point: a draw; hands keep their cards, the table keeps its own."""
    round_ = dealt(CLASSIC, "9S 2C", "9H 3C")
    battle = round_.play_battle()
    assert battle.winner is None and battle.taken == 0
    assert battle.steps[1].short == (0, 1)
    assert ended(round_) == (None, Reason.BOTH_SHORT)
    assert piles(round_) == [["2C"], ["3C"]]
    assert codes(list(round_.table)) == ["9S", "9H"]


def test_lose_short_player_in_three_player_war() -> None:
    """Three tie, one is short: it forfeits, the other two fight on and the winner takes all."""
    rules = Rules(players=3)
    round_ = dealt(rules, "9S 2C KD", "9H 3C 7S 8S", "9D 4C")
    battle = round_.play_battle()
    war = battle.steps[1]
    assert war.short == (2,)
    assert war.down == (1, 1, 1)
    assert war.up == (Card.parse("KD"), Card.parse("7S"), None)
    assert battle.winner == 0 and battle.taken == 8
    assert piles(round_) == [["9S", "2C", "KD", "9H", "9D", "3C", "7S", "4C"], ["8S"], []]
    assert round_.outcome is None  # seat 1 still holds a card


# -- shortage: last_card ----------------------------------------------------------------------


def test_last_card_player_with_no_card_drops_out() -> None:
    """Traditional: the Computer's tied card was its last, so it drops out and you take both."""
    round_ = dealt(TRADITIONAL, "9S 2C", "9H")
    battle = round_.play_battle()
    assert battle.steps[1] == ((None, None), (0, 0), (1,))
    assert ended(round_) == (0, Reason.ALL_CARDS)
    assert piles(round_) == [["2C", "9S", "9H"], []]


def test_last_card_comeback_with_the_last_card() -> None:
    """Traditional: short of cards, the Computer fights with its last card, wins and plays on."""
    round_ = dealt(TRADITIONAL, "9S 2C 3C 4C 5C 6C", "9H 8D AS")
    battle = round_.play_battle()
    assert battle.steps[1].down == (3, 1)
    assert battle.winner == 1 and battle.taken == 10 - 2
    assert piles(round_) == [["6C"], ["9H", "8D", "AS", "9S", "2C", "3C", "4C", "5C"]]
    assert round_.outcome is None


def test_last_card_nobody_left_with_a_card_is_a_draw() -> None:
    """Traditional: a tie on both last cards leaves no war player a card: both_short."""
    round_ = dealt(TRADITIONAL, "9S", "9H")
    round_.play_battle()
    assert ended(round_) == (None, Reason.BOTH_SHORT)
    assert codes(list(round_.table)) == ["9S", "9H"]


def test_last_card_three_players_one_drops_out_two_fight() -> None:
    """Traditional for three: the tied player with no card drops out, the other two fight."""
    rules = Rules.from_dict({"players": 3}, base=TRADITIONAL)
    round_ = dealt(rules, "9S 2C 3C 4C KD", "9H", "9D 5C 6C 7C 8C QC")
    battle = round_.play_battle()
    war = battle.steps[1]
    assert war.short == (1,)
    assert war.down == (3, 0, 3)
    assert codes([c for c in war.up if c is not None]) == ["KD", "8C"]
    assert piles(round_) == [
        ["9S", "2C", "3C", "4C", "KD", "9H", "9D", "5C", "6C", "7C", "8C"],
        [],
        ["QC"],
    ]
    assert round_.outcome is None


# -- gather orders ----------------------------------------------------------------------------

THREE_WITH_A_SITTER = ("9S 2C KD", "9H 3C 7S 8S", "4D 5D")


def test_gather_winner_first_with_a_player_sitting_out() -> None:
    """winner_first: the winner's cards as laid, then everyone else's as laid."""
    round_ = dealt(Rules(players=3), *THREE_WITH_A_SITTER)
    round_.play_battle()
    assert piles(round_) == [["9S", "2C", "KD", "9H", "4D", "3C", "7S"], ["8S"], ["5D"]]


def test_gather_table_order() -> None:
    """table: step by step, seat by seat, each seat's down cards then its up card."""
    round_ = dealt(Rules(players=3, gather="table"), *THREE_WITH_A_SITTER)
    round_.play_battle()
    assert piles(round_) == [["9S", "9H", "4D", "2C", "KD", "3C", "7S"], ["8S"], ["5D"]]


def test_gather_shuffled_uses_the_rounds_generator() -> None:
    """shuffled: the table order, shuffled by the round's own seeded generator."""
    rules = Rules(players=3, gather="shuffled")
    round_ = dealt(rules, *THREE_WITH_A_SITTER, seed=7)
    round_.play_battle()
    expected = ["9S", "9H", "4D", "2C", "KD", "3C", "7S"]
    random.Random(7).shuffle(expected)
    assert piles(round_)[0] == expected
    assert expected != ["9S", "9H", "4D", "2C", "KD", "3C", "7S"]


def test_gather_table_two_players() -> None:
    """table with two players interleaves the step's cards seat by seat."""
    round_ = dealt(Rules(gather="table"), "9S 2C KD 4H", "9H 3C 7S 5D")
    round_.play_battle()
    assert piles(round_)[0] == ["4H", "9S", "9H", "2C", "KD", "3C", "7S"]


# -- battles ----------------------------------------------------------------------------------


def test_peace_lowest_card_wins() -> None:
    """Peace: the two beats the king."""
    round_ = dealt(Rules.preset("peace"), "2S 5C", "KD 6C")
    battle = round_.play_battle()
    assert battle.winner == 0
    assert piles(round_) == [["5C", "2S", "KD"], ["6C"]]


def test_peace_tie_on_lowest_goes_to_war() -> None:
    """Peace for three: two share the lowest card and fight; the highest card sits out."""
    rules = Rules(players=3, low_wins=True)
    round_ = dealt(rules, "3S 9C 2C 5H", "3H TC 4C 6H", "KD 7D")
    battle = round_.play_battle()
    assert battle.winner == 0
    assert battle.taken == 7


def test_war_down_zero_turns_straight_away() -> None:
    """war_down 0: a war is just one more face-up card each."""
    round_ = dealt(Rules(war_down=0), "9S KD 2C", "9H 7S 3C")
    battle = round_.play_battle()
    assert battle.steps[1].down == (0, 0)
    assert piles(round_) == [["2C", "9S", "KD", "9H", "7S"], ["3C"]]


def test_war_down_five() -> None:
    """war_down 5: five down and one up each, fourteen cards to the winner."""
    rules = Rules(war_down=5)
    round_ = dealt(rules, "9S 2C 3C 4C 5C 6C KD 7D", "9H 2D 3D 4D 5D 6D 7S 8D")
    battle = round_.play_battle()
    assert battle.taken == 14
    assert piles(round_)[0] == "7D 9S 2C 3C 4C 5C 6C KD 9H 2D 3D 4D 5D 6D 7S".split()


def test_double_war_counts_two_wars_and_one_battle() -> None:
    """Kings tie again after the first war: one battle, two wars."""
    round_ = dealt(CLASSIC, "9S 2C KD 3C AS 4H", "9H 2D KS 3D 7S 5H")
    battle = round_.play_battle()
    assert (battle.number, battle.wars, round_.wars, round_.battles) == (1, 2, 2, 1)
    assert piles(round_)[0] == "4H 9S 2C KD 3C AS 9H 2D KS 3D 7S".split()


def test_a_player_with_no_cards_is_out_and_turns_nothing() -> None:
    """Three players: the one who lost their last card turns nothing in later battles."""
    rules = Rules(players=3)
    round_ = dealt(rules, "AS 2S", "KH 3H", "2D")
    round_.play_battle()  # AS takes KH and 2D: seat 2 is out
    battle = round_.play_battle()
    assert battle.steps[0].up[2] is None
    assert round_.counts[2] == 0


def test_the_round_notes_when_each_seat_went_out() -> None:
    """`out_at` holds the battle after which a seat first had no cards, None while it has some."""
    round_ = dealt(Rules(players=3), "2S", "AS 3C 5D", "KS 4C 6D")
    assert round_.out_at == [None, None, None]
    round_.play_battle()
    assert round_.out_at == [1, None, None] and not round_.over
    round_.play()
    assert (round_.battles, round_.outcome) == (9, Outcome(1, Reason.ALL_CARDS))
    assert round_.out_at == [1, None, 9]


# -- endings ----------------------------------------------------------------------------------


def test_battle_limit_draw() -> None:
    """After battle_limit battles the round is a draw under limit_outcome draw."""
    round_ = dealt(Rules(battle_limit=1), "5S 2C", "4H 3C")
    round_.play()
    assert ended(round_) == (None, Reason.BATTLE_LIMIT)
    assert round_.battles == 1


def test_battle_limit_most_cards() -> None:
    """Under most_cards the single leader at the limit wins."""
    rules = Rules(battle_limit=1, limit_outcome="most_cards")
    round_ = dealt(rules, "5S 2C", "4H 3C")
    round_.play()
    assert ended(round_) == (0, Reason.MOST_CARDS)


def test_battle_limit_most_cards_tie() -> None:
    """Under most_cards, leaders level at the limit make a draw."""
    rules = Rules(battle_limit=2, limit_outcome="most_cards")
    round_ = dealt(rules, "5S 2C", "4H 3C")
    round_.play()
    assert round_.counts == (2, 2)
    assert ended(round_) == (None, Reason.MOST_CARDS_TIE)


def test_time_up_counts_the_cards() -> None:
    """When the caller's clock runs out, the player with most cards wins: time_up."""
    round_ = dealt(Rules.preset("timed"), "5S 2C 7D", "4H 3C")
    round_.play_battle()
    assert round_.call_time() == Outcome(0, Reason.TIME_UP)
    assert round_.time_up is True
    with pytest.raises(RoundOverError) as caught:
        round_.play_battle()
    assert str(caught.value) == "the round is over (time_up): start a new one"


def test_time_up_with_leaders_level_is_a_draw() -> None:
    """Time runs out with the piles level: most_cards_tie."""
    round_ = dealt(Rules.preset("timed"), "5S 2C", "4H 3C")
    assert round_.call_time() == Outcome(None, Reason.MOST_CARDS_TIE)


def test_time_cannot_run_out_without_a_clock() -> None:
    """A classic round has no clock: calling time is refused and changes nothing."""
    round_ = dealt(CLASSIC, "5S 2C", "4H 3C")
    with pytest.raises(RulesError) as caught:
        round_.call_time()
    assert str(caught.value) == "time_limit_s: this round has no clock, so time cannot run out"
    assert round_.outcome is None and round_.time_up is False


def test_play_after_the_end_is_refused() -> None:
    """A finished round refuses another battle and stays as it was."""
    round_ = dealt(CLASSIC, "AS", "2H")
    round_.play_battle()
    with pytest.raises(RoundOverError):
        round_.play_battle()
    assert round_.battles == 1 and round_.counts == (2, 0)


@pytest.mark.parametrize(
    ("cap", "message"),
    [
        (0, "cap: must be a whole number 1 or more, not 0"),
        (-5, "cap: must be a whole number 1 or more, not -5"),
        (True, "cap: must be a whole number 1 or more, not True"),
        ("9", "cap: must be a whole number 1 or more, not '9'"),
        (
            "x" * 500,
            "cap: must be a whole number 1 or more, not 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…",
        ),
    ],
)
def test_a_bad_cap_is_refused(cap: object, message: str) -> None:
    """A safety cap is a whole number of battles; the message quotes at most a short prefix."""
    with pytest.raises(RoundError) as error:
        Round(CLASSIC, cap=cap)  # type: ignore[arg-type]  # a bad value on purpose
    assert str(error.value) == message


# -- the deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_deal_is_one_card_at_a_time_seat_zero_first(players: int) -> None:
    """The seeded shuffle is dealt round the table from seat 0; leftovers are set aside."""
    rules = Rules(players=players)
    order = list(DECK)
    random.Random(11).shuffle(order)
    size = 52 // players
    round_ = Round(rules, seed=11)
    assert round_.deal == tuple(
        tuple(order[seat : size * players : players]) for seat in range(players)
    )
    assert round_.counts == (size,) * players
    assert round_.cards_in_play == size * players


def test_short_deck_deals_thirteen_each() -> None:
    """The short preset deals 13 cards each; the other 26 never play."""
    round_ = Round(Rules.preset("short"), seed=5)
    assert round_.counts == (13, 13)
    round_.play()
    assert sum(round_.counts) + len(round_.table) == 26


def test_same_seed_same_deal_other_seed_other_deal() -> None:
    """A seed fixes the deal; another seed deals differently."""
    assert Round(CLASSIC, seed=1).deal == Round(CLASSIC, seed=1).deal
    assert Round(CLASSIC, seed=1).deal != Round(CLASSIC, seed=2).deal


@pytest.mark.parametrize(
    ("deal", "message"),
    [
        ([["9S", "1X"], ["9H"]], "deal: pile 0: card 1X: rank must be one of 2-9, T, J, Q, K, A"),
        ([["2C"], [5]], "deal: pile 1: card 5: a card is written as a string such as '9S'"),
        ([["9S", "2C"], ["9S"]], "deal: card 9S appears twice (pile 0 and pile 1)"),
        (
            [["2C"], ["3C"], ["4C"], ["5C"], ["6C"]],
            "deal: has 5 piles, must have 2 to 4 (one per seat)",
        ),
        ([["2C"]], "deal: has 1 piles, must have 2 to 4 (one per seat)"),
        ([["2C"], []], "deal: pile 1 is empty, every seat needs at least one card"),
        ([["2C"], ["3C"], ["4C"]], "deal: has 3 piles but the rules have players=2"),
        ("9S 9H", "deal: must be a list of piles, one per seat, each a list of card codes"),
        (5, "deal: must be a list of piles, one per seat, each a list of card codes"),
        ([["2C"], "3C"], "deal: pile 1 must be a list of card codes such as ['9S', 'KD']"),
        ([["2C"], 3], "deal: pile 1 must be a list of card codes such as ['9S', 'KD']"),
    ],
)
def test_bad_deals_name_the_problem(deal: object, message: str) -> None:
    """An explicit deal that cannot be played is refused with a whole message naming the fault."""
    with pytest.raises(DealError) as caught:
        Round(CLASSIC, deal=deal)  # type: ignore[arg-type]  # a bad value on purpose
    assert str(caught.value) == message


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "7", True])
def test_bad_seed_is_refused(seed: object) -> None:
    """A seed must be a whole number from 0 to 2**63-1; the message says so and quotes it."""
    with pytest.raises(SeedError) as caught:
        Round(CLASSIC, seed=seed)  # type: ignore[arg-type]  # a bad value on purpose
    assert str(caught.value) == (
        f"seed: must be a whole number from 0 to 9223372036854775807, not {seed!r}"
    )


@pytest.mark.parametrize("seed", [0, 2**63 - 1])
def test_the_first_and_last_seeds_deal(seed: int) -> None:
    """Seeds 0 and 2**63-1 are both good seeds."""
    assert Round(CLASSIC, seed=seed).seed == seed


# -- the two paths and the last battle --------------------------------------------------------


@pytest.mark.parametrize("quick", [True, False])
def test_the_round_keeps_its_last_battle(quick: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """`last_battle` is None before the first battle, then always the record just played."""
    monkeypatch.setattr(Round, "_quick", quick)
    round_ = Round(CLASSIC, seed=4)
    assert round_.last_battle is None
    for _ in range(30):
        record = round_.play_battle()
        assert round_.last_battle is record


@pytest.mark.parametrize("preset", ["classic", "traditional", "peace", "timed", "short"])
def test_quick_path_agrees_with_the_general_path(
    preset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two-player shortcut produces exactly the records the general path does."""
    for gather in ("winner_first", "table", "shuffled"):
        rules = Rules.from_dict({"gather": gather}, base=Rules.preset(preset))
        for seed in range(15):
            quick = Round(rules, seed=seed).play()
            monkeypatch.setattr(Round, "_quick", False)
            general = Round(rules, seed=seed).play()
            monkeypatch.setattr(Round, "_quick", True)
            assert quick == general


@pytest.mark.parametrize(
    ("gather", "low", "high"),
    [("winner_first", 0.08, 0.25), ("table", 0.75, 0.97), ("shuffled", 0.2, 0.45)],
)
def test_share_of_classic_rounds_at_the_limit_is_what_the_rules_say(
    gather: str, low: float, high: float
) -> None:
    """docs/rules.md#gather: at the 500 limit end about 1 in 7 (winner_first), 9 in 10 (table),
    3 in 10 (shuffled)."""
    rules = Rules(gather=gather)
    rounds = [Round(rules, seed=seed) for seed in range(200)]
    for round_ in rounds:
        round_.play()
    share = sum(ended(r)[1] is Reason.BATTLE_LIMIT for r in rounds) / len(rounds)
    assert low <= share <= high


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("finish", "message"),
    [
        (lambda round_: round_.play(), "the round is over (all_cards): start a new one"),
        (lambda round_: round_.call_time(), "the round is over (time_up): start a new one"),
    ],
    ids=["all_cards", "time_up"],
)
def test_time_cannot_run_out_on_a_finished_round(
    finish: Callable[[Round], object], message: str
) -> None:
    """Once a round is over, calling time is refused with a message and changes nothing."""
    round_ = dealt(Rules.preset("timed"), "AS 3C", "2H")
    finish(round_)
    outcome, time_up = round_.outcome, round_.time_up
    with pytest.raises(RoundOverError) as caught:
        round_.call_time()
    assert str(caught.value) == message
    assert (round_.outcome, round_.time_up) == (outcome, time_up)


def test_a_round_needs_a_rules_value() -> None:
    """Rules given as plain fields rather than a Rules value are refused with a message."""
    with pytest.raises(RoundError) as caught:
        Round({"war_down": 3})  # type: ignore[arg-type]  # a bad value on purpose
    assert str(caught.value) == "rules: must be a Rules value"
