"""Run by `test_exact_gpu.py` in a process of its own: `python tests/sim/gpu_ptx.py OUT.ptx`
compiles the GPU kernel of exact answers to PTX for compute capability 9.0 (an H100) with the
CUDA toolkit's NVVM, with no GPU here, and writes it to OUT.ptx."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numba.cuda.dispatcher as dispatcher
from numba import cuda, types

from cardwar.sim.exact.kernels import gpu

HOPPER = (9, 0)
# With no GPU here, a device function's compilation asks a device that is not there for its
# compute capability: it is told the one compiled for.
dispatcher.get_current_device = lambda: SimpleNamespace(compute_capability=HOPPER)  # type: ignore[assignment]  # a stand-in for the device numba asks
ROW, TABLE, WHOLE, FLAG = types.int64[::1], types.int64[:, ::1], types.int64, types.boolean
# `gpu.play_blocks`'s arguments: the rules, 7 whole numbers, mirror and seatings, bits and keep,
# the counters and histograms, 4 lists, best and found, and the rows of each deal.
SIGNATURE = (ROW, *[WHOLE] * 7, FLAG, FLAG, WHOLE, WHOLE, ROW, ROW, ROW, *[TABLE] * 4, ROW, ROW,
             TABLE)  # fmt: skip

if __name__ == "__main__":
    ptx, _ = cuda.compile_ptx(gpu.play_blocks.py_func, SIGNATURE, cc=HOPPER)
    with open(sys.argv[1], "w") as out:
        out.write(ptx)
