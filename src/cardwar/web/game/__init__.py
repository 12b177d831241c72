"""The game the server plays for a browser: its rounds (dealt, played, timed and kept in memory),
its matches, a round looked back on, the view of a round a player may see, the people at its
table, and who a browser is.

Read `rounds.py` first: every other part of the web game plays through `Rounds`."""
