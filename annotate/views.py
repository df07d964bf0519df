"""Annotation pages. Annotators enter by link, through the same door as a chat campaign's
(collect.entry_views.door_enter), work on their job's kind's screen (annotate.registry: its
template in the shell annotate/_screen_base.html, its ES module talking to the API) and end on the
chat side's finish page with their outcome's code; researchers (staff) see jobs and each job's
report (its kind's page)."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _, gettext_lazy

from annotate.identity import entry_check
from annotate.models import Job, JobEntry
from annotate.registry import annotation_kind
from annotate.selectors.entries import outcomes_csv
from annotate.selectors.progress import job_progress, worker_progress
from annotate.selectors.report import annotation_report
from annotate.services import AnnotationError
from annotate.services.entries import job_entry_admit, job_entry_return
from collect import registry as collect_registry
from collect.entry_views import SESSION_WORKER, door_enter, outcome_render
from collect.lifecycle.identity import Door, Identity
from collect.lifecycle.links import JOB_LINKS
from collect.models import Campaign, Outcome, Platform, Worker
from collect.ratelimit_views import rate_limited
from groundwork.csp import mturk_frame_allowed
from groundwork.framed_cookies import cookies_for_frame
from groundwork.languages import language_page
from groundwork.pages import error_page

OUTCOME_TEXT = {
    Outcome.COMPLETED: (gettext_lazy("All done — thank you!"), gettext_lazy("You have labeled every item available to you.")),
    Outcome.SCREENED_OUT: (gettext_lazy("Thank you"), gettext_lazy("Your answers to the qualification items did not reach the level this job needs.")),
    Outcome.RETURNED: (gettext_lazy("Returned"), gettext_lazy("You returned this task.")),
}


def _job(*, slug: str, **_: Any) -> Job | None:
    return Job.objects.filter(slug=slug).first()


def _framed(request: HttpRequest, job: Job, response: HttpResponse) -> HttpResponse:
    """An MTurk job's pages live inside MTurk's cross-site frame: MTurk may frame them, and their
    cookies (session, CSRF, browser binding) are ones a third-party frame keeps."""
    if job.platform == Platform.MTURK:
        mturk_frame_allowed(request, response)
        cookies_for_frame(response)
    return response


@language_page(_job)
@rate_limited("joins")
def join(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return error_page(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”. Check your link.") % {"slug": slug})
    if not job.is_active:
        return error_page(request, 410, _("Job closed"), _("This annotation job is closed. Thank you for your interest."))

    def admit(identity: Identity, browser: str, session_worker_id: int | None) -> tuple[Worker, JobEntry]:
        return job_entry_admit(job=job, identity=identity, browser=browser, session_worker_id=session_worker_id)

    def admitted(worker: Worker, entry: JobEntry) -> HttpResponse:
        return redirect("annotate:finish", slug) if entry.outcome else redirect("annotate:work", slug)

    def preview() -> HttpResponse:
        return render(request, "annotate/mturk_preview.html", {"job": job})

    return _framed(request, job, door_enter(request, door=Door.of(job, kind=JOB_LINKS), admit=admit, admitted=admitted, preview=preview))


def _entered(request: HttpRequest, slug: str) -> JobEntry | HttpResponse:
    """The session's annotator's entry in this job, or the page that refuses them."""
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return error_page(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”.") % {"slug": slug})
    worker = Worker.objects.filter(pk=request.session.get(SESSION_WORKER, -1)).first()
    if worker is None:
        return error_page(request, 403, _("Use your link"), _("Open this job through the link you were given."))
    try:
        return entry_check(job=job, worker=worker)
    except AnnotationError as refused:
        return error_page(request, refused.status, _("Not available") if refused.code == "blocked" else _("Use your link"), _(refused.message))


@language_page(_job)
def work(request: HttpRequest, slug: str) -> HttpResponse:
    entry = _entered(request, slug)
    if isinstance(entry, HttpResponse):
        return entry
    if entry.outcome:
        return redirect("annotate:finish", slug)
    job = entry.job
    kind = annotation_kind(job.kind)
    context = {
        "job": job,
        "progress": worker_progress(job=job, worker=entry.worker),
        "next_url": reverse("annotate-api:next", args=[slug]),
        "answer_url": reverse("annotate-api:answer", args=[0]),
        "screen_script": kind.script,
        **(kind.part("screen_context")(job) if kind.screen_context else {}),
    }
    response = render(request, kind.screen, context)
    return _framed(request, job, response)


@language_page(_job)
def leave(request: HttpRequest, slug: str) -> HttpResponse:
    """The annotator returns the task (`returned`): their held item is freed, and the finish page says so."""
    entry = _entered(request, slug)
    if isinstance(entry, HttpResponse):
        return entry
    if request.method != "POST":
        return error_page(request, 405, _("Use the button"), _("Leave the job with the button on its page."))
    job_entry_return(entry=entry)
    return redirect("annotate:finish", slug)


@language_page(_job)
def finish(request: HttpRequest, slug: str) -> HttpResponse:
    """The annotator's outcome and its code (Prolific: its completion URL; MTurk: the post back)."""
    entry = _entered(request, slug)
    if isinstance(entry, HttpResponse):
        return entry
    if not entry.outcome:
        return redirect("annotate:work", slug)
    title, text = OUTCOME_TEXT.get(entry.outcome, (gettext_lazy("Thank you"), ""))
    return _framed(request, entry.job, outcome_render(
        request,
        target=entry.job,
        place=entry,
        outcome=entry.outcome,
        code=entry.completion_code,
        worker_platform=entry.worker.platform,
        title=title,
        text=text,
    ))


@staff_member_required
def jobs(request: HttpRequest) -> HttpResponse:
    rows = [{"job": job, "progress": job_progress(job=job)} for job in Job.objects.order_by("-created")]
    # The staff pages of campaigns that other apps serve (collect.registry), e.g. a model
    # evaluation's results from the pairwise kind.
    pages = [
        (campaign, page.label, reverse(page.url_name, args=[campaign.slug]))
        for campaign in Campaign.objects.order_by("name")
        for page in collect_registry.campaign_pages(campaign.protocol)
    ]
    return render(request, "annotate/jobs.html", {"rows": rows, "campaign_pages": pages})


@staff_member_required
def report(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return error_page(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”.") % {"slug": slug})
    data = annotation_report(job=job)
    kind = annotation_kind(job.kind)
    join_url = request.build_absolute_uri(reverse("annotate:join", args=[slug]))
    charts = kind.part("charts")(data) if kind.charts else []
    return render(request, kind.report_template, {"job": job, "report": data, "join_url": join_url, "charts": charts})


@staff_member_required
def outcomes(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return error_page(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”.") % {"slug": slug})
    response = HttpResponse(outcomes_csv(job=job), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{job.slug}-outcomes.csv"'
    return response
