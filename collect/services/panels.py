"""The knowledge panel a worker was last shown, kept so that a reloaded page shows it again."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import CharField, Exists, Expression, F, Func, JSONField, OuterRef, TextField

from collect.models import Message, Room
from collect.recent import ROOM_ID
from groundwork.round_trips import Param, Prepared, Update, run_together


class JsonKeySet(Func):
    """The JSON object in `column` (NULL read as {}) with the text `key` set to the JSON text
    `value`, computed by the database: the other keys are neither read into Python nor written
    back from it."""

    output_field = JSONField()

    def __init__(self, column: str, key: Expression, value: Expression) -> None:
        super().__init__(F(column), key, value)

    def _parts(self, compiler: Any, connection: Any) -> tuple[list[str], list[Any]]:
        sql, params = [], []
        for expression in self.get_source_expressions():
            part, part_params = compiler.compile(expression)
            sql.append(part)
            params.extend(part_params)
        return sql, params

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        (column, key, value), params = self._parts(compiler, connection)
        return f"jsonb_set(COALESCE({column}, '{{}}'::jsonb), ARRAY[{key}]::text[], ({value})::jsonb)", params

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:
        (column, key, value), params = self._parts(compiler, connection)
        return f"json_set(COALESCE({column}, '{{}}'), '$.\"' || {key} || '\"', json({value}))", params


# The chat has moved on when a message came after the panel's turn (the save then changes no row).
_SAVE = Prepared(lambda: Update(
    Room.objects.filter(pk=ROOM_ID).filter(~Exists(Message.objects.filter(
        room_id=OuterRef("pk"), seq__gt=Param("after_seq", Message._meta.get_field("seq")),
    ))),
    {"knowledge_reranked": JsonKeySet("knowledge_reranked", Param("role", CharField()), Param("frame", TextField()))},
))


def knowledge_reranked_save(*, room_id: Any, role: str, frame: dict[str, Any]) -> bool:
    """Keep `frame` (a knowledge.reranked frame) as `role`'s latest reranked panel, unless the chat
    has moved on since it was asked for (a later turn's panel must not be overwritten by it). One
    statement, compiled once per connection: a rerank worker saves a panel for every turn of
    every room."""
    [rows] = run_together(_SAVE(room=room_id, after_seq=frame["after_seq"], role=role, frame=json.dumps(frame)))
    return rows == 1
