"""Where SECRET_KEY comes from. There is no built-in key: the environment gives one, or the embedded
mode makes a random one once and keeps it in GROUNDWORK_VAR_DIR, readable by its owner only."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

KEY_FILE = "secret_key"


def secret_key_load(*, environ_value: str, var_dir: Path, services: bool) -> str:
    """`services`: DATABASE_URL/REDIS_URL/GROUNDWORK_PRODUCTION is set. Several processes then share
    the database and the signed cookies and tokens, so each must be given the same key."""
    if environ_value:
        return environ_value
    if services:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DATABASE_URL, REDIS_URL or GROUNDWORK_PRODUCTION set, every "
            "process must be given the same secret key: export SECRET_KEY=<a long random string>, e.g. "
            "from `python -c 'import secrets; print(secrets.token_urlsafe(50))'`."
        )
    return _embedded_key(var_dir / KEY_FILE)


def _embedded_key(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: of two processes starting at once, one writes the key and the other reads it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_key(path)
    key = secrets.token_urlsafe(50)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
    return key


def _read_key(path: Path) -> str:
    if path.stat().st_mode & 0o077:
        os.chmod(path, 0o600)
    for _ in range(50):
        key = path.read_text(encoding="ascii").strip()
        if key:
            return key
        # Another process has created the file but not yet written it.
        time.sleep(0.01)
    raise ImproperlyConfigured(f"{path} is empty: delete it and a new secret key is made at the next start")
