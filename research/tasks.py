"""The export task: slow work, off the chat path, on the `index` queue's workers (settings)."""

from __future__ import annotations

from celery import shared_task

from research.runs import export_run_execute, export_run_get
from research.targets import ExportTarget


@shared_task(name="research.tasks.export_run")
def export_run(run_id: str) -> str:
    state = export_run_get(run_id=run_id)
    if state is None:
        return "missing"
    target = ExportTarget(
        state["kind"], state["slug"], state["dataset"], state["command"], tuple(state["campaigns"]),
        format=state.get("format", "json"), authenticity=bool(state.get("authenticity", False)),
    )
    return export_run_execute(run_id=run_id, target=target)["status"]
