"""Several statements in one round trip to PostgreSQL.

Under load, each round trip of the chat message path costs a busy chat process far more than the
database's own time: the thread that waits for the answer has to be woken and win the GIL again
(docs/deployment.md). psycopg's pipeline mode sends statements together and reads their answers
together. The statements are ORM querysets, compiled by Django as usual; each still runs as a
statement of its own, in order, in the caller's transaction. So under READ COMMITTED a read that
follows a row lock in the same batch sees what the transaction it waited for had committed.

On other databases (SQLite has no round trips) the statements simply run one after another."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.db import connections
from django.db.models import QuerySet, sql


@dataclass(frozen=True)
class Read:
    """The rows of a `values_list` queryset, as tuples, converted as Django converts them."""

    queryset: QuerySet

    def run(self) -> list[tuple[Any, ...]]:
        return list(self.queryset)

    def compile(self, using: str) -> tuple[Any, str, Any]:
        compiler = self.queryset.query.get_compiler(using)
        return (compiler, *compiler.as_sql())

    @staticmethod
    def result(compiler: Any, cursor: Any) -> list[tuple[Any, ...]]:
        return list(compiler.results_iter(results=[cursor.fetchall()], tuple_expected=True))


@dataclass(frozen=True)
class Update:
    """`queryset.update(**values)`: the number of rows it changed."""

    queryset: QuerySet
    values: dict[str, Any]

    def run(self) -> int:
        return self.queryset.update(**self.values)

    def compile(self, using: str) -> tuple[Any, str, Any]:
        query = self.queryset.query.chain(sql.UpdateQuery)
        query.add_update_values(self.values)
        query.annotations = {}
        compiler = query.get_compiler(using)
        return (compiler, *compiler.as_sql())

    @staticmethod
    def result(compiler: Any, cursor: Any) -> int:
        return cursor.rowcount


def run_together(*statements: Read | Update, using: str = "default") -> list[Any]:
    """Each statement's result, in order. Run inside the caller's transaction, if any."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return [statement.run() for statement in statements]
    compiled = [statement.compile(using) for statement in statements]
    connection.ensure_connection()
    raw = connection.connection
    started = time.monotonic()
    with connection.wrap_database_errors:
        cursors = []
        with raw.pipeline():
            for _compiler, text, params in compiled:
                cursor = raw.cursor()
                cursor.execute(text, params)
                cursors.append(cursor)
        results = [s.result(c[0], cursor) for s, c, cursor in zip(statements, compiled, cursors)]
    if connection.queries_logged:
        # Kept in connection.queries like any other statement (DEBUG, assertNumQueries).
        elapsed = f"{(time.monotonic() - started) / len(compiled):.3f}"
        for (_compiler, text, params), cursor in zip(compiled, cursors):
            connection.queries_log.append({"sql": connection.ops.last_executed_query(cursor, text, params), "time": elapsed})
    return results
