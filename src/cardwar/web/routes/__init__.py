"""The API's routes, an `APIRouter` per resource: rounds, matches, me, simulations, rules, live
tables, the page itself, and the health a load balancer asks for."""

from cardwar.web.routes import health, matches, me, pages, rounds, rules, simulations, tables

__all__ = ["health", "matches", "me", "pages", "rounds", "rules", "simulations", "tables"]
