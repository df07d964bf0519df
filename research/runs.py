"""Export runs: one folder per run under var/exports/<id>/ holding run.json (its state, rewritten
atomically), files/ (what the exporter wrote) and the files again as one zip archive. The task that
writes them and the pages that read them share nothing else, so a run survives a restart."""

from __future__ import annotations

import json
import os
import time
import uuid
import zipfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from django.conf import settings

from collect.exporters import ExportError, export_progress
from research.targets import ExportTarget, export_target_size, export_target_write

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
PROGRESS_EVERY_S = 0.5  # at most this often run.json is rewritten while items are written


def exports_dir() -> Path:
    return Path(settings.VAR_DIR) / "exports"


def _run_dir(run_id: str) -> Path:
    return exports_dir() / str(uuid.UUID(str(run_id)))  # a malformed id raises ValueError, never a path


def _write(run_id: str, state: dict[str, Any]) -> None:
    path = _run_dir(run_id) / "run.json"
    temp = path.with_name(f".run.{os.getpid()}.tmp")
    temp.write_text(json.dumps(state), encoding="utf-8")
    os.replace(temp, path)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def export_run_create(*, target: ExportTarget, staff: str) -> str:
    run_id = str(uuid.uuid4())
    _run_dir(run_id).mkdir(parents=True)
    _write(run_id, {
        "id": run_id, "kind": target.kind, "slug": target.slug, "dataset": target.dataset, "label": target.label,
        "command": target.command, "campaigns": list(target.campaigns), "format": target.format, "authenticity": target.authenticity, "status": QUEUED, "written": 0,
        "expected": export_target_size(target), "files": [], "notes": [], "error": "", "staff": staff,
        "created": _now(), "finished": "",
    })
    return run_id


def export_run_get(*, run_id: str) -> dict[str, Any] | None:
    try:
        path = _run_dir(run_id) / "run.json"
    except ValueError:  # not a run id
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def export_runs_recent(*, limit: int = 10) -> list[dict[str, Any]]:
    folders = sorted(exports_dir().glob("*/run.json"), key=lambda p: p.stat().st_mtime, reverse=True)[:limit]
    return [state for state in (export_run_get(run_id=p.parent.name) for p in folders) if state]


def archive_name(state: dict[str, Any]) -> str:
    suffix = "-hf" if state.get("format") == "hf" else ""
    return f"{state['slug']}-{state['dataset']}{suffix}.zip"


def export_run_file(*, run_id: str, name: str) -> Path | None:
    """The path of one of the run's finished files (or its archive), or None: only names the run
    listed are served, so no request can reach another path."""
    state = export_run_get(run_id=run_id)
    if state is None or state["status"] != DONE:
        return None
    if name == archive_name(state):
        return _run_dir(run_id) / name
    if name in {f["name"] for f in state["files"]}:
        return _run_dir(run_id) / "files" / name
    return None


@contextmanager
def _progress(run_id: str, state: dict[str, Any]) -> Iterator[None]:
    last = [time.monotonic()]

    def tick() -> None:
        state["written"] += 1
        if time.monotonic() - last[0] >= PROGRESS_EVERY_S:
            last[0] = time.monotonic()
            _write(run_id, state)

    token = export_progress.set(tick)
    try:
        yield
    finally:
        export_progress.reset(token)


def export_run_execute(*, run_id: str, target: ExportTarget) -> dict[str, Any]:
    state = export_run_get(run_id=run_id)
    if state is None:
        raise ValueError(f"no export run {run_id}")
    state["status"] = RUNNING
    _write(run_id, state)
    out = _run_dir(run_id) / "files"
    try:
        with _progress(run_id, state):
            result = export_target_write(target, out)
    except ExportError as error:
        state.update(status=FAILED, error=str(error), finished=_now())
        _write(run_id, state)
        return state
    except Exception as error:
        state.update(status=FAILED, error=f"the export stopped: {type(error).__name__}: {error}", finished=_now())
        _write(run_id, state)
        raise
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and not p.name.startswith("."))
    with zipfile.ZipFile(_run_dir(run_id) / archive_name(state), "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            archive.write(out / name, name)
    state.update(
        status=DONE, finished=_now(), notes=list(result.notes), written=result.total,
        files=[{"name": n, "size": (out / n).stat().st_size, "items": result.counts.get(n)} for n in names],
    )
    _write(run_id, state)
    return state
