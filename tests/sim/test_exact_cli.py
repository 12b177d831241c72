"""`cardwar simulate --enumerate` at research scale, and the options of any run: odd decks played
whole, ranges of sequences, a run stopped by Ctrl+C and resumed from its checkpoint to the
figures of one run, checkpoints of another job refused, the K longest rounds with deals that
replay, and given hands."""

from __future__ import annotations

import io
import json
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cardwar import Round, Rules
from cardwar.cli import exact as command
from cardwar.cli import main

FRENCH = '{"gather": "natural", "war_down": 0}'


def run(*argv: str) -> tuple[int, str]:
    """Run the command; its exit status and what it printed."""
    buffer = io.StringIO()
    status = main(list(argv), Console(file=buffer, width=100, highlight=False))
    return status, buffer.getvalue()


def run_json(*argv: str) -> dict[str, Any]:
    """Run the command with --json; the one object it printed."""
    status, printed = run(*argv, "--json")
    assert status == 0, printed
    data: dict[str, Any] = json.loads(printed)
    return data


def without_timing(data: dict[str, Any]) -> dict[str, Any]:
    """The figures, without the seconds they took."""
    timing = {"seconds", "wall_seconds", "deals_per_second", "battles_per_second", "workers"}
    return {key: value for key, value in data.items() if key not in timing}


def test_an_odd_deck_plays_every_deal() -> None:
    """9 cards: the first player takes 4, and all 362,880 deals are played."""
    data = run_json("simulate", "--enumerate", "9x1")
    assert (data["deals"], data["cycles"], data["mirrors_once"]) == (362_880, 218_680, False)
    assert data["sequences"] == [0, 362_880]


def test_courbets_half_from_the_command_line() -> None:
    """The first half of the sequences, mirrors and all, as Courbet plays them: 388 loops."""
    data = run_json(
        "simulate", "--enumerate", "3x4", "--rules", FRENCH, "--every-sequence",
        "--sequences", "0:17325",
    )  # fmt: skip
    assert (data["deals"], data["cycles"]) == (17_325, 388)


def test_a_run_stopped_by_ctrl_c_resumes_from_its_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl+C after the first batch stops the run between batches (status 130, saying how far
    it got); the same command resumes it, and the figures are those of one whole run."""
    path = tmp_path / "run.json"
    argv = ["simulate", "--enumerate", "10x1", "--every-sequence", "--checkpoint", str(path)]

    @contextmanager
    def ctrl_c_after_a_batch(
        total: int, what: str, done: int = 0
    ) -> Iterator[Callable[[int], None]]:
        yield lambda n: signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(command, "progress_bar", ctrl_c_after_a_batch)
    status, _ = run(*argv, "--json")
    assert status == command.STOPPED
    assert "cardwar: stopped with 65,536 of 3,628,800 sequences done" in capsys.readouterr().err
    kept = json.loads(path.read_text())
    assert kept["done"] == [[0, 65_536]]
    monkeypatch.undo()
    resumed = run_json(*argv)
    whole = run_json("simulate", "--enumerate", "10x1", "--every-sequence")
    assert without_timing(resumed) == without_timing(whole)
    assert resumed["cycles"] == 2 * 197_970  # every deal, and its mirror, once each
    again = run_json(*argv)  # nothing left to play: the figures at once
    assert without_timing(again) == without_timing(whole)


@pytest.mark.parametrize(
    ("other", "message"),
    [
        (["--enumerate", "4x2"], 'written for another deck ("3x4" there, "4x2" here)'),
        (["--enumerate", "3x4"], "written for another rules (war_down 0 there, 1 here)"),
        (
            ["--enumerate", "3x4", "--rules", FRENCH, "--sequences", "0:100"],
            "written for another sequences ([0, 34650] there, [0, 100] here)",
        ),
        (
            ["--enumerate", "3x4", "--rules", FRENCH, "--records", "3"],
            "written for another records (1 there, 3 here)",
        ),
    ],
)
def test_a_checkpoint_of_another_job_is_refused(
    tmp_path: Path, other: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkpoint belongs to its deck, rules, range and records: any other is refused with
    status 2, naming what differs."""
    path = tmp_path / "run.json"
    run_json("simulate", "--enumerate", "3x4", "--rules", FRENCH, "--checkpoint", str(path))
    status, _ = run("simulate", *other, "--checkpoint", str(path))
    assert status == 2
    assert f"--checkpoint {path}: {message}" in capsys.readouterr().err


def test_a_file_that_is_no_checkpoint_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anything but a checkpoint of this command: status 2, and the file named."""
    path = tmp_path / "notes.json"
    path.write_text('{"hello": 1}')
    assert run("simulate", "--enumerate", "4x2", "--checkpoint", str(path))[0] == 2
    assert f"--checkpoint {path}: not a checkpoint of this command" in capsys.readouterr().err


def test_a_damaged_checkpoint_or_a_path_that_cannot_be_written_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkpoint whose figures were cut short is refused by name, not with a traceback; a
    checkpoint in a folder that does not exist is refused before any deal is played; a fresh
    checkpoint is written at once, and resumes to the figures of one run."""
    path = tmp_path / "run.json"
    whole = run_json("simulate", "--enumerate", "6x1", "--checkpoint", str(path))
    data = json.loads(path.read_text())
    del data["found"]["ended"]["counters"]
    path.write_text(json.dumps(data))
    assert run("simulate", "--enumerate", "6x1", "--checkpoint", str(path))[0] == 2
    assert f"--checkpoint {path}: damaged, it cannot be read" in capsys.readouterr().err

    nowhere = tmp_path / "no such folder" / "run.json"
    assert run("simulate", "--enumerate", "6x1", "--checkpoint", str(nowhere))[0] == 2
    assert f"--checkpoint {nowhere}: cannot be written" in capsys.readouterr().err

    fresh = tmp_path / "fresh.json"
    job = command.Job(command.SmallDeck.parse("6x1"), Rules(battle_limit=None), 0, 720, False, 1)
    command.Checkpoint.open(job, fresh)
    assert json.loads(fresh.read_text())["done"] == []
    again = run_json("simulate", "--enumerate", "6x1", "--checkpoint", str(fresh))
    assert without_timing(again) == without_timing(whole)


def test_the_longest_deals_of_an_enumeration_replay() -> None:
    """--records 3: the three longest deals, longest first, each replaying on the engine."""
    data = run_json("simulate", "--enumerate", "3x4", "--rules", FRENCH, "--records", "3")
    battles = [record["battles"] for record in data["records"]]
    assert battles[0] == 37 and battles == sorted(battles, reverse=True) and len(battles) == 3
    rules = Rules.from_dict(json.loads(FRENCH) | {"battle_limit": None})
    for record in data["records"]:
        round_ = Round(rules, deal=record["deal"])
        round_.play()
        assert (round_.battles, round_.wars) == (record["battles"], record["wars"])


def test_the_longest_deals_are_printed_as_commands_that_replay_them() -> None:
    """Without --json, --records K prints the K longest deals under the table, each as the
    `cardwar round` command that plays it again, whole on one line."""
    status, printed = run("simulate", "--enumerate", "6x1", "--records", "2")
    assert status == 0, printed
    lines = [line for line in printed.splitlines() if "cardwar round --rules" in line]
    assert [line.split(".")[0] for line in lines] == ["1", "2"]
    for line in lines:
        rules = json.loads(line.split("--rules '")[1].split("'")[0])
        deal = json.loads(line.split("--deal '")[1].split("'")[0])
        round_ = Round(Rules.from_dict(rules), deal=deal)
        round_.play()
        assert f"{round_.battles:,} battles" in line and "(deal " in line


def test_the_longest_random_rounds_replay() -> None:
    """--records 4 on random rounds: the four longest, each with its deal, which plays again on
    the readable engine to the same end; the text table prints the command for each."""
    data = run_json("simulate", "--preset", "traditional", "--rounds", "3000", "--seed", "8",
                    "--records", "4")  # fmt: skip
    records = data["records"]
    assert len(records) == 4 and records[0]["battles"] == data["battles"]["max"]
    for record in records:
        round_ = Round(Rules.preset("traditional"), deal=record["deal"])
        round_.play()
        assert round_.outcome is not None
        assert (round_.battles, round_.wars, round_.outcome.reason.value) == (
            record["battles"], record["wars"], record["reason"],
        )  # fmt: skip
    status, printed = run("simulate", "--preset", "traditional", "--rounds", "3000", "--seed",
                          "8", "--records", "1")  # fmt: skip
    assert status == 0 and f"1. {records[0]['battles']:,} battles" in printed
    assert "cardwar round --rules" in printed


def test_given_hands_are_dealt_in_fresh_orders() -> None:
    """--hands: you hold the four aces in every round, in a fresh order each time, and win far
    more often than half; the figures say which hands were given."""
    hands = '[["AS", "AH", "AD", "AC"], "rest"]'
    data = run_json("simulate", "--rounds", "4000", "--seed", "2", "--hands", hands,
                    "--records", "20")  # fmt: skip
    assert data["hands"][0] == ["AS", "AH", "AD", "AC"] and len(data["hands"][1]) == 48
    orders = {tuple(record["deal"][0]) for record in data["records"]}
    assert all(sorted(order) == ["AC", "AD", "AH", "AS"] for order in orders)
    assert len(orders) > 1
    assert data["wins"][0] > 0.55 * data["rounds"]


def test_an_enumeration_refuses_a_hand_size(capsys: pytest.CaptureFixture[str]) -> None:
    """The short preset's 13 cards each cannot apply to a deck split in two halves: status 2,
    naming the field, rather than a run whose rules say 13 and deal 4."""
    assert run("simulate", "--preset", "short", "--enumerate", "8x1")[0] == 2
    assert "hand_size must be null, not 13" in capsys.readouterr().err
