"""Importers: dataset files -> annotation jobs. Each is `import_file(path, options) -> summary`,
registered by name in collect's `import_dataset` command, and raises ImportFailure (a ValueError)
naming the record at fault; a failed import stores nothing. Every file is read by `read_json`,
which refuses text holding a lone surrogate before any importer sees it.

`options["role"]` says what the file's items become: `task` (to be labeled; an already-labeled
WOW++ file becomes a finished job), or `gold` / `qualification` (their labels become the known
answers, added to job `options["job"]`, created if missing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotate.models import ItemRole, Job
from annotate.services import AnnotationError
from annotate.services.jobs import job_create
from groundwork.surrogates import lone_surrogate


class ImportFailure(ValueError):
    pass


def read_json(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as error:
        raise ImportFailure(f"cannot read {path}: {error.strerror or error}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ImportFailure(f"{path} is not valid JSON: {error}") from error
    # Checked here, for every importer: stored, such text makes each later answer that shows it a 500.
    if (found := lone_surrogate(data)) is not None:
        raise ImportFailure(f"{path}: {found.where()}; nothing was imported")
    return data


def role_of(options: dict[str, Any]) -> str:
    role = options.get("role") or ItemRole.TASK
    if role not in ItemRole.values:
        raise ImportFailure(f"role must be one of {', '.join(ItemRole.values)}, not {role!r}")
    return role


def target_job(path: Path, options: dict[str, Any], *, kind: str, create_fresh: bool, **settings: Any) -> Job:
    """The job to fill: a new one for finished imports, else the named job (created if missing)."""
    slug = options.get("job") or path.stem.replace("_", "-").replace(".", "-").lower()
    job = Job.objects.filter(slug=slug).first()
    if job is not None and (create_fresh or job.kind != kind):
        why = "exists already" if create_fresh else f"is a {job.kind} job"
        raise ImportFailure(f"job {slug!r} {why}; choose another with --job")
    if job is None:
        overlap = options.get("overlap")
        try:
            job = job_create(slug=slug, name=options.get("name") or slug, kind=kind, overlap=overlap, **settings)
        except AnnotationError as error:
            raise ImportFailure(error.message) from error
    return job


def require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ImportFailure(f"{where}: {message}")


def is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
