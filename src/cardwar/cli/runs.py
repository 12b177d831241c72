"""The work of `cardwar simulate`: the command line's adapter for the fast simulator (its options
are `cli.simulate`; the work is in `sim.runs.run` and `sim.runs.cluster`; this prints).
`--enumerate` is `cli.exact`; `--deals` is `play_deals_file` below, over `sim.runs.deals`."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from cardwar.cli.exact import exact_command, job_of
from cardwar.cli.progress import progress_bar
from cardwar.cli.shards import ShardOptions, shard_command
from cardwar.cli.shared import (
    OptionError,
    chosen_rules,
    load_json,
    print_line,
    record_line,
    rows_of_endings,
)
from cardwar.engine import MAX_SEED
from cardwar.rules import Rules
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.runs.deals import play_deal_lines
from cardwar.sim.runs.hands import Hands
from cardwar.sim.runs.run import (
    check_records,
    check_workers,
    records_of,
    simulate,
    workers_available,
)
from cardwar.text import seat_names


def simulate_command(
    out: Console,
    *,
    preset: str = "classic",
    rules_json: str | None = None,
    rounds: int = 100_000,
    seed: int | None = None,
    workers: int | None = None,
    as_json: bool = False,
    enumerate_deck: str | None = None,
    deals_file: Path | None = None,
    dask: str | None = None,
    hands_json: str | None = None,
    records: int | None = None,
    checkpoint: Path | None = None,
    sequences: str | None = None,
    every_sequence: bool = False,
    shards: ShardOptions | None = None,
    device: str = "cpu",
) -> int:
    """Run `cardwar simulate` and print what it found; returns the exit status."""
    shards = shards or ShardOptions()
    rules = chosen_rules(preset, rules_json)
    workers = check_workers(workers if workers is not None else workers_available())
    if records is not None:  # argparse has refused 0 (`whole(1, MAX_RECORDS)`)
        check_records(records)
    enumerating = enumerate_deck is not None
    for option, given in (
        ("--checkpoint", checkpoint is not None),
        ("--sequences", sequences is not None),
        ("--every-sequence", every_sequence),
        ("--shard-file", shards.file is not None),
        ("--shard-size", shards.size is not None),
        ("--shards", shards.shards is not None),
        ("--verify", shards.verify is not None),
        ("--shard", shards.shard is not None),
        ("--sample", shards.sample is not None),
        ("--merge", bool(shards.merge)),
        ("--device", device != "cpu"),
    ):
        if given and not enumerating:
            raise OptionError(f"{option}: belongs with --enumerate")
    if deals_file is not None:
        for option, value in (("--dask", dask), ("--hands", hands_json), ("--records", records)):
            if value is not None:
                raise OptionError(
                    f"{option}: is for --rounds and --enumerate runs, not --deals files"
                )
        return play_deals_file(out, rules, deals_file, seed or 0, workers)
    if enumerating:
        if hands_json is not None:
            raise OptionError(
                "--hands: deals the given hands at random; --enumerate deals them all"
            )
        deck = SmallDeck.parse(enumerate_deck or "")
        if rules_json is None or "battle_limit" not in load_json("--rules", rules_json):
            rules = Rules.from_dict({"battle_limit": None}, base=rules)  # so loops show
        shards.check(checkpoint=checkpoint is not None, dask=dask is not None)
        if shards.given:
            if device != "cpu":
                raise OptionError("--device cuda: plays with --checkpoint, not with shard files")
            job = job_of(rules, deck, sequences, every_sequence, records)
            return shard_command(
                out, job, shards, workers=workers, dask=dask, as_json=as_json, records=records
            )
        return exact_command(
            out, rules, deck, as_json=as_json, dask=dask, workers=workers, sequences=sequences,
            every_sequence=every_sequence, records=records, checkpoint=checkpoint, device=device,
        )  # fmt: skip
    return play_random_rounds(
        out, rules, preset=preset, rounds=rounds, seed=seed, workers=workers, as_json=as_json,
        dask=dask, hands_json=hands_json, records=records,
    )  # fmt: skip


def play_random_rounds(
    out: Console,
    rules: Rules,
    *,
    preset: str,
    rounds: int,
    seed: int | None,
    workers: int,
    as_json: bool,
    dask: str | None,
    hands_json: str | None,
    records: int | None,
) -> int:
    """`cardwar simulate` of random rounds: play them here or on a Dask cluster, then print
    their figures (and their longest rounds) as a table or one JSON object."""
    hands = (
        None if hands_json is None else Hands.parse(load_json("--hands", hands_json), rules.players)
    )
    if seed is None:
        seed = secrets.randbelow(MAX_SEED + 1)
    started = time.perf_counter()
    with progress_bar(rounds, "Playing rounds") as advance:
        if dask is not None:
            from cardwar.sim.runs.cluster import simulate_on_dask

            tally = simulate_on_dask(
                dask, rules, rounds, seed, hands=hands, records=records or 0, progress=advance
            )
        else:
            tally = simulate(
                rules, rounds, seed, workers=workers, progress=advance, hands=hands,
                records=records or 0,
            )  # fmt: skip
    seconds = time.perf_counter() - started
    summary: dict[str, Any] = {
        "rules": rules.to_dict(),
        "seed": seed,
        "workers": "dask" if dask is not None else workers,
        **({} if hands is None else {"hands": hands.to_json()}),
        **tally.to_dict(rules.players),
        "seconds": round(seconds, 3),
        "battles_per_second": round(tally.total_battles / seconds) if seconds > 0 else None,
    }
    if records is not None:
        summary["records"] = records_of(rules, seed, tally, hands)
    if as_json:
        print_line(out, json.dumps(summary))
    else:
        name = preset if rules.preset_name == preset else f"{preset} with house rules"
        title = f"cardwar simulate · {name} · seed {seed} · {rounds:,} rounds"
        if hands is not None:
            title += " · given hands"
        out.print(summary_table(summary, seat_names(rules.players), title))
        for number, record in enumerate(summary.get("records", []), 1):
            out.print(
                record_line(number, record, rules, f"round {record['game']:,}"), soft_wrap=True
            )
    return 0


def play_deals_file(out: Console, rules: Rules, path: Path, seed: int, workers: int) -> int:
    """Play each deal of a JSON-lines file on every core; print one JSON result a line."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise OptionError(f"--deals {path}: cannot be read ({error.strerror})") from None
    play_deal_lines(rules, data, out.file.write, seed=seed, workers=workers)
    out.file.flush()
    return 0


def summary_table(summary: dict[str, Any], names: tuple[str, ...], title: str) -> Table:
    """A run's figures as a Rich table."""
    table = Table(title=title, show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    rows_of_endings(table, summary, names, summary["rounds"])
    table.add_row("seconds", f"{summary['seconds']:.2f}")
    speed = summary["battles_per_second"]
    table.add_row("battles a second", f"{speed:,}" if speed is not None else "-")
    return table
