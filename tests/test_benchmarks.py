"""The benchmarks still run: each on a tiny load, checking what it prints, never its timings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_engine_benchmark_prints_its_ratio_and_target() -> None:
    out = run("engine.py", "--rounds", "5", "--repeat", "1")
    assert "battles/s" in out
    assert "target" in out


def test_api_benchmark_prints_click_static_probe_and_target() -> None:
    out = run("api.py", "--players", "3", "--paced-seconds", "1", "--flat-seconds", "0.5")
    for line in ("paced    one-battle click", "paced    static file", "additions"):
        assert line in out
    assert "flat out one-battle click" in out
    assert "click / probe" in out
    assert "target: paced click p99 under 10 ms" in out
