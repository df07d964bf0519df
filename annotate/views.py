"""Annotation pages. Annotators enter by link and work on one screen per job kind (the page's ES
module talks to the API); researchers (staff) see jobs and each job's report."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from annotate.charts import Chart, column_chart, row_chart
from annotate.identity import worker_from_link
from annotate.models import DIALOG_ACTS, Job, JobKind
from annotate.selectors.progress import job_progress, worker_progress
from annotate.selectors.report import annotation_report
from annotate.services import AnnotationError
from collect.models import Worker

# Keyboard shortcuts of the dialog-act screen: one keyboard row per act family.
ACT_KEYS = dict(zip(DIALOG_ACTS, "1234qweasdzxcvbn"))


def _error(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "collect/error.html", {"title": title, "message": message}, status=status)


def join(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return _error(request, 404, "No such job", f"There is no annotation job called “{slug}”. Check your link.")
    if not job.is_active:
        return _error(request, 410, "Job closed", "This annotation job is closed. Thank you for your interest.")
    try:
        worker = worker_from_link(request.GET)
    except AnnotationError as error:
        return _error(request, 400, "Bad link", error.message)
    request.session["worker_id"] = worker.pk
    return redirect("annotate:work", slug)


def work(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return _error(request, 404, "No such job", f"There is no annotation job called “{slug}”.")
    worker = Worker.objects.filter(pk=request.session.get("worker_id", -1)).first()
    if worker is None:
        return _error(request, 403, "Use your link", "Open this job through the link you were given.")
    template = "annotate/relevance.html" if job.kind == JobKind.RELEVANCE else "annotate/dialog_acts.html"
    return render(
        request,
        template,
        {
            "job": job,
            "progress": worker_progress(job=job, worker=worker),
            "next_url": reverse("annotate-api:next", args=[slug]),
            "answer_url": reverse("annotate-api:answer", args=[0]),
            "act_keys": [(act, key, act.split("_")[0]) for act, key in ACT_KEYS.items()],
        },
    )


@staff_member_required
def jobs(request: HttpRequest) -> HttpResponse:
    rows = [{"job": job, "progress": job_progress(job=job)} for job in Job.objects.order_by("-created")]
    return render(request, "annotate/jobs.html", {"rows": rows})


@staff_member_required
def report(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return _error(request, 404, "No such job", f"There is no annotation job called “{slug}”.")
    data = annotation_report(job=job)
    join_url = request.build_absolute_uri(reverse("annotate:join", args=[slug]))
    return render(request, "annotate/report.html", {"job": job, "report": data, "charts": _charts(data), "join_url": join_url})


def _charts(data: dict[str, Any]) -> list[Chart]:
    if "relevance" in data:
        relevance = data["relevance"]
        histogram = relevance["relevant_per_item"]["histogram"]
        top = max((int(k) for k in histogram), default=0)
        per_turn = [(str(k), histogram.get(str(k), 0)) for k in range(top + 1)]
        return [
            column_chart("Relevant sentences per turn", per_turn, x_label="relevant sentences", y_label="turns"),
            column_chart(
                "Confidence of each candidate sentence",
                list(relevance["confidence_histogram"].items()),
                x_label="share of annotators who selected it",
                y_label="sentences",
            ),
        ]
    frequency = data["dialog_acts"]["act_frequency"]
    return [row_chart("Dialog acts (majority labels)", list(frequency.items()), x_label="messages")]
