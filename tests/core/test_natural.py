"""`gather: "natural"`, the cards picked up as they lie (docs/rules.md#gather): on hand-made deals
with double ties, two players and three, with and without cards down, a short player's forfeited
cards, and the corner where the winner turned no card in the last step. Every expected pile is
written out by hand from the rule, not computed."""

import random

import pytest

from cardwar import DECK, Reason, Round, Rules

from helpers import dealt, ended, piles

NATURAL = Rules(gather="natural", war_down=0, battle_limit=None)


def test_a_double_tie_with_no_card_down_as_mathieu_and_delahaye_pick_it_up() -> None:
    """No card down: the winner's card, the loser's card, then the tied pairs, the latest first,
    each the Computer's card then yours (the second seat laid last)."""
    round_ = dealt(NATURAL, "9S 5C KD 2H", "9H 5D 3C 4H")
    round_.play_battle()
    assert piles(round_) == [["2H", "KD", "3C", "5D", "5C", "9H", "9S"], ["4H"]]


def test_the_second_seat_winning_a_double_tie_takes_its_own_card_first() -> None:
    """The same double tie won by the Computer: its king, your three, then the pairs as before."""
    round_ = dealt(NATURAL, "9S 5C 3D 2H", "9H 5D KC 4H")
    round_.play_battle()
    assert piles(round_) == [["2H"], ["4H", "KC", "3D", "5D", "5C", "9H", "9S"]]


def test_a_double_war_with_a_card_down() -> None:
    """One down: the last step's winning card (KD), then that step's other cards last laid first
    (6C, 5D, 3S), then the first war's (7S, 3C, 7D, 2C), then the first turn's (9H, 9S)."""
    round_ = dealt(Rules(gather="natural"), "9S 2C 7D 3S KD 4H", "9H 3C 7S 5D 6C 8H")
    battle = round_.play_battle()
    assert battle.wars == 2 and battle.winner == 0
    assert piles(round_) == [
        ["4H", "KD", "6C", "5D", "3S", "7S", "3C", "7D", "2C", "9H", "9S"],
        ["8H"],
    ]


def test_three_players_with_one_sitting_out() -> None:
    """The third seat's four sat the war out; it lies under the war's cards, above the nines."""
    round_ = dealt(Rules(players=3, gather="natural"), "9S 2C KD", "9H 3C 7S 8S", "4D 5D")
    round_.play_battle()
    assert piles(round_) == [["KD", "7S", "3C", "2C", "4D", "9H", "9S"], ["8S"], ["5D"]]


def test_three_players_in_a_double_tie_with_no_card_down() -> None:
    """All three tie on nines, two again on fives: the ace, the two, then the first war's cards
    last laid first (4S, 5D, 5C), then the nines (9D, 9H, 9S)."""
    round_ = dealt(Rules(players=3, gather="natural", war_down=0), "9S 5C AD", "9H 5D 2C", "9D 4S")
    round_.play_battle()
    assert piles(round_) == [["AD", "2C", "4S", "5D", "5C", "9D", "9H", "9S"], [], []]


def test_a_short_players_forfeited_cards_lie_in_its_seats_turn() -> None:
    """Three tie, the third is short of a war (one card for one down and one up): its 4S joins
    the table in its seat's turn, after the second seat's cards, and is picked up before them."""
    round_ = dealt(Rules(players=3, gather="natural"), "9S 2C KD", "9H 3C 7S 8H", "9D 4S")
    round_.play_battle()
    assert piles(round_) == [["KD", "4S", "7S", "3C", "2C", "9D", "9H", "9S"], ["8H"], []]
    assert round_.out_at == [None, None, 1]


def test_a_winner_who_turned_no_card_last_takes_everything_last_laid_first() -> None:
    """The Computer is short of a war with two down: its two cards join the table and you win
    without laying; having turned no card in that step, you take it all last laid first."""
    round_ = dealt(Rules(gather="natural", war_down=2), "9S 2C 3C 4C KD", "9H 5D 6D")
    round_.play_battle()
    assert ended(round_) == (0, Reason.OPPONENT_SHORT)
    assert piles(round_) == [["2C", "3C", "4C", "KD", "6D", "5D", "9H", "9S"], []]


def test_fighting_on_with_the_last_card_then_winning_alone() -> None:
    """last_card: your nine was your last card, so only the Computer can fight on; it turns no
    card and takes the table last laid first: its nine, then yours."""
    rules = Rules.from_dict({"gather": "natural"}, base=Rules.preset("traditional"))
    round_ = dealt(rules, "9S", "9H 2C")
    round_.play_battle()
    assert ended(round_) == (1, Reason.ALL_CARDS)
    assert piles(round_) == [[], ["2C", "9H", "9S"]]


def test_fighting_on_with_the_last_card_and_losing_it() -> None:
    """last_card: the Computer lays its 6D down and fights with its 7S; your king wins, and the
    table comes up king, 7S, 6D, your three down cards last laid first, then the nines."""
    rules = Rules.from_dict({"gather": "natural"}, base=Rules.preset("traditional"))
    round_ = dealt(rules, "9S 2C 3C 4C KD 5H", "9H 6D 7S")
    round_.play_battle()
    assert ended(round_) == (0, Reason.ALL_CARDS)
    assert piles(round_) == [["5H", "KD", "7S", "6D", "4C", "3C", "2C", "9H", "9S"], []]


@pytest.mark.parametrize("seed", range(40))
def test_with_one_suit_natural_is_winner_first(seed: int) -> None:
    """One suit means no tie, and with no tie the cards as they lie are the winner's first: a
    round of thirteen spades plays the same battle for battle under both."""
    spades = [card for card in DECK if card.suit.value == "S"]
    random.Random(seed).shuffle(spades)
    deal = [spades[:6], spades[6:]]
    rounds = [
        Round(Rules(gather=g, battle_limit=None), deal=deal) for g in ("natural", "winner_first")
    ]
    for one, other in zip(*(r.play() for r in rounds), strict=True):
        assert one.counts == other.counts
    assert rounds[0].piles == rounds[1].piles
    assert rounds[0].outcome == rounds[1].outcome
