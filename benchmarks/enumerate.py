"""Exact answers at research scale, each figure beside one measured in the same run.

    .venv/bin/python benchmarks/enumerate.py [--decks 11x1,4x4] [--rounds 1000000]
                                             [--deals 200000] [--repeat 3] [--bataille PATH]

- Every deal of a deck, ours on one worker and on every core, against a one-thread C program of
  the same job (`benchmarks/c/enumerate.c`: every deal, a mirror once on an even deck, no card
  face down, the cards picked up as they lie on a four-suit deck or the winner's first on a
  one-suit one, loops counted and named, the longest game kept): seconds, deals a second, and
  C / ours for one worker (target 2x) and for every core (target 3.6x). Both must agree on
  deals, loops, distinct loops and the longest game. With `--bataille PATH` (Courbet's
  published C++ enumerator, built by hand: benchmarks/README.md), it is timed beside them on
  the same deck, and its ratios printed too (it plays half of the rank sequences and names no
  loop, so only its time is compared).
- Rounds that loop against plain rounds, ours on one core: table order with no limit (the loop
  watch on, two rounds in five loop) against the classic table, in battles a second (target:
  at least 40%).
- `--deals` against `--rounds`, ours on every core: the same rounds, dealt by the simulator or
  read from JSON lines and written back as JSON lines (target: at least 25%).
- The classic table against a one-thread C reference (`benchmarks/c/classic.c`: the same
  generator, deals, rules and statistics), ours on one core (target: at least 1.0x). Both must
  find the same figures.

The C programs are built with the system's compiler (cc, gcc or clang) into a temporary
directory (enumerate.c at -O3, as Courbet builds his; classic.c at -O2); with none, their
columns are skipped, saying so. Timings on a shared machine are noisy: each pair is measured
side by side, `--repeat` times, and every ratio printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cardwar import Rules
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.driver import play_every_deal
from cardwar.sim.runs.deals import play_deal_lines
from cardwar.sim.runs.run import dealt_game, simulate, workers_available

HERE = Path(__file__).resolve().parent
CLASSIC = Rules.preset("classic")
LOOPING = Rules.from_dict({"gather": "table", "battle_limit": None})


def build(source: str, folder: Path, level: str = "-O2") -> Path | None:
    """The C program `benchmarks/c/<source>` built with the system's compiler, or None."""
    compiler = next((shutil.which(cc) for cc in ("cc", "gcc", "clang") if shutil.which(cc)), None)
    if compiler is None:
        return None
    binary = folder / Path(source).stem
    subprocess.run([compiler, level, "-o", str(binary), str(HERE / "c" / source)], check=True)
    return binary


def rules_for(deck: SmallDeck) -> tuple[Rules, str]:
    """The published game for the deck: one suit, the winner's card first (there are no ties,
    so that is also the natural order); several suits, picked up as they lie, no card down."""
    gather = "winner_first" if deck.suits == 1 else "natural"
    return Rules.from_dict({"gather": gather, "war_down": 0, "battle_limit": None}), gather


def ours_enumerate(deck: SmallDeck, rules: Rules, workers: int) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    found = play_every_deal(rules, deck, workers=workers).to_dict()
    return time.perf_counter() - started, found


def c_enumerate(binary: Path, deck: SmallDeck, gather: str) -> tuple[float, dict[str, Any]]:
    done = subprocess.run(
        [str(binary), str(deck.ranks), str(deck.suits), gather],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    data: dict[str, Any] = json.loads(done.stdout)
    return float(data["seconds"]), data


def bataille(binary: Path, deck: SmallDeck) -> float:
    """Seconds Courbet's enumerator takes on every deal of `deck` (natural order, which on one
    suit is the winner's first), run in a temporary directory, where it writes its report."""
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        subprocess.run(
            [str(binary.resolve()), "exhaustive", "natural", str(deck.suits), str(deck.ranks)],
            cwd=folder, capture_output=True, check=True,
        )  # fmt: skip
        return time.perf_counter() - started


def same_job(ours: dict[str, Any], theirs: dict[str, Any]) -> bool:
    """Deals, loops, distinct loops and the longest game agree."""
    longest = ours["longest"]["battles"] if ours["longest"] else -1
    return (ours["deals"], ours["cycles"], ours["distinct_cycle_count"], longest) == (
        theirs["deals"], theirs["cycles"], theirs["distinct_cycles"], theirs["longest"],
    )  # fmt: skip


def speed(rules: Rules, rounds: int, workers: int) -> float:
    """Battles a second of `rounds` random rounds on `workers` threads."""
    started = time.perf_counter()
    tally = simulate(rules, rounds, seed=1, workers=workers)
    return tally.total_battles / (time.perf_counter() - started)


def deals_against_rounds(rounds: int, workers: int) -> tuple[float, float]:
    """Battles a second of the same classic rounds: dealt by `simulate`, and read as JSON lines
    and written back as JSON lines (`cardwar simulate --deals`)."""
    lines = "".join(
        json.dumps([[card.code for card in pile] for pile in dealt_game(CLASSIC, 1, game)]) + "\n"
        for game in range(rounds)
    ).encode()
    random = speed(CLASSIC, rounds, workers)
    written: list[int] = []
    started = time.perf_counter()
    battles = play_deal_lines(
        CLASSIC, lines, lambda text: written.append(len(text)), workers=workers
    )
    return random, battles / (time.perf_counter() - started)


def c_classic(binary: Path, rounds: int) -> tuple[float, dict[str, Any]]:
    done = subprocess.run(
        [str(binary), str(rounds), "1"], capture_output=True, text=True, check=True
    )
    data: dict[str, Any] = json.loads(done.stdout)
    return data["battles"] / data["seconds"], data


def target(ratio: float, goal: float) -> str:
    return f"(target {goal:g}x: {'met' if ratio >= goal else 'missed'})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decks", default="11x1,4x4")
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--deals", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--bataille", type=Path, default=None,
        help="Courbet's enumerator (bataille_cpp's explore), built by hand, to time beside ours",
    )  # fmt: skip
    args = parser.parse_args()
    workers = workers_available()
    print(f"{workers} cores here; load average {os.getloadavg()[0]:.2f} at the start")

    # Compile, or load the cache, before anything is timed.
    play_every_deal(rules_for(SmallDeck.parse("4x2"))[0], SmallDeck.parse("4x2"))
    play_every_deal(Rules.from_dict({"battle_limit": None}), SmallDeck.parse("6x1"))
    simulate(CLASSIC, 1000, seed=1, workers=1)
    simulate(LOOPING, 100, seed=1, workers=1)
    play_deal_lines(CLASSIC, b'[["AS"], ["2H"]]\n', lambda text: None)

    with tempfile.TemporaryDirectory() as folder:
        enumerate_c = build("enumerate.c", Path(folder), "-O3")
        classic_c = build("classic.c", Path(folder))
        if enumerate_c is None or classic_c is None:
            print("no C compiler here (cc, gcc or clang): the C columns are skipped")

        for text in args.decks.split(","):
            deck = SmallDeck.parse(text)
            rules, gather = rules_for(deck)
            for _ in range(args.repeat):
                one_s, ours = ours_enumerate(deck, rules, 1)
                all_s, ours_all = ours_enumerate(deck, rules, workers)
                agree = ours == ours_all
                line = (
                    f"every deal of {deck} ({gather}, no card down, {ours['deals']:,} deals): ours "
                    f"on one worker {one_s:.2f} s, on {workers} {all_s:.2f} s "
                    f"({ours['deals'] / all_s:,.0f} deals/s)"
                )
                if enumerate_c is not None:
                    c_s, theirs = c_enumerate(enumerate_c, deck, gather)
                    agree = agree and same_job(ours, theirs)
                    line += (
                        f"; C one thread {c_s:.2f} s: C / ours one worker {c_s / one_s:.2f}x "
                        f"{target(c_s / one_s, 2.0)}, {workers} workers {c_s / all_s:.2f}x "
                        f"{target(c_s / all_s, 3.6)}"
                    )
                if args.bataille is not None:
                    b_s = bataille(args.bataille, deck)
                    line += (
                        f"; bataille_cpp {b_s:.2f} s: bataille / ours one worker "
                        f"{b_s / one_s:.2f}x {target(b_s / one_s, 2.0)}, {workers} workers "
                        f"{b_s / all_s:.2f}x {target(b_s / all_s, 3.6)}"
                    )
                print(line + (", same figures" if agree else ", FIGURES DIFFER"))

        for _ in range(args.repeat):
            plain = speed(CLASSIC, args.rounds, 1)
            looping = speed(LOOPING, max(1, args.rounds // 10), 1)
            ratio = looping / plain
            print(
                f"rounds that loop (table order, no limit) {looping:,.0f} battles/s, plain rounds "
                f"(classic) {plain:,.0f}, one core: loops / plain {ratio:.2f}x {target(ratio, 0.4)}"
            )

        for _ in range(args.repeat):
            random, read = deals_against_rounds(args.deals, workers)
            ratio = read / random
            print(
                f"--deals {read:,.0f} battles/s, --rounds {random:,.0f}, the same {args.deals:,} "
                f"classic rounds on {workers} cores: deals / rounds {ratio:.2f}x "
                f"{target(ratio, 0.25)}"
            )

        if classic_c is not None:
            for _ in range(args.repeat):
                c_speed, theirs = c_classic(classic_c, args.rounds)
                started = time.perf_counter()
                tally = simulate(CLASSIC, args.rounds, seed=1, workers=1)
                ours_speed = tally.total_battles / (time.perf_counter() - started)
                figures = tally.to_dict(2)
                ours_figures = (
                    figures["wins"], tally.total_battles, figures["battles"]["max"],
                    figures["battles"]["median"], figures["battles"]["p90"],
                )  # fmt: skip
                c_figures = (
                    theirs["wins"], theirs["battles"], theirs["max_battles"], theirs["median"],
                    theirs["p90"],
                )  # fmt: skip
                agree = "same figures" if ours_figures == c_figures else "FIGURES DIFFER"
                ratio = ours_speed / c_speed
                print(
                    f"classic table, one core: ours {ours_speed:,.0f} battles/s, C {c_speed:,.0f}: "
                    f"ours / C {ratio:.2f}x {target(ratio, 1.0)}, {agree}"
                )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
