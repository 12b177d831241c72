"""The API's routes, an `APIRouter` per resource: rounds, matches, me, simulations, rules, live
tables, and the page itself."""

from cardwar.web.routes import matches, me, pages, rounds, rules, simulations, tables

__all__ = ["matches", "me", "pages", "rounds", "rules", "simulations", "tables"]
