"""The `cardwar` command: an adapter that parses arguments, calls the core and prints.

Parsing lives in `build_parser`; each command is a typed function writing to a Rich console,
so tests can hand it a `Console(file=StringIO())`.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from cardwar.engine import MAX_SEED, Round
from cardwar.errors import CardwarError, RulesError
from cardwar.rules import PRESETS, Rules, describe_fields
from cardwar.text import describe_battle, describe_outcome, plural, seat_names


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"{port} is out of range, must be 1..65535")
    return port


PRESET_HELP = {
    "classic": "the seed's table: 1 down, a player short of cards loses, a draw at 500 battles",
    "traditional": "3 down (W-A-R), a player short fights on with the last card, no limit",
    "peace": "classic, but the lowest card wins",
    "timed": "traditional with a 10-minute clock; then the biggest pile wins",
    "short": "classic with 13 cards each",
}
FIELD_HELP = {
    "players": "players at the table, you first",
    "hand_size": "cards dealt to each (null: the deck shared out; at most 52 // players)",
    "war_down": "cards face down in a war (3 spells W-A-R)",
    "shortage": "a war player short of cards loses the round, or fights on with the last card",
    "battle_limit": "battles before the round stops (null: no limit)",
    "limit_outcome": "at the battle limit: a draw, or the biggest pile wins",
    "time_limit_s": "seconds on the clock (null: no clock); then the biggest pile wins",
    "low_wins": "Peace: the lowest card wins",
    "gather": "the order won cards go under the winner's pile",
}


def rules_help() -> str:
    """The presets and rule fields, with the values each allows, for `cardwar round --help`."""
    lines = ["presets (--preset):"]
    lines += [f"  {name:<12} {PRESET_HELP[name]}" for name in PRESETS]
    lines += ["", "rule fields (--rules JSON), classic value in brackets:"]
    for name, field in describe_fields().items():
        if "choices" in field:
            allowed = " | ".join(json.dumps(choice) for choice in field["choices"])
        else:
            allowed = f"{field['min']}..{field['max']}"
        if field["nullable"]:
            allowed = f"null or {allowed}"
        lines.append(f"  {name:<14} {allowed} [{json.dumps(field['default'])}]")
        lines.append(f"  {'':<14} {FIELD_HELP[name]}")
    lines += ["", "docs/rules.md tells every rule as a player meets it at the table."]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """Every command and option of `cardwar`."""
    parser = argparse.ArgumentParser(
        prog="cardwar",
        description="The card game War, done properly.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser(
        "round",
        help="play one round and print it battle by battle",
        description=textwrap.fill(
            "Play one round of War on the readable engine and print every battle, then the "
            "outcome. The command plays instantly, so a timed round's clock never runs out: "
            "it ends by its other rules.",
            width=79,
        ),
        epilog=rules_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument(
        "--preset",
        default="classic",
        choices=list(PRESETS),
        help="the named rule set to start from (default: classic)",
    )
    play.add_argument(
        "--rules",
        metavar="JSON",
        help="rule fields that override the preset, as JSON: '{\"war_down\": 3}'",
    )
    source = play.add_mutually_exclusive_group()
    source.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="seed of the random deal (default: a fresh random seed, printed so you can replay)",
    )
    source.add_argument(
        "--deal",
        metavar="JSON",
        help='an explicit deal, one pile per seat, top card first: \'[["9S","2C"],["9H","3C"]]\'',
    )
    play.add_argument(
        "--json",
        action="store_true",
        help="print the finished round as one JSON object, in the HTTP API's shape",
    )

    serve = commands.add_parser(
        "serve",
        help="start the web game",
        description=(
            "Start the web game: you against the computer in your browser. Rounds and the "
            "scoreboard are kept in one SQLite file; nothing leaves this machine."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (8000)")
    serve.add_argument(
        "--db",
        type=Path,
        default=None,
        metavar="PATH",
        help="the SQLite file for rounds and scores (default: $CARDWAR_DB or ./cardwar.db)",
    )
    return parser


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    """Run `cardwar` with `argv`; returns the exit status (2 for bad input)."""
    args = build_parser().parse_args(argv)
    out = console if console is not None else Console(highlight=False)
    try:
        if args.command == "serve":
            return serve(out, host=args.host, port=args.port, db=args.db)
        if args.command == "round":
            return play_round(
                out,
                preset=args.preset,
                rules_json=args.rules,
                seed=args.seed,
                deal_json=args.deal,
                as_json=args.json,
            )
    except CardwarError as error:
        sys.stderr.write(f"cardwar: error: {error}\n")
        return 2
    raise AssertionError(f"unhandled command {args.command!r}")  # argparse allows no other


def _load_json(option: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RulesError(
            f"{option}: not valid JSON ({error.msg} at character {error.pos})"
        ) from None


def play_round(
    out: Console,
    *,
    preset: str = "classic",
    rules_json: str | None = None,
    seed: int | None = None,
    deal_json: str | None = None,
    as_json: bool = False,
) -> int:
    """Play one whole round and print it: every battle, then the outcome (or one JSON object)."""
    rules = Rules.preset(preset)
    if rules_json is not None:
        rules = Rules.from_dict(_load_json("--rules", rules_json), base=rules)
    deal = None if deal_json is None else _load_json("--deal", deal_json)
    if seed is None:
        seed = 0 if deal is not None else secrets.randbelow(MAX_SEED + 1)
    round_ = Round(rules, seed=seed, deal=deal)
    battles = round_.play()
    if as_json:
        _line(out, json.dumps(round_.to_dict()))
        return 0
    names = seat_names(rules.players)
    source = "explicit deal" if deal is not None else f"seed {seed}"
    _line(out, f"cardwar round · {preset} · {source}")
    for battle in battles:
        _line(out, describe_battle(battle, names))
    assert round_.outcome is not None  # play() runs to the end
    _line(out, describe_outcome(round_.outcome, names, round_.battles))
    _line(out, f"{plural(round_.battles, 'battle')}, {plural(round_.wars, 'war')}.")
    return 0


def serve(out: Console, *, host: str, port: int, db: Path | None) -> int:
    """Run the web game until interrupted, after saying where to open it."""
    import uvicorn  # imported here so `cardwar round` starts without the web stack

    from cardwar.web import Settings, create_app

    settings = Settings() if db is None else Settings(db_path=db)
    app = create_app(settings)
    shown = f"[{host}]" if ":" in host else host
    _line(out, f"cardwar: open http://{shown}:{port} in your browser (Ctrl+C stops the server)")
    _line(out, f"cardwar: rounds are kept in {settings.db_path.resolve()}")
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
    return 0


def _line(out: Console, text: str) -> None:
    # Plain text, never wrapped or highlighted: transcripts and JSON must survive a pipe intact.
    out.print(text, markup=False, highlight=False, soft_wrap=True)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
