"""Shard files (`--shard-file`, `--verify`, `--merge`): a job played shard by shard, in pieces,
and its lines merged in any order and split over files, gives the figures and the table of one
run; a line altered, repeated, missing or cut short is refused by name, or found by playing its
shard again; a run stopped between shards resumes. The format is `cardwar.sim.exact.shards`'s
docstring, and docs/cli.md#shard-files tells the options."""

from __future__ import annotations

import io
import json
import random
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cardwar import Rules
from cardwar.cli import main
from cardwar.cli import shards as command
from cardwar.sim.errors import ShardError
from cardwar.sim.exact.checkpoint import Job
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.shards import SHARD_SIZE, ShardPlan, ShardSet, ShardWriter, sha256

FRENCH = '{"gather": "natural", "war_down": 0}'
# Two jobs (their options, and a shard size that cuts them in several shards): a stretch of the
# four-suit deck that does not start on a shard's edge, so its first shard is clipped, and the
# whole ten-card deck with a deal and its mirror once.
JOBS = {
    "4x4": (["--enumerate", "4x4", "--rules", FRENCH, "--sequences", "150000:1900000"], 400_000),
    "10x1": (["--enumerate", "10x1"], 500_000),
}


def run(*argv: str) -> tuple[int, str]:
    """Run `cardwar simulate`; its exit status and what it printed."""
    buffer = io.StringIO()
    status = main(["simulate", *argv], Console(file=buffer, width=100, highlight=False))
    return status, buffer.getvalue()


def run_json(*argv: str) -> dict[str, Any]:
    """Run it with --json; the one object it printed."""
    status, printed = run(*argv, "--json")
    assert status == 0, printed
    data: dict[str, Any] = json.loads(printed)
    return data


def figures_only(data: dict[str, Any]) -> dict[str, Any]:
    """A summary without the seconds it took and where it ran."""
    timing = {"seconds", "wall_seconds", "deals_per_second", "workers"}
    return {key: value for key, value in data.items() if key not in timing}


def table_only(printed: str) -> str:
    """A printed table without its row of seconds."""
    return "\n".join(line for line in printed.splitlines() if "seconds" not in line)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Each job played once whole (its summary) and once into a shard file (its path)."""
    out = {}
    for name, (job, size) in JOBS.items():
        path = tmp_path_factory.mktemp(name) / "job.shards"
        run_json(*job, "--shard-file", str(path), "--shard-size", str(size))
        out[name] = (path, run_json(*job))
    return out


def lines_of(path: Path) -> tuple[str, list[str]]:
    """A shard file's header and its shard lines."""
    header, *rest = path.read_text().splitlines()
    return header, rest


@pytest.mark.parametrize("name", list(JOBS))
def test_lines_merged_in_any_order_and_split_over_files_are_one_run(
    name: str, played: dict[str, tuple[Path, dict[str, Any]]], tmp_path: Path
) -> None:
    """The shard file's own table, and its lines shuffled and dealt into three files then
    merged, give every figure and the table of the job played in one piece."""
    job, _ = JOBS[name]
    path, whole = played[name]
    header, lines = lines_of(path)
    assert len(lines) >= 4
    assert figures_only(run_json(*job, "--shard-file", str(path))) == figures_only(whole)
    random.Random(7).shuffle(lines)
    files = [tmp_path / f"{piece}.shards" for piece in range(3)]
    for piece, file in enumerate(files):
        file.write_text("".join(f"{line}\n" for line in [header, *lines[piece::3]]))
    merged = run_json(*job, "--merge", *map(str, files))
    assert figures_only(merged) == figures_only(whole)
    assert merged["sequences"] == whole["sequences"]
    status, table = run(*job, "--merge", *map(str, files))
    assert status == 0 and table_only(table) == table_only(run(*job)[1])


def test_pieces_played_on_two_machines_merge_into_one_run(
    played: dict[str, tuple[Path, dict[str, Any]]], tmp_path: Path
) -> None:
    """--shards A:B plays a piece of the job into a file of its own; two pieces' files, joined
    end to end (their headers and all) or given together, are the whole job."""
    job, size = JOBS["10x1"]
    first, second = tmp_path / "one.shards", tmp_path / "two.shards"
    piece = run_json(*job, "--shard-file", str(first), "--shard-size", str(size), "--shards", ":3")
    assert piece == {"shard_file": str(first), "shards": [0, 3], "held": 3, "of": 8}
    run_json(*job, "--shard-file", str(second), "--shard-size", str(size), "--shards", "3:")
    whole = played["10x1"][1]
    assert figures_only(run_json(*job, "--merge", str(second), str(first))) == figures_only(whole)
    joined = tmp_path / "joined.shards"
    joined.write_text(first.read_text() + second.read_text())
    assert figures_only(run_json(*job, "--merge", str(joined))) == figures_only(whole)


def altered(line: str, change: Callable[[dict[str, Any]], None], *, rehash: bool) -> str:
    """A shard line with `change` made to its figures, hashed again or not."""
    data = json.loads(line)
    change(data)
    if rehash:
        data["sha256"] = sha256({k: v for k, v in data.items() if k not in ("sha256", "seconds")})
    return json.dumps(data)


def one_more_deal_of_18_battles(data: dict[str, Any]) -> None:
    """A histogram bin one higher: the kind of change a line's other figures do not show."""
    data["tally"]["battles"][18] += 1


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (
            lambda lines: lines.__setitem__(
                2, altered(lines[2], one_more_deal_of_18_battles, rehash=False)
            ),
            "line 4: shard 2: its figures do not hash to its sha256 (the line was altered)",
        ),
        (
            lambda lines: lines.__setitem__(
                1, altered(lines[1], lambda d: d.update(sha256="0" * 64), rehash=False)
            ),
            "line 3: shard 1: its figures do not hash to its sha256 (the line was altered)",
        ),
        (
            lambda lines: lines.__setitem__(
                3, altered(lines[3], lambda d: d.update(deals=d["deals"] + 1), rehash=True)
            ),
            "line 5: shard 3: figures that do not add up (deals is not what the rest say)",
        ),
        (
            lambda lines: lines.insert(5, lines[1]),
            "line 7: shard 1 is repeated (shard file {path}, line 3 has it too)",
        ),
        (lambda lines: lines.pop(4), "{path}: shard 4 missing (1 of the job's 8)"),
        (lambda lines: lines.__delitem__(slice(2, 6)), "{path}: shards 2..5 missing (4 of"),
        (
            lambda lines: lines.__setitem__(
                3, altered(lines[3], lambda d: d.update(shard=99), rehash=True)
            ),
            "line 5: shard 99: sequences [1500000, 2000000] there, but shard 99 of this job is "
            "not one of its shards",
        ),
    ],
    ids=["figure", "hash", "sums", "repeated", "missing", "several-missing", "number"],
)
def test_a_tampered_file_is_refused_naming_the_shard(
    tamper: Callable[[list[str]], None],
    message: str,
    played: dict[str, tuple[Path, dict[str, Any]]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An altered figure or hash, figures that do not add up, a repeated, missing or misnumbered
    shard: merging refuses the file with status 2 and one line naming the shard."""
    job, _ = JOBS["10x1"]
    header, lines = lines_of(played["10x1"][0])
    lines.sort(key=lambda line: json.loads(line)["shard"])
    tamper(lines)
    path = tmp_path / "tampered.shards"
    path.write_text("".join(f"{line}\n" for line in [header, *lines]))
    capsys.readouterr()
    assert run(*job, "--merge", str(path))[0] == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message.format(path=path) in error


def test_verify_plays_a_shard_again_and_finds_a_line_altered_and_hashed_again(
    played: dict[str, tuple[Path, dict[str, Any]]], tmp_path: Path
) -> None:
    """--verify --shard K on an honest file says the shard matches its line (status 0), and so
    does --sample; a line whose histogram was altered and hashed again reads as sound, and
    only playing its shard again finds it (status 1, the figure named)."""
    job, _ = JOBS["4x4"]
    path = played["4x4"][0]
    status, printed = run(*job, "--verify", str(path), "--shard", "1")
    assert status == 0
    assert printed.startswith(
        "shard 1 (sequences 400,000:800,000, 399,968 deals): matches its line"
    )
    status, printed = run(*job, "--verify", str(path), "--sample", "2", "--seed", "4")
    assert status == 0 and printed.count("matches its line") == 2
    assert printed.startswith("2 of 5 shards, picked with --seed 4")

    header, lines = lines_of(path)
    at = next(i for i, line in enumerate(lines) if json.loads(line)["shard"] == 0)
    lines[at] = altered(lines[at], one_more_deal_of_18_battles, rehash=True)
    forged = tmp_path / "forged.shards"
    forged.write_text("".join(f"{line}\n" for line in [header, *lines]))
    assert run(*job, "--merge", str(forged))[0] == 0  # it reads as sound
    status, printed = run(*job, "--verify", str(forged), "--shard", "0")
    assert status == command.MISMATCH
    assert "shard 0 (sequences 150,000:400,000, 250,000 deals): does NOT match its line" in printed
    assert "tally.battles[18] 8957 there, 8956 played" in printed
    status, printed = run(*job, "--verify", str(forged), "--shard", "0", "--json")
    verdict = json.loads(printed)["verified"][0]
    assert status == command.MISMATCH and not verdict["matches"]
    assert verdict["differs"] == {"figure": "tally.battles[18]", "line": 8957, "played": 8956}


@pytest.mark.parametrize(
    ("rules", "options", "message"),
    [
        (FRENCH, ["--shard", "9"], "shard 9: this job's shards are 0..4"),
        ('{"gather": "table"}', ["--shard", "1"], "another rules (war_down 0 there, 1 here)"),
        (FRENCH, ["--shard", "1", "--records", "2"], "another records (1 there, 2 here)"),
        (FRENCH, ["--shard", "1", "--shard-size", "1000"], "another shard size (400,000 there"),
        (FRENCH, [], "--verify: give --shard K (one shard) or --sample N (N at random)"),
        (FRENCH, ["--shard", "1", "--sample", "2"], "--verify: give --shard K (one shard) or"),
        (FRENCH, ["--shard", "1", "--checkpoint", "x"], "--verify: does not go with --checkpoint"),
    ],
)
def test_verify_refuses_another_job_or_a_shard_it_lacks(
    rules: str,
    options: list[str],
    message: str,
    played: dict[str, tuple[Path, dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A shard the job lacks, options of another job, no shard or two ways to pick: status 2
    and one line saying what is wrong."""
    path = str(played["4x4"][0])
    job = ["--enumerate", "4x4", "--rules", rules, "--sequences", "150000:1900000"]
    capsys.readouterr()
    assert run(*job, "--verify", path, *options)[0] == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--enumerate", "6x1", "--shards", "0:2"], "--shards: picks the shards a run writes"),
        (["--shard-size", "5"], "--shard-size: belongs with --enumerate"),
        (["--enumerate", "6x1", "--shard-size", "5"], "--shard-size: goes with --shard-file"),
        (["--enumerate", "6x1", "--sample", "2"], "--sample: says which shards --verify plays"),
        (
            ["--enumerate", "6x1", "--shard-file", "a", "--checkpoint", "b"],
            "--shard-file: does not go with --checkpoint",
        ),
        (
            ["--enumerate", "6x1", "--shard-file", "a", "--shard-size", "100", "--shards", "3:9"],
            "--shards 3:9: must be within 0:8 (the job's shards, 100 sequences each)",
        ),
        (["--enumerate", "6x1", "--merge", "a", "--dask", "x:1"], "--dask: --verify and --merge"),
    ],
)
def test_shard_options_that_do_not_go_together_are_refused(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Each shard option where it cannot apply: status 2, naming the option."""
    monkeypatch.chdir(tmp_path)
    assert run(*argv)[0] == 2
    assert message in capsys.readouterr().err


def test_a_file_that_is_no_shard_file_or_cut_short_is_refused_and_a_resumed_run_mends_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file of another kind, or whose last line was cut short while a run wrote it, is
    refused by --merge naming the line; the run's own command cuts that line off and plays its
    shard again, to the figures of one run."""
    job = ["--enumerate", "8x1", "--shard-size", "5000"]
    notes = tmp_path / "notes.shards"
    notes.write_text('{"hello": 1}\n')
    assert run(*job, "--merge", str(notes))[0] == 2
    assert "not a shard file of this command" in capsys.readouterr().err

    path = tmp_path / "run.shards"
    whole = run_json(*job, "--shard-file", str(path))
    text = path.read_text()
    path.write_text(text[: len(text) - 40])
    assert run(*job, "--merge", str(path))[0] == 2
    assert "line 10: cut short (a run stopped while writing it)" in capsys.readouterr().err
    assert figures_only(run_json(*job, "--shard-file", str(path))) == figures_only(whole)
    assert "its last line was cut short; its shard plays again" in capsys.readouterr().err
    assert path.read_text() == text or len(path.read_text().splitlines()) == 10


def test_a_run_stopped_by_ctrl_c_resumes_from_its_shard_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl+C once two shards are done stops the run between batches, keeping the finished
    shards' lines (status 130, saying how many); the same command plays the rest, to the
    figures of one run."""
    path = tmp_path / "run.shards"
    job = ["--enumerate", "10x1", "--shard-file", str(path), "--shard-size", "500000"]

    @contextmanager
    def ctrl_c_after_two_shards(
        total: int, what: str, done: int = 0
    ) -> Iterator[Callable[[int], None]]:
        seen = [0]

        def advance(n: int) -> None:
            seen[0] += n
            if seen[0] >= 1_000_000:
                signal.raise_signal(signal.SIGINT)

        yield advance

    monkeypatch.setattr(command, "progress_bar", ctrl_c_after_two_shards)
    status, _ = run(*job, "--json")
    assert status == 130
    assert "stopped with 2 of 8 shards in" in capsys.readouterr().err
    assert [json.loads(line)["shard"] for line in lines_of(path)[1]] == [0, 1]
    monkeypatch.undo()
    resumed = run_json(*job)
    assert figures_only(resumed) == figures_only(run_json("--enumerate", "10x1"))


def test_the_committed_5x4_shard_file_reads_sound() -> None:
    """docs/data/5x4-natural.shards, the run of docs/findings.md under way: every line hashes
    to its sha256 and adds up, none is repeated, and every shard is of that job."""
    deck = SmallDeck.parse("5x4")
    rules = Rules.from_dict({"gather": "natural", "war_down": 0, "battle_limit": None})
    plan = ShardPlan(Job(deck, rules, 0, deck.sequences), SHARD_SIZE)
    path = Path(__file__).parents[2] / "docs" / "data" / "5x4-natural.shards"
    shards = ShardSet.read(plan, [path])
    assert len(plan.numbers) == 306 and shards.lines


def test_a_file_another_run_is_writing_is_refused(tmp_path: Path) -> None:
    """While one run holds a shard file open, a second run of it is refused, naming the file
    (two would play the same shards into it); once the first closes it, the second may go on."""
    deck = SmallDeck.parse("6x1")
    plan = ShardPlan(Job(deck, Rules(battle_limit=None), 0, deck.sequences), 100)
    path = tmp_path / "run.shards"
    first = ShardWriter(plan, path)
    with pytest.raises(ShardError, match=f"shard file {path}: another run is writing it"):
        ShardWriter(plan, path)
    first.close()
    ShardWriter(plan, path).close()
