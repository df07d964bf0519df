"""Where the topology's processes record their metrics."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from groundwork.topology import environment

pytestmark = pytest.mark.backends

ROOT = Path(__file__).resolve().parents[2]


def test_every_process_of_the_production_topology_records_in_one_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://u@db:5432/gw")
    monkeypatch.setenv("REDIS_URL", "redis://cache:6379/0")
    monkeypatch.setenv("SECRET_KEY", "x" * 50)
    assert environment(out=tmp_path)["PROMETHEUS_MULTIPROC_DIR"] == str(tmp_path / "metrics")


def test_a_process_makes_the_directory_it_is_told_to_record_in(tmp_path: Path) -> None:
    missing = tmp_path / "not-yet" / "metrics"
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(missing), "DJANGO_SETTINGS_MODULE": "groundwork.settings"}
    code = "import django; django.setup(); from groundwork import metrics; metrics.SWEEPS.inc()"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert any(name.startswith("counter_") for name in os.listdir(missing))
