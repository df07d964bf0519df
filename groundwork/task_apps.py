"""Which Django apps are task types and annotation kinds, read once by the settings: every package
with an apps.py under collect/tasktypes/ and annotate/kinds/ (in name order), then the apps that
installed distributions declare in the `groundwork.task_types` entry point group (each entry's
value is an app's dotted path, e.g. `mylab_task = "mylab_task"`; docs/new-task-type.md).

Each app registers its task type (collect.registry) or annotation kind when Django loads it, so a
new one is a folder (or a pip install) and touches no file of the core."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

ENTRY_POINT_GROUP = "groundwork.task_types"
FOLDERS = ("collect/tasktypes", "annotate/kinds")


def task_type_apps(base_dir: Path) -> list[str]:
    """Dotted paths of the task-type and annotation-kind apps, for INSTALLED_APPS."""
    found: list[str] = []
    for folder in FOLDERS:
        for apps_module in sorted((base_dir / folder).glob("*/apps.py")):
            found.append(".".join((*Path(folder).parts, apps_module.parent.name)))
    found += [entry.value for entry in entry_points(group=ENTRY_POINT_GROUP) if entry.value not in found]
    return found
