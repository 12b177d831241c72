"""`cardwar simulate --enumerate` with a shard file: a job played shard by shard into a file
(`--shard-file`, a piece of it with `--shards A:B`), shards played again to check their lines
(`--verify FILE --shard K` or `--sample N`), and files merged into the job's figures (`--merge`).
The work is in `sim.exact.shards` and `sim.exact.job`; this parses, shows and prints."""

from __future__ import annotations

import json
import random
import re
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from cardwar.cli.exact import STOPPED, ctrl_c_stops, show
from cardwar.cli.progress import progress_bar
from cardwar.cli.shared import OptionError, print_line
from cardwar.engine import MAX_SEED
from cardwar.sim.errors import ShardError
from cardwar.sim.exact.checkpoint import Job
from cardwar.sim.exact.job import play_shard, play_shards, shard_session
from cardwar.sim.exact.shards import ShardPlan, ShardSet, ShardWriter, figures, plan_of, sha256

MISMATCH = 1  # the exit status of a --verify that found a shard whose line is not what it plays


@dataclass(frozen=True, slots=True)
class ShardOptions:
    """The shard options of one `cardwar simulate --enumerate` command, as given."""

    file: Path | None = None
    size: int | None = None
    shards: str | None = None
    verify: Path | None = None
    shard: int | None = None
    sample: int | None = None
    merge: tuple[Path, ...] = ()
    seed: int | None = None

    @property
    def given(self) -> bool:
        """True if the command works with shard files at all."""
        return self.file is not None or self.verify is not None or bool(self.merge)

    def check(self, *, checkpoint: bool, dask: bool) -> None:
        """OptionError for options that do not go together."""
        modes = [
            flag
            for flag, on in (
                ("--checkpoint", checkpoint),
                ("--shard-file", self.file is not None),
                ("--verify", self.verify is not None),
                ("--merge", bool(self.merge)),
            )
            if on
        ]
        if len(modes) > 1:
            raise OptionError(f"{modes[1]}: does not go with {modes[0]}; give one of them")
        if self.shards is not None and self.file is None:
            raise OptionError(
                "--shards: picks the shards a run writes, so it goes with --shard-file"
            )
        if self.size is not None and not self.given:
            raise OptionError("--shard-size: goes with --shard-file, --verify or --merge")
        for flag, value in (("--shard", self.shard), ("--sample", self.sample)):
            if value is not None and self.verify is None:
                raise OptionError(f"{flag}: says which shards --verify plays again")
        if self.verify is not None and (self.shard is None) == (self.sample is None):
            raise OptionError("--verify: give --shard K (one shard) or --sample N (N at random)")
        if dask and (self.verify is not None or self.merge):
            raise OptionError("--dask: --verify and --merge work on this machine")


def shard_command(
    out: Console,
    job: Job,
    options: ShardOptions,
    *,
    workers: int | None,
    dask: str | None,
    as_json: bool,
    records: int | None,
) -> int:
    """Run the job into a shard file, verify shards of one, or merge files; the exit status."""
    if options.verify is not None:
        return verify_command(out, job, options, workers=workers, as_json=as_json)
    if options.merge:
        shards = ShardSet.read(_plan(job, options.size), options.merge)
        found = shards.merged(", ".join(map(str, options.merge)))
        show(out, job, found, shards.seconds, 0.0, None, as_json=as_json, records=records)
        return 0
    assert options.file is not None
    return run_into_file(
        out, job, options.file, options, workers=workers, dask=dask, as_json=as_json,
        records=records,
    )  # fmt: skip


def run_into_file(
    out: Console,
    job: Job,
    path: Path,
    options: ShardOptions,
    *,
    workers: int | None,
    dask: str | None,
    as_json: bool,
    records: int | None,
) -> int:
    """Play the shards of the job (or `--shards A:B` of them) that the file at `path` does not
    hold yet, a line each; then print the whole job's figures if the file holds every shard."""
    plan = plan_of(job, options.size, [path])
    numbers = parse_shards(options.shards, plan)
    writer = ShardWriter(plan, path)
    if writer.mended:
        sys.stderr.write(f"cardwar: {path}: its last line was cut short; its shard plays again\n")
    spans = [plan.span(number) for number in numbers]
    total = sum(stop - first for first, stop in spans)
    done = sum(
        stop - first for number, (first, stop) in zip(numbers, spans, strict=True)
        if number in writer.shards.lines
    )  # fmt: skip
    started = time.perf_counter()
    what = f"Dealing every {job.deck} deal, shard by shard"
    try:
        with ctrl_c_stops() as asked, progress_bar(total, what, done) as advance:
            play_shards(
                writer, numbers, workers=workers, dask=dask, progress=advance,
                stopping=lambda: asked[0],
            )  # fmt: skip
    finally:
        writer.close()
    shards = writer.shards
    left = [number for number in numbers if number not in shards.lines]
    if left:
        sys.stderr.write(
            f"cardwar: stopped with {len(numbers) - len(left):,} of {len(numbers):,} shards in "
            f"{path}, {len(left):,} left; the same command resumes it\n"
        )
        return STOPPED
    missing = shards.missing()
    if not missing:
        found = shards.merged(str(path))
        wall = time.perf_counter() - started
        where = "dask" if dask is not None else workers
        show(out, job, found, shards.seconds, wall, where, as_json=as_json, records=records)
        return 0
    held = len(plan.numbers) - len(missing)
    if as_json:
        piece = [numbers[0], numbers[-1] + 1]  # parse_shards gives at least one shard
        kept = {"shard_file": str(path), "shards": piece, "held": held, "of": len(plan.numbers)}
        print_line(out, json.dumps(kept))
    else:
        print_line(
            out,
            f"{path}: holds {held:,} of the job's {len(plan.numbers):,} shards; --merge with "
            "the files of its other shards prints the whole job",
        )
    return 0


def verify_command(
    out: Console, job: Job, options: ShardOptions, *, workers: int | None, as_json: bool
) -> int:
    """Play shards of a file again and say, shard by shard, whether each matches its line:
    0 if all do, MISMATCH if one does not, STOPPED if Ctrl+C stopped it."""
    assert options.verify is not None
    path = options.verify
    shards = ShardSet.read(_plan(job, options.size), [path])
    plan = shards.plan
    seed = options.seed
    if options.shard is not None:
        plan.span(options.shard)  # a shard the job does not have is named as such
        if options.shard not in shards.lines:
            raise ShardError(f"shard file {path}: holds no line for shard {options.shard}")
        picked = [options.shard]
    else:
        assert options.sample is not None
        if not shards.lines:
            raise ShardError(f"shard file {path}: holds no shard to verify")
        seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
        count = min(options.sample, len(shards.lines))
        picked = sorted(random.Random(seed).sample(sorted(shards.lines), count))
    session = shard_session(plan, workers)
    total = sum(stop - first for first, stop in map(plan.span, picked))
    verdicts: list[dict[str, Any]] = []
    what = f"Playing {len(picked)} shards again" if len(picked) > 1 else "Playing the shard again"
    with ctrl_c_stops() as asked, progress_bar(total, what) as advance:
        for number in picked:
            found, _ = play_shard(session, plan, number, advance, lambda: asked[0])
            if found is None:
                sys.stderr.write(
                    f"cardwar: stopped with {len(verdicts)} of {len(picked)} verified\n"
                )
                return STOPPED
            verdicts.append(_verdict(shards, number, figures(number, plan.span(number), found)))
    if as_json:
        print_line(out, json.dumps({"shard_file": str(path), "seed": seed, "verified": verdicts}))
    else:
        if seed is not None:
            print_line(
                out, f"{len(picked)} of {len(shards.lines):,} shards, picked with --seed {seed}"
            )
        for verdict in verdicts:
            print_line(out, _verdict_text(verdict))
    return 0 if all(verdict["matches"] for verdict in verdicts) else MISMATCH


def _verdict(shards: ShardSet, number: int, played: dict[str, Any]) -> dict[str, Any]:
    """Whether shard `number` as played again is its line, and the first figure that is not."""
    line = shards.lines[number]
    written = figures(number, line.span, line.found)
    differs = first_difference(written, played)
    return {
        "shard": number,
        "sequences": list(line.span),
        "deals": played["deals"],
        "matches": sha256(played) == line.sha256 and differs is None,
        "sha256": line.sha256,
        "played_sha256": sha256(played),
        "differs": None if differs is None else {
            "figure": differs[0], "line": differs[1], "played": differs[2],
        },
        "line": line.where,
    }  # fmt: skip


def first_difference(there: Any, here: Any, at: str = "") -> tuple[str, Any, Any] | None:
    """The first place where two JSON values differ, as a path (`tally.battles[18]`) and the
    value at it in each; None if they are equal."""
    if there == here:
        return None
    if isinstance(there, dict) and isinstance(here, dict):
        for key in [*there, *(key for key in here if key not in there)]:
            found = first_difference(there.get(key), here.get(key), f"{at}.{key}" if at else key)
            if found is not None:
                return found
    if isinstance(there, list) and isinstance(here, list) and len(there) == len(here):
        for index, (one, other) in enumerate(zip(there, here, strict=True)):
            found = first_difference(one, other, f"{at}[{index}]")
            if found is not None:
                return found
    return at, there, here


def _verdict_text(verdict: dict[str, Any]) -> str:
    first, stop = verdict["sequences"]
    what = f"shard {verdict['shard']} (sequences {first:,}:{stop:,}, {verdict['deals']:,} deals)"
    if verdict["matches"]:
        return f"{what}: matches its line, sha256 {verdict['sha256']}"
    differs = verdict["differs"]
    if differs is None:  # the same figures under another sha256: the hash alone was altered
        return f"{what}: does NOT match its line ({verdict['line']}): another sha256"
    there, here = (json.dumps(differs[key])[:60] for key in ("line", "played"))
    return (
        f"{what}: does NOT match its line ({verdict['line']}): {differs['figure']} "
        f"{there} there, {here} played"
    )


def parse_shards(text: str | None, plan: ShardPlan) -> list[int]:
    """`--shards A:B` (either may be left out): the job's shards A to B - 1."""
    numbers = plan.numbers
    if text is None:
        return list(numbers)
    match = re.fullmatch(r"\s*(\d*)\s*:\s*(\d*)\s*", text)
    if match is None:
        raise OptionError(f"--shards {text!r}: write a range of shard numbers A:B, such as 0:10")
    first = int(match[1]) if match[1] else numbers.start
    stop = int(match[2]) if match[2] else numbers.stop
    if not numbers.start <= first < stop <= numbers.stop:
        raise OptionError(
            f"--shards {text}: must be within {numbers.start}:{numbers.stop} (the job's shards, "
            f"{plan.size:,} sequences each), A before B"
        )
    return list(range(first, stop))


def _plan(job: Job, size: int | None) -> ShardPlan | Job:
    """The plan to read files for: the job with `--shard-size` if given, else the job alone
    (the files name their shard size)."""
    return job if size is None else ShardPlan(job, size)
