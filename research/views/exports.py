"""The exports (/research/exports/): thin views over research.runs that start an export, watch it
and serve its files (staff only)."""

from __future__ import annotations

from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotate.models import Job
from collect.models import Campaign
from groundwork.pages import error_page
from research.access import staff_only
from research.runs import DONE, archive_name, export_run_create, export_run_file, export_run_get, export_runs_recent
from research.targets import CAMPAIGN, HF, JOB, JSON, export_target_for_campaign, export_target_for_job
from research.tasks import export_run


@staff_only
@require_POST
def export_start(request: HttpRequest) -> HttpResponse:
    kind, slug, format = request.POST.get("kind", ""), request.POST.get("slug", ""), request.POST.get("format", JSON)
    target = None
    if kind == CAMPAIGN:
        campaign = Campaign.objects.filter(slug=slug).first()
        authenticity = request.POST.get("authenticity") == "on"
        target = export_target_for_campaign(campaign=campaign, format=format, authenticity=authenticity) if campaign else None
    elif kind == JOB and format in (JSON, HF):
        job = Job.objects.filter(slug=slug).first()
        target = export_target_for_job(job=job, format=format) if job else None
    if target is None:
        what = "a Hugging Face export" if format == HF else "a dataset export"
        return error_page(request, 400, "Nothing to export", f"There is no {kind or 'campaign or job'} “{slug}” with {what}.")
    run_id = export_run_create(target=target, staff=request.user.get_username())
    export_run.delay(run_id)  # nothing of the run is in the database: no commit to wait for
    return redirect("research:export", run_id)


@staff_only
def export_page(request: HttpRequest, run_id: str) -> HttpResponse:
    state = export_run_get(run_id=run_id)
    if state is None:
        return error_page(request, 404, "No such export", "This export does not exist (or its files were removed).")
    archive = archive_name(state) if state["status"] == DONE else ""
    return render(request, "research/export.html", {"run": state, "archive": archive})


@staff_only
def export_status(request: HttpRequest, run_id: str) -> HttpResponse:
    state = export_run_get(run_id=run_id)
    if state is None:
        return JsonResponse({"error": "no such export"}, status=404)
    keys = ("status", "written", "expected", "error", "files", "notes", "finished")
    return JsonResponse({key: state[key] for key in keys})


@staff_only
def export_download(request: HttpRequest, run_id: str, name: str) -> HttpResponse:
    path = export_run_file(run_id=run_id, name=name)
    if path is None:
        return error_page(request, 404, "No such file", f"This export has no finished file “{name}”.")
    # JSON Lines has no entry in Python's mimetypes, which would serve it as application/octet-stream.
    content_type = "application/jsonl" if path.suffix == ".jsonl" else None
    return FileResponse(path.open("rb"), as_attachment=True, filename=path.name, content_type=content_type)


@staff_only
def exports(request: HttpRequest) -> HttpResponse:
    return render(request, "research/exports.html", {"runs": export_runs_recent(limit=50)})
