#!/usr/bin/env python3
"""The project's two commands, on any machine with Python 3.11+ and this repo.

    python3 dev.py play   install everything into .venv, then play (prints what it runs)
    python3 dev.py test   install everything into .venv, then lint, type-check and run every test

Only the standard library is used here, so it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".cardwar-installed"


def run(*command: str | Path) -> None:
    """Run a command from the repo root; stop with its exit status if it fails."""
    print("+", " ".join(str(part) for part in command), flush=True)
    status = subprocess.call([str(part) for part in command], cwd=ROOT)
    if status:
        raise SystemExit(status)


def install() -> None:
    """Create .venv and install the project with its dev tools, unless already up to date."""
    if sys.version_info < (3, 11):  # noqa: UP036 -- dev.py must explain itself on an old Python
        raise SystemExit(f"cardwar needs Python 3.11 or newer, this is {sys.version.split()[0]}")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print(f"+ creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--editable", ".[dev]")
    STAMP.write_text(wanted)


def play(args: list[str]) -> None:
    """Play a round (until the web game lands, the readable engine tells one in the terminal)."""
    install()
    run(BIN / "cardwar", "round", *args)


def test(args: list[str]) -> None:
    """Formatting, lint, strict types on the core, then the whole pytest suite."""
    install()
    run(BIN / "ruff", "format", "--check", ".")
    run(BIN / "ruff", "check", ".")
    run(BIN / "mypy")
    run(BIN / "pytest", *args)


def main() -> None:
    commands = {"play": play, "test": test}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        raise SystemExit(f"usage: python3 dev.py {{{'|'.join(commands)}}} [arguments...]")
    commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
