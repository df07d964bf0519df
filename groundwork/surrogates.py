"""Lone UTF-16 surrogates (U+D800–U+DFFF) in text that came in as JSON.

A JSON escape such as "\\ud83d" without its pair decodes to a Python str that cannot be encoded as
UTF-8: storing it works (JSON columns escape it), and then every page or API answer that shows it
fails with a 500. So every way text gets in (websocket frames, import files, API and form fields)
refuses it, with this one check.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.fields import InvalidJSONInput
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class LoneSurrogate:
    path: tuple[str | int, ...]  # keys and list indexes from the top down to the string
    code_point: int
    in_key: bool = False  # the string is the last key of `path` itself, not its value

    def field(self, start: int = 0) -> str:
        """The path from `path[start]` on, as JSON paths are written: `dialog[3].text`."""
        return json_path(self.path[start:])

    def problem(self, start: int = 0) -> str:
        what = f"the key {self.field(start)}" if self.in_key else self.field(start)
        return f"{what} holds a lone surrogate (U+{self.code_point:04X}), which is not valid Unicode text"

    def where(self) -> str:
        """`record 3, dialog[1].text holds …` when the top is a list of records, else the whole path."""
        if self.path and isinstance(self.path[0], int) and len(self.path) > 1:
            return f"record {self.path[0]}, {self.problem(start=1)}"
        return self.problem()


def json_path(path: tuple[str | int, ...]) -> str:
    if not path:
        return "the value"
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}" if out else part
        else:
            # json.dumps escapes non-ASCII, so a key holding the surrogate itself prints safely.
            out += f"[{json.dumps(part)}]"
    return out


def lone_surrogate(value: object) -> LoneSurrogate | None:
    """The first string (key or value, at any depth, in document order) of a parsed JSON value
    that holds a lone surrogate, or None. Iterative, so a deeply nested file cannot overflow."""
    pending: list[tuple[tuple[str | int, ...], object, bool]] = [((), value, False)]
    while pending:
        path, value, is_key = pending.pop()
        if isinstance(value, str):
            if match := SURROGATE.search(value):
                return LoneSurrogate(path, ord(match.group()), in_key=is_key)
        elif isinstance(value, dict):
            children = [(path + (k,), entry, key) for k, v in value.items() for entry, key in ((k, True), (v, False))]
            pending.extend(reversed(children))
        elif isinstance(value, (list, tuple)):
            pending.extend(reversed([(path + (n,), item, False) for n, item in enumerate(value)]))
    return None


class SurrogateSafeJSONParser(JSONParser):
    """DRF's JSON parser, refusing (400) a body holding a lone surrogate, with the field it is in.
    The default parser of every API view (settings.REST_FRAMEWORK); form and multipart bodies
    cannot hold one (Django decodes them with replacement characters)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict[str, Any] | None = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        if (found := lone_surrogate(data)) is not None:
            raise ParseError(found.problem())
        return data


class SurrogateSafeJSONField(forms.JSONField):
    """A form's JSON text field that refuses a lone surrogate (an escape such as "\\ud83d" is plain
    ASCII in the form, so it gets past Django's decoding) and shows the text again as typed:
    Django would show it re-encoded with ensure_ascii=False, which the page cannot encode."""

    def to_python(self, value: Any) -> Any:
        converted = super().to_python(value)
        if (found := lone_surrogate(converted)) is not None:
            raise ValidationError(found.problem(), code="lone_surrogate")
        return converted

    def bound_data(self, data: Any, initial: Any) -> Any:
        value = super().bound_data(data, initial)
        return InvalidJSONInput(data) if lone_surrogate(value) is not None else value
