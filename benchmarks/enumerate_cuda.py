"""Every deal of a deck on a CUDA GPU against the CPU kernel, on the same shards, side by side.

    .venv/bin/python benchmarks/enumerate_cuda.py [--deck 5x4] [--gather natural]
                                                  [--shards 4] [--size 100000000] [--repeat 1]

The shards are `--shards` ranges of `--size` sequences spread evenly over the deck's order (the
deals played crowd its start, where a deal comes before its mirror). Each is played on the CPU
kernel on every core (`play_every_deal`) and on the GPU kernel (`--device cuda`,
`play_every_deal_on_gpu`), and the two must find the same figures (every count, histogram, loop
and longest deal); it prints each one's deals a second and GPU / CPU, shard by shard and over
all of them. Both kernels are compiled on a small range first, so no time is a compile.

With no CUDA device here it says so in one line and exits 0: there is nothing to time.
"""

from __future__ import annotations

import argparse
import os
import time

from cardwar import Rules
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.driver import play_every_deal
from cardwar.sim.exact.gpu import cuda_present, play_every_deal_on_gpu
from cardwar.sim.exact.results import ExactResults


def shards(deck: SmallDeck, count: int, size: int) -> list[tuple[int, int]]:
    """`count` ranges of `size` sequences, spread evenly over the deck's order."""
    size = min(size, deck.sequences // count)
    step = deck.sequences // count
    return [(k * step, size) for k in range(count)]


def timed(
    play: str, rules: Rules, deck: SmallDeck, first: int, size: int
) -> tuple[ExactResults, float]:
    """One shard on `play` (cpu or cuda): its figures and the seconds it took."""
    started = time.perf_counter()
    if play == "cuda":
        found = play_every_deal_on_gpu(rules, deck, first=first, count=size)
    else:
        found = play_every_deal(rules, deck, first=first, count=size)
    return found, time.perf_counter() - started


def main() -> int:
    """Time both kernels on the same shards; 0 (and a line saying why) with no CUDA device."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="5x4")
    parser.add_argument("--gather", default="natural", choices=["natural", "winner_first", "table"])
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--size", type=int, default=100_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if not cuda_present():
        print(
            "no CUDA device here (numba.cuda.is_available() is false): nothing to time; run "
            "this on a machine with an NVIDIA GPU"
        )
        return 0
    from numba import cuda

    deck = SmallDeck.parse(args.deck)
    rules = Rules(gather=args.gather, war_down=0, battle_limit=None)
    device = cuda.get_current_device().name if hasattr(cuda, "get_current_device") else "simulated"
    name = device.decode() if isinstance(device, bytes) else str(device)
    print(f"every deal of {deck} ({args.gather}, no card down): GPU {name} against the CPU kernel "
          f"on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for play in ("cpu", "cuda"):  # compile both first
        timed(play, rules, deck, 0, min(1 << 16, deck.sequences))
    totals = {"cpu": 0.0, "cuda": 0.0}
    deals = 0
    for _ in range(args.repeat):
        for first, size in shards(deck, args.shards, args.size):
            on_cpu, cpu_seconds = timed("cpu", rules, deck, first, size)
            on_gpu, gpu_seconds = timed("cuda", rules, deck, first, size)
            same = on_gpu.to_dict(histograms=True) == on_cpu.to_dict(histograms=True)
            totals["cpu"] += cpu_seconds
            totals["cuda"] += gpu_seconds
            deals += on_cpu.deals
            print(
                f"  sequences {first:,}:{first + size:,}: {on_cpu.deals:,} deals, CPU "
                f"{on_cpu.deals / cpu_seconds:,.0f} deals/s, GPU {on_gpu.deals / gpu_seconds:,.0f}"
                f" deals/s, GPU / CPU {cpu_seconds / gpu_seconds:.1f}x, "
                + ("same figures" if same else "FIGURES DIFFER")
            )
    print(
        f"all shards: {deals:,} deals, CPU {deals / totals['cpu']:,.0f} deals/s, GPU "
        f"{deals / totals['cuda']:,.0f} deals/s, GPU / CPU {totals['cpu'] / totals['cuda']:.1f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
