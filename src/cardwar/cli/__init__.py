"""The `cardwar` command: an adapter that parses arguments, calls the core and prints.

Parsing lives in `main.build_parser`; each command is a typed function in a module of its own
(`round`, `serve`, `simulate`) writing to a Rich console, so tests can hand it a
`Console(file=StringIO())`.
"""

from cardwar.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
