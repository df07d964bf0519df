"""`manage.py check --deploy` under the production settings, in a fresh process as a deployment runs it."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parents[2]


def check_deploy(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "GROUNDWORK_PRODUCTION", "DATABASE_URL", "REDIS_URL")}
    env.update(DJANGO_SETTINGS_MODULE="groundwork.settings", GROUNDWORK_VAR_DIR=str(tmp_path), **extra)
    command = [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "DEBUG"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_it_passes_the_deploy_check_in_production(tmp_path: Path) -> None:
    result = check_deploy(tmp_path, GROUNDWORK_PRODUCTION="1", SECRET_KEY=secrets.token_urlsafe(50))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_the_embedded_mode_is_not_deployable(tmp_path: Path) -> None:
    """The check is not vacuous: without the production settings it names what is missing."""
    result = check_deploy(tmp_path)
    assert result.returncode != 0
    assert "security.W004" in result.stderr + result.stdout  # no HSTS
    assert "security.W012" in result.stderr + result.stdout  # session cookie not secure


def test_production_refuses_debug(tmp_path: Path) -> None:
    result = check_deploy(tmp_path, GROUNDWORK_PRODUCTION="1", SECRET_KEY=secrets.token_urlsafe(50), DEBUG="1")
    assert result.returncode != 0
    assert "DEBUG must be off" in result.stderr
