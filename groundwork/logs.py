"""Log records: who they are about, what they must not say, and the optional JSON format.

- `log_context(room=..., assignment=...)` names the room and the assignment a piece of work is for,
  in a context variable: the chat sockets set it when they join (it then holds for everything that
  socket's task and the threads it calls do), the knowledge task around each message. The
  `ContextFilter` copies it onto every record as `room` and `assignment`.
- `RedactFilter` takes secrets out of every record before any handler writes it: join-link
  signatures (`sig=`), tokens (`token=`, bearer and token authorisations), session and CSRF
  cookies, passwords, and the password of a URL's user part. It sits on every handler of the
  settings' LOGGING, and daphne's access log goes through `redact` as well (groundwork/serve.py).
  Pseudonymous ids (a Prolific PID, an MTurk assignment id) are not secrets and stay.
- `OneLineFilter`: a record whose exception is a known failing dependency (a lost database, Redis
  or broker: groundwork/service_errors.py) or a refused request (Django's SuspiciousOperation, such
  as a foreign Host header's DisallowedHost, and BadRequest; one refused because a service was
  lost under it, such as the SessionInterrupted of a session the database could not save, names
  that service's error) is written as one line, the error's type and text in place of its
  traceback, wherever it was logged from (Celery's task trace, the knowledge dispatch, a batch
  sender, Django's security logger): an outage or an anonymous client cannot fill the log with
  tracebacks. Any other exception is a bug and keeps its traceback.
- `JsonFormatter`: GROUNDWORK_LOG_FORMAT=json writes one JSON object per line."""

from __future__ import annotations

import contextvars
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from django.core.exceptions import BadRequest, SuspiciousOperation

from groundwork.service_errors import one_line, service_lost

REDACTED = "[redacted]"

_room: contextvars.ContextVar[str | None] = contextvars.ContextVar("groundwork_log_room", default=None)
_assignment: contextvars.ContextVar[int | None] = contextvars.ContextVar("groundwork_log_assignment", default=None)

# Names whose values are secrets wherever they appear as name=value (a query string, a cookie
# header, a form body) or as "name": "value" (JSON, a dict's repr).
SECRET_NAMES = (
    "sig", "signature", "token", "access_token", "refresh_token", "api_key", "apikey", "secret", "password", "passwd",
    "sessionid", "csrftoken", "csrfmiddlewaretoken", "authorization",
)
_NAMES = "|".join(sorted(SECRET_NAMES, key=len, reverse=True))
_PATTERNS = (
    # name=value in a query string, a cookie, a form body; also once URL-encoded (inside a `next=`).
    (re.compile(rf"(?i)(?:(?<![\w-])|(?<=%3F)|(?<=%26))((?:{_NAMES})(?:=|%3D))[^&;\s\"'<>]+"), rf"\1{REDACTED}"),
    # "name": "value" and 'name': 'value' (JSON, reprs of dicts).
    (re.compile(rf"(?i)([\"'](?:{_NAMES})[\"']\s*:\s*[\"'])[^\"']*"), rf"\1{REDACTED}"),
    # An Authorization header as text: "Authorization: Bearer abc", "Authorization: Token abc".
    (re.compile(r"(?i)\b(authorization\s*:\s*)(\w+\s+)?[^\s,;\"'\[]+"), rf"\1\2{REDACTED}"),
    # A bearer credential anywhere else.
    (re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+"), rf"\1{REDACTED}"),
    # scheme://user:password@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@/\s]+@"), rf"\1{REDACTED}@"),
)


def redact(text: str) -> str:
    """`text` with every secret value replaced by [redacted]."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


@contextmanager
def log_context(*, room: Any = None, assignment: Any = None) -> Iterator[None]:
    """Name the room and the assignment of the records logged inside the block."""
    tokens = log_context_set(room=room, assignment=assignment)
    try:
        yield
    finally:
        _room.reset(tokens[0])
        _assignment.reset(tokens[1])


def log_context_set(*, room: Any = None, assignment: Any = None) -> tuple[contextvars.Token, contextvars.Token]:
    """Name them for the rest of the current context (a socket's task: the rest of its life)."""
    return _room.set(None if room is None else str(room)), _assignment.set(assignment)


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "room"):
            record.room = _room.get()
        if not hasattr(record, "assignment"):
            record.assignment = _assignment.get()
        parts = [f"room={record.room}" if record.room else "", f"assignment={record.assignment}" if record.assignment else ""]
        record.context = " ".join(p for p in parts if p)  # for the text format
        return True


# What every LogRecord has; anything else on a record came as `extra=` and goes into its JSON.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "context", "room", "assignment"}


class OneLineFilter(logging.Filter):
    """Tracebacks of lost services and refused requests out of the record, their one line in."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        named = _named(error) if error is not None else None
        if named is not None:
            try:
                message = record.getMessage()
            except Exception:  # noqa: BLE001 - a bad format string is logged as it came
                message = str(record.msg)
            summary = one_line(named)
            record.msg = message if " ".join(str(named).split()) in message else f"{message}: {summary}"
            record.args, record.exc_info, record.exc_text = None, None, None
            record.error = summary.partition(":")[0]
        return True


def _named(error: BaseException) -> BaseException | None:
    """The error a one-line record names, or None for a bug (it keeps its traceback). A request
    Django refuses because a service was lost under it (SessionInterrupted: the session could not
    be saved, from the database's error) names that service's error."""
    if service_lost(error):
        return error
    if isinstance(error, (SuspiciousOperation, BadRequest)):
        return _lost_cause(error) or error
    return None


def _lost_cause(error: BaseException) -> BaseException | None:
    seen: set[int] = set()
    cause = error.__cause__ or error.__context__
    while cause is not None and id(cause) not in seen:
        if service_lost(cause):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


class RedactFilter(logging.Filter):
    """Secrets out of the message, its arguments, the traceback and any `extra=` text."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_redacted", False):
            return True  # another handler's filter got here first
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is logged as it came
            message = str(record.msg)
        record.msg, record.args = redact(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        for key, value in list(vars(record).items()):
            if key not in _STANDARD and isinstance(value, str):
                setattr(record, key, redact(value))
        record._redacted = True
        return True


class TextFormatter(logging.Formatter):
    """`LEVEL logger: message` and, on the chat path, the room and the assignment."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        context = getattr(record, "context", "")
        if not context:
            return line
        first, newline, rest = line.partition("\n")
        return f"{first} [{context}]{newline}{rest}"


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line: time (UTC), level, logger, message, room,
    assignment, process, the traceback as `exception`, and whatever came as `extra=`."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "room": getattr(record, "room", None),
            "assignment": getattr(record, "assignment", None),
            "process": record.process,
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_") and key not in entry:
                entry[key] = value
        return json.dumps(entry, ensure_ascii=False, default=str)


def logging_config(*, log_format: str, level: str) -> dict[str, Any]:
    """The LOGGING setting: one console handler (stderr) with the context and redaction filters and
    the chosen format; Django's own loggers pass their records to it instead of keeping handlers of
    their own, so nothing is written around the filters."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "context": {"()": "groundwork.logs.ContextFilter"},
            "one_line": {"()": "groundwork.logs.OneLineFilter"},
            "redact": {"()": "groundwork.logs.RedactFilter"},
        },
        "formatters": {
            "text": {"()": "groundwork.logs.TextFormatter", "format": "%(levelname)s %(name)s: %(message)s"},
            "json": {"()": "groundwork.logs.JsonFormatter"},
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "filters": ["context", "one_line", "redact"], "formatter": log_format},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "daphne": {"level": "WARNING"},
            # Django configures these with handlers of its own (DEFAULT_LOGGING); here they have none
            # and their records reach the root's handler, filtered.
            "django": {"handlers": [], "level": "INFO", "propagate": True},
            "django.server": {"handlers": [], "level": "INFO", "propagate": True},
        },
    }


def handlers_all() -> list[logging.Handler]:
    """Every handler of every logger there is now (the check that each one redacts)."""
    loggers = [logging.getLogger()] + [
        logger for logger in logging.Logger.manager.loggerDict.values() if isinstance(logger, logging.Logger)
    ]
    return [handler for logger in loggers for handler in logger.handlers]
