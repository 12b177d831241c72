"""Rounds and players in SQLite: one file, WAL mode, readable by its owner only. The schema and
its migrations are `schema.py`, the rows `rows.py`, the tables' queries `tables.py` (`Store`)."""

from cardwar.web.store.rows import MatchRow, MatchUpdate, PersonScore, RoundRow, Scoreboard
from cardwar.web.store.tables import RoundMoved, Store

__all__ = [
    "MatchRow",
    "MatchUpdate",
    "PersonScore",
    "RoundMoved",
    "RoundRow",
    "Scoreboard",
    "Store",
]
