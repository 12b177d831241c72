"""`cardwar db upgrade`: bring the database to this cardwar's schema, saying where it was and
where it is. `cardwar serve` does the same as it starts; this is for an operator who upgrades
before starting several processes (docs/deploy.md#upgrades)."""

from __future__ import annotations

import argparse
import textwrap
from contextlib import closing
from typing import Any

from rich.console import Console

from cardwar.cli.shared import print_line


def upgrade(out: Console, db: str | None) -> int:
    """Upgrade the database `db` names (the server's default when None) to the newest schema."""
    from cardwar.web.settings import default_db
    from cardwar.web.store.engines import where
    from cardwar.web.store.schema import upgrade as upgrade_schema

    place = where(db if db is not None else default_db())
    with closing(place.connect()) as connection:  # a database out of reach is named, first
        new = not connection.tables()
    before, after = upgrade_schema(place)
    if before == after:
        said = f"already at revision {after}"
    elif before is not None:
        said = f"was at revision {before}, now at revision {after}"
    elif new:
        said = f"a new database, now at revision {after}"
    else:
        said = f"made before schema revisions, now at revision {after}"
    print_line(out, f"cardwar: {place}: {said}")
    return 0


def add_parser(commands: Any) -> None:
    """`cardwar db` and its commands, among the `commands` of `cardwar`."""
    db = commands.add_parser(
        "db",
        help="look after the database",
        description="Look after the database the web game keeps its rounds in.",
    )
    actions = db.add_subparsers(dest="action", required=True, metavar="ACTION")
    up = actions.add_parser(
        "upgrade",
        help="bring the database to this cardwar's schema",
        description=textwrap.fill(
            "Bring the database to this cardwar's schema, keeping every row: a SQLite file or "
            "a PostgreSQL database, new, made by an older cardwar (before schema revisions "
            "too), or up to date already (then nothing changes). A database made by a newer "
            "cardwar is refused and left as it is. `cardwar serve` does this as it starts.",
            width=79,
        ),
    )
    up.add_argument(
        "--db",
        default=None,
        metavar="PATH|URL",
        help="a SQLite file, or a postgresql:// URL (default: $CARDWAR_DB or ./cardwar.db)",
    )
    up.set_defaults(run=run)


def run(out: Console, args: argparse.Namespace) -> int:
    """`cardwar db upgrade` with the options parsed."""
    return upgrade(out, args.db)
