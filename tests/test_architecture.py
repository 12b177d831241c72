"""docs/architecture.md holds to the tree: it names every module of the package (every .py file
under src/cardwar) and every ES module of the page, each as a path from `src/` such as
`cardwar/sim/exact/kernels/packed.py`, and names none that is not there. Every Python path it writes
is in that one form, or a path of the repository's own (`tests/…`, `benchmarks/…`), so that a
module cannot hide behind a shorter name."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src"
PACKAGE = SOURCE / "cardwar"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# A path in the package, as this page writes it: `cardwar/…/name.py` (or `.js`). Inside a longer
# path (`src/cardwar/…`) it is found too, so a stale name cannot hide there either.
NAMED = re.compile(r"(?<![\w.-])cardwar/(?:[\w-]+/)*[\w.-]+?\.(?:py|js)\b")
# Any path to a Python file, to check that each is written in one of the allowed forms.
PYTHON_PATH = re.compile(r"(?<![\w./-])(?:[\w.-]+/)*[\w-]+\.py\b")
OTHER_ROOTS = ("cardwar/", "src/cardwar/", "tests/", "benchmarks/")


def modules(suffix: str) -> set[str]:
    """Every file of the package with `suffix`, as a path from src/ (`cardwar/cli/round.py`)."""
    return {
        path.relative_to(SOURCE).as_posix()
        for path in PACKAGE.rglob(f"*{suffix}")
        if "__pycache__" not in path.parts
    }


def named(text: str, suffix: str) -> set[str]:
    """The package paths with `suffix` that `text` names."""
    return {name for name in NAMED.findall(text) if name.endswith(suffix)}


def strays(text: str) -> list[str]:
    """The Python paths of `text` written in no allowed form: not from src/ (`cardwar/…`), and
    not a path of the repository's tests or benchmarks."""
    return sorted({path for path in PYTHON_PATH.findall(text) if not path.startswith(OTHER_ROOTS)})


def test_the_architecture_names_every_module() -> None:
    """Each .py file under src/cardwar has its line in docs/architecture.md."""
    missing = sorted(modules(".py") - named(ARCHITECTURE.read_text(), ".py"))
    assert missing == []


def test_the_architecture_names_no_module_that_is_not_there() -> None:
    """Every module docs/architecture.md names is a .py file under src/cardwar."""
    extra = sorted(named(ARCHITECTURE.read_text(), ".py") - modules(".py"))
    assert extra == []


def test_the_architecture_names_the_page_modules() -> None:
    """Each ES module of the page has its line, and no module named is missing from the page."""
    text = ARCHITECTURE.read_text()
    assert sorted(modules(".js") - named(text, ".js")) == []
    assert sorted(named(text, ".js") - modules(".js")) == []


def test_every_python_path_is_written_one_way() -> None:
    """A module is always written from src/ (`cardwar/web/game/rounds.py`), never by a shorter path
    (`web/rounds.py`) or its bare name (`rounds.py`) that the checks above could not see."""
    assert strays(ARCHITECTURE.read_text()) == []


def test_the_checks_notice_a_wrong_name() -> None:
    """The extraction finds names in tables, prose and longer paths, and the strays."""
    text = (
        "| `cardwar/sim/warm.py` | x |\n"
        "see `src/cardwar/web/game/rounds.py`, `cardwar/web/static/app.js`\n"
        "and `tests/test_layout.py`;\n"
        "not `web/games.py`, nor `games.py`, nor cardwar/cli/__main__.py.\n"
    )
    assert named(text, ".py") == {
        "cardwar/sim/warm.py",
        "cardwar/web/game/rounds.py",
        "cardwar/cli/__main__.py",
    }
    assert named(text, ".js") == {"cardwar/web/static/app.js"}
    assert strays(text) == ["games.py", "web/games.py"]
    assert "cardwar/engine.py" in modules(".py") and "cardwar/__init__.py" in modules(".py")
