"""Annotation pages. Annotators enter by link, through the same door as a chat campaign's
(collect.entry_views.door_enter), work on one screen per job kind (the page's ES module talks to
the API) and end on the chat side's finish page with their outcome's code; researchers (staff) see
jobs and each job's report."""

from __future__ import annotations

from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _, gettext_lazy

from annotate.acts import act_guide_translated
from collect.charts import Chart, column_chart, interval_chart, row_chart
from annotate.duconv import duconv_rubric
from annotate.identity import entry_check
from annotate.models import DIALOG_ACTS, Job, JobEntry, JobKind
from annotate.selectors.entries import outcomes_csv
from annotate.selectors.progress import job_progress, worker_progress
from annotate.selectors.report import annotation_report
from annotate.services import AnnotationError
from annotate.services.answers import MAX_REASON_CHARS as MAX_REPORT_REASON_CHARS
from annotate.services.entries import job_entry_admit, job_entry_return
from annotate.services.pairs import MAX_REASON_CHARS as MAX_PAIR_REASON_CHARS
from collect.entry_views import SESSION_WORKER, door_enter, error_page, outcome_render
from collect.lifecycle.identity import Door, Identity
from collect.lifecycle.links import JOB_LINKS
from collect.models import Campaign, Outcome, Platform, Protocol, Worker
from collect.ratelimit_views import rate_limited
from groundwork.csp import mturk_frame_allowed
from groundwork.framed_cookies import cookies_for_frame
from groundwork.languages import language_page

TEMPLATES = {
    JobKind.RELEVANCE: "annotate/relevance.html",
    JobKind.DIALOG_ACTS: "annotate/dialog_acts.html",
    JobKind.PAIRWISE: "annotate/pairwise.html",
    JobKind.DUCONV_EVAL: "annotate/duconv_eval.html",
}
# Keyboard shortcuts of the dialog-act screen: one keyboard row per act family.
ACT_KEYS = dict(zip(DIALOG_ACTS, "1234qweasdzxcvbn"))
OUTCOME_TEXT = {
    Outcome.COMPLETED: (gettext_lazy("All done — thank you!"), gettext_lazy("You have labeled every item available to you.")),
    Outcome.SCREENED_OUT: (gettext_lazy("Thank you"), gettext_lazy("Your answers to the qualification items did not reach the level this job needs.")),
    Outcome.RETURNED: (gettext_lazy("Returned"), gettext_lazy("You returned this task.")),
}


_error = error_page


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
        return _error(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”. Check your link.") % {"slug": slug})
    if not job.is_active:
        return _error(request, 410, _("Job closed"), _("This annotation job is closed. Thank you for your interest."))

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
        return _error(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”.") % {"slug": slug})
    worker = Worker.objects.filter(pk=request.session.get(SESSION_WORKER, -1)).first()
    if worker is None:
        return _error(request, 403, _("Use your link"), _("Open this job through the link you were given."))
    try:
        return entry_check(job=job, worker=worker)
    except AnnotationError as refused:
        return _error(request, refused.status, _("Not available") if refused.code == "blocked" else _("Use your link"), _(refused.message))


@language_page(_job)
def work(request: HttpRequest, slug: str) -> HttpResponse:
    entry = _entered(request, slug)
    if isinstance(entry, HttpResponse):
        return entry
    if entry.outcome:
        return redirect("annotate:finish", slug)
    job = entry.job
    template = TEMPLATES[job.kind]
    response = render(
        request,
        template,
        {
            "job": job,
            "progress": worker_progress(job=job, worker=entry.worker),
            "next_url": reverse("annotate-api:next", args=[slug]),
            "answer_url": reverse("annotate-api:answer", args=[0]),
            "act_keys": [(guide, ACT_KEYS[guide.act], guide.act.split("_")[0]) for guide in act_guide_translated()],
            "rubric": duconv_rubric(),
            "pair_reason_max_chars": MAX_PAIR_REASON_CHARS,
            "report_reason_max_chars": MAX_REPORT_REASON_CHARS,
        },
    )
    return _framed(request, job, response)


@language_page(_job)
def leave(request: HttpRequest, slug: str) -> HttpResponse:
    """The annotator returns the task (`returned`): their held item is freed, and the finish page says so."""
    entry = _entered(request, slug)
    if isinstance(entry, HttpResponse):
        return entry
    if request.method != "POST":
        return _error(request, 405, _("Use the button"), _("Leave the job with the button on its page."))
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
    evaluations = Campaign.objects.filter(protocol=Protocol.MODEL_CHAT).order_by("name")
    return render(request, "annotate/jobs.html", {"rows": rows, "evaluations": evaluations})


@staff_member_required
def report(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return _error(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”.") % {"slug": slug})
    data = annotation_report(job=job)
    join_url = request.build_absolute_uri(reverse("annotate:join", args=[slug]))
    context = {"job": job, "report": data, "join_url": join_url, "charts": [], "interval_charts": []}
    if "pairwise" in data:
        chart = leaderboard_chart(data["pairwise"]["leaderboard"])
        context["interval_charts"] = [chart] if chart else []
    else:
        context["charts"] = _charts(data)
    return render(request, "annotate/report.html", context)


@staff_member_required
def outcomes(request: HttpRequest, slug: str) -> HttpResponse:
    job = Job.objects.filter(slug=slug).first()
    if job is None:
        return _error(request, 404, _("No such job"), _("There is no annotation job called “%(slug)s”.") % {"slug": slug})
    response = HttpResponse(outcomes_csv(job=job), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{job.slug}-outcomes.csv"'
    return response


def _charts(data: dict[str, Any]) -> list[Chart]:
    if "relevance" in data:
        charts = []
        # Complete items' charts once there are any; during a pilot, the partial ones, labeled.
        if data["relevance"]["items"] or "partial" not in data:
            charts += _relevance_charts(data["relevance"], "")
        if "partial" in data:
            partial = data["partial"]
            charts += _relevance_charts(partial["relevance"], f" — partial: {partial['items']} items, {partial['partial_items']} still voting")
        return charts
    if "duconv" in data:
        rows = data["duconv"]["goal_completion"]
        human = [(str(score), sum(1 for r in rows if round(r["human_mean"]) == score)) for score in range(3)]
        auto = [(str(score), sum(1 for r in rows if r["auto"] == score)) for score in range(3)]
        return [
            column_chart("Goal completion: annotators (rounded mean)", human, x_label="score", y_label="dialogues"),
            column_chart("Goal completion: computed from marked triples", auto, x_label="score", y_label="dialogues"),
        ]
    frequency = data["dialog_acts"]["act_frequency"]
    return [row_chart("Dialog acts (majority labels)", list(frequency.items()), x_label="messages")]


def _relevance_charts(relevance: dict[str, Any], suffix: str) -> list[Chart]:
    histogram = relevance["relevant_per_item"]["histogram"]
    top = max((int(k) for k in histogram), default=0)
    per_turn = [(str(k), histogram.get(str(k), 0)) for k in range(top + 1)]
    return [
        column_chart(f"Relevant sentences per turn{suffix}", per_turn, x_label="relevant sentences", y_label="turns"),
        column_chart(
            f"Confidence of each candidate sentence{suffix}",
            list(relevance["confidence_histogram"].items()),
            x_label="share of annotators who selected it",
            y_label="sentences",
        ),
    ]


def leaderboard_chart(board: dict[str, dict[str, Any]]) -> Chart | None:
    """The ranked models' scores and intervals (None when no model has an interval yet)."""
    rows = [(f"{name} (n={row['battles']})", row["score"], row["lo"], row["hi"]) for name, row in board.items() if row["lo"] is not None]
    if not rows:
        return None
    return interval_chart("Bradley–Terry scores with 95% bootstrap intervals", rows, x_label="score (mean 1000)")
