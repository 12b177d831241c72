"""`cardwar simulate`: the command line's adapter for the fast simulator (parsing is in
`cardwar.cli`; the work is in `sim.run`, `sim.exhaustive` and `sim.cluster`; this prints)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from cardwar.cli.shared import chosen_rules, load_json, print_line
from cardwar.engine import MAX_SEED
from cardwar.errors import CardwarError, DealError, RulesError
from cardwar.rules import Rules
from cardwar.sim.exhaustive import Exhaustive, SmallDeck, play_every_deal
from cardwar.sim.run import DealPlayer, check_workers, simulate, workers_available
from cardwar.text import seat_names


@contextmanager
def progress_bar(total: int, what: str) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on standard error, so standard output stays clean for --json (Rich
    draws it only when standard error is a terminal)."""
    bar = Progress(
        TextColumn(f"[bold]{what}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(what, total=total)
        yield lambda done: bar.advance(task, done)


def simulate_command(
    out: Console,
    *,
    preset: str = "classic",
    rules_json: str | None = None,
    games: int = 100_000,
    seed: int | None = None,
    workers: int | None = None,
    as_json: bool = False,
    enumerate_deck: str | None = None,
    deals_file: Path | None = None,
    dask: str | None = None,
) -> int:
    """Run `cardwar simulate` and print what it found; returns the exit status."""
    rules = chosen_rules(preset, rules_json)
    workers = check_workers(workers if workers is not None else workers_available())
    if deals_file is not None:
        if dask is not None:
            raise CardwarError("--dask: shards --games and --enumerate runs, not --deals files")
        return play_deals_file(out, rules, deals_file, seed or 0)
    if enumerate_deck is not None:
        deck = SmallDeck.parse(enumerate_deck)
        if rules_json is None or "battle_limit" not in load_json("--rules", rules_json):
            rules = Rules.from_dict({"battle_limit": None}, base=rules)  # so loops show
        return enumerate_command(out, rules, deck, as_json, dask)
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    started = time.perf_counter()
    with progress_bar(games, "Playing rounds") as advance:
        if dask is not None:
            from cardwar.sim.cluster import simulate_on_dask

            tally = simulate_on_dask(dask, rules, games, seed, progress=advance)
        else:
            tally = simulate(rules, games, seed, workers=workers, progress=advance)
    seconds = time.perf_counter() - started
    summary: dict[str, Any] = {
        "rules": rules.to_dict(),
        "seed": seed,
        "workers": "dask" if dask is not None else workers,
        **tally.to_dict(rules.players),
        "seconds": round(seconds, 3),
        "battles_per_second": round(tally.total_battles / seconds) if seconds > 0 else None,
    }
    if as_json:
        print_line(out, json.dumps(summary))
    else:
        name = preset if rules.preset_name == preset else f"{preset} with house rules"
        title = f"cardwar simulate · {name} · seed {seed} · {games:,} rounds"
        out.print(summary_table(summary, seat_names(rules.players), title))
    return 0


def enumerate_command(
    out: Console, rules: Rules, deck: SmallDeck, as_json: bool, dask: str | None
) -> int:
    """Play every deal of `deck` and print what they came to."""
    started = time.perf_counter()
    with progress_bar(deck.sequences, f"Dealing every {deck} deal") as advance:
        if dask is not None:
            from cardwar.sim.cluster import enumerate_on_dask

            found: Exhaustive = enumerate_on_dask(dask, rules, deck, progress=advance)
        else:
            found = play_every_deal(rules, deck, progress=advance)
    summary = {"rules": rules.to_dict(), **found.to_dict()}
    summary["seconds"] = round(time.perf_counter() - started, 3)
    if as_json:
        print_line(out, json.dumps(summary))
        return 0
    table = Table(title=f"cardwar simulate · every deal of a {deck} deck", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_row("deals (a deal and its mirror once)", f"{summary['deals']:,}")
    table.add_row("deals that loop for ever", f"{summary['cycles']:,}")
    loops = ", ".join(f"{c['count']} of {c['length']} battles" for c in summary["distinct_cycles"])
    table.add_row("distinct loops", loops or "none")
    _rows_of_endings(table, summary, seat_names(2), summary["ended"])
    out.print(table)
    return 0


def play_deals_file(out: Console, rules: Rules, path: Path, seed: int) -> int:
    """Play each deal of a JSON-lines file; print one JSON result a line."""
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise RulesError(f"--deals {path}: cannot be read ({error.strerror})") from None
    player = DealPlayer(rules, seed)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            deal = load_json(f"--deals line {number}", line)
            result = player.play(deal)
        except CardwarError as error:
            raise DealError(f"--deals line {number}: {error}") from None
        print_line(
            out,
            json.dumps(
                {
                    "winner": result.winner,
                    "reason": result.reason.value,
                    "battles": result.battles,
                    "wars": result.wars,
                    "piles": [[card.code for card in pile] for pile in result.piles],
                }
            ),
        )
    return 0


def summary_table(summary: dict[str, Any], names: tuple[str, ...], title: str) -> Table:
    """A run's figures as a Rich table."""
    table = Table(title=title, show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    _rows_of_endings(table, summary, names, summary["games"])
    table.add_row("seconds", f"{summary['seconds']:.2f}")
    speed = summary["battles_per_second"]
    table.add_row("battles a second", f"{speed:,}" if speed is not None else "-")
    return table


def _rows_of_endings(
    table: Table, summary: dict[str, Any], names: tuple[str, ...], games: int
) -> None:
    def share(n: int) -> str:
        return f"{n:,} ({100 * n / games:.1f}%)" if games else "0"

    table.add_row("rounds", f"{games:,}")
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
