"""What a dataset card says about the annotation of the campaigns it exports (collect/exporters/hf.py
asks through collect.registry.card_section_register): each job built from them, with its agreement
figures as its report computes them (annotate.selectors.report)."""

from __future__ import annotations

from typing import Any

from annotate.models import Job
from annotate.selectors.report import annotation_report


def card_annotation_lines(campaigns: tuple[str, ...]) -> list[str]:
    """One Markdown list line per annotation job whose items came from any of `campaigns` (slugs):
    name, kind, annotators per item, answers, and each agreement measure's value over its units."""
    wanted = set(campaigns)
    lines = []
    for job in Job.objects.order_by("slug"):
        if not wanted & set((job.source or {}).get("campaigns", [])):
            continue
        report = annotation_report(job=job)
        figures = "; ".join(_agreement(a) for a in report.get("agreements", []) if a) or "no agreement figure yet"
        answers = report["answers"].get("task", 0)
        lines.append(f"- {job.name} (`{job.slug}`, {job.kind}, {job.overlap} annotators per item, {answers:,} answers): {figures}")
    return lines


def _agreement(agreement: dict[str, Any]) -> str:
    value = agreement.get("value")
    shown = "undefined" if value is None else f"{value:.3f}"
    units = agreement.get("units")
    return f"{agreement.get('measure', 'agreement')} {shown}" + (f" over {units:,} units" if units else "")
