"""Validation of inbound websocket frames. Each parser returns clean values or raises ProtocolError
with a message that says exactly what was wrong."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from django.conf import settings

from collect.errors import ProtocolError
from groundwork.surrogates import SURROGATE

CHECKED_SOURCES = ("chosen", "partner", "self")
# No protocol frame nests deeper than a few levels; JSON nested thousands deep overflows the parser.
MAX_DEPTH = 16
# C0 and C1 controls and DEL, except tab and line breaks (a pasted message may hold them).
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Cc controls, Cf format characters (zero-width space/joiners, BOM, direction marks), separators.
INVISIBLE_CATEGORIES = {"Cc", "Cf", "Zs", "Zl", "Zp"}
# Letters and symbols that render as blank space.
BLANK_LETTERS = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}


def parse_frame(text: str | None) -> dict[str, Any]:
    if text is None:
        raise ProtocolError("bad_frame", "Binary frames are not accepted: send text frames holding a JSON object.")
    # surrogatepass: a frame that arrives holding lone surrogates is measured (and refused below), not a crash.
    if len(text) > settings.WS_MAX_FRAME_BYTES or len(text.encode("utf-8", "surrogatepass")) > settings.WS_MAX_FRAME_BYTES:
        raise ProtocolError("too_large", f"Frame is larger than {settings.WS_MAX_FRAME_BYTES} bytes.")
    try:
        frame = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ProtocolError("bad_json", f"Frame is nested more than {MAX_DEPTH} levels deep.") from None
    except ValueError:
        raise ProtocolError("bad_json", "Frame is not valid JSON.") from None
    if not isinstance(frame, dict):
        raise ProtocolError("bad_frame", "Frame must be a JSON object.")
    check_values(frame)
    if not isinstance(frame.get("type"), str):
        raise ProtocolError("bad_frame", "Frame needs a string field 'type'.")
    return frame


def _refuse_constant(name: str) -> Any:
    raise ProtocolError("bad_json", f"{name} is not a number this protocol accepts.")


def check_values(frame: dict[str, Any]) -> None:
    """Every key and value, at any depth: nesting within MAX_DEPTH, strings without NUL (PostgreSQL
    refuses it) or lone surrogates (not encodable as UTF-8). Level by level, so depth cannot
    overflow; the strings are searched once, joined (every frame passes here: the chat's hot path)."""
    strings: list[str] = []
    level: list[Any] = [frame]
    depth = 1
    while level:
        if depth > MAX_DEPTH:
            raise ProtocolError("bad_frame", f"Frame is nested more than {MAX_DEPTH} levels deep.")
        below: list[Any] = []
        for container in level:
            if isinstance(container, dict):
                strings.extend(container)  # JSON object keys are strings
                values = container.values()
            else:
                values = container
            for value in values:
                if isinstance(value, str):
                    strings.append(value)
                elif isinstance(value, (dict, list)):
                    below.append(value)
        level = below
        depth += 1
    # Joined with a separator that no surrogate pairs with: a high surrogate ending one string and
    # a low one starting the next stay lone.
    _check_string("\x01".join(strings))


def _check_string(value: str) -> None:
    if "\x00" in value:
        raise ProtocolError("bad_frame", "Text must not contain NUL characters.")
    if SURROGATE.search(value):
        raise ProtocolError("bad_frame", "Text must be valid Unicode (it holds a lone surrogate).")


def visible_text(value: str, key: str) -> str:
    """Refuses control characters (ANSI escapes included) and text that shows nothing: only spaces,
    zero-width characters, a byte-order mark or other invisible format characters."""
    if CONTROL.search(value):
        raise ProtocolError("bad_frame", f"'{key}' must not contain control characters.")
    if not any(_shows(char) for char in value):
        raise ProtocolError("bad_frame", f"'{key}' must contain visible characters.")
    return value


def _shows(char: str) -> bool:
    return not (char.isspace() or char in BLANK_LETTERS or unicodedata.category(char) in INVISIBLE_CATEGORIES)


# A message's seq is a PostgreSQL integer; a frame naming a larger one names no message (and a
# number past 64 bits could not even travel the Redis channel layer, which packs it).
MAX_SEQ = 2**31 - 1


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
    visible_text(value, key)
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


def unbundled(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """A server frame as a client handles it: a relayed `message` carries the room's state after
    it (one frame per socket and message), which comes out here as a `state` frame of its own."""
    if frame.get("type") != "message" or "state" not in frame:
        return [frame]
    message = dict(frame)
    return [message, message.pop("state")]


def frame_text(content: Any) -> str:
    """A frame as the socket sends it: JSON, as UTF-8 where it can be. A lone surrogate cannot be
    sent as UTF-8; escaped, it is still the same JSON value."""
    text = json.dumps(content, ensure_ascii=False)
    return json.dumps(content) if SURROGATE.search(text) else text
