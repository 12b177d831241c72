"""`cardwar simulate`: its options, and the dispatch to the work (`cli.runs` for random rounds
and `--deals`, `cli.exact` for `--enumerate`), which loads the simulator only when asked."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import Any

from rich.console import Console

from cardwar.cli.shared import OldName, rules_help, whole
from cardwar.engine import MAX_SEED
from cardwar.rules import PRESETS
from cardwar.sim import MAX_RECORDS


def add_parser(commands: Any) -> None:
    """`cardwar simulate` and its options, among the `commands` of `cardwar`."""
    sim = commands.add_parser(
        "simulate",
        help="play many rounds on the fast simulator and sum them up",
        description=textwrap.fill(
            "Play many rounds on the fast simulator, a second implementation of the rules held "
            "round by round to the readable engine, on every core; a progress bar while it runs, "
            "then a table of outcomes, endings, battles and wars a round (or one JSON object with "
            "--json). A seed gives the same figures on any machine. --enumerate plays every deal "
            "of a small deck instead, and --deals the deals in a file. Rounds take no time here, "
            "so a clock never runs out.",
            width=79,
        ),
        epilog=rules_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument(
        "--preset", default="classic", choices=list(PRESETS), help="rules to start from (classic)"
    )
    sim.add_argument("--rules", metavar="JSON", help="rule fields that override the preset")
    sim.add_argument(
        "--rounds",
        type=whole(1, 10**12),
        default=100_000,
        metavar="N",
        help="rounds to play, each on its own random deal (default: 100000)",
    )
    sim.add_argument(
        "--games", dest="rounds", type=whole(1, 10**12), action=OldName, new="--rounds",
        help=argparse.SUPPRESS,
    )  # fmt: skip
    sim.add_argument(
        "--seed",
        type=whole(0, MAX_SEED),
        metavar="S",
        help="seed of the run (default: a fresh random seed, printed so you can run it again)",
    )
    sim.add_argument(
        "--workers",
        type=whole(1, 1024),
        metavar="N",
        help="threads to play on (default: every core of this machine)",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    kind = sim.add_mutually_exclusive_group()
    kind.add_argument(
        "--enumerate",
        metavar="RANKSxSUITS",
        help="play every deal of a small deck once instead, such as 8x1 or 4x3 (a deal and its "
        "mirror once where they are the same game); with no battle limit unless --rules sets "
        "one, so loops show",
    )
    kind.add_argument(
        "--deals",
        type=Path,
        metavar="FILE",
        help="play the deals in FILE instead, one JSON deal a line (one pile per seat, top card "
        "first), and print one JSON result a line",
    )
    sim.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="spread the run over the Dask cluster at ADDRESS (needs cardwar[dask]); the same "
        "result as here for the same seed",
    )
    add_run_options(sim)
    add_exact_options(sim)
    add_device_option(sim)
    sim.set_defaults(run=run)


def add_run_options(sim: argparse.ArgumentParser) -> None:
    """The options of a run of random rounds: the hands dealt, and the longest rounds kept."""
    sim.add_argument(
        "--hands",
        metavar="JSON",
        help="the cards each seat starts with, one entry per seat, each a list of card codes or "
        '"rest" (the cards no other seat names): \'[["AS","AH","AD","AC"], "rest"]\'; every '
        "round deals them, each seat's in a fresh random order",
    )
    sim.add_argument(
        "--records",
        type=whole(1, MAX_RECORDS),
        metavar="K",
        help="also print the K longest rounds, each with its deal, which cardwar round --deal "
        "plays again (with shuffled returns, from the same deal but with its own shuffles)",
    )


def add_exact_options(sim: argparse.ArgumentParser) -> None:
    """The options that go with `--enumerate` only."""
    sim.add_argument(
        "--checkpoint",
        type=Path,
        metavar="FILE",
        help="with --enumerate: keep the run in FILE as it goes; Ctrl+C stops it between two "
        "batches, and the same command resumes it where it stopped (a long run is better in a "
        "--shard-file, which certifies it)",
    )
    sim.add_argument(
        "--sequences",
        metavar="FIRST:STOP",
        help="with --enumerate: only the deck's rank sequences FIRST to STOP - 1, in "
        "lexicographic order",
    )
    sim.add_argument(
        "--shard-file",
        type=Path,
        metavar="FILE",
        help="with --enumerate: play the job shard by shard, each finished shard a line of FILE "
        "(its figures and their sha256); the same command resumes it, and prints the whole "
        "job's table once FILE holds every shard",
    )
    sim.add_argument(
        "--shard-size",
        type=whole(1, 2**62),
        metavar="N",
        help="with --shard-file, --verify or --merge: sequences a shard, shard K being sequences "
        "K*N to (K+1)*N - 1 (default: 1000000000 for a new file, else the file's own)",
    )
    sim.add_argument(
        "--shards",
        metavar="A:B",
        help="with --shard-file: play only shards A to B - 1 into FILE, a piece of the job for "
        "one machine; --merge reads the pieces' files together",
    )
    sim.add_argument(
        "--verify",
        type=Path,
        metavar="FILE",
        help="with --enumerate and the job's options: play shards of the shard file FILE again "
        "and say whether each matches its line (exit status 1 if one does not)",
    )
    sim.add_argument(
        "--shard",
        type=whole(0, 2**62),
        metavar="K",
        help="with --verify: the shard to play again",
    )
    sim.add_argument(
        "--sample",
        type=whole(1, 10**6),
        metavar="N",
        help="with --verify: play N of the file's shards again, picked at random (--seed S "
        "picks the same ones again)",
    )
    sim.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="with --enumerate and the job's options: print the whole job's figures from the "
        "lines of the shard files FILE..., refused if a shard is missing, repeated or altered",
    )
    sim.add_argument(
        "--every-sequence",
        action="store_true",
        help="with --enumerate: play every sequence, mirrors too (a deal and its mirror are "
        "otherwise played once where they are the same game)",
    )


def add_device_option(sim: argparse.ArgumentParser) -> None:
    """`--device`: where `--enumerate` plays, this machine's cores or its CUDA GPU."""
    sim.add_argument(
        "--device",
        choices=["cpu", "cuda"],
        default="cpu",
        help="with --enumerate: play on this machine's cores (cpu, the default) or on its NVIDIA "
        "GPU (cuda: needs a CUDA device, and a deck whose piles pack in one word, up to 13x1 "
        "or 5x4); the same figures either way",
    )


def run(out: Console, args: argparse.Namespace) -> int:
    """`cardwar simulate` with the options parsed."""
    from cardwar.cli.runs import simulate_command  # numba loads only when asked
    from cardwar.cli.shards import ShardOptions

    return simulate_command(
        out,
        preset=args.preset,
        rules_json=args.rules,
        rounds=args.rounds,
        seed=args.seed,
        workers=args.workers,
        as_json=args.json,
        enumerate_deck=args.enumerate,
        deals_file=args.deals,
        dask=args.dask,
        hands_json=args.hands,
        records=args.records,
        checkpoint=args.checkpoint,
        sequences=args.sequences,
        device=args.device,
        every_sequence=args.every_sequence,
        shards=ShardOptions(
            args.shard_file,
            args.shard_size,
            args.shards,
            args.verify,
            args.shard,
            args.sample,
            tuple(args.merge or ()),
            args.seed,
        ),
    )
