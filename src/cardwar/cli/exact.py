"""`cardwar simulate --enumerate`: every deal of a small deck, on every core or a Dask cluster,
with its progress and the time it has left, stopped by Ctrl+C between two batches and resumed
from `--checkpoint FILE` (the work is in `sim.exact.job`; this parses, shows and prints)."""

from __future__ import annotations

import json
import re
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from cardwar.cli.progress import progress_bar
from cardwar.cli.shared import (
    OptionError,
    print_line,
    record_line,
    rows_of_endings,
)  # the same rows as a random run's
from cardwar.rules import Rules
from cardwar.sim.exact.checkpoint import Checkpoint, Job
from cardwar.sim.exact.deck import SmallDeck, check_rules, mirrors_once
from cardwar.sim.exact.job import run_job
from cardwar.sim.exact.results import ExactResults
from cardwar.text import seat_names

STOPPED = 130  # the exit status of a run stopped by Ctrl+C, as a shell gives


def parse_range(text: str | None, deck: SmallDeck) -> tuple[int, int]:
    """`--sequences FIRST:STOP` (either may be left out) within the deck's sequences."""
    total = deck.sequences
    if text is None:
        return 0, total
    match = re.fullmatch(r"\s*(\d*)\s*:\s*(\d*)\s*", text)
    if match is None:
        raise OptionError(f"--sequences {text!r}: write a range FIRST:STOP, such as 0:1000000")
    first = int(match[1]) if match[1] else 0
    stop = int(match[2]) if match[2] else total
    if not 0 <= first < stop <= total:
        raise OptionError(
            f"--sequences {text}: must be within 0:{total} ({deck} has {total:,} sequences), "
            "FIRST before STOP"
        )
    return first, stop


def job_of(
    rules: Rules, deck: SmallDeck, sequences: str | None, every_sequence: bool, records: int | None
) -> Job:
    """The job the options name: the deck, the rules, `--sequences` of it, mirrors or not, and
    the longest deals kept."""
    check_rules(rules)
    first, stop = parse_range(sequences, deck)
    return Job(deck, rules, first, stop, every_sequence, records or 1)


@contextmanager
def ctrl_c_stops() -> Iterator[list[bool]]:
    """While inside, Ctrl+C asks the run to stop (it looks between batches) rather than breaking
    off a batch; a second Ctrl+C breaks off at once."""
    asked = [False]

    def ask(signum: int, frame: object) -> None:
        if asked[0]:
            raise KeyboardInterrupt
        asked[0] = True

    try:
        previous = signal.signal(signal.SIGINT, ask)
    except ValueError:  # not the main thread (a test's): no signal handling there
        yield asked
        return
    try:
        yield asked
    finally:
        signal.signal(signal.SIGINT, previous)


def exact_command(
    out: Console,
    rules: Rules,
    deck: SmallDeck,
    *,
    as_json: bool = False,
    dask: str | None = None,
    workers: int | None = None,
    sequences: str | None = None,
    every_sequence: bool = False,
    records: int | None = None,
    checkpoint: Path | None = None,
    device: str = "cpu",
) -> int:
    """Play every deal of `deck` (or the range `sequences` of its sequences) and print what they
    came to; returns the exit status (130 if stopped by Ctrl+C, the checkpoint kept)."""
    job = job_of(rules, deck, sequences, every_sequence, records)
    if device == "cuda":
        on_gpu(deck, dask)
    kept = Checkpoint.open(job, checkpoint)
    started = time.perf_counter()
    what = f"Dealing every {deck} deal"
    with ctrl_c_stops() as asked, progress_bar(job.sequences, what, kept.sequences_done) as advance:
        if device == "cuda":
            from cardwar.sim.exact.gpu import run_gpu_job

            run_gpu_job(kept, progress=advance, stopping=lambda: asked[0])
        else:
            run_job(kept, workers=workers, dask=dask, progress=advance, stopping=lambda: asked[0])
    found = kept.found
    assert found is not None
    if not kept.complete:
        left = job.sequences - kept.sequences_done
        resume = (
            f"; the same command resumes it from {checkpoint}"
            if checkpoint is not None
            else " (nothing kept: --checkpoint FILE keeps a run to resume)"
        )
        sys.stderr.write(
            f"cardwar: stopped with {kept.sequences_done:,} of {job.sequences:,} sequences done, "
            f"{left:,} left{resume}\n"
        )
        return STOPPED
    where = "dask" if dask is not None else workers
    show(out, job, found, kept.seconds, time.perf_counter() - started, where, as_json=as_json,
         records=records, device=device)  # fmt: skip
    return 0


def on_gpu(deck: SmallDeck, dask: str | None) -> None:
    """Refuse `--device cuda` where it cannot run, each in one line: no CUDA device here, a
    Dask cluster asked for too, or a deck the GPU kernel does not play. `numba.cuda` is
    imported only here, when the GPU is asked for."""
    from cardwar.sim.exact.gpu import check_packed, require_cuda

    if dask is not None:
        raise OptionError("--device cuda: plays on this machine's GPU, not with --dask")
    check_packed(deck)
    require_cuda()


def show(
    out: Console,
    job: Job,
    found: ExactResults,
    seconds: float,
    wall_seconds: float,
    workers: int | str | None,
    *,
    as_json: bool,
    records: int | None,
    device: str = "cpu",
) -> None:
    """Print what a whole job came to: a table (and the replay command of each longest deal
    when `records` were asked for), or one JSON object."""
    rules, deck = job.rules, job.deck
    summary: dict[str, Any] = {
        "rules": rules.to_dict(),
        **found.to_dict(),
        "sequences": [job.first, job.stop],
        "mirrors_once": mirrors_once(rules, deck, job.every_sequence),
        "workers": workers,
        "device": device,
        "seconds": round(seconds, 3),
        "wall_seconds": round(wall_seconds, 3),
        "deals_per_second": round(found.deals / seconds) if seconds > 0 else None,
    }
    if records is not None:
        summary["records"] = found.records()
    if as_json:
        print_line(out, json.dumps(summary))
        return
    out.print(exact_table(summary, deck))
    for number, record in enumerate(summary.get("records", []), 1):
        out.print(record_line(number, record, rules, f"deal {record['index']:,}"), soft_wrap=True)


def exact_table(summary: dict[str, Any], deck: SmallDeck) -> Table:
    """What every deal came to, as a Rich table."""
    whole = list(summary["sequences"]) == [0, deck.sequences]
    part = "" if whole else f" (sequences {summary['sequences'][0]:,}:{summary['sequences'][1]:,})"
    table = Table(title=f"cardwar simulate · every deal of a {deck} deck{part}", show_header=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    label = "deals (a deal and its mirror once)" if summary["mirrors_once"] else "deals"
    table.add_row(label, f"{summary['deals']:,}")
    table.add_row("deals that loop for ever", f"{summary['cycles']:,}")
    loops = ", ".join(
        f"{c['loops']:,} of {c['length']} battles ({c['deals']:,} deals)"
        for c in summary["loop_lengths"]
    )
    table.add_row("distinct loops", loops or "none")

    rows_of_endings(table, summary, seat_names(2), summary["ended"])
    longest = summary["longest"]
    if longest is not None:
        table.add_row(
            "longest deal",
            f"{longest['battles']} battles, {longest['wars']} wars: {_deal(longest['deal'])}",
        )
    most = summary["most_turned_up"]
    if most is not None:
        table.add_row(
            "most cards turned up",
            f"{most['turned_up']} ({most['battles']} battles + {most['wars']} wars): "
            f"{_deal(most['deal'])}",
        )
    table.add_row("seconds", f"{summary['seconds']:,.2f}")
    return table


def _deal(piles: list[list[str]]) -> str:
    return " / ".join(" ".join(pile) for pile in piles)
