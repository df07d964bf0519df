"""Several statements in one round trip to PostgreSQL, compiled once.

Under load, each round trip of the chat message path costs a busy chat process far more than the
database's own time: the thread that waits for the answer has to be woken and win the GIL again
(docs/deployment.md). psycopg's pipeline mode sends statements together and reads their answers
together. The statements are ORM querysets, compiled by Django as usual; each still runs as a
statement of its own, in order, in the caller's transaction. So under READ COMMITTED a read that
follows a row lock in the same batch sees what the transaction it waited for had committed.

Building and compiling a queryset costs the chat process more CPU than the database spends running
it. A statement whose shape never changes is written once, as a `Prepared` one with a `Param` where
each value goes: Django compiles it once per connection, and each use binds only the values. On
PostgreSQL the values travel apart from the SQL text (server-side binding) and a prepared
statement is parsed and planned once per connection (`DATABASE_PREPARED_STATEMENTS`).

On other databases (SQLite has no round trips) the statements run one after another."""

from __future__ import annotations

import time
import weakref
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Union

import psycopg
from django.db import connections
from django.db.models import Expression, Field, Model, QuerySet, sql
from django.db.models.signals import post_save, pre_save


class Compiled(NamedTuple):
    text: str
    params: Any
    result: Callable[[Any], Any]  # cursor → the statement's result


class Param(Expression):
    """A value bound each time a prepared statement runs, converted as `output_field` converts a
    value for a lookup, or for saving where Django resolves it for an UPDATE or INSERT (as it
    does `Value`)."""

    for_save = False

    def __init__(self, name: str, output_field: Field) -> None:
        super().__init__(output_field=output_field)
        self.name = name

    def resolve_expression(self, query: Any = None, allow_joins: bool = True, reuse: Any = None,
                           summarize: bool = False, for_save: bool = False) -> Param:
        resolved = super().resolve_expression(query, allow_joins, reuse, summarize, for_save)
        resolved.for_save = for_save
        return resolved

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        return "%s", [self]

    def bind(self, values: dict[str, Any], connection: Any) -> Any:
        value = values[self.name]
        if self.for_save:
            return self.output_field.get_db_prep_save(value, connection=connection)
        return self.output_field.get_db_prep_value(value, connection=connection, prepared=False)


@dataclass(frozen=True)
class Read:
    """The rows of a `values_list` queryset, as tuples, converted as Django converts them."""

    queryset: QuerySet

    def compile(self, connection: Any) -> Compiled:
        compiler = self.queryset.query.get_compiler(connection=connection)
        text, params = compiler.as_sql()
        # What SQLCompiler.results_iter() works out for every result, worked out once.
        fields = [column[0] for column in compiler.select[: compiler.col_count]]
        converters = compiler.get_converters(fields)
        composite = compiler.has_composite_fields(fields)

        def result(cursor: Any) -> list[tuple[Any, ...]]:
            rows: Any = cursor.fetchall()
            if converters:
                rows = compiler.apply_converters(rows, converters)
            if composite:
                rows = compiler.composite_fields_to_tuples(rows, fields)
            return list(map(tuple, rows))

        return Compiled(text, params, result)


@dataclass(frozen=True)
class Written:
    """SQL the ORM cannot write (an UPDATE … FROM … RETURNING): `sql(connection)` gives its text
    and parameters (`Param`s where values go), and its rows, which have the columns of `like` (a
    `values_list` queryset) in the same order, are converted as `Read` converts like's."""

    sql: Callable[[Any], tuple[str, list[Any]]]
    like: QuerySet

    def compile(self, connection: Any) -> Compiled:
        text, params = self.sql(connection)
        return Compiled(text, params, Read(self.like).compile(connection).result)


@dataclass(frozen=True)
class Update:
    """`queryset.update(**values)`: the number of rows it changed."""

    queryset: QuerySet
    values: dict[str, Any]

    def compile(self, connection: Any) -> Compiled:
        query = self.queryset.query.chain(sql.UpdateQuery)
        query.add_update_values(self.values)
        query.annotations = {}
        text, params = query.get_compiler(connection=connection).as_sql()
        return Compiled(text, params, lambda cursor: cursor.rowcount)


@dataclass(frozen=True)
class Insert:
    """The INSERT of a new `model` row with every concrete field but an auto primary key, each a
    `Param` named by its attname (`insert` binds them); its primary key."""

    model: type[Model]

    def compile(self, connection: Any) -> Compiled:
        meta = self.model._meta
        fields = [f for f in meta.concrete_fields if f is not meta.auto_field]
        query = sql.InsertQuery(self.model)
        # raw: each value is the Param itself; pre_save (auto_now_add...) runs when binding.
        query.insert_values(fields, [self.model(**{f.attname: Param(f.attname, f) for f in fields})], raw=True)
        compiler = query.get_compiler(connection=connection)
        compiler.returning_fields = [meta.pk]
        [(text, params)] = compiler.as_sql()
        converters = compiler.get_converters([meta.pk.get_col(meta.db_table)])

        def result(cursor: Any) -> Any:
            [row] = compiler.apply_converters([list(cursor.fetchone())], converters) if converters else [cursor.fetchone()]
            return row[0]

        return Compiled(text, params, result)


Statement = Union[Read, Written, Update, Insert]


class Prepared:
    """A statement of a fixed shape: `build()` returns it with `Param`s for its values. Compiled
    once per database connection (each thread has its own); `prepared(name=value, ...)` is the
    statement with those values, for `run_together`."""

    def __init__(self, build: Callable[[], Statement]) -> None:
        self.build = build
        self._compiled: weakref.WeakKeyDictionary[Any, Compiled] = weakref.WeakKeyDictionary()

    def __call__(self, **values: Any) -> Bound:
        return Bound(self, values)

    def compiled(self, connection: Any) -> Compiled:
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compiled[connection] = self.build().compile(connection)
        return compiled


@dataclass(frozen=True)
class Bound:
    prepared: Prepared
    values: dict[str, Any]

    def compile(self, connection: Any) -> Compiled:
        text, params, result = self.prepared.compiled(connection)
        return Compiled(text, [p.bind(self.values, connection) if isinstance(p, Param) else p for p in params], result)


def run_together(*statements: Statement | Bound, using: str = "default") -> list[Any]:
    """Each statement's result, in order. Run inside the caller's transaction, if any."""
    connection = connections[using]
    compiled = [statement.compile(connection) for statement in statements]
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:  # Django's own: it logs and wraps errors
            results = []
            for text, params, result in compiled:
                cursor.execute(text, params)
                results.append(result(cursor))
            return results
    # As Django's own cursors do: after close_old_connections() (a Celery task's start), a connection
    # the server dropped is found by the health check and replaced, not used and failed on.
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    raw = connection.connection
    started = time.monotonic()
    with connection.wrap_database_errors:
        cursors = []
        with raw.pipeline() if len(compiled) > 1 else nullcontext():
            for statement, (text, params, _result) in zip(statements, compiled):
                # Django's cursors quote every value into the SQL text in Python (a wizard's
                # message carries its whole knowledge panel); these send the values apart, and a
                # prepared statement is parsed and planned once per connection by the server.
                cursor = psycopg.Cursor(raw)
                cursor.execute(text, params, prepare=isinstance(statement, Bound))
                cursors.append(cursor)
        results = [c.result(cursor) for c, cursor in zip(compiled, cursors)]
    if connection.queries_logged:
        # Kept in connection.queries like any other statement (DEBUG, assertNumQueries).
        elapsed = f"{(time.monotonic() - started) / len(compiled):.3f}"
        for text, params, _result in compiled:
            connection.queries_log.append({"sql": connection.ops.compose_sql(text, params), "time": elapsed})
    return results


_INSERTS: dict[type[Model], Prepared] = {}


def insert(obj: Model, *, using: str = "default") -> None:
    """`obj.save()` of a new object, its INSERT compiled once per model and connection. A model
    with a save() of its own or pre/post_save receivers is saved by save() instead."""
    model = type(obj)
    if model.save is not Model.save or pre_save.has_listeners(model) or post_save.has_listeners(model):
        obj.save(force_insert=True, using=using)
        return
    prepared = _INSERTS.get(model) or _INSERTS.setdefault(model, Prepared(lambda: Insert(model)))
    meta = model._meta
    values = {f.attname: f.pre_save(obj, True) for f in meta.concrete_fields if f is not meta.auto_field}
    [obj.pk] = run_together(prepared(**values), using=using)
    obj._state.adding = False
    obj._state.db = using
