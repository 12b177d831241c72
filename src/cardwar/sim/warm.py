"""The simulator's kernels made ready before anyone waits for them: compiled by numba on a first
run (its cache empty: about 20 s of one core), loaded from its cache after that (under a second).

A page reaches two families of kernels: the chance meter's, and the statistics' (the common
table's own kernel, and the general one with its loop watch for any other rules). The web app
prepares all of them before it answers anyone (`cardwar.web.app.lifespan`), so that a player's
first chance estimate, or the House rules panel's draw estimate, never waits for a compiler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cardwar.engine import Round
from cardwar.rules import CLASSIC, Gather, Rules

FIRST_RUN_S = 20
"""About how long a first run compiles them on one core of this project's machines."""


def _chance() -> None:
    from cardwar.sim.runs.chance import chance_to_win

    chance_to_win(Round(CLASSIC, seed=1), runs=1)


def _classic_statistics() -> None:
    from cardwar.sim.runs.run import simulate

    simulate(CLASSIC, 10, 1, workers=1)


def _other_statistics() -> None:
    from cardwar.sim.runs.run import simulate

    # Table order with no limit loops: the general kernel and its loop watch.
    simulate(Rules(gather=Gather.TABLE, battle_limit=None), 10, 1, workers=1)


STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("the chance meter", _chance),
    ("statistics of the classic table", _classic_statistics),
    ("statistics of any other rules", _other_statistics),
)
"""Every kernel family a page can reach, each with the words that name it."""


def prepare(report: Callable[[int, int, str], None] | None = None) -> None:
    """Compile (or load) every kernel a page can reach, in this process; `report(done, total,
    what)` is told before each step and once at the end (`what` empty)."""
    for done, (what, step) in enumerate(STEPS):
        if report is not None:
            report(done, len(STEPS), what)
        step()
    if report is not None:
        report(len(STEPS), len(STEPS), "")


def run_step(index: int) -> None:
    """Compile (or load) the kernels of step `index` of STEPS, in this process (the server's
    worker process runs them one by one, so that the server can tell which is under way)."""
    STEPS[index][1]()


def cache_is_filled() -> bool:
    """True if numba's cache holds, for this very source, the kernel of each family a page
    reaches (its index has entries, and their source's stamp is the file's now): a start then
    loads them in a second and compiles nothing. Read through numba's own cache objects, which
    are not its public interface: anything unexpected there reads as an empty cache (a start
    then prepares as on a first one, which is slower, never wrong)."""
    from cardwar.sim.runs.kernels.chances import chances
    from cardwar.sim.runs.kernels.classic import play_classic_parallel
    from cardwar.sim.runs.kernels.random_rounds import play_rounds_parallel

    kernels: tuple[Any, ...] = (chances, play_classic_parallel, play_rounds_parallel)
    try:
        return all(bool(kernel._cache._cache_file._load_index()) for kernel in kernels)
    except Exception:
        return False
