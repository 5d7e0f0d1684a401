"""Applies the Alembic migrations (migrations/) to a database: ``upgrade(url)``."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from ..config import ROOT


def alembic_config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logger"] = False
    return config


def upgrade(url: str) -> None:
    """Brings the database at ``url`` to the newest revision. Call outside an event loop."""
    command.upgrade(alembic_config(url), "head")
