"""Numba's on-disk cache for the kernels, stamped with every source they are compiled from.

Numba keys a cached function on its own file alone: a kernel that inlines a helper from another
module, or bakes in a constant taken from the core, would be loaded from the cache unchanged
after that helper or constant changed. Every function of the kernel packages (this one,
`runs/kernels` and `exact/kernels`) is stamped instead with the source of every kernel module and
of the core modules the kernels take constants from, so a change to any of them compiles the
kernels afresh. The cache stays where numba puts it
(`__pycache__`, or `NUMBA_CACHE_DIR`); only its freshness test is wider.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

from numba.core import caching

import cardwar

SIM = Path(__file__).resolve().parent.parent
CORE = Path(cardwar.__file__).resolve().parent
# Every kernel module: the shared ones here, and those of runs/ and exact/, each in a `kernels`.
KERNELS = sorted(path for path in SIM.rglob("*.py") if path.parent.name == "kernels")
# cards: the card index and RANK_SHIFT; records: Reason's order; rules: the enums and MAX_PLAYERS.
SOURCES = (*KERNELS, CORE / "cards.py", CORE / "records.py", CORE / "rules.py")

# Numba 0.60 names these with a leading underscore; newer releases without.
_Impl: Any = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # type: ignore[attr-defined]  # numba does not type its caching module


@cache
def stamp() -> str:
    """A digest of every source the kernels are compiled from."""
    digest = hashlib.sha256()
    for path in SOURCES:
        digest.update(path.relative_to(CORE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class _Locator(caching._CacheLocator):
    """Numba's own locator for a kernel function, with the wider stamp."""

    def __init__(self, inner: Any, py_file: str) -> None:
        self._inner = inner
        self._py_file = py_file  # numba names the file in its warnings

    def ensure_cache_path(self) -> None:
        self._inner.ensure_cache_path()

    def get_cache_path(self) -> Any:
        return self._inner.get_cache_path()

    def get_disambiguator(self) -> Any:
        return self._inner.get_disambiguator()

    def get_source_stamp(self) -> Any:
        return self._inner.get_source_stamp(), stamp()

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _Locator | None:
        path = Path(py_file).resolve()
        if (path.parent.name != "kernels" or SIM not in path.parents) and path not in _ALSO:
            return None
        for other in _Impl._locator_classes:
            if other is not cls:
                inner = other.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner, py_file)
        return None


_ALSO: set[Path] = set()


def stamp_also(py_file: str) -> None:
    """Stamp the kernels of `py_file` too, a module outside the kernel packages (a test's own
    kernel over these): call it before they are decorated."""
    _ALSO.add(Path(py_file).resolve())


def keep_fresh() -> None:
    """Stamp the functions of this package from now on (numba picks a function's locator when
    it is decorated, so this runs before any kernel module is imported)."""
    if _Locator not in _Impl._locator_classes:
        _Impl._locator_classes.insert(0, _Locator)
