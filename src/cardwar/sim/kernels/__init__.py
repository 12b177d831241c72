"""The fast simulator's kernels: numba over integer arrays, the rules of docs/rules.md once more.

The readable engine (`cardwar.engine`) is the reference; this is a second implementation, held
to it by `tests/sim/test_simulator.py`, which plays thousands of deals on both and compares winner,
reason, battles, wars and final piles round by round.

- `codes`: the integers the kernels and Python share (card index, rules array, reason codes).
- `workspace`: the one int64 array a round is played in, region by region.
- `rng`: the seedable generator, and the shuffle made with it.
- `ring`: a seat's pile as a ring; dealing, keeping and comparing a position.
- `battle`: one battle by the full rules.
- `plain`: the plain two-player battle, played in runs.
- `loops`: Brent's loop watch.
- `round`: a round played to its end, and where a loop began.
- `tally`: a run's counters, histograms and records, and the one tally of an ended round.
- `cache`: numba's cache for all the kernels, stamped with every source they are compiled from.

The kernels of random rounds are in `cardwar.sim.runs.kernels`, those of exact answers in
`cardwar.sim.exact.kernels`; both build on these.
"""

from cardwar.sim.kernels import cache

cache.keep_fresh()  # before any kernel module is imported: numba reads it as it decorates
