"""Alembic environment: run with a connection handed in by `bot.storage.migrate`."""

from alembic import context

from bot.storage.tables import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("Run migrations with `quizbot db upgrade`, which supplies the connection.")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
