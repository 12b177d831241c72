"""How fast the readable engine plays classic rounds, records included, on one core.

    .venv/bin/python benchmarks/engine.py [--rounds 2000] [--repeat 3] [--preset classic]

Timings here are noisy, so every figure is measured side by side in one run, interleaved, best
of --repeat: the engine as shipped (with its two-player shortcut), the engine with the shortcut
switched off, and a bare loop that only moves two cards a battle (this machine's floor).
The target for the shipped engine is 200,000 battles per second.
"""

from __future__ import annotations

import argparse
import time
from collections import deque

from cardwar import Round, Rules


def play_rounds(rules: Rules, rounds: int) -> tuple[int, float]:
    """Play `rounds` seeded rounds to the end; returns (battles, seconds)."""
    battles = 0
    start = time.perf_counter()
    for seed in range(rounds):
        round_ = Round(rules, seed=seed)
        while round_.outcome is None:
            round_.play_battle()
        battles += round_.battles
    return battles, time.perf_counter() - start


def bare_loop(battles: int) -> float:
    """Seconds to move two cards between two deques `battles` times: no rules, no records."""
    a, b = deque(range(26)), deque(range(26, 52))
    start = time.perf_counter()
    for _ in range(battles):
        x, y = a.popleft(), b.popleft()
        (a if x > y else b).extend((x, y))
        if not a or not b:
            a, b = deque(range(26)), deque(range(26, 52))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--preset", default="classic")
    args = parser.parse_args()
    rules = Rules.preset(args.preset)

    best = {"shipped": 0.0, "general": 0.0, "bare": 0.0}
    total = 0
    for _ in range(args.repeat):
        Round._quick = True
        total, seconds = play_rounds(rules, args.rounds)
        best["shipped"] = max(best["shipped"], total / seconds)
        Round._quick = False
        _, seconds = play_rounds(rules, args.rounds)
        best["general"] = max(best["general"], total / seconds)
        Round._quick = True
        best["bare"] = max(best["bare"], total / bare_loop(total))

    print(f"{args.preset}: {args.rounds} rounds, {total} battles, best of {args.repeat}")
    print(f"  engine as shipped   {best['shipped']:>12,.0f} battles/s")
    print(f"  general path only   {best['general']:>12,.0f} battles/s")
    print(f"  bare two-deque loop {best['bare']:>12,.0f} moves/s")
    print(f"  shipped / general   {best['shipped'] / best['general']:.2f}x")
    print(f"  shipped / bare loop {best['shipped'] / best['bare']:.2f}x")
    verdict = "meets" if best["shipped"] >= 200_000 else "MISSES"
    print(f"  target 200,000 battles/s: {verdict}")


if __name__ == "__main__":
    main()
