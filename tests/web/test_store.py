"""The store on SQLite and on PostgreSQL: every kind of round through a save and a reopen,
players and pruning; what only a SQLite file has (older files, its mode) on SQLite."""

from __future__ import annotations

import json
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import psycopg
import pytest

from cardwar import Outcome, Reason, Round, RoundOverError, Rules
from cardwar.persist import from_history, history, rebuild, resume
from cardwar.web.game.seats import DEFAULT_SEATS, Seat
from cardwar.web.store import (
    MatchRow,
    MatchUpdate,
    PersonScore,
    RoundMoved,
    Scoreboard,
    Store,
)
from cardwar.web.store.engines import StoreClosed

from helpers import dealt, integrity

CLASSIC = Rules.preset("classic")
TIMED = Rules.preset("timed")


class Files:
    """Stores over this test's own database, every one closed after the test: a SQLite file
    (`path`), or a PostgreSQL schema of its own when `postgres` names one."""

    def __init__(self, folder: Path, postgres: str | None = None) -> None:
        self.folder = folder
        self.path = folder / "cardwar.db"
        self.postgres = postgres
        self.db: Path | str = self.path if postgres is None else postgres
        self.opened: list[Store] = []

    def open(self, db: Path | str | None = None) -> Store:
        """A store over `db` (this test's own database when None)."""
        store = Store(db or self.db)
        self.opened.append(store)
        return store

    def reopen(self, store: Store, db: Path | str | None = None) -> Store:
        """Close the store and open its database again, as a restarted server does."""
        store.close()
        return self.open(db)

    def query(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        """Rows read straight from the database, on a connection of its own, as another
        process would read them (`?` placeholders on either engine)."""
        if self.postgres is None:
            return query(self.path, sql, *params)
        import psycopg

        with psycopg.connect(self.postgres) as db:
            return db.execute(sql.replace("?", "%s"), params).fetchall()


@pytest.fixture(params=["sqlite", "postgres"])
def files(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Files]:
    """Fresh databases for this test only: SQLite files, then a PostgreSQL schema."""
    postgres = request.getfixturevalue("postgres") if request.param == "postgres" else None
    files = Files(tmp_path, postgres)
    yield files
    for store in files.opened:
        store.close()


@pytest.fixture
def sqlite_files(tmp_path: Path) -> Iterator[Files]:
    """Fresh SQLite files for this test only (what it holds is the file's own)."""
    files = Files(tmp_path)
    yield files
    for store in files.opened:
        store.close()


@pytest.fixture
def store(files: Files) -> Store:
    """A store over a fresh database."""
    return files.open()


@pytest.fixture
def sqlite_store(sqlite_files: Files) -> Store:
    """A store over a fresh SQLite file."""
    return sqlite_files.open()


def query(path: Path, sql: str, *params: object) -> list[tuple[Any, ...]]:
    """Rows read straight from the file, as anyone with sqlite3 would read them."""
    with closing(sqlite3.connect(path)) as db:
        return db.execute(sql, params).fetchall()


def state(round_: Round) -> tuple[Any, ...]:
    """Everything a player or the API can see of a round, to compare two of them."""
    return (
        round_.rules,
        round_.seed,
        round_.explicit_deal,
        round_.deal,
        round_.piles,
        round_.table,
        round_.battles,
        round_.wars,
        round_.outcome,
        round_.time_up,
        round_.out_at,
        round_.last_battle,
    )


def clock_ran_out(rules: Rules, *seats: str, battles: int) -> Callable[[], Round]:
    """A round from an explicit deal that plays `battles` battles, then its clock runs out."""

    def make() -> Round:
        round_ = dealt(rules, *seats, seed=3)
        round_.play(battles)
        round_.call_time()
        return round_

    return make


def played(make: Callable[[], Round], battles: int | None = None) -> Callable[[], Round]:
    """A round that plays `battles` battles (all of them when None) once it is made."""

    def make_and_play() -> Round:
        round_ = make()
        round_.play(battles)
        return round_

    return make_and_play


LIMIT_AT_1 = Rules(battle_limit=1)
COUNT_AT_1 = Rules.from_dict({"battle_limit": 1, "limit_outcome": "most_cards"})
COUNT_AT_2 = Rules.from_dict({"battle_limit": 2, "limit_outcome": "most_cards"})
SHUFFLED = Rules.from_dict({"gather": "shuffled"})
TABLE_NO_LIMIT = Rules.from_dict({"gather": "table", "battle_limit": None})
SEED_EXAMPLE = ("9S 2C KD 4H", "9H 3C 7S 5D")

# Every kind of round a server stores: random and explicit deals, part played and finished,
# shuffled returns (the generator's state) and a loop watch, and every way a round ends.
ROUNDS: dict[str, Callable[[], Round]] = {
    "random deal, part played": played(lambda: Round(CLASSIC, seed=12_345), 40),
    "random deal, shuffled returns": played(lambda: Round(SHUFFLED, seed=77), 60),
    "random deal, loop watch": played(lambda: Round(TABLE_NO_LIMIT, seed=5), 25),
    "explicit deal, not yet played": lambda: dealt(CLASSIC, *SEED_EXAMPLE, seed=8),
    "explicit deal, part played": played(lambda: dealt(CLASSIC, *SEED_EXAMPLE, seed=8), 1),
    "all_cards": played(lambda: dealt(CLASSIC, "AS", "2H", seed=1)),
    "opponent_short": played(lambda: dealt(CLASSIC, "9S", "9H 2C 3C", seed=1)),
    "both_short": played(lambda: dealt(CLASSIC, "9S 2C", "9H 3C", seed=1)),
    "battle_limit": played(lambda: dealt(LIMIT_AT_1, "5S 2C", "4H 3C", seed=1)),
    "most_cards": played(lambda: dealt(COUNT_AT_1, "5S 2C", "4H 3C", seed=1)),
    "most_cards_tie": played(lambda: dealt(COUNT_AT_2, "5S 2C", "4H 3C", seed=1)),
    "cycle": played(lambda: dealt(TABLE_NO_LIMIT, "2C 3C", "3D 2D", seed=1)),
    "time_up": clock_ran_out(TIMED, "5S 2C 7D", "4H 3C", battles=1),
    "time_up, leaders level": clock_ran_out(TIMED, "5S 2C", "4H 3C", battles=0),
    "time_up, random deal": lambda: rebuild(TIMED, seed=4, battles=10, time_up=True),
}
OUTCOMES = {
    "all_cards": Outcome(0, Reason.ALL_CARDS),
    "opponent_short": Outcome(1, Reason.OPPONENT_SHORT),
    "both_short": Outcome(None, Reason.BOTH_SHORT),
    "battle_limit": Outcome(None, Reason.BATTLE_LIMIT),
    "most_cards": Outcome(0, Reason.MOST_CARDS),
    "most_cards_tie": Outcome(None, Reason.MOST_CARDS_TIE),
    "cycle": Outcome(None, Reason.CYCLE),
    "time_up": Outcome(0, Reason.TIME_UP),
    "time_up, leaders level": Outcome(None, Reason.MOST_CARDS_TIE),
}


def test_the_cases_cover_every_ending() -> None:
    """The rounds stored below end in every way a round can end, the clock included."""
    ends = {name: ROUNDS[name]().outcome for name in OUTCOMES}
    assert ends == OUTCOMES
    assert {outcome.reason for outcome in OUTCOMES.values()} == set(Reason)
    assert ROUNDS["time_up, leaders level"]().time_up


@pytest.mark.parametrize("kind", list(ROUNDS))
def test_a_round_comes_back_from_the_file_exactly(kind: str, files: Files, store: Store) -> None:
    """A round stored as it stands is the same round after the store is reopened, whether it
    is resumed from its snapshot or rebuilt from its history, and it plays on the same."""
    live = ROUNDS[kind]()
    store.insert("r1", "p1", live, created_at=1_000.5)
    row = files.reopen(store).get("r1")
    assert row is not None
    assert (row.id, row.player, row.created_at) == ("r1", "p1", 1_000.5)
    assert row.snapshot is not None
    for again in (resume(row.snapshot), from_history(row.history)):
        assert state(again) == state(live)
        if live.outcome is None:
            assert again.play(30) == ROUNDS[kind]().play(30)
        else:  # over: it plays no more, as the live one would not
            with pytest.raises(RoundOverError):
                again.play_battle()


@pytest.mark.parametrize("kind", list(ROUNDS))
def test_a_round_dealt_then_played_comes_back_as_last_saved(
    kind: str, files: Files, store: Store
) -> None:
    """A round stored at its deal and saved again after it is played (as the server does) comes
    back as last saved: same battles, same clock, same outcome, same deal."""
    live = ROUNDS[kind]()
    fresh = Round(live.rules, seed=live.seed, deal=live.deal if live.explicit_deal else None)
    store.insert("r1", None, fresh, created_at=10.0)
    store.update("r1", live)
    saved = store.get("r1")
    assert saved is not None and saved.snapshot is not None
    assert state(resume(saved.snapshot)) == state(live)
    row = files.reopen(store).get("r1")
    assert row is not None and row.snapshot is not None
    assert row.player is None
    assert state(resume(row.snapshot)) == state(live)
    assert state(from_history(row.history)) == state(live)


def columns(files: Files, round_id: str) -> tuple[Any, ...]:
    """How far a stored round got and how it ended, as the database's own columns say."""
    sql = "SELECT battles, time_up, winner, reason FROM rounds WHERE id = ?"
    [row] = files.query(sql, round_id)
    return tuple(row)


@pytest.mark.parametrize("kind", ["explicit deal, part played", *OUTCOMES])
def test_the_file_says_how_far_each_round_got_and_how_it_ended(
    kind: str, files: Files, store: Store
) -> None:
    """The rounds table states each round's battles, clock, winner and reason in columns of its
    own (scoreboards of old files are counted from them), as inserted and as updated."""
    live = ROUNDS[kind]()
    outcome = live.outcome
    expected = (
        live.battles,
        int(live.time_up),
        None if outcome is None else outcome.winner,
        None if outcome is None else outcome.reason.value,
    )
    store.insert("inserted", "p1", live, created_at=1.0)
    store.insert("updated", "p1", Round(live.rules, seed=live.seed, deal=live.deal), 1.0)
    assert columns(files, "updated") == (0, 0, None, None)
    store.update("updated", live)
    assert columns(files, "inserted") == columns(files, "updated") == expected


def test_a_round_the_safety_cap_ended_rebuilds_as_ended(store: Store) -> None:
    """The history in a round's row holds the server's cap, so a round the cap ended (its rules
    have no limit) rebuilds from it ended, at the same battle, as its snapshot does."""
    rules = Rules.from_dict({"battle_limit": None, "gather": "table", "war_down": 0})
    round_ = Round(rules, seed=39, cap=250)
    round_.play()
    assert round_.outcome is not None and round_.outcome.reason is Reason.BATTLE_LIMIT
    store.insert("r1", "p1", round_, 1.0)
    row = store.get("r1")
    assert row is not None and row.history["cap"] == 250
    rebuilt = from_history(row.history)
    assert rebuilt.outcome == round_.outcome and rebuilt.battles == 250


def test_an_unknown_round_is_none(store: Store) -> None:
    """Asking for a round id the file never held gives None, not an error."""
    store.insert("r1", "p1", Round(CLASSIC, seed=1), created_at=1.0)
    assert store.get("r2") is None


# -- a file from an older version -------------------------------------------------------------

# The rounds table as it was before snapshots, in a file from before the players table.
OLD_ROUNDS = """
CREATE TABLE IF NOT EXISTS rounds (
    id TEXT PRIMARY KEY, player TEXT, rules TEXT NOT NULL, seed INTEGER NOT NULL, deal TEXT,
    battles INTEGER NOT NULL DEFAULT 0, time_up INTEGER NOT NULL DEFAULT 0, winner INTEGER,
    reason TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL
)
"""


def old_file(path: Path, rounds: dict[str, tuple[str | None, Round]]) -> None:
    """Write a file as an older cardwar left it: rounds with no snapshot and no players table."""
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(OLD_ROUNDS)
        for round_id, (player, round_) in rounds.items():
            recorded, outcome = history(round_), round_.outcome
            db.execute(
                "INSERT INTO rounds (id, player, rules, seed, deal, battles, time_up, winner,"
                " reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    round_id,
                    player,
                    json.dumps(recorded["rules"]),
                    recorded["seed"],
                    None if recorded["deal"] is None else json.dumps(recorded["deal"]),
                    recorded["battles"],
                    int(round_.time_up),
                    None if outcome is None else outcome.winner,
                    None if outcome is None else outcome.reason.value,
                    5.0,
                    6.0,
                ),
            )


def test_a_file_from_before_snapshots_and_scoreboards_opens_whole(sqlite_files: Files) -> None:
    """An older file is brought up to date as it opens: every round gets its snapshot (so none
    is replayed later), every player a scoreboard counted from their finished rounds; and the
    file opens again afterwards as it is."""
    rounds = {
        "won": ("p1", ROUNDS["all_cards"]()),
        "lost": ("p1", ROUNDS["opponent_short"]()),
        "drawn": ("p1", ROUNDS["battle_limit"]()),
        "timed": ("p1", ROUNDS["time_up, leaders level"]()),
        "going": ("p1", ROUNDS["explicit deal, part played"]()),
        "other": ("p2", ROUNDS["opponent_short"]()),
        "other, going": ("p2", ROUNDS["random deal, part played"]()),
        "anonymous": (None, ROUNDS["time_up"]()),
    }
    old_file(sqlite_files.path, rounds)
    for _ in range(2):
        store = sqlite_files.open()
        for round_id, (player, live) in rounds.items():
            row = store.get(round_id)
            assert row is not None and row.snapshot is not None
            assert (row.player, row.created_at) == (player, 5.0)
            assert state(resume(row.snapshot)) == state(live)
        # ... and "You", the only person an older file knew, the same tally.
        you = PersonScore("You", won=1, lost=1, drawn=2)
        assert store.players.scoreboard("p1") == Scoreboard(won=1, lost=1, drawn=2, people=(you,))
        you = PersonScore("You", won=0, lost=1, drawn=0)
        assert store.players.scoreboard("p2") == Scoreboard(won=0, lost=1, drawn=0, people=(you,))
        assert integrity(store) == "ok"
        store.close()


def test_an_older_file_opens_when_a_player_has_only_unfinished_rounds(sqlite_files: Files) -> None:
    """A player whose rounds in an older file are all unfinished gets an empty scoreboard."""
    old_file(sqlite_files.path, {"going": ("p1", ROUNDS["random deal, part played"]())})
    assert sqlite_files.open().players.scoreboard("p1") == Scoreboard(won=0, lost=0, drawn=0)


def test_a_file_from_before_matches_opens_whole(sqlite_files: Files) -> None:
    """A file whose tables predate matches gains their columns as it opens: its rounds belong
    to no match, its scoreboards have no matches yet, and its matches were dealt from seed 0."""
    with closing(sqlite3.connect(sqlite_files.path)) as db, db:
        db.execute(OLD_ROUNDS)
        db.execute("ALTER TABLE rounds ADD COLUMN snapshot TEXT")
        db.execute(
            "CREATE TABLE players (id TEXT PRIMARY KEY, house_rules TEXT, won INTEGER NOT NULL"
            " DEFAULT 0, lost INTEGER NOT NULL DEFAULT 0, drawn INTEGER NOT NULL DEFAULT 0,"
            " updated_at REAL NOT NULL)"
        )
        db.execute("INSERT INTO players (id, won, updated_at) VALUES ('p1', 2, 1.0)")
        db.execute(
            "CREATE TABLE matches (id TEXT PRIMARY KEY, player TEXT, best_of INTEGER NOT NULL,"
            " rules TEXT NOT NULL, winners TEXT NOT NULL DEFAULT '[]', winner INTEGER,"
            " created_at REAL NOT NULL, updated_at REAL NOT NULL)"
        )
        db.execute(
            "INSERT INTO matches (id, player, best_of, rules, created_at, updated_at)"
            " VALUES ('m1', 'p1', 3, ?, 1.0, 1.0)",
            (json.dumps(CLASSIC.to_dict()),),
        )
    old_file(sqlite_files.path, {"r1": ("p1", ROUNDS["all_cards"]())})
    for _ in range(2):
        store = sqlite_files.open()
        you = PersonScore("You", won=2, lost=0, drawn=0)
        assert store.players.scoreboard("p1") == Scoreboard(2, 0, 0, 0, 0, people=(you,))
        assert store.matches.get("m1") == MatchRow("m1", "p1", 3, CLASSIC.to_dict(), (), (), 0)
        row = store.get("r1")
        assert row is not None and row.snapshot is not None and row.match_id is None
        store.close()


# -- players ----------------------------------------------------------------------------------


def test_a_new_player_has_an_empty_scoreboard_and_no_house_rules(store: Store) -> None:
    """A player the file has never seen has won, lost and drawn nothing and chose no rules."""
    assert store.players.scoreboard("p1") == Scoreboard(won=0, lost=0, drawn=0)
    assert store.players.house_rules("p1") is None


def test_scores_add_up_per_player_and_survive_a_reopen(files: Files, store: Store) -> None:
    """Each score a save carries adds one to that player's column; a save without one adds
    nothing, and a round with no player scores for nobody."""
    for round_id, player in [("a", "p1"), ("b", "p1"), ("c", "p2"), ("d", None)]:
        store.insert(round_id, player, Round(CLASSIC, seed=1), created_at=1.0)
    store.update("a", ROUNDS["all_cards"](), score="won")
    store.update("b", ROUNDS["opponent_short"](), score="lost")
    store.update("c", ROUNDS["both_short"](), score="drawn")
    store.update("b", ROUNDS["battle_limit"](), score="drawn")
    store.update("a", ROUNDS["all_cards"]())
    store.update("d", ROUNDS["all_cards"](), score="won")
    store = files.reopen(store)
    assert store.players.scoreboard("p1") == Scoreboard(won=1, lost=1, drawn=1)
    assert store.players.scoreboard("p2") == Scoreboard(won=0, lost=0, drawn=1)


def test_seats_are_kept_per_round_match_and_player(files: Files, store: Store) -> None:
    """The seats of a round, a match and a player's house rules come back as stored, after a
    reopen too; a row that never had any says so (None), and a choice of rules alone keeps the
    player's seats."""
    mia, bo = Seat("person", "Mia"), Seat("person", "Bo")
    store.insert("r1", "p1", Round(CLASSIC, seed=1), created_at=1.0, seats=(mia, bo))
    store.insert("r2", "p1", Round(CLASSIC, seed=2), created_at=1.0)
    store.matches.insert("m1", "p1", 3, CLASSIC.to_dict(), 7, 1.0, (mia, bo, *DEFAULT_SEATS[2:]))
    store.players.set_house_rules("p1", CLASSIC.to_dict(), (mia, bo, *DEFAULT_SEATS[2:]))
    store.players.set_house_rules("p1", TIMED.to_dict())
    for opened in (store, files.open()):
        first, second = opened.get("r1"), opened.get("r2")
        assert first is not None and first.seats == (mia, bo)
        assert second is not None and second.seats is None
        match = opened.matches.get("m1")
        assert match is not None and match.seats == (mia, bo, *DEFAULT_SEATS[2:])
        assert opened.players.seats("p1") == (mia, bo, *DEFAULT_SEATS[2:])
        assert opened.players.house_rules("p1") == TIMED.to_dict()
        assert opened.players.seats("p2") is None


def test_who_sits_at_a_tables_round_is_written_with_its_battles(files: Files, store: Store) -> None:
    """A live table's seats reach its round only with its battles, in the same UPDATE: another
    process sees the round moved (`round_state`: battles and clock) and reads it, seats and
    all; no write changes the seats alone."""
    mia = Seat("person", "Mia")
    store.insert("r1", "p1", Round(CLASSIC, seed=1), created_at=1.0, seats=(mia, DEFAULT_SEATS[1]))
    assert store.round_state("r1") == (0, 0)
    ahead = Round(CLASSIC, seed=1)
    ahead.play(1)
    bo = (mia, Seat("person", "Bo"))
    files.open().update("r1", ahead, since=(0, 0), seats=bo)  # the other process
    assert store.round_state("r1") == (1, 0)
    stored = store.get("r1")
    assert stored is not None and stored.seats == bo


def test_tallies_add_up_per_name_case_aside_in_the_saves_transaction(store: Store) -> None:
    """Each (name, score) a save carries adds one to that name's tally at the round's player,
    "mia" and "Mia" being one person shown as last written; a round with no player tallies for
    nobody; a save refused leaves every tally as it was."""
    for round_id, player in [("a", "p1"), ("b", "p1"), ("c", None)]:
        store.insert(round_id, player, Round(CLASSIC, seed=1), created_at=1.0)
    store.update("a", ROUNDS["all_cards"](), score="won", people=[("mia", "won"), ("Bo", "lost")])
    store.update("b", ROUNDS["both_short"](), people=[("Mia", "drawn")])
    store.update("c", ROUNDS["all_cards"](), people=[("Zed", "won")])
    expected = (PersonScore("Bo", 0, 1, 0), PersonScore("Mia", 1, 0, 1))
    assert store.players.scoreboard("p1") == Scoreboard(won=1, lost=0, drawn=0, people=expected)
    with pytest.raises(KeyError, match="tied"):
        store.update("a", ROUNDS["all_cards"](), score="won", people=[("Mia", "tied")])
    assert store.players.scoreboard("p1") == Scoreboard(won=1, lost=0, drawn=0, people=expected)


def test_a_save_with_an_unknown_score_changes_nothing(store: Store) -> None:
    """A score other than won, lost or drawn is refused, and the round's row stays as it was."""
    store.insert("r1", "p1", Round(CLASSIC, seed=1), created_at=1.0)
    with pytest.raises(KeyError, match="tied"):
        store.update("r1", ROUNDS["all_cards"](), score="tied")
    row = store.get("r1")
    assert row is not None and row.history["battles"] == 0
    assert store.players.scoreboard("p1") == Scoreboard(won=0, lost=0, drawn=0)
    store.update("r1", ROUNDS["all_cards"](), score="won")  # the file is still usable
    assert store.players.scoreboard("p1") == Scoreboard(won=1, lost=0, drawn=0)


def test_house_rules_are_kept_per_player_and_replaced_whole(files: Files, store: Store) -> None:
    """A player's chosen rules come back as chosen, after a reopen too; a new choice replaces
    the old one whole; other players' choices are their own."""
    store.players.set_house_rules("p1", {"war_down": 3, "players": 4})
    store.players.set_house_rules("p2", TIMED.to_dict())
    assert store.players.house_rules("p1") == {"war_down": 3, "players": 4}
    store.players.set_house_rules("p1", {"low_wins": True})
    store = files.reopen(store)
    assert store.players.house_rules("p1") == {"low_wins": True}
    assert store.players.house_rules("p2") == TIMED.to_dict()


def test_house_rules_and_scoreboard_live_side_by_side(store: Store) -> None:
    """Choosing house rules keeps the player's scoreboard, a score keeps their house rules, and
    a player who only has a scoreboard has chosen no rules."""
    store.insert("r1", "p1", Round(CLASSIC, seed=1), created_at=1.0)
    store.update("r1", ROUNDS["all_cards"](), score="won")
    assert store.players.house_rules("p1") is None
    store.players.set_house_rules("p1", {"war_down": 2})
    assert store.players.scoreboard("p1") == Scoreboard(won=1, lost=0, drawn=0)
    store.insert("r2", "p1", Round(CLASSIC, seed=2), created_at=2.0)
    store.update("r2", ROUNDS["opponent_short"](), score="lost")
    assert store.players.house_rules("p1") == {"war_down": 2}
    assert store.players.scoreboard("p1") == Scoreboard(won=1, lost=1, drawn=0)


def test_the_latest_round_is_the_one_dealt_last(store: Store) -> None:
    """A player's latest round is the one created last, whatever the order of the rows; rounds
    created at the same moment go by the order they were stored; nobody else's count."""
    assert store.latest_id("p1") is None
    store.insert("later", "p1", Round(CLASSIC, seed=1), created_at=20.0)
    store.insert("earlier", "p1", Round(CLASSIC, seed=2), created_at=10.0)
    store.insert("someone else's", "p2", Round(CLASSIC, seed=3), created_at=30.0)
    assert store.latest_id("p1") == "later"
    store.insert("same moment", "p1", Round(CLASSIC, seed=4), created_at=20.0)
    assert store.latest_id("p1") == "same moment"
    store.update("earlier", ROUNDS["all_cards"](), score="won")  # a save is not a new deal
    assert store.latest_id("p1") == "same moment"
    assert store.latest_id("p2") == "someone else's"


# -- keeping the file bounded -----------------------------------------------------------------


def test_prune_removes_old_rounds_and_forgotten_players(store: Store) -> None:
    """Rounds untouched since the cut-off go, finished or not; a player untouched since theirs
    goes too unless a round of theirs is left; the counts of both are returned."""
    store.insert("old", "p1", Round(CLASSIC, seed=1), created_at=100.0)
    store.insert("old, finished", "p1", ROUNDS["all_cards"](), created_at=100.0)
    store.insert("recent", "p2", Round(CLASSIC, seed=2), created_at=300.0)
    store.players.set_house_rules("p1", {"war_down": 2})
    store.players.set_house_rules("p2", {"war_down": 3})
    store.players.set_house_rules("p3", {"war_down": 4})
    assert store.prune(rounds_before=200.0, players_before=0.0) == (2, 0)
    assert store.get("old") is None and store.get("old, finished") is None
    assert store.get("recent") is not None
    assert store.players.house_rules("p1") == {"war_down": 2}
    assert store.prune(rounds_before=200.0, players_before=time.time() + 60) == (0, 2)
    assert store.players.house_rules("p1") is None and store.players.house_rules("p3") is None
    assert store.players.house_rules("p2") == {"war_down": 3}  # their round is still there
    assert store.get("recent") is not None


def test_a_prune_that_fails_removes_nothing(store: Store) -> None:
    """Pruning is one transaction: when its second half fails, the rounds it removed are back."""
    store.insert("old", "p1", Round(CLASSIC, seed=1), created_at=100.0)
    with pytest.raises((sqlite3.Error, psycopg.Error)):
        store.prune(rounds_before=200.0, players_before=object())  # type: ignore[arg-type]  # a bad value on purpose
    assert store.get("old") is not None
    assert store.prune(rounds_before=200.0, players_before=0.0) == (1, 0)


# -- the file ---------------------------------------------------------------------------------


def test_the_file_is_private_and_made_where_asked(sqlite_files: Files) -> None:
    """The store makes missing folders and a file only its owner can read or write, in WAL mode;
    an existing file that others could read is made private again."""
    path = sqlite_files.folder / "nested" / "folders" / "cardwar.db"
    sqlite_files.open(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert query(path, "PRAGMA journal_mode") == [("wal",)]
    path.chmod(0o644)
    sqlite_files.open(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_files_secret_is_its_own_and_lasts(files: Files, store: Store) -> None:
    """Each file makes its own 32-byte key once and gives the same one back ever after."""
    secret = store.secret()
    assert len(secret) == 32
    assert store.secret() == secret
    assert files.reopen(store).secret() == secret
    assert files.open(files.folder / "other.db").secret() != secret


def test_a_fresh_file_is_sound(sqlite_store: Store) -> None:
    """SQLite's own check of a new file, and of one written to, says "ok"."""
    assert integrity(sqlite_store) == "ok"
    sqlite_store.insert("r1", "p1", ROUNDS["cycle"](), created_at=1.0)
    assert integrity(sqlite_store) == "ok"


def test_one_store_serves_many_threads(store: Store) -> None:
    """The store may be shared between threads: rounds written from workers are all there."""

    def deal_and_save(number: int) -> None:
        round_id = f"r{number}"
        store.insert(round_id, "p1", Round(CLASSIC, seed=number), created_at=float(number))
        store.update(round_id, ROUNDS["all_cards"](), score="won")

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(deal_and_save, range(20)))
    assert store.players.scoreboard("p1") == Scoreboard(won=20, lost=0, drawn=0)
    assert store.latest_id("p1") == "r19"


def test_a_closed_store_opens_again(files: Files, store: Store) -> None:
    """A closed store refuses work until it is opened again, then has everything it had;
    closing or opening twice is harmless."""
    store.insert("r1", "p1", ROUNDS["all_cards"](), created_at=1.0)
    store.close()
    store.close()
    with pytest.raises(StoreClosed, match="closed"):
        store.get("r1")
    store.open()
    store.open()
    assert store.get("r1") is not None


# -- matches ----------------------------------------------------------------------------------


def test_a_match_keeps_its_rules_its_rounds_and_its_winners(files: Files, store: Store) -> None:
    """A stored match comes back with its player, length, rules and seed, its rounds in the
    order dealt, and every round's winner so far; its rounds know their match."""
    rules = Rules.from_dict({"hand_size": 4}).to_dict()
    store.matches.insert("m1", "p1", 3, rules, seed=99, at=10.0)
    assert store.matches.get("m1") == MatchRow("m1", "p1", 3, rules, (), (), 99)
    store.insert("second", "p1", Round(CLASSIC, seed=2), created_at=30.0, match_id="m1")
    store.insert("first", "p1", Round(CLASSIC, seed=1), created_at=20.0, match_id="m1")
    store.insert("same moment", "p1", Round(CLASSIC, seed=3), created_at=30.0, match_id="m1")
    store.insert("alone", "p1", Round(CLASSIC, seed=4), created_at=25.0)
    store.update("first", ROUNDS["all_cards"](), match=MatchUpdate("m1", (0,), None))
    store = files.reopen(store)
    assert store.matches.get("m1") == MatchRow(
        "m1", "p1", 3, rules, (0,), ("first", "second", "same moment"), 99
    )
    first, alone = store.get("first"), store.get("alone")
    assert first is not None and first.match_id == "m1"
    assert alone is not None and alone.match_id is None
    assert store.matches.get("m2") is None


@pytest.mark.parametrize(("winner", "won", "lost"), [(0, 1, 0), (1, 0, 1), (None, 0, 0)])
def test_a_won_or_lost_match_counts_on_the_scoreboard(
    store: Store, winner: int | None, won: int, lost: int
) -> None:
    """The save that decides a match adds it to the player's matches won or lost, beside the
    round's own score; a save that decides nothing counts no match."""
    store.matches.insert("m1", "p1", 1, CLASSIC.to_dict(), seed=5, at=1.0)
    store.insert("r1", "p1", Round(CLASSIC, seed=1), created_at=1.0, match_id="m1")
    update = MatchUpdate("m1", (0,) if winner is None else (winner,), winner)
    store.update("r1", ROUNDS["all_cards"](), score="won", match=update)
    assert store.players.scoreboard("p1") == Scoreboard(1, 0, 0, matches_won=won, matches_lost=lost)
    match = store.matches.get("m1")
    assert match is not None and match.winners == update.winners


def test_a_match_with_no_player_counts_for_nobody(files: Files, store: Store) -> None:
    """A match dealt with no player behind it is kept and decided, and no scoreboard changes."""
    store.matches.insert("m1", None, 1, CLASSIC.to_dict(), seed=5, at=1.0)
    store.insert("r1", None, Round(CLASSIC, seed=1), created_at=1.0, match_id="m1")
    store.update("r1", ROUNDS["all_cards"](), match=MatchUpdate("m1", (0,), 0))
    match = store.matches.get("m1")
    assert match is not None and (match.player, match.winners) == (None, (0,))
    assert files.query("SELECT COUNT(*) FROM players") == [(0,)]


def test_prune_removes_old_matches_once_their_rounds_are_gone(store: Store) -> None:
    """A match untouched since the cut-off goes with its last round; a match with a round left,
    or touched since, stays."""
    for match_id, at in [("old", 100.0), ("old, round kept", 100.0), ("recent", 300.0)]:
        store.matches.insert(match_id, "p1", 3, CLASSIC.to_dict(), seed=1, at=at)
    store.insert("r-old", "p1", Round(CLASSIC, seed=1), created_at=100.0, match_id="old")
    store.insert(
        "r-kept", "p1", Round(CLASSIC, seed=2), created_at=300.0, match_id="old, round kept"
    )
    assert store.prune(rounds_before=200.0, players_before=0.0) == (1, 0)
    assert store.matches.get("old") is None
    assert store.matches.get("old, round kept") is not None
    assert store.matches.get("recent") is not None


def test_a_matchs_rounds_are_pruned_together(store: Store) -> None:
    """An old round of a match whose next round is still played stays (the match reads its
    progress from its rounds in order); once every round of it is old, they all go."""
    store.matches.insert("m", "p1", 3, CLASSIC.to_dict(), seed=1, at=100.0)
    store.insert("m-1", "p1", Round(CLASSIC, seed=1), created_at=100.0, match_id="m")
    store.insert("m-2", "p1", Round(CLASSIC, seed=2), created_at=300.0, match_id="m")
    assert store.prune(rounds_before=200.0, players_before=0.0) == (0, 0)
    assert store.get("m-1") is not None and store.matches.get("m") is not None
    assert store.prune(rounds_before=400.0, players_before=0.0) == (2, 0)
    assert store.get("m-1") is None and store.get("m-2") is None
    assert store.matches.get("m") is None


def test_a_players_match_length_is_kept(files: Files, store: Store) -> None:
    """A player's choice of match length comes back as chosen (one round until they choose),
    after a reopen too, and leaves their house rules and scoreboard as they were."""
    assert store.players.best_of("p1") == 1
    store.players.set_house_rules("p1", {"war_down": 2})
    store.players.set_best_of("p1", 3)
    store.players.set_best_of("p2", 5)
    assert store.players.best_of("p1") == 3
    store.players.set_best_of("p1", 5)
    store = files.reopen(store)
    assert (store.players.best_of("p1"), store.players.best_of("p2")) == (5, 5)
    assert store.players.house_rules("p1") == {"war_down": 2}
    store.players.set_house_rules("p1", {"war_down": 3})
    assert store.players.best_of("p1") == 5


def test_the_open_match_is_the_latest_one_while_undecided(store: Store) -> None:
    """A player's open match is the one they began last, until it is decided; an earlier
    match left undecided is not reopened, and nobody else's counts."""
    assert store.matches.open_id("p1") is None
    store.matches.insert("first", "p1", 3, CLASSIC.to_dict(), seed=1, at=10.0)
    store.matches.insert("someone else's", "p2", 3, CLASSIC.to_dict(), seed=2, at=30.0)
    assert store.matches.open_id("p1") == "first"
    store.matches.insert("second", "p1", 3, CLASSIC.to_dict(), seed=3, at=20.0)
    store.matches.insert("same moment", "p1", 3, CLASSIC.to_dict(), seed=4, at=20.0)
    assert store.matches.open_id("p1") == "same moment"
    store.insert("r1", "p1", Round(CLASSIC, seed=1), created_at=20.0, match_id="same moment")
    store.update("r1", ROUNDS["all_cards"](), match=MatchUpdate("same moment", (0,), None))
    assert store.matches.open_id("p1") == "same moment"
    store.update("r1", ROUNDS["all_cards"](), match=MatchUpdate("same moment", (0, 0), 0))
    assert store.matches.open_id("p1") is None
    assert store.matches.open_id("p2") == "someone else's"


def test_a_save_from_a_round_played_elsewhere_meanwhile_writes_nothing(
    files: Files, store: Store
) -> None:
    """Two processes on one database: a save that says where the row stood when it was read
    (`since`) is refused (RoundMoved) once another process has written the row since, and
    changes nothing, its scores neither."""
    store.insert("r1", "p1", Round(CLASSIC, seed=3), created_at=1.0)
    assert store.round_state("r1") == (0, 0)
    elsewhere = files.open()  # the other process
    ahead = Round(CLASSIC, seed=3)
    ahead.play(5)
    elsewhere.update("r1", ahead, since=(0, 0))
    assert store.round_state("r1") == (5, 0)
    behind = Round(CLASSIC, seed=3)
    behind.play(1)
    with pytest.raises(RoundMoved):
        store.update("r1", behind, score="won", since=(0, 0))
    assert store.round_state("r1") == (5, 0)
    assert store.players.scoreboard("p1") == Scoreboard(won=0, lost=0, drawn=0)
    assert store.round_state("missing") is None


def test_a_write_from_behind_a_held_round_finds_it_moved(files: Files, store: Store) -> None:
    """While one process holds a round's row (`round_locked`) and writes it, another's write
    from where the row stood before, whether it comes meanwhile (it waits for the row) or
    after, finds it moved and writes nothing."""
    store.insert("r1", "p1", Round(CLASSIC, seed=3), created_at=1.0)
    elsewhere = files.open()
    first, second = Round(CLASSIC, seed=3), Round(CLASSIC, seed=3)
    first.play(2)
    second.play(1)
    outcome: list[str] = []
    held = threading.Event()

    def other() -> None:
        held.wait(30)
        try:
            elsewhere.update("r1", second, since=(0, 0))
            outcome.append("written")
        except RoundMoved:
            outcome.append("moved")

    thread = threading.Thread(target=other)
    thread.start()
    with store.round_locked("r1"):
        held.set()
        store.update("r1", first, since=(0, 0))
    thread.join(30)
    assert outcome == ["moved"] and store.round_state("r1") == (2, 0)
