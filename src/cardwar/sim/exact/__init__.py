"""Exact answers: every deal of a small deck played once (the deck and its numbering, the
results, the driver on every core, a long job's checkpoint and batches), and their kernels."""
