"""Several statements in one round trip to PostgreSQL, compiled once.

Under load, each round trip of the chat message path costs a busy chat process far more than the
database's own time: the thread that waits for the answer has to be woken and win the GIL again
(docs/deployment.md). A batch goes to PostgreSQL as one query string of its statements, on the
simple query protocol, and their answers come back together. The statements are ORM querysets,
compiled by Django as usual; each still runs as a statement of its own, in order, in the caller's
transaction (or, outside one, in the implicit transaction of its batch). So under READ COMMITTED a
read that follows a row lock in the same batch sees what the transaction it waited for had
committed.

Building and compiling a queryset costs the chat process more CPU than the database spends running
it. A statement whose shape never changes is written once, as a `Prepared` one with a `Param` where
each value goes: Django compiles it once per connection, and each use binds only the values. On
PostgreSQL it is PREPAREd once per connection, so the server parses and plans it once, and each
use is an `EXECUTE` with the values quoted in (`DATABASE_PREPARED_STATEMENTS`). psycopg's pipeline
mode, which sends the values apart from the SQL, cost the chat process more CPU per batch than
quoting them (bench/message_post_cost.py).

A transaction opened with `batched_transaction()` costs no round trips of its own on PostgreSQL: its
BEGIN goes with its first batch and its COMMIT with the batch that asks for it (`commit=True`),
where transaction.atomic() takes one round trip for each.

On other databases (SQLite has no round trips) the statements run one after another."""

from __future__ import annotations

import itertools
import re
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Union

import psycopg
from django.db import InterfaceError, connections, transaction
from django.db.models import Expression, Field, Model, QuerySet, sql
from django.db.models.signals import post_save, pre_save
from psycopg.pq import TransactionStatus


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

    _numbers = itertools.count(1)

    def __init__(self, build: Callable[[], Statement]) -> None:
        self.build = build
        self.name = f"groundwork_{next(self._numbers)}"  # its name on the server, where prepared there
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


class _Batched:
    """A batched_transaction() on one connection: whether its BEGIN and COMMIT have gone out."""

    begun = False
    committed = False


# Connection → its open batched transaction.
_BATCHED: weakref.WeakKeyDictionary[Any, _Batched] = weakref.WeakKeyDictionary()


@contextmanager
def batched_transaction(using: str = "default") -> Iterator[None]:
    """transaction.atomic() for work that starts with a run_together() batch and ends with one
    (`commit=True`). On PostgreSQL, outside any atomic block, the BEGIN is sent with the first
    statement and the COMMIT with the last batch, two round trips fewer. A statement the ORM runs
    in between is inside the transaction (a BEGIN goes first if it has not yet gone); one after the
    COMMIT is a mistake and raises. A block left without a COMMIT batch commits on the way out; one
    left by an exception rolls back. Elsewhere, and inside an atomic block, it is atomic()."""
    connection = connections[using]
    if connection.vendor != "postgresql" or connection.in_atomic_block or not connection.get_autocommit():
        with transaction.atomic(using=using):
            yield
        return
    state = _BATCHED[connection] = _Batched()
    try:
        with connection.execute_wrapper(_inside(connection, state)):
            yield
        if state.begun and not state.committed:
            _send(connection, "COMMIT")
            state.committed = True
    except BaseException:
        if state.begun and not state.committed:
            _rollback(connection)
        raise
    finally:
        del _BATCHED[connection]


def _inside(connection: Any, state: _Batched) -> Callable[..., Any]:
    """An execute wrapper: the ORM's statements of a batched transaction run inside it."""

    def wrapper(execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: Any) -> Any:
        if state.committed:
            raise _after_commit()
        if not state.begun:
            _send(connection, "BEGIN")
            state.begun = True
        return execute(sql, params, many, context)

    return wrapper


def _after_commit() -> transaction.TransactionManagementError:
    return transaction.TransactionManagementError("A statement after the COMMIT of a batched transaction.")


def _send(connection: Any, command: str) -> None:
    with connection.wrap_database_errors:
        connection.connection.execute(command)
    if connection.queries_logged:
        connection.queries_log.append({"sql": command, "time": "0.000"})


def _rollback(connection: Any) -> None:
    """Ends a batched transaction that failed; a connection it cannot be rolled back on is closed,
    so no later statement runs in what is left of it."""
    raw = connection.connection
    if raw is None or raw.closed:
        return
    if raw.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
        try:
            _send(connection, "ROLLBACK")
        except Exception:
            connection.close()
            return
    if raw.info.transaction_status != TransactionStatus.IDLE:
        connection.close()


# psycopg connection → the statements prepared on it, by name, each with the EXECUTE that runs it
# (PREPARE lasts as long as the session, whatever becomes of the transaction it was sent in).
_PREPARED_ON: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()
_PLACEHOLDER = re.compile(r"%%|%s")


def _numbered(text: str) -> str:
    """Django's SQL (%s for each value, %% for a percent sign) with PostgreSQL's $1, $2, ..."""
    numbers = itertools.count(1)
    return _PLACEHOLDER.sub(lambda match: "%" if match[0] == "%%" else f"${next(numbers)}", text)


def _run_batch(raw: Any, statements: tuple[Statement | Bound, ...], compiled: list[Compiled], *,
               begin: bool, commit: bool) -> Any:
    """One round trip: the statements as one query string, with BEGIN and COMMIT where asked, on
    PostgreSQL's simple query protocol; a cursor at the first statement's result (BEGIN's, if
    sent). The values are quoted into the string by psycopg's client-side binding (as Django's
    own cursors send them); a Prepared statement runs as `EXECUTE name(values)` of a statement
    PREPAREd once per connection, so the server parses and plans it once. psycopg's pipeline mode
    would send the same in one round trip with the values apart, for more of the chat process's
    CPU (bench/message_post_cost.py)."""
    parts = ["BEGIN"] if begin else []
    values: list[Any] = []
    server_prepares = raw.prepare_threshold is not None
    for statement, (text, params, _result) in zip(statements, compiled):
        if server_prepares and isinstance(statement, Bound):
            text = _execute_on(raw, statement.prepared, text, len(params))
        parts.append(text)
        values.extend(params)
    if commit:
        parts.append("COMMIT")
    cursor = psycopg.ClientCursor(raw)
    if parts:
        cursor.execute("; ".join(parts), values)
    return cursor


def _execute_on(raw: Any, prepared: Prepared, text: str, values: int) -> str:
    """The EXECUTE of `prepared` (`text`, with `values` placeholders) on this connection, PREPAREd
    there first if it is new to it (a round trip of its own, once per connection and statement)."""
    executes = _PREPARED_ON.setdefault(raw, {})
    execute = executes.get(prepared.name)
    if execute is None:
        raw.execute(f"PREPARE {prepared.name} AS {_numbered(text)}")
        execute = executes[prepared.name] = (
            f"EXECUTE {prepared.name}({', '.join(['%s'] * values)})" if values else f"EXECUTE {prepared.name}"
        )
    return execute


def run_together(*statements: Statement | Bound, using: str = "default", commit: bool = False) -> list[Any]:
    """Each statement's result, in order. Run inside the caller's transaction, if any; inside a
    batched_transaction(), `commit` ends it with this batch."""
    connection = connections[using]
    compiled = [statement.compile(connection) for statement in statements]
    if connection.vendor != "postgresql":
        with connection.cursor() as cursor:  # Django's own: it logs and wraps errors
            results = []
            for text, params, result in compiled:
                cursor.execute(text, params)
                results.append(result(cursor))
            return results
    batched = _BATCHED.get(connection)
    if batched is not None and batched.committed:
        raise _after_commit()
    if batched is not None and batched.begun:
        # Mid-transaction a new connection would run the rest outside it, without its lock.
        if connection.connection is None:
            raise InterfaceError("The connection of a batched transaction was closed.")
    else:
        # As Django's own cursors do: after close_old_connections() (a Celery task's start), a
        # connection the server dropped is found by the health check and replaced, not failed on.
        connection.close_if_health_check_failed()
        connection.ensure_connection()
    raw = connection.connection
    begin = batched is not None and not batched.begun
    commit = commit and batched is not None
    started = time.monotonic()
    with connection.wrap_database_errors:
        if begin:
            batched.begun = True  # from here on, a failure rolls back (_rollback reads the server's state)
        cursor = _run_batch(raw, statements, compiled, begin=begin, commit=commit)
        if commit:
            batched.committed = True
        results = []
        for index, (_text, _params, result) in enumerate(compiled):
            if index or begin:
                cursor.nextset()
            results.append(result(cursor))
    if connection.queries_logged:
        # Kept in connection.queries like any other statement (DEBUG, assertNumQueries).
        elapsed = f"{(time.monotonic() - started) / max(1, len(compiled)):.3f}"
        logged = [connection.ops.compose_sql(text, params) for text, params, _result in compiled]
        for sql in ["BEGIN"] * begin + logged + ["COMMIT"] * commit:
            connection.queries_log.append({"sql": sql, "time": elapsed})
    return results


_INSERTS: dict[type[Model], Prepared] = {}


def insert(obj: Model, *, using: str = "default", commit: bool = False) -> None:
    """`obj.save()` of a new object, its INSERT compiled once per model and connection. A model
    with a save() of its own or pre/post_save receivers is saved by save() instead. `commit`: as
    run_together's."""
    model = type(obj)
    if model.save is not Model.save or pre_save.has_listeners(model) or post_save.has_listeners(model):
        obj.save(force_insert=True, using=using)
        if commit:
            run_together(using=using, commit=True)
        return
    prepared = _INSERTS.get(model) or _INSERTS.setdefault(model, Prepared(lambda: Insert(model)))
    meta = model._meta
    values = {f.attname: f.pre_save(obj, True) for f in meta.concrete_fields if f is not meta.auto_field}
    [obj.pk] = run_together(prepared(**values), using=using, commit=commit)
    obj._state.adding = False
    obj._state.db = using
