"""The API's view of a round: nothing a player may not see yet (docs/api.md#the-round)."""

from cardwar import Round, Rules
from cardwar.web.game.views import round_view

from helpers import dealt

CLASSIC = Rules.preset("classic")


def test_an_explicit_deal_is_shown_only_once_the_round_is_over() -> None:
    """A round dealt by hand shows its deal in the API's shape once it is over, for replaying
    or sharing it, and not before; a random deal never does (its seed deals it again)."""
    round_ = dealt(CLASSIC, "9S 2C KD 4H", "9H 3C 7S 5D")
    round_.play(1)
    assert "deal" not in round_view(round_, None)
    round_.play()
    assert round_.over
    assert round_view(round_, None)["deal"] == [["9S", "2C", "KD", "4H"], ["9H", "3C", "7S", "5D"]]
    random_deal = Round(CLASSIC, seed=4)
    random_deal.play()
    assert "deal" not in round_view(random_deal, None)
