"""A task type installed with pip needs no file of the core: its distribution names its app in the
`groundwork.task_types` entry point group, the settings install it, and it registers itself.

Built here as a real (tiny) distribution on sys.path, in a fresh Django process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from groundwork.task_apps import ENTRY_POINT_GROUP

pytestmark = pytest.mark.backend_neutral("a fresh process that loads the settings and the registry only")

APP = '''
from django.apps import AppConfig

from collect import registry


class EchoConfig(AppConfig):
    name = "echo_task"
    label = "echo_task"

    def ready(self) -> None:
        registry.task_type_register(registry.TaskType(
            name="echo", label="Echo (a test task type)", protocol="echo_task.protocol.ECHO",
        ))
'''
PROTOCOL = '''
from collect.protocols.base import Protocol


class Echo(Protocol):
    name = "echo"
    roles = ("speaker", "listener")
    room_template = "echo_task/room.html"


ECHO = Echo()
'''
PROBE = """
import django
django.setup()
from collect import registry
from collect.models import Campaign
print(sorted(registry.task_type_names()))
print(registry.protocol("echo").roles)
print(("echo", "Echo (a test task type)") in Campaign._meta.get_field("protocol").choices)
"""


def distribution(root: Path) -> None:
    package = root / "echo_task"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "apps.py").write_text(APP)
    (package / "protocol.py").write_text(PROTOCOL)
    info = root / "echo_task-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-task\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\necho = echo_task\n")


def test_an_installed_task_type_is_found_and_registered(tmp_path: Path) -> None:
    distribution(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(settings.BASE_DIR)]),
           "DJANGO_SETTINGS_MODULE": "groundwork.settings"}
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names, roles, chosen = done.stdout.strip().splitlines()
    assert "'echo'" in names and "'wow'" in names
    assert roles == "('speaker', 'listener')"
    assert chosen == "True"


def test_without_it_the_settings_install_only_the_packages_of_the_checkout() -> None:
    assert not any(app.startswith("echo_task") for app in settings.INSTALLED_APPS)
    assert {"collect.tasktypes.wow", "collect.tasktypes.curiosity", "collect.tasktypes.duconv",
            "collect.tasktypes.modelchat"} <= set(settings.INSTALLED_APPS)
