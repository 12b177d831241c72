"""The `cardwar` command line."""

import json
import subprocess
import sys
from io import StringIO

import pytest
from rich.console import Console

from cardwar.cli import main

from helpers import in_a_fresh_process


def run(*args: str) -> tuple[int, str]:
    """Run `cardwar ARGS` in-process; returns the exit status and what it printed."""
    out = StringIO()
    status = main(list(args), Console(file=out, width=200))
    return status, out.getvalue()


def test_round_tells_every_battle_then_the_outcome() -> None:
    """The seed example deal: one war won by the king, and the round told to its end."""
    status, text = run("round", "--deal", '[["9S","2C","KD"],["9H","3C","7S"]]')
    assert status == 0
    lines = text.splitlines()
    assert lines[0] == "cardwar round · classic · explicit deal"
    assert lines[1] == (
        "Battle 1: 9♠ v 9♥ — war! 1 down each, K♦ v 7♠ — K♦ beats 7♠, You take 6"
        "  [You 6 · Computer 0]"
    )
    assert lines[2] == "You win: Computer ran out of cards."
    assert lines[3] == "1 battle, 1 war."


def test_round_json_is_the_api_shape() -> None:
    """--json prints one object with every field of a finished round, piles included."""
    status, text = run("round", "--preset", "short", "--seed", "5", "--json")
    assert status == 0
    data = json.loads(text)
    assert set(data) == {
        "id", "rules", "seed", "battles", "wars", "counts", "out_at", "outcome", "piles"
    }  # fmt: skip
    # The computer could not finish a war at the last battle: it is out there, you never were.
    assert data["outcome"] == {"winner": 0, "reason": "opponent_short"}
    assert data["out_at"] == [None, data["battles"]]
    assert data["rules"]["hand_size"] == 13 and data["seed"] == 5
    assert sum(data["counts"]) == sum(len(pile) for pile in data["piles"])
    assert data["outcome"]["reason"] in {"all_cards", "opponent_short", "both_short"}


def test_same_seed_prints_the_same_round() -> None:
    """A printed seed replays the identical round."""
    assert run("round", "--seed", "77") == run("round", "--seed", "77")


def test_without_a_seed_the_seed_is_printed() -> None:
    """A round with no seed picks one and prints it, so it can be replayed."""
    _, text = run("round")
    seed = int(text.splitlines()[0].rsplit(" ", 1)[1])
    assert run("round", "--seed", str(seed))[1] == text


def test_rules_override_the_preset() -> None:
    """--rules lays fields over the preset."""
    _, text = run("round", "--preset", "traditional", "--rules", '{"players": 4}', "--seed", "1")
    assert "Computer 3" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", '{"war_down": 9}'], "war_down: 9 is out of range, must be 0..5"),
        (["--rules", "{war_down: 3}"], "--rules: not valid JSON"),
        (["--deal", '[["9S"],["9S"]]'], "deal: card 9S appears twice"),
        (["--deal", '[["1X"],["9S"]]'], "card 1X: rank must be one of"),
        (["--seed", "-4"], "seed: must be a whole number from 0"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad rules, JSON, deals or seeds exit with status 2 and a message on stderr."""
    status, text = run("round", *args)
    assert status == 2 and text == ""
    assert message in capsys.readouterr().err


def test_unknown_preset_and_clashing_options_are_usage_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """argparse refuses an unknown preset, and --seed with --deal, with status 2."""
    with pytest.raises(SystemExit) as caught:
        run("round", "--preset", "blitz")
    assert caught.value.code == 2
    assert "invalid choice: 'blitz'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run("round", "--seed", "1", "--deal", '[["2C"],["3C"]]')
    assert "not allowed with argument" in capsys.readouterr().err


def test_console_script_runs() -> None:
    """The installed entry point answers --help with the round command listed."""
    result = subprocess.run(
        [sys.executable, "-m", "cardwar.cli", "round", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--preset {classic,traditional,peace,timed,short}" in result.stdout


def test_serve_refuses_a_bad_port(capsys: pytest.CaptureFixture[str]) -> None:
    """A port outside 1..65535 is a usage error naming the range, before anything starts."""
    with pytest.raises(SystemExit) as caught:
        run("serve", "--port", "70000")
    assert caught.value.code == 2
    assert "70000 is out of range, must be 1..65535" in capsys.readouterr().err


def test_round_starts_without_the_web_stack_or_numba() -> None:
    """Each command adds its own options; only `serve` and `simulate` load what they need, when
    they run: `cardwar round` imports neither numba nor the web stack."""
    script = (
        "import io, sys\n"
        "from rich.console import Console\n"
        "from cardwar.cli import main\n"
        "assert main(['round', '--seed', '1'], Console(file=io.StringIO())) == 0\n"
        "print(sorted(m for m in ('numba', 'uvicorn', 'fastapi') if m in sys.modules))\n"
    )
    assert in_a_fresh_process(script) == "[]"
