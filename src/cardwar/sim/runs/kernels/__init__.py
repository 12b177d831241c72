"""The kernels of random rounds: many at once (`random_rounds`), the common table's own
(`classic`), the chance to win (`chances`) and deals read from JSON lines (`lines`)."""

from cardwar.sim import kernels  # noqa: F401 -- numba's cache made fresh before any kernel here
