"""A relevance job -> a WOW++ file (docs/schemas.md#wow): `export_dataset wowpp --job J --out FILE`.

confidence = the share of the item's annotators who selected the sentence; relevance = "relevant"
iff confidence >= the job's threshold. Only items that reached the job's overlap are written unless
--include-partial (or --include-incomplete): then items with at least one vote are written too, their
confidences being shares of the votes so far, each marked `"partial": true` with its `"annotators"`
(keys WOW++ loaders do not read). Keys follow the released files' order; the optional context fields
an imported item lacked stay absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from annotate.exporters import write_json_object
from annotate.kinds.relevance import NAME
from annotate.kinds.relevance.tallies import Tally, relevance_tallies
from annotate.models import Job
from collect.exporters import ExportError, ExportOptions, ExportResult

SEPARATOR = " <knowledge_separator> "
# Absent from the released test files; written when an item has them (collected items always do).
OPTIONAL = ("start_speaker", "id", "knowledges", "gold_sentence")


def export(out: Path, options: ExportOptions) -> ExportResult:
    job = exported_job(options)
    path = out if out.suffix == ".json" else out / f"{job.slug}_augmented_wow.json"
    partial = options.include_partial or options.include_incomplete
    count = write_json_object(path, wowpp_records(job, include_incomplete=partial))
    return ExportResult(counts={path.name: count})


def exported_job(options: ExportOptions) -> Job:
    """The relevance job `--job` names; ExportError saying what is wrong otherwise."""
    if not options.job:
        raise ExportError("wowpp exports one annotation job: give --job SLUG")
    job = Job.objects.filter(slug=options.job).first()
    if job is None:
        raise ExportError(f"no annotation job {options.job!r}")
    if job.kind != NAME:
        raise ExportError(f"job {options.job!r} labels {job.kind}, not {NAME}")
    return job


def wowpp_records(job: Job, *, include_incomplete: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    complete = {t.item.pk for t in relevance_tallies(job, complete_only=True)} if include_incomplete else None
    for tally in relevance_tallies(job, complete_only=not include_incomplete):
        record = wowpp_record(tally, job.threshold)
        if complete is not None and tally.item.pk not in complete:
            record.update(partial=True, annotators=tally.annotators)
        yield tally.item.key, record


def wowpp_record(tally: Tally, threshold: float) -> dict[str, Any]:
    payload = tally.item.payload
    record: dict[str, Any] = {"turns": payload["turns"], "topic": payload["topic"]}
    record.update((key, payload[key]) for key in OPTIONAL if key in payload)
    sentences = []
    for n, candidate in enumerate(payload["candidates"]):
        confidence = tally.confidence(n)
        sentences.append({
            "label": candidate.get("label") or f"{candidate['article']}{SEPARATOR}{candidate['sentence']}",
            "confidence": confidence,
            "relevance": "relevant" if confidence >= threshold else "notRelevant",
            "article": candidate["article"],
        })
    record["annotated_sentences"] = sentences
    record.update(payload.get("extra", {}))
    if "key_order" in payload:  # an imported record whose keys stood otherwise: as read
        record = {key: record[key] for key in payload["key_order"]}
    return record


def default_key_order(record: dict[str, Any]) -> list[str]:
    """The order wowpp_record writes a record's keys in when the item keeps none of its own: the
    released files' order, then any keys unknown to the importer."""
    known = [key for key in ("turns", "topic", *OPTIONAL, "annotated_sentences") if key in record]
    return known + [key for key in record if key not in known]
