"""The store's schema and its migrations: the tables a file has, and how a file made by an
older cardwar is brought up to date in place, nothing lost (columns added, totals backfilled,
snapshots filled in). The queries are `tables.py`."""

from __future__ import annotations

import json
import sqlite3

from cardwar import persist
from cardwar.web.store.rows import ROW_COLUMNS, round_row

ROUNDS = """
CREATE TABLE IF NOT EXISTS rounds (
    id         TEXT PRIMARY KEY,
    player     TEXT,
    rules      TEXT    NOT NULL,
    seed       INTEGER NOT NULL,
    deal       TEXT,
    battles    INTEGER NOT NULL DEFAULT 0,
    time_up    INTEGER NOT NULL DEFAULT 0,
    winner     INTEGER,
    reason     TEXT,
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL,
    snapshot   TEXT
);
CREATE INDEX IF NOT EXISTS rounds_by_player ON rounds (player, created_at);
CREATE INDEX IF NOT EXISTS rounds_by_age ON rounds (updated_at);
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id         TEXT PRIMARY KEY,
    player     TEXT,
    best_of    INTEGER NOT NULL,
    rules      TEXT    NOT NULL,
    seed       INTEGER NOT NULL DEFAULT 0,
    winners    TEXT    NOT NULL DEFAULT '[]',
    winner     INTEGER,
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_by_age ON matches (updated_at);
CREATE INDEX IF NOT EXISTS matches_by_player ON matches (player, created_at);
"""
# One row a live table (`live.py`): its codes, the browser that opened it, and its state.
LIVE_TABLES = """
CREATE TABLE IF NOT EXISTS live_tables (
    code       TEXT PRIMARY KEY,
    watch      TEXT NOT NULL UNIQUE,
    host       TEXT NOT NULL,
    state      TEXT NOT NULL,
    closed     TEXT,
    created_at REAL NOT NULL,
    touched_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS live_tables_by_host ON live_tables (host, closed);
CREATE INDEX IF NOT EXISTS live_tables_by_age ON live_tables (touched_at);
CREATE INDEX IF NOT EXISTS rounds_by_live_table ON rounds (live_table);
"""
# Columns later versions added to tables an older file already has.
ADDED_COLUMNS = {
    "rounds": {
        "snapshot": "TEXT",
        "match_id": "TEXT",
        "cap": "INTEGER",
        "seats": "TEXT",
        "live_table": "TEXT",
    },
    "matches": {"seed": "INTEGER NOT NULL DEFAULT 0", "seats": "TEXT"},
    "players": {
        "matches_won": "INTEGER NOT NULL DEFAULT 0",
        "matches_lost": "INTEGER NOT NULL DEFAULT 0",
        "best_of": "INTEGER NOT NULL DEFAULT 1",
        "seats": "TEXT",
    },
}
PLAYERS = """
CREATE TABLE players (
    id          TEXT PRIMARY KEY,
    house_rules TEXT,
    won         INTEGER NOT NULL DEFAULT 0,
    lost        INTEGER NOT NULL DEFAULT 0,
    drawn       INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL    NOT NULL,
    matches_won  INTEGER NOT NULL DEFAULT 0,
    matches_lost INTEGER NOT NULL DEFAULT 0,
    best_of      INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX players_by_age ON players (updated_at);
"""
# A file from before players had totals counted its scoreboards from the rounds themselves.
BACKFILL = """
INSERT INTO players (id, won, lost, drawn, updated_at)
SELECT player, SUM(winner IS NOT NULL AND winner = 0), SUM(winner IS NOT NULL AND winner != 0),
       SUM(reason IS NOT NULL AND winner IS NULL), MAX(updated_at)
FROM rounds WHERE player IS NOT NULL GROUP BY player
"""
# A tally per person's name (`key`: the name case aside, `name`: as last written), per browser.
PEOPLE = """
CREATE TABLE people (
    player TEXT    NOT NULL,
    key    TEXT    NOT NULL,
    name   TEXT    NOT NULL,
    won    INTEGER NOT NULL DEFAULT 0,
    lost   INTEGER NOT NULL DEFAULT 0,
    drawn  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player, key)
);
"""
# A file from before names had only "You" at seat 0: its scoreboards are You's tallies.
PEOPLE_BACKFILL = """
INSERT INTO people (player, key, name, won, lost, drawn)
SELECT id, 'you', 'You', won, lost, drawn FROM players WHERE won + lost + drawn > 0
"""


def migrate(db: sqlite3.Connection) -> None:
    """Create the tables a new file needs, and bring an older file's up to date."""
    db.executescript(ROUNDS)
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    if "players" not in tables:
        db.executescript(f"BEGIN; {PLAYERS}; {BACKFILL}; COMMIT;")
    for table, added in ADDED_COLUMNS.items():
        columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for column, kind in added.items():
            if column not in columns:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    if "people" not in tables:
        db.executescript(f"BEGIN; {PEOPLE}; {PEOPLE_BACKFILL}; COMMIT;")
    db.executescript(LIVE_TABLES)
    fill_snapshots(db)


def fill_snapshots(db: sqlite3.Connection) -> None:
    """Give every round of a file from before snapshots its snapshot, rebuilt once here, so
    that no request ever has to replay one."""
    rows = db.execute(f"SELECT {ROW_COLUMNS} FROM rounds WHERE snapshot IS NULL").fetchall()
    for row in rows:
        snapshot = persist.snapshot(persist.from_history(round_row(row).history))
        db.execute("UPDATE rounds SET snapshot = ? WHERE id = ?", (json.dumps(snapshot), row[0]))
