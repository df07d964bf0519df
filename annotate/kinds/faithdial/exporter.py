"""A FaithDial job -> FaithDial's released JSON (released.py): `export_dataset faithdial --job SLUG
--out DIR` writes DIR/<slug>_faithdial.json.

Each labeled utterance gets the annotators' decision (labels.py): `BEGIN` and `VRM` the labels at
least half of them gave; where those are unfaithful and someone rewrote it, `response` the rewrite
and `original_response` the Wizard of Wikipedia response; otherwise `response` the response shown
and `original_response` null. A job imported from a FaithDial file writes every utterance, in the
file's order with its own fields; an utterance nobody labeled is written exactly as it was read, so
an unlabeled import exports byte for byte. A job built from collected rooms writes its labeled
utterances only, one dialogue per room in the job's item order.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from annotate.kinds.faithdial import NAME
from annotate.kinds.faithdial.labels import Decision, faithdial_labels
from annotate.kinds.faithdial.released import FIELDS, dumps
from annotate.models import Item, ItemRole, Job
from collect.exporters import ExportError, ExportOptions, ExportResult


def export(out: Path, options: ExportOptions) -> ExportResult:
    """The registered exporter of `faithdial`: one job (--job SLUG) into `out`."""
    job = Job.objects.filter(slug=options.job).first() if options.job else None
    if job is None:
        raise ExportError(f"no annotation job {options.job!r}" if options.job else "faithdial exports one annotation job: give --job SLUG")
    if job.kind != NAME:
        raise ExportError(f"job {job.slug!r} is a {job.kind} job, not a FaithDial one")
    name = f"{job.slug}_faithdial.json"
    dialogues = faithdial_dialogues(job)
    write_text(out / name, dumps(dialogues))
    return ExportResult(counts={name: sum(len(d["utterances"]) for d in dialogues)})


def faithdial_dialogues(job: Job) -> list[dict[str, Any]]:
    decisions = faithdial_labels(job)
    imported = "record" in (job.items.filter(role=ItemRole.TASK).values_list("payload", flat=True).first() or {})
    dialogues: dict[Any, dict[str, Any]] = {}
    for item in Item.objects.filter(job=job, role=ItemRole.TASK).order_by("position", "id"):
        decision = decisions.get(item.pk)
        if decision is None and not imported:
            continue
        payload = item.payload
        dialogue = dialogues.get(payload["dialog"])
        if dialogue is None:
            fields = payload.get("dialogue") or [["utterances", None]]
            dialogue = dialogues[payload["dialog"]] = {key: [] if key == "utterances" else value for key, value in fields}
        dialogue["utterances"].append(utterance(payload, decision))
    return list(dialogues.values())


def utterance(payload: dict[str, Any], decision: Decision | None) -> dict[str, Any]:
    """The released utterance: the imported one's fields in its order (unchanged without a
    decision), else FIELDS' order; a decision sets original_response, response, BEGIN and VRM."""
    record = dict(payload.get("record") or [(f, payload[f]) for f in ("history", "speaker", "knowledge", "response")])
    if decision is None:
        return record
    shown = payload["response"]
    labeled = {
        "original_response": shown if decision.rewrite else None,
        "response": decision.rewrite or shown,
        "BEGIN": decision.begin,
        "VRM": decision.vrm,
    }
    record.update(labeled)
    if payload.get("record"):
        return record
    return {field: record[field] for field in FIELDS}


def write_text(path: Path, text: str) -> None:
    """Written beside, renamed into place when complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
