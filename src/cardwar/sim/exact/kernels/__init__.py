"""The kernels of exact answers: a round in registers (`packed`), every deal of a range of
sequences (`every_deal`) and the step to the next sequence (`sequences`)."""

from cardwar.sim import kernels  # noqa: F401 -- numba's cache made fresh before any kernel here
