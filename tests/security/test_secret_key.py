"""SECRET_KEY: never a built-in one. Each case starts a fresh Python process, as a deployment does."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

# Its processes start without the pass's DATABASE_URL / REDIS_URL (GROUNDWORK_VARS).
pytestmark = pytest.mark.backend_neutral("its processes start without the pass's service variables")

ROOT = Path(__file__).resolve().parents[2]
PRINT_KEY = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"
GROUNDWORK_VARS = ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "GROUNDWORK_PRODUCTION", "DEBUG")


def start(var_dir: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in GROUNDWORK_VARS}
    env.update(DJANGO_SETTINGS_MODULE="groundwork.settings", GROUNDWORK_VAR_DIR=str(var_dir), **extra)
    return subprocess.run([sys.executable, "-c", PRINT_KEY], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_it_makes_a_random_key_once_and_keeps_it_private(tmp_path: Path) -> None:
    first = start(tmp_path)
    assert first.returncode == 0, first.stderr
    key = first.stdout.strip()
    assert len(key) >= 50
    key_file = tmp_path / "secret_key"
    assert key_file.read_text().strip() == key
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    again = start(tmp_path)
    assert again.stdout.strip() == key


def test_it_gives_each_installation_its_own_key(tmp_path: Path) -> None:
    one, two = start(tmp_path / "one"), start(tmp_path / "two")
    assert one.stdout.strip() and one.stdout.strip() != two.stdout.strip()


def test_it_refuses_to_start_with_a_database_url_and_no_key(tmp_path: Path) -> None:
    result = start(tmp_path, DATABASE_URL="postgres://nobody@127.0.0.1:1/none")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr
    assert not (tmp_path / "secret_key").exists()


def test_it_refuses_to_start_with_a_redis_url_and_no_key(tmp_path: Path) -> None:
    result = start(tmp_path, REDIS_URL="redis://127.0.0.1:1/0")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_it_refuses_to_start_in_production_without_a_key(tmp_path: Path) -> None:
    result = start(tmp_path, GROUNDWORK_PRODUCTION="1")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_it_uses_the_key_it_is_given(tmp_path: Path) -> None:
    result = start(tmp_path, SECRET_KEY="k" * 20 + "given-by-the-operator", REDIS_URL="redis://127.0.0.1:1/0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "k" * 20 + "given-by-the-operator"
