"""The live table's rules alone (`cardwar.web.live.table`, docs/api.md#live-tables): no server,
no socket, no clock but the one each test hands in."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from cardwar.web.live.errors import (
    BadEmoji,
    BadName,
    BadRules,
    ComputersSeat,
    HostStays,
    NameTaken,
    NoSuchSeat,
    NotHost,
    NotSeated,
    NotYours,
    OutOfCards,
    PersonAtTable,
    RoundInPlay,
    RoundOver,
    SeatedElsewhere,
    SeatTaken,
    TableClosed,
    TableError,
    TooSoon,
)
from cardwar.web.live.table import (
    Asked,
    Away,
    Back,
    ClockRanOut,
    Closed,
    Flipped,
    Given,
    Left,
    Reacted,
    Reclaimed,
    RoundView,
    Seated,
    Table,
    Who,
)
from cardwar.web.store.live import TableRow, TableSeat

HOST_ID = "host-browser"


def table_of(*kinds: str, clock_s: int | None = None) -> Table:
    """A fresh table whose seat 0 the host holds, the others as `kinds` says (free people's
    seats, or the computer's)."""
    seats = [TableSeat("person", "Ann", HOST_ID)]
    seats += [TableSeat(kind, "" if kind == "person" else f"Computer {i + 2}") for i, kind in
              enumerate(kinds)]  # fmt: skip
    row = TableRow("code", "watch", HOST_ID, {}, 1, clock_s, tuple(seats), "r1", None, None, 0, 0)
    return Table(row)


def fresh(players: int, battles: int = 0) -> RoundView:
    return RoundView(battles, (26,) * players, over=False)


HOST = Who(HOST_ID, 0)


def test_a_person_sits_at_a_free_seat_and_is_told_back_what_happened() -> None:
    """Sitting down returns the table with the seat held and a `Seated` event."""
    table, event = table_of("person").sit("mia", 1, "  Mia ")
    assert event == Seated(1, "Mia")
    assert table.seats[1] == TableSeat("person", "Mia", "mia")
    assert table.row.seat_of("mia") == 1


def test_every_refusal_to_sit_names_its_cause_and_changes_nothing() -> None:
    """Each way a sit-down cannot be has its own error."""
    table, _ = table_of("person", "computer").sit("mia", 1, "Mia")
    cases = [
        (("bo", 1, "Bo"), SeatTaken),
        (("bo", 2, "Bo"), ComputersSeat),
        (("bo", 3, "Bo"), NoSuchSeat),
        (("bo", -1, "Bo"), NoSuchSeat),
        (("mia", 0, "Mia"), SeatedElsewhere),
    ]
    for args, error in cases:
        with pytest.raises(error):
            table.sit(*args)
    with pytest.raises(NameTaken, match="Ann sits at this table already"):
        table_of("person").sit("bo", 1, "ANN")
    with pytest.raises(BadName, match="name: say who you are"):
        table_of("person").sit("bo", 1, "   ")
    with pytest.raises(BadName, match=r"^name: "):
        table_of("person").sit("bo", 1, "x" * 21)
    assert table.seats[1].holder == "mia"


def test_errors_say_how_they_are_answered() -> None:
    """A validation is 422, a permission 403, a rate 429 and a state 409; a missing or closed
    table closes a socket with its own code."""
    assert (NoSuchSeat.status, NotHost.status, TooSoon.status, SeatTaken.status) == (
        422, 403, 429, 409,
    )  # fmt: skip
    assert (TableClosed.status, TableClosed.close) == (410, 4410)
    assert SeatTaken.close is None
    assert issubclass(NotSeated, TableError) and issubclass(TooSoon, TableError)


def test_a_battle_is_played_once_every_person_still_in_has_flipped() -> None:
    """Flips gather; the last one leaves no one waiting; a computer is never waited for."""
    table, _ = table_of("person", "computer").sit("mia", 1, "Mia")
    round_ = fresh(3)
    assert table.waiting(round_) == (0, 1)
    table, first = table.flip(HOST, 1, round_, now=0)
    assert first == Flipped(0, (1,))
    table, last = table.flip(Who("mia", 1), 1, round_, now=0)
    assert last == Flipped(1, ())
    assert table.played().flipped == frozenset()


def test_a_late_or_repeated_flip_changes_nothing() -> None:
    """A flip for a battle already played, or a second one for the same battle, is let go."""
    table = table_of("person")
    round_ = fresh(2, battles=4)
    assert table.flip(HOST, 4, round_, now=0) == (table, None)
    once, event = table.flip(HOST, 5, round_, now=0)
    assert event is not None
    assert once.flip(HOST, 5, round_, now=0) == (once, None)
    assert once.flip(HOST, None, round_, now=0) == (once, None)


def test_who_may_not_flip_is_told_why() -> None:
    """A watcher, a person who left the seat, one out of cards, and anyone once it is over."""
    table, _ = table_of("person").sit("mia", 1, "Mia")
    with pytest.raises(NotSeated, match="Watchers watch"):
        table.flip(Who(None), None, fresh(2), now=0)
    with pytest.raises(NotSeated, match="You left this seat"):
        table.flip(Who("bo", 1), None, fresh(2), now=0)
    with pytest.raises(OutOfCards):
        table.flip(Who("mia", 1), None, RoundView(3, (52, 0), over=False), now=0)
    with pytest.raises(RoundOver):
        table.flip(HOST, None, RoundView(3, (52, 0), over=True), now=0)


def test_the_clock_starts_at_the_first_flip_and_flips_for_the_late() -> None:
    """A 10 s clock set by the first flip runs out 10 s later, flipping for whoever is late."""
    table = table_of("person", "person", clock_s=10)
    round_ = fresh(3)
    assert table.clock_ran_out(round_, now=99) == (table, None)  # no flip, no clock
    table, _ = table.flip(HOST, None, round_, now=5)
    assert table.deadline == 15
    assert table.clock_ran_out(round_, now=14.9) == (table, None)
    after, event = table.clock_ran_out(round_, now=15)
    assert event == ClockRanOut((1, 2))
    assert after.waiting(round_) == ()


def test_the_host_gives_a_free_seat_at_once_and_an_away_one_after_a_while() -> None:
    """A seat no one holds goes at once; a person's only once away long enough, never while
    they are at the table; only the host gives."""
    table, _ = table_of("person", "person").sit("mia", 1, "Mia")
    round_ = fresh(3)
    free, event = table.give(HOST, 2, round_, now=0, after_s=120, present=False)
    assert event == Given(2, "Computer 2") and free.seats[2].kind == "computer"
    with pytest.raises(NotHost):
        table.give(Who("mia", 1), 2, round_, now=0, after_s=120, present=False)
    with pytest.raises(PersonAtTable):
        table.give(HOST, 1, round_, now=0, after_s=120, present=True)
    away, _ = table.went(1, now=100)
    with pytest.raises(TooSoon) as soon:
        away.give(HOST, 1, round_, now=150, after_s=120, present=False)
    assert soon.value.retry_after == 70
    given, event = away.give(HOST, 1, round_, now=220, after_s=120, present=False)
    assert event.seat == 1 and given.seats[1].kind == "computer"
    assert given.seats[1].holder is None and given.here.away_since == {}


def test_a_seat_given_away_comes_back_to_its_person_alone() -> None:
    """The browser that held a seat given to the computer may take it back, under its name."""
    table, _ = table_of("person").sit("mia", 1, "Mia")
    table, _ = table.went(1, now=0)
    table, _ = table.give(HOST, 1, fresh(2), now=200, after_s=120, present=False)
    with pytest.raises(NotYours):
        table.reclaim("bo", 1)
    with pytest.raises(NotYours):
        table.reclaim("mia", 0)
    assert (
        table.row.given_from("mia"),
        table.row.given_from("bo"),
        table.row.given_from(None),
    ) == (
        1,
        None,
        None,
    )
    back, event = table.reclaim("mia", 1)
    assert event == Reclaimed(1, "Mia") and back.row.given_from("mia") is None
    assert back.seats[1] == TableSeat("person", "Mia", "mia")
    assert back.waiting(fresh(2)) == (0, 1)


def test_a_given_seat_plays_the_battle_everyone_else_was_waiting_for() -> None:
    """Given while everyone else had flipped, the battle is to be played at once."""
    table = table_of("person")
    table, _ = table.flip(HOST, None, fresh(2), now=0)
    _, event = table.give(HOST, 1, fresh(2), now=0, after_s=120, present=False)
    assert event.play


def test_standing_up_frees_the_seat_but_the_host_stays() -> None:
    """A person leaves; the host closes instead."""
    table, _ = table_of("person").sit("mia", 1, "Mia")
    left, event = table.stand_up(Who("mia", 1))
    assert event == Left(1, "Mia") and left.seats[1] == TableSeat("person", "")
    with pytest.raises(HostStays):
        table.stand_up(HOST)
    with pytest.raises(NotSeated):
        left.stand_up(Who("mia", 1))


def test_reactions_one_a_second_from_a_seat() -> None:
    """A reaction from a seat, never a watcher's, never two within a second."""
    table = table_of("person")
    table, event = table.react(HOST, "👏", now=10)
    assert event == Reacted(0, "👏")
    with pytest.raises(TooSoon):
        table.react(HOST, "😮", now=10.5)
    with pytest.raises(BadEmoji):
        table.react(HOST, "💩", now=20)
    with pytest.raises(NotSeated):
        table.react(Who(None), "😮", now=20)
    assert table.react(HOST, "😮", now=11)[1] == Reacted(0, "😮")


def test_away_and_back_are_said_once_each() -> None:
    """A person away is away once, back once; a free seat is never away."""
    table, _ = table_of("person").sit("mia", 1, "Mia")
    away, event = table.went(1, now=3)
    assert event == Away(1) and away.went(1, now=4) == (away, None)
    back, event = away.came(1)
    assert event == Back(1) and back.came(1) == (back, None)
    assert table_of("person").went(1, now=0)[1] is None


def test_the_next_round_and_many_battles_are_the_hosts_alone() -> None:
    """Only the host deals or plays many; not while a round plays or after it ends, as fits."""
    table, _ = table_of("person").sit("mia", 1, "Mia")
    with pytest.raises(NotHost):
        table.can_deal(Who("mia", 1), RoundView(9, (52, 0), True))
    with pytest.raises(RoundInPlay):
        table.can_deal(HOST, fresh(2))
    with pytest.raises(RoundOver):
        table.can_play_many(HOST, RoundView(9, (52, 0), True))
    table.can_deal(HOST, fresh(2), abandon=True)  # the round in play left unfinished
    table, _ = table.flip(HOST, None, fresh(2), now=0)
    dealt = table.dealt("r2", None)
    assert dealt.row.round_id == "r2" and dealt.flipped == frozenset()
    assert dealt.row.rules == table.row.rules and dealt.row.best_of == 1
    ruled = table.dealt("r3", "m1", rules={"players": 2, "war_down": 3}, best_of=3)
    assert ruled.row.rules["war_down"] == 3 and (ruled.row.best_of, ruled.row.match_id) == (3, "m1")


def test_rules_fit_a_table_only_for_as_many_players_as_it_has_seats() -> None:
    """The host's new rules keep the table's seats: rules for another number are refused."""
    table = table_of("person", "computer")
    table.can_deal(HOST, RoundView(9, (52, 0, 0), True), players=3)
    with pytest.raises(BadRules, match="this table has 3 seats"):
        table.can_deal(HOST, RoundView(9, (52, 0, 0), True), players=2)


def test_anyone_at_the_table_asks_for_another_round_once_it_is_over() -> None:
    """A person asks once a round; never while it plays, never a watcher; a deal forgets."""
    table, _ = table_of("person").sit("mia", 1, "Mia")
    over = RoundView(9, (52, 0), True)
    with pytest.raises(RoundInPlay):
        table.ask_again(Who("mia", 1), fresh(2))
    with pytest.raises(NotSeated):
        table.ask_again(Who(None), over)
    asked, event = table.ask_again(Who("mia", 1), over)
    assert event == Asked(1, "Mia") and asked.asked == {1}
    assert asked.ask_again(Who("mia", 1), over) == (asked, None)
    assert asked.dealt("r2", None).asked == frozenset()


def test_a_closed_table_refuses_everything() -> None:
    """Once closed, nothing is done at it; it closes once."""
    table, event = table_of("person").close("host")
    assert event == Closed("host")
    for attempt in (
        lambda: table.sit("mia", 1, "Mia"),
        lambda: table.flip(HOST, None, fresh(2), now=0),
        lambda: table.close("idle"),
        lambda: table.react(HOST, "👏", now=0),
    ):
        with pytest.raises(TableClosed, match="its host closed it"):
            attempt()


# -- the table in any order ----------------------------------------------------------------------

BROWSERS = ("b1", "b2", "b3", "b4")


class Tables(RuleBasedStateMachine):
    """Sit, flip, stand up, give, reclaim, come and go, react, play, deal and close in any order:
    a seat never has two holders, a browser never holds two seats, a battle is played exactly
    when every person still in has flipped, and a refusal changes nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.table = table_of("person", "person", "computer", clock_s=10)
        self.round = fresh(4)
        self.now = 0.0
        self.battles_played = 0

    def apply(self, step: object) -> None:
        """Run one method of the table: a refusal must leave it as it was."""
        before = self.table
        try:
            result = step()  # type: ignore[operator]
        except TableError:
            assert self.table == before
            return
        if isinstance(result, tuple):
            self.table, event = result
            if isinstance(event, Flipped) and not event.waiting:
                self.play()
            elif isinstance(event, ClockRanOut) or (isinstance(event, Given) and event.play):
                assert self.table.waiting(self.round) == ()
                self.play()

    def play(self) -> None:
        assert self.table.waiting(self.round) == ()
        self.battles_played += 1
        self.round = replace(self.round, battles=self.round.battles + 1)
        self.table = self.table.played()

    @rule(browser=st.sampled_from(BROWSERS), seat=st.integers(-1, 4), name=st.sampled_from(
        ["Mia", "Bo", "mia", "", "Ann"]))  # fmt: skip
    def sit(self, browser: str, seat: int, name: str) -> None:
        self.apply(lambda: self.table.sit(browser, seat, name))

    @rule(browser=st.sampled_from((*BROWSERS, HOST_ID, None)), battle=st.integers(0, 3) | st.none())
    def flip(self, browser: str | None, battle: int | None) -> None:
        who = Who(browser, self.table.row.seat_of(browser))
        number = None if battle is None else self.round.battles + battle
        before = self.table
        self.apply(lambda: self.table.flip(who, number, self.round, now=self.now))
        if battle not in (None, 1) and self.table.flipped == before.flipped:
            assert self.table == before

    @rule(browser=st.sampled_from(BROWSERS))
    def stand_up(self, browser: str) -> None:
        self.apply(lambda: self.table.stand_up(Who(browser, self.table.row.seat_of(browser))))

    @rule(seat=st.integers(0, 3), present=st.booleans())
    def give(self, seat: int, present: bool) -> None:
        self.apply(
            lambda: self.table.give(
                HOST, seat, self.round, now=self.now, after_s=120, present=present
            )
        )

    @rule(browser=st.sampled_from(BROWSERS), seat=st.integers(0, 3))
    def reclaim(self, browser: str, seat: int) -> None:
        self.apply(lambda: self.table.reclaim(browser, seat))

    @rule(seat=st.integers(0, 3))
    def went(self, seat: int) -> None:
        self.apply(lambda: self.table.went(seat, now=self.now))

    @rule(seat=st.integers(0, 3))
    def came(self, seat: int) -> None:
        self.apply(lambda: self.table.came(seat))

    @rule(seconds=st.sampled_from([0.5, 5.0, 60.0, 200.0]))
    def time_passes(self, seconds: float) -> None:
        self.now += seconds
        self.apply(lambda: self.table.clock_ran_out(self.round, now=self.now))

    @rule(seat=st.integers(1, 3))
    def host_plays_on_until_a_seat_is_out(self, seat: int) -> None:
        """The host's Play 10: battles played whoever has flipped, and `seat` out of cards."""
        before = self.table
        self.apply(lambda: self.table.can_play_many(HOST, self.round))
        if self.table is not before or self.table.is_closed or self.round.over:
            return
        counts = list(self.round.counts)
        counts[0] += counts[seat]
        counts[seat] = 0
        self.round = replace(self.round, battles=self.round.battles + 10, counts=tuple(counts))
        self.table = self.table.played()

    @rule()
    def the_round_ends_and_the_host_deals_the_next(self) -> None:
        self.round = replace(self.round, over=True)
        self.table = self.table.played()
        if self.table.is_closed:
            return
        self.table.can_deal(HOST, self.round)
        self.table = self.table.dealt(f"r{self.round.battles}", None)
        self.round = fresh(4)

    @rule(browser=st.sampled_from(BROWSERS))
    def asks_for_another_round(self, browser: str) -> None:
        self.apply(
            lambda: self.table.ask_again(Who(browser, self.table.row.seat_of(browser)), self.round)
        )

    @rule(players=st.sampled_from([None, 2, 4]))
    def the_host_deals_new_rules_at_once(self, players: int | None) -> None:
        """House rules at the table: the round in play left unfinished, for as many seats."""
        before = self.table
        self.apply(lambda: self.table.can_deal(HOST, self.round, abandon=True, players=players))
        if self.table is not before or self.table.is_closed or players == 2:
            return
        self.table = self.table.dealt(f"r{self.round.battles}-new", None, rules={"players": 4})
        self.round = fresh(4)

    @precondition(lambda self: not self.table.is_closed)
    @rule(reason=st.sampled_from(["host", "idle"]))
    def close(self, reason: str) -> None:
        self.apply(lambda: self.table.close(reason))

    @invariant()
    def one_holder_a_seat_and_one_seat_a_holder(self) -> None:
        holders = [seat.holder for seat in self.table.seats if seat.holder is not None]
        assert len(holders) == len(set(holders))
        assert self.table.seats[0].holder == HOST_ID
        assert all(seat.kind == "person" for seat in self.table.seats if seat.holder)

    @invariant()
    def only_people_still_in_have_flipped_and_nobody_waits_once_all_have(self) -> None:
        for seat in self.table.flipped:
            assert self.table.seats[seat].kind == "person"
        if self.table.flipped and not self.table.is_closed:
            assert self.table.waiting(self.round) != () or self.round.over

    @invariant()
    def only_people_at_the_table_ask_and_only_once_a_round_is_over(self) -> None:
        for seat in self.table.asked:
            assert self.table.seats[seat].holder is not None
        if not self.round.over:
            assert self.table.asked == frozenset()

    @invariant()
    def only_held_seats_are_away(self) -> None:
        for seat in self.table.here.away_since:
            assert self.table.seats[seat].holder is not None


TestTables = Tables.TestCase
