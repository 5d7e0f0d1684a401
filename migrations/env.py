"""Alembic environment, async: the URL comes from the config's ``sqlalchemy.url`` (set by
``server.store.migrate``) or from DATABASE_URL."""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

from server.config import Settings
from server.store import make_engine
from server.store.tables import metadata

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

URL = (
    config.get_main_option("sqlalchemy.url")
    or os.environ.get("DATABASE_URL")
    or Settings.database_url
)


def run_migrations_offline() -> None:
    context.configure(url=URL, target_metadata=metadata, literal_binds=True,
                      render_as_batch=URL.startswith("sqlite"))
    with context.begin_transaction():
        context.run_migrations()


# PostgreSQL: processes that start together on one database (a cluster, a rolling deploy)
# migrate one after the other, the later ones finding it done; the lock ends with the commit
MIGRATION_LOCK = 0x63617369  # "casi"


def do_run_migrations(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("select pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    context.configure(connection=connection, target_metadata=metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


async def run_migrations_online() -> None:
    engine = make_engine(URL)
    async with engine.connect() as connection:
        await connection.run_sync(do_run_migrations)
        await connection.commit()
    await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
