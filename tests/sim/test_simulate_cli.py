"""`cardwar simulate`: figures that add up, exact answers for small decks, explicit deals from a
file, a Dask cluster giving the single machine's result, and bad options refused with status 2."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cardwar import Round, Rules
from cardwar.cli import main
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.driver import play_every_deal


def run(*argv: str) -> tuple[int, str]:
    """Run the command; its exit status and what it printed."""
    buffer = io.StringIO()
    status = main(list(argv), Console(file=buffer, width=100, highlight=False))
    return status, buffer.getvalue()


def run_json(*argv: str) -> dict[str, Any]:
    """Run the command with --json; the one object it printed."""
    status, printed = run(*argv, "--json")
    assert status == 0
    lines = printed.strip().splitlines()
    assert len(lines) == 1
    data: dict[str, Any] = json.loads(lines[0])
    return data


def test_simulate_prints_the_figures_the_readme_promises() -> None:
    """rounds, wins per seat, draws, reasons, battles (mean, median, p90, max), wars a round,
    seconds and battles a second; the same seed gives the same figures."""
    data = run_json("simulate", "--rounds", "20000", "--seed", "1")
    for key in ("rounds", "wins", "draws", "reasons", "battles", "wars_per_round"):
        assert key in data
    assert set(data["battles"]) == {"mean", "median", "p90", "max"}
    assert data["rounds"] == 20000 and len(data["wins"]) == 2
    assert sum(data["wins"]) + data["draws"] == 20000 == sum(data["reasons"].values())
    assert data["seconds"] > 0 and data["battles_per_second"] > 0
    again = run_json("simulate", "--rounds", "20000", "--seed", "1", "--workers", "1")
    timing = ("seconds", "battles_per_second", "workers")
    assert {k: v for k, v in again.items() if k not in timing} == {
        k: v for k, v in data.items() if k not in timing
    }


def test_the_old_games_option_still_plays_rounds_and_says_it_is_old(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--games N`, the old name of `--rounds N`, plays the same rounds; it is not in --help,
    and it says on standard error which name to use now."""
    old = run_json("simulate", "--games", "3000", "--seed", "5", "--workers", "1")
    assert "--games is the old name of --rounds" in capsys.readouterr().err
    new = run_json("simulate", "--rounds", "3000", "--seed", "5", "--workers", "1")
    timing = ("seconds", "battles_per_second")
    assert {k: v for k, v in old.items() if k not in timing} == {
        k: v for k, v in new.items() if k not in timing
    }
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    assert "--games" not in capsys.readouterr().out


def test_simulate_takes_a_preset_and_house_rules() -> None:
    """Three players with W-A-R: three seats of wins, and the rules in force echoed."""
    data = run_json(
        "simulate", "--preset", "traditional", "--rules", '{"players": 3}', "--rounds", "3000"
    )
    assert data["rules"]["players"] == 3 and data["rules"]["war_down"] == 3
    assert len(data["wins"]) == 3
    assert data["reasons"]["battle_limit"] == 0  # traditional has no limit


def test_simulate_prints_a_table_when_not_asked_for_json() -> None:
    """Without --json the figures come as a table naming each seat and ending."""
    status, printed = run("simulate", "--rounds", "2000", "--seed", "3")
    assert status == 0
    for words in ("cardwar simulate · classic · seed 3", "won by You", "won by Computer",
                  "ended battle_limit", "battles a round", "battles a second"):  # fmt: skip
        assert words in printed


@pytest.mark.parametrize(
    ("deck", "deals", "longest"),
    [("4x1", 12, 6), ("6x1", 360, 15), ("8x1", 20_160, 26)],
)
def test_every_deal_of_a_one_suit_deck_as_published(deck: str, deals: int, longest: int) -> None:
    """One suit (so no wars) and the winning card first: the deals and the longest round that
    Delahaye and Mathieu report (Pour la Science 565, 2024), and no loop at 4, 6 or 8 cards,
    as Spivey proved (Integers 10, 2010)."""
    data = run_json("simulate", "--enumerate", deck)
    assert (data["deals"], data["battles"]["max"], data["cycles"]) == (deals, longest, 0)
    assert data["rules"]["battle_limit"] is None


def test_every_deal_of_a_deck_with_loops_names_its_loops() -> None:
    """4x2 under the classic table: the loops found, each with its length, its deals and a
    position on it, and the rest tallied; a battle limit given in --rules is kept."""
    data = run_json("simulate", "--enumerate", "4x2")
    assert data["deals"] == data["rounds"] == 1272 == data["cycles"] + data["ended"]
    assert data["cycles"] == 35
    assert data["loop_lengths"] == [{"length": 8, "loops": 6, "deals": 35}]
    assert sum(loop["deals"] for loop in data["distinct_cycles"]) == 35
    for loop in data["distinct_cycles"]:
        round_ = Round(Rules.from_dict({"battle_limit": None}), deal=loop["position"])
        round_.play()
        assert round_.outcome is not None and round_.outcome.reason.value == "cycle"
    limited = run_json("simulate", "--enumerate", "4x2", "--rules", '{"battle_limit": 50}')
    assert limited["cycles"] == 0 and limited["reasons"]["battle_limit"] == 35


def test_every_deal_is_played_once_with_its_mirror_once() -> None:
    """A deck's ranges add up to the whole; each deal agrees with the readable engine."""
    rules = Rules.from_dict({"battle_limit": None})
    deck = SmallDeck.parse("3x2")
    whole = play_every_deal(rules, deck)
    halves = play_every_deal(rules, deck, count=40)
    halves.add(play_every_deal(rules, deck, first=40))
    assert halves.to_dict() == whole.to_dict()
    assert whole.deals == 48  # 90 sequences, 6 of them their own mirror: (90 + 6) / 2
    battles = []
    for index in range(deck.sequences):
        ranks = deck.sequence_at(index)
        half = len(ranks) // 2
        if list(ranks[:half]) > list(ranks[half:]):
            continue
        codes = ["23456789TJQKA"[r] + "CDHS"[list(ranks[:i]).count(r)] for i, r in enumerate(ranks)]
        round_ = Round(rules, deal=[codes[:half], codes[half:]])
        round_.play()
        battles.append(round_.battles)
    assert len(battles) == 48
    assert sum(battles) == whole.ended.total_battles


def test_deals_from_a_file_one_result_a_line(tmp_path: Path) -> None:
    """--deals plays each deal of a JSON-lines file, as the readable engine does."""
    deals = [[["9S", "2C", "KD", "4H"], ["9H", "3C", "7S", "5D"]], [["AS"], ["2H"]]]
    path = tmp_path / "deals.jsonl"
    path.write_text("\n".join(json.dumps(deal) for deal in deals) + "\n")
    status, printed = run("simulate", "--deals", str(path))
    assert status == 0
    results = [json.loads(line) for line in printed.strip().splitlines()]
    for deal, result in zip(deals, results, strict=True):
        expected = Round(Rules(), deal=deal)
        expected.play()
        assert expected.outcome is not None
        assert result == {
            "winner": expected.outcome.winner,
            "reason": expected.outcome.reason.value,
            "battles": expected.battles,
            "wars": expected.wars,
            "piles": [[card.code for card in pile] for pile in expected.piles],
        }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--preset", "blitz"], "argument --preset: invalid choice: 'blitz'"),
        (["--rules", "{oops"], "--rules: not valid JSON"),
        (["--rules", '{"war_down": 9}'], "war_down: 9 is out of range, must be 0..5"),
        (["--rounds", "0"], "argument --rounds: 0 is out of range"),
        (["--workers", "0"], "argument --workers: 0 is out of range"),
        (["--enumerate", "13x4"], "--enumerate 13x4: 92,024,242,230,271,040,357,108,320,801"),
        (["--enumerate", "7x4"], "--enumerate 7x4: 66,475,579,247,327,250,000 deals do not fit"),
        (["--enumerate", "1x1"], "--enumerate 1x1: a deal needs at least 2 cards"),
        (["--enumerate", "eight"], "--enumerate 'eight': write the deck as RANKSxSUITS"),
        (["--enumerate", "4x2", "--rules", '{"players": 3}'], "players must be 2"),
        (["--deals", "/no/such/file"], "--deals /no/such/file: cannot be read"),
        (
            ["--deals", "/dev/null", "--dask", "tcp://127.0.0.1:9"],
            "--dask: is for --rounds and --enumerate runs, not --deals files",
        ),
        (["--rules", '{"gather": "heap"}'], "gather: 'heap' is not allowed, must be one of"),
        (["--records", "0"], "argument --records: 0 is out of range, must be 1..1000"),
        (["--hands", '[["AS", "AS"], "rest"]'], "--hands: card AS is named twice (seat 0"),
        (["--hands", '[["AS"], ["AS"]]'], "--hands: card AS is named twice (seat 0 and seat 1)"),
        (["--hands", '[[], "rest"]'], "--hands: seat 0 has no card"),
        (["--hands", '["rest", "rest"]'], 'seats 0 and 1 both take "rest"'),
        (["--hands", '[["AS"]]'], "--hands: has 1 seats but the rules have players=2"),
        (["--hands", '[["1X"], "rest"]'], "--hands: seat 0: card 1X"),
        (["--checkpoint", "x.json"], "--checkpoint: belongs with --enumerate"),
        (["--enumerate", "4x2", "--sequences", "9:3"], "--sequences 9:3: must be within 0:2520"),
        (
            ["--enumerate", "4x2", "--rules", '{"gather": "shuffled"}'],
            "--enumerate: plays each deal once, so the return order must be fixed",
        ),
    ],
)
def test_bad_options_exit_2_naming_the_problem(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every bad option is refused with status 2 and a message naming what is wrong."""
    try:
        status = main(["simulate", *argv], Console(file=io.StringIO()))
    except SystemExit as stop:  # argparse's own refusals
        status = int(stop.code or 0)
    assert status == 2
    assert message in capsys.readouterr().err


def test_a_bad_line_in_a_deals_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A deals file with a bad line stops at it, naming the line and the problem."""
    path = tmp_path / "deals.jsonl"
    path.write_text('[["AS"], ["2H"]]\n[["AS"], ["AS"]]\n')
    assert main(["simulate", "--deals", str(path)], Console(file=io.StringIO())) == 2
    assert "--deals line 2: deal: card AS appears twice" in capsys.readouterr().err
