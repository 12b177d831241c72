"""`python -m cardwar.cli`: the `cardwar` command."""

from cardwar.cli.main import main

raise SystemExit(main())
