"""`python -m cardwar.cli`: the `cardwar` command."""

from cardwar.cli import main

raise SystemExit(main())
