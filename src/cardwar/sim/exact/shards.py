"""A job cut into shards, and the shard file that certifies what each shard came to.

A job's sequences (`Job`: a deck, rules, a range of sequences, mirrors once or not, records) are
cut into shards of a fixed size counted from sequence 0: shard K covers the sequences
`K * size` .. `(K + 1) * size - 1`, clipped to the job's range, so that the same job has the same
shards on any machine, whichever of them plays which.

A shard file is JSON lines. The first is the header, naming the job:

    {"kind": "cardwar simulate --enumerate shards", "format": 1, "job": {...}, "shard_size": N}

and then one line a finished shard, in the order they finished (any order is as good):

    {"shard": K, "sequences": [FIRST, STOP], "deals": ..., "ended": ..., "cycles": ...,
     "loops": [{"name": [W0, W1], "length": ..., "deals": ..., "first_deal": ...}, ...],
     "tally": {...}, "most_turned_up": [TURNED, INDEX, BATTLES, WARS],
     "sha256": "...", "seconds": ...}

`loops` holds every loop the shard's deals fall into, named as `ExactResults` names them (the
two words of its smallest position); `tally` is what the deals that ended came to, exactly
(`Tally.state`: counters, the histograms of battles and wars a round, the rounds longer than
them, the longest deals kept); `most_turned_up` is `ExactResults.turned`. `sha256` is the SHA-256
of every other field but `seconds` (the time, which no replay gives again) written canonically:
`json.dumps(figures, sort_keys=True, separators=(",", ":"))`. Lines add up exactly, in any
order, into the figures of the job played in one piece.

Reading a file checks every line: its figures hash to its `sha256`, they add up (the deals are
those that ended and those that loop, the sequences those of shard K of this job), and no shard
comes twice, in one file or over several. A header may be repeated as it is, so that files
joined end to end (`cat`) read as one. Replaying a shard (`--verify`) checks that its figures are
true: a line altered and hashed again is found there. A final line cut short (a run stopped
while it wrote) is refused when reading, and cut off when a run resumes the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from cardwar.sim.errors import ShardError
from cardwar.sim.exact.checkpoint import Job, differs
from cardwar.sim.exact.kernels import every_deal as E
from cardwar.sim.exact.results import ExactResults
from cardwar.sim.tally import Tally

KIND = "cardwar simulate --enumerate shards"
FORMAT = 1
SHARD_SIZE = 1_000_000_000
"""Sequences a shard unless told otherwise: about three minutes of two cores on 5x4 natural at
its start, where every sequence is played (fewer later, where mirrors are skipped)."""
UNTIMED = ("sha256", "seconds")  # the fields of a line that are not its figures


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """A job and the size of its shards: which shards it has, and which sequences each covers."""

    job: Job
    size: int = SHARD_SIZE

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ShardError(f"shard_size {self.size}: must be at least 1")

    @property
    def numbers(self) -> range:
        """The job's shards, by number."""
        return range(self.job.first // self.size, -(-self.job.stop // self.size))

    def span(self, number: int) -> tuple[int, int]:
        """The sequences (first, stop) of shard `number`; ShardError if the job has none such."""
        if number not in self.numbers:
            raise ShardError(f"shard {number}: this job's shards are {_span_text(self.numbers)}")
        return (
            max(self.job.first, number * self.size),
            min(self.job.stop, (number + 1) * self.size),
        )

    def header(self) -> dict[str, Any]:
        """The first line of the job's shard file."""
        return {"kind": KIND, "format": FORMAT, "job": self.job.to_dict(), "shard_size": self.size}


def figures(number: int, span: tuple[int, int], found: ExactResults) -> dict[str, Any]:
    """What shard `number` (the sequences `span`) came to, as the JSON values its line holds."""
    loops = found.loops
    return {
        "shard": number,
        "sequences": list(span),
        "deals": found.deals,
        "ended": found.ended.rounds,
        "cycles": found.cycles,
        "loops": [
            {
                "name": [int(row[E.L_NAME0]), int(row[E.L_NAME1])],
                "length": int(row[E.L_LENGTH]),
                "deals": int(row[E.L_DEALS]),
                "first_deal": int(row[E.L_FIRST]),
            }
            for row in loops
        ],
        "tally": found.ended.state(),
        "most_turned_up": [int(n) for n in found.turned],
    }


def sha256(figures: dict[str, Any]) -> str:
    """The SHA-256 (hex) of a shard's figures in their canonical form."""
    text = json.dumps(figures, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def shard_line(number: int, span: tuple[int, int], found: ExactResults, seconds: float) -> str:
    """The line of a finished shard, hashed, without its newline."""
    kept = figures(number, span, found)
    return json.dumps({**kept, "sha256": sha256(kept), "seconds": round(seconds, 3)})


@dataclass
class ShardLine:
    """One shard's line, read and checked: its figures and where it was read."""

    number: int
    span: tuple[int, int]
    found: ExactResults
    sha256: str
    seconds: float
    where: str
    """The file and line it was read from, for messages."""


def read_line(plan: ShardPlan, data: Any, where: str) -> ShardLine:
    """A shard's line checked: its figures hash to its `sha256` and add up, and its sequences are
    its shard's in this job (ShardError naming the line and the shard otherwise)."""
    if not isinstance(data, dict) or type(data.get("shard")) is not int:  # not a bool either
        raise ShardError(f"{where}: not a shard's line (no shard number)")
    number = data["shard"]
    named = f"{where}: shard {number}"
    kept = {key: value for key, value in data.items() if key not in UNTIMED}
    if data.get("sha256") != sha256(kept):
        raise ShardError(f"{named}: its figures do not hash to its sha256 (the line was altered)")
    span = plan.span(number) if number in plan.numbers else None
    if span is None or kept.get("sequences") != list(span):
        raise ShardError(
            f"{named}: sequences {kept.get('sequences')} there, but shard {number} of this job "
            f"is {list(span) if span else 'not one of its shards'}"
        )
    try:
        found = ExactResults(
            plan.job.deck,
            Tally.from_state(kept["tally"]),
            np.array(
                [
                    [*loop["name"], loop["length"], loop["deals"], loop["first_deal"]]
                    for loop in kept["loops"]
                ],
                np.int64,
            ).reshape(-1, E.LOOP),
            [int(n) for n in kept["most_turned_up"]],
            span[1] - span[0],
        )
        seconds = float(data.get("seconds", 0.0))
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError) as error:
        raise ShardError(f"{named}: damaged, it cannot be read ({error!r})") from None
    again = figures(number, span, found)
    if again != kept:
        wrong = next(key for key in {**kept, **again} if kept.get(key) != again.get(key))
        raise ShardError(f"{named}: figures that do not add up ({wrong} is not what the rest say)")
    return ShardLine(number, span, found, str(data["sha256"]), seconds, where)


@dataclass
class ShardSet:
    """The shards of a job read from one or more shard files, each checked, none twice."""

    plan: ShardPlan
    lines: dict[int, ShardLine] = field(default_factory=dict)

    @classmethod
    def read(cls, plan: ShardPlan | Job, paths: Iterable[Path]) -> ShardSet:
        """Every line of the files at `paths`, for the job `plan` (a Job alone: the shard size
        is the first file's); ShardError naming the file, the line and the shard if a header is
        another job's, a line is altered or cut short, or a shard comes twice."""
        shards: ShardSet | None = None
        for path in paths:
            header, rows = _lines_of(path)
            found = check_header(plan, header, path)
            if shards is None:
                shards = cls(found)
            elif found != shards.plan:
                raise ShardError(
                    f"shard file {path}: shards of {found.size:,} sequences, not "
                    f"{shards.plan.size:,} as in the files before it"
                )
            for at, text in rows:
                shards.put(
                    _parse(text, f"shard file {path}, line {at}"), f"shard file {path}, line {at}"
                )
        if shards is None:
            raise ShardError("shard file: none given")
        return shards

    def add(self, line: ShardLine) -> None:
        """Add a line read elsewhere; ShardError if its shard is here already."""
        if line.number in self.lines:
            raise ShardError(
                f"{line.where}: shard {line.number} is repeated "
                f"({self.lines[line.number].where} has it too)"
            )
        self.lines[line.number] = line

    def put(self, data: Any, where: str) -> ShardLine:
        """Check a line's JSON value and add it."""
        line = read_line(self.plan, data, where)
        self.add(line)
        return line

    def missing(self) -> list[int]:
        """The job's shards no line holds, in order."""
        return [number for number in self.plan.numbers if number not in self.lines]

    @property
    def sequences_done(self) -> int:
        """Sequences of the job in the shards held."""
        return sum(line.span[1] - line.span[0] for line in self.lines.values())

    @property
    def seconds(self) -> float:
        """The seconds the shards held took to play, added up."""
        return sum(line.seconds for line in self.lines.values())

    def merged(self, where: str) -> ExactResults:
        """The figures of the whole job, exactly as one run gives them; ShardError naming the
        missing shards (of `where`, the files read) if any is."""
        missing = self.missing()
        if missing:
            raise ShardError(
                f"{where}: shard{'s' if len(missing) > 1 else ''} {_span_text(missing)} missing "
                f"({len(missing):,} of the job's {len(self.plan.numbers):,})"
            )
        whole = ExactResults(self.plan.job.deck)
        whole.ended.keep = self.plan.job.records
        for number in sorted(self.lines):
            whole.add(self.lines[number].found)
        return whole


def check_header(plan: ShardPlan | Job, header: Any, path: Path) -> ShardPlan:
    """The plan a file's header names, if its job is `plan`'s (and its shard size, where `plan`
    has one); ShardError naming what differs otherwise."""
    where = f"shard file {path}"
    if not isinstance(header, dict) or header.get("kind") != KIND:
        raise ShardError(f"{where}: not a shard file of this command (its first line says not)")
    if header.get("format") != FORMAT:
        raise ShardError(f"{where}: format {header.get('format')}, this cardwar reads {FORMAT}")
    job = plan.job if isinstance(plan, ShardPlan) else plan
    mine, written = job.to_dict(), header.get("job")
    if not isinstance(written, dict):
        raise ShardError(f"{where}: its header names no job")
    for key in ("deck", "rules", "sequences", "every_sequence", "records"):
        if written.get(key) != mine[key]:
            label = key.replace("_", " ")
            raise ShardError(
                f"{where}: written for another {label} ({differs(written.get(key), mine[key])}); "
                "give the options of the job it was written for, or another file"
            )
    size = header.get("shard_size")
    if not isinstance(size, int) or size < 1:
        raise ShardError(f"{where}: its header names no shard size")
    if isinstance(plan, ShardPlan) and size != plan.size:
        raise ShardError(
            f"{where}: written for another shard size ({size:,} there, {plan.size:,} here)"
        )
    return ShardPlan(job, size)


class ShardWriter:
    """A shard file open for a run to add its finished shards to, one line each, on disk (flushed
    and synced) before the next shard starts. One run writes a file at a time: runs on several
    machines write a file each, and those are read together."""

    def __init__(self, plan: ShardPlan, path: Path) -> None:
        """Open the file at `path` for `plan`'s job: a new one with its header, or one written
        before, every line checked (a last line cut short is cut off, `mended` says so);
        ShardError if another run holds it open for writing."""
        self.path = path
        self.mended = False
        exists = path.exists()
        try:
            self._file: IO[str] = path.open("a", encoding="ascii")
        except OSError as error:
            raise ShardError(f"shard file {path}: cannot be written ({error.strerror})") from None
        try:
            _lock(self._file, path)
            if exists:
                self.mended = _cut_short_line_off(path)
                self.shards = ShardSet.read(plan, [path])
            else:
                self.shards = ShardSet(plan)
                self._append(json.dumps(plan.header()))
        except BaseException:
            self._file.close()
            raise

    @property
    def plan(self) -> ShardPlan:
        """The job and shard size the file is for."""
        return self.shards.plan

    def _append(self, text: str) -> None:
        """Write a line, on disk before this returns."""
        try:
            self._file.write(text + "\n")
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as error:
            raise ShardError(
                f"shard file {self.path}: cannot be written ({error.strerror})"
            ) from None

    def write(self, number: int, found: ExactResults, seconds: float) -> None:
        """Write shard `number`'s line, on disk before this returns."""
        span = self.plan.span(number)
        text = shard_line(number, span, found, seconds)
        where = f"shard file {self.path}, the line written for shard {number}"
        self.shards.put(json.loads(text), where)  # held to the same checks as a line read
        self._append(text)

    def close(self) -> None:
        """Close the file."""
        self._file.close()


def _lock(file: IO[str], path: Path) -> None:
    """Hold the file for this run alone while it is open (an advisory lock, which the system
    lets go when the run ends, however it ends): two runs appending to one file would play the
    same shards twice, and its lines would be refused as repeated."""
    if sys.platform == "win32":  # no flock there; one run a file is then the user's care
        return
    import fcntl

    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ShardError(
            f"shard file {path}: another run is writing it; wait for it to end (a piece of the "
            "job on another machine goes in a file of its own)"
        ) from None


def plan_of(job: Job, size: int | None, paths: list[Path]) -> ShardPlan:
    """The plan of `job` with shards of `size`, or of the size the first existing file at
    `paths` names (SHARD_SIZE for a new file)."""
    if size is not None:
        return ShardPlan(job, size)
    for path in paths:
        if path.exists():
            header, _ = _lines_of(path, header_only=True)
            return check_header(job, header, path)
    return ShardPlan(job)


def _lines_of(path: Path, *, header_only: bool = False) -> tuple[Any, list[tuple[int, str]]]:
    """A file's header (parsed) and its other lines (numbered from 1, as text), headers repeated
    as they are left out; ShardError if it cannot be read or a line is cut short."""
    where = f"shard file {path}"
    try:
        with path.open(encoding="ascii") as file:
            text = file.readline() if header_only else file.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not a text file of JSON lines"
        raise ShardError(f"{where}: cannot be read ({reason})") from None
    lines = text.split("\n")
    if not lines[0]:
        raise ShardError(f"{where}: empty, not a shard file")
    header = _parse(lines[0], f"{where}, line 1")
    if lines[-1]:  # text that does not end with a newline: its last line was cut short
        if header_only:
            return header, []
        raise ShardError(
            f"{where}, line {len(lines)}: cut short (a run stopped while writing it); the "
            "run's own command cuts it off and plays its shard again"
        )
    rows = [
        (at, line) for at, line in enumerate(lines[1:-1], 2) if line.strip() and line != lines[0]
    ]
    return header, rows


def _parse(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise ShardError(f"{where}: not JSON ({error})") from None


def _cut_short_line_off(path: Path) -> bool:
    """Cut off a last line with no newline (`_lines_of` refuses it): the line of a shard whose
    run stopped while writing it, to be played again. True if there was one."""
    try:
        with path.open("rb+") as file:
            text = file.read()
            if not text or text.endswith(b"\n"):
                return False
            end = text.rfind(b"\n") + 1
            if end == 0:
                raise ShardError(f"shard file {path}: its header is cut short, not a shard file")
            file.truncate(end)
    except OSError as error:
        raise ShardError(f"shard file {path}: cannot be written ({error.strerror})") from None
    return True


def _span_text(numbers: Iterable[int]) -> str:
    """Numbers as runs: `0..3, 7, 9..12`."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][1] == number - 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return ", ".join(f"{lo}" if lo == hi else f"{lo}..{hi}" for lo, hi in runs)
