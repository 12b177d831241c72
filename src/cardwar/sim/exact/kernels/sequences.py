"""A small deck's rank sequences one after another, in lexicographic order: the step from one
to the next, in place (`every_deal` plays them; `cardwar.sim.exact` numbers them)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def next_sequence(ranks: np.ndarray) -> bool:
    """Step `ranks` to the next distinct sequence in lexicographic order, in place (the next
    permutation of a multiset); False after the last."""
    n = ranks.shape[0]
    i = n - 2
    while i >= 0 and ranks[i] >= ranks[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while ranks[j] <= ranks[i]:
        j -= 1
    ranks[i], ranks[j] = ranks[j], ranks[i]
    lo, hi = i + 1, n - 1
    while lo < hi:
        ranks[lo], ranks[hi] = ranks[hi], ranks[lo]
        lo += 1
        hi -= 1
    return True
