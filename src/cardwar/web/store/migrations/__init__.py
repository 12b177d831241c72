"""The store's Alembic revisions (`versions/`), their environment (`env.py`) and the steps they
are written with (`steps.py`). Loaded only when a database is behind this cardwar's schema:
`schema.upgrade` looks at the version first, with no SQLAlchemy."""
