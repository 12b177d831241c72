"""The store's schema under Alembic (docs/deploy.md#upgrades): a database made by the cardwar
before Alembic upgrades in place with nothing lost, an up-to-date one is left alone without
loading Alembic, one made by a newer cardwar is refused untouched, and `cardwar db upgrade`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from cardwar.persist import from_history, resume
from cardwar.web.store import Store
from cardwar.web.store.engines import DatabaseError, where
from cardwar.web.store.schema import HEAD, MIGRATIONS, SchemaTooNew, upgrade

# Written by cardwar as of 684e5e3 (the last before Alembic) through its API, then dumped:
# four rounds (one played to its end, one at its battle limit), a best-of-3 match under way, a
# player with house rules (three down, best of 3) and a tally, a live table with a 10 s clock.
BEFORE_ALEMBIC = Path(__file__).parent / "data" / "before-alembic.sql"
PLAYER = "z3M6quTX1B3YVH10k1KWHg.hvYgW1dmZeu6KjzP"


def rows(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table of the file (alembic's own aside), as column: value."""
    with closing(sqlite3.connect(path)) as db:
        db.row_factory = sqlite3.Row
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {
            name: [dict(row) for row in db.execute(f"SELECT * FROM {name} ORDER BY rowid")]
            for name in sorted(names)
            if name != "alembic_version"
        }


def columns(path: Path) -> dict[str, set[str]]:
    """Each table's columns."""
    with closing(sqlite3.connect(path)) as db:
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: {c[1] for c in db.execute(f"PRAGMA table_info({n})")} for n in names}


def indexes(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as db:
        found = db.execute("SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL")
        return {row[0] for row in found}


def before_alembic(folder: Path) -> Path:
    """A fresh copy of the database made before Alembic."""
    path = folder / "before.db"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(BEFORE_ALEMBIC.read_text())
    return path


def revision_of(path: Path) -> str | None:
    with closing(sqlite3.connect(path)) as db:
        found = db.execute(
            "SELECT name FROM sqlite_master WHERE name = 'alembic_version'"
        ).fetchone()
        if found is None:
            return None
        return str(db.execute("SELECT version_num FROM alembic_version").fetchone()[0])


def test_head_is_the_newest_revision_and_the_revisions_are_one_line() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    scripts = ScriptDirectory.from_config(config)
    assert scripts.get_heads() == [HEAD]
    line = [script.revision for script in scripts.walk_revisions("base", "heads")]
    assert line == [f"{n:04}" for n in range(int(HEAD), 0, -1)]  # 0007 back to 0001, no branch


def test_a_database_from_before_alembic_upgrades_in_place_with_nothing_lost(
    tmp_path: Path,
) -> None:
    path = before_alembic(tmp_path)
    kept = rows(path)
    store = Store(path)
    try:
        assert revision_of(path) == HEAD
        # Every row there was is there, every value as it was (only the file's key is new).
        now = rows(path)
        assert [row for row in now["meta"] if row["key"] != "secret"] == kept["meta"]
        assert {table: now[table] for table in kept if table != "meta"} == {
            table: found for table, found in kept.items() if table != "meta"
        }
        # ... and the store reads them as the cardwar that wrote them did.
        ended = store.get("P5o2vljkMMWhEgAhHFVNFQ")
        assert ended is not None and ended.history["battles"] == 326
        assert ended.snapshot is not None and ended.match_id == "uDrP0zGNoMd9mxcqL0udxQ"
        replayed, resumed = from_history(ended.history), resume(ended.snapshot)
        assert replayed.outcome == resumed.outcome and resumed.outcome is not None
        assert resumed.outcome.winner == 0 and replayed.piles == resumed.piles
        board = store.players.scoreboard(PLAYER)
        assert (board.won, board.lost, board.drawn) == (1, 0, 1)
        assert [(p.name, p.won, p.drawn) for p in board.people] == [("You", 1, 1)]
        assert store.players.house_rules(PLAYER)["war_down"] == 3  # type: ignore[index]
        assert store.players.best_of(PLAYER) == 3
        match_id = store.matches.open_id(PLAYER)
        assert match_id == "uDrP0zGNoMd9mxcqL0udxQ"
        match = store.matches.get(match_id)
        assert match is not None and match.best_of == 3 and match.winners == (0,)
        table = store.live.get_table("pzpcqvFEpur6kqvEp_M_Yw")
        assert table is not None and table.clock_s == 10 and table.closed is None
        assert [seat.name for seat in table.seats] == ["Mia", ""]
        assert store.latest_id(PLAYER) == "P5o2vljkMMWhEgAhHFVNFQ"  # the live table's is its own
    finally:
        store.close()


def test_an_upgraded_database_has_the_shape_of_a_new_one(tmp_path: Path) -> None:
    """The revisions make a new database and bring an old one to the same tables, columns and
    indexes: the old one's tables were made by hand, the new one's by Alembic."""
    old, new = before_alembic(tmp_path), tmp_path / "new.db"
    for path in (old, new):
        Store(path).close()
    assert columns(old) == columns(new)
    assert indexes(old) == indexes(new)


def test_an_up_to_date_database_opens_without_alembic(tmp_path: Path) -> None:
    """Opening a store at HEAD reads its revision and loads no SQLAlchemy: half a second and
    tens of megabytes a server start does not spend."""
    path = tmp_path / "cardwar.db"
    Store(path).close()
    script = (
        "import sys; from cardwar.web.store import Store; "
        f"Store({str(path)!r}).close(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'sqlalchemy')))"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "[]"


def test_a_database_made_by_a_newer_cardwar_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "cardwar.db"
    Store(path).close()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE alembic_version SET version_num = '0099'")
    before = path.read_bytes()
    with pytest.raises(SchemaTooNew, match=r"schema revision '0099'.*newer cardwar"):
        Store(path)
    assert path.read_bytes() == before
    assert revision_of(path) == "0099"


def test_upgrading_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    path = before_alembic(tmp_path)
    assert upgrade(where(path)) == (None, HEAD)
    kept = rows(path)
    assert upgrade(where(path)) == (HEAD, HEAD)
    assert rows(path) == kept


def test_cardwar_db_upgrade_says_where_it_was_and_where_it_is(tmp_path: Path) -> None:
    path = before_alembic(tmp_path)
    cardwar = [sys.executable, "-m", "cardwar.cli", "db", "upgrade", "--db", str(path)]
    first = subprocess.run(cardwar, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert f"made before schema revisions, now at revision {HEAD}" in first.stdout
    again = subprocess.run(cardwar, capture_output=True, text=True)
    assert again.returncode == 0 and f"already at revision {HEAD}" in again.stdout
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE alembic_version SET version_num = '0099'")
    newer = subprocess.run(cardwar, capture_output=True, text=True)
    assert newer.returncode == 2
    assert "newer cardwar" in newer.stderr and "Traceback" not in newer.stderr


def test_a_new_postgresql_database_gets_every_revision_once_even_from_two_at_once(
    postgres: str,
) -> None:
    """Two processes starting at once on a new database: the upgrade lock lets one upgrade it,
    and the other finds it done."""
    cardwar = [sys.executable, "-m", "cardwar.cli", "db", "upgrade", "--db", postgres]
    both = [subprocess.Popen(cardwar, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    said = sorted(process.communicate()[0].split(": ")[-1].strip() for process in both)
    assert [process.returncode for process in both] == [0, 0]
    assert said == [f"a new database, now at revision {HEAD}", f"already at revision {HEAD}"]
    store = Store(postgres)
    try:
        with store.db.lock:  # the engine's own list of tables, on a connection of the pool
            tables = store.db.lock.connection.tables()
        assert {"rounds", "matches", "players", "people", "live_tables", "meta"} <= tables
        assert len(store.secret()) == 32
    finally:
        store.close()


def test_postgresql_fills_the_pages_of_rounds_half_full(postgres: str) -> None:
    """A click's new version of its round's row finds room on its page (docs/deploy.md)."""
    store = Store(postgres)
    try:
        found = store.db.execute(
            "SELECT reloptions FROM pg_class WHERE relname = 'rounds'"
            " AND relnamespace = current_schema()::regnamespace"
        ).fetchone()
    finally:
        store.close()
    assert found is not None and found[0] == ["fillfactor=50"]


def test_a_database_out_of_reach_is_named_and_nothing_is_made(tmp_path: Path) -> None:
    with pytest.raises(
        DatabaseError, match=r"postgresql://cardwar:\*\*\*@127\.0\.0\.1:1/x: cannot"
    ):
        Store("postgresql://cardwar:secret@127.0.0.1:1/x")
    with pytest.raises(DatabaseError, match="not a database cardwar can open"):
        (tmp_path / "notes.txt").write_text("not a database, but a file of words\n" * 100)
        Store(tmp_path / "notes.txt")


def test_a_postgresql_search_path_naming_no_schema_is_refused(postgres: str) -> None:
    missing = postgres.split("search_path%3D")[0] + "search_path%3Dno_such_schema_here"
    with pytest.raises(DatabaseError, match="no schema to keep the tables in"):
        Store(missing)
