"""Live tables: people each on their own device at one table (docs/api.md#live-tables).

Read `table.py` first: a live table's rules, as one pure value. Around it, `service.py`'s
`LiveTables` does each thing asked of a table in five steps (load, lock, apply, save, tell) with
`room.py` (the tables this process has in hand), `battles.py` (the table's round, played and
shown), `doors.py` (sockets coming and going) and `presence.py` (a table shared between
processes: in memory, or in Redis). `wire.py` is every message both ways, `hub.py` carries them
to the sockets, `sockets.py` is a socket's life, and `invite.py` the links and their QR codes.
"""
