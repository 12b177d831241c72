"""Every example of the rules (docs/api.md#examples, docs/rules.md), each as a test of its own."""

from cardwar import Card, Reason, Rules

from helpers import codes, dealt, piles

CLASSIC = Rules.preset("classic")
TRADITIONAL = Rules.preset("traditional")


def test_seed_example_king_beats_seven_and_takes_six() -> None:
    """Both turn a nine, each lays one down and one up, the king beats the seven: six cards."""
    round_ = dealt(CLASSIC, "9S 2C KD 4H", "9H 3C 7S 5D")
    battle = round_.play_battle()
    first, war = battle.steps
    assert codes(first.up) == ["9S", "9H"]
    assert war.down == (1, 1)
    assert codes(war.up) == ["KD", "7S"]
    assert battle.winner == 0
    assert battle.taken == 6


def test_classic_war_and_winner_first_pile_order() -> None:
    """Battle 1 is one war, You win 6, and your pile ends with 9S 2C KD 9H 3C 7S."""
    round_ = dealt(CLASSIC, "9S 2C KD 4H", "9H 3C 7S 5D")
    battle = round_.play_battle()
    assert battle.number == 1
    assert battle.wars == 1 and round_.wars == 1
    assert (battle.winner, battle.taken) == (0, 6)
    assert piles(round_)[0][-6:] == ["9S", "2C", "KD", "9H", "3C", "7S"]
    assert battle.counts == (7, 1)


def test_classic_computer_short_with_one_card_loses() -> None:
    """At a tie the Computer holds one card: it cannot finish the war, You win holding all."""
    round_ = dealt(CLASSIC, "9S 2C 3D", "9H 5C")
    battle = round_.play_battle()
    assert battle.steps[1].short == (1,)
    assert round_.outcome is not None
    assert (round_.outcome.winner, round_.outcome.reason) == (0, Reason.OPPONENT_SHORT)
    assert round_.counts == (5, 0)
    assert sorted(piles(round_)[0]) == sorted(["9S", "2C", "3D", "9H", "5C"])


def test_classic_tie_on_both_last_cards_is_a_draw() -> None:
    """A tie on both players' last cards: both are short, the round is a draw."""
    round_ = dealt(CLASSIC, "9S", "9H")
    battle = round_.play_battle()
    assert battle.winner is None
    assert round_.outcome is not None
    assert (round_.outcome.winner, round_.outcome.reason) == (None, Reason.BOTH_SHORT)
    assert codes(list(round_.table)) == ["9S", "9H"]


def test_traditional_computer_with_two_cards_lays_one_and_turns_one() -> None:
    """Traditional: the Computer holds 2 cards at a tie, lays one down and turns the other."""
    round_ = dealt(TRADITIONAL, "9S 2C 3C 4C KD 5C", "9H 6D 7S")
    battle = round_.play_battle()
    war = battle.steps[1]
    assert war.down == (3, 1)
    assert war.up == (Card.parse("KD"), Card.parse("7S"))
    assert war.short == (1,)
    assert battle.winner == 0 and battle.taken == 8
    assert piles(round_) == [["5C", "9S", "2C", "3C", "4C", "KD", "9H", "6D", "7S"], []]
    assert round_.outcome is not None
    assert (round_.outcome.winner, round_.outcome.reason) == (0, Reason.ALL_CARDS)
