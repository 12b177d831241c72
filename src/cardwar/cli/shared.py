"""What the commands share: reading JSON options, the rules they name, checking option values,
and printing a line."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from cardwar.errors import CardwarError
from cardwar.rules import PRESETS, Rules, describe_fields

# The flag of each field a library error may open its message with.
FLAGS = {
    "hands": "--hands",
    "records": "--records",
    "deck": "--enumerate",
    "dask": "--dask",
    "checkpoint": "--checkpoint",
    "deals": "--deals",
    "rounds": "--rounds",
    "workers": "--workers",
    "every_sequence": "--every-sequence",
    "device": "--device",
}


class OptionError(CardwarError):
    """Options of a command that do not go together, or an option's value it cannot read."""


def flagged(error: CardwarError) -> str:
    """The error's message for the command line: a field it opens with named by its flag
    (`hands: ...` is `--hands: ...`)."""
    message = str(error)
    field = re.match(r"[a-z_]+", message)
    if field is not None and field[0] in FLAGS and message[field.end() :][:1] in (":", " "):
        return FLAGS[field[0]] + message[field.end() :]
    return message


def load_json(option: str, text: str) -> Any:
    """The JSON value of an option; an OptionError naming the option if it is not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise OptionError(
            f"{option}: not valid JSON ({error.msg} at character {error.pos})"
        ) from None


def chosen_rules(preset: str, rules_json: str | None) -> Rules:
    """A preset with the fields of `--rules` laid over it."""
    return Rules.choose(preset, None if rules_json is None else load_json("--rules", rules_json))


def print_line(out: Console, text: str) -> None:
    """Print `text` as it is: never wrapped or highlighted, so that transcripts and JSON
    survive a pipe intact."""
    out.print(text, markup=False, highlight=False, soft_wrap=True)


def whole(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`."""

    def check(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range, must be {low}..{high}")
        return value

    return check


def days(text: str) -> float:
    """An argparse type: a number of days, over 0 (at most a hundred years)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of days") from None
    if not 0 < value <= 36_500:
        raise argparse.ArgumentTypeError(f"{text[:40]} is out of range, must be over 0")
    return value


def seconds_up_to(most: float) -> Callable[[str], float]:
    """An argparse type: a number of seconds from 0 to `most`."""

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number of seconds") from None
        if not 0 <= value <= most:  # NaN too
            raise argparse.ArgumentTypeError(f"{text[:40]} is out of range, must be 0..{most:g}")
        return value

    return check


def port(text: str) -> int:
    """An argparse type: a TCP port number, 1..65535."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 < number < 65536:
        raise argparse.ArgumentTypeError(f"{number} is out of range, must be 1..65535")
    return number


def rows_of_endings(
    table: Table, summary: dict[str, Any], names: tuple[str, ...], rounds: int
) -> None:
    """The rows of a run's outcomes, endings, battles and wars, as every table of results shows
    them (`rounds` the rounds that ended)."""

    def share(n: int) -> str:
        return f"{n:,} ({100 * n / rounds:.1f}%)" if rounds else "0"

    table.add_row("rounds", f"{rounds:,}")
    for seat, name in enumerate(names):
        table.add_row(f"won by {name}", share(summary["wins"][seat]))
    table.add_row("drawn", share(summary["draws"]))
    for reason, count in summary["reasons"].items():
        if count:
            table.add_row(f"  ended {reason}", share(count))
    for key, label in (("battles", "battles a round"), ("wars_per_round", "wars a round")):
        figures = summary[key]
        if figures["mean"] is not None:
            table.add_row(
                label,
                f"mean {figures['mean']:.1f} · median {figures['median']} · "
                f"90% at most {figures['p90']} · most {figures['max']}",
            )


def record_line(number: int, record: dict[str, Any], rules: Rules, where: str) -> str:
    """One of the longest rounds (`where`: which round or deal of the run), and the command
    that plays it again on the readable engine. With won cards shuffled the engine draws its
    own luck, so its round starts from the same deal but may go otherwise: the line says so."""
    again = json.dumps(record["deal"], separators=(",", ":"))
    rules_json = json.dumps(rules.to_dict(), separators=(",", ":"))
    line = (
        f"{number}. {record['battles']:,} battles, {record['wars']:,} wars, "
        f"{record['reason']} ({where}): cardwar round --rules '{rules_json}' --deal '{again}'"
    )
    if rules.gather == "shuffled":
        line += " (the same deal; with won cards shuffled, not the same round)"
    return line


class OldName(argparse.Action):
    """An option's old spelling (`--games` for `--rounds`): it does what the new one does, and
    says on standard error that it is old. Hidden from `--help`."""

    def __init__(self, option_strings: Sequence[str], dest: str, new: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        old, new = option_string, self.new
        sys.stderr.write(f"cardwar: {old} is the old name of {new}: it works, but say {new} now\n")
        setattr(namespace, self.dest, values)


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
