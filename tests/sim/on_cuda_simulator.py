"""Run by `test_exact_gpu.py` in a process of its own, with `NUMBA_ENABLE_CUDASIM=1` set before
numba is imported (numba reads it once, so the other tests keep numba's real CUDA target):

    python tests/sim/on_cuda_simulator.py DECK RULES_JSON [SPLIT ...]

plays every sequence of DECK on the GPU kernel (on numba's CUDA simulator, in launches split at
the SPLIT sequence numbers) and on the CPU kernel, and asserts that they agree deal by deal
(each deal's outcome, length, wars and loop) and in every figure of the whole; prints one JSON
line of what it checked."""

from __future__ import annotations

import itertools
import json
import os
import sys

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run me on numba's CUDA simulator"

import numpy as np  # noqa: E402 -- after the check above, which must come first

from cardwar import Rules  # noqa: E402
from cardwar.sim.exact.deck import SmallDeck  # noqa: E402
from cardwar.sim.exact.driver import play_each_deal, play_every_deal  # noqa: E402
from cardwar.sim.exact.gpu import GpuSession  # noqa: E402
from cardwar.sim.exact.kernels.each_deal import E_PLAYED  # noqa: E402

# The simulator runs each CUDA thread as a Python thread: few threads a block, many deals each,
# is fastest here (measured: 4 x 1024 plays 3x4 about three times as fast as 32 x 64). Lists of
# 1024 rows run full on the first launch, so the halving of a launch is played too.
SHAPE = {"threads": 4, "per_thread": 2048, "launch": 1 << 15, "list_rows": 1024}
RECORDS = 5


def main(deck_name: str, rules_json: str, *splits: str) -> None:
    """Check DECK under RULES_JSON (see the module's head)."""
    deck = SmallDeck.parse(deck_name)
    rules = Rules.from_dict(json.loads(rules_json))
    session = GpuSession(rules, deck, records=RECORDS, **SHAPE)
    bounds = [0, *(int(split) for split in splits), deck.sequences]
    on_gpu = np.concatenate(
        [session.each(first, stop - first) for first, stop in itertools.pairwise(bounds)]
    )
    on_cpu = play_each_deal(rules, deck, 0, deck.sequences)
    differ = np.flatnonzero((on_gpu != on_cpu).any(axis=1))
    assert len(differ) == 0, (
        f"sequences {differ[:10].tolist()}: {on_gpu[differ[:3]]} {on_cpu[differ[:3]]}"
    )
    gpu = session.take()
    cpu = play_every_deal(rules, deck, records=RECORDS)
    assert gpu.to_dict(histograms=True) == cpu.to_dict(histograms=True)
    assert gpu.records() == cpu.records()
    assert (gpu.turned, gpu.sequences) == (cpu.turned, cpu.sequences)
    summary = gpu.to_dict()
    checked = {"deck": deck_name, "played": int(on_gpu[:, E_PLAYED].sum()),
               "deals": summary["deals"], "cycles": summary["cycles"]}  # fmt: skip
    sys.stdout.write(json.dumps(checked) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
