"""The database part of a backup: a consistent snapshot out, and back in.

SQLite: the online backup API (sqlite3.Connection.backup) copies every page in one step, inside one
read transaction, so the copy is the database as of one moment while writers carry on (WAL mode).
PostgreSQL: `pg_dump -Fc` reads everything in one repeatable-read snapshot; `pg_restore` puts it
back in one transaction."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from django.apps import apps
from django.db import connection

from collect.backup.manifest import BackupError

SQLITE_MEMBER = "database.sqlite3"
POSTGRES_MEMBER = "database.pgdump"
# The rows that make a database "not empty": Groundwork's data and user accounts. Not what
# `migrate` creates by itself (content types, permissions).
DATA_APPS = ("collect", "annotate", "retrieval")


def member_for(engine: str) -> str:
    return SQLITE_MEMBER if engine == "sqlite" else POSTGRES_MEMBER


def database_has_data() -> bool:
    """Whether the configured database holds any row of Groundwork's data (or a user account). A
    new database, migrated or not, does not."""
    tables = set(connection.introspection.table_names())
    models = [model for app in DATA_APPS for model in apps.get_app_config(app).get_models()]
    models.append(apps.get_model("auth", "User"))
    return any(
        model._meta.db_table in tables and model._default_manager.using(connection.alias).exists() for model in models
    )


def sqlite_dump(out: Path) -> None:
    connection.ensure_connection()
    copy = sqlite3.connect(out)
    try:
        # pages=-1 (the default): all pages in one step, i.e. one read transaction, one moment.
        connection.connection.backup(copy)
    finally:
        copy.close()


def sqlite_load(path: Path) -> None:
    """Replace the configured SQLite database with the copy, through the backup API again: other
    connections see the old database or the new one, never a half-written file."""
    connection.ensure_connection()
    source = sqlite3.connect(path)
    try:
        source.backup(connection.connection)
    finally:
        source.close()
    connection.close()  # Django's view of the schema and its cached statements start again


def _pg_env() -> dict[str, str]:
    settings = connection.settings_dict
    # pg_dump/pg_restore get this process's environment (PATH, a PGSSLMODE or PGPASSFILE the operator
    # set) with the database's connection on top.
    env = {**os.environ, "PGDATABASE": str(settings["NAME"])}
    for key, name in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD")):
        if settings.get(key):
            env[name] = str(settings[key])
    return env


def _pg_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(f"{name} is not installed: install PostgreSQL's client programs (Debian: postgresql-client)")
    return path


def _pg_run(args: list[str]) -> None:
    result = subprocess.run(args, env=_pg_env(), capture_output=True, text=True)
    if result.returncode != 0:
        raise BackupError(f"{Path(args[0]).name} failed ({result.returncode}): {result.stderr.strip()[-2000:]}")


def pg_tool_version(name: str = "pg_dump") -> str:
    result = subprocess.run([_pg_tool(name), "--version"], capture_output=True, text=True)
    return result.stdout.strip()


def pg_server_version() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return str(cursor.fetchone()[0])


def postgres_dump(out: Path) -> None:
    # No owners or grants: the dump restores into a database owned by whichever role restores it.
    _pg_run([_pg_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", f"--file={out}"])


def postgres_load(path: Path) -> None:
    """Into the configured database, in one transaction: on any error nothing is left changed.
    --clean --if-exists drops the tables a previous `migrate` made before creating them again."""
    connection.close()  # our own session must not hold locks on the tables being replaced
    _pg_run([
        _pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner", "--no-privileges",
        "--exit-on-error", "--single-transaction", f"--dbname={connection.settings_dict['NAME']}", str(path),
    ])
