"""A long exact run's checkpoint: which ranges of sequences are done and exactly what they
came to, in a JSON file, so that a run stopped (Ctrl+C, a crash, a machine switched off) picks
up where it stopped, on this machine or on a cluster, and ends with the figures of one run.

A checkpoint belongs to one job: a deck, a rule set, a range of sequences, whether every
sequence is played, and how many longest deals are kept. Opening it for another job is refused
with a message naming what differs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardwar.rules import Rules
from cardwar.sim.errors import CheckpointError
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.results import ExactResults

KIND = "cardwar simulate --enumerate checkpoint"


@dataclass(frozen=True, slots=True)
class Job:
    """What a run does: the deck, the rules, the range `first` .. `stop - 1` of its sequences,
    whether every sequence is played (mirrors too), and how many longest deals are kept."""

    deck: SmallDeck
    rules: Rules
    first: int
    stop: int
    every_sequence: bool = False
    records: int = 1

    @property
    def sequences(self) -> int:
        """Sequences in the range."""
        return self.stop - self.first

    def to_dict(self) -> dict[str, Any]:
        """The job as plain JSON values."""
        return {
            "deck": str(self.deck),
            "rules": self.rules.to_dict(),
            "sequences": [self.first, self.stop],
            "every_sequence": self.every_sequence,
            "records": self.records,
        }


@dataclass
class Checkpoint:
    """The ranges of a job done so far, what they came to, and the seconds they took."""

    job: Job
    path: Path | None = None
    done: list[list[int]] = field(default_factory=list)
    found: ExactResults | None = None
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.found is None:
            self.found = ExactResults(self.job.deck)

    @classmethod
    def open(cls, job: Job, path: Path | None) -> Checkpoint:
        """The checkpoint at `path` if there is one (refused, CheckpointError naming the difference,
        if it was written for another job), else a fresh one that will be kept there."""
        if path is None or not path.exists():
            fresh = cls(job, path)
            fresh.save()  # a path that cannot be written is refused now, before any work
            return fresh
        where = f"checkpoint {path}"
        try:
            data = json.loads(path.read_text())
            kind, written = data["kind"], data["job"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise CheckpointError(f"{where}: not a checkpoint of this command ({error})") from None
        if kind != KIND:
            raise CheckpointError(f"{where}: not a checkpoint of this command")
        mine = job.to_dict()
        for key, label in (
            ("deck", "deck"),
            ("rules", "rules"),
            ("sequences", "sequences"),
            ("every_sequence", "every sequence"),
            ("records", "records"),
        ):
            if written.get(key) != mine[key]:
                what = differs(written.get(key), mine[key])
                raise CheckpointError(
                    f"{where}: written for another {label} ({what}); use another file for "
                    "this run, or run the job it was written for"
                )
        try:
            found = ExactResults.from_state(job.deck, data["found"])
            done = [[int(lo), int(hi)] for lo, hi in data["done"]]
            seconds = float(data["seconds"])
        except (ValueError, KeyError, TypeError) as error:  # binascii.Error is a ValueError
            raise CheckpointError(f"{where}: damaged, it cannot be read ({error!r})") from None
        return cls(job, path, done, found, seconds)

    @property
    def sequences_done(self) -> int:
        """Sequences of the range done."""
        return sum(hi - lo for lo, hi in self.done)

    @property
    def complete(self) -> bool:
        """True once every sequence of the range is done."""
        return self.sequences_done == self.job.sequences

    def remaining(self) -> list[tuple[int, int]]:
        """The ranges of the job not done yet, in order."""
        left, at = [], self.job.first
        for lo, hi in sorted(self.done):
            if lo > at:
                left.append((at, lo))
            at = max(at, hi)
        if at < self.job.stop:
            left.append((at, self.job.stop))
        return left

    def finish(self, spans: list[tuple[int, int]], found: ExactResults, seconds: float) -> None:
        """Count the ranges `spans` (each first, stop) done, with what they came to together."""
        assert self.found is not None
        self.found.add(found)
        self.seconds += seconds
        merged: list[list[int]] = []
        for lo, hi in sorted([*map(tuple, self.done), *spans]):
            if merged and merged[-1][1] >= lo:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self.done = merged

    def save(self) -> None:
        """Write the checkpoint to its file, whole or not at all (a new file moved over the old)."""
        if self.path is None:
            return
        assert self.found is not None
        data = {
            "kind": KIND,
            "job": self.job.to_dict(),
            "done": self.done,
            "seconds": round(self.seconds, 3),
            "found": self.found.state(),
        }
        part = self.path.with_name(self.path.name + ".part")
        try:
            part.write_text(json.dumps(data, separators=(",", ":")))
            os.replace(part, self.path)
        except OSError as error:
            raise CheckpointError(
                f"checkpoint {self.path}: cannot be written ({error.strerror})"
            ) from None


def differs(there: object, here: object) -> str:
    """How a job's field written in a file differs from this run's: the first key of a dict
    that differs, else the two values."""
    if isinstance(there, dict) and isinstance(here, dict):
        changed = [key for key in here if there.get(key) != here[key]]
        if changed:
            key = changed[0]
            return f"{key} {json.dumps(there.get(key))} there, {json.dumps(here[key])} here"
    return f"{json.dumps(there)} there, {json.dumps(here)} here"
