"""Alembic environment: pbm passes its own connection (see ``pbm.db.upgrade``)."""

from alembic import context
from sqlalchemy import create_engine

import pbm.models  # noqa: F401  (registers every table on Base.metadata)
from pbm.db import Base, database_url

target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:  # the alembic command line: use PBM_DATABASE_URL or pbm.db
        engine = create_engine(database_url())
        with engine.begin() as connection:
            _run(connection)
    else:
        _run(connection)


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("pbm migrations run online only (pbm applies them on first use)")
run_migrations_online()
