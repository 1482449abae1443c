"""Alembic's environment for the archive's schema (gateway/archive.py ``migrate``): online
only, one migrating process at a time (an advisory lock: gateways starting together)."""

from alembic import context
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

# Any fixed number: the lock's name among this database's advisory locks.
MIGRATION_LOCK = 7_314_159

# A server that does not answer holds a starting gateway no longer than this.
engine = create_engine(
    context.config.get_main_option("sqlalchemy.url") or "", poolclass=NullPool, connect_args={"connect_timeout": 5}
)
with engine.connect() as connection:
    connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
    connection.commit()
    try:
        context.configure(connection=connection, transactional_ddl=True)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
    finally:
        connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
        connection.commit()
engine.dispose()
