#!/usr/bin/env python3
"""The project's two commands, on any machine with Python 3.11+ and this repo.

    python3 dev.py play   install the game into .venv, then start it (prints the URL)
    python3 dev.py test   install the game and its test tools into .venv, then lint, type-check
                          and run every test

Only the standard library is used here, so it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
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
    try:
        status = subprocess.call([str(part) for part in command], cwd=ROOT)
    except KeyboardInterrupt:  # Ctrl+C stops the game: no traceback for that
        raise SystemExit(130) from None
    if status:
        raise SystemExit(status)


def install(extras: str = "") -> None:
    """Create .venv and install the project (with `extras`, such as "dev"), unless already up to
    date: the game alone for `play`, the game and its test tools for `test`."""
    if sys.version_info < (3, 11):  # noqa: UP036 -- dev.py must explain itself on an old Python
        raise SystemExit(f"cardwar needs Python 3.11 or newer, this is {sys.version.split()[0]}")
    project = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    done = STAMP.read_text().split() if STAMP.exists() else []
    # Installed with these extras, or with more (a venv with the test tools plays as well).
    if done[:1] == [project] and (not extras or extras in done[1:]):
        return
    if not (BIN / "python").exists():
        print(f"+ creating {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    target = f".[{extras}]" if extras else "."
    run(BIN / "python", "-m", "pip", "install", "--quiet", "--editable", target)
    kept = {*done[1:], extras} - {""} if done[:1] == [project] else {extras} - {""}
    STAMP.write_text(" ".join([project, *sorted(kept)]))


def play(args: list[str]) -> None:
    """Start the web game (`cardwar serve`); it prints the address to open."""
    install()
    # The game's own hints (how to let phones in, say) then name this command, which runs as
    # printed here, rather than `cardwar`, which is not on the shell's path.
    os.environ["CARDWAR_STARTED_AS"] = "python3 dev.py play"
    run(BIN / "cardwar", "serve", *args)


# Debian's Chromium, headless build first: the same browser without its windowing half, which
# runs the browser tests on about half the processor time of the full `chromium`.
BROWSERS = ("chromium-headless-shell", "chromium")


def ensure_chromium() -> None:
    """The browser tests drive Debian's Chromium; as root, install it with apt when missing."""
    if os.environ.get("CARDWAR_CHROMIUM") or shutil.which(BROWSERS[0]):
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        run("apt-get", "update", "-qq")
        for package in BROWSERS:  # the full browser only if the headless build is not offered
            print("+ apt-get install -y -qq", package, flush=True)
            if subprocess.call(["apt-get", "install", "-y", "-qq", package], cwd=ROOT) == 0:
                return
    if shutil.which(BROWSERS[1]):
        print(
            "+ browser tests in chromium: apt-get install chromium-headless-shell runs them faster"
        )
        return
    raise SystemExit(
        "The browser tests need Chromium: install Debian's package"
        " (apt-get install chromium-headless-shell, or chromium)"
        " or set CARDWAR_CHROMIUM to a Chromium binary."
    )


def test(args: list[str]) -> None:
    """Formatting, lint, strict types on the core, then the whole pytest suite."""
    install("dev")
    ensure_chromium()
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
