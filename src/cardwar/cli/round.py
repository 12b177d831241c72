"""`cardwar round`: play one round on the readable engine and print it battle by battle."""

from __future__ import annotations

import argparse
import json
import secrets
import textwrap
from typing import Any

from rich.console import Console

from cardwar.cli.shared import chosen_rules, load_json, print_line, rules_help
from cardwar.engine import MAX_SEED, Round
from cardwar.persist import round_json
from cardwar.rules import PRESETS
from cardwar.text import describe_battle, describe_outcome, plural, seat_names


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
    rules = chosen_rules(preset, rules_json)
    deal = None if deal_json is None else load_json("--deal", deal_json)
    if seed is None:
        seed = 0 if deal is not None else secrets.randbelow(MAX_SEED + 1)
    round_ = Round(rules, seed=seed, deal=deal)
    battles = round_.play()
    if as_json:
        print_line(out, json.dumps({"id": None, **round_json(round_)}))  # the API's shape
        return 0
    names = seat_names(rules.players)
    source = "explicit deal" if deal is not None else f"seed {seed}"
    print_line(out, f"cardwar round · {preset} · {source}")
    for battle in battles:
        print_line(out, describe_battle(battle, names))
    assert round_.outcome is not None  # play() runs to the end
    print_line(out, describe_outcome(round_.outcome, names, round_.battles))
    print_line(out, f"{plural(round_.battles, 'battle')}, {plural(round_.wars, 'war')}.")
    return 0


def add_parser(commands: Any) -> None:
    """`cardwar round` and its options, among the `commands` of `cardwar`."""
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
    play.set_defaults(run=run)


def run(out: Console, args: argparse.Namespace) -> int:
    """`cardwar round` with the options parsed."""
    return play_round(
        out,
        preset=args.preset,
        rules_json=args.rules,
        seed=args.seed,
        deal_json=args.deal,
        as_json=args.json,
    )
