"""The `cardwar` command: an adapter that parses arguments, calls the core and prints.

Each command is a module of its own (`round`, `serve`, `simulate`, `db`) that adds its subparser to
`build_parser` and says, with `set_defaults(run=...)`, what runs it: a typed function writing to
a Rich console, so tests can hand it a `Console(file=StringIO())`. The web stack and numba load
only when `serve` or `simulate` runs, so that `cardwar round` starts without them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console

from cardwar.cli import db as db_command
from cardwar.cli import round as round_command
from cardwar.cli import serve as serve_command
from cardwar.cli import simulate as simulate_command
from cardwar.cli.shared import flagged
from cardwar.errors import CardwarError

COMMANDS = (round_command, serve_command, simulate_command, db_command)


def build_parser() -> argparse.ArgumentParser:
    """Every command and option of `cardwar`."""
    parser = argparse.ArgumentParser(
        prog="cardwar",
        description="The card game War, done properly.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    """Run `cardwar` with `argv`; returns the exit status (2 for bad input)."""
    args = build_parser().parse_args(argv)
    out = console if console is not None else Console(highlight=False)
    try:
        status: int = args.run(out, args)
    except CardwarError as error:
        sys.stderr.write(f"cardwar: error: {flagged(error)}\n")
        return 2
    return status
