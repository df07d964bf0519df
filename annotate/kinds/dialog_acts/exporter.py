"""An imported Curiosity dialog-act job -> the imported file again, each message's `dialog_acts` set
to the acts at least half of its annotators gave (docs/schemas.md#curiosity):
`export_dataset curiosity-acts --job J --out DIR` writes DIR/J_curiosity_dialogs.json. Collected
Curiosity rooms get theirs through labels.dialog_acts_for in collect's Curiosity exporter instead.

Dialogs nobody has labeled keep `dialog_acts: []` and `annotated: false`.
"""

from __future__ import annotations

from pathlib import Path

from annotate.exporters import write_json_object
from annotate.kinds.dialog_acts import NAME
from annotate.kinds.dialog_acts.labels import dialog_act_labels
from annotate.models import Item, ItemRole, Job
from collect.exporters import ExportError, ExportOptions, ExportResult

# What the job's `source` names as its dataset when it was imported from a Curiosity file.
CURIOSITY_FILE = "curiosity"


def export(out: Path, options: ExportOptions) -> ExportResult:
    """The registered exporter of `curiosity-acts`: one job (--job SLUG) into `out`."""
    job = Job.objects.filter(slug=options.job).first() if options.job else None
    if job is None:
        raise ExportError(f"no annotation job {options.job!r}" if options.job else "curiosity-acts exports one annotation job: give --job SLUG")
    name = f"{job.slug}_curiosity_dialogs.json"
    try:
        count = export_curiosity_acts(job=job, path=out / name)
    except ValueError as error:
        raise ExportError(str(error)) from error
    return ExportResult(counts={name: count})


def export_curiosity_acts(*, job: Job, path: Path) -> int:
    if job.kind != NAME or job.source.get("dataset") != CURIOSITY_FILE:
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
