"""The fast simulator's kernels: numba over integer arrays, the rules of docs/rules.md once more.

- `codes`: the integers the kernels and Python share (card index, rules array, reason codes).
"""
