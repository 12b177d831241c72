"""The API's routes, an `APIRouter` per resource: rounds, matches, me, simulations, rules, and
the page itself."""
