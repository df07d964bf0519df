"""Validation of inbound websocket frames. Each parser returns clean values or raises ProtocolError
with a message that says exactly what was wrong."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from collect.errors import ProtocolError

CHECKED_SOURCES = ("chosen", "partner", "self")


def parse_frame(text: str | None) -> dict[str, Any]:
    if text is None:
        raise ProtocolError("bad_frame", "Send text frames holding a JSON object.")
    if len(text.encode("utf-8")) > settings.WS_MAX_FRAME_BYTES:
        raise ProtocolError("too_large", f"Frame is larger than {settings.WS_MAX_FRAME_BYTES} bytes.")
    try:
        frame = json.loads(text)
    except ValueError:
        raise ProtocolError("bad_json", "Frame is not valid JSON.") from None
    if not isinstance(frame, dict):
        raise ProtocolError("bad_frame", "Frame must be a JSON object.")
    if not isinstance(frame.get("type"), str):
        raise ProtocolError("bad_frame", "Frame needs a string field 'type'.")
    return frame


def require_int(frame: dict[str, Any], key: str, *, low: int, high: int | None = None) -> int:
    value = frame.get(key)
    # bool is an int subclass in Python; true is not a rating.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError("bad_frame", f"'{key}' must be an integer.")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ProtocolError("bad_frame", f"'{key}' must be {bounds}.")
    return value


def require_str(frame: dict[str, Any], key: str, *, max_chars: int) -> str:
    value = frame.get(key)
    if not isinstance(value, str):
        raise ProtocolError("bad_frame", f"'{key}' must be a string.")
    value = value.strip()
    if not value:
        raise ProtocolError("bad_frame", f"'{key}' must not be empty.")
    if len(value) > max_chars:
        raise ProtocolError("bad_frame", f"'{key}' is longer than {max_chars} characters.")
    return value


def parse_checked(value: Any) -> dict[str, Any] | None:
    """`{"no_passages_used": true}` → None; `{"source","passage","sentence"[,"knowledge_seq"]}` → that dict."""
    if not isinstance(value, dict):
        raise ProtocolError("checked_required", "Check the knowledge sentence you used, or 'No sentence used'.")
    if value.get("no_passages_used") is True and len(value) == 1:
        return None
    source = value.get("source")
    if source not in CHECKED_SOURCES:
        raise ProtocolError("bad_checked", f"'checked.source' must be one of {', '.join(CHECKED_SOURCES)}.")
    checked = {
        "source": source,
        "passage": require_int(value, "passage", low=0),
        "sentence": require_int(value, "sentence", low=0),
    }
    if source != "chosen":
        # Retrieved passages change every turn: name the panel (its after_seq) the sentence is from.
        checked["knowledge_seq"] = require_int(value, "knowledge_seq", low=0)
    return checked
