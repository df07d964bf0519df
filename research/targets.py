"""What each campaign and annotation job exports, and the shell command that writes the same bytes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from annotate.exporters.curiosity_acts import export_curiosity_acts
from annotate.models import Item, Job
from annotate.selectors.report import annotation_report
from collect.exporters import ExportError, ExportOptions, ExportResult, export_dataset
from collect.models import Campaign, Room, RoomStatus
from collect.research_access import CURIOSITY_ACTS, DATASET_OF_PROTOCOL, REPORT, job_dataset

CAMPAIGN, JOB = "campaign", "job"


@dataclass(frozen=True)
class ExportTarget:
    kind: str  # CAMPAIGN or JOB
    slug: str
    dataset: str  # an exporter's name (collect.exporters.EXPORTERS), REPORT or CURIOSITY_ACTS
    command: str  # what writes the same files from the shell
    campaigns: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return {REPORT: "annotation report (JSON)", CURIOSITY_ACTS: "Curiosity dialogs with their acts"}.get(self.dataset, self.dataset)


def export_target_for_campaign(*, campaign: Campaign) -> ExportTarget | None:
    dataset = DATASET_OF_PROTOCOL.get(campaign.protocol)
    if dataset is None:
        return None
    command = f"manage.py export_dataset {dataset} --campaign {campaign.slug} --out DIR"
    return ExportTarget(CAMPAIGN, campaign.slug, dataset, command, (campaign.slug,))


def export_target_for_job(*, job: Job) -> ExportTarget:
    dataset = job_dataset(kind=job.kind, source=job.source)
    if dataset == "wowpp":
        return ExportTarget(JOB, job.slug, dataset, f"manage.py export_dataset wowpp --job {job.slug} --out DIR")
    if dataset == CURIOSITY_ACTS:
        return ExportTarget(JOB, job.slug, dataset, "annotate.exporters.curiosity_acts.export_curiosity_acts (no command)")
    if dataset == REPORT:
        return ExportTarget(JOB, job.slug, dataset, f"manage.py annotation_report {job.slug} --json > DIR/{job.slug}-report.json")
    campaigns = tuple(job.source["campaigns"])
    flags = " ".join(f"--campaign {slug}" for slug in campaigns)
    return ExportTarget(JOB, job.slug, dataset, f"manage.py export_dataset {dataset} {flags} --out DIR", campaigns)


def export_target_size(target: ExportTarget) -> int:
    """Roughly how many items the export writes: for its progress bar."""
    if target.kind == JOB and target.dataset in ("wowpp", CURIOSITY_ACTS, REPORT):
        return 1 if target.dataset == REPORT else Item.objects.filter(job__slug=target.slug).count()
    return Room.objects.filter(campaign__slug__in=target.campaigns, status=RoomStatus.COMPLETE).count()


def export_target_write(target: ExportTarget, out_dir: Path) -> ExportResult:
    """Write the target's files into `out_dir`: the same bytes as its command."""
    if target.dataset == REPORT:
        report = annotation_report(job=Job.objects.get(slug=target.slug))
        out_dir.mkdir(parents=True, exist_ok=True)
        name = f"{target.slug}-report.json"
        # The command writes json.dumps(...) and a newline to stdout.
        (out_dir / name).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return ExportResult(counts={name: 1})
    if target.dataset == CURIOSITY_ACTS:
        name = f"{target.slug}_curiosity_dialogs.json"
        try:
            count = export_curiosity_acts(job=Job.objects.get(slug=target.slug), path=out_dir / name)
        except ValueError as error:
            raise ExportError(str(error)) from error
        return ExportResult(counts={name: count})
    options = ExportOptions(campaigns=target.campaigns, job=target.slug if target.kind == JOB and target.dataset == "wowpp" else "")
    return export_dataset(target.dataset, out_dir, options)
