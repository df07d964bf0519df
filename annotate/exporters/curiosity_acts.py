"""An imported Curiosity dialog-act job -> the imported file again, each message's `dialog_acts` set
to the acts at least half of its annotators gave (SCHEMAS.md section 2). Collected Curiosity rooms
get theirs through selectors.labels.dialog_acts_for in collect's Curiosity exporter instead.

Dialogs nobody has labeled keep `dialog_acts: []` and `annotated: false`.
"""

from __future__ import annotations

from pathlib import Path

from annotate.exporters import write_json_object
from annotate.models import Item, ItemRole, Job, JobKind
from annotate.selectors.labels import dialog_act_labels


def export_curiosity_acts(*, job: Job, path: Path) -> int:
    if job.kind != JobKind.DIALOG_ACTS or job.source.get("dataset") != "curiosity":
        raise ValueError(f"job {job.slug!r} was not imported from a Curiosity file")
    labels = dialog_act_labels(job)
    dialogs = []
    for item in Item.objects.filter(job=job, role=ItemRole.TASK).order_by("position", "id"):
        acts = labels.get(item.pk)
        dialog = dict(item.payload["dialog"])
        dialog["messages"] = [
            {**message, "dialog_acts": acts[index] if acts else []} for index, message in enumerate(dialog["messages"])
        ]
        if "annotated" in dialog or acts:
            dialog["annotated"] = acts is not None
        dialogs.append(dialog)
    extra = job.source.get("extra", {})
    order = job.source.get("order") or ["dialogs", *extra]
    write_json_object(path, [(key, dialogs if key == "dialogs" else extra[key]) for key in order])
    return len(dialogs)
