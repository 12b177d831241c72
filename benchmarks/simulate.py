"""How fast the fast simulator is, each figure beside a ratio measured in the same run.

    .venv/bin/python benchmarks/simulate.py [--rounds 1000000] [--engine-rounds 2000]
                                            [--memory-rounds 10000000] [--cli-rounds 1000000]

- One core, classic table, statistics included: battles a second (target: 100 million), and
  the ratio to the readable engine, measured here side by side on the same rules.
- Two workers against one on the same rounds (target: at least 1.8 times).
- Memory as rounds grow: the peak resident size of a process that plays --memory-rounds classic
  rounds, beside one that plays a hundredth of them (target: under 500 MB for 10 million).
- `cardwar simulate --rounds --cli-rounds` on the classic table with its compiled code cached, in
  seconds of wall time, start-up included (target: under 5 s for a million).
- The chance to win from the table: milliseconds for one estimate of 2,000 continuations, at
  several points of classic rounds (target: under 50 ms), beside a readable-engine estimate.

Timings on a shared machine are noisy: the ratios, measured within one run, hold better than
the absolute figures. Compilation is done (and cached) before anything is timed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from cardwar import Round, Rules
from cardwar.sim.runs.run import simulate

CLASSIC = Rules.preset("classic")


def engine_speed(rounds: int) -> float:
    """Battles a second of the readable engine on classic rounds, records included."""
    started = time.perf_counter()
    battles = 0
    for seed in range(rounds):
        round_ = Round(CLASSIC, seed=seed)
        battles += len(round_.play())
    return battles / (time.perf_counter() - started)


def simulator_speed(rounds: int, workers: int) -> float:
    """Battles a second of the simulator on classic rounds, statistics included."""
    started = time.perf_counter()
    tally = simulate(CLASSIC, rounds, seed=1, workers=workers)
    return tally.total_battles / (time.perf_counter() - started)


def peak_memory(rounds: int) -> float:
    """Peak resident megabytes of a fresh process that simulates `rounds` classic rounds."""
    script = (
        "import resource, sys\n"
        "from cardwar import Rules\n"
        "from cardwar.sim.runs.run import simulate\n"
        f"simulate(Rules(), {rounds}, seed=2)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1]) / 1024  # ru_maxrss is in kilobytes on Linux


def chance_ms(rounds: int) -> tuple[float, float]:
    """Median milliseconds of one chance estimate (2,000 continuations) on the simulator, at
    battle 0, 100 and 200 of `rounds` classic rounds; and of 20 continuations on the readable
    engine, scaled to 2,000, for the ratio."""
    import random
    import statistics

    from cardwar.sim.runs.chance import chance_to_win

    fast, slow = [], []
    for seed in range(rounds):
        for battles in (0, 100, 200):
            round_ = Round(CLASSIC, seed=seed)
            round_.play(battles)
            if round_.over:
                continue
            started = time.perf_counter()
            chance_to_win(round_)
            fast.append(time.perf_counter() - started)
            started = time.perf_counter()
            chance = random.Random(seed)
            for _ in range(20):
                piles = [chance.sample(pile, len(pile)) for pile in round_.piles]
                limit = (round_.rules.battle_limit or 0) - round_.battles
                Round(Rules.from_dict({"battle_limit": max(limit, 1)}), deal=piles).play()
            slow.append((time.perf_counter() - started) * 100)
    return statistics.median(fast) * 1000, statistics.median(slow) * 1000


def cli_seconds(rounds: int) -> tuple[float, dict[str, object]]:
    """Wall time of `cardwar simulate --rounds N --json`, start-up included."""
    command = [sys.executable, "-m", "cardwar.cli", "simulate", "--rounds", str(rounds)]
    command += ["--seed", "1", "--json"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--engine-rounds", type=int, default=2000)
    parser.add_argument("--memory-rounds", type=int, default=10_000_000)
    parser.add_argument("--cli-rounds", type=int, default=1_000_000)
    parser.add_argument("--chance-rounds", type=int, default=20)
    args = parser.parse_args()

    simulate(CLASSIC, 1000, seed=1, workers=1)  # compile, or load the cache, before timing
    simulate(CLASSIC, 1000, seed=1, workers=2)
    engine = engine_speed(args.engine_rounds)
    one = simulator_speed(args.rounds, 1)
    two = simulator_speed(args.rounds, 2)
    print(f"readable engine, classic, one core: {engine:,.0f} battles/s")
    print(f"simulator, classic, one core: {one:,.0f} battles/s (target 100,000,000)")
    print(f"simulator / readable engine: {one / engine:,.0f}x")
    print(f"simulator, two workers: {two:,.0f} battles/s")
    print(f"two workers / one: {two / one:.2f}x (target 1.8x)")

    small = max(1, args.memory_rounds // 100)
    big_mb, small_mb = peak_memory(args.memory_rounds), peak_memory(small)
    print(f"peak memory, {args.memory_rounds:,} rounds: {big_mb:.0f} MB (target 500 MB)")
    print(f"peak memory, {small:,} rounds: {small_mb:.0f} MB")
    print(f"memory, {args.memory_rounds:,} / {small:,} rounds: {big_mb / small_mb:.2f}x")

    fast_ms, slow_ms = chance_ms(args.chance_rounds)
    print(f"chance to win, 2,000 continuations: {fast_ms:.1f} ms (target 50 ms)")
    print(f"chance to win on the readable engine, scaled to 2,000: {slow_ms:,.0f} ms")
    print(f"readable engine / simulator, chance: {slow_ms / fast_ms:,.0f}x")

    seconds, summary = cli_seconds(args.cli_rounds)
    print(
        f"cardwar simulate --rounds {args.cli_rounds:,}: {seconds:.2f} s wall, start-up "
        f"included (target 5 s); it reports {summary['battles_per_second']:,} battles/s"
    )


if __name__ == "__main__":
    main()
