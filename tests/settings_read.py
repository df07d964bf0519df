"""groundwork/settings.py run afresh under a changed environment, for the tests of what it reads:
the process's own settings stay as they are."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

SETTINGS = Path(__file__).resolve().parents[1] / "groundwork" / "settings.py"


def settings_read(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    """The settings module's names after running it with `env` set (a bad value raises
    ImproperlyConfigured, as at a process's start-up)."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS), run_name="groundwork_settings_read")
