"""Random rounds on the fast simulator: runs of one rule set, given deals, hands, a Dask cluster,
the chance to win, and their kernels."""
