"""Logs: no secret in any line, the room and the assignment on the chat path's lines, JSON lines on
demand. The configured logging is checked in fresh processes, as a server or a worker sets it up."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from collect.services import rooms
from groundwork.logs import REDACTED, ContextFilter, JsonFormatter, RedactFilter, log_context, redact
from tests.collect.conftest import make_room
from tests.collect.ws import connect, receive_until, send

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parents[2]
SIGNATURE = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
TOKEN = "tok_5Zb8Qm2Lx9Vw4Rt7Yp1Nc3Hd6Jk0Gf"


@pytest.mark.parametrize(
    "line, secret",
    [
        (f'127.0.0.1:5000 - - [25/Nov/2026:10:00:00] "GET /join/wow/?worker=w7&sig={SIGNATURE} HTTP/1.1" 302 -', SIGNATURE),
        (f"/admin/login/?next=/join/wow/%3Fworker%3Dw7%26sig%3D{SIGNATURE}", SIGNATURE),
        (f"GET /api/annotate/items/?token={TOKEN}", TOKEN),
        (f"Authorization: Bearer {TOKEN}", TOKEN),
        (f"headers {{'Authorization': 'Token {TOKEN}', 'Accept': 'application/json'}}", TOKEN),
        (f'{{"token": "{TOKEN}", "expires": 3600}}', TOKEN),
        (f"Cookie: csrftoken=abc; sessionid={TOKEN}", TOKEN),
        (f"broker redis://:{TOKEN}@10.0.0.5:6379/1 unreachable", TOKEN),
    ],
)
def test_secrets_are_redacted(line: str, secret: str) -> None:
    redacted = redact(line)
    assert secret not in redacted and REDACTED in redacted


def test_what_is_not_secret_stays() -> None:
    # Pseudonymous platform ids are what operators look for in a log; they are not credentials.
    line = "GET /join/p/?PROLIFIC_PID=5f3a&STUDY_ID=s1&SESSION_ID=x9 and ?assignmentId=A1&hitId=H2&workerId=W3; the token expired"
    assert redact(line) == line


def test_a_record_is_redacted_in_its_arguments_traceback_and_extras() -> None:
    try:
        raise ValueError(f"bad link /join/wow/?worker=w1&sig={SIGNATURE}")
    except ValueError:
        record = logging.LogRecord("collect.x", logging.ERROR, __file__, 1, "join refused: %s", (f"sig={SIGNATURE}",), sys.exc_info())
    record.url = f"/join/wow/?sig={SIGNATURE}"
    assert RedactFilter().filter(record) and ContextFilter().filter(record)
    line = JsonFormatter().format(record)
    entry = json.loads(line)
    assert "\n" not in line and SIGNATURE not in line
    assert entry["message"] == f"join refused: sig={REDACTED}"
    assert entry["url"] == f"/join/wow/?sig={REDACTED}"
    assert entry["exception"].startswith("Traceback") and "ValueError" in entry["exception"]
    assert entry["level"] == "ERROR" and entry["logger"] == "collect.x"


def test_the_context_names_the_room_and_the_assignment_inside_the_block_only() -> None:
    def record() -> logging.LogRecord:
        r = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
        ContextFilter().filter(r)
        return r

    with log_context(room="r-1", assignment=7):
        inside = record()
    outside = record()
    assert (inside.room, inside.assignment, inside.context) == ("r-1", 7, "room=r-1 assignment=7")
    assert (outside.room, outside.assignment) == (None, None)


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh Python process with the project's settings, as a server or worker runs."""
    child_env = {k: v for k, v in os.environ.items() if k not in ("GROUNDWORK_LOG_FORMAT",)}
    child_env.update(DJANGO_SETTINGS_MODULE="groundwork.settings", **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=child_env, capture_output=True, text=True, timeout=120
    )


CHECK_HANDLERS = """
    import logging
    from groundwork.logs import RedactFilter, handlers_all
    writing = [h for h in handlers_all() if not isinstance(h, logging.NullHandler)]
    assert writing, "no handler"
    for handler in writing:
        assert any(isinstance(f, RedactFilter) for f in handler.filters), handler
    logging.getLogger("annotate.api").warning("refused Authorization: Bearer %s", "{token}")
    logging.getLogger("django.request").warning("Forbidden: /join/x/?sig={sig}")
"""


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_every_handler_of_a_server_redacts(log_format: str) -> None:
    done = _run(
        "import django; django.setup()\n" + textwrap.dedent(CHECK_HANDLERS).format(token=TOKEN, sig=SIGNATURE),
        GROUNDWORK_LOG_FORMAT=log_format,
    )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 2 and TOKEN not in done.stderr and SIGNATURE not in done.stderr
    if log_format == "json":
        entries = [json.loads(line) for line in lines]
        assert entries[0]["message"] == f"refused Authorization: Bearer {REDACTED}"
        assert entries[1]["logger"] == "django.request"
    else:
        assert lines[0] == f"WARNING annotate.api: refused Authorization: Bearer {REDACTED}"


def test_every_handler_of_a_celery_worker_redacts() -> None:
    # What `celery worker` does to logging before it runs tasks: without our receiver Celery would
    # put its own handler on the root logger.
    done = _run(
        "from groundwork.celery import app\napp.log.setup(loglevel='INFO')\n" + textwrap.dedent(CHECK_HANDLERS).format(token=TOKEN, sig=SIGNATURE),
        GROUNDWORK_LOG_FORMAT="json",
    )
    assert done.returncode == 0, done.stderr
    entries = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]
    assert [e["logger"] for e in entries] == ["annotate.api", "django.request"]
    assert TOKEN not in done.stderr and SIGNATURE not in done.stderr


@pytest.mark.django_db(transaction=True)
async def test_a_chat_sockets_lines_name_its_room_and_assignment(campaign, monkeypatch) -> None:
    from channels.db import database_sync_to_async

    paired = await database_sync_to_async(make_room)(campaign, topic="Guitar")

    def broken(**_: object) -> None:
        raise RuntimeError("the end broke")

    monkeypatch.setattr(rooms, "chat_end", broken)
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    handler.addFilter(ContextFilter())
    logging.getLogger().addHandler(handler)
    try:
        wizard = await connect(f"/ws/room/{paired.room.id}/", paired.wizard.cookie)
        await receive_until(wizard, "state")
        await send(wizard, {"type": "end"})
        error = await receive_until(wizard, "error")
        await wizard.disconnect()
    finally:
        logging.getLogger().removeHandler(handler)
    assert error["code"] == "server_error"
    [raised] = [r for r in records if "a frame raised" in r.getMessage()]
    assert raised.room == str(paired.room.id) and raised.assignment == paired.wizard.assignment.pk


def test_an_unknown_log_format_stops_the_process() -> None:
    done = _run("import django; django.setup()", GROUNDWORK_LOG_FORMAT="xml")
    assert done.returncode != 0
    assert "GROUNDWORK_LOG_FORMAT='xml' must be one of text, json" in done.stderr


def test_a_lost_service_is_one_line_and_a_bug_keeps_its_traceback() -> None:
    from django.contrib.sessions.backends.base import UpdateError
    from django.contrib.sessions.exceptions import SessionInterrupted
    from django.db import OperationalError

    from groundwork.logs import OneLineFilter, TextFormatter

    def line(error: BaseException, logger: str = "collect.tasks") -> str:
        try:
            raise error
        except BaseException:  # noqa: BLE001
            record = logging.LogRecord(logger, logging.ERROR, __file__, 1, "message %s: retrieval failed", (7,), sys.exc_info())
        assert OneLineFilter().filter(record) and ContextFilter().filter(record)
        return TextFormatter("%(levelname)s %(name)s: %(message)s").format(record)

    lost = line(OperationalError("server closed the connection\n unexpectedly"))
    assert lost == "ERROR collect.tasks: message 7: retrieval failed: django.db.utils.OperationalError: server closed the connection unexpectedly"
    bug = line(ValueError("a bug"))
    assert bug.startswith("ERROR collect.tasks: message 7: retrieval failed\nTraceback (most recent call last)") and "ValueError: a bug" in bug
    # A session the lost database could not save: Django refuses the request (SessionInterrupted,
    # raised while handling the session's UpdateError, raised while handling the database's error).
    try:
        try:
            try:
                raise OperationalError("terminating connection due to administrator command")
            except OperationalError:
                raise UpdateError  # noqa: B904 - as Django's session store raises it
        except UpdateError:
            raise SessionInterrupted("The request's session was deleted before the request completed.")  # noqa: B904
    except SessionInterrupted as error:
        interrupted = error
    refused = line(interrupted)
    assert refused == ("ERROR collect.tasks: message 7: retrieval failed: django.db.utils.OperationalError: "
                       "terminating connection due to administrator command")


def test_a_foreign_host_header_is_one_line_in_a_server() -> None:
    done = _run(
        """
        import django; django.setup()
        from django.test import Client
        for _ in range(3):
            assert Client().get("/", HTTP_HOST="evil.example").status_code == 400
        """,
        GROUNDWORK_LOG_FORMAT="text",
    )
    assert done.returncode == 0, done.stderr
    security = [line for line in done.stderr.splitlines() if "DisallowedHost" in line]
    assert len(security) == 3 and "Traceback" not in done.stderr, done.stderr
    assert "Invalid HTTP_HOST header: 'evil.example'" in security[0]


def test_a_celery_task_that_lost_its_database_logs_one_line() -> None:
    # Celery's own trace logs a failed task with its traceback; through our handler it is one line.
    done = _run(
        """
        from groundwork.celery import app
        app.log.setup(loglevel="INFO")
        from django.db import OperationalError

        @app.task(name="tests.lost")
        def lost():
            raise OperationalError("could not connect to server: Connection refused")

        from celery.app.trace import build_tracer
        build_tracer("tests.lost", lost, app=app, eager=False, propagate=False)("id-1", (), {}, {"id": "id-1"})
        """,
        GROUNDWORK_LOG_FORMAT="text",
    )
    assert done.returncode == 0, done.stderr
    failed = [line for line in done.stderr.splitlines() if "tests.lost" in line]
    assert failed and "Traceback" not in done.stderr, done.stderr
    assert "OperationalError" in failed[0] and "could not connect to server" in failed[0]
