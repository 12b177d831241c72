"""The GPU kernel of exact answers (`cardwar simulate --enumerate … --device cuda`) plays every
deal as the CPU kernel does, deal by deal and in every figure, on numba's CUDA simulator (no GPU
here); it compiles for a real GPU where the CUDA toolkit is installed; and where no CUDA device
is present, `--device cuda` is refused in one line.

numba reads `NUMBA_ENABLE_CUDASIM` once, as it is imported, and the other tests use numba's real
targets: so everything on the simulator runs in a process of its own
(`tests/sim/on_cuda_simulator.py`, which the simulator runs one CUDA thread a Python thread)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cardwar.cli import main
from cardwar.errors import CardwarError
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.gpu import check_packed

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent.parent / "src"
FRENCH = {"gather": "natural", "war_down": 0, "battle_limit": None}
CUDA_HOME = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))


def on_simulator(*argv: str) -> str:
    """What `python ARGV` prints on numba's CUDA simulator; it must exit 0."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(SOURCE), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize(
    ("deck", "rules", "splits", "deals", "cycles"),
    [
        ("3x4", FRENCH, ["10007"], 17_370, 360),
        ("8x1", {"battle_limit": None}, ["20160", "20161"], 20_160, 0),
        ("4x2", {"gather": "table", "battle_limit": None}, [], 2_520, 920),
        ("3x3", {"war_down": 1, "battle_limit": 12, "shortage": "last_card"}, ["1"], 1_680, 0),
    ],
    ids=["3x4-natural", "8x1-winner_first", "4x2-table", "3x3-classic-limit"],
)
def test_the_gpu_kernel_plays_every_deal_as_the_cpu_kernel(
    deck: str, rules: dict[str, Any], splits: list[str], deals: int, cycles: int
) -> None:
    """Every sequence: played or skipped as a mirror alike, and each deal's winner, reason,
    battles, wars and loop (length and name) the same; then every figure of the whole (the
    histograms, loops, longest five deals, most cards turned up) the same as
    `play_every_deal`'s, the GPU's launches split at `splits` and halved where a list ran full."""
    printed = on_simulator(str(HERE / "on_cuda_simulator.py"), deck, json.dumps(rules), *splits)
    checked = json.loads(printed)
    assert (checked["deals"], checked["cycles"]) == (deals, cycles)


def test_the_command_line_prints_the_same_figures_on_the_gpu() -> None:
    """`--device cuda` (on the simulator) prints the same JSON figures as the CPU, the longest
    deals kept (`--records`) and all."""
    program = (
        "import json, sys, io\n"
        "from rich.console import Console\n"
        "from cardwar.cli import main\n"
        "printed = []\n"
        "for device in ('cuda', 'cpu'):\n"
        "    out = io.StringIO()\n"
        "    argv = ['simulate', '--enumerate', '3x3', '--rules', sys.argv[1], '--records', '3',\n"
        "            '--json', '--device', device]\n"
        "    assert main(argv, Console(file=out)) == 0\n"
        "    printed.append(json.loads(out.getvalue()))\n"
        "print(json.dumps(printed))\n"
    )
    cuda, cpu = json.loads(on_simulator("-c", program, json.dumps(FRENCH)))
    timing = {"seconds", "wall_seconds", "deals_per_second", "workers", "device"}
    assert (cuda["device"], cpu["device"]) == ("cuda", "cpu")
    assert {k: v for k, v in cuda.items() if k not in timing} == {
        k: v for k, v in cpu.items() if k not in timing
    }
    assert cuda["deals"] == 1_680 and len(cuda["records"]) == 3


def test_device_cuda_without_a_device_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No CUDA device here: status 2 and one line that names the option and what is missing."""
    from numba import cuda

    if cuda.is_available():  # type: ignore[no-untyped-call]  # numba.cuda is untyped
        pytest.skip("a CUDA device is present here")
    assert main(["simulate", "--enumerate", "3x4", "--device", "cuda"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("cardwar: error: --device cuda: no CUDA device here")
    assert "numba.cuda.is_available() is false" in err


def test_device_belongs_with_enumerate_and_a_packed_deck(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--device cuda` without --enumerate is refused, and so is a deck the GPU kernel does not
    play (its piles too big for one word), naming --enumerate."""
    assert main(["simulate", "--rounds", "10", "--device", "cuda"]) == 2
    assert capsys.readouterr().err.startswith("cardwar: error: --device: belongs with --enumerate")
    with pytest.raises(CardwarError, match=r"^deck 6x4: --device cuda plays decks whose piles"):
        check_packed(SmallDeck.parse("6x4"))
    check_packed(SmallDeck.parse("5x4"))
    check_packed(SmallDeck.parse("13x1"))


def test_the_cpu_path_never_imports_numba_cuda() -> None:
    """The CPU path, the command line and even the GPU's driver module import no `numba.cuda`
    until the GPU is asked for."""
    program = (
        "import sys\n"
        "import cardwar.cli, cardwar.cli.exact, cardwar.sim.exact.job, cardwar.sim.exact.gpu\n"
        "assert not any(name.startswith('numba.cuda') for name in sys.modules), 'numba.cuda'\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(
    not (CUDA_HOME / "nvvm" / "libdevice").is_dir(), reason="no CUDA toolkit (NVVM) here"
)
def test_the_gpu_kernel_compiles_for_a_hopper_gpu(tmp_path: Path) -> None:
    """The kernel compiles to PTX for compute capability 9.0 (an H100) with the CUDA toolkit's
    NVVM, and `ptxas` assembles it: what the simulator, which runs it as Python, cannot check."""
    ptx = tmp_path / "play_blocks.ptx"
    env = {**os.environ, "PYTHONPATH": str(SOURCE), "CUDA_HOME": str(CUDA_HOME)}
    done = subprocess.run(
        [sys.executable, str(HERE / "gpu_ptx.py"), str(ptx)],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert ".entry" in ptx.read_text()
    ptxas = shutil.which("ptxas", path=str(CUDA_HOME / "bin"))
    if ptxas is not None:
        assembled = subprocess.run(
            [ptxas, "-arch=sm_90", str(ptx), "-o", str(tmp_path / "play_blocks.cubin")],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert assembled.returncode == 0, assembled.stderr


def test_the_gpu_benchmark_says_there_is_no_device_or_compares_the_kernels() -> None:
    """`benchmarks/enumerate_cuda.py` with no CUDA device: one line saying so, status 0; on the
    simulator, a tiny deck's shards with both speeds, their ratio and the same figures."""
    script = str(HERE.parent.parent / "benchmarks" / "enumerate_cuda.py")
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    done = subprocess.run(
        [sys.executable, script], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    if "no CUDA device here" in done.stdout:
        assert done.stdout.count("\n") == 1
    printed = on_simulator(script, "--deck", "2x4", "--shards", "2", "--size", "30")
    assert printed.count("same figures") == 2 and "DIFFER" not in printed
    assert "GPU / CPU" in printed.splitlines()[-1] and "deals/s" in printed
