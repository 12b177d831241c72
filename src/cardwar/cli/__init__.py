"""The `cardwar` command: an adapter that parses arguments, calls the core and prints.

Parsing lives here, in `build_parser`; each command is a typed function in a module of its own
(`round`, `serve`, `simulate`) writing to a Rich console, so tests can hand it a
`Console(file=StringIO())`. `serve` and `simulate` are imported only when asked for, so that
`cardwar round` starts without the web stack or numba.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from cardwar.cli.round import play_round
from cardwar.cli.shared import OldName, days, flagged, port, whole
from cardwar.engine import MAX_SEED
from cardwar.errors import CardwarError
from cardwar.rules import PRESETS, describe_fields
from cardwar.sim import MAX_RECORDS
from cardwar.web.settings import Settings

SERVER = Settings()  # the server's defaults, which `cardwar serve --help` shows

PRESET_HELP = {
    "classic": "the classic table: 1 down, a player short of cards loses, a draw at 500 battles",
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
    "gather": "the order won cards go under the winner's pile (natural: picked up as they lie)",
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
        description=textwrap.fill(
            "Start the web game in your browser: you against the computer, or people at one "
            "device. It prepares the simulator before it answers (a first run compiles it). "
            "Rounds, house rules and scoreboards are kept in one SQLite file, readable by you "
            "only; nothing leaves this machine. The server protects itself: it ends every round "
            f"at a safety cap of battles, reads no body over {SERVER.max_body // 1024} KB, "
            "answers only to its own addresses, limits how fast each browser deals new rounds, "
            "and removes rounds nobody has touched for a while. SIGTERM or Ctrl+C stops it "
            "within 10 seconds, losing no answered battle.",
            width=79,
        ),
    )
    serve.add_argument(
        "--host",
        default=SERVER.listen_host,
        help=f"address to listen on (default: {SERVER.listen_host}, this computer only); "
        "0.0.0.0 lets other devices on your network play, and is warned about",
    )
    serve.add_argument(
        "--port", type=port, default=SERVER.port, help=f"port to listen on ({SERVER.port})"
    )
    serve.add_argument(
        "--db",
        type=Path,
        default=None,
        metavar="PATH",
        help="the SQLite file for rounds and scores (default: $CARDWAR_DB or ./cardwar.db)",
    )
    serve.add_argument(
        "--max-battles",
        type=whole(1, Settings.max_cap),
        default=SERVER.max_battles,
        metavar="N",
        help="safety cap: end every round after N battles, even one whose rules have no "
        f"battle limit, as a battle-limit ending (default: {SERVER.max_battles})",
    )
    serve.add_argument(
        "--keep-days",
        type=days,
        default=SERVER.keep_days,
        metavar="DAYS",
        help="remove rounds, finished or abandoned, that nobody has touched for DAYS days; "
        f"scoreboards keep their totals (default: {SERVER.keep_days:g})",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests addressed to NAME (a host name this computer is reached "
        "by); may be given more than once",
    )

    sim = commands.add_parser(
        "simulate",
        help="play many rounds on the fast simulator and sum them up",
        description=textwrap.fill(
            "Play many rounds on the fast simulator, a second implementation of the rules held "
            "round by round to the readable engine, on every core; a progress bar while it runs, "
            "then a table of outcomes, endings, battles and wars a round (or one JSON object with "
            "--json). A seed gives the same figures on any machine. --enumerate plays every deal "
            "of a small deck instead, and --deals the deals in a file. Rounds take no time here, "
            "so a clock never runs out.",
            width=79,
        ),
        epilog=rules_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument(
        "--preset", default="classic", choices=list(PRESETS), help="rules to start from (classic)"
    )
    sim.add_argument("--rules", metavar="JSON", help="rule fields that override the preset")
    sim.add_argument(
        "--rounds",
        type=whole(1, 10**12),
        default=100_000,
        metavar="N",
        help="rounds to play, each on its own random deal (default: 100000)",
    )
    sim.add_argument(
        "--games", dest="rounds", type=whole(1, 10**12), action=OldName, new="--rounds",
        help=argparse.SUPPRESS,
    )  # fmt: skip
    sim.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        metavar="S",
        help="seed of the run (default: a fresh random seed, printed so you can run it again)",
    )
    sim.add_argument(
        "--workers",
        type=whole(1, 1024),
        metavar="N",
        help="threads to play on (default: every core of this machine)",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    kind = sim.add_mutually_exclusive_group()
    kind.add_argument(
        "--enumerate",
        metavar="RANKSxSUITS",
        help="play every deal of a small deck once instead, such as 8x1 or 4x3 (a deal and its "
        "mirror once where they are the same game); with no battle limit unless --rules sets "
        "one, so loops show",
    )
    kind.add_argument(
        "--deals",
        type=Path,
        metavar="FILE",
        help="play the deals in FILE instead, one JSON deal a line (one pile per seat, top card "
        "first), and print one JSON result a line",
    )
    sim.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="spread the run over the Dask cluster at ADDRESS (needs cardwar[dask]); the same "
        "result as here for the same seed",
    )
    sim.add_argument(
        "--hands",
        metavar="JSON",
        help="the cards each seat starts with, one entry per seat, each a list of card codes or "
        '"rest" (the cards no other seat names): \'[["AS","AH","AD","AC"], "rest"]\'; every '
        "round deals them, each seat's in a fresh random order",
    )
    sim.add_argument(
        "--records",
        type=whole(1, MAX_RECORDS),
        metavar="K",
        help="also print the K longest rounds, each with its deal, which cardwar round --deal "
        "plays again (with shuffled returns, from the same deal but with its own shuffles)",
    )
    sim.add_argument(
        "--checkpoint",
        type=Path,
        metavar="FILE",
        help="with --enumerate: keep the run in FILE as it goes; Ctrl+C stops it between two "
        "batches, and the same command resumes it where it stopped",
    )
    sim.add_argument(
        "--sequences",
        metavar="FIRST:STOP",
        help="with --enumerate: only the deck's rank sequences FIRST to STOP - 1, in "
        "lexicographic order (a shard of the job)",
    )
    sim.add_argument(
        "--every-sequence",
        action="store_true",
        help="with --enumerate: play every sequence, mirrors too (a deal and its mirror are "
        "otherwise played once where they are the same game)",
    )
    return parser


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    """Run `cardwar` with `argv`; returns the exit status (2 for bad input)."""
    args = build_parser().parse_args(argv)
    out = console if console is not None else Console(highlight=False)
    try:
        if args.command == "serve":
            from cardwar.cli.serve import serve  # the web stack loads only when asked

            return serve(
                out,
                host=args.host,
                port=args.port,
                db=args.db,
                max_battles=args.max_battles,
                keep_days=args.keep_days,
                allow_hosts=args.allow_host,
            )
        if args.command == "simulate":
            from cardwar.cli.simulate import simulate_command  # numba loads only when asked

            return simulate_command(
                out,
                preset=args.preset,
                rules_json=args.rules,
                rounds=args.rounds,
                seed=args.seed,
                workers=args.workers,
                as_json=args.json,
                enumerate_deck=args.enumerate,
                deals_file=args.deals,
                dask=args.dask,
                hands_json=args.hands,
                records=args.records,
                checkpoint=args.checkpoint,
                sequences=args.sequences,
                every_sequence=args.every_sequence,
            )
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
        sys.stderr.write(f"cardwar: error: {flagged(error)}\n")
        return 2
    raise AssertionError(f"unhandled command {args.command!r}")  # argparse allows no other
