"""`cardwar round`: play one round on the readable engine and print it battle by battle."""

from __future__ import annotations

import json
import secrets

from rich.console import Console

from cardwar.cli.shared import chosen_rules, load_json, print_line
from cardwar.engine import MAX_SEED, Round
from cardwar.persist import round_json
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
