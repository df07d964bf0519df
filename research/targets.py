"""What each campaign and annotation job exports, and the shell command that writes the same bytes.
A campaign exports as its task type's dataset (collect.registry), in its original files or, where the
dataset has an `hf` hook, as a Hugging Face `datasets` folder (collect/exporters/hf.py); a job as
its kind says (annotate.registry.job_export), or as its annotation report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from annotate.models import Item, Job
from annotate.registry import REPORT, job_export
from annotate.selectors.report import annotation_report
from collect import registry
from collect.exporters import ExportOptions, ExportResult, export_dataset
from collect.exporters.hf import export_hf, hf_datasets
from collect.models import Campaign, Room, RoomStatus
from research.access import campaign_dataset

CAMPAIGN, JOB = "campaign", "job"
JSON, HF = "json", "hf"  # the original files, or a Hugging Face datasets folder
FORMATS = (JSON, HF)


@dataclass(frozen=True)
class ExportTarget:
    kind: str  # CAMPAIGN or JOB
    slug: str
    dataset: str  # a dataset's name (collect.registry), or REPORT
    command: str  # what writes the same files from the shell
    campaigns: tuple[str, ...] = ()
    label: str = ""  # what the files are, for people (default: the dataset's name)
    format: str = JSON
    authenticity: bool = False  # each human turn with its authenticity object (docs/authenticity.md)

    def __post_init__(self) -> None:
        if not self.label:
            label = "annotation report (JSON)" if self.dataset == REPORT else self.dataset
            object.__setattr__(self, "label", f"{label} (Hugging Face)" if self.format == HF else label)


def export_target_for_campaign(*, campaign: Campaign, format: str = JSON, authenticity: bool = False) -> ExportTarget | None:
    """None when the campaign's task type has no dataset, or (format HF) no Hugging Face export.
    `authenticity` (the JSON files only) where the dataset carries it."""
    dataset = campaign_dataset(campaign)
    if not dataset or format not in FORMATS or (format == HF and dataset not in hf_datasets()):
        return None
    authenticity = authenticity and format == JSON and registry.dataset_carries_authenticity(dataset)
    flag = " --format hf" if format == HF else ""
    command = f"manage.py export_dataset {dataset}{flag} --campaign {campaign.slug}{' --authenticity' if authenticity else ''} --out DIR"
    return ExportTarget(CAMPAIGN, campaign.slug, dataset, command, (campaign.slug,), format=format, authenticity=authenticity)


def job_hf_export(job: Job) -> bool:
    """Whether the job's own files have a Hugging Face export (the index shows its button)."""
    return export_target_for_job(job=job, format=HF) is not None


def campaign_hf_export(campaign: Campaign) -> bool:
    """Whether the campaign's dataset has a Hugging Face export (the index shows its button)."""
    return campaign_dataset(campaign) in hf_datasets()


def export_target_for_job(*, job: Job, format: str = JSON) -> ExportTarget | None:
    """None for format HF where the job's files (a dataset written from the job itself, as WOW++)
    have no Hugging Face export."""
    export = job_export(job)
    if format == HF:
        if export is None or export.campaigns or export.dataset not in hf_datasets():
            return None
        command = f"manage.py export_dataset {export.dataset} --format hf --job {job.slug} --out DIR"
        return ExportTarget(JOB, job.slug, export.dataset, command, format=HF)
    if export is None:
        return ExportTarget(JOB, job.slug, REPORT, f"manage.py annotation_report {job.slug} --json > DIR/{job.slug}-report.json")
    if not export.campaigns:  # the job's own files
        command = f"manage.py export_dataset {export.dataset} --job {job.slug} --out DIR"
        return ExportTarget(JOB, job.slug, export.dataset, command, label=export.label)
    flags = " ".join(f"--campaign {slug}" for slug in export.campaigns)
    command = f"manage.py export_dataset {export.dataset} {flags} --out DIR"
    return ExportTarget(JOB, job.slug, export.dataset, command, export.campaigns, label=export.label)


def export_target_size(target: ExportTarget) -> int:
    """Roughly how many items the export writes: for its progress bar."""
    if target.kind == JOB and not target.campaigns:
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
    job = target.slug if target.kind == JOB and not target.campaigns else ""
    options = ExportOptions(campaigns=target.campaigns, job=job, authenticity=target.authenticity)
    if target.format == HF:
        return export_hf(target.dataset, out_dir, options)
    return export_dataset(target.dataset, out_dir, options)
